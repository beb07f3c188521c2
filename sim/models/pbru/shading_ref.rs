//! The accuracy reference of the shading pipelines: D4's formulas (MaterialX pbrlib 1.39) in
//! f64 from the same Q16.16 inputs, written from the formulas, not from the binary32 model
//! ([`super::shading`]); and the error measure of issue 11 §2.

use crate::models::fp32::q16::q16_value;
use std::f64::consts::PI;

/// Three Q16.16 words as an f64 vector.
fn vec3(a: &[u32]) -> [f64; 3] {
    [q16_value(a[0]), q16_value(a[1]), q16_value(a[2])]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Issue 11 §2's bound: relative error ≤ 2⁻¹⁰ or absolute ≤ 2⁻¹⁴, whichever is larger.
pub fn within_bound(got: f64, want: f64) -> bool {
    let err = (got - want).abs();
    err <= (want.abs() * 2f64.powi(-10)).max(2f64.powi(-14))
}

/// The error of `got` against `want` as a multiple of the bound (≤ 1 passes).
pub fn bound_ratio(got: f64, want: f64) -> f64 {
    (got - want).abs() / (want.abs() * 2f64.powi(-10)).max(2f64.powi(-14))
}

/// `SCHLICK` in f64: `F = F0 + (F90 − F0)·clamp(1 − cos, 0, 1)⁵` per channel.
pub fn schlick(a: &[u32]) -> [f64; 3] {
    let cos = q16_value(a[6]);
    let x = (1.0 - cos).clamp(0.0, 1.0);
    std::array::from_fn(|c| {
        let (f0, f90) = (q16_value(a[c]), q16_value(a[3 + c]));
        f0 + (f90 - f0) * x.powi(5)
    })
}

/// `OREN_NAYAR` in f64 (D4): `(A + B·t)/π`.
pub fn oren_nayar(a: &[u32]) -> f64 {
    let (n, v, l) = (vec3(&a[0..3]), vec3(&a[3..6]), vec3(&a[6..9]));
    let (nl, nv) = (dot(n, l), dot(n, v));
    let s = dot(l, v) - nl * nv;
    let t = if s > 0.0 && nl.max(nv) > 0.0 {
        s / nl.max(nv)
    } else {
        0.0
    };
    let sigma2 = q16_value(a[9]).powi(2);
    let big_a = 1.0 - 0.5 * sigma2 / (sigma2 + 0.33);
    let big_b = 0.45 * sigma2 / (sigma2 + 0.09);
    (big_a + big_b * t) / PI
}

/// `OREN_NAYAR_DIR` in f64: the cosine-weighted sample of ξ (ξ1 clamped to [0, 1]) in the
/// frame of Duff et al. 2017 around N, and `N·L/π`.
pub fn oren_nayar_dir(a: &[u32]) -> [f64; 4] {
    let n = vec3(&a[0..3]);
    let (xi1, xi2) = (q16_value(a[3]).clamp(0.0, 1.0), q16_value(a[4]));
    let (r, phi) = (xi1.sqrt(), 2.0 * PI * xi2);
    let local = [r * phi.cos(), r * phi.sin(), (1.0 - xi1).sqrt()];
    let sign = if n[2] < 0.0 { -1.0 } else { 1.0 };
    let a_ = -1.0 / (sign + n[2]);
    let b = n[0] * n[1] * a_;
    let t = [1.0 + sign * n[0] * n[0] * a_, sign * b, -sign * n[0]];
    let bt = [b, sign + n[1] * n[1] * a_, -n[1]];
    let l: [f64; 3] = std::array::from_fn(|i| local[0] * t[i] + local[1] * bt[i] + local[2] * n[i]);
    [l[0], l[1], l[2], dot(n, l) / PI]
}

/// `GGX` in f64 (D4): `D·G2/(4·NL·NV)`, `H = normalize(L + V)`.
pub fn ggx(a: &[u32]) -> f64 {
    let (n, v, l) = (vec3(&a[0..3]), vec3(&a[3..6]), vec3(&a[6..9]));
    let alpha2 = q16_value(a[9]).powi(2);
    let (nl, nv) = (dot(n, l), dot(n, v));
    let s = [l[0] + v[0], l[1] + v[1], l[2] + v[2]];
    let len = dot(s, s).sqrt();
    let nh = dot(n, s) / len;
    let d = alpha2 / (PI * (nh * nh * (alpha2 - 1.0) + 1.0).powi(2));
    let g2 = 2.0 * nl * nv
        / (nv * (alpha2 + (1.0 - alpha2) * nl * nl).sqrt()
            + nl * (alpha2 + (1.0 - alpha2) * nv * nv).sqrt());
    d * g2 / (4.0 * nl * nv)
}

/// `NL`, `NV`, `NH`, `LH` of `N V L` words in f64 (`H = normalize(L + V)`; NH = LH = 0 for
/// L = −V).
fn angles(a: &[u32]) -> (f64, f64, f64, f64) {
    let (n, v, l) = (vec3(&a[0..3]), vec3(&a[3..6]), vec3(&a[6..9]));
    let s = [l[0] + v[0], l[1] + v[1], l[2] + v[2]];
    let len = dot(s, s).sqrt();
    let (nh, lh) = if len > 0.0 {
        (dot(n, s) / len, dot(l, s) / len)
    } else {
        (0.0, 0.0)
    };
    (dot(n, l), dot(n, v), nh, lh)
}

/// `SHEEN` in f64 (D4, Conty-Kulla; `1 − NH²` taken as ≥ 0).
pub fn sheen(a: &[u32]) -> f64 {
    let (nl, nv, nh, _) = angles(a);
    let r = q16_value(a[9]).max(0.005);
    let d = (2.0 + 1.0 / r) * (1.0 - nh * nh).max(0.0).powf(1.0 / (2.0 * r)) / (2.0 * PI);
    d / (4.0 * (nl + nv - nl * nv))
}

/// `SUBSURFACE` in f64 (D4, Burley 2012).
pub fn subsurface(a: &[u32]) -> f64 {
    let (nl, nv, _, lh) = angles(a);
    let fss90 = lh * lh * q16_value(a[9]);
    let fss =
        (1.0 + (fss90 - 1.0) * (1.0 - nl).powi(5)) * (1.0 + (fss90 - 1.0) * (1.0 - nv).powi(5));
    1.25 * (fss * (1.0 / (nl + nv) - 0.5) + 0.5) / PI
}

/// `CEL` in f64 with thresholds `thr` and values `val` (Q16.16): the value of the band
/// `N·L` falls in (`N·L` of the components clamped to [−2, 2], as the ports take them).
pub fn cel(a: &[u32], thr: [u32; 3], val: [u32; 4]) -> f64 {
    let c = |w: u32| q16_value(w).clamp(-2.0, 2.0);
    let nl: f64 = (0..3).map(|i| c(a[i]) * c(a[3 + i])).sum();
    let band = thr.iter().filter(|t| q16_value(**t) <= nl).count();
    q16_value(val[band])
}

/// `GGX_DIR` in f64: MaterialX 1.39's `mx_ggx_importance_sample_VNDF(Xi = (ξ1, ξ2), V, α)`
/// (spherical-cap VNDF sampling, Dupuy and Benyoub 2023) in the Duff et al. 2017 frame of N,
/// `L = −reflect(V, H)`, and its pdf `mx_ggx_NDF(H, α)·mx_ggx_smith_G1(NV, α)/(4·NV)` (as
/// MaterialX's environment sampling computes it), written literally; components clamped to
/// [−2, 2] and ξ2 to [0, 1] as the ports take them.
pub fn ggx_dir(a: &[u32]) -> [f64; 4] {
    let c = |w: u32| q16_value(w).clamp(-2.0, 2.0);
    let n = [c(a[0]), c(a[1]), c(a[2])];
    let v = [c(a[3]), c(a[4]), c(a[5])];
    let alpha = q16_value(a[6]);
    let (xi1, xi2) = (q16_value(a[7]), q16_value(a[8]).clamp(0.0, 1.0));
    let (t, bt) = duff_frame(n);
    let vt = [dot(v, t), dot(v, bt), dot(v, n)];
    let normalize = |x: [f64; 3]| {
        let len = dot(x, x).sqrt();
        [x[0] / len, x[1] / len, x[2] / len]
    };
    // mx_ggx_importance_sample_VNDF.
    let vh = normalize([vt[0] * alpha, vt[1] * alpha, vt[2]]);
    let phi = 2.0 * PI * xi1;
    let z = (1.0 - xi2) * (1.0 + vh[2]) - vh[2];
    let sin_theta = (1.0 - z * z).clamp(0.0, 1.0).sqrt();
    let cap = [sin_theta * phi.cos(), sin_theta * phi.sin(), z];
    let h = [cap[0] + vh[0], cap[1] + vh[1], cap[2] + vh[2]];
    let h = normalize([h[0] * alpha, h[1] * alpha, h[2].max(0.0)]);
    // L = −reflect(V, H) in world space.
    let hw: [f64; 3] = std::array::from_fn(|i| h[0] * t[i] + h[1] * bt[i] + h[2] * n[i]);
    let vdoth = dot(v, hw);
    let l: [f64; 3] = std::array::from_fn(|i| 2.0 * vdoth * hw[i] - v[i]);
    // mx_ggx_NDF(H, α)·mx_ggx_smith_G1(NV, α)/(4·NV).
    let nv = vt[2];
    let he2 = (h[0] * h[0] + h[1] * h[1]) / (alpha * alpha);
    let d = 1.0 / (PI * alpha * alpha * (he2 + h[2] * h[2]).powi(2));
    let tan2 = (1.0 - nv * nv) / (nv * nv);
    let g1 = 2.0 / (1.0 + (1.0 + alpha * alpha * tan2).sqrt());
    [l[0], l[1], l[2], d * g1 / (4.0 * nv)]
}

/// The tangent T and bitangent B of N (Duff et al. 2017), f64.
fn duff_frame(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let sign = if n[2] < 0.0 { -1.0 } else { 1.0 };
    let a = -1.0 / (sign + n[2]);
    let b = n[0] * n[1] * a;
    (
        [1.0 + sign * n[0] * n[0] * a, sign * b, -sign * n[0]],
        [b, sign + n[1] * n[1] * a, -n[1]],
    )
}

/// V of `GGX_DIR`'s words `N V …` in the tangent frame of N: `(V·T, V·B, V·N)`.
pub fn ggx_dir_tangent_view(a: &[u32]) -> [f64; 3] {
    let c = |w: u32| q16_value(w).clamp(-2.0, 2.0);
    let n = [c(a[0]), c(a[1]), c(a[2])];
    let v = [c(a[3]), c(a[4]), c(a[5])];
    let (t, b) = duff_frame(n);
    [dot(v, t), dot(v, b), dot(v, n)]
}
