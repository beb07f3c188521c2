//! Pipeline slots: one fixed-function pipeline instance behind the generic [`PipeReq`] /
//! [`PipeResp`] streams (`pbru.md` §5.1, §9.2 `ff_pipe_shell`; D2), and the test pipeline of the
//! contract ([`crate::pbru::ports`], "Test pipelines").
//!
//! A slot is the function unit followed by an output FIFO of `latency + 2` entries, and a credit
//! counter of the same size: a request is accepted only while a credit is held, so a result always
//! finds room and the unit itself never stalls. The ASTC adapters are in
//! [`crate::pbru::slot_astc`].

use super::ports::{PipeInst, PipeReq, PipeResp, SlotOut, RESULTS_W, TAG_W};
use super::slot_astc::{astc_a_latency, astc_a_unit, astc_dp_latency, astc_dp_unit};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{cat_lsb_first, lut, Module, Sig, Stream};
use rendergen_isa::{Opcode, PipeKind};

/// Cycles from a request's transfer into the slot to its result's first valid cycle at
/// [`SlotOut::resp`] (no back-pressure).
pub fn slot_latency(inst: &PipeInst) -> u32 {
    match (inst.test_latency, inst.kind) {
        (Some(l), _) => l.max(1),
        (None, PipeKind::AstcA) => astc_a_latency(),
        (None, PipeKind::AstcDp) => astc_dp_latency(),
        // Shading units are not built yet: a test pipeline of latency 4 stands in.
        (None, _) => 4,
    }
}

/// Output-FIFO entries (= credits) of a slot: enough for initiation interval 1.
pub fn slot_depth(inst: &PipeInst) -> u32 {
    slot_latency(inst) + 2
}

/// One pipeline instance in a slot: the unit for `inst` (ASTC_A, ASTC_DP, or the test pipeline
/// when `inst.test_latency` is set or the unit is not built yet), then the output FIFO.
///
/// * **Protocol:** `req` and `resp` keep the stream rules; results leave in request order with
///   the tag unchanged; nothing is dropped. `req.ready` is the credit flag.
/// * **Timing:** latency [`slot_latency`], initiation interval 1 while `resp` is taken;
///   `req.ready` is a register (no combinational path from any input to `req.ready`); the
///   output is the FIFO's head (combinational read, no path from `req` to `resp`).
/// * **Parameters:** [`PipeInst`]: `kind`, `test_latency` 1..=64 (0 counts as 1).
/// * **Cost:** the unit, a FIFO of `(latency + 2) × (128 + 24)` bits, a credit counter; the test
///   pipeline adds `(latency − 1) × 153` flops.
/// * **Errors:** a `req` of another shape than [`PipeReq::SHAPE`] (elaboration).
///
/// Built as the child module `name` of `m`, whose module is [`astc_a_slot`], [`astc_dp_slot`]
/// or [`test_pipe_slot`] (one definition per latency).
pub fn pipe_slot(m: &mut Module, name: &str, inst: &PipeInst, req: Stream<PipeReq>) -> SlotOut {
    match (inst.test_latency, inst.kind) {
        (None, PipeKind::AstcA) => m.child(name, &(), req, astc_a_slot),
        (None, PipeKind::AstcDp) => m.child(name, &(), req, astc_dp_slot),
        _ => m.child(name, &slot_latency(inst), req, test_pipe_slot),
    }
}

/// The slot of the ASTC_A pipeline ([`pipe_slot`] for a real ASTC_A), as its own module.
pub fn astc_a_slot(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> SlotOut {
    slot_around(m, astc_a_latency() + 2, req, astc_a_unit)
}

/// The slot of the ASTC_DP pipeline ([`pipe_slot`] for a real ASTC_DP), as its own module.
pub fn astc_dp_slot(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> SlotOut {
    slot_around(m, astc_dp_latency() + 2, req, astc_dp_unit)
}

/// The slot of a test pipeline of `latency` cycles ([`pipe_slot`] with `test_latency`), as its
/// own module.
pub fn test_pipe_slot(m: &mut Module, latency: &u32, req: Stream<PipeReq>) -> SlotOut {
    let latency = (*latency).max(1);
    slot_around(m, latency + 2, req, |m, r| test_pipe(m, latency, r))
}

/// The credit counter and output FIFO of `depth` entries around `unit`.
fn slot_around(
    m: &mut Module,
    depth: u32,
    req: Stream<PipeReq>,
    unit: impl FnOnce(&mut Module, Stream<PipeReq>) -> Stream<PipeResp>,
) -> SlotOut {
    let (valid, data, ready) = req.split();
    let give = m.wire("slot_give", 1);
    let take = m.wire("slot_take", 1);
    let credits = credit_counter(m, depth, take.sig(), give.sig());
    // The unit sees the request only while a credit is held, so its output never waits.
    let (unit_req, unit_ready) = Stream::offer(m, "unit_req", valid & credits.available, data);
    let out = unit(m, unit_req);
    let accept_ok = (credits.available & unit_ready).named("slot_accept_ok");
    ready.drive(accept_ok);
    take.drive(valid & accept_ok);
    let q = fifo(m, &FifoCfg { depth }, out);
    let (pv, pd, pr) = q.pop.split();
    let (resp, resp_ready) = Stream::offer(m, "slot_resp", pv, pd);
    pr.drive(resp_ready);
    give.drive(pv & resp_ready);
    SlotOut {
        resp,
        busy: credits.count.ne(depth as u64),
    }
}

/// The contract's test function, one request per clock, fixed latency `latency` (≥ 1; the
/// output FIFO provides the last cycle): result word `i < op.pushes()` =
/// `Σ_{j < op.pops()} (j + 1)·a[j] + (i + 1)·0x0001_0001 + imm` (wrapping); other words 0.
///
/// * **Timing:** `latency − 1` register stages here; `req.ready` is constant 1 (the slot's
///   credits keep the FIFO from overflowing).
/// * **Cost:** `(latency − 1) × (1 + 128 + 24)` flops; ten constant multiplies and adds.
pub fn test_pipe(m: &mut Module, latency: u32, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let result = test_function(m, &d);
    let mut v = valid;
    let mut data = result;
    let mut tag = d.tag;
    for stage in 1..latency {
        let rv = m.reg(&format!("test_valid_s{stage}"), 1).reset(0);
        let rd = m.reg(&format!("test_data_s{stage}"), RESULTS_W);
        let rt = m.reg(&format!("test_tag_s{stage}"), TAG_W);
        rv.next(v);
        rd.next_when(v, data);
        rt.next_when(v, tag);
        (v, data, tag) = (rv.q(), rd.q(), rt.q());
    }
    let (out, _always_ready) = Stream::offer(m, "test_out", v, PipeResp { data, tag });
    out
}

/// The combinational test function of a request (see [`test_pipe`]).
pub fn test_function(m: &mut Module, d: &PipeReq) -> Sig {
    let pops: Vec<u64> = (0..=255u8)
        .map(|b| Opcode::from_byte(b).map_or(0, |o| o.pops() as u64))
        .collect();
    let pushes: Vec<u64> = (0..=255u8)
        .map(|b| Opcode::from_byte(b).map_or(0, |o| o.pushes() as u64))
        .collect();
    let n_pops = lut(d.op, &pops, 4).named("test_pops");
    let n_pushes = lut(d.op, &pushes, 4).named("test_pushes");
    let mut sum = m.lit(0, 32);
    for j in 0..d.args.width() / 32 {
        let a = d.args.slice(32 * j, 32);
        let used = n_pops.gt(j as u64);
        sum = sum + used.mux(a * (j as u64 + 1), m.lit(0, 32));
    }
    let base = (sum + d.imm.zext(32)).named("test_sum");
    let words: Vec<Sig> = (0..RESULTS_W / 32)
        .map(|i| {
            let w = base + (i as u64 + 1) * 0x0001_0001;
            n_pushes.gt(i as u64).mux(w, m.lit(0, 32))
        })
        .collect();
    cat_lsb_first(&words)
}
