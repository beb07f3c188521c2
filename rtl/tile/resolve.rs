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

/// Width of a binary16 value as a signed fixed-point number in units of 2^-24, with room for
/// the sum of four (exact: 41 bits with sign, two bits of carry).
const F16_FIXED: u32 = 43;

/// Register stages of [`f16_mean`].
pub const F16_MEAN_STAGES: u32 = 2;

/// Registers `parts` as one stage of `st` (one concatenation, `name`); returns them split.
fn stage_parts(m: &mut Module, st: &mut Stages, name: &str, parts: &[Sig]) -> Vec<Sig> {
    let q = st.stage(m, name, &cat(parts));
    let mut hi = q.width();
    parts
        .iter()
        .map(|p| {
            let part = q.bits(hi - 1, hi - p.width());
            hi -= p.width();
            part
        })
        .collect()
}

/// First step of one channel's mean: the special-value flags (`[2]` NaN result, `[1]` infinite
/// result, `[0]` its sign) and the two pair sums of the samples as fixed-point numbers.
fn f16_pair_sums(m: &mut Module, h: [Sig; 4]) -> [Sig; 3] {
    let (mut nan, mut pos_inf, mut neg_inf) = (m.lit(0, 1), m.lit(0, 1), m.lit(0, 1));
    let fixed: Vec<Sig> = h
        .iter()
        .map(|x| {
            let (sign, e, f) = (x.bit(15), x.bits(14, 10), x.bits(9, 0));
            let normal = e.ne(0u64);
            let special = e.eq(31u64);
            nan = nan | (special & f.ne(0u64));
            pos_inf = pos_inf | (special & f.eq(0u64) & !sign);
            neg_inf = neg_inf | (special & f.eq(0u64) & sign);
            let significand = cat(&[normal, f]).zext(F16_FIXED);
            let shift = normal.mux(e - 1u64, m.lit(0, 5));
            let fixed = significand.shl(shift);
            sign.mux(-fixed, fixed)
        })
        .collect();
    let flags = cat(&[nan | (pos_inf & neg_inf), pos_inf | neg_inf, neg_inf]);
    [flags, fixed[0] + fixed[1], fixed[2] + fixed[3]]
}

/// Second step: the sum's sign, magnitude (units of 2^-26 for the mean) and leading zeros.
fn f16_magnitude(m: &mut Module, flags: Sig, s01: Sig, s23: Sig) -> [Sig; 4] {
    let sum = s01 + s23;
    let neg = sum.msb();
    let mag = neg.mux(-sum, sum).bits(F16_FIXED - 2, 0);
    let lz = leading_zeros(m, mag);
    [flags, neg, mag, lz]
}

/// Last step: round the magnitude once to nearest even and pack (or the special value).
fn f16_round(m: &mut Module, flags: Sig, neg: Sig, mag: Sig, lz: Sig) -> Sig {
    let lz = lz.zext(8);
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
    let (qnan, infinite, neg_inf) = (flags.bit(2), flags.bit(1), flags.bit(0));
    let inf = cat(&[neg_inf, m.lit(0x7C00, 15)]);
    qnan.mux(m.lit(0x7E00, 16), infinite.mux(inf, finite))
}

/// The exact means of binary16 channels (each four samples), each rounded once to nearest
/// even (module docs), cut into [`F16_MEAN_STAGES`] stages of `st`: decode and pair sums |
/// total, magnitude and leading zeros | rounding. `name` prefixes the stage registers.
pub fn f16_mean(m: &mut Module, st: &mut Stages, name: &str, channels: &[[Sig; 4]]) -> Vec<Sig> {
    let first: Vec<Sig> = channels.iter().flat_map(|h| f16_pair_sums(m, *h)).collect();
    let first = stage_parts(m, st, &format!("{name}_sums"), &first);
    let second: Vec<Sig> = first
        .chunks(3)
        .flat_map(|c| f16_magnitude(m, c[0], c[1], c[2]))
        .collect();
    let second = stage_parts(m, st, &format!("{name}_magnitude"), &second);
    second
        .chunks(4)
        .map(|c| f16_round(m, c[0], c[1], c[2], c[3]))
        .collect()
}

/// Means of the binary16 channels packed from bit 0 of the samples (`n` of them: 2 or 4),
/// packed the same way; [`F16_MEAN_STAGES`] stages of `st`.
fn f16_channels_mean(m: &mut Module, st: &mut Stages, samples: &[Sig], n: u32) -> Sig {
    let channels: Vec<[Sig; 4]> = (0..n)
        .rev()
        .map(|c| std::array::from_fn(|s| samples[s].bits(16 * c + 15, 16 * c)))
        .collect();
    let means = f16_mean(m, st, "resolve_f16", &channels);
    cat(&means)
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

/// Binary16 channels the resolve averages: 4 with an RGBA16F target, 2 with only RG16F, 0
/// otherwise or with one sample (an RG16F target's means are the low two of RGBA16F's).
fn f16_channels(cfg: &TileCfg) -> u32 {
    let has = |f| cfg.samples == 4 && cfg.formats.contains(&f);
    if has(RtFormat::Rgba16f) {
        4
    } else if has(RtFormat::Rg16f) {
        2
    } else {
        0
    }
}

/// Stages [`resolve`] adds to its caller's pipeline: 10 with the binary32 mean, else
/// [`F16_MEAN_STAGES`] with a binary16 mean, else 0.
pub fn resolve_stages(cfg: &TileCfg) -> u32 {
    if has_f32_mean(cfg) {
        10
    } else if f16_channels(cfg) > 0 {
        F16_MEAN_STAGES
    } else {
        0
    }
}

/// Which path of [`resolve`] gives a plane's value.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
enum MeanPath {
    /// RGBA8 and depth means, and a selected sample.
    Other = 0,
    /// RGBA16F mean.
    F16x4 = 1,
    /// RG16F mean.
    F16x2 = 2,
    /// R32F mean.
    F32 = 3,
}

/// The resolved value of one pixel of `plane` (zero-extended to 64 bits): sample `sample`
/// when `select`, else the mean of the format (module docs); with one sample per pixel, the
/// sample. Cut into [`resolve_stages`] stages of `st`; the binary16 and binary32 means run
/// side by side, the other values wait in delay registers.
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
            _ => m.lit(0, 64), // the pipelined paths below
        })
        .collect();
    means.push(pad(unorm_mean(&samples, 0, super::DEPTH_BITS)));
    let other = index_select(plane, &means);
    let other = select.mux(chosen, other);
    let total = resolve_stages(cfg);
    if total == 0 {
        return other;
    }
    let paths: Vec<u64> = cfg
        .formats
        .iter()
        .map(|f| {
            let path = match f {
                RtFormat::Rgba8 => MeanPath::Other,
                RtFormat::Rgba16f => MeanPath::F16x4,
                RtFormat::Rg16f => MeanPath::F16x2,
                RtFormat::R32f if has_f32_mean(cfg) => MeanPath::F32,
                RtFormat::R32f => MeanPath::Other,
            };
            path as u64
        })
        .chain([MeanPath::Other as u64])
        .collect();
    let path = select.mux(m.lit(0, 2), lut(plane, &paths, 2));
    let path = st.delay(m, "resolve_path", path, total);
    let other = st.delay(m, "resolve_other", other, total);
    let mut st_f16 = Stages::new(st.en(), st.valid());
    let n = f16_channels(cfg);
    let f16 = if n == 0 {
        m.lit(0, 64)
    } else {
        let own = if has_f32_mean(cfg) {
            &mut st_f16
        } else {
            &mut *st
        };
        let mean = f16_channels_mean(m, own, &samples, n);
        let mean = st.delay(m, "resolve_f16_mean", mean, total - F16_MEAN_STAGES);
        let low = pad(mean.bits(31, 0));
        path.eq(MeanPath::F16x2 as u64).mux(low, pad(mean))
    };
    let f32 = if has_f32_mean(cfg) {
        let s32: Vec<Sig> = samples.iter().map(|s| s.bits(31, 0)).collect();
        let mut st_b = Stages::new(st.en(), st.valid());
        let a = f32_add(m, st, s32[0], s32[1]);
        let b = f32_add(m, &mut st_b, s32[2], s32[3]);
        let sum = f32_add(m, st, a, b);
        pad(f32_quarter(m, sum))
    } else {
        m.lit(0, 64)
    };
    let is = |p: MeanPath| path.eq(p as u64);
    is(MeanPath::F32).mux(
        f32,
        (is(MeanPath::F16x4) | is(MeanPath::F16x2)).mux(f16, other),
    )
}
