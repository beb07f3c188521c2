//! The write-out's MSAA resolve of one pixel: the average of its four samples, rounded as each
//! format defines below, or one chosen sample.
//!
//! | format | average |
//! |---|---|
//! | RGBA8 | per channel `(s0 + s1 + s2 + s3 + 2) >> 2` (round half up) |
//! | RGBA16F, RG16F | per binary16 channel, the exact mean rounded once to nearest even (subnormals kept); a NaN sample, or +∞ with −∞, gives `0x7E00`; otherwise an infinity gives itself; an exact zero mean is +0 |
//! | R32F | `((s0 + s1) + (s2 + s3)) · 0.25` in the shader core's binary32 arithmetic (D6: round to nearest even, subnormals flushed on input and output, canonical NaN) — what a tile shader computing it would get |
//! | D24 depth | `(d0 + d1 + d2 + d3 + 2) >> 2` |
use super::{RtFormat, TileCfg};
use crate::fp::fma::{fp_fma_stages, leading_zeros, FmaOp};
use crate::fp::{FpReq, Stages};
use rendergen_hdl::{cat, index_select, lut, Module, Sig};

/// Round-half-up mean of four unsigned `w`-bit fields at bit `lo` of each sample.
fn unorm_mean(samples: &[Sig], lo: u32, w: u32) -> Sig {
    let f = |s: Sig| s.bits(lo + w - 1, lo).zext(w + 2);
    let sum = f(samples[0]) + f(samples[1]) + f(samples[2]) + f(samples[3]) + 2u64;
    sum.bits(w + 1, 2)
}

/// RGBA8: the four channels' means.
fn rgba8_mean(samples: &[Sig]) -> Sig {
    let ch: Vec<Sig> = (0..4)
        .rev()
        .map(|c| unorm_mean(samples, 8 * c, 8))
        .collect();
    cat(&ch)
}

/// The exact mean of four binary16 values, rounded once to nearest even (module docs).
pub fn f16_mean(m: &mut Module, h: [Sig; 4]) -> Sig {
    // Each value as a signed fixed-point number in units of 2^-24 (exact: 41 bits with sign).
    const W: u32 = 43;
    let mut sum = m.lit(0, W);
    let (mut nan, mut pos_inf, mut neg_inf) = (m.lit(0, 1), m.lit(0, 1), m.lit(0, 1));
    for x in h {
        let (sign, e, f) = (x.bit(15), x.bits(14, 10), x.bits(9, 0));
        let normal = e.ne(0u64);
        let special = e.eq(31u64);
        nan = nan | (special & f.ne(0u64));
        pos_inf = pos_inf | (special & f.eq(0u64) & !sign);
        neg_inf = neg_inf | (special & f.eq(0u64) & sign);
        let significand = cat(&[normal, f]).zext(W);
        let shift = normal.mux(e - 1u64, m.lit(0, 5));
        let fixed = significand.shl(shift);
        sum = sum + sign.mux(-fixed, fixed);
    }
    // The mean in units of 2^-26: |sum| with the sign apart.
    let neg = sum.msb();
    let mag = neg.mux(-sum, sum).bits(W - 2, 0);
    let lz = leading_zeros(m, mag).zext(8);
    // Ulp of the result in units of 2^-26: 2^sh with sh = max(2, L − 10), L = 41 − lz the
    // leading one's index; `top` = 64 + L − 10 keeps the arithmetic unsigned.
    let top = m.lit(64 + 31, 8) - lz;
    let sh = top.lt(66u64).mux(m.lit(2, 8), top - 64u64);
    let q = mag.shr(sh);
    let lost = mag - q.shl(sh);
    let half = m.lit(1, mag.width()).shl(sh - 1u64);
    let up = lost.gt(half) | (lost.eq(half) & q.bit(0));
    let rounded = q.bits(11, 0) + up.zext(12);
    let bits = ((sh - 2u64).bits(4, 0).zext(15) << 10) + rounded.zext(15);
    let finite = cat(&[neg, bits]);
    let zero = m.lit(0, 16);
    let finite = mag.any().mux(finite, zero);
    let inf = cat(&[neg_inf, m.lit(0x7C00, 15)]);
    let qnan = m.lit(0x7E00, 16);
    (nan | (pos_inf & neg_inf)).mux(qnan, (pos_inf | neg_inf).mux(inf, finite))
}

/// Means of `n` binary16 channels packed from bit 0.
fn f16_channels_mean(m: &mut Module, samples: &[Sig], n: u32) -> Sig {
    let ch: Vec<Sig> = (0..n)
        .rev()
        .map(|c| {
            let h = std::array::from_fn(|s| samples[s].bits(16 * c + 15, 16 * c));
            f16_mean(m, h)
        })
        .collect();
    cat(&ch)
}

/// One binary32 addition on the FMA datapath (five stages of `st`).
fn f32_add(m: &mut Module, st: &mut Stages, a: Sig, b: Sig) -> Sig {
    let req = FpReq {
        a,
        b: Some(b),
        c: Some(m.lit(0, 32)),
        op: Some(m.enum_const(FmaOp::Add)),
        tag: m.lit(0, 1),
    };
    fp_fma_stages(m, st, req).r
}

/// `x · 0.25` in binary32 with subnormal results flushed (x already flushed, canonical NaN).
fn f32_quarter(m: &mut Module, x: Sig) -> Sig {
    let (sign, e, f) = (x.bit(31), x.bits(30, 23), x.bits(22, 0));
    let normal_result = e.ge(3u64) & e.ne(255u64);
    // e = 2 with an all-ones fraction rounds (ties to even) up to the least normal number.
    let to_min = e.eq(2u64) & f.all();
    let min_normal = cat(&[sign, m.lit(0x0080_0000, 31)]);
    let zero = cat(&[sign, m.lit(0, 31)]);
    let scaled = cat(&[sign, e - 2u64, f]);
    e.eq(255u64)
        .mux(x, normal_result.mux(scaled, to_min.mux(min_normal, zero)))
}

/// Whether `cfg` needs the binary32 mean (an R32F target with 4 samples): it adds ten stages.
pub fn has_f32_mean(cfg: &TileCfg) -> bool {
    cfg.samples == 4 && cfg.formats.contains(&RtFormat::R32f)
}

/// Stages [`resolve`] adds to its caller's pipeline.
pub fn resolve_stages(cfg: &TileCfg) -> u32 {
    if has_f32_mean(cfg) {
        10
    } else {
        0
    }
}

/// The resolved value of one pixel of `plane` (zero-extended to 64 bits): sample `sample`
/// when `select`, else the mean of the format (module docs); with one sample per pixel, the
/// sample. Cut into [`resolve_stages`] stages of `st`.
pub fn resolve(
    m: &mut Module,
    cfg: &TileCfg,
    st: &mut Stages,
    samples: &[Sig],
    (plane, select, sample): (Sig, Sig, Sig),
) -> Sig {
    let pad = |s: Sig| s.zext(64);
    let samples: Vec<Sig> = samples.iter().map(|s| pad(*s)).collect();
    if cfg.samples == 1 {
        return samples[0];
    }
    let chosen = index_select(sample, &samples);
    let mut means: Vec<Sig> = cfg
        .formats
        .iter()
        .map(|f| match f {
            RtFormat::Rgba8 => pad(rgba8_mean(&samples)),
            RtFormat::Rgba16f => pad(f16_channels_mean(m, &samples, 4)),
            RtFormat::Rg16f => pad(f16_channels_mean(m, &samples, 2)),
            RtFormat::R32f => m.lit(0, 64), // the binary32 path below
        })
        .collect();
    means.push(pad(unorm_mean(&samples, 0, super::DEPTH_BITS)));
    let other = index_select(plane, &means);
    let other = select.mux(chosen, other);
    if !has_f32_mean(cfg) {
        return other;
    }
    let is_r32: Vec<u64> = (cfg.formats.iter().map(|f| (*f == RtFormat::R32f) as u64))
        .chain([0])
        .collect();
    let r32 = lut(plane, &is_r32, 1) & !select;
    let s32: Vec<Sig> = samples.iter().map(|s| s.bits(31, 0)).collect();
    let mut st_b = Stages::new(st.en(), st.valid());
    let a = f32_add(m, st, s32[0], s32[1]);
    let b = f32_add(m, &mut st_b, s32[2], s32[3]);
    let sum = f32_add(m, st, a, b);
    let quarter = pad(f32_quarter(m, sum));
    let r32 = st.delay(m, "resolve_r32", r32, 10);
    let other = st.delay(m, "resolve_other", other, 10);
    r32.mux(quarter, other)
}
