//! The image-load unit (`image_load`): serves the shader core's special-port image loads of
//! fragment warps (the two-pass renderer's lighting pass reading the G-buffer that an earlier
//! pass wrote out) from external memory, the RTL side of the frame model's `surface_port`
//! (`sim/models/tile/frame/env.rs`; the port's encoding is `sim/models/tile/port.rs`).
//!
//! # What a request does
//! A `spec d, a, b, imm` request with `imm = op << 8 | binding << 2 | channel` and
//! `a = x | y << 14 | sample << 28`:
//! * a **helper lane** is answered 0 (nothing fetched, no error);
//! * `op` other than 1 (load), a binding the surface table does not enable, or
//!   `x ≥ width`, `y ≥ height`, `sample ≥ samples` is an **error**: answered 0, nothing
//!   fetched, and the first one is kept in the sticky `error` (its kind, [`ImageError`]) and
//!   `error_at` (`[binding, x, y, sample]`; the driver names the surface's size from its table);
//! * **channel 0** fetches the texel at `base + ((y·width + x)·samples + sample)·bytes`
//!   (`bytes` = 8 for RGBA16F, else 4) with one single-beat read whose `strobe` marks the
//!   texel's bytes (a narrow read, `mem_port.rs`), keeps it in the lane's latch and answers
//!   its channel 0;
//! * **channels 1..=3** are answered from the lane's latch (no memory traffic), as the
//!   compiler issues an `imageLoad` as four requests, channels 0..=3 in turn, per lane.
//!
//! Conversions are `pack::load_channel`'s: RGBA8 `u/255`, binary16 exactly, R32F the word,
//! missing channels 0 and alpha 1.0; a D24 surface answers its raw 32-bit word in channel 0,
//! 0 in channels 1 and 2 and the integer 1 in channel 3.
//!
//! # Surface table (configuration registers, [`ImageTable`])
//! Per binding `b` < `bindings`: bit `b` of `enable`, `base[b]` (byte address of pixel (0, 0),
//! a multiple of 8), `format[b]` ([`ImageFormat`] code), `width[b]`, `height[b]` (1 ..= 16383)
//! and `samples[b]` (1 ..= 4).
use super::convert::{f16_to_f32, unorm8_to_f32};
use super::mem_port::{MemReq, MemResp};
use crate::shader::{LaneData, SpecReq};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{cat, index_select, Bundle, Io, Module, Sig, Stream};

/// Loads in flight between the request register and the answer (the pending FIFO's depth).
pub const IMAGE_LOADS_IN_FLIGHT: u32 = 8;
/// Bits of a surface's width and height.
pub const IMAGE_SIZE_BITS: u32 = 14;

/// Format codes of the surface table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// 8-bit UNORM RGBA, 4 bytes (0).
    Rgba8 = 0,
    /// Four binary16, 8 bytes (1).
    Rgba16f = 1,
    /// One binary32, 4 bytes (2).
    R32f = 2,
    /// Two binary16, 4 bytes (3).
    Rg16f = 3,
    /// D24 in a 32-bit word, 4 bytes (4).
    D24 = 4,
}

/// Kinds of the sticky error (the `error` output; 0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// A special function other than an image load (1).
    NotALoad = 1,
    /// A binding the surface table does not enable (2).
    Unbound = 2,
    /// A pixel or sample outside the surface (3).
    OutOfBounds = 3,
}

impl ImageError {
    /// The kind of an error code (`None` for 0 and unknown codes).
    pub fn from_code(code: u64) -> Option<ImageError> {
        match code {
            1 => Some(ImageError::NotALoad),
            2 => Some(ImageError::Unbound),
            3 => Some(ImageError::OutOfBounds),
            _ => None,
        }
    }
}

/// Parameters of [`image_load`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImageCfg {
    /// Entries of the surface table (bindings `0 .. bindings`), 1 ..= 16. Default 9 (colour
    /// targets 0..=7 and depth).
    pub bindings: u32,
}

impl Default for ImageCfg {
    fn default() -> Self {
        ImageCfg { bindings: 9 }
    }
}

/// The surface table (module docs).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ImageTable<T = Sig> {
    /// Binding `b` is bound (bit `b`).
    pub enable: T,
    /// Byte address of pixel (0, 0), sample 0.
    pub base: Vec<T>,
    /// [`ImageFormat`] code, 3 bits.
    pub format: Vec<T>,
    /// Width in pixels.
    pub width: Vec<T>,
    /// Height in pixels.
    pub height: Vec<T>,
    /// Samples per pixel, 3 bits.
    pub samples: Vec<T>,
}

impl ImageTable<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &ImageCfg) -> ImageTable<u32> {
        let n = cfg.bindings as usize;
        ImageTable {
            enable: cfg.bindings,
            base: vec![32; n],
            format: vec![3; n],
            width: vec![IMAGE_SIZE_BITS; n],
            height: vec![IMAGE_SIZE_BITS; n],
            samples: vec![3; n],
        }
    }
}

/// What [`image_load`] takes.
#[derive(Io)]
pub struct ImageLoadIn {
    /// The core's special-port requests of fragment warps.
    pub spec_req: Stream<SpecReq>,
    /// Answers to this unit's reads, in order.
    pub mem_resp: Stream<MemResp>,
    /// The surface table.
    pub table: ImageTable,
}

/// What [`image_load`] gives.
#[derive(Io)]
pub struct ImageLoadOut {
    /// Answers for the core, in request order.
    pub spec_resp: Stream<LaneData>,
    /// Single-beat narrow reads.
    pub mem_req: Stream<MemReq>,
    /// Sticky: the first error's [`ImageError`] code (0: none), 2 bits.
    pub error: Sig,
    /// The first error's `[binding, x, y, sample]`.
    pub error_at: [Sig; 4],
}

/// A request between the request register and its answer.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Pending<T = Sig> {
    slot: T,
    lane: T,
    /// Channel 0: the answer comes with the next memory beat (else from the latch).
    fetch: T,
    /// The texel is the beat's upper word.
    upper: T,
    format: T,
    channel: T,
    /// Answered 0 (a helper lane or an error).
    zero: T,
}

/// Channel `c` of a texel of format `format` (an [`ImageFormat`] code) as the shader sees it
/// (module docs). Combinational.
pub fn image_channel(m: &mut Module, format: Sig, stored: Sig, c: Sig) -> Sig {
    let zero = m.lit(0, 32);
    let one_f = m.lit(0x3F80_0000, 32);
    let bytes: Vec<Sig> = (0..4).map(|k| stored.bits(8 * k + 7, 8 * k)).collect();
    let halves: Vec<Sig> = (0..4).map(|k| stored.bits(16 * k + 15, 16 * k)).collect();
    let unorm = unorm8_to_f32(m, index_select(c, &bytes));
    let half = f16_to_f32(m, index_select(c, &halves));
    let word = stored.bits(31, 0);
    let is0 = c.eq(0);
    let is3 = c.eq(3);
    let missing = |m: &mut Module, present: Sig, value: Sig, alpha: Sig| {
        present.mux(value, is3.mux(alpha, m.lit(0, 32)))
    };
    let rg16f = missing(m, c.lt(2), half, one_f);
    let r32f = missing(m, is0, word, one_f);
    let one_i = m.lit(1, 32);
    let d24 = missing(m, is0, word, one_i);
    let per = [unorm, half, r32f, rg16f, d24, zero, zero, zero];
    index_select(format, &per)
}

/// Serves image loads (module docs).
///
/// * **Protocol:** stream rules; answers in request order; one request register, a pending
///   FIFO of [`IMAGE_LOADS_IN_FLIGHT`] entries, the memory answers in order.
/// * **Timing:** a request is taken the clock after the previous one leaves its register or
///   the same clock (initiation interval 1); a channel-0 answer one clock after its beat
///   arrives is offered combinationally with it; other channels one clock after the request
///   register. Latency: 1 + the memory's for channel 0, 2 otherwise.
/// * **Cost:** the request register (~110 flops), a pending FIFO of 8 × (slot + lane + 8)
///   bits, a latch RAM of 64 bits per (slot, lane), a 14×14 and a 30×3 multiplier, one RGBA8
///   table and one binary16 conversion. Measured (default: 9 bindings, 3-bit slot, 2-bit
///   lane; Yosys generic library, the latch mapped to flip-flops): 10,839 cells, 2,276
///   flip-flops (2,048 of them the latch), 64 gate levels —
///   `cargo test -p rendergen-testbenches --test testbenches tile::image_load::measure -- --ignored --nocapture`
///   or `rendergen synth image_load`.
/// * **Errors:** elaboration fails unless `bindings` is 1 ..= 16.
pub fn image_load(m: &mut Module, cfg: &ImageCfg, i: ImageLoadIn) -> ImageLoadOut {
    // `bindings` is checked by the tops (`image_load_top`, `tile_engine_top`).
    let n = cfg.bindings.clamp(1, 16) as usize;
    let ImageLoadIn {
        spec_req,
        mem_resp,
        table,
    } = i;
    let (rv, r_in, rr) = spec_req.split();
    let slot_bits = r_in.slot.width();
    let lane_bits = r_in.lane.width();

    // The request register.
    let full = m.reg("req_full", 1).reset(0);
    let leave = m.wire("req_leave", 1);
    let free = !full.q() | leave.sig();
    rr.drive(free);
    let take = rv & free;
    let req = m.reg_bundle("req", &r_in, Some(take));
    full.next(take | (full.q() & !leave.sig()));

    // Decode and check.
    let op = req.func.bits(31, 8);
    let binding = req.func.bits(7, 2);
    let channel = req.func.bits(1, 0);
    let (x, y, sample) = (req.a.bits(13, 0), req.a.bits(27, 14), req.a.bits(31, 28));
    let b = binding.resize(4);
    let mut pick = |v: &[Sig]| {
        let mut cases = v.to_vec();
        cases.resize(16, m.lit(0, v[0].width()));
        index_select(b, &cases)
    };
    let base = pick(&table.base);
    let format = pick(&table.format);
    let width = pick(&table.width);
    let height = pick(&table.height);
    let samples = pick(&table.samples);
    let bound = binding.lt(n as u64) & index_select(b, &enable_bits(m, table.enable, n));
    let not_load = op.ne(1);
    let outside = x.ge(width) | y.ge(height) | sample.ge(samples.zext(4));
    let kind = not_load.mux(
        m.lit(ImageError::NotALoad as u64, 2),
        (!bound).mux(
            m.lit(ImageError::Unbound as u64, 2),
            outside.mux(m.lit(ImageError::OutOfBounds as u64, 2), m.lit(0, 2)),
        ),
    );
    let bad = !req.helper & kind.ne(0);
    let zero = req.helper | bad;
    let fetch = !zero & channel.eq(0);

    // The address: base + ((y·width + x)·samples + sample)·bytes.
    let row = y.mul_full(width).zext(30) + x.zext(30);
    let index = row.mul_full(samples).resize(32) + sample.zext(32);
    let wide = format.eq(ImageFormat::Rgba16f as u64);
    let offset = wide.mux(index << 3, index << 2);
    let addr = base + offset;
    let upper = !wide & addr.bit(2);
    let read = MemReq {
        write: m.lit(0, 1),
        addr: cat(&[addr.bits(31, 3), m.lit(0, 3)]),
        beats: m.lit(0, 4),
        data: m.lit(0, 64),
        strobe: wide.mux(m.lit(0xFF, 8), upper.mux(m.lit(0xF0, 8), m.lit(0x0F, 8))),
        last: m.lit(0, 1),
    };
    let mem_ready = m.wire("mem_ready", 1);
    let entry = Pending {
        slot: req.slot,
        lane: req.lane,
        fetch,
        upper,
        format,
        channel,
        zero,
    };
    let (push, push_ready) =
        Stream::offer(m, "pending", full.q() & (!fetch | mem_ready.sig()), entry);
    let pending = fifo(
        m,
        &FifoCfg {
            depth: IMAGE_LOADS_IN_FLIGHT,
        },
        push,
    );
    let (mem_req, ready) = Stream::offer(m, "mem_req", full.q() & fetch & push_ready, read);
    mem_ready.drive(ready);
    leave.drive(full.q() & push_ready & (!fetch | ready));

    // The sticky error.
    let error = m.reg("error", 2).reset(0);
    let record = leave.sig() & bad & error.q().eq(0);
    error.next_when(record, kind);
    let at = [binding.zext(8), x, y, sample];
    let error_at: [Sig; 4] = std::array::from_fn(|k| {
        let r = m.reg(&format!("error_at_{k}"), at[k].width()).reset(0);
        r.next_when(record, at[k]);
        r.q()
    });

    // Answers.
    let (pv, p, pr) = pending.pop.split();
    let (mv, beat, mr) = mem_resp.split();
    let latch = m.memory("latch", 64, 1 << (slot_bits + lane_bits));
    let who = cat(&[p.slot, p.lane]);
    let fetched = p.upper.mux(beat.data.bits(63, 32).zext(64), beat.data);
    let stored = p.fetch.mux(fetched, latch.read_comb(who));
    let value = image_channel(m, p.format, stored, p.channel);
    let answer = LaneData {
        slot: p.slot,
        lane: p.lane,
        data: p.zero.mux(m.lit(0, 32), value),
    };
    let out_valid = pv & (!p.fetch | mv);
    let (spec_resp, out_ready) = Stream::offer(m, "spec_resp", out_valid, answer);
    let fire = out_valid & out_ready;
    pr.drive(fire);
    mr.drive(pv & p.fetch & out_ready);
    latch.write(fire & p.fetch, who, fetched);
    ImageLoadOut {
        spec_resp,
        mem_req,
        error: error.q(),
        error_at,
    }
}

/// The `n` enable bits of the table, padded with zeros to 16 cases.
fn enable_bits(m: &mut Module, enable: Sig, n: usize) -> Vec<Sig> {
    (0..16)
        .map(|k| match k < n {
            true => enable.bit(k as u32),
            false => m.lit(0, 1),
        })
        .collect()
}

/// Parameters of [`image_load_top`]: the unit's and the request tags' widths.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImageTopCfg {
    /// The unit.
    pub image: ImageCfg,
    /// Bits of a warp slot, 1 ..= 8. Default 3.
    pub slot_bits: u32,
    /// Bits of a lane, 1 ..= 6. Default 2.
    pub lane_bits: u32,
}

impl Default for ImageTopCfg {
    fn default() -> Self {
        ImageTopCfg {
            image: ImageCfg::default(),
            slot_bits: 3,
            lane_bits: 2,
        }
    }
}

/// [`image_load`] alone (catalogue `image_load`): ports `spec_req`, `spec_resp`, `mem_req`,
/// `mem_resp`, `table_*`, `error`, `error_at_<k>`.
///
/// * **Errors:** `image.bindings` 1 ..= 16, `slot_bits` 1 ..= 8, `lane_bits` 1 ..= 6.
pub fn image_load_top(
    cfg: &ImageTopCfg,
) -> Result<rendergen_hdl::Design, rendergen_hdl::ElabErrors> {
    rendergen_hdl::Design::build_with_params("image_load_top", &format!("{cfg:?}"), |m| {
        let ok = m.check_param("image.bindings", cfg.image.bindings as u64, 1..=16)
            & m.check_param("slot_bits", cfg.slot_bits as u64, 1..=8)
            & m.check_param("lane_bits", cfg.lane_bits as u64, 1..=6);
        if !ok {
            return;
        }
        let spec_req = m.input_stream::<SpecReq>(
            "spec_req",
            &SpecReq {
                slot: cfg.slot_bits,
                lane: cfg.lane_bits,
                func: 32,
                a: 32,
                b: 32,
                helper: 1,
            },
        );
        let mem_resp = m.input_stream("mem_resp", &MemResp::SHAPE);
        let table = m.input_bundle("table", &ImageTable::shape(&cfg.image));
        let out = m.child(
            "image_load",
            &cfg.image,
            ImageLoadIn {
                spec_req,
                mem_resp,
                table,
            },
            image_load,
        );
        m.output_stream("spec_resp", out.spec_resp);
        m.output_stream("mem_req", out.mem_req);
        m.output("error", out.error);
        for (k, s) in out.error_at.into_iter().enumerate() {
            m.output(&format!("error_at_{k}"), s);
        }
    })
}
