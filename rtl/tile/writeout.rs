//! The write-out unit (`tile_writeout`, unit 13 of the source; `tiles-and-allocation.md`
//! A.5.6, A.7, A.10.2 §5): reads every pixel of every enabled plane from the tile buffer's
//! write-out port, resolves its samples ([`super::resolve`]), packs it by format and writes
//! each tile row as one burst on the memory port ([`super::mem_port`]).
use super::mem_port::{MemReq, MemResp, MEM_ADDR_BITS, MEM_BEAT_BYTES};
use super::resolve::resolve;
use super::{RtFormat, TileCfg, WoReq, WoResp, TILE_COORD_BITS};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use crate::stream::stages::pipeline;
use rendergen_hdl::{cat, index_select, lut, Bundle, Io, Module, Sig, Stream};

/// Bits of a plane's base address.
pub const BASE_BITS: u32 = MEM_ADDR_BITS;
/// Bits of a plane's row pitch in bytes.
pub const PITCH_BITS: u32 = 16;
/// Bits of a plane's byte counter.
pub const BYTES_BITS: u32 = 32;
/// Write-out reads in flight between the tile buffer's port and the resolve.
pub const IN_FLIGHT: u32 = 4;

/// A tile's dynamic write-out choices (the tile shader's `WOC`/`WOZ`; all planes on,
/// averaged, when no tile shader ran).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoFlags<T = Sig> {
    /// Plane `p` is written out (bit `p`; planes are the colour targets, then depth).
    pub enable: T,
    /// Plane `p` writes one chosen sample instead of the mean (bit `p`).
    pub select: T,
    /// The chosen sample of each plane, 2 bits.
    pub sample: Vec<T>,
}

impl WoFlags<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoFlags<u32> {
        let planes = cfg.planes() as u32;
        WoFlags {
            enable: planes,
            select: planes,
            sample: vec![2; cfg.planes()],
        }
    }
}

/// Write-out of one tile: its position and the dynamic flags.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoStart<T = Sig> {
    /// Tile column (in tiles).
    pub tile_x: T,
    /// Tile row.
    pub tile_y: T,
    /// Dynamic choices.
    pub flags: WoFlags<T>,
}

impl WoStart<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoStart<u32> {
        WoStart {
            tile_x: TILE_COORD_BITS,
            tile_y: TILE_COORD_BITS,
            flags: WoFlags::shape(cfg),
        }
    }
}

/// The write-out's configuration registers (static for a frame): per plane the static mode
/// of `WriteMode` in `sim/models/tile/port.rs` — off (`enable` clear), average, sample `s`
/// (`select`, `sample`) or every sample (`all`) — and where its surface is.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoConfig<T = Sig> {
    /// Static enable of plane `p` (bit `p`): a cleared bit suppresses the plane in every tile.
    pub enable: T,
    /// Plane `p` stores every sample (bit `p`; 4 samples only, ignored with one): a
    /// multisampled surface, pixel `(x, y)` sample `s` at `base + y·pitch + (4x + s)·bpp`.
    /// The tile's dynamic sample choice does not apply to such a plane.
    pub all: T,
    /// Plane `p` writes sample `sample[p]` instead of the mean (bit `p`) unless the tile
    /// shader chose a sample (`flags.select`).
    pub select: T,
    /// The statically chosen sample of each plane, 2 bits.
    pub sample: Vec<T>,
    /// Byte address of each plane's image (pixel (0, 0)), a multiple of 128 (so that no
    /// row burst crosses a 4 KiB boundary).
    pub base: Vec<T>,
    /// Bytes from one image row to the next, a multiple of 128.
    pub pitch: Vec<T>,
}

impl WoConfig<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoConfig<u32> {
        WoConfig {
            enable: cfg.planes() as u32,
            all: cfg.planes() as u32,
            select: cfg.planes() as u32,
            sample: vec![2; cfg.planes()],
            base: vec![BASE_BITS; cfg.planes()],
            pitch: vec![PITCH_BITS; cfg.planes()],
        }
    }
}

/// What [`tile_writeout`] takes.
#[derive(Io)]
pub struct WriteoutIn {
    /// One write-out per tile; taken when its last write is acknowledged.
    pub start: Stream<WoStart>,
    /// Configuration registers.
    pub config: WoConfig,
    /// The tile buffer's answers to `wo_req`.
    pub wo_resp: Stream<WoResp>,
    /// Memory answers (write acknowledgements).
    pub mem_resp: Stream<MemResp>,
}

/// What [`tile_writeout`] gives.
#[derive(Io)]
pub struct WriteoutOut {
    /// Reads of the tile buffer's write-out port.
    pub wo_req: Stream<WoReq>,
    /// Write bursts to memory.
    pub mem_req: Stream<MemReq>,
    /// Bytes written per plane since reset (wrapping).
    pub bytes: Vec<Sig>,
}

/// A pixel read in flight: which plane and pixel, and which of its samples it stands for when
/// the plane stores every sample (the pixel is then read once per sample).
#[derive(Bundle, Clone, Debug, PartialEq)]
struct PixelTag<T = Sig> {
    plane: T,
    pixel: T,
    sample: T,
}

/// A pixel to resolve.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Unresolved<T = Sig> {
    tag: PixelTag<T>,
    samples: Vec<T>,
    select: T,
    sample: T,
}

/// A resolved pixel.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Resolved<T = Sig> {
    tag: PixelTag<T>,
    value: T,
}

/// Bytes per pixel in memory of each plane (4, or 8 for RGBA16F; depth is 4: D24 in bits 23:0).
pub fn pixel_bytes(cfg: &TileCfg, plane: usize) -> u32 {
    match cfg.formats.get(plane) {
        Some(RtFormat::Rgba16f) => 8,
        _ => 4,
    }
}

/// The sequencer: walks the enabled planes' 256 pixels in row order, one `wo_req` per clock
/// while credits last (a plane in `all` asks for each pixel four times, once per sample it
/// stands for); gives the reads' tags, the bursts the reads make up and whether issuing.
struct Sequence {
    wo_req: Stream<WoReq>,
    tags: Stream<PixelTag>,
    bursts: Sig,
    issuing: Sig,
    sent: Sig,
}

/// Bits of the burst counters (a tile has at most 9 planes × 64 bursts).
const BURST_BITS: u32 = 10;

/// Whether plane `plane` stores every sample (`all`, only with 4 samples).
fn every_sample(m: &mut Module, cfg: &TileCfg, plane: Sig, all: Sig) -> Sig {
    match cfg.samples {
        4 => index_select(plane, &bits_of(all)),
        _ => m.lit(0, 1),
    }
}

/// Whether plane `plane`'s pixels are 8 bytes (RGBA16F).
fn wide_plane(cfg: &TileCfg, plane: Sig) -> Sig {
    let wide_table: Vec<u64> = (0..cfg.planes())
        .map(|k| (pixel_bytes(cfg, k) == 8) as u64)
        .collect();
    lut(plane, &wide_table, 1)
}

/// The last value of a burst: pixel 15 of a row, or with every sample stored the last sample
/// of each 128-byte run (8 pixels of 4 bytes × 4 samples, or 4 pixels of 8 bytes).
fn burst_end(pixel: Sig, sample: Sig, all: Sig, wide: Sig) -> Sig {
    let px = pixel.bits(3, 0);
    let run = wide.mux(px.bits(1, 0).eq(3u64), px.bits(2, 0).eq(7u64));
    all.mux(run & sample.eq(3u64), px.eq(15u64))
}

fn sequence(
    m: &mut Module,
    cfg: &TileCfg,
    begin: Sig,
    (enabled, all): (Sig, Sig),
    credit: Sig,
) -> Sequence {
    let pb = cfg.plane_bits();
    let last_plane = cfg.planes() as u64 - 1;
    let issuing = m.reg("issuing", 1).reset(0);
    let plane = m.reg("plane", pb).reset(0);
    let pixel = m.reg("pixel", 8).reset(0);
    let sample = m.reg("sample", 2).reset(0);
    let bursts = m.reg("bursts_requested", BURST_BITS).reset(0);
    let on = issuing.q() & index_select(plane.q(), &bits_of(enabled));
    let every = every_sample(m, cfg, plane.q(), all);
    let req = WoReq {
        plane: plane.q(),
        px: pixel.q().bits(3, 0),
        py: pixel.q().bits(7, 4),
    };
    let (wo_req, ready) = Stream::offer(m, "wo_req", on & credit, req);
    let send = on & credit & ready;
    let tag = PixelTag {
        plane: plane.q(),
        pixel: pixel.q(),
        sample: sample.q(),
    };
    let (tags, _never_full) = Stream::offer(m, "tags", send, tag);
    let skip = issuing.q() & !on;
    let pixel_done = send & (!every | sample.q().eq(3u64));
    let next_plane = skip | (pixel_done & pixel.q().eq(255u64));
    let done = next_plane & plane.q().eq(last_plane);
    issuing.next(begin | (issuing.q() & !done));
    plane.next(begin.mux(0u64, next_plane.mux(plane.q() + 1u64, plane.q())));
    pixel.next(begin.mux(0u64, pixel_done.mux(pixel.q() + 1u64, pixel.q())));
    let sample_next = (send & every).mux(sample.q() + 1u64, sample.q());
    sample.next(begin.mux(0u64, sample_next));
    let wide = wide_plane(cfg, plane.q());
    let ends = send & burst_end(pixel.q(), sample.q(), every, wide);
    bursts.next(begin.mux(0u64, ends.mux(bursts.q() + 1u64, bursts.q())));
    Sequence {
        wo_req,
        tags,
        bursts: bursts.q(),
        issuing: issuing.q(),
        sent: send,
    }
}

fn bits_of(x: Sig) -> Vec<Sig> {
    (0..x.width()).map(|i| x.bit(i)).collect()
}

/// Packs resolved values into 64-bit beats (two 4-byte values or one 8-byte value) and
/// offers them as write bursts (one tile row each, or 128 bytes each for a plane storing every
/// sample); counts the bytes written per plane.
fn pack(
    m: &mut Module,
    cfg: &TileCfg,
    start: &WoStart,
    config: &WoConfig,
    px: Stream<Resolved>,
) -> (Stream<MemReq>, Vec<Sig>) {
    let (valid, p, ready) = px.split();
    let wide = wide_plane(cfg, p.tag.plane);
    let every = every_sample(m, cfg, p.tag.plane, config.all);
    // The value's index in its row is even: the low half of a beat.
    let even = !every.mux(p.tag.sample.bit(0), p.tag.pixel.bit(0));
    let first_half = !wide & even;
    let hold = m.reg("hold", 32);
    hold.next_when(valid & first_half, p.value.bits(31, 0));
    let data = wide.mux(p.value, cat(&[p.value.bits(31, 0), hold.q()]));
    let py = p.tag.pixel.bits(7, 4);
    let row = cat(&[start.tile_y, py]);
    let base = index_select(p.tag.plane, &config.base);
    let pitch = index_select(p.tag.plane, &config.pitch);
    let row_offset = row.mul_full(pitch).resize(MEM_ADDR_BITS);
    // Tile x · 16 pixels · (4 or 8) bytes (· 4 samples with every sample stored, plus the
    // burst's 128-byte run in the tile row).
    let x4 = cat(&[start.tile_x, m.lit(0, 6)]).zext(MEM_ADDR_BITS);
    let x_offset = wide.mux(x4 << 1, x4);
    let px = p.tag.pixel.bits(3, 0);
    let run = wide.mux(px.bits(3, 2), px.bit(3).zext(2));
    let all_offset = (x_offset << 2) + (run.zext(MEM_ADDR_BITS) << 7);
    let addr = base + row_offset + every.mux(all_offset, x_offset);
    let beats = (wide | every).mux(m.lit(15, 4), m.lit(7, 4));
    let req = MemReq {
        write: m.lit(1, 1),
        addr,
        beats,
        data,
        strobe: m.lit((1u64 << MEM_BEAT_BYTES) - 1, MEM_BEAT_BYTES),
        last: burst_end(p.tag.pixel, p.tag.sample, every, wide),
    };
    let (out, out_ready) = Stream::offer(m, "mem_req", valid & !first_half, req);
    ready.drive(first_half | out_ready);
    let wrote = valid & !first_half & out_ready;
    let bytes: Vec<Sig> = (0..cfg.planes())
        .map(|k| {
            let r = m.reg(&format!("bytes_{k}"), BYTES_BITS).reset(0);
            let hit = wrote & p.tag.plane.eq(k as u64);
            r.next_when(hit, r.q() + u64::from(MEM_BEAT_BYTES));
            r.q()
        })
        .collect();
    (out, bytes)
}

/// The write-out unit.
///
/// * **Ports:** `start` ([`WoStart`]: tile position, dynamic flags), `config`
///   ([`WoConfig`]: static modes, per-plane base address and pitch), `wo_req` → `wo_resp`
///   (the tile buffer's write-out port), `mem_req` → `mem_resp` (write bursts), `bytes` (per
///   plane, bytes written since reset).
/// * **What it writes:** plane `p` of a tile is written when `config.enable[p] &
///   flags.enable[p]` (static and dynamic suppression). With `config.all[p]` (4 samples)
///   every sample is written: pixel `(x, y)` sample `s` at `base[p] + y·pitch[p] + (4x +
///   s)·bpp`, the frame model's multisampled surface (`Surface::offset` with a pitch of
///   `4·width·bpp`), in bursts of 16 beats (128 bytes: 8 pixels of 4 bytes, or 4 of 8 bytes).
///   Otherwise one value per pixel: sample `flags.sample[p]` when `flags.select[p]` (the
///   tile shader's choice), else sample `config.sample[p]` when `config.select[p]`, else the
///   samples' mean as [`super::resolve`] defines per format; pixel `(x, y)` goes to
///   `base[p] + y·pitch[p] + x·bpp`, one burst per tile row: 16 beats (RGBA16F) or 8. `bpp` is 8 for
///   RGBA16F, else 4; RGBA8 bytes R, G, B, A; binary16 and binary32 little-endian; depth a
///   32-bit word with D24 in bits 23:0. These are the static modes of the frame model's
///   `WriteMode` (off, average, sample, all); a tile shader's "average" cannot override a
///   static sample choice (the flags carry no "set" bit: the driver refuses that pairing).
/// * **Protocol:** stream rules; `start` is taken in the cycle its tile's last write is
///   acknowledged on `mem_resp` (so a taken `start` means the tile is in memory); a tile with
///   every plane suppressed is taken after `planes` + 1 cycles without a memory access.
///   The bursts of `mem_req` follow the memory port's rules (module [`super::mem_port`]).
///   At most [`IN_FLIGHT`] reads wait on `wo_resp` (credits), so the tile buffer is never
///   stalled by the write-out.
/// * **Timing:** one pixel per clock when nothing stalls: an enabled plane of a 4-byte format
///   takes 256 clocks plus the resolve latency, 128 beats; RGBA16F 256 beats. A plane storing
///   every sample reads each pixel four times (one sample per clock): 1,024 clocks, 512 beats
///   (1,024 for RGBA16F). The resolve
///   adds 10 stages when an R32F target exists with 4 samples, else 2 when an RGBA16F or
///   RG16F target does, else 0 ([`super::resolve::resolve_stages`]);
///   each pipeline ends in a skid buffer.
/// * **Parameters:** [`TileCfg`] (samples 1 or 4, 1 ..= 8 targets).
/// * **Cost:** measured in [`super::top::tile_writeout_top`]'s docs (48,772 cells by default,
///   2,518 with one sample and no RGBA16F/R32F means); with the static modes at 4× (a 2-bit
///   sample counter, the sample in the tags, 10-bit burst counters) 48,989 cells, 4,339
///   flip-flops, 62 gate levels by default (`tile::writeout::measure_writeout_area`).
pub fn tile_writeout(m: &mut Module, cfg: &TileCfg, i: WriteoutIn) -> WriteoutOut {
    let WriteoutIn {
        start,
        config,
        wo_resp,
        mem_resp,
    } = i;
    let (start_valid, start_data, start_ready) = start.split();
    let active = m.reg("active", 1).reset(0);
    let begin = start_valid & !active.q();
    let enabled = config.enable & start_data.flags.enable;
    let take = m.wire("credit_take", 1);
    let give = m.wire("credit_give", 1);
    let credits = credit_counter(m, IN_FLIGHT, take.sig(), give.sig());
    let seq = sequence(m, cfg, begin, (enabled, config.all), credits.available);
    take.drive(seq.sent);
    let tags = fifo(m, &FifoCfg { depth: IN_FLIGHT }, seq.tags);
    let (tag_valid, tag, tag_ready) = tags.pop.split();
    let (resp_valid, resp, resp_ready) = wo_resp.split();
    let both = tag_valid & resp_valid;
    // Every sample stored: read once per sample, each written as "sample s"; else the tile
    // shader's sample choice, else the static one, else the mean.
    let every = every_sample(m, cfg, tag.plane, config.all);
    let dynamic = index_select(tag.plane, &bits_of(start_data.flags.select));
    let fixed = index_select(tag.plane, &bits_of(config.select));
    let select = every | dynamic | fixed;
    let sample = every.mux(
        tag.sample,
        dynamic.mux(
            index_select(tag.plane, &start_data.flags.sample),
            index_select(tag.plane, &config.sample),
        ),
    );
    let unresolved = Unresolved {
        tag,
        samples: resp.samples,
        select,
        sample,
    };
    let (joined, joined_ready) = Stream::offer(m, "unresolved", both, unresolved);
    tag_ready.drive(both & joined_ready);
    resp_ready.drive(both & joined_ready);
    give.drive(both & joined_ready);
    let resolved = pipeline(m, "resolve", joined, |m, st, u: Unresolved| {
        let value = resolve(m, cfg, st, &u.samples, (u.tag.plane, u.select, u.sample));
        let tag = PixelTag {
            plane: st.delay(m, "tag_plane", u.tag.plane, st_count(cfg)),
            pixel: st.delay(m, "tag_pixel", u.tag.pixel, st_count(cfg)),
            sample: st.delay(m, "tag_sample", u.tag.sample, st_count(cfg)),
        };
        Resolved { tag, value }
    });
    let (mem_req, bytes) = pack(m, cfg, &start_data, &config, resolved);
    let (ack_valid, ack, ack_ready) = mem_resp.split();
    ack_ready.drive(m.lit(1, 1));
    let acked = m.reg("bursts_acked", BURST_BITS).reset(0);
    let ack = ack_valid & ack.write;
    acked.next(begin.mux(0u64, ack.mux(acked.q() + 1u64, acked.q())));
    let finish = active.q() & !seq.issuing & seq.bursts.eq(acked.q());
    start_ready.drive(finish);
    active.next(begin | (active.q() & !finish));
    WriteoutOut {
        wo_req: seq.wo_req,
        mem_req,
        bytes,
    }
}

fn st_count(cfg: &TileCfg) -> u32 {
    super::resolve::resolve_stages(cfg)
}
