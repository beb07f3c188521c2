//! The shading pipelines' golden model (issue 11 §2, D4), bit-exact with the RTL
//! (`rendergen_rtl::pbru::pipes`): each function performs the binary32 operations of
//! [`models::fp32`](crate::models::fp32) in the RTL's order, from and to Q16.16 words
//! ([`q16`](crate::models::fp32::q16)). The accuracy reference, an f64 evaluation of D4's formulas written
//! independently, is [`super::shading_ref`].

use crate::models::fp32::basic::{add, fma, mul, sub};
use crate::models::fp32::q16::{from_f32, to_f32};
use crate::models::fp32::recip::{rcp, rsqrt, sqrt};
use crate::models::fp32::transc::{cos, pow, sin};
use std::f64::consts::PI;

/// Sign bit of binary32.
const SIGN: u32 = 0x8000_0000;
/// 1.0.
const ONE: u32 = 0x3F80_0000;

/// A Q16.16 word as binary32.
fn word(w: u32) -> u32 {
    to_f32(w as i32 as i64)
}

/// Three Q16.16 words as a binary32 vector.
fn vec3(a: &[u32]) -> [u32; 3] {
    [word(a[0]), word(a[1]), word(a[2])]
}

/// `fma(a.z, b.z, fma(a.y, b.y, a.x·b.x))`, the RTL's dot product.
pub fn dot(a: [u32; 3], b: [u32; 3]) -> u32 {
    fma(a[2], b[2], fma(a[1], b[1], mul(a[0], b[0])))
}

/// The binary32 value above zero (not NaN).
fn positive(x: u32) -> bool {
    x >> 31 == 0 && x != 0
}

/// The larger of two binary32 values (not NaN), +0 above −0.
pub fn fmax(a: u32, b: u32) -> u32 {
    let key = |x: u32| if x >> 31 == 1 { !x } else { x ^ SIGN };
    if key(a) > key(b) {
        a
    } else {
        b
    }
}

/// A constant as the RTL rounds it.
fn k(x: f64) -> u32 {
    (x as f32).to_bits()
}

/// Binary32 `x` clamped to `[0, 1]` (`x` not NaN; −0 → +0), as the RTL's `clamp01`.
pub fn clamp01(x: u32) -> u32 {
    match () {
        _ if x >> 31 == 1 => 0,
        _ if x > 0x3F80_0000 => 0x3F80_0000,
        _ => x,
    }
}

/// `SCHLICK`: `a` = `F0(rgb) F90(rgb) cos` (Q16.16) → `F(rgb)`.
pub fn schlick(a: &[u32]) -> [u32; 3] {
    let cos = a[6] as i32 as i64;
    let x_fixed = (0x1_0000 - cos).clamp(0, 0x1_0000);
    let x = clamp01(to_f32(x_fixed));
    let x2 = mul(x, x);
    let x4 = mul(x2, x2);
    let x5 = mul(x4, x);
    std::array::from_fn(|c| {
        let (f0, f90) = (a[c] as i32 as i64, a[3 + c] as i32 as i64);
        let diff = to_f32(f90 - f0);
        from_f32(fma(diff, x5, to_f32(f0)))
    })
}

/// `OREN_NAYAR`: `a` = `N V L rough` (Q16.16) → `f`.
pub fn oren_nayar(a: &[u32]) -> u32 {
    let (n, v, l) = (vec3(&a[0..3]), vec3(&a[3..6]), vec3(&a[6..9]));
    let rough = word(a[9]);
    let (nl, nv, lv) = (dot(n, l), dot(n, v), dot(l, v));
    let s = fma(nl ^ SIGN, nv, lv);
    let larger = fmax(nl, nv);
    let ratio = mul(s, rcp(larger));
    let t = if positive(s) && positive(larger) {
        ratio
    } else {
        0
    };
    let sigma2 = mul(rough, rough);
    let q1 = mul(sigma2, rcp(add(sigma2, k(0.33))));
    let q2 = mul(sigma2, rcp(add(sigma2, k(0.09))));
    let a_pi = fma(k(-0.5 / PI), q1, k(1.0 / PI));
    let b_pi = mul(k(0.45 / PI), q2);
    from_f32(fma(b_pi, t, a_pi))
}

/// The tangent frame of `n` (Duff et al. 2017) as the RTL computes it: (T, B).
pub fn frame(n: [u32; 3]) -> ([u32; 3], [u32; 3]) {
    let sign = if n[2] >> 31 == 1 { ONE | SIGN } else { ONE };
    let a = rcp(add(sign, n[2])) ^ SIGN;
    let sa = a ^ (sign & SIGN);
    let b = mul(mul(n[0], n[1]), a);
    let tx = fma(mul(n[0], n[0]), sa, ONE);
    let by = fma(mul(n[1], n[1]), a, sign);
    (
        [tx, b ^ (sign & SIGN), n[0] ^ (sign & SIGN) ^ SIGN],
        [b, by, n[1] ^ SIGN],
    )
}

/// `OREN_NAYAR_DIR`: `a` = `N ξ1 ξ2` (Q16.16) → `L pdf`.
pub fn oren_nayar_dir(a: &[u32]) -> [u32; 4] {
    let n = vec3(&a[0..3]);
    let xi1 = clamp01(word(a[3]));
    let xi2 = word(a[4]);
    let radius = sqrt(xi1);
    let z = sqrt(sub(ONE, xi1));
    let phi = mul(k(2.0 * PI), xi2);
    let (lx, ly) = (mul(radius, cos(phi)), mul(radius, sin(phi)));
    let (t, b) = frame(n);
    let dir: [u32; 3] =
        std::array::from_fn(|i| from_f32(fma(z, n[i], fma(ly, b[i], mul(lx, t[i])))));
    [dir[0], dir[1], dir[2], from_f32(mul(z, k(1.0 / PI)))]
}

/// A vector component as the half-vector terms take it: the Q16.16 word clamped to [−2, 2]
/// (`0x2_0000` units), so the exact integer products below stay narrow.
pub fn clamp2(w: u32) -> i64 {
    (w as i32 as i64).clamp(-0x2_0000, 0x2_0000)
}

/// What GGX, sheen and subsurface share: the clamped `N V L` as binary32, `NL`, `NV`, and
/// `u = 1 − NH²`, `H = normalize(L + V)`, from exact integer dot products:
/// with `s = L + V`, `a = N·s` and `b = |s|²` exactly (units 2⁻³²), `d = b − ⌊a²/2³²⌋`, and
/// `u = f32(d)·rcp(f32(b))` (1 when `b = 0`, L = −V: NH taken as 0). `u` carries no cancellation
/// error: its relative error stays near 2⁻²² even at the GGX peak, where `1 − NH²` ≪ 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Half {
    /// N, V, L (binary32 of the clamped words).
    pub n: [u32; 3],
    /// V.
    pub v: [u32; 3],
    /// L.
    pub l: [u32; 3],
    /// N·L.
    pub nl: u32,
    /// N·V.
    pub nv: u32,
    /// 1 − NH².
    pub u: u32,
    /// |L + V|² (binary32).
    pub len2: u32,
    /// rcp(|L + V|²).
    pub inv_len2: u32,
}

/// The [`Half`] terms of `N V L` words `a[0..9]`.
pub fn half(a: &[u32]) -> Half {
    let c: Vec<i64> = a[0..9].iter().map(|w| clamp2(*w)).collect();
    let f = |i: usize| to_f32(c[i]);
    let (n, v, l) = ([f(0), f(1), f(2)], [f(3), f(4), f(5)], [f(6), f(7), f(8)]);
    let s: Vec<i64> = (0..3).map(|i| c[6 + i] + c[3 + i]).collect();
    let dot_a: i64 = (0..3).map(|i| c[i] * s[i]).sum();
    let dot_b: i64 = (0..3).map(|i| s[i] * s[i]).sum();
    let sq = ((dot_a as i128 * dot_a as i128) >> 32) as i64;
    let d = fixed_to_f32(dot_b - sq, 32);
    let len2 = fixed_to_f32(dot_b, 32);
    let inv_len2 = rcp(len2);
    let u = if positive(len2) {
        mul(d, inv_len2)
    } else {
        ONE
    };
    Half {
        n,
        v,
        l,
        nl: dot(n, l),
        nv: dot(n, v),
        u,
        len2,
        inv_len2,
    }
}

/// `x · 2^−frac` as binary32, nearest even (`|x| < 2^53`).
pub fn fixed_to_f32(x: i64, frac: i32) -> u32 {
    ((x as f64 * 2f64.powi(-frac)) as f32).to_bits()
}

/// `GGX`: `a` = `N V L α` (Q16.16) → `D·G2/(4·NL·NV)`, computed as
/// `(D/2) · 1/(NV·λL + NL·λV)` with `λX = √(α² + (1 − α²)·NX²)` and the NDF's denominator
/// `NH²(α² − 1) + 1 = u + α²(1 − u)` (both terms ≥ 0 in the domain).
pub fn ggx(a: &[u32]) -> u32 {
    let h = half(a);
    let alpha = word(a[9]);
    let alpha2 = mul(alpha, alpha);
    let t = fma(alpha2, sub(ONE, h.u), h.u);
    let half_d = mul(alpha2, rcp(mul(k(2.0 * PI), mul(t, t))));
    let om = sub(ONE, alpha2);
    let lambda_l = sqrt(fma(om, mul(h.nl, h.nl), alpha2));
    let lambda_v = sqrt(fma(om, mul(h.nv, h.nv), alpha2));
    let den = fma(h.nv, lambda_l, mul(h.nl, lambda_v));
    from_f32(mul(half_d, rcp(den)))
}

/// `SHEEN`: `a` = `N V L rough` (Q16.16) → `D / (4·(NL + NV − NL·NV))`, Conty-Kulla
/// `D = (2 + 1/r)·max(1 − NH², 0)^(1/(2r)) / (2π)`, `r = max(rough, 0.005)`.
pub fn sheen(a: &[u32]) -> u32 {
    let h = half(a);
    let r = fmax(word(a[9]), k(0.005));
    let inv_r = rcp(r);
    let u = if h.u >> 31 == 1 { 0 } else { h.u };
    let p = pow(u, mul(k(0.5), inv_r));
    let coef = add(k(2.0), inv_r);
    let den = fma(h.nl ^ SIGN, h.nv, add(h.nl, h.nv));
    let scale = mul(rcp(den), k(1.0 / (8.0 * PI)));
    from_f32(mul(mul(coef, p), scale))
}

/// `(x)⁵` as the RTL computes it: `x⁴·x` with `x⁴ = (x·x)²`.
fn pow5(x: u32) -> u32 {
    let x2 = mul(x, x);
    mul(mul(x2, x2), x)
}

/// `SUBSURFACE`: `a` = `N V L rough` (Q16.16) → Burley's
/// `1.25·(Fss·(1/(NL + NV) − 0.5) + 0.5)/π`, `Fss90 = LH²·rough`,
/// `Fss = (1 + (Fss90 − 1)(1 − NL)⁵)(1 + (Fss90 − 1)(1 − NV)⁵)`.
pub fn subsurface(a: &[u32]) -> u32 {
    let h = half(a);
    let s: [u32; 3] = std::array::from_fn(|i| add(h.l[i], h.v[i]));
    let ls = dot(h.l, s);
    let lh2 = mul(mul(ls, ls), h.inv_len2);
    let lh2 = if positive(h.len2) { lh2 } else { 0 };
    let fm1 = sub(mul(lh2, word(a[9])), ONE);
    let fl = fma(fm1, pow5(sub(ONE, h.nl)), ONE);
    let fv = fma(fm1, pow5(sub(ONE, h.nv)), ONE);
    let fss = mul(fl, fv);
    let w = sub(rcp(add(h.nl, h.nv)), k(0.5));
    let y = fma(fss, w, k(0.5));
    from_f32(mul(y, k(1.25 / PI)))
}

/// The cel table: three thresholds (ascending) then four values, Q16.16 (`rtl` `CEL_RESET` at
/// reset: thresholds 0, 0.3, 0.7, values 0, 0.3, 0.7, 1.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CelTable(pub [u32; 7]);

impl Default for CelTable {
    fn default() -> Self {
        CelTable([0, 0x4CCD, 0xB333, 0, 0x4CCD, 0xB333, 0x1_0000])
    }
}

/// `CEL` with the table `t`: `a` = `N L` → the value of band `#{i : threshold[i] ≤ N·L}`,
/// `N·L` exact (components clamped to [−2, 2]).
pub fn cel(a: &[u32], t: &CelTable) -> u32 {
    let nl: i64 = (0..3).map(|i| clamp2(a[i]) * clamp2(a[3 + i])).sum();
    let band = (0..3)
        .filter(|i| ((t.0[*i] as i32 as i64) << 16) <= nl)
        .count();
    t.0[3 + band]
}

/// A request to the cel pipe with immediate `imm`: `0x80 | e` writes entry `e` (< 7) of `t`
/// with `a[0]` and returns `a[0]`; otherwise [`cel`].
pub fn cel_request(imm: u32, a: &[u32], t: &mut CelTable) -> u32 {
    if imm & 0x80 == 0 {
        return cel(a, t);
    }
    if let Some(e) = t.0.get_mut((imm & 0x7F) as usize) {
        *e = a[0];
    }
    a[0]
}

/// `2·x` exactly by the exponent field (the RTL's `times2`): zero, subnormal (flushed),
/// infinite and NaN operands are returned as they are; a result beyond the range is ±inf.
pub fn times2(x: u32) -> u32 {
    match (x >> 23) & 0xFF {
        0 => x & SIGN,
        255 => x,
        254 => (x & SIGN) | 0x7F80_0000,
        _ => x + (1 << 23),
    }
}

/// Binary32 `x` with a negative value (not NaN) raised to +0, as the RTL's `nonneg`.
pub fn nonneg(x: u32) -> u32 {
    if x >> 31 == 1 {
        0
    } else {
        x
    }
}

/// `GGX_DIR`: `a` = `N V α ξ1 ξ2` (Q16.16) → `L pdf`: MaterialX 1.39's
/// `mx_ggx_importance_sample_VNDF` (Dupuy and Benyoub 2023, a spherical cap) with `Xi = (ξ1,
/// ξ2)` in the tangent frame of N ([`frame`]), `L = reflect(−V, H)`, and MaterialX's
/// `mx_ggx_NDF(H)·G1(NV)/(4·NV)` as `D/(2·(NV + λV))`, `λV = √(α² + (1 − α²)·NV²)`, with
/// `D = |Hs|⁴/(π·α²·|Hh|⁴)` from the stretched (`Hh`) and unstretched (`Hs`) half vectors
/// before normalisation (no normalised H enters D). The cap's `c.z + Vh.z` is
/// `(1 − ξ2)(1 + Vh.z)` and `1 − z² = ξ2(1 + Vh.z)·((1 − ξ2)(1 + Vh.z) + 1 − Vh.z)` with
/// `1 − Vh.z = |Vh.xy|²/(1 + Vh.z)`, all without cancellation; `1 − ξ2` is exact (integer). Components clamped to [−2, 2] as for
/// `GGX`; ξ2 clamped to [0, 1].
pub fn ggx_dir(a: &[u32]) -> [u32; 4] {
    let c: Vec<i64> = a[0..6].iter().map(|w| clamp2(*w)).collect();
    let n = [to_f32(c[0]), to_f32(c[1]), to_f32(c[2])];
    let v = [to_f32(c[3]), to_f32(c[4]), to_f32(c[5])];
    let alpha = word(a[6]);
    let phi = mul(k(2.0 * PI), word(a[7]));
    let (cos_phi, sin_phi) = (cos(phi), sin(phi));
    let xi2_fixed = (a[8] as i32 as i64).clamp(0, 0x1_0000);
    let (xi2, one_minus_xi2) = (to_f32(xi2_fixed), to_f32(0x1_0000 - xi2_fixed));
    let (t, b) = frame(n);
    // V in the tangent frame (T·V and B·V start with the z terms, known first).
    let tdot = |x: [u32; 3]| fma(v[1], x[1], fma(v[0], x[0], mul(v[2], x[2])));
    let vt = [tdot(t), tdot(b), dot(n, v)];
    let nv = vt[2];
    let nv2 = mul(nv, nv);
    // The hemisphere configuration: Vh = normalize(α·Vt.x, α·Vt.y, Vt.z).
    let (avx, avy) = (mul(alpha, vt[0]), mul(alpha, vt[1]));
    let inv_len = rsqrt(fma(avy, avy, fma(avx, avx, nv2)));
    let vh = [mul(avx, inv_len), mul(avy, inv_len), mul(nv, inv_len)];
    // The spherical cap: Hh = c + Vh.
    // 1 − Vh.z = |Vh.xy|²/(1 + Vh.z): no cancellation when Vh ≈ N (small α).
    let opz = add(ONE, vh[2]);
    let vh_xy2 = fma(vh[1], vh[1], mul(vh[0], vh[0]));
    let omz = mul(vh_xy2, rcp(opz));
    let hz = nonneg(mul(one_minus_xi2, opz));
    let s2 = nonneg(mul(mul(xi2, opz), add(hz, omz)));
    let sin_theta = sqrt(s2);
    let hh = [
        fma(sin_theta, cos_phi, vh[0]),
        fma(sin_theta, sin_phi, vh[1]),
        hz,
    ];
    // Back to the ellipsoid configuration: Hs = (α·Hh.x, α·Hh.y, Hh.z), H = Hs/|Hs|.
    let hs = [mul(alpha, hh[0]), mul(alpha, hh[1]), hz];
    let hz2 = mul(hz, hz);
    let hs_len2 = fma(hs[1], hs[1], fma(hs[0], hs[0], hz2));
    let hh_len2 = fma(hh[1], hh[1], fma(hh[0], hh[0], hz2));
    let inv_hs = rsqrt(hs_len2);
    let h = [mul(hs[0], inv_hs), mul(hs[1], inv_hs), mul(hz, inv_hs)];
    // L = 2(V·H)H − V, H in world space.
    let hw: [u32; 3] = std::array::from_fn(|i| fma(h[2], n[i], fma(h[1], b[i], mul(h[0], t[i]))));
    let twice_vh = times2(dot(vt, h));
    let l: [u32; 3] = std::array::from_fn(|i| from_f32(fma(twice_vh, hw[i], v[i] ^ SIGN)));
    // pdf = D/(2(NV + λV)).
    let alpha2 = mul(alpha, alpha);
    let lambda_v = sqrt(fma(sub(ONE, alpha2), nv2, alpha2));
    let den = mul(mul(k(2.0 * PI), alpha2), add(nv, lambda_v));
    let ratio = mul(hs_len2, rcp(hh_len2));
    let pdf = mul(mul(ratio, ratio), rcp(den));
    [l[0], l[1], l[2], from_f32(pdf)]
}
