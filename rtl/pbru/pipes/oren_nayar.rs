//! The Oren-Nayar pipeline (D4, MaterialX `mx_oren_nayar_diffuse`, qualitative): one pipe, two
//! opcodes, told apart by the request's `op` (both datapaths run side by side; the result is
//! chosen at the end).
//! * `OREN_NAYAR` pops `N V L rough` and pushes `f = (A + B·t)/π`: `s = L·V − NL·NV`,
//!   `t = s / max(NL, NV)` if `s > 0` (and `max(NL, NV) > 0`) else 0, `σ² = rough²`,
//!   `A = 1 − 0.5·σ²/(σ² + 0.33)`, `B = 0.45·σ²/(σ² + 0.09)`. Exactly 1/π (20861 as Q16.16) at
//!   roughness 0.
//! * `OREN_NAYAR_DIR` pops `N ξ1 ξ2` and pushes `L pdf`: the cosine-weighted direction
//!   `(√ξ1·cos 2πξ2, √ξ1·sin 2πξ2, √(1 − ξ1))` in the tangent frame of N (Duff et al. 2017,
//!   "Building an orthonormal basis, revisited": `σ = sign(N.z)`, `a = −1/(σ + N.z)`,
//!   `b = N.x·N.y·a`, `T = (1 + σ·N.x²·a, σ·b, −σ·N.x)`, `B = (b, σ + N.y²·a, −N.y)`),
//!   `L = x·T + y·B + z·N`, and `pdf = z/π` (= N·L/π). ξ1 is clamped to [0, 1].
//!
//! Vectors are taken as given (D4: unit length; they are not normalised here).
//!
//! # Datapath (the golden model `rendergen_sim::models::pbru::shading::oren_nayar` and
//! `oren_nayar_dir` follow it operation for operation)
//! Eval: the words to binary32; the three dot products (`mul`, `fma`, `fma`); `s = fma(−NL, NV,
//! LV)`; `t = s · rcp(max(NL, NV))`; `σ² = r·r`; `q1 = σ²·rcp(σ² + 0.33)`,
//! `q2 = σ²·rcp(σ² + 0.09)`; `A/π = fma(−0.5/π, q1, 1/π)`, `B/π = (0.45/π)·q2`;
//! `f = fma(B/π, t, A/π)`; to Q16.16.
//! Direction: `r = √ξ1`, `z = √(1 − ξ1)`, `φ = 2π·ξ2`, `cos φ`, `sin φ` (the transcendental unit),
//! the frame as above (one `rcp`), `L = fma(z, N, fma(y, B, x·T))` per component, `pdf = z·(1/π)`.
//!
//! # Ports, timing, cost
//! [`oren_nayar_pipe`] is the PBRU pipe; [`pipe_oren_nayar_top`] its stand-alone design.
//! Latency [`oren_nayar_latency`] = 36 (35 stages and the FIFO's cycle), initiation interval
//! one. Cost (`cargo run --release -p rendergen-gen -- synth pipe_oren_nayar --per-module`, Yosys
//! generic, unflattened, measured): 571,020 cells, 45,860 flip-flops, 62 gate levels: 40 FMA
//! datapaths (unflattened, a multiply-only FMA keeps its whole aligner: ~320k cells), six
//! `recip` (131k), two sin/cos (36k), the unit's stage and delay registers (65k cells, 40k
//! flops), the 38-entry output FIFO (12k cells, 5.8k flops); both opcodes' datapaths are
//! built side by side.

use super::shading::{clamp01, fmax, positive, Flow, RecipOp, Val};
use super::{pipe_around, word};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};
use rendergen_isa::Opcode;
use std::f64::consts::PI;

/// Stages of the unit: the longer datapath (direction) and the result select.
const STAGES: u32 = 35;

/// Pipe latency of Oren-Nayar: its stages and the output FIFO's cycle.
pub fn oren_nayar_latency() -> u32 {
    STAGES + 1
}

/// The eval datapath: `f` (Q16.16) as a value of `f`.
#[name_lets]
fn eval(m: &mut Module, f: &mut Flow, args: Sig) -> Val {
    let n = f.vec_from_q16(m, "n", args, 0);
    let v = f.vec_from_q16(m, "v", args, 3);
    let l = f.vec_from_q16(m, "l", args, 6);
    let rough = f.value("rough_fixed", word(args, 9), 0);
    let rough = f.from_q16(m, "rough", rough);
    let nl = f.dot(m, "nl", n, l);
    let nv = f.dot(m, "nv", n, v);
    let lv = f.dot(m, "lv", l, v);
    let neg_nl = f.neg(m, "neg_nl", nl);
    let s = f.fma(m, "s", neg_nl, nv, lv);
    let larger = f.comb(m, "larger", &[nl, nv], |m, x| fmax(m, x[0], x[1]));
    let inv = f.recip(m, "inv_larger", RecipOp::Rcp, larger);
    let ratio = f.mul(m, "ratio", s, inv);
    let t = f.comb(m, "t", &[s, larger, ratio], |m, x| {
        (positive(x[0]) & positive(x[1])).mux(x[2], m.lit(0, 32))
    });
    let sigma2 = f.mul(m, "sigma2", rough, rough);
    let c033 = f.constant(m, "c033", 0.33);
    let c009 = f.constant(m, "c009", 0.09);
    let d1 = f.add(m, "den_a", sigma2, c033);
    let d2 = f.add(m, "den_b", sigma2, c009);
    let i1 = f.recip(m, "inv_den_a", RecipOp::Rcp, d1);
    let i2 = f.recip(m, "inv_den_b", RecipOp::Rcp, d2);
    let q1 = f.mul(m, "q_a", sigma2, i1);
    let q2 = f.mul(m, "q_b", sigma2, i2);
    let half_pi = f.constant(m, "neg_half_over_pi", (-0.5 / PI) as f32);
    let inv_pi = f.constant(m, "inv_pi", (1.0 / PI) as f32);
    let b_coef = f.constant(m, "b_over_pi", (0.45 / PI) as f32);
    let a = f.fma(m, "a_over_pi", half_pi, q1, inv_pi);
    let b = f.mul(m, "b_over_pi", b_coef, q2);
    let out = f.fma(m, "oren_nayar", b, t, a);
    f.to_q16(m, "oren_nayar_fixed", out)
}

/// The direction datapath: `L` (three Q16.16 words) and `pdf`.
#[name_lets]
fn direction(m: &mut Module, f: &mut Flow, args: Sig) -> [Val; 4] {
    let n = f.vec_from_q16(m, "dn", args, 0);
    let xi1 = f.value("xi1_fixed", word(args, 3), 0);
    let xi2 = f.value("xi2_fixed", word(args, 4), 0);
    let xi1 = f.from_q16(m, "xi1", xi1);
    let xi1 = f.comb(m, "xi1_clamped", &[xi1], |m, x| clamp01(m, x[0]));
    let xi2 = f.from_q16(m, "xi2", xi2);
    let one = f.constant(m, "one", 1.0);
    let radius = f.recip(m, "radius", RecipOp::Sqrt, xi1);
    let z2 = f.sub(m, "z2", one, xi1);
    let z = f.recip(m, "z", RecipOp::Sqrt, z2);
    let two_pi = f.constant(m, "two_pi", (2.0 * PI) as f32);
    let phi = f.mul(m, "phi", two_pi, xi2);
    let cos = f.sin_cos(m, "cos_phi", phi, true);
    let sin = f.sin_cos(m, "sin_phi", phi, false);
    let lx = f.mul(m, "local_x", radius, cos);
    let ly = f.mul(m, "local_y", radius, sin);
    let (tangent, bitangent) = frame(m, f, n);
    let mut out: Vec<Val> = (0..3)
        .map(|i| {
            let c = ["x", "y", "z"][i];
            let p = f.mul(m, &format!("dir_t_{c}"), lx, tangent[i]);
            let p = f.fma(m, &format!("dir_tb_{c}"), ly, bitangent[i], p);
            let d = f.fma(m, &format!("dir_{c}"), z, n[i], p);
            f.to_q16(m, &format!("dir_{c}_fixed"), d)
        })
        .collect();
    let inv_pi = f.constant(m, "dir_inv_pi", (1.0 / PI) as f32);
    let pdf = f.mul(m, "pdf", z, inv_pi);
    out.push(f.to_q16(m, "pdf_fixed", pdf));
    [out[0], out[1], out[2], out[3]]
}

/// The tangent and bitangent of unit `n` (Duff et al. 2017, see the module documentation).
pub fn frame(m: &mut Module, f: &mut Flow, n: [Val; 3]) -> ([Val; 3], [Val; 3]) {
    // σ = sign(N.z) as ±1.0 (+1 for +0).
    let sign = f.comb(m, "frame_sign", &[n[2]], |m, x| {
        x[0].msb()
            .mux(m.lit(0xBF80_0000, 32), m.lit(0x3F80_0000, 32))
    });
    let den = f.add(m, "frame_den", sign, n[2]);
    let inv = f.recip(m, "frame_inv", RecipOp::Rcp, den);
    let a = f.neg(m, "frame_a", inv);
    let sa = f.comb(m, "frame_sa", &[a, sign], |_, x| {
        x[0] ^ (x[1] & (1u64 << 31))
    });
    let nxy = f.mul(m, "frame_nxy", n[0], n[1]);
    let b = f.mul(m, "frame_b", nxy, a);
    let nx2 = f.mul(m, "frame_nx2", n[0], n[0]);
    let ny2 = f.mul(m, "frame_ny2", n[1], n[1]);
    let one = f.constant(m, "frame_one", 1.0);
    let tx = f.fma(m, "tangent_x", nx2, sa, one);
    let ty = f.comb(m, "tangent_y", &[b, sign], |_, x| {
        x[0] ^ (x[1] & (1u64 << 31))
    });
    let tz = f.comb(m, "tangent_z", &[n[0], sign], |_, x| {
        x[0] ^ (x[1] & (1u64 << 31)) ^ (1u64 << 31)
    });
    let by = f.fma(m, "bitangent_y", ny2, a, sign);
    let bz = f.neg(m, "bitangent_z", n[1]);
    ([tx, ty, tz], [b, by, bz])
}

/// The Oren-Nayar unit (both opcodes): never stalls.
#[name_lets]
pub fn oren_nayar_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let mut f = Flow::new(m, valid);
    let value = eval(m, &mut f, d.args);
    let dir = direction(m, &mut f, d.args);
    let is_dir = f.value("is_dir", d.op.eq(Opcode::OrenNayarDir as u64), 0);
    let words: Vec<Val> = (0..4)
        .map(|i| {
            let name = format!("result_{i}");
            let eval_word = if i == 0 { Some(value) } else { None };
            match eval_word {
                Some(e) => f.comb(m, &name, &[is_dir, dir[0], e], |_, x| x[0].mux(x[1], x[2])),
                None => f.comb(m, &name, &[is_dir, dir[i]], |m, x| {
                    x[0].mux(x[1], m.lit(0, 32))
                }),
            }
        })
        .collect();
    let tag = f.value("tag", d.tag, 0);
    let (resp, stages) = f.finish(m, &words, tag);
    assert_eq!(stages, STAGES, "oren_nayar stages");
    resp
}

/// The pipe of Oren-Nayar ([`pbru_pipe`](super::pbru_pipe) for a real unit), as its own module.
pub fn oren_nayar_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, oren_nayar_latency() + 2, req, |m, r| {
        m.child("oren_nayar_unit", &(), r, |m, _, r| oren_nayar_unit(m, r))
    })
}

/// Stand-alone Oren-Nayar pipe (catalogue `pipe_oren_nayar`): stream `req` ([`PipeReq`]) →
/// stream `resp` ([`PipeResp`]), plus `busy`.
///
/// ```
/// use rendergen_rtl::pbru::pipes::oren_nayar::pipe_oren_nayar_top;
/// assert_eq!(pipe_oren_nayar_top().unwrap().top().name, "pipe_oren_nayar");
/// ```
pub fn pipe_oren_nayar_top() -> Result<Design, ElabErrors> {
    super::pipe_top("pipe_oren_nayar", oren_nayar_pipe)
}
