//! The golden model of the binary32 arithmetic (D6), bit-exact with the units of
//! `rendergen_rtl::fp`.
//!
//! Conventions (the same text is in `rtl/fp/mod.rs`): round to nearest even; subnormal
//! operands are zeros of their sign; a result that is subnormal after IEEE rounding is the zero
//! of its sign; every NaN result is [`CANONICAL_NAN`]; integer conversions are Rust's `as`
//! casts (toward zero, saturating, NaN → 0).
//!
//! [`basic`] holds the correctly rounded operations (add, multiply, FMA, compares, conversions),
//! checked against the host CPU's `f32` with flush-to-zero emulated ([`host`]); [`recip`] and
//! [`transc`] the special functions, which follow the units' table-and-polynomial algorithms
//! bit for bit and whose error against f64 is measured. [`int`] is the model of the integer
//! ALU `rendergen_rtl::fp::int_alu` (32-bit integers, not binary32).

pub mod basic;
pub mod int;
pub mod q16;
pub mod recip;
pub mod transc;

/// The canonical NaN every NaN result is.
pub const CANONICAL_NAN: u32 = 0x7FC0_0000;

/// True for a subnormal encoding (exponent 0, mantissa non-zero).
pub fn is_subnormal(x: u32) -> bool {
    x & 0x7F80_0000 == 0 && x & 0x007F_FFFF != 0
}

/// True for a NaN encoding.
pub fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

/// An operand as the units see it: a subnormal becomes the zero of its sign.
pub fn daz(x: u32) -> u32 {
    match is_subnormal(x) {
        true => x & 0x8000_0000,
        false => x,
    }
}

/// A result as the units give it: a subnormal becomes the zero of its sign, a NaN the
/// canonical NaN.
pub fn ftz(x: u32) -> u32 {
    match () {
        _ if is_nan(x) => CANONICAL_NAN,
        _ if is_subnormal(x) => x & 0x8000_0000,
        _ => x,
    }
}

/// The host CPU's `f32` arithmetic under the units' conventions: operands flushed, the host
/// operation, result flushed and NaN made canonical. The independent reference the model and
/// the RTL are checked against.
pub mod host {
    use super::{daz, ftz};

    /// `f` of one operand.
    pub fn op1(a: u32, f: impl Fn(f32) -> f32) -> u32 {
        ftz(f(f32::from_bits(daz(a))).to_bits())
    }

    /// `f` of two operands.
    pub fn op2(a: u32, b: u32, f: impl Fn(f32, f32) -> f32) -> u32 {
        ftz(f(f32::from_bits(daz(a)), f32::from_bits(daz(b))).to_bits())
    }

    /// `f` of three operands.
    pub fn op3(a: u32, b: u32, c: u32, f: impl Fn(f32, f32, f32) -> f32) -> u32 {
        let g = |x| f32::from_bits(daz(x));
        ftz(f(g(a), g(b), g(c)).to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions() {
        assert_eq!(daz(0x0000_0001), 0);
        assert_eq!(daz(0x8040_0000), 0x8000_0000);
        assert_eq!(daz(0x0080_0000), 0x0080_0000);
        assert_eq!(ftz(0x7F80_0001), CANONICAL_NAN);
        assert_eq!(ftz(0xFFC0_1234), CANONICAL_NAN);
        assert_eq!(ftz(0x7F80_0000), 0x7F80_0000);
        // 2^-126 × 0.5 is subnormal in IEEE: flushed, sign kept.
        let half_min = host::op2(0x0080_0000, 0xBF00_0000, |a, b| a * b);
        assert_eq!(half_min, 0x8000_0000);
        // A subnormal operand counts as zero: 2^-149 + 0 = +0, not 2^-149.
        assert_eq!(host::op2(1, 0, |a, b| a + b), 0);
    }
}
