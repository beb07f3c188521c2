//! Conversions between the PBRU's Q16.16 words (D3) and binary32 (D6): the ports of the shading
//! pipelines speak Q16.16, their insides binary32.
//!
//! # Semantics (the golden model `rendergen_sim::models::fp32::q16`)
//! * [`q16_to_f32`]: a signed fixed-point value `x · 2⁻¹⁶` (`x` two's complement of any width
//!   17..=48, so a difference of two Q16.16 words fits without wrapping) to the nearest binary32,
//!   ties to even. Exact for `|x| < 2²⁴`; never subnormal (the smallest non-zero is 2⁻¹⁶).
//! * [`f32_to_q16`]: binary32 `f` to the nearest Q16.16 word `round(f · 2¹⁶)`, ties to even,
//!   **saturating** at `i32::MIN`/`i32::MAX` (±inf too), NaN → 0, subnormals → 0. So a
//!   shading pipeline never wraps: out of range it saturates.
//!
//! # Hardware
//! `q16_to_f32` adds two stages (magnitude, leading-zero count and normalising shift; rounding
//! and packing), `f32_to_q16` one (a 64-bit right shift, rounding increment and negation).
//! Stream unit [`fp_q16`] (`op` 0: `a` Q16.16 → binary32, 1: `a` binary32 → Q16.16):
//! latency [`LATENCY`] = 4 (three stages, the skid buffer), initiation interval 1. Cost
//! (`rendergen synth fp_q16`, Yosys generic, tag width 8, measured): 1,594 cells, 282
//! flip-flops, 34 gate levels.

use super::fma::{leading_zeros, unpack};
use super::{pipeline, FpCfg, FpReq, FpResp, Stages};
use rendergen_hdl::{cat, name_lets, Bundle, Design, ElabErrors, Module, Sig, Stream};

/// Cycles from a request to its response in [`fp_q16`].
pub const LATENCY: u64 = 4;

/// The normalised magnitude between the two stages of [`q16_to_f32`].
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Normalised<T = Sig> {
    sign: T,
    zero: T,
    norm: T,
    exp: T,
}

/// `x · 2⁻¹⁶` (`x` signed, 17..=48 bits) as binary32, nearest even; two stages of `st`.
#[name_lets]
pub fn q16_to_f32(m: &mut Module, st: &mut Stages, x: Sig) -> Sig {
    if !(17..=48).contains(&x.width()) {
        m.param_error("q16 width", x.width() as u64, "17..=48 bits".to_string());
        return m.lit(0, 32);
    }
    fixed_to_f32(m, st, x, 16)
}

/// `x · 2^−frac` (`x` signed, 17..=64 bits, `frac` ≤ 64) as binary32, nearest even; two
/// stages of `st`. The caller keeps the result normal: `2^(w − 1 − frac)` is below `2^127`
/// and `2^−frac` above `2^−126`.
#[name_lets]
pub fn fixed_to_f32(m: &mut Module, st: &mut Stages, x: Sig, frac: u32) -> Sig {
    let w = x.width();
    if !(17..=64).contains(&w) || frac > 64 {
        m.param_error(
            "fixed width",
            w as u64,
            "17..=64 bits, frac ≤ 64".to_string(),
        );
        return m.lit(0, 32);
    }
    // At least two bits below the 24 kept (round and sticky): a narrower `x` is sign-extended.
    let x = if w < 26 { x.sext(26) } else { x };
    let w = x.width();
    let sign = x.msb();
    let mag = sign.mux(-x, x);
    let lz = leading_zeros(m, mag);
    let norm = mag.shl(lz);
    // Leading one at bit w−1−lz: value 2^(w−1−lz−frac), biased exponent w + 126 − frac − lz.
    let exp = m.lit((w + 126 - frac) as u64, 8) - lz.zext(8);
    let n = st.stage(
        m,
        "q16_norm",
        &Normalised {
            sign,
            zero: mag.eq(0),
            norm,
            exp,
        },
    );
    let (top, rest) = (n.norm.bits(w - 1, w - 24), w - 24);
    let round = n.norm.bit(rest - 1);
    let sticky = match rest {
        1 => m.lit(0, 1),
        _ => n.norm.bits(rest - 2, 0).any(),
    };
    let up = round & (sticky | top.bit(0));
    let rounded = top.add_full(up);
    let exp = n.exp + rounded.bit(24).zext(8);
    let packed = cat(&[n.sign, exp, rounded.bits(22, 0)]);
    let r = n.zero.mux(m.lit(0, 32), packed);
    st.stage(m, "q16_float", &r)
}

/// Binary32 `f` as Q16.16, nearest even, saturating, NaN → 0; one stage of `st`.
#[name_lets]
pub fn f32_to_q16(m: &mut Module, st: &mut Stages, f: Sig) -> Sig {
    let u = unpack(f);
    // |f·2^16| = mant · 2^(exp − 127 − 23 + 16) = mant · 2^(exp − 134). In a 64-bit frame
    // `mant << 39`, shifted right by 141 − exp (≥ 0 below saturation), the integer is bits
    // 63..32, the round bit 31, the sticky bits 30..0.
    let big = u.exp.ge(142); // |f·2^16| ≥ 2^31 (or inf)
    let shift_wide = m.lit(141, 9) - u.exp.zext(9);
    let far = !big & shift_wide.gt(63);
    let shift = far.mux(m.lit(63, 9), shift_wide).bits(5, 0);
    let frame = cat(&[u.mant.zext(25), m.lit(0, 39)]).shr(shift);
    let int = frame.bits(63, 32);
    let up = frame.bit(31) & (frame.bits(30, 0).any() | int.bit(0));
    let mag = (int + up.zext(32)).named("q16_mag");
    // 2^31 after rounding only for a negative result; a positive one saturates.
    let pos = (big | mag.msb()).mux(m.lit(0x7FFF_FFFF, 32), mag);
    let neg = big.mux(m.lit(0x8000_0000, 32), -mag);
    let value = u.sign.mux(neg, pos);
    let r = (u.nan | u.zero | far).mux(m.lit(0, 32), value);
    st.stage(m, "q16_fixed", &r)
}

/// The stream unit: `op` 0 converts `a` (Q16.16) to binary32, `op` 1 `a` (binary32) to
/// Q16.16; both paths three stages (the shorter one delayed), tag carried.
#[name_lets]
pub fn fp_q16(m: &mut Module, _cfg: &FpCfg, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "q16", req, |m, st, r| {
        let op = r.op.unwrap_or_else(|| m.lit(0, 1));
        let mut side = Stages::new(st.en(), st.valid());
        let fixed = f32_to_q16(m, &mut side, r.a);
        let fixed = side.delay(m, "fixed", fixed, 1);
        let float = q16_to_f32(m, st, r.a.sext(33));
        let to_fixed = st.delay(m, "op", op, 2);
        let tag = st.delay(m, "tag", r.tag, 2);
        let out = FpResp {
            r: to_fixed.mux(fixed, float),
            tag,
        };
        st.stage(m, "q16_out", &out)
    })
}

/// Stand-alone [`fp_q16`] (catalogue `fp_q16`): stream `req` (`a`, 1-bit `op`, `tag`) →
/// stream `resp`; elaboration rejects a `tag_width` outside [`TAG_WIDTH`](super::TAG_WIDTH).
///
/// Cost (`cargo run --release -p rendergen-gen -- synth fp_q16`, Yosys generic, tag width 8,
/// measured): 1,594 cells, 282 flip-flops, 34 gate levels (both directions side by side).
///
/// ```
/// use rendergen_rtl::fp::{q16::fp_q16_top, FpCfg};
/// assert_eq!(fp_q16_top(&FpCfg::default()).unwrap().top().name, "fp_q16");
/// assert!(fp_q16_top(&FpCfg { tag_width: 0 }).is_err());
/// ```
#[name_lets]
pub fn fp_q16_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_q16", cfg, (1, 1), |m, req| fp_q16(m, cfg, req))
}
