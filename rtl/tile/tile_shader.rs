//! The tile-shader side of the engine: the launcher (`ts_launch` → one-quad warps of the
//! `xthreads × ythreads` grid) and the special-port bridge (`spec` requests → the tile
//! buffer's `ts_req`/`ts_resp`, with the format conversions of `sim/models/tile/pack.rs`, and
//! the write-out controls), which also answers `ts_done` when the launch's warps are done.
//!
//! # Launch (per warp of four threads, row-major thread order `t = y·xthreads + x`)
//! The frame model's registers (`sim/models/tile/frame/mod.rs`, RESOLVE): `r0` = global x
//! (`tile_x·xthreads + x`), `r1` = global y, `r3` = x, `r4` = y, `r6` = `t`, `r7` = tile x,
//! `r8` = tile y (r2, r5, r9 are 0 and not sent): seven transfers; lanes past the last thread
//! are helper lanes; `pc` = `(program_base + program) · 2^entry_log2`; `warp_id` 0 (the
//! model's). The model runs 64 threads per warp, the engine 4: a tile shader whose threads
//! exchange data through the tile buffer sees the other threads' accesses in another order.
use super::cmd::TsLaunch;
use super::convert::{load_channel, store_channel};
use super::frag::FragCfg;
use super::writeout::WoFlags;
use super::{TsReq, TsResp, PIXEL_COORD_BITS};
use crate::shader::{LaneData, LaunchRec, SpecReq};
use rendergen_hdl::{index_select, Io, Module, Sig, Stream};

/// Launch transfers per tile-shader warp.
pub const TS_TRANSFERS: u32 = 7;

/// What [`ts_launcher`] takes.
#[derive(Io)]
pub struct TsLauncherIn {
    /// RESOLVE's launch (taken when every warp of it is launched).
    pub ts_launch: Stream<TsLaunch>,
    /// Slot of the first tile program (in `2^entry_log2`-word program slots).
    pub program_base: Sig,
}

/// What [`ts_launcher`] gives.
#[derive(Io)]
pub struct TsLauncherOut {
    /// Launch transfers for the core.
    pub launch: Stream<LaunchRec>,
    /// Warps launched for the current RESOLVE (registered, reset with each new one).
    pub warps: Sig,
    /// The RESOLVE's every warp is launched (the same clock `ts_launch` is taken).
    pub all_launched: Sig,
}

/// Splits a RESOLVE's thread grid into one-quad warps (module docs).
///
/// * **Protocol:** stream rules; `ts_launch` is taken with the last transfer of the last
///   warp. **Timing:** one transfer per clock: 7 clocks per warp of 4 threads.
/// * **Cost:** a 3-bit transfer counter, an 8-bit thread counter, the grid arithmetic.
pub fn ts_launcher(m: &mut Module, cfg: &FragCfg, i: TsLauncherIn) -> TsLauncherOut {
    let (valid, l, ready) = i.ts_launch.split();
    let step = m.reg("step", 3).reset(0);
    let first = m.reg("first", 9).reset(0); // first thread of the warp
    let warps = m.reg("warps", 7).reset(0);
    let total = l.xthreads.zext(9).mul_full(l.ythreads.zext(9)).resize(9);
    let last_step = step.q().eq((TS_TRANSFERS - 1) as u64);
    let rw = cfg.core.reg_bits();
    let mut lanes = Vec::new();
    let mut helpers = Vec::new();
    for k in 0..4u64 {
        let t = first.q() + k;
        helpers.push(t.ge(total));
        // x = t mod xthreads, y = t / xthreads, by a small divider over 16 rows.
        let mut y = m.lit(0, 9);
        for r in 1..16u64 {
            let start = l.xthreads.zext(9).mul_full(m.lit(r, 5)).resize(9);
            y = y + t.ge(start).zext(9);
        }
        let x = t - (y.mul_full(l.xthreads.zext(9))).resize(9);
        let gx = l.tile_x.zext(32).mul_full(l.xthreads.zext(32)).resize(32) + x.zext(32);
        let gy = l.tile_y.zext(32).mul_full(l.ythreads.zext(32)).resize(32) + y.zext(32);
        lanes.push([
            gx,
            gy,
            x.zext(32),
            y.zext(32),
            t.zext(32),
            l.tile_x.zext(32),
            l.tile_y.zext(32),
        ]);
    }
    let regs = [0u64, 1, 3, 4, 6, 7, 8];
    let reg = index_select(
        step.q(),
        &regs.iter().map(|&r| m.lit(r, rw)).collect::<Vec<_>>(),
    );
    let data: Vec<Sig> = lanes
        .iter()
        .map(|row| index_select(step.q(), &row[..]))
        .collect();
    let slot = (i.program_base.zext(32) + l.program.resize(32)).resize(32);
    let rec = LaunchRec {
        write: m.lit(1, 1),
        reg,
        data,
        last: last_step,
        pc: (slot << cfg.entry_log2).resize(32),
        helpers: rendergen_hdl::cat_lsb_first(&helpers),
        warp_id: m.lit(0, 32),
    };
    let (launch, launch_ready) = Stream::offer(m, "launch", valid, rec);
    let fire = valid & launch_ready;
    let warp_done = fire & last_step;
    let next_first = first.q() + 4;
    let all = warp_done & next_first.ge(total);
    step.next(fire.mux(last_step.mux(m.lit(0, 3), step.q() + 1), step.q()));
    first.next(warp_done.mux(all.mux(m.lit(0, 9), next_first), first.q()));
    // `warps` counts this RESOLVE's launches; it restarts at the first warp of the next.
    let starting = fire & step.q().eq(0) & first.q().eq(0);
    warps.next(starting.mux(m.lit(0, 7), warp_done.mux(warps.q() + 1, warps.q())));
    ready.drive(all);
    TsLauncherOut {
        launch,
        warps: warps.q(),
        all_launched: all,
    }
}

/// States of the special-port bridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, rendergen_hdl::HwEnum)]
pub enum SpecState {
    /// Waiting for a request.
    Idle,
    /// The tile-buffer read is offered.
    Read,
    /// Waiting for the read's answer.
    ReadWait,
    /// The store's write is offered.
    Write,
    /// Waiting for the write's answer.
    WriteWait,
    /// The answer is offered to the core.
    Answer,
}

/// What [`spec_bridge`] takes.
#[derive(Io)]
pub struct SpecIn {
    /// The core's special-port requests of tile-shader warps.
    pub spec_req: Stream<SpecReq>,
    /// The tile buffer's answers.
    pub ts_resp: Stream<TsResp>,
    /// TILE_BEGIN was taken: the write-out flags return to all on, averaged.
    pub tile_begin: Sig,
}

/// What [`spec_bridge`] gives.
#[derive(Io)]
pub struct SpecOut {
    /// Answers for the core.
    pub spec_resp: Stream<LaneData>,
    /// Tile-buffer accesses.
    pub ts_req: Stream<TsReq>,
    /// The tile's write-out flags as the tile shader left them.
    pub flags: WoFlags,
    /// Sticky: an access outside the tile, or to a plane or sample that does not exist.
    pub error: Sig,
    /// The first such access: `[slot, lane, plane, x, y, sample]`.
    pub error_at: [Sig; 6],
}

/// One special-port request at a time (module docs): a load reads the sample and answers the
/// converted channel; a store reads, merges the converted channel and writes; a write-out
/// control sets the plane's flags; a helper lane's request is answered 0 at once.
///
/// * **Protocol:** stream rules; answers in request order. **Timing:** a load 3 clocks plus
///   the tile buffer's latency, a store twice that; not pipelined (the tile shader's cost is
///   its accesses: a pipelined port is open work).
/// * **Errors:** an access the tile buffer answers with `error`, a plane above depth, or a
///   write-out control of a plane the buffer lacks or a mode above 5 set the sticky `error`
///   and record the first one; the answer is 0 and nothing is written.
pub fn spec_bridge(m: &mut Module, cfg: &FragCfg, i: SpecIn) -> SpecOut {
    let t = &cfg.tile;
    let planes = t.planes();
    let rts = t.formats.len() as u64;
    let state = m.enum_reg("state", SpecState::Idle);
    let s = state.q();
    let (rv, r_in, rr) = i.spec_req.split();
    let take = rv & s.is(SpecState::Idle);
    rr.drive(s.is(SpecState::Idle));
    let req = m.reg_bundle("req", &r_in, Some(take));
    let op = req.func.bits(9, 8);
    let binding = req.func.bits(7, 2);
    let channel = req.func.bits(1, 0);
    let plane = binding.eq(8).mux(m.lit(rts, 6), binding);
    let plane_ok = (binding.lt(rts) | binding.eq(8)) & req.a.bits(31, 28).lt(4);
    let (x, y, sample) = (req.a.bits(13, 0), req.a.bits(27, 14), req.a.bits(31, 28));
    let is_access = (op.eq(1) | op.eq(2)) & plane_ok & !req.helper;
    let is_writeout = op.eq(3) & !req.helper;

    // Write-out flags.
    let all_on = (1u64 << planes) - 1;
    let enable = m.reg("wo_enable", planes as u32).reset(all_on);
    let select = m.reg("wo_select", planes as u32).reset(0);
    let samples: Vec<_> = (0..planes)
        .map(|p| m.reg(&format!("wo_sample_{p}"), 2).reset(0))
        .collect();
    let wo_plane = req.a.bits(5, 0);
    let wo_index = wo_plane.eq(8).mux(m.lit(rts, 6), wo_plane);
    let wo_ok = (wo_plane.lt(rts) | wo_plane.eq(8)) & req.b.le(5);
    let set_wo = s.is(SpecState::Answer) & is_writeout & wo_ok;
    for (p, r) in samples.iter().enumerate() {
        let hit = set_wo & wo_index.eq(p as u64);
        let mode = req.b.bits(2, 0);
        r.next_when(hit & mode.ge(2), (mode - 2).resize(2));
    }
    let bits_with = |m: &mut Module, q: Sig, f: &dyn Fn(&mut Module, usize, Sig) -> Sig| {
        let v: Vec<Sig> = (0..planes).map(|p| f(m, p, q.bit(p as u32))).collect();
        rendergen_hdl::cat_lsb_first(&v)
    };
    let mode = req.b.bits(2, 0);
    let new_enable = bits_with(m, enable.q(), &|_, p, old| {
        (set_wo & wo_index.eq(p as u64)).mux(mode.ne(0), old)
    });
    let new_select = bits_with(m, select.q(), &|_, p, old| {
        (set_wo & wo_index.eq(p as u64)).mux(mode.ge(2), old)
    });
    enable.next(i.tile_begin.mux(m.lit(all_on, planes as u32), new_enable));
    select.next(i.tile_begin.mux(m.lit(0, planes as u32), new_select));

    // Tile-buffer accesses.
    let stored = m.reg("stored", t.data_bits());
    let failed = m.reg("failed", 1).reset(0);
    let writing = s.is(SpecState::Write);
    let per_format_store: Vec<Sig> = t
        .formats
        .iter()
        .map(|&f| {
            store_channel(m, f, stored.q().resize(f.bits()), channel, req.b).zext(t.data_bits())
        })
        .collect();
    let depth_store = channel
        .eq(0)
        .mux(req.b.resize(24).zext(t.data_bits()), stored.q());
    let mut stores = per_format_store.clone();
    stores.push(depth_store);
    let merged = index_select(plane.resize(t.plane_bits()), &pad(m, stores, planes));
    let ts = TsReq {
        write: writing,
        plane: plane.resize(t.plane_bits()),
        x: x.zext(PIXEL_COORD_BITS),
        y: y.zext(PIXEL_COORD_BITS),
        sample: sample.resize(2),
        data: merged,
        tag: m.lit(0, super::TAG_BITS),
    };
    let offer = (s.is(SpecState::Read) & is_access) | writing;
    let (ts_req, ts_ready) = Stream::offer(m, "ts_req", offer, ts);
    let (tv, resp, tr) = i.ts_resp.split();
    let waiting = s.is(SpecState::ReadWait) | s.is(SpecState::WriteWait);
    tr.drive(waiting);
    let got = tv & waiting;
    stored.next_when(got & s.is(SpecState::ReadWait), resp.data);
    let access_error = got & resp.error;
    failed.next(take.mux(m.lit(0, 1), failed.q() | access_error));

    // The answer.
    let per_format_load: Vec<Sig> = t
        .formats
        .iter()
        .map(|&f| load_channel(m, f, stored.q().resize(f.bits()), channel))
        .collect();
    let depth_load = index_select(
        channel,
        &[
            stored.q().resize(24).zext(32),
            m.lit(0, 32),
            m.lit(0, 32),
            m.lit(1, 32),
        ],
    );
    let mut loads = per_format_load;
    loads.push(depth_load);
    let loaded = index_select(plane.resize(t.plane_bits()), &pad(m, loads, planes));
    let answer_data = (op.eq(1) & is_access & !failed.q()).mux(loaded, m.lit(0, 32));
    let answer = LaneData {
        slot: req.slot,
        lane: req.lane,
        data: answer_data,
    };
    let (spec_resp, resp_ready) = Stream::offer(m, "spec_resp", s.is(SpecState::Answer), answer);

    // Errors.
    let bad = s.is(SpecState::Answer)
        & !req.helper
        & (failed.q() | (op.eq(3) & !wo_ok) | ((op.eq(1) | op.eq(2)) & !plane_ok) | op.eq(0));
    let error = m.reg("error", 1).reset(0);
    error.next(error.q() | bad);
    let record = bad & !error.q();
    let at = [
        req.slot.zext(8),
        req.lane.zext(8),
        binding.zext(8),
        x.zext(16),
        y.zext(16),
        sample.zext(4),
    ];
    let error_at: [Sig; 6] = std::array::from_fn(|k| {
        let r = m.reg(&format!("error_at_{k}"), at[k].width()).reset(0);
        r.next_when(record, at[k]);
        r.q()
    });

    // Next state.
    let w = s.width();
    let [l_read, l_read_wait, l_write, l_write_wait, l_answer, l_idle] = [
        SpecState::Read,
        SpecState::ReadWait,
        SpecState::Write,
        SpecState::WriteWait,
        SpecState::Answer,
        SpecState::Idle,
    ]
    .map(|v| m.lit(v as u64, w));
    let read_failed_or_load = op.eq(1) | resp.error;
    let table = [
        (SpecState::Idle, rv.mux(l_read, s)),
        (SpecState::Read, ts_ready.mux(l_read_wait, s)),
        (
            SpecState::ReadWait,
            got.mux(read_failed_or_load.mux(l_answer, l_write), s),
        ),
        (SpecState::Write, ts_ready.mux(l_write_wait, s)),
        (SpecState::WriteWait, got.mux(l_answer, s)),
        (SpecState::Answer, resp_ready.mux(l_idle, s)),
    ];
    let mut next = s;
    for (st, nx) in table {
        next = s.is(st).mux(nx, next);
    }
    // A request without a tile-buffer access goes straight to its answer.
    let skip = s.is(SpecState::Read) & !is_access;
    let next = skip.mux(l_answer, next);
    state.next(next);
    SpecOut {
        spec_resp,
        ts_req,
        flags: WoFlags {
            enable: enable.q(),
            select: select.q(),
            sample: samples.iter().map(|r| r.q()).collect(),
        },
        error: error.q(),
        error_at,
    }
}

/// `values` padded with zeros to `n` cases (a power-of-two index may address more).
fn pad(m: &mut Module, mut values: Vec<Sig>, n: usize) -> Vec<Sig> {
    let w = values[0].width();
    while values.len() < n.next_power_of_two() {
        values.push(m.lit(0, w));
    }
    values
}
