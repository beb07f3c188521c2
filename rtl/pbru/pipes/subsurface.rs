//! The subsurface pipeline (D4: Burley 2012's subsurface approximation, to which the compiler
//! maps MaterialX's `subsurface_bsdf`): `SUBSURFACE` pops `N V L rough` and pushes
//! `f = 1.25·(Fss·(1/(NL + NV) − 0.5) + 0.5)/π` with `Fss90 = LH²·rough`,
//! `Fss = (1 + (Fss90 − 1)(1 − NL)⁵)·(1 + (Fss90 − 1)(1 − NV)⁵)`, `H = normalize(L + V)`.
//! Vector components are clamped to [−2, 2] (D4's are unit length).
//!
//! # Datapath (the golden model `rendergen_sim::models::pbru::shading::subsurface` follows it)
//! [`half`]: `NL`, `NV`, `rcp(|L + V|²)`; `LH² = (L·s)²·rcp(|s|²)` with `s = L + V` in binary32
//! (0 for L = −V), `Fss90 − 1 = LH²·rough − 1`, `x⁵ = (x·x)²·x` of `1 − NL` and `1 − NV`,
//! two `fma(Fss90 − 1, x⁵, 1)`, their product, `w = rcp(NL + NV) − 0.5`,
//! `f = fma(Fss, w, 0.5)·(1.25/π)`, to Q16.16.
//!
//! # Ports, timing, cost
//! [`subsurface_pipe`] is the PBRU pipe; [`pipe_subsurface_top`] its stand-alone design.
//! Latency [`subsurface_latency`] = 64 (63 stages and the FIFO's cycle), initiation interval 1.
//! Cost (`cargo run --release -p rendergen-gen -- synth pipe_subsurface --per-module`, Yosys
//! generic, unflattened, measured): 360,941 cells, 40,901 flip-flops, 67 gate levels (31 FMA
//! datapaths, two `recip`, the integer dot products, stage and delay registers, the 66-entry
//! output FIFO).

use super::pipe_around;
use super::shading::{half, positive, single_result_unit, Flow, RecipOp, Val};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};
use std::f64::consts::PI;

/// Stages of the unit.
const STAGES: u32 = 63;

/// Pipe latency of subsurface: its stages and the output FIFO's cycle.
pub fn subsurface_latency() -> u32 {
    STAGES + 1
}

/// `x⁵ = (x·x)²·x`.
fn pow5(m: &mut Module, f: &mut Flow, name: &str, x: Val) -> Val {
    let x2 = f.mul(m, &format!("{name}_2"), x, x);
    let x4 = f.mul(m, &format!("{name}_4"), x2, x2);
    f.mul(m, &format!("{name}_5"), x4, x)
}

/// The subsurface datapath: `f` (Q16.16).
#[name_lets]
pub fn subsurface_eval(m: &mut Module, f: &mut Flow, args: Sig) -> Val {
    let h = half(m, f, args);
    let s: [Val; 3] = std::array::from_fn(|i| {
        let c = ["x", "y", "z"][i];
        f.add(m, &format!("s_{c}"), h.l[i], h.v[i])
    });
    let ls = f.dot(m, "ls", h.l, s);
    let ls2 = f.mul(m, "ls2", ls, ls);
    let lh2 = f.mul(m, "lh2_raw", ls2, h.inv_len2);
    let lh2 = f.comb(m, "lh2", &[lh2, h.len2], |m, x| {
        positive(x[1]).mux(x[0], m.lit(0, 32))
    });
    let rough = f.value("rough_fixed", super::word(args, 9), 0);
    let rough = f.from_q16(m, "rough", rough);
    let one = f.constant(m, "one", 1.0);
    let fss90 = f.mul(m, "fss90", lh2, rough);
    let fm1 = f.sub(m, "fss90_m1", fss90, one);
    let xl = f.sub(m, "one_minus_nl", one, h.nl);
    let xv = f.sub(m, "one_minus_nv", one, h.nv);
    let xl5 = pow5(m, f, "xl", xl);
    let xv5 = pow5(m, f, "xv", xv);
    let fl = f.fma(m, "fl", fm1, xl5, one);
    let fv = f.fma(m, "fv", fm1, xv5, one);
    let fss = f.mul(m, "fss", fl, fv);
    let sum = f.add(m, "nl_plus_nv", h.nl, h.nv);
    let inv = f.recip(m, "inv_sum", RecipOp::Rcp, sum);
    let half_c = f.constant(m, "half", 0.5);
    let w = f.sub(m, "w", inv, half_c);
    let y = f.fma(m, "y", fss, w, half_c);
    let c = f.constant(m, "scale", (1.25 / PI) as f32);
    let out = f.mul(m, "subsurface", y, c);
    f.to_q16(m, "subsurface_fixed", out)
}

/// The subsurface unit: never stalls.
pub fn subsurface_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    single_result_unit(m, req, STAGES, subsurface_eval)
}

/// The pipe of subsurface ([`pbru_pipe`](super::pbru_pipe) for a real unit), as its own module.
pub fn subsurface_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, subsurface_latency() + 2, req, |m, r| {
        m.child("subsurface_unit", &(), r, |m, _, r| subsurface_unit(m, r))
    })
}

/// Stand-alone subsurface pipe (catalogue `pipe_subsurface`): stream `req` ([`PipeReq`]) →
/// stream `resp` ([`PipeResp`]), plus `busy`.
///
/// ```
/// use rendergen_rtl::pbru::pipes::subsurface::pipe_subsurface_top;
/// assert_eq!(pipe_subsurface_top().unwrap().top().name, "pipe_subsurface");
/// ```
pub fn pipe_subsurface_top() -> Result<Design, ElabErrors> {
    super::pipe_top("pipe_subsurface", subsurface_pipe)
}
