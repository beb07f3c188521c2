//! The tile engine's per-tile back end (`tile_backend`): the command-list processor, the
//! rasteriser with early depth, the tile buffer and the write-out around one memory port; the
//! fragment-shading stream, the tile-shader port and the memory port are its ports.
//!
//! ```text
//!  list ─► tile_cmd ─ tri ─► raster ─► fence filter ─► quad ──► (fragment shader)
//!            │ │  ▲ quad_out, fence_seen      │ z_req/z_resp     pixel, quad_retired ◄─┘
//!            │ │  └───────────────────────────┼──────────────┐
//!            │ └ tile_begin ─► tile_buffer ◄──┘◄── pixel      │
//!            │                   ▲ ▲  └─► ts_resp        ts_req ◄─ (tile shader)
//!            ├ ts_launch ─► (tile shader) ─► ts_done
//!            └ wo_start ─► tile_writeout ◄─► wo_req/wo_resp
//!  mem_req ◄─ mem_arbiter ◄─ command reads, write-out bursts;  mem_resp ─► by `write`
//! ```
use super::buffer::{tile_buffer, BufferIn};
use super::cmd::{tile_cmd, CmdCounters, CmdIn, TileList, TsLaunch, FENCE_PRIM};
use super::mem_port::{MemReq, MemResp};
use super::top::{raster, RasterIn};
use super::writeout::{tile_writeout, WoConfig, WoFlags, WriteoutIn};
use super::{visible_extent, PixelReq, QuadFrag, TileCfg, TsReq, TsResp, WoResp, ZResp};
use rendergen_hdl::{pack, unpack, Io, Module, Sig, Stream};

/// What [`mem_arbiter`] takes.
#[derive(Io)]
pub struct MemArbIn {
    /// Command fetches (reads).
    pub reads: Stream<MemReq>,
    /// Write-out bursts.
    pub writes: Stream<MemReq>,
}

/// What [`mem_arbiter`] gives.
#[derive(Io)]
pub struct MemArbOut {
    /// The memory port's request stream.
    pub mem_req: Stream<MemReq>,
}

/// Merges the command reads and the write-out bursts onto one memory port.
///
/// * **Protocol:** stream rules; reads win when no write burst is under way; a write burst is
///   never interleaved (the grant is locked from its first beat to its `last`); a grant offered
///   and not yet taken is kept (payload stable).
/// * **Timing:** combinational (latency 0); two flip-flops.
pub fn mem_arbiter(m: &mut Module, _cfg: &(), i: MemArbIn) -> MemArbOut {
    let (rv, rd, rr) = i.reads.split();
    let (wv, wd, wr) = i.writes.split();
    let lock = m.reg("burst_lock", 1).reset(0);
    let held = m.reg("held_write", 1).reset(0);
    let waiting = m.reg("waiting", 1).reset(0);
    let fresh = wv & !rv;
    let to_write = lock.q() | waiting.q().mux(held.q(), fresh);
    let valid = to_write.mux(wv, rv);
    let data = unpack(&MemReq::SHAPE, to_write.mux(pack(&wd), pack(&rd)));
    let last = wd.last;
    let (mem_req, ready) = Stream::offer(m, "mem_req", valid, data);
    rr.drive(!to_write & ready);
    wr.drive(to_write & ready);
    let beat = to_write & wv & ready;
    lock.next((lock.q() | beat) & !(beat & last));
    waiting.next(valid & !ready);
    held.next(to_write);
    MemArbOut { mem_req }
}

/// What [`tile_backend`] takes.
#[derive(Io)]
pub struct BackendIn {
    /// Tiles to run (command-list address and length in words).
    pub list: Stream<TileList>,
    /// The write-out's configuration registers.
    pub config: WoConfig,
    /// Memory answers.
    pub mem_resp: Stream<MemResp>,
    /// Shaded colours from the fragment shader.
    pub pixel: Stream<PixelReq>,
    /// A quad retired: its pixel writes were all accepted on `pixel` (or it was killed).
    pub quad_retired: Sig,
    /// Tile-shader accesses.
    pub ts_req: Stream<TsReq>,
    /// The tile shader finished, with its write-out choices.
    pub ts_done: Stream<WoFlags>,
    /// Configuration: bit `s` set when draw state `s`'s fragment shader writes depth (late
    /// depth: `early_z` passes its quads untested, the tile buffer tests at the pixel write).
    pub late_depth: Sig,
}

/// What [`tile_backend`] gives.
#[derive(Io)]
pub struct BackendOut {
    /// Memory requests.
    pub mem_req: Stream<MemReq>,
    /// Quads for the fragment shader.
    pub quad: Stream<QuadFrag>,
    /// Tile-shader answers.
    pub ts_resp: Stream<TsResp>,
    /// Tile-shader launches.
    pub ts_launch: Stream<TsLaunch>,
    /// Quads out and not retired.
    pub outstanding: Sig,
    /// An unknown command was skipped (sticky).
    pub bad_op: Sig,
    /// Command-processor counters.
    pub counters: CmdCounters,
    /// Bytes written per plane.
    pub bytes: Vec<Sig>,
    /// The current tile's column and row (from its TILE_BEGIN), for the fragment launcher.
    pub tile: [Sig; 2],
    /// A TILE_BEGIN is taken this clock.
    pub tile_begin: Sig,
}

/// The per-tile back end (module docs).
///
/// * **Ports:** `list`, `config`, `mem_req`/`mem_resp` (the memory port: command reads and
///   write-out bursts), `quad` → (fragment shader) → `pixel` and `quad_retired`, `ts_launch`
///   → (tile shader: `ts_req`/`ts_resp`) → `ts_done`; `outstanding`, `bad_op`, `counters`,
///   `bytes`.
/// * **Protocol:** each unit's (`tile_cmd`, `raster`, `tile_buffer`, `tile_writeout`); the
///   drain fence's quad never leaves on `quad`. The fragment shader must raise
///   `quad_retired` once per quad taken from `quad`, after its last pixel write was taken.
/// * **Cost:** measured in [`super::top::tile_backend_top`]'s docs.
pub fn tile_backend(m: &mut Module, cfg: &TileCfg, i: BackendIn) -> BackendOut {
    let BackendIn {
        list,
        config,
        mem_resp,
        pixel,
        quad_retired,
        ts_req,
        ts_done,
        late_depth,
    } = i;
    // Memory answers go by kind: reads to the command processor, acknowledgements to the
    // write-out.
    let (rv, rd, rr) = mem_resp.split();
    let is_write = rd.write;
    let (cmd_resp, cmd_ready) = Stream::offer(m, "cmd_resp", rv & !is_write, rd.clone());
    let (wo_mem_resp, wo_ready) = Stream::offer(m, "wo_mem_resp", rv & is_write, rd);
    rr.drive(is_write.mux(wo_ready, cmd_ready));

    let quad_out = m.wire("quad_out", 1);
    let fence_seen = m.wire("fence_seen", 1);
    let cmd_in = CmdIn {
        list,
        mem_resp: cmd_resp,
        ts_done,
        quad_out: quad_out.sig(),
        quad_retired,
        fence_seen: fence_seen.sig(),
    };
    let cmd = m.child("tile_cmd", cfg, cmd_in, tile_cmd);

    // The current tile, for the fragment side (quads carry only their place in the tile)
    // and the rasteriser's scissor: the tile's part on screen.
    let (tbv, tb, tbr) = cmd.tile_begin.split();
    let (tile_begin, tb_ready) = Stream::offer(m, "tile_begin_tap", tbv, tb.clone());
    tbr.drive(tb_ready);
    let begin_fire = tbv & tb_ready;
    let tile = [("tile_x", tb.tile_x), ("tile_y", tb.tile_y)].map(|(name, t)| {
        let r = m.reg(name, t.width()).reset(0);
        r.next_when(begin_fire, t);
        r.q()
    });
    let visible = visible_extent(m, (tile[0], tile[1]), (config.width, config.height));

    let pass = ZResp {
        pass: cfg.lanes() as u32,
    };
    let (z_resp, z_plug) = m.io_loop::<Stream<ZResp>>("z_resp", &pass);
    let late_done = m.wire("late_done", 1);
    let r = m.child(
        "raster",
        cfg,
        RasterIn {
            tri: cmd.tri,
            z_resp,
            late: late_depth,
            late_done: late_done.sig(),
            visible_col: visible.last_col,
            visible_row: visible.last_row,
        },
        raster,
    );
    // The fence's quad is dropped here.
    let (qv, q, qr) = r.quad.split();
    let is_fence = q.prim.eq(FENCE_PRIM);
    let (quad, quad_ready) = Stream::offer(m, "quad", qv & !is_fence, q);
    qr.drive(is_fence | quad_ready);
    quad_out.drive(qv & !is_fence & quad_ready);
    fence_seen.drive(qv & is_fence);

    let samples = WoResp {
        samples: vec![cfg.data_bits(); cfg.samples as usize],
    };
    let (wo_resp, wo_plug) = m.io_loop::<Stream<WoResp>>("wo_resp", &samples);
    let wo = m.child(
        "tile_writeout",
        cfg,
        WriteoutIn {
            start: cmd.wo_start,
            config,
            wo_resp,
            mem_resp: wo_mem_resp,
        },
        tile_writeout,
    );
    let buffer_in = BufferIn {
        tile_begin,
        z_req: r.z_req,
        pixel,
        ts: ts_req,
        wo: wo.wo_req,
    };
    let b = m.child("tile_buffer", cfg, buffer_in, tile_buffer);
    z_plug.connect(b.z_resp);
    late_done.drive(b.late_done);
    wo_plug.connect(b.wo_resp);
    let arb = m.child(
        "mem_arbiter",
        &(),
        MemArbIn {
            reads: cmd.mem_req,
            writes: wo.mem_req,
        },
        mem_arbiter,
    );
    BackendOut {
        mem_req: arb.mem_req,
        quad,
        ts_resp: b.ts_resp,
        ts_launch: cmd.ts_launch,
        outstanding: cmd.outstanding,
        bad_op: cmd.bad_op,
        counters: cmd.counters,
        bytes: wo.bytes,
        tile,
        tile_begin: begin_fire,
    }
}
