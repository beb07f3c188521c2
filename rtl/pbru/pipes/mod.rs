//! Pipes: one fixed-function pipeline instance behind the generic [`PipeReq`] / [`PipeResp`]
//! streams (`pbru.md` §5.1, §9.2 `ff_pipe_shell`; D2), each its own module beside the scheduler.
//!
//! A pipe is the function unit followed by an output FIFO of `latency + 2` entries, and a credit
//! counter of the same size: a request is accepted only while a credit is held, so a result always
//! finds room and the unit itself never stalls. One file per kind of unit: [`astc_a`] and
//! [`astc_dp`] (the adapters from the generic words to the ASTC pipelines), the shading
//! pipelines of D4 (issue 11 §2: [`ggx`], [`oren_nayar`], [`schlick`], [`sheen`],
//! [`subsurface`], [`cel`], sharing [`shading`]), and [`test`](mod@test) (the contract's test
//! pipeline, a cheap stand-in of configurable latency). ("Slot" is kept for a core's ray slot;
//! a pipeline instance is a pipe.)

pub mod astc_a;
pub mod astc_dp;
pub mod cel;
pub mod ggx;
pub mod oren_nayar;
pub mod schlick;
pub mod shading;
pub mod sheen;
pub mod subsurface;
pub mod test;

use super::ports::{PipeInst, PipeOut, PipeReq, PipeResp};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use astc_a::{astc_a_latency, astc_a_pipe};
use astc_dp::{astc_dp_latency, astc_dp_pipe};
use cel::{cel_latency, cel_pipe};
use ggx::{ggx_latency, ggx_pipe};
use oren_nayar::{oren_nayar_latency, oren_nayar_pipe};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};
use rendergen_isa::PipeKind;
use schlick::{schlick_latency, schlick_pipe};
use sheen::{sheen_latency, sheen_pipe};
use subsurface::{subsurface_latency, subsurface_pipe};
use test::test_pipe;

/// Cycles from a request's transfer into the pipe to its result's first valid cycle at
/// [`PipeOut::resp`] (no back-pressure).
pub fn pipe_latency(inst: &PipeInst) -> u32 {
    match (inst.test_latency, inst.kind) {
        (Some(l), _) => l.max(1),
        (None, PipeKind::AstcA) => astc_a_latency(),
        (None, PipeKind::AstcDp) => astc_dp_latency(),
        (None, PipeKind::Schlick) => schlick_latency(),
        (None, PipeKind::OrenNayar) => oren_nayar_latency(),
        (None, PipeKind::Ggx) => ggx_latency(),
        (None, PipeKind::Sheen) => sheen_latency(),
        (None, PipeKind::Subsurface) => subsurface_latency(),
        (None, PipeKind::Cel) => cel_latency(),
    }
}

/// Output-FIFO entries (= credits) of a pipe: enough for initiation interval 1.
pub fn pipe_depth(inst: &PipeInst) -> u32 {
    pipe_latency(inst) + 2
}

/// The pipe of one pipeline instance: the unit for `inst.kind`, or the test pipeline when
/// `inst.test_latency` is set (a cheap stand-in), then the output FIFO.
///
/// * **Protocol:** `req` and `resp` keep the stream rules; results leave in request order with
///   the tag unchanged; nothing is dropped. `req.ready` is the credit flag.
/// * **Timing:** latency [`pipe_latency`], initiation interval 1 while `resp` is taken;
///   `req.ready` is a register (no combinational path from any input to `req.ready`); the
///   output is the FIFO's head (combinational read, no path from `req` to `resp`).
/// * **Parameters:** [`PipeInst`]: `kind`, `test_latency` 1..=64 (0 counts as 1).
/// * **Cost:** the unit, a FIFO of `(latency + 2) × (128 + 24)` bits, a credit counter; the test
///   pipeline adds `(latency − 1) × 153` flops.
/// * **Errors:** a `req` of another shape than [`PipeReq::SHAPE`] (elaboration).
///
/// Built as the child module `name` of `m`, whose module is the kind's pipe ([`astc_a_pipe`],
/// [`astc_dp_pipe`], [`ggx_pipe`], [`oren_nayar_pipe`], [`schlick_pipe`], [`sheen_pipe`],
/// [`subsurface_pipe`], [`cel_pipe`]) or [`test_pipe`] (one definition per latency).
pub fn pbru_pipe(m: &mut Module, name: &str, inst: &PipeInst, req: Stream<PipeReq>) -> PipeOut {
    match (inst.test_latency, inst.kind) {
        (None, PipeKind::AstcA) => m.child(name, &(), req, astc_a_pipe),
        (None, PipeKind::AstcDp) => m.child(name, &(), req, astc_dp_pipe),
        (None, PipeKind::Schlick) => m.child(name, &(), req, schlick_pipe),
        (None, PipeKind::OrenNayar) => m.child(name, &(), req, oren_nayar_pipe),
        (None, PipeKind::Ggx) => m.child(name, &(), req, ggx_pipe),
        (None, PipeKind::Sheen) => m.child(name, &(), req, sheen_pipe),
        (None, PipeKind::Subsurface) => m.child(name, &(), req, subsurface_pipe),
        (None, PipeKind::Cel) => m.child(name, &(), req, cel_pipe),
        _ => m.child(name, &pipe_latency(inst), req, test_pipe),
    }
}

/// The credit counter and output FIFO of `depth` entries around `unit`.
#[name_lets]
fn pipe_around(
    m: &mut Module,
    depth: u32,
    req: Stream<PipeReq>,
    unit: impl FnOnce(&mut Module, Stream<PipeReq>) -> Stream<PipeResp>,
) -> PipeOut {
    let (valid, data, ready) = req.split();
    let give = m.wire("pipe_give", 1);
    let take = m.wire("pipe_take", 1);
    let credits = credit_counter(m, depth, take.sig(), give.sig());
    // The unit sees the request only while a credit is held, so its output never waits.
    let (unit_req, unit_ready) = Stream::offer(m, "unit_req", valid & credits.available, data);
    let out = unit(m, unit_req);
    let accept_ok = (credits.available & unit_ready).named("pipe_accept_ok");
    ready.drive(accept_ok);
    take.drive(valid & accept_ok);
    let q = fifo(m, &FifoCfg { depth }, out);
    let (pv, pd, pr) = q.pop.split();
    let (resp, resp_ready) = Stream::offer(m, "pipe_resp", pv, pd);
    pr.drive(resp_ready);
    give.drive(pv & resp_ready);
    PipeOut {
        resp,
        busy: credits.count.ne(depth as u64),
    }
}

/// The stand-alone design `name` of one pipe: input stream `req` ([`PipeReq::SHAPE`]), output
/// stream `resp` and the `busy` flag.
pub fn pipe_top(
    name: &str,
    pipe: fn(&mut Module, &(), Stream<PipeReq>) -> PipeOut,
) -> Result<Design, ElabErrors> {
    Design::build(name, |m| {
        let req = m.input_stream::<PipeReq>("req", &PipeReq::SHAPE);
        let out = pipe(m, &(), req);
        m.output_stream("resp", out.resp);
        m.output("busy", out.busy);
    })
}

/// Word `i` of a request's arguments.
fn word(args: Sig, i: u32) -> Sig {
    args.slice(32 * i, 32)
}
