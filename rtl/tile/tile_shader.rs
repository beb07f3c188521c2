//! The tile-shader side of the engine: the launcher (`ts_launch` → one-quad warps of the
//! `xthreads × ythreads` grid) and the special-port bridge (`spec` requests → the tile
//! buffer's `ts_req`/`ts_resp`, with the format conversions of `sim/models/tile/pack.rs`, and
//! the write-out controls), whose flags the engine sends with `ts_done` when the launch's
//! warps are done.
//!
//! # Launch (per warp of four threads, row-major thread order `t = y·xthreads + x`)
//! The frame model's registers (`sim/models/tile/frame/mod.rs`, RESOLVE): `r0` = global x
//! (`tile_x·xthreads + x`), `r1` = global y, `r3` = x, `r4` = y, `r6` = `t`, `r7` = tile x,
//! `r8` = tile y (r2, r5, r9 are 0 and not sent): seven transfers; lanes past the last thread
//! are helper lanes; `pc` = `(program_base + program) · 2^entry_log2`; `warp_id` 0 (the
//! model's). The model runs the same warps (`TS_WARP` = 4 threads, in this launch order;
//! its module docs, "Tile-shader warps"): threads that exchange data through the tile buffer
//! inside their warp see the same values on both. Between warps of one RESOLVE the order is
//! not defined (the core runs several warps at once; spec A.6 "Races between tile-shader
//! threads").
//!
//! # The special port (`spec_bridge`)
//! ```text
//! spec_req ─► s1 (decode: kind, plane, x, y, sample) ─► ts_req (reads, whole-sample writes)
//!               │ hold on a hazard      push ▼                 ▲ merge writes (first)
//!               └─────────────────► ring of 4 requests ─► head ─┘ ─► spec_resp (in order)
//! ts_resp ─► tag 0 (a request's access) → FIFO of 4 answers ─► head;  tag 1 (merge write) dropped
//! ```
//! One request is accepted per clock. Each is decoded into one of [`SpecKind`]: none (helper
//! lane, write-out control, bad request), load (one read), whole-sample store (one write:
//! R32F and depth channel 0), merged store (a read, then the merged write: RGBA8, RGBA16F,
//! RG16F channels 0..1), channel check (a store to a channel the format lacks: one read for
//! its error, nothing written). The input stage issues the request's access (if any) and
//! pushes it into the ring; the head of the ring is answered in request order when its
//! tile-buffer answer is back (a merged store once its write has been issued). The merged
//! write of the head has the port before the input stage. **Read-after-write:** the input
//! stage holds an access to a sample whose merged store is in the ring with its write not
//! yet issued (hold, not forwarding: one comparator per ring entry); every other order is
//! the tile buffer's, which serves its port in order. Write-out controls and errors take
//! effect when the request is answered, so in request order. Measured with no back-pressure
//! (`tile::tile_shader::measure_spec_bridge_throughput`): loads and whole-sample stores one
//! per clock, merged stores one per two clocks (two accesses each on the one port).
use super::cmd::TsLaunch;
use super::convert::{load_channel, store_channel};
use super::frag::FragCfg;
use super::writeout::WoFlags;
use super::{RtFormat, TsReq, TsResp, PIXEL_COORD_BITS};
use crate::shader::{LaneData, LaunchRec, SpecReq};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{clog2, index_select, pack, unpack, Bundle, Io, Module, Sig, Stream};

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
    /// The first thread (`t`, 9 bits) of the warp being launched; its lanes hold `t .. t + 4`.
    pub first: Sig,
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
        first: first.q(),
    }
}

/// Requests [`spec_bridge`] holds between their acceptance and their answer (its ring), and
/// so the tile-buffer answers it can take without back-pressure.
pub const SPEC_DEPTH: u32 = 4;

/// What an accepted special-port request does at the tile buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, rendergen_hdl::HwEnum)]
pub enum SpecKind {
    /// No access: a helper lane, a write-out control, or a bad request (answered 0).
    None,
    /// A load: one read; the answer is the converted channel.
    Load,
    /// A store that replaces the whole sample (R32F channel 0, depth channel 0): one write.
    Write,
    /// A store of one channel of a wider sample: a read, then the merged write.
    Merge,
    /// A store to a channel the format lacks: one read (for its error only), nothing written.
    Check,
}

/// One request in the bridge's ring (decoded at acceptance).
#[derive(rendergen_hdl::Bundle, Clone, Debug, PartialEq)]
struct SpecEntry<T = Sig> {
    slot: T,
    lane: T,
    kind: T,
    /// The request's op (2 bits), binding (6), channel (2).
    op: T,
    binding: T,
    channel: T,
    /// Tile-buffer plane (binding 8 → `rts`).
    plane: T,
    x: T,
    y: T,
    sample: T,
    b: T,
    helper: T,
    /// A bad request without an access: op 0, a plane that does not exist, a bad write-out
    /// control (not for helpers).
    bad: T,
}

/// What [`spec_bridge`] takes.
#[derive(Io)]
pub struct SpecIn {
    /// The core's special-port requests of tile-shader warps.
    pub spec_req: Stream<SpecReq>,
    /// The tile buffer's answers.
    pub ts_resp: Stream<TsResp>,
    /// TILE_BEGIN was taken: the write-out flags return to all on, with the static resolve.
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

/// The tile shader's special port, pipelined (module docs, "The special port"): a load reads
/// the sample and answers the converted channel; a store writes the converted channel
/// (one write for a whole-sample format and channel, else a read, the merge and the write); a
/// write-out control sets the plane's flags; a helper lane's request is answered 0.
///
/// * **Protocol:** stream rules; answers in request order; `ts_resp` is always ready (the
///   ring never has more accesses outstanding than it can hold answers).
/// * **Timing:** one request accepted per clock into a one-entry input stage, up to
///   [`SPEC_DEPTH`] in the ring. A load or whole-sample store leaves its answer 4 clocks after
///   the request was taken (input stage 1, the tile buffer's latency 2, the answer FIFO 1),
///   one per clock in a stream (measured: 512 loads in 514 clocks); a merged store takes the
///   port twice (read, then write), so a stream of them runs at one per two clocks.
///   **Read-after-write:** an access to the sample (plane, x, y, sample) of a merged store in
///   the ring whose write has not been issued waits in the input stage until it has (hold,
///   not forwarding); every other order is kept by the tile buffer, which serves its port in
///   order. An access on offer on `ts_req` stays on offer until taken (the head's merge
///   write waits meanwhile).
/// * **Errors:** an access the tile buffer answers with `error`, a plane above depth, or a
///   write-out control of a plane the buffer lacks or a mode above 5 set the sticky `error`
///   and record the first one in request order; the answer is 0 and nothing is written.
/// * **Cost:** the input stage and a ring of [`SPEC_DEPTH`] decoded requests (~90 bits
///   each), a FIFO of [`SPEC_DEPTH`] tile-buffer answers, one comparator per ring entry, the
///   format conversions once for loads and once for merges: 7,208 cells, 775 flip-flops
///   (Yosys generic `synth`, default configuration; the serial bridge 5,353 and 295).
pub fn spec_bridge(m: &mut Module, cfg: &FragCfg, i: SpecIn) -> SpecOut {
    let t = &cfg.tile;
    let planes = t.planes();
    let rts = t.formats.len() as u64;
    let pb = t.plane_bits();
    let depth = SPEC_DEPTH as u64;
    let pw = clog2(depth);

    // The input stage: one request, decoded.
    let (rv, r_in, rr) = i.spec_req.split();
    let s1_valid = m.reg("s1_valid", 1).reset(0);
    let s1_leave = m.wire("s1_leave", 1);
    let take = rv & (!s1_valid.q() | s1_leave.sig());
    rr.drive(!s1_valid.q() | s1_leave.sig());
    s1_valid.next(take | (s1_valid.q() & !s1_leave.sig()));
    let req = m.reg_bundle("s1", &r_in, Some(take));
    let op = req.func.bits(9, 8);
    let binding = req.func.bits(7, 2);
    let channel = req.func.bits(1, 0);
    let plane = binding.eq(8).mux(m.lit(rts, 6), binding).resize(pb);
    let plane_ok = (binding.lt(rts) | binding.eq(8)) & req.a.bits(31, 28).lt(4);
    let (x, y, sample) = (req.a.bits(13, 0), req.a.bits(27, 14), req.a.bits(31, 28));
    let wo_plane = req.a.bits(5, 0);
    let wo_ok = (wo_plane.lt(rts) | wo_plane.eq(8)) & req.b.le(5);
    // Per plane and channel: a store replaces the whole sample, or changes nothing.
    let whole_bits: Vec<Sig> = (0..planes)
        .map(|p| {
            let mask = match t.formats.get(p) {
                Some(RtFormat::R32f) | None => 0b0001,
                Some(_) => 0,
            };
            m.lit(mask, 4)
        })
        .collect();
    let none_bits: Vec<Sig> = (0..planes)
        .map(|p| {
            let mask = match t.formats.get(p) {
                Some(RtFormat::R32f) | None => 0b1110,
                Some(RtFormat::Rg16f) => 0b1100,
                Some(_) => 0,
            };
            m.lit(mask, 4)
        })
        .collect();
    let whole = index_select(plane, &pad(m, whole_bits, planes));
    let whole = index_select(channel, &(0..4).map(|c| whole.bit(c)).collect::<Vec<_>>());
    let nothing = index_select(plane, &pad(m, none_bits, planes));
    let nothing = index_select(channel, &(0..4).map(|c| nothing.bit(c)).collect::<Vec<_>>());
    let access = (op.eq(1) | op.eq(2)) & plane_ok & !req.helper;
    let store_kind = whole.mux(
        m.enum_const(SpecKind::Write),
        nothing.mux(m.enum_const(SpecKind::Check), m.enum_const(SpecKind::Merge)),
    );
    let kind = access.mux(
        op.eq(1).mux(m.enum_const(SpecKind::Load), store_kind),
        m.enum_const(SpecKind::None),
    );
    let bad = !req.helper & (op.eq(0) | (op.eq(3) & !wo_ok) | ((op.eq(1) | op.eq(2)) & !plane_ok));
    let entry = SpecEntry {
        slot: req.slot,
        lane: req.lane,
        kind,
        op,
        binding,
        channel,
        plane,
        x,
        y,
        sample,
        b: req.b,
        helper: req.helper,
        bad,
    };
    let key = |e: &SpecEntry| rendergen_hdl::cat(&[e.plane, e.x, e.y, e.sample]);

    // The ring.
    let wr = m.reg("ring_wr", pw).reset(0);
    let rd = m.reg("ring_rd", pw).reset(0);
    let count = m.reg("ring_count", clog2(depth + 1)).reset(0);
    let push = m.wire("ring_push", 1);
    let pop = m.wire("ring_pop", 1);
    let mut ring = Vec::new();
    let mut live = Vec::new();
    for k in 0..depth {
        let at = push.sig() & wr.q().eq(k);
        ring.push(m.reg_bundle(&format!("ring_{k}"), &entry, Some(at)));
        let l = m.reg(&format!("ring_live_{k}"), 1).reset(0);
        let leaving = pop.sig() & rd.q().eq(k);
        l.next(at | (l.q() & !leaving));
        live.push(l.q());
    }
    wr.next_when(push.sig(), wr.q() + 1);
    rd.next_when(pop.sig(), rd.q() + 1);
    count.next((push.sig() & !pop.sig()).mux(
        count.q() + 1,
        (pop.sig() & !push.sig()).mux(count.q() - 1, count.q()),
    ));
    let full = count.q().eq(depth);
    let shape = entry.shape();
    let packed: Vec<Sig> = ring.iter().map(pack).collect();
    let head: SpecEntry = unpack(&shape, index_select(rd.q(), &packed));
    let head_live = count.q().ne(0);

    // Tile-buffer answers: a first access's (tag 0) into the FIFO, a merge write's dropped.
    let (tv, resp, tr) = i.ts_resp.split();
    tr.drive(m.lit(1, 1));
    let (first_resp, _) = Stream::offer(m, "first_resp", tv & !resp.tag.bit(0), resp);
    let answers = fifo(m, &FifoCfg { depth: SPEC_DEPTH }, first_resp);
    let (av, got, ar) = answers.pop.split();

    // The head: a merge writes once its read is back without error; then it is answered.
    let head_kind = head.kind;
    let needs_answer = !head_kind.is(SpecKind::None);
    let written = m.reg("head_written", 1).reset(0);
    let want_write = head_live & head_kind.is(SpecKind::Merge) & av & !got.error & !written.q();
    let per_format_store: Vec<Sig> = t
        .formats
        .iter()
        .map(|&f| {
            store_channel(m, f, got.data.resize(f.bits()), head.channel, head.b).zext(t.data_bits())
        })
        .collect();
    let mut stores = per_format_store;
    stores.push(got.data); // depth: never merged
    let merged = index_select(head.plane, &pad(m, stores, planes));
    let head_done = head_live
        & (!needs_answer | (av & (!head_kind.is(SpecKind::Merge) | got.error | written.q())));

    // Read-after-write: the input stage waits while a merge of its sample is unwritten.
    let s1_key = key(&entry);
    let mut hazard = m.lit(0, 1);
    for (k, e) in ring.iter().enumerate() {
        let is_head_written = rd.q().eq(k as u64) & written.q();
        hazard =
            hazard | (live[k] & e.kind.is(SpecKind::Merge) & !is_head_written & key(e).eq(s1_key));
    }
    let s1_access = !kind.is(SpecKind::None);
    // An access on offer stays on offer until taken (stream rules): while the input stage's
    // is, the head's merge write waits (the ring cannot gain a hazard meanwhile).
    let s1_offered = m.reg("s1_offered", 1).reset(0);
    let want_write = want_write & !s1_offered.q();
    let issue = s1_valid.q() & s1_access & !full & !hazard & !want_write;
    let ts = TsReq {
        write: want_write | kind.is(SpecKind::Write),
        plane: want_write.mux(head.plane, plane),
        x: want_write.mux(head.x, x).zext(PIXEL_COORD_BITS),
        y: want_write.mux(head.y, y).zext(PIXEL_COORD_BITS),
        sample: want_write.mux(head.sample, sample).resize(2),
        data: want_write.mux(
            merged,
            plane.eq(rts).mux(
                req.b.resize(24).zext(t.data_bits()),
                req.b.zext(t.data_bits()),
            ),
        ),
        tag: want_write.zext(super::TAG_BITS),
    };
    let (ts_req, ts_ready) = Stream::offer(m, "ts_req", want_write | issue, ts);
    written.next((want_write & ts_ready) | (written.q() & !pop.sig()));
    s1_offered.next(issue & !ts_ready);
    let leave = s1_valid.q() & !full & (!s1_access | (issue & ts_ready));
    s1_leave.drive(leave);
    push.drive(leave);

    // The answer.
    let per_format_load: Vec<Sig> = t
        .formats
        .iter()
        .map(|&f| load_channel(m, f, got.data.resize(f.bits()), head.channel))
        .collect();
    let depth_load = index_select(
        head.channel,
        &[
            got.data.resize(24).zext(32),
            m.lit(0, 32),
            m.lit(0, 32),
            m.lit(1, 32),
        ],
    );
    let mut loads = per_format_load;
    loads.push(depth_load);
    let loaded = index_select(head.plane, &pad(m, loads, planes));
    let answer = LaneData {
        slot: head.slot,
        lane: head.lane,
        data: (head_kind.is(SpecKind::Load) & !got.error).mux(loaded, m.lit(0, 32)),
    };
    let (spec_resp, resp_ready) = Stream::offer(m, "spec_resp", head_done, answer);
    let fire = head_done & resp_ready;
    pop.drive(fire);
    ar.drive(fire & needs_answer);

    // Write-out flags (set when the control is answered, in request order).
    let all_on = (1u64 << planes) - 1;
    let enable = m.reg("wo_enable", planes as u32).reset(all_on);
    let select = m.reg("wo_select", planes as u32).reset(0);
    let set = m.reg("wo_set", planes as u32).reset(0);
    let samples: Vec<_> = (0..planes)
        .map(|p| m.reg(&format!("wo_sample_{p}"), 2).reset(0))
        .collect();
    // The control's plane is in `x` (the address's low bits), its mode in `b`.
    let hwo_plane = head.x.bits(5, 0);
    let hwo_index = hwo_plane.eq(8).mux(m.lit(rts, 6), hwo_plane);
    let set_wo = fire & head.op.eq(3) & !head.helper & !head.bad;
    let mode = head.b.bits(2, 0);
    for (p, r) in samples.iter().enumerate() {
        let hit = set_wo & hwo_index.eq(p as u64);
        r.next_when(hit & mode.ge(2), (mode - 2).resize(2));
    }
    let bits_with = |f: &dyn Fn(usize, Sig) -> Sig, q: Sig| {
        let v: Vec<Sig> = (0..planes).map(|p| f(p, q.bit(p as u32))).collect();
        rendergen_hdl::cat_lsb_first(&v)
    };
    let new_enable = bits_with(
        &|p, old| (set_wo & hwo_index.eq(p as u64)).mux(mode.ne(0), old),
        enable.q(),
    );
    let new_select = bits_with(
        &|p, old| (set_wo & hwo_index.eq(p as u64)).mux(mode.ge(2), old),
        select.q(),
    );
    let new_set = bits_with(&|p, old| (set_wo & hwo_index.eq(p as u64)) | old, set.q());
    enable.next(i.tile_begin.mux(m.lit(all_on, planes as u32), new_enable));
    select.next(i.tile_begin.mux(m.lit(0, planes as u32), new_select));
    set.next(i.tile_begin.mux(m.lit(0, planes as u32), new_set));

    // Errors, in request order.
    let failed = needs_answer & got.error;
    let bad_now = fire & !head.helper & (failed | head.bad);
    let error = m.reg("error", 1).reset(0);
    error.next(error.q() | bad_now);
    let record = bad_now & !error.q();
    let at = [
        head.slot.zext(8),
        head.lane.zext(8),
        head.binding.zext(8),
        head.x.zext(16),
        head.y.zext(16),
        head.sample.zext(4),
    ];
    let error_at: [Sig; 6] = std::array::from_fn(|k| {
        let r = m.reg(&format!("error_at_{k}"), at[k].width()).reset(0);
        r.next_when(record, at[k]);
        r.q()
    });
    SpecOut {
        spec_resp,
        ts_req,
        flags: WoFlags {
            enable: enable.q(),
            set: set.q(),
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

/// [`spec_bridge`] alone as its own module (the testbench's top): ports `spec_req` (slot and
/// lane as wide as `cfg.core`'s), `spec_resp`, `ts_req`, `ts_resp`, `tile_begin`, `flags_*`,
/// `error`, `error_at_<k>`.
///
/// * **Errors:** the [`FragCfg`] parameters ([`FragCfg::check`]).
pub fn spec_bridge_top(cfg: &FragCfg) -> Result<rendergen_hdl::Design, rendergen_hdl::ElabErrors> {
    rendergen_hdl::Design::build_with_params("spec_bridge_top", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let spec_req = m.input_stream::<SpecReq>(
            "spec_req",
            &SpecReq {
                slot: cfg.core.slot_bits(),
                lane: cfg.core.lane_bits(),
                func: 32,
                a: 32,
                b: 32,
                helper: 1,
            },
        );
        let ts_resp = m.input_stream::<TsResp>(
            "ts_resp",
            &TsResp {
                data: cfg.tile.data_bits(),
                error: 1,
                tag: super::TAG_BITS,
            },
        );
        let tile_begin = m.input("tile_begin", 1);
        let out = m.child(
            "spec_bridge",
            cfg,
            SpecIn {
                spec_req,
                ts_resp,
                tile_begin,
            },
            spec_bridge,
        );
        m.output_stream("spec_resp", out.spec_resp);
        m.output_stream("ts_req", out.ts_req);
        m.output_bundle("flags", &out.flags);
        m.output("error", out.error);
        for (k, s) in out.error_at.into_iter().enumerate() {
            m.output(&format!("error_at_{k}"), s);
        }
    })
}
