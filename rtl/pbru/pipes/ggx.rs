//! The GGX pipeline (D4, MaterialX `mx_ggx_NDF` and `mx_ggx_smith_G2`): `GGX` pops `N V L α`
//! and pushes `f = D·G2 / (4·NL·NV)` with `D = α²/(π·(NH²(α² − 1) + 1)²)`, the
//! height-correlated `G2 = 2·NL·NV / (NV·λL + NL·λV)`, `λX = √(α² + (1 − α²)·NX²)`,
//! `H = normalize(L + V)`. α is MaterialX's GGX α (the `roughness` input of `dielectric_bsdf`,
//! isotropic), not the artist's roughness (α = roughness² in MaterialX's `mx_roughness_*`).
//! Vector components are clamped to [−2, 2] (D4's are unit length); `GGX_DIR` is still the
//! test pipeline's (issue 11 §2 step 4).
//!
//! # Datapath (the golden model `rendergen_sim::models::pbru::shading::ggx` follows it)
//! [`half`]: `NL`, `NV` and `u = 1 − NH²` (exact integer dot products for `u`). Then
//! `t = fma(α², 1 − u, u)` (= `NH²(α² − 1) + 1`, both terms ≥ 0, no cancellation at the
//! peak), `D/2 = α²·rcp(2π·t²)`, `den = fma(NV, λL, NL·λV)`, `f = (D/2)·rcp(den)` (`NL·NV`
//! cancels against `G2`'s numerator), to Q16.16, saturating.
//!
//! # Ports, timing, cost
//! [`ggx_pipe`] is the PBRU pipe; [`pipe_ggx_top`] its stand-alone design. Latency
//! [`ggx_latency`] = 52 (51 stages and the FIFO's cycle), initiation interval 1. Cost (`cargo run
//! --release -p rendergen-gen -- synth pipe_ggx --per-module`, Yosys generic, unflattened,
//! measured): 370,448 cells, 38,240 flip-flops, 65 gate levels: 21 FMA datapaths (169k), five
//! `recip` (110k), the unit's integer dot products, stage and delay registers (76k cells, 30k
//! flops, including the GGX_DIR stand-in's 128-bit result carried 51 stages), the 54-entry
//! output FIFO (17k cells, 8k flops).

use super::shading::{half, Flow, RecipOp, Val};
use super::test::test_function;
use super::{pipe_around, word};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};
use rendergen_isa::Opcode;
use std::f64::consts::PI;

/// Stages of the unit.
const STAGES: u32 = 51;

/// Pipe latency of GGX: its stages and the output FIFO's cycle.
pub fn ggx_latency() -> u32 {
    STAGES + 1
}

/// The eval datapath: `f` (Q16.16).
#[name_lets]
pub fn ggx_eval(m: &mut Module, f: &mut Flow, args: Sig) -> Val {
    let h = half(m, f, args);
    let alpha = f.value("alpha_fixed", word(args, 9), 0);
    let alpha = f.from_q16(m, "alpha", alpha);
    let alpha2 = f.mul(m, "alpha2", alpha, alpha);
    let one = f.constant(m, "one", 1.0);
    let nh2 = f.sub(m, "nh2", one, h.u);
    let t = f.fma(m, "ndf_t", alpha2, nh2, h.u);
    let t2 = f.mul(m, "ndf_t2", t, t);
    let two_pi = f.constant(m, "two_pi", (2.0 * PI) as f32);
    let ndf_den = f.mul(m, "ndf_den", two_pi, t2);
    let ndf_inv = f.recip(m, "ndf_inv", RecipOp::Rcp, ndf_den);
    let half_d = f.mul(m, "half_d", alpha2, ndf_inv);
    let om = f.sub(m, "one_minus_alpha2", one, alpha2);
    let nl2 = f.mul(m, "nl2", h.nl, h.nl);
    let nv2 = f.mul(m, "nv2", h.nv, h.nv);
    let lambda_l = f.fma(m, "lambda_l2", om, nl2, alpha2);
    let lambda_v = f.fma(m, "lambda_v2", om, nv2, alpha2);
    let lambda_l = f.recip(m, "lambda_l", RecipOp::Sqrt, lambda_l);
    let lambda_v = f.recip(m, "lambda_v", RecipOp::Sqrt, lambda_v);
    let p = f.mul(m, "g_nl_lv", h.nl, lambda_v);
    let den = f.fma(m, "g_den", h.nv, lambda_l, p);
    let inv = f.recip(m, "g_inv", RecipOp::Rcp, den);
    let out = f.mul(m, "ggx", half_d, inv);
    f.to_q16(m, "ggx_fixed", out)
}

/// The GGX unit: never stalls.
#[name_lets]
pub fn ggx_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let mut f = Flow::new(m, valid);
    let value = ggx_eval(m, &mut f, d.args);
    // GGX_DIR: the contract's test function until its datapath is built (issue 11 §2 step 4).
    let stand_in = test_function(m, &d);
    let stand_in = f.value("dir_stand_in", stand_in, 0);
    let is_dir = f.value("is_dir", d.op.eq(Opcode::GgxDir as u64), 0);
    let words: Vec<Val> = (0..4u32)
        .map(|i| {
            let name = format!("result_{i}");
            if i == 0 {
                f.comb(m, &name, &[is_dir, stand_in, value], |_, x| {
                    x[0].mux(x[1].slice(0, 32), x[2])
                })
            } else {
                f.comb(m, &name, &[is_dir, stand_in], |m, x| {
                    x[0].mux(x[1].slice(32 * i, 32), m.lit(0, 32))
                })
            }
        })
        .collect();
    let tag = f.value("tag", d.tag, 0);
    let (resp, stages) = f.finish(m, &words, tag);
    assert_eq!(stages, STAGES, "ggx stages");
    resp
}

/// The pipe of GGX ([`pbru_pipe`](super::pbru_pipe) for a real unit), as its own module.
pub fn ggx_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, ggx_latency() + 2, req, |m, r| {
        m.child("ggx_unit", &(), r, |m, _, r| ggx_unit(m, r))
    })
}

/// Stand-alone GGX pipe (catalogue `pipe_ggx`): stream `req` ([`PipeReq`]) → stream `resp`
/// ([`PipeResp`]), plus `busy`.
///
/// ```
/// use rendergen_rtl::pbru::pipes::ggx::pipe_ggx_top;
/// assert_eq!(pipe_ggx_top().unwrap().top().name, "pipe_ggx");
/// ```
pub fn pipe_ggx_top() -> Result<Design, ElabErrors> {
    super::pipe_top("pipe_ggx", ggx_pipe)
}
