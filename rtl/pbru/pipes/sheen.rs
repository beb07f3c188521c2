//! The sheen pipeline (D4, MaterialX `mx_imageworks_sheen_brdf`, Conty-Kulla "Charlie"):
//! `SHEEN` pops `N V L rough` and pushes `f = D / (4·(NL + NV − NL·NV))` with
//! `D = (2 + 1/r)·(1 − NH²)^(1/(2r)) / (2π)`, `r = max(rough, 0.005)`, `H = normalize(L + V)`;
//! `1 − NH²` is taken as ≥ 0 (MaterialX's `max(…, 0)`). Vector components are clamped to
//! [−2, 2] (D4's are unit length).
//!
//! # Datapath (the golden model `rendergen_sim::models::pbru::shading::sheen` follows it)
//! [`half`]: `NL`, `NV`, `u = 1 − NH²` (exact integer dot products); `r = max(rough, 0.005)`,
//! `1/r` (rcp), `p = pow(max(u, 0), 0.5·(1/r))` ([`crate::fp::pow`]), `2 + 1/r`,
//! `den = fma(−NL, NV, NL + NV)`, `f = ((2 + 1/r)·p)·(rcp(den)·1/(8π))`, to Q16.16.
//!
//! # Ports, timing, cost
//! [`sheen_pipe`] is the PBRU pipe; [`pipe_sheen_top`] its stand-alone design. Latency
//! [`sheen_latency`] = 44 (43 stages and the FIFO's cycle), initiation interval 1. Cost (`cargo run
//! --release -p rendergen-gen -- synth pipe_sheen --per-module`, Yosys generic, unflattened,
//! measured): 324,503 cells, 25,539 flip-flops, 65 gate levels: 15 FMA datapaths (120k), three
//! `recip` (66k), pow's log2 and exp2 (42k), the unit's integer dot products, stage and delay
//! registers (83k cells, 18.5k flops), the 46-entry output FIFO (14k cells, 7k flops).

use super::pipe_around;
use super::shading::{fmax, half, single_result_unit, Flow, RecipOp, Val};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};
use std::f64::consts::PI;

/// Stages of the unit.
const STAGES: u32 = 43;

/// Pipe latency of sheen: its stages and the output FIFO's cycle.
pub fn sheen_latency() -> u32 {
    STAGES + 1
}

/// The sheen datapath: `f` (Q16.16).
#[name_lets]
pub fn sheen_eval(m: &mut Module, f: &mut Flow, args: Sig) -> Val {
    let h = half(m, f, args);
    let rough = f.value("rough_fixed", super::word(args, 9), 0);
    let rough = f.from_q16(m, "rough", rough);
    let floor = f.constant(m, "rough_floor", 0.005);
    let r = f.comb(m, "r", &[rough, floor], |m, x| fmax(m, x[0], x[1]));
    let inv_r = f.recip(m, "inv_r", RecipOp::Rcp, r);
    let half_c = f.constant(m, "half", 0.5);
    let exponent = f.mul(m, "exponent", half_c, inv_r);
    let base = f.comb(m, "sin2", &[h.u], |m, x| x[0].msb().mux(m.lit(0, 32), x[0]));
    let p = f.pow(m, "sin2_pow", base, exponent);
    let two = f.constant(m, "two", 2.0);
    let coef = f.add(m, "coef", two, inv_r);
    let d = f.mul(m, "ndf", coef, p);
    let sum = f.add(m, "nl_plus_nv", h.nl, h.nv);
    let neg_nl = f.neg(m, "neg_nl", h.nl);
    let den = f.fma(m, "den", neg_nl, h.nv, sum);
    let inv = f.recip(m, "inv_den", RecipOp::Rcp, den);
    let c = f.constant(m, "inv_8pi", (1.0 / (8.0 * PI)) as f32);
    let scale = f.mul(m, "scale", inv, c);
    let out = f.mul(m, "sheen", d, scale);
    f.to_q16(m, "sheen_fixed", out)
}

/// The sheen unit: never stalls.
pub fn sheen_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    single_result_unit(m, req, STAGES, sheen_eval)
}

/// The pipe of sheen ([`pbru_pipe`](super::pbru_pipe) for a real unit), as its own module.
pub fn sheen_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, sheen_latency() + 2, req, |m, r| {
        m.child("sheen_unit", &(), r, |m, _, r| sheen_unit(m, r))
    })
}

/// Stand-alone sheen pipe (catalogue `pipe_sheen`): stream `req` ([`PipeReq`]) → stream
/// `resp` ([`PipeResp`]), plus `busy`.
///
/// ```
/// use rendergen_rtl::pbru::pipes::sheen::pipe_sheen_top;
/// assert_eq!(pipe_sheen_top().unwrap().top().name, "pipe_sheen");
/// ```
pub fn pipe_sheen_top() -> Result<Design, ElabErrors> {
    super::pipe_top("pipe_sheen", sheen_pipe)
}
