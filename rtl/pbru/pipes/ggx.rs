//! The GGX pipeline (D4, MaterialX `mx_ggx_NDF` and `mx_ggx_smith_G2`): `GGX` pops `N V L α`
//! and pushes `f = D·G2 / (4·NL·NV)` with `D = α²/(π·(NH²(α² − 1) + 1)²)`, the
//! height-correlated `G2 = 2·NL·NV / (NV·λL + NL·λV)`, `λX = √(α² + (1 − α²)·NX²)`,
//! `H = normalize(L + V)`. α is MaterialX's GGX α (the `roughness` input of `dielectric_bsdf`,
//! isotropic), not the artist's roughness (α = roughness² in MaterialX's `mx_roughness_*`).
//! Vector components are clamped to [−2, 2] (D4's are unit length).
//!
//! `GGX_DIR` pops `N V α ξ1 ξ2` and pushes `L pdf`: MaterialX 1.39's
//! `mx_ggx_importance_sample_VNDF` (spherical-cap VNDF sampling, Dupuy and Benyoub 2023) with
//! `Xi = (ξ1, ξ2)` in the tangent frame of N ([`frame`], Duff et al., as `OREN_NAYAR_DIR`),
//! `L = reflect(−V, H)`, and MaterialX's pdf `D·G1(NV)/(4·NV)` (`rtl/isa/ISA.md`). One pipe,
//! two opcodes told apart by the request's `op`: both datapaths run side by side on every
//! request and the result is chosen at the end, so any mix of GGX and GGX_DIR streams at one
//! request per clock, in order.
//!
//! # Datapath (the golden model `rendergen_sim::models::pbru::shading::ggx` follows it)
//! [`half`]: `NL`, `NV` and `u = 1 − NH²` (exact integer dot products for `u`). Then
//! `t = fma(α², 1 − u, u)` (= `NH²(α² − 1) + 1`, both terms ≥ 0, no cancellation at the
//! peak), `D/2 = α²·rcp(2π·t²)`, `den = fma(NV, λL, NL·λV)`, `f = (D/2)·rcp(den)` (`NL·NV`
//! cancels against `G2`'s numerator), to Q16.16, saturating.
//!
//! Direction ([`ggx_dir`] in the child module [`ggx_dir_unit`], model
//! `…::shading::ggx_dir`): `Vt = (V·T, V·B, N·V)`;
//! `Vh = (α·Vt.x, α·Vt.y, NV)·rsqrt(…)`; the cap's `Hh.z = (1 − ξ2)(1 + Vh.z)` (`1 − ξ2`
//! exact in integers) and `sin²θ = ξ2(1 + Vh.z)·(Hh.z + |Vh.xy|²/(1 + Vh.z))` (no
//! cancellation when Vh ≈ N), `Hh.xy = fma(sinθ, (cos φ, sin φ), Vh.xy)`, `φ = 2π·ξ1`;
//! `Hs = (α·Hh.x, α·Hh.y, Hh.z)`, `H = Hs·rsqrt(|Hs|²)`; `L = fma(2(Vt·H), H_world, −V)`;
//! `pdf = (|Hs|²/|Hh|²)²·rcp(2π·α²·(NV + λV))`. Values needed ~100 stages later (N, V, the
//! frame, Vt) travel as buses, one register per stage each, which keeps `ggx_dir_unit.v`
//! under 6,000 lines.
//!
//! # Ports, timing, cost
//! [`ggx_pipe`] is the PBRU pipe; [`pipe_ggx_top`] its stand-alone design. Latency
//! [`ggx_latency`] = 130 (129 stages, set by the direction datapath, and the FIFO's cycle; the
//! eval datapath alone is 51), initiation interval 1. Cost (`cargo run --release -p
//! rendergen-gen -- synth pipe_ggx --per-module`, Yosys generic, unflattened, measured):
//! 1,298,847 cells, 162,792 flip-flops, 65 gate levels: `ggx_dir_unit` 910,506 cells with its
//! children (its own stage and bus registers: 63k cells, 62k flops); over the whole pipe 90 FMA
//! datapaths (unflattened, a multiply-only FMA keeps its whole aligner: align, sum, normalise,
//! frame, round ≈ 724k cells), 13 `recip` (284k), two sin/cos (41k), `ggx_unit`'s own integer
//! dot products and registers (47k cells, 11k flops), the 131-entry output FIFO (40k cells, 20k
//! flops). Before GGX_DIR's datapath (eval only, the
//! test function as a stand-in, latency 52), measured the same way: 370,194 cells, 38,241
//! flip-flops, 65 gate levels.

use super::oren_nayar::frame;
use super::shading::{clamp2, half, Flow, RecipOp, Val};
use super::{pipe_around, word};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp};
use rendergen_hdl::{cat_lsb_first, name_lets, Design, ElabErrors, Io, Module, Sig, Stream};
use rendergen_isa::Opcode;
use std::f64::consts::PI;

/// Stages of the unit.
const STAGES: u32 = DIR_STAGES;

/// Stages of the direction datapath ([`ggx_dir_unit`]); the eval datapath takes 51.
const DIR_STAGES: u32 = 129;

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

/// `2·x` exactly (binary32, combinational): the exponent field plus one; zero and subnormal
/// give a signed zero, infinity and NaN pass, the largest exponent overflows to ±inf.
fn times2(m: &mut Module, x: Sig) -> Sig {
    let e = x.bits(30, 23);
    let sign = x & (1u64 << 31);
    let inf = sign | m.lit(0x7F80_0000, 32);
    let up = x + (1u64 << 23);
    e.eq(0).mux(sign, e.eq(255).mux(x, e.eq(254).mux(inf, up)))
}

/// Binary32 `x` with a negative sign raised to +0 (combinational).
fn nonneg(m: &mut Module, x: Sig) -> Sig {
    x.msb().mux(m.lit(0, 32), x)
}

/// Several 32-bit values as one bus, so that carrying them takes one register per stage.
fn pack(m: &mut Module, f: &mut Flow, name: &str, vals: &[Val]) -> Val {
    f.comb(m, name, vals, |_, x| cat_lsb_first(x))
}

/// Word `i` of the bus `bus`, at `level` (through the bus's delay registers).
fn unpack(m: &mut Module, f: &mut Flow, name: &str, bus: Val, i: u32, level: u32) -> Val {
    let word = f.at(m, bus, level).slice(32 * i, 32);
    f.value(name, word, level)
}

/// A binary32 constant made at `level` (so it is never carried by registers).
fn constant_at(m: &mut Module, f: &mut Flow, name: &str, x: f32, level: u32) -> Val {
    let c = m.lit(x.to_bits() as u64, 32);
    f.value(name, c, level)
}

/// The direction datapath (`GGX_DIR`: `N V α ξ1 ξ2 → L pdf`, four Q16.16 values), operation
/// for operation the golden model `rendergen_sim::models::pbru::shading::ggx_dir`. Values
/// needed much later (N and V, the frame, the view in the frame, cos/sin φ, ξ2) travel as
/// buses (`pack`), one register per stage for each bus.
#[name_lets]
pub fn ggx_dir(m: &mut Module, f: &mut Flow, args: Sig) -> [Val; 4] {
    let comps: Vec<Val> = (0..6)
        .map(|i| {
            let (vec, c) = (["dn", "dv"][i / 3], ["x", "y", "z"][i % 3]);
            let w = clamp2(m, word(args, i as u32));
            let w = f.value(&format!("{vec}_{c}_clamped"), w, 0);
            f.from_q16(m, &format!("{vec}_{c}"), w)
        })
        .collect();
    let n = [comps[0], comps[1], comps[2]];
    let v = [comps[3], comps[4], comps[5]];
    let normal_view = pack(m, f, "normal_view", &comps);
    let alpha = f.value("dir_alpha_fixed", word(args, 6), 0);
    let alpha = f.from_q16(m, "dir_alpha", alpha);
    let xi1 = f.value("xi1_fixed", word(args, 7), 0);
    let xi1 = f.from_q16(m, "xi1", xi1);
    let two_pi = constant_at(m, f, "dir_two_pi", (2.0 * PI) as f32, f.level(xi1));
    let phi = f.mul(m, "phi", two_pi, xi1);
    let cos_phi = f.sin_cos(m, "cos_phi", phi, true);
    let sin_phi = f.sin_cos(m, "sin_phi", phi, false);
    let cos_sin_phi = pack(m, f, "cos_sin_phi", &[cos_phi, sin_phi]);
    // ξ2 clamped to [0, 1] and 1 − ξ2, exactly, as 18-bit Q16.16.
    let xi2_word = word(args, 8);
    let xi2_clamped = xi2_word.slt(0).mux(
        m.lit(0, 18),
        xi2_word
            .sgt(0x1_0000)
            .mux(m.lit(0x1_0000, 18), xi2_word.bits(17, 0)),
    );
    let one_fixed = m.lit(0x1_0000, 18);
    let rest = one_fixed - xi2_clamped;
    let xi2 = f.value("xi2_fixed", xi2_clamped, 0);
    let xi2 = f.from_q16(m, "xi2", xi2);
    let rest = f.value("one_minus_xi2_fixed", rest, 0);
    let one_minus_xi2 = f.from_q16(m, "one_minus_xi2", rest);
    let xi2_pair = pack(m, f, "xi2_pair", &[xi2, one_minus_xi2]);
    let (tangent, bitangent) = frame(m, f, n);
    let frame_bus = pack(
        m,
        f,
        "frame_bus",
        &[
            tangent[0],
            tangent[1],
            tangent[2],
            bitangent[0],
            bitangent[1],
            bitangent[2],
        ],
    );
    // V in the tangent frame: the z terms first (known first).
    let tdot = |m: &mut Module, f: &mut Flow, name: &str, x: [Val; 3]| {
        let z = f.mul(m, &format!("{name}_z"), v[2], x[2]);
        let zx = f.fma(m, &format!("{name}_zx"), v[0], x[0], z);
        f.fma(m, name, v[1], x[1], zx)
    };
    let vt_x = tdot(m, f, "view_t", tangent);
    let vt_y = tdot(m, f, "view_b", bitangent);
    let nv = f.dot(m, "dir_nv", n, v);
    let nv2 = f.mul(m, "dir_nv2", nv, nv);
    let view = pack(m, f, "view_bus", &[vt_x, vt_y, nv, alpha, nv2]);
    // The hemisphere configuration.
    let avx = f.mul(m, "stretched_vx", alpha, vt_x);
    let avy = f.mul(m, "stretched_vy", alpha, vt_y);
    let len2_x = f.fma(m, "stretched_len2_x", avx, avx, nv2);
    let len2 = f.fma(m, "stretched_len2", avy, avy, len2_x);
    let inv_len = f.recip(m, "stretched_inv_len", RecipOp::Rsqrt, len2);
    let nv_at = unpack(m, f, "vh_nv", view, 2, f.level(inv_len));
    let vh_x = f.mul(m, "vh_x", avx, inv_len);
    let vh_y = f.mul(m, "vh_y", avy, inv_len);
    let vh_z = f.mul(m, "vh_z", nv_at, inv_len);
    let vh_xy = pack(m, f, "vh_xy", &[vh_x, vh_y]);
    // The spherical cap.
    let one = constant_at(m, f, "dir_one", 1.0, f.level(vh_z));
    let opz = f.add(m, "one_plus_vh_z", one, vh_z);
    let vh_xy2_x = f.mul(m, "vh_xy2_x", vh_x, vh_x);
    let vh_xy2 = f.fma(m, "vh_xy2", vh_y, vh_y, vh_xy2_x);
    let inv_opz = f.recip(m, "inv_one_plus_vh_z", RecipOp::Rcp, opz);
    let omz = f.mul(m, "one_minus_vh_z", vh_xy2, inv_opz);
    let xi2_at = unpack(m, f, "cap_xi2", xi2_pair, 0, f.level(opz));
    let one_minus_xi2_at = unpack(m, f, "cap_one_minus_xi2", xi2_pair, 1, f.level(opz));
    let hz = f.mul(m, "hh_z_raw", one_minus_xi2_at, opz);
    let hz = f.comb(m, "hh_z", &[hz], |m, x| nonneg(m, x[0]));
    let s2_a = f.mul(m, "sin2_theta_a", xi2_at, opz);
    let s2_b = f.add(m, "sin2_theta_b", hz, omz);
    let s2 = f.mul(m, "sin2_theta_raw", s2_a, s2_b);
    let s2 = f.comb(m, "sin2_theta", &[s2], |m, x| nonneg(m, x[0]));
    let sin_theta = f.recip(m, "sin_theta", RecipOp::Sqrt, s2);
    let at = f.level(sin_theta);
    let cos_at = unpack(m, f, "cap_cos_phi", cos_sin_phi, 0, at);
    let sin_at = unpack(m, f, "cap_sin_phi", cos_sin_phi, 1, at);
    let vh_x_at = unpack(m, f, "cap_vh_x", vh_xy, 0, at);
    let vh_y_at = unpack(m, f, "cap_vh_y", vh_xy, 1, at);
    let hh_x = f.fma(m, "hh_x", sin_theta, cos_at, vh_x_at);
    let hh_y = f.fma(m, "hh_y", sin_theta, sin_at, vh_y_at);
    // Back to the ellipsoid configuration.
    let at = f.level(hh_x);
    let alpha_at = unpack(m, f, "late_alpha", view, 3, at);
    let hs_x = f.mul(m, "hs_x", alpha_at, hh_x);
    let hs_y = f.mul(m, "hs_y", alpha_at, hh_y);
    let hz2 = f.mul(m, "hh_z2", hz, hz);
    let hs_len2_x = f.fma(m, "hs_len2_x", hs_x, hs_x, hz2);
    let hs_len2 = f.fma(m, "hs_len2", hs_y, hs_y, hs_len2_x);
    let hh_len2_x = f.fma(m, "hh_len2_x", hh_x, hh_x, hz2);
    let hh_len2 = f.fma(m, "hh_len2", hh_y, hh_y, hh_len2_x);
    let inv_hs = f.recip(m, "inv_hs_len", RecipOp::Rsqrt, hs_len2);
    let h = [
        f.mul(m, "half_x", hs_x, inv_hs),
        f.mul(m, "half_y", hs_y, inv_hs),
        f.mul(m, "half_z", hz, inv_hs),
    ];
    // L = 2(V·H)H − V in world space.
    let at = f.level(h[0]);
    let vt: Vec<Val> = (0..3)
        .map(|i| unpack(m, f, &format!("late_view_{i}"), view, i as u32, at))
        .collect();
    let vdoth = f.dot(m, "v_dot_h", [vt[0], vt[1], vt[2]], h);
    let twice_vdoth = f.comb(m, "twice_v_dot_h", &[vdoth], |m, x| times2(m, x[0]));
    let mut out: Vec<Val> = (0..3)
        .map(|i| {
            let c = ["x", "y", "z"][i];
            let t_i = unpack(m, f, &format!("late_tangent_{c}"), frame_bus, i as u32, at);
            let p = f.mul(m, &format!("half_world_t_{c}"), h[0], t_i);
            let at = f.level(p);
            let b_i = unpack(
                m,
                f,
                &format!("late_bitangent_{c}"),
                frame_bus,
                3 + i as u32,
                at,
            );
            let p = f.fma(m, &format!("half_world_tb_{c}"), h[1], b_i, p);
            let at = f.level(p);
            let n_i = unpack(m, f, &format!("late_normal_{c}"), normal_view, i as u32, at);
            let hw = f.fma(m, &format!("half_world_{c}"), h[2], n_i, p);
            let at = f.level(hw).max(f.level(twice_vdoth));
            let v_i = unpack(
                m,
                f,
                &format!("late_view_{c}"),
                normal_view,
                3 + i as u32,
                at,
            );
            let neg_v = f.neg(m, &format!("neg_v_{c}"), v_i);
            let l = f.fma(m, &format!("light_{c}"), twice_vdoth, hw, neg_v);
            f.to_q16(m, &format!("light_{c}_fixed"), l)
        })
        .collect();
    // pdf = D/(2(NV + λV)), D = |Hs|⁴/(π·α²·|Hh|⁴).
    let at = f.level(hh_x);
    let nv_late = unpack(m, f, "pdf_nv", view, 2, at);
    let nv2_late = unpack(m, f, "pdf_nv2", view, 4, at);
    let alpha2 = f.mul(m, "dir_alpha2", alpha_at, alpha_at);
    let one_late = constant_at(m, f, "pdf_one", 1.0, f.level(alpha2));
    let om = f.sub(m, "dir_one_minus_alpha2", one_late, alpha2);
    let lambda_v = f.fma(m, "dir_lambda_v2", om, nv2_late, alpha2);
    let lambda_v = f.recip(m, "dir_lambda_v", RecipOp::Sqrt, lambda_v);
    let two_pi_late = constant_at(m, f, "pdf_two_pi", (2.0 * PI) as f32, f.level(alpha2));
    let two_pi_alpha2 = f.mul(m, "two_pi_alpha2", two_pi_late, alpha2);
    let nv_lambda = f.add(m, "nv_plus_lambda_v", nv_late, lambda_v);
    let den = f.mul(m, "pdf_den", two_pi_alpha2, nv_lambda);
    let inv_hh = f.recip(m, "inv_hh_len2", RecipOp::Rcp, hh_len2);
    let ratio = f.mul(m, "ndf_ratio", hs_len2, inv_hh);
    let ratio2 = f.mul(m, "ndf_ratio2", ratio, ratio);
    let inv_den = f.recip(m, "inv_pdf_den", RecipOp::Rcp, den);
    let pdf = f.mul(m, "pdf", ratio2, inv_den);
    out.push(f.to_q16(m, "pdf_fixed", pdf));
    [out[0], out[1], out[2], out[3]]
}

/// The ports of [`ggx_dir_unit`]: the request's valid flag and arguments.
#[derive(Io)]
pub struct DirIn {
    /// Valid flag of the request.
    pub valid: Sig,
    /// The request's argument words.
    pub args: Sig,
}

/// The direction datapath as its own module: [`ggx_dir`] on `args`, the four result words
/// 129 cycles later (registers load every cycle).
pub fn ggx_dir_unit(m: &mut Module, i: DirIn) -> Vec<Sig> {
    let mut f = Flow::new(m, i.valid);
    let dir = ggx_dir(m, &mut f, i.args);
    let deepest = dir.iter().map(|v| f.level(*v)).max();
    assert_eq!(deepest, Some(DIR_STAGES), "ggx_dir stages");
    dir.iter().map(|v| f.at(m, *v, DIR_STAGES)).collect()
}

/// The GGX unit: never stalls.
#[name_lets]
pub fn ggx_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let mut f = Flow::new(m, valid);
    let value = ggx_eval(m, &mut f, d.args);
    let dir_in = DirIn {
        valid,
        args: d.args,
    };
    let dir_words = m.child("ggx_dir_unit", &(), dir_in, |m, _, i| ggx_dir_unit(m, i));
    let dir: Vec<Val> = (dir_words.iter().enumerate())
        .map(|(i, w)| f.value(&format!("dir_{i}"), *w, DIR_STAGES))
        .collect();
    // The opcode test travels with the tag (one register per stage for both).
    let is_dir = d.op.eq(Opcode::GgxDir as u64);
    let tag_width = d.tag.width();
    let tag_dir = f.value("tag_is_dir", cat_lsb_first(&[d.tag, is_dir]), 0);
    let tag_dir = f.at(m, tag_dir, DIR_STAGES);
    let is_dir = f.value("is_dir", tag_dir.msb(), DIR_STAGES);
    let tag = f.value("tag", tag_dir.bits(tag_width - 1, 0), DIR_STAGES);
    let words: Vec<Val> = (0..4)
        .map(|i| {
            let name = format!("result_{i}");
            if i == 0 {
                f.comb(m, &name, &[is_dir, dir[0], value], |_, x| {
                    x[0].mux(x[1], x[2])
                })
            } else {
                f.comb(m, &name, &[is_dir, dir[i]], |m, x| {
                    x[0].mux(x[1], m.lit(0, 32))
                })
            }
        })
        .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ggx_pipe_elaborates_with_its_stated_latency() {
        let design = pipe_ggx_top().unwrap();
        assert_eq!(design.top().name, "pipe_ggx");
    }
}
