//! The catalogue tops of the tile engine's per-tile part.
use super::buffer::{tile_buffer, BufferIn, BufferOut};
use super::early_z::{early_z, EarlyZIn, TOP_STATES};
use super::raster::raster_front;
use super::{PixelReq, QuadFrag, TileBegin, TileCfg, TriSetup, TsReq, WoReq, ZReq, ZResp};
use rendergen_hdl::{Design, ElabErrors, Io, Module, Sig, Stream};

/// What the rasteriser takes.
#[derive(Io)]
pub struct RasterIn {
    /// Set-up triangles.
    pub tri: Stream<TriSetup>,
    /// Depth-test answers from the tile buffer.
    pub z_resp: Stream<ZResp>,
    /// Late depth per draw state (bit `s`; [`EarlyZIn::late`]).
    pub late: Sig,
    /// The tile buffer did a late depth test ([`EarlyZIn::late_done`]).
    pub late_done: Sig,
    /// The current tile's last column on screen, 4 bits (15: the whole tile;
    /// [`raster_front`]'s scissor).
    pub visible_col: Sig,
    /// The current tile's last row on screen, 4 bits.
    pub visible_row: Sig,
}

/// What the rasteriser gives.
#[derive(Io)]
pub struct RasterOut {
    /// Quads that passed the early depth test.
    pub quad: Stream<QuadFrag>,
    /// Depth tests for the tile buffer.
    pub z_req: Stream<ZReq>,
}

/// The rasteriser with its early depth test: set-up triangles in, quad fragments out.
///
/// * **Protocol:** stream rules on every stream; quads in triangle order, row-major inside a
///   triangle; nothing lost, a quad dropped only when no lane is covered (lanes of pixels
///   beyond the tile's `visible_col`/`visible_row`, the screen's edge, are not) or none passed
///   the depth test; `z_resp` answers `z_req` in order.
/// * **Timing:** one covered quad per clock: the walker visits only quads a per-row edge test
///   flags (a flagged quad may be empty; a row with none costs one idle clock). Measured with
///   `tile_buffer`, no back-pressure (`cargo test -p rendergen-testbenches --test testbenches
///   tile::raster -- --nocapture`): latency from a triangle's transfer on `tri` to its first
///   quad 7 cycles (walk 1, evaluation 3 + skid 1, depth test 2); full-tile triangles 256
///   quads in 256 cycles (1.000 quads/clock, 1× and 4×); 60 random triangles 1,179 quads in
///   1,294 cycles (0.911 quads/clock; 2,161 quads in their bounding boxes).
/// * **Parameters:** [`TileCfg::samples`] 1 or 4.
/// * **Cost** (Yosys generic `synth`, measured with `rendergen synth tile_raster -p samples=S
///   -p rts=… -p formats=… --per-module`): 1 sample (`rts=2 formats=0x20`): `raster` 41,070
///   cells (`eval` 27,827 cells / 2,635 flip-flops, `quad_walk` 9,623 / 495, `early_z` 3,615 /
///   2,036); the whole top with its tile buffer 117,866 cells, 28,447 flip-flops, 70 gate
///   levels; with the screen scissor (session 17) `raster` 42,864 cells (`eval` 28,457 /
///   3,160, `quad_walk` 9,727 / 600, `early_z` 4,621 / 2,509; the late-depth counters came
///   in between), the top 119,772 cells, 29,555 flip-flops, 70 levels. 4 samples (`rts=1 formats=0`): `raster` 87,703 cells (`eval` 70,516 / 3,837,
///   `quad_walk` 11,432 / 495, `early_z` 5,738 / 3,236); the top 323,082 cells, 66,697
///   flip-flops, 74 gate levels.
pub fn raster(m: &mut Module, cfg: &TileCfg, i: RasterIn) -> RasterOut {
    let quads = raster_front(m, cfg, i.tri, [i.visible_col, i.visible_row]);
    let z_resp = i.z_resp;
    let (late, late_done) = (i.late, i.late_done);
    let out = m.child(
        "early_z",
        cfg,
        EarlyZIn {
            quads,
            z_resp,
            late,
            late_done,
        },
        early_z,
    );
    RasterOut {
        quad: out.quad,
        z_req: out.z_req,
    }
}

/// The tile buffer's input ports other than `z_req`.
struct OtherPorts {
    tile_begin: Stream<TileBegin>,
    pixel: Stream<PixelReq>,
    ts: Stream<TsReq>,
    wo: Stream<WoReq>,
}

fn other_ports(m: &mut Module, cfg: &TileCfg) -> OtherPorts {
    OtherPorts {
        tile_begin: m.input_stream("tile_begin", &TileBegin::shape(cfg)),
        pixel: m.input_stream("pixel", &PixelReq::shape(cfg)),
        ts: m.input_stream("ts_req", &TsReq::shape(cfg)),
        wo: m.input_stream("wo_req", &WoReq::shape(cfg)),
    }
}

fn buffer(m: &mut Module, cfg: &TileCfg, o: OtherPorts, z_req: Stream<ZReq>) -> BufferOut {
    let i = BufferIn {
        tile_begin: o.tile_begin,
        z_req,
        pixel: o.pixel,
        ts: o.ts,
        wo: o.wo,
    };
    m.child("tile_buffer", cfg, i, tile_buffer)
}

/// The tile buffer alone, every port at the top (`tile_begin`, `z_req`/`z_resp`, `pixel`,
/// `ts_req`/`ts_resp`, `wo_req`/`wo_resp`; catalogue `tile_buffer`).
///
/// ```
/// use rendergen_rtl::tile::{top::tile_buffer_top, TileCfg};
/// let design = tile_buffer_top(&TileCfg::default()).unwrap();
/// // One 64-bit data port per sample: RGBA16F is the widest default format.
/// let wo = design.top().outputs.iter().find(|p| p.name == "wo_resp_samples_3").unwrap();
/// assert_eq!(wo.width, 64);
/// ```
pub fn tile_buffer_top(cfg: &TileCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("tile_buffer_top", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let o = other_ports(m, cfg);
        let z_req = m.input_stream("z_req", &ZReq::shape(cfg));
        let out = buffer(m, cfg, o, z_req);
        m.output_stream("z_resp", out.z_resp);
        m.output_stream("ts_resp", out.ts_resp);
        m.output_stream("wo_resp", out.wo_resp);
        m.output("late_done", out.late_done);
    })
}

/// The rasteriser and the tile buffer: `tri` in, `quad` out, the tile buffer's other ports
/// (`tile_begin`, `pixel`, `ts_req`/`ts_resp`, `wo_req`/`wo_resp`) at the top (catalogue
/// `tile_raster`). Elaboration rejects `samples` other than 1 or 4 and 0 or more than 8 render
/// targets, naming the parameter.
///
/// ```
/// use rendergen_rtl::tile::{top::tile_raster_top, RtFormat, TileCfg};
/// let cfg = TileCfg { samples: 1, formats: vec![RtFormat::Rgba8] };
/// let design = tile_raster_top(&cfg).unwrap();
/// assert!(design.top().inputs.iter().any(|p| p.name == "tri_edge_0_a"));
/// assert!(design.top().outputs.iter().any(|p| p.name == "quad_coverage"));
/// let bad = TileCfg { samples: 2, ..cfg };
/// assert!(tile_raster_top(&bad).unwrap_err().to_string().contains("`samples`"));
/// ```
pub fn tile_raster_top(cfg: &TileCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("tile_raster_top", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let tri = m.input_stream("tri", &TriSetup::shape());
        let o = other_ports(m, cfg);
        let pass = ZResp {
            pass: cfg.lanes() as u32,
        };
        let (z_resp, plug) = m.io_loop::<Stream<ZResp>>("z_resp", &pass);
        let late = m.input("late_depth", TOP_STATES);
        let late_done = m.wire("late_done", 1);
        let ri = RasterIn {
            tri,
            z_resp,
            late,
            late_done: late_done.sig(),
            visible_col: m.input("visible_col", 4),
            visible_row: m.input("visible_row", 4),
        };
        let r = m.child("raster", cfg, ri, raster);
        m.output_stream("quad", r.quad);
        let out = buffer(m, cfg, o, r.z_req);
        plug.connect(out.z_resp);
        late_done.drive(out.late_done);
        m.output_stream("ts_resp", out.ts_resp);
        m.output_stream("wo_resp", out.wo_resp);
    })
}

/// The write-out unit alone ([`tile_writeout`](super::writeout::tile_writeout) as the child
/// `tile_writeout`; catalogue `tile_writeout`): input stream `start`, configuration inputs
/// `config_enable`, `config_base_<p>`, `config_pitch_<p>`, `config_width`, `config_height`
/// (the others of `WoConfig`), the tile buffer's write-out port as
/// `wo_req` (out) and `wo_resp` (in), the memory port `mem_req`/`mem_resp`, counters
/// `bytes_<p>`.
///
/// * **Cost** (Yosys generic `synth`, measured): default configuration (`rendergen synth
///   tile_writeout --per-module`) 48,772 cells, 4,301 flip-flops, 62 gate levels (the three
///   binary32 adders of the R32F mean 24,081 cells; the binary16 exact means, pipelined in two
///   register stages, and the rest 24,691); with the binary16 mean as one combinational stage
///   it was 46,953 cells, 3,215 flip-flops, 124 gate levels. Small (`-p samples=1 -p rts=2
///   -p formats=0x20`) 2,518 cells, 285 flip-flops, 38 gate levels.
///
/// ```
/// use rendergen_rtl::tile::{top::tile_writeout_top, TileCfg};
/// let design = tile_writeout_top(&TileCfg::default()).unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "mem_req_data"));
/// assert!(design.top().inputs.iter().any(|p| p.name == "config_pitch_4"));
/// ```
pub fn tile_writeout_top(cfg: &TileCfg) -> Result<Design, ElabErrors> {
    use super::mem_port::MemResp;
    use super::writeout::{tile_writeout, WoConfig, WoStart, WriteoutIn};
    use super::WoResp;
    Design::build_with_params("tile_writeout_top", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let i = WriteoutIn {
            start: m.input_stream("start", &WoStart::shape(cfg)),
            config: m.input_bundle("config", &WoConfig::shape(cfg)),
            wo_resp: m.input_stream(
                "wo_resp",
                &WoResp {
                    samples: vec![cfg.data_bits(); cfg.samples as usize],
                },
            ),
            mem_resp: m.input_stream("mem_resp", &MemResp::SHAPE),
        };
        let o = m.child("tile_writeout", cfg, i, tile_writeout);
        m.output_stream("wo_req", o.wo_req);
        m.output_stream("mem_req", o.mem_req);
        for (k, b) in o.bytes.into_iter().enumerate() {
            m.output(&format!("bytes_{k}"), b);
        }
    })
}

/// The command-list processor alone ([`tile_cmd`](super::cmd::tile_cmd) as the child
/// `tile_cmd`; catalogue `tile_cmd`): every port of it at the top (`list`, `mem_req`/`mem_resp`,
/// `tile_begin`, `tri`, `ts_launch`, `ts_done`, `wo_start`, `quad_out`, `quad_retired`,
/// `fence_seen`, `outstanding`, `bad_op`, `bad_list`, `counters_*`).
///
/// * **Cost** (`rendergen synth tile_cmd --per-module`, Yosys generic, default configuration):
///   7,526 cells, 2,953 flip-flops (2,048 of them the 32-word prefetch FIFO, kept as
///   flip-flops by the generic library; the ten command words after trimming of unused bits),
///   35 gate levels; 7,295 cells and 2,927 flip-flops before the malformed-list handling
///   (128-byte commands without prefetch before: 2,018 cells, 824 flip-flops, 17 levels).
///
/// ```
/// use rendergen_rtl::tile::{top::tile_cmd_top, TileCfg};
/// let design = tile_cmd_top(&TileCfg::default()).unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "ts_launch_xthreads"));
/// ```
pub fn tile_cmd_top(cfg: &TileCfg) -> Result<Design, ElabErrors> {
    use super::cmd::{tile_cmd, CmdIn, TileList};
    use super::mem_port::MemResp;
    use super::writeout::WoFlags;
    Design::build_with_params("tile_cmd_top", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let i = CmdIn {
            list: m.input_stream("list", &TileList::SHAPE),
            mem_resp: m.input_stream("mem_resp", &MemResp::SHAPE),
            ts_done: m.input_stream("ts_done", &WoFlags::shape(cfg)),
            quad_out: m.input("quad_out", 1),
            quad_retired: m.input("quad_retired", 1),
            fence_seen: m.input("fence_seen", 1),
        };
        let o = m.child("tile_cmd", cfg, i, tile_cmd);
        m.output_stream("mem_req", o.mem_req);
        m.output_stream("tile_begin", o.tile_begin);
        m.output_stream("tri", o.tri);
        m.output_stream("ts_launch", o.ts_launch);
        m.output_stream("wo_start", o.wo_start);
        m.output("outstanding", o.outstanding);
        m.output("bad_op", o.bad_op);
        m.output("bad_list", o.bad_list);
        m.output_bundle("counters", &o.counters);
    })
}

/// The per-tile back end ([`tile_backend`](super::backend::tile_backend) as the child
/// `tile_backend`; catalogue `tile_backend`): ports `list`, `config_*`, `mem_req`/`mem_resp`,
/// `quad`, `pixel`, `quad_retired`, `ts_req`/`ts_resp`, `ts_launch`/`ts_done`, `late_depth`
/// (draw states 0..16), `outstanding`, `bad_op`, `counters_*`, `bytes_<p>`.
///
/// * **Cost** (`rendergen synth tile_backend -p samples=1 -p rts=2 -p formats=0x20
///   --per-module`, Yosys generic, tile-buffer RAMs as flip-flops): 122,402 cells, 29,474
///   flip-flops, 70 gate levels: `tile_buffer` 76,705 cells with its four `blend_rgba8`,
///   `raster` 41,066, `tile_writeout` 2,551, `tile_cmd` 1,933, `mem_arbiter` 125 (measured before the 64-bit command lists: `tile_cmd`
///   alone is now 7,295 cells, above).
///
/// ```
/// use rendergen_rtl::tile::{top::tile_backend_top, RtFormat, TileCfg};
/// let cfg = TileCfg { samples: 1, formats: vec![RtFormat::Rgba8] };
/// let design = tile_backend_top(&cfg).unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "quad_coverage"));
/// assert!(design.top().inputs.iter().any(|p| p.name == "ts_done_enable"));
/// ```
pub fn tile_backend_top(cfg: &TileCfg) -> Result<Design, ElabErrors> {
    use super::backend::{tile_backend, BackendIn};
    use super::cmd::TileList;
    use super::mem_port::MemResp;
    use super::writeout::{WoConfig, WoFlags};
    Design::build_with_params("tile_backend_top", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let i = BackendIn {
            list: m.input_stream("list", &TileList::SHAPE),
            config: m.input_bundle("config", &WoConfig::shape(cfg)),
            mem_resp: m.input_stream("mem_resp", &MemResp::SHAPE),
            pixel: m.input_stream("pixel", &PixelReq::shape(cfg)),
            quad_retired: m.input("quad_retired", 1),
            ts_req: m.input_stream("ts_req", &TsReq::shape(cfg)),
            ts_done: m.input_stream("ts_done", &WoFlags::shape(cfg)),
            late_depth: m.input("late_depth", TOP_STATES),
        };
        let o = m.child("tile_backend", cfg, i, tile_backend);
        m.output_stream("mem_req", o.mem_req);
        m.output_stream("quad", o.quad);
        m.output_stream("ts_resp", o.ts_resp);
        m.output_stream("ts_launch", o.ts_launch);
        m.output("outstanding", o.outstanding);
        m.output("bad_op", o.bad_op);
        m.output_bundle("counters", &o.counters);
        for (k, b) in o.bytes.into_iter().enumerate() {
            m.output(&format!("bytes_{k}"), b);
        }
    })
}
