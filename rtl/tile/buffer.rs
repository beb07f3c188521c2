//! The tile buffer: `N` colour render targets and a D24 depth plane of one 16×16 tile at 1× or
//! 4× MSAA, with separate ports for TILE_BEGIN clears, the early depth test, the pixel
//! pipeline's blended writes, the tile shader's random access and write-out reads.
use super::blend::{blend_rgba8, BlendIn};
use super::{
    BlendBits, PixelReq, TileBegin, TileCfg, TsReq, TsResp, WoReq, WoResp, ZReq, ZResp, ADDR_BITS,
    DEPTH_BITS, TAG_BITS,
};
use crate::stream::arbiter::{arbiter, ArbPolicy};
use crate::stream::pipe::map;
use crate::stream::stages::pipeline;
use rendergen_hdl::{
    cat, cat_lsb_first, index_select, or_all, select, Bundle, HwEnum, Io, Module, Sig, Stream,
};

/// Which port an access came from (also the arbitration priority, first wins).
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Port {
    /// One quad-word of the TILE_BEGIN clear.
    Clear,
    /// Early depth test.
    Depth,
    /// Pixel pipeline write.
    Pixel,
    /// Tile-shader access.
    Shader,
    /// Write-out read.
    WriteOut,
}

/// One access to a quad word of the planes, whatever port it came from.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct Access<T = Sig> {
    /// Source port ([`Port`]).
    pub port: T,
    /// Plane (colour RTs, then depth).
    pub plane: T,
    /// Quad address.
    pub addr: T,
    /// Pixel in the quad (shader, write-out).
    pub pixel: T,
    /// Sample in the pixel (shader).
    pub sample: T,
    /// Lanes to test or write.
    pub mask: T,
    /// Per-lane data: depths, colours, or the shader's value.
    pub data: Vec<T>,
    /// Depth compare op.
    pub zop: T,
    /// Depth write.
    pub zwrite: T,
    /// A colour write of a late-depth quad (gated by the last late test's passing lanes).
    pub late: T,
    /// Blend state.
    pub blend: BlendBits<T>,
    /// Shader access error.
    pub error: T,
    /// Shader tag.
    pub tag: T,
}

impl Access<u32> {
    fn shape(cfg: &TileCfg) -> Access<u32> {
        Access {
            port: Port::width(),
            plane: cfg.plane_bits(),
            addr: ADDR_BITS,
            pixel: 2,
            sample: 2,
            mask: cfg.lanes() as u32,
            data: vec![cfg.data_bits(); cfg.lanes()],
            zop: 3,
            zwrite: 1,
            late: 1,
            blend: BlendBits::SHAPE,
            error: 1,
            tag: TAG_BITS,
        }
    }
}

/// What the access pipeline answers.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct Answer<T = Sig> {
    /// Source port.
    pub port: T,
    /// Shader tag.
    pub tag: T,
    /// Shader error.
    pub error: T,
    /// Shader sample.
    pub sample: T,
    /// Lanes that passed the depth test.
    pub pass: T,
    /// The stored samples of the addressed pixel (before this access's write).
    pub data: Vec<T>,
}

/// The tile buffer's ports (consumer side).
#[derive(Io)]
pub struct BufferIn {
    /// TILE_BEGIN: origin and clears; taken when the last quad word is cleared.
    pub tile_begin: Stream<TileBegin>,
    /// Early depth tests.
    pub z_req: Stream<ZReq>,
    /// Pixel pipeline writes (no answer).
    pub pixel: Stream<PixelReq>,
    /// Tile-shader accesses.
    pub ts: Stream<TsReq>,
    /// Write-out reads.
    pub wo: Stream<WoReq>,
}

/// The tile buffer's answers.
#[derive(Io)]
pub struct BufferOut {
    /// Depth-test results, in request order.
    pub z_resp: Stream<ZResp>,
    /// Tile-shader answers, in request order.
    pub ts_resp: Stream<TsResp>,
    /// Write-out answers, in request order.
    pub wo_resp: Stream<WoResp>,
    /// A late depth test was done this clock (for `early_z`'s count of late quads in flight).
    pub late_done: Sig,
}

/// Registers set by TILE_BEGIN.
struct TileState {
    origin: [Sig; 2],
    clear_mask: Sig,
    clear: Vec<Sig>,
}

/// Turns a TILE_BEGIN into 64 clear accesses (quad words 0..=63); the TILE_BEGIN is taken
/// with the last one. Origin, mask and values are registered at the first.
fn clear_sequencer(
    m: &mut Module,
    cfg: &TileCfg,
    tb: Stream<TileBegin>,
) -> (Stream<Access>, TileState) {
    let (valid, req, ready) = tb.split();
    let word = m.reg("clear_word", ADDR_BITS).reset(0);
    let shape = Access::shape(cfg);
    let mut beat: Access = Access::from_fields(&shape, &mut |_, w| m.lit(0, w));
    beat.port = m.enum_const(Port::Clear);
    beat.addr = word.q();
    let (out, taken) = Stream::offer(m, "clear_beat", valid, beat);
    word.next_when(taken, word.q() + 1);
    ready.drive(taken & word.q().eq(63));
    let first = taken & word.q().eq(0);
    let keep = |m: &mut Module, name: &str, v: Sig| {
        let r = m.reg(name, v.width()).reset(0);
        r.next_when(first, v);
        r.q()
    };
    let state = TileState {
        origin: [
            keep(m, "origin_x", req.tile_x),
            keep(m, "origin_y", req.tile_y),
        ],
        clear_mask: keep(m, "clear_mask", req.clear_mask),
        clear: (req.clear.iter().enumerate())
            .map(|(p, v)| keep(m, &format!("clear_value_{p}"), *v))
            .collect(),
    };
    (out, state)
}

/// An access with every field 0 but the port.
fn blank(m: &mut Module, cfg: &TileCfg, port: Port) -> Access {
    let mut a: Access = Access::from_fields(&Access::shape(cfg), &mut |_, w| m.lit(0, w));
    a.port = m.enum_const(port);
    a
}

fn depth_access(m: &mut Module, cfg: &TileCfg, s: Stream<ZReq>) -> Stream<Access> {
    let cfg2 = cfg.clone();
    map(m, "depth_access", s, move |m, r| {
        let mut a = blank(m, &cfg2, Port::Depth);
        a.plane = m.lit(cfg2.formats.len() as u64, cfg2.plane_bits());
        a.addr = r.addr;
        a.mask = r.mask;
        a.data = r.depth.iter().map(|d| d.zext(cfg2.data_bits())).collect();
        a.zop = r.op;
        a.zwrite = r.write;
        a
    })
}

fn pixel_access(m: &mut Module, cfg: &TileCfg, s: Stream<PixelReq>) -> Stream<Access> {
    let cfg2 = cfg.clone();
    map(m, "pixel_access", s, move |m, r| {
        let mut a = blank(m, &cfg2, Port::Pixel);
        a.plane = r.rt;
        a.addr = r.addr;
        a.mask = r.mask;
        let spp = cfg2.samples as usize;
        a.data = (0..cfg2.lanes()).map(|l| r.colour[l / spp]).collect();
        a.blend = r.blend.clone();
        a.zop = r.zop;
        a.zwrite = r.zwrite;
        a.late = r.late;
        a
    })
}

/// Tile-local address of a tile-shader access; out of the tile, or a sample or plane that does
/// not exist, is an error and writes nothing.
fn shader_access(
    m: &mut Module,
    cfg: &TileCfg,
    s: Stream<TsReq>,
    origin: [Sig; 2],
) -> Stream<Access> {
    let cfg2 = cfg.clone();
    map(m, "shader_access", s, move |m, r| {
        let mut a = blank(m, &cfg2, Port::Shader);
        let local = |v: Sig, o: Sig| v - (o.zext(v.width()) << 4);
        let (lx, ly) = (local(r.x, origin[0]), local(r.y, origin[1]));
        let inside = lx.lt(16) & ly.lt(16);
        let sample_ok = r.sample.zext(8).lt(cfg2.samples as u64);
        let ok = inside & sample_ok & r.plane.zext(8).lt(cfg2.planes() as u64);
        a.error = !ok;
        a.plane = r.plane;
        a.addr = cat(&[ly.bits(3, 1), lx.bits(3, 1)]);
        a.pixel = cat(&[ly.bit(0), lx.bit(0)]);
        a.sample = r.sample;
        let lane = a.pixel.zext(6) * (cfg2.samples as u64) + r.sample.zext(6);
        let bits: Vec<Sig> = (0..cfg2.lanes()).map(|l| lane.eq(l as u64)).collect();
        let onehot = cat_lsb_first(&bits);
        a.mask = (r.write & ok).mux(onehot, m.lit(0, cfg2.lanes() as u32));
        a.data = vec![r.data; cfg2.lanes()];
        a.tag = r.tag;
        a
    })
}

fn writeout_access(m: &mut Module, cfg: &TileCfg, s: Stream<WoReq>) -> Stream<Access> {
    let cfg2 = cfg.clone();
    map(m, "writeout_access", s, move |m, r| {
        let mut a = blank(m, &cfg2, Port::WriteOut);
        a.plane = r.plane;
        a.addr = cat(&[r.py.bits(3, 1), r.px.bits(3, 1)]);
        a.pixel = cat(&[r.py.bit(0), r.px.bit(0)]);
        a
    })
}

/// `VkCompareOp` `op` of `new` against `old`.
fn compare(m: &mut Module, op: Sig, new: Sig, old: Sig) -> Sig {
    let (lt, eq) = (new.lt(old), new.eq(old));
    let (never, always) = (m.lit(0, 1), m.lit(1, 1));
    select(
        op,
        &[never, lt, eq, lt | eq, !lt & !eq, !eq, !lt, always],
        always,
    )
}

/// The tile buffer.
///
/// * **Ports:** `tile_begin` (TILE_BEGIN: origin in tiles, clear mask and value per plane),
///   `z_req` → `z_resp` (early depth test of a quad: passing lanes, depths written if asked),
///   `pixel` (write of a quad's colours to one render target under a lane mask, blended on
///   RGBA8 targets as Vulkan's equations and factors with the write's own blend state; or,
///   to the depth plane, a **late depth test**: the pixel's D24 depth for each of its lanes,
///   compared by the write's `zop`, passing lanes written when `zwrite`, and remembered in a
///   `lanes`-bit register that masks the following colour writes marked `late`: depth test
///   and depth write before blending, only the surviving samples blended, as the frame
///   model's `run_pass`), `ts` → `ts_resp` (tile shader: read or
///   write one sample at a screen position; outside the tile → `error`, nothing written),
///   `wo` → `wo_resp` (write-out: every sample of one tile-local pixel).
/// * **Protocol:** stream rules on every port; answers in request order per port; nothing
///   dropped. Accesses from different ports are served by fixed priority (clear, depth,
///   pixel, shader, write-out), each seeing every access served before it. A TILE_BEGIN is
///   taken after its 64th quad word is cleared; accesses after it see the cleared tile.
/// * **Timing:** one access per clock; an access that hits the quad word written by the access
///   just before it waits one clock (read-after-write on the synchronous-read RAM). Latency
///   from request to answer: 2 cycles (read, then a skid buffer); `ready` of every port
///   depends combinationally on the answer streams' `ready` and on the request's quad address.
/// * **Organisation:** per plane, `4·samples` RAMs (one per lane) of 64 quad words, one read
///   and one write port each; a TILE_BEGIN clears one quad word of every masked plane per
///   clock (64 clocks).
/// * **Parameters:** [`TileCfg`]: `samples` 1 or 4, 1 ..= 8 render targets of any
///   [`super::RtFormat`]; the data ports are as wide as the widest plane (64 bits with RGBA16F).
/// * **Cost** (Yosys generic `synth`, measured; the generic flow turns the RAMs into
///   flip-flops): default (4 samples; RGBA8, RGBA16F, R32F, RG16F + D24), `rendergen synth
///   tile_buffer --per-module`: 509,410 cells, 192,766 flip-flops of which 188,416 are the tile
///   storage (64 quad words × 16 lanes × 184 bits), 71 gate levels; `blend_rgba8` 6,888 cells
///   × 16 lanes. Small (`-p samples=1 -p rts=2 -p formats=0x20`: RGBA8, R32F): 76,740 cells,
///   23,281 flip-flops (22,528 storage), 69 gate levels.
/// * **Errors:** `samples` other than 1 or 4, or a render-target count outside 1 ..= 8, are
///   elaboration errors naming the parameter (at the tops).
pub fn tile_buffer(m: &mut Module, cfg: &TileCfg, i: BufferIn) -> BufferOut {
    let (clears, tile) = clear_sequencer(m, cfg, i.tile_begin);
    let lanes = vec![
        clears,
        depth_access(m, cfg, i.z_req),
        pixel_access(m, cfg, i.pixel),
        shader_access(m, cfg, i.ts, tile.origin),
        writeout_access(m, cfg, i.wo),
    ];
    let granted = arbiter(m, ArbPolicy::Priority, lanes).out;
    // Read-after-write hazard on the same quad word: hold the access one clock.
    let s1_valid = m.wire("s1_writes", 1);
    let s1_addr = m.wire("s1_addr", ADDR_BITS);
    let (valid, access, ready) = granted.split();
    let hazard = s1_valid.sig() & s1_addr.sig().eq(access.addr);
    let hazard = hazard.named("hazard");
    let (held, held_ready) = Stream::offer(m, "access", valid & !hazard, access);
    ready.drive(held_ready & !hazard);
    let late_done = m.wire("late_done", 1);
    let answers = pipeline(m, "access", held, |m, st, a| {
        access_stage(m, cfg, st, a, &tile, (s1_valid, s1_addr), late_done)
    });
    let mut out = answer_ports(m, cfg, answers);
    out.late_done = late_done.sig();
    out
}

/// The RAMs, the depth test, the blend and the writes of one access (one register stage).
fn access_stage(
    m: &mut Module,
    cfg: &TileCfg,
    st: &mut crate::stream::stages::Stages,
    a: Access,
    tile: &TileState,
    (s1_writes, s1_addr): (rendergen_hdl::Wire, rendergen_hdl::Wire),
    late_done: rendergen_hdl::Wire,
) -> Answer {
    let dw = cfg.data_bits();
    let rams: Vec<Vec<rendergen_hdl::Mem>> = (0..cfg.planes())
        .map(|p| {
            let name = match cfg.formats.get(p) {
                Some(_) => format!("rt{p}"),
                None => "depth".to_string(),
            };
            (0..cfg.lanes())
                .map(|l| m.memory(&format!("{name}_lane{l}"), cfg.plane_width(p), 64))
                .collect()
        })
        .collect();
    let read: Vec<Vec<Sig>> = (rams.iter())
        .map(|lanes| {
            (lanes.iter())
                .map(|r| r.read_sync(a.addr, Some(st.en())).zext(dw))
                .collect()
        })
        .collect();
    let s1 = st.stage(m, "s1", &a);
    let is = |p: Port| s1.port.is(p);
    let fire = (st.en() & st.valid()).named("write_fire");
    s1_writes.drive(st.valid() & !is(Port::WriteOut));
    s1_addr.drive(s1.addr);
    let plane_is: Vec<Sig> = (0..cfg.planes()).map(|p| s1.plane.eq(p as u64)).collect();
    let old: Vec<Sig> = (0..cfg.lanes())
        .map(|l| {
            let per_plane: Vec<Sig> = read.iter().map(|r| r[l]).collect();
            index_select(s1.plane, &per_plane)
        })
        .collect();
    let mut pass_bits = Vec::new();
    let mut write_bits = Vec::new();
    // Late depth: a pixel write to the depth plane is a depth test; its passing lanes gate
    // the colour writes of the same quad that follow on the pixel port (`late` set).
    let late_test = is(Port::Pixel) & plane_is[cfg.formats.len()];
    let late_pass = m.reg("late_pass", cfg.lanes() as u32).reset(0);
    let rgba8_targets: Vec<Sig> = (cfg.formats.iter().enumerate())
        .filter(|(_, f)| **f == super::RtFormat::Rgba8)
        .map(|(p, _)| plane_is[p])
        .collect();
    let blend_here = (!rgba8_targets.is_empty()).then(|| is(Port::Pixel) & or_all(rgba8_targets));
    let mut wdata = Vec::new();
    for (l, &stored) in old.iter().enumerate() {
        let (new_z, old_z) = (
            s1.data[l].bits(DEPTH_BITS - 1, 0),
            stored.bits(DEPTH_BITS - 1, 0),
        );
        let pass = s1.mask.bit(l as u32) & compare(m, s1.zop, new_z, old_z);
        pass_bits.push(pass);
        let depth_write = (is(Port::Depth) | late_test) & pass & s1.zwrite;
        let gate = !s1.late | late_pass.q().bit(l as u32);
        let colour_write = is(Port::Pixel) & !late_test & gate;
        let other_write = (colour_write | is(Port::Shader)) & s1.mask.bit(l as u32);
        write_bits.push(depth_write | other_write);
        wdata.push(match blend_here {
            Some(blend) => {
                let src = s1.data[l].bits(31, 0);
                let dst = stored.bits(31, 0);
                let input = BlendIn {
                    src,
                    dst,
                    state: s1.blend.clone(),
                };
                let b = m.child(&format!("blend[{l}]"), &(), input, blend_rgba8);
                let widened = match dw {
                    32 => b.colour,
                    _ => cat(&[s1.data[l].bits(dw - 1, 32), b.colour]),
                };
                blend.mux(widened, s1.data[l])
            }
            None => s1.data[l],
        });
    }
    late_pass.next_when(fire & late_test, cat_lsb_first(&pass_bits));
    late_done.drive(fire & late_test);
    let clearing = is(Port::Clear);
    for (p, lanes) in rams.iter().enumerate() {
        let w = cfg.plane_width(p);
        let clear_p = clearing & tile.clear_mask.bit(p as u32);
        for (l, ram) in lanes.iter().enumerate() {
            let en = fire & (clear_p | (!clearing & plane_is[p] & write_bits[l]));
            let value = clearing.mux(tile.clear[p], wdata[l]).bits(w - 1, 0);
            ram.write(en, s1.addr, value);
        }
    }
    let spp = cfg.samples as usize;
    let data = (0..spp)
        .map(|s| {
            let of_pixel: Vec<Sig> = (0..4).map(|px| old[px * spp + s]).collect();
            index_select(s1.pixel, &of_pixel)
        })
        .collect();
    Answer {
        port: s1.port,
        tag: s1.tag,
        error: s1.error,
        sample: s1.sample,
        pass: cat_lsb_first(&pass_bits),
        data,
    }
}

/// Steers each answer to its port's stream; answers of clears and pixel writes are dropped.
fn answer_ports(m: &mut Module, cfg: &TileCfg, answers: Stream<Answer>) -> BufferOut {
    let (valid, a, ready) = answers.split();
    let is = |p: Port| a.port.is(p);
    let (z_resp, z_ready) =
        Stream::offer(m, "z_resp", valid & is(Port::Depth), ZResp { pass: a.pass });
    let sample_data = match cfg.samples {
        1 => a.data[0],
        _ => index_select(a.sample.bits(1, 0), &a.data),
    };
    let ts = TsResp {
        data: a.error.mux(m.lit(0, cfg.data_bits()), sample_data),
        error: a.error,
        tag: a.tag,
    };
    let (ts_resp, ts_ready) = Stream::offer(m, "ts_resp", valid & is(Port::Shader), ts);
    let wo = WoResp {
        samples: a.data.clone(),
    };
    let (wo_resp, wo_ready) = Stream::offer(m, "wo_resp", valid & is(Port::WriteOut), wo);
    let dropped = is(Port::Clear) | is(Port::Pixel);
    ready.drive(
        (is(Port::Depth) & z_ready)
            | (is(Port::Shader) & ts_ready)
            | (is(Port::WriteOut) & wo_ready)
            | dropped,
    );
    BufferOut {
        z_resp,
        ts_resp,
        wo_resp,
        late_done: m.lit(0, 1),
    }
}
