//! Coefficients of the reciprocal, reciprocal square root and square root unit
//! (`rendergen_rtl::fp::recip`) and of its golden model (`rendergen_sim::models::fp32::recip`).
//!
//! # What the table approximates
//! Each function is evaluated on a normalised argument `v` and gives a value `g(v)` in `[1, 2]`:
//! * [`Func::Rcp`]: `g(v) = 2 / v`, `v = 1.f` in `[1, 2)`;
//! * [`Func::Rsqrt`]: `g(v) = 2 / sqrt(v)`, `v = 1.f` (even exponent) or `2 × 1.f` (odd
//!   exponent) in `[1, 4)`;
//! * [`Func::Sqrt`]: `g(v) = sqrt(v)`, `v` as for `Rsqrt`.
//!
//! The argument range of each function and exponent parity is cut into [`SEGMENTS`] equal
//! segments, selected by the top [`SEGMENT_BITS`] bits of the 23-bit fraction `f`; the low
//! [`DX_BITS`] bits `dx` are the position in the segment, `w = dx / 2^16` in `[0, 1)`. On each
//! segment `g ≈ c0 + c1·w + c2·w²`, evaluated in fixed point as
//!
//! ```text
//! sq = (dx · dx) >> 16                                   (16 bits)
//! y  = C0 + ((C1 · dx) >> 15) + ((C2 · sq) >> 15)        (arithmetic shifts; y in units 2^-30)
//! ```
//!
//! with `C0 = round(c0 · 2^30)` (unsigned, [`C0_BITS`] bits), `C1 = round(c1 · 2^29)` and
//! `C2 = round(c2 · 2^29)` (two's complement, [`C1_BITS`] and [`C2_BITS`] bits).
//!
//! # How the coefficients are made (deterministic)
//! `c0, c1, c2` interpolate `g` at the three Chebyshev nodes of the segment,
//! `w = 1/2 − √3/4, 1/2, 1/2 + √3/4`, computed in `f64` with only `+ − × ÷ sqrt` (IEEE
//! operations, correctly rounded on every host, so the table is the same everywhere), then
//! rounded to the nearest integer (ties away from zero). The interpolation error is at most
//! `max|g'''| · h³ / 192` on a segment of width `h`: for `2/v` on `[1, 2)` with `h = 2^-7`,
//! `12 · 2^-21 / 192 = 2^-25`; for `2/sqrt(v)` `3.75 · 2^-21 / 192 < 2^-26.6`; for
//! `sqrt(v)` `< 2^-30`. The fixed-point evaluation adds at most `2^-31` (C0), `2^-30`
//! (C1 rounding and the product's truncation), `2^-29` (C2 rounding, `sq` truncation and the
//! product's truncation): `|y − g(v)| < 2^-24.7` in all, below the half unit in the last place
//! `2^-24` of a result in `[1, 2)`. The model's test `approximation_is_within_half_an_ulp`
//! measures it over every fraction of every function: at most `2^-24.87` (2/v),
//! `2^-26.31` (2/√v), `2^-27.75` (√v).
//!
//! # Layout
//! [`table`] holds `4 × 2 × 128` entries indexed `func · 256 + odd · 128 + segment` (the
//! ROM address `{func, odd, f[22:16]}`): `odd` is set for an odd unbiased exponent (used by
//! `Rsqrt` and `Sqrt`; the `Rcp` entries with `odd` set, and every entry of `func` 3, are
//! zero and never used).

use std::sync::OnceLock;

/// Bits of the fraction that select the segment.
pub const SEGMENT_BITS: u32 = 7;
/// Segments per function and exponent parity.
pub const SEGMENTS: usize = 1 << SEGMENT_BITS;
/// Bits of the fraction below the segment: the position `dx` in the segment.
pub const DX_BITS: u32 = 23 - SEGMENT_BITS;
/// Fraction bits of `C0` and of the approximation `y`.
pub const Y_FRAC: u32 = 30;
/// Fraction bits of `C1` and `C2`.
pub const C_FRAC: u32 = 29;
/// Right shift of the products `C1 · dx` and `C2 · sq` to units of `2^-Y_FRAC`.
pub const PRODUCT_SHIFT: u32 = C_FRAC + DX_BITS - Y_FRAC;
/// Width of `C0` (unsigned).
pub const C0_BITS: u32 = 32;
/// Width of `C1` (two's complement).
pub const C1_BITS: u32 = 25;
/// Width of `C2` (two's complement).
pub const C2_BITS: u32 = 18;
/// Entries of [`table`]: 4 function codes × 2 parities × [`SEGMENTS`].
pub const ENTRIES: usize = 4 * 2 * SEGMENTS;

/// The function a table entry approximates; the discriminant is the ROM address's top bits
/// and the unit's `op` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `2 / v` on `[1, 2)`.
    Rcp = 0,
    /// `2 / sqrt(v)` on `[1, 4)`.
    Rsqrt = 1,
    /// `sqrt(v)` on `[1, 4)`.
    Sqrt = 2,
}

/// The coefficients of one segment (see the module documentation for their scaling).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coeffs {
    /// `round(c0 · 2^30)`, unsigned.
    pub c0: i64,
    /// `round(c1 · 2^29)`, signed.
    pub c1: i64,
    /// `round(c2 · 2^29)`, signed.
    pub c2: i64,
}

/// The ROM address of segment `segment` of `func` for an exponent of parity `odd`.
pub fn index(func: Func, odd: bool, segment: usize) -> usize {
    (func as usize) * 2 * SEGMENTS + (odd as usize) * SEGMENTS + segment
}

/// The whole table (computed once, deterministically; see the module documentation).
pub fn table() -> &'static [Coeffs; ENTRIES] {
    static TABLE: OnceLock<[Coeffs; ENTRIES]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [Coeffs::default(); ENTRIES];
        for (func, parities) in [
            (Func::Rcp, &[false][..]),
            (Func::Rsqrt, &[false, true][..]),
            (Func::Sqrt, &[false, true][..]),
        ] {
            for &odd in parities {
                for s in 0..SEGMENTS {
                    t[index(func, odd, s)] = segment(func, odd, s);
                }
            }
        }
        t
    })
}

/// `g(v)` in `f64`.
fn g(func: Func, v: f64) -> f64 {
    match func {
        Func::Rcp => 2.0 / v,
        Func::Rsqrt => 2.0 / v.sqrt(),
        Func::Sqrt => v.sqrt(),
    }
}

/// The coefficients of one segment: interpolation at the Chebyshev nodes, rounded.
fn segment(func: Func, odd: bool, s: usize) -> Coeffs {
    let scale = if odd { 2.0 } else { 1.0 };
    let width = scale / SEGMENTS as f64;
    let start = scale * (1.0 + s as f64 / SEGMENTS as f64);
    let d = 3f64.sqrt() / 4.0;
    let w = [0.5 - d, 0.5, 0.5 + d];
    let y = w.map(|w| g(func, start + w * width));
    // Newton's divided differences over the nodes, then the power form in w.
    let d01 = (y[1] - y[0]) / (w[1] - w[0]);
    let d12 = (y[2] - y[1]) / (w[2] - w[1]);
    let c2 = (d12 - d01) / (w[2] - w[0]);
    let c1 = d01 - c2 * (w[0] + w[1]);
    let c0 = y[0] - w[0] * d01 + c2 * w[0] * w[1];
    Coeffs {
        c0: (c0 * (1u64 << Y_FRAC) as f64).round() as i64,
        c1: (c1 * (1u64 << C_FRAC) as f64).round() as i64,
        c2: (c2 * (1u64 << C_FRAC) as f64).round() as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_fit_their_widths() {
        let fits = |v: i64, bits: u32| (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&v);
        for c in table() {
            assert!((0..1i64 << C0_BITS).contains(&c.c0), "{c:?}");
            assert!(fits(c.c1, C1_BITS) && fits(c.c2, C2_BITS), "{c:?}");
        }
        // The first segment of 2/v starts at 2.
        let first = table()[index(Func::Rcp, false, 0)];
        assert!((first.c0 - (2i64 << Y_FRAC)).abs() < 64, "{first:?}");
    }
}
