//! Q16.16 ↔ binary32 (the golden model of `rendergen_rtl::fp::q16`), computed through the
//! host's exact integer-to-float conversion and f64 arithmetic, not the RTL's algorithm.

use super::daz;

/// `x · 2⁻¹⁶` as binary32, nearest even (`x` any signed fixed-point value with 16 fraction
/// bits that fits in 48 bits).
pub fn to_f32(x: i64) -> u32 {
    // i64 → f32 rounds to nearest even; the scale by 2^-16 is exact (never subnormal).
    ((x as f32) * (1.0 / 65536.0)).to_bits()
}

/// Binary32 `f` as Q16.16: nearest, ties to even, saturating; NaN and subnormals → 0.
pub fn from_f32(f: u32) -> u32 {
    let v = f32::from_bits(daz(f)) as f64 * 65536.0;
    if v.is_nan() {
        return 0;
    }
    v.round_ties_even().clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32
}

/// A Q16.16 word as f64 (for accuracy checks).
pub fn q16_value(x: u32) -> f64 {
    x as i32 as f64 / 65536.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        assert_eq!(to_f32(0x1_0000), 0x3F80_0000);
        assert_eq!(to_f32(-0x1_8000), 0xBFC0_0000);
        assert_eq!(to_f32(1), 0x3780_0000); // 2^-16
        assert_eq!(to_f32(0), 0);
        // 2^24 + 1 units: ties to even at 24 bits.
        assert_eq!(to_f32((1 << 24) + 1), 0x4380_0000);
        assert_eq!(from_f32(0x3F80_0000), 0x1_0000);
        assert_eq!(from_f32(0x3780_0000), 1);
        assert_eq!(from_f32(0x3700_0000), 0); // 2^-17: a tie, to even 0
        assert_eq!(from_f32(0x3740_0000), 1); // 1.5 · 2^-17 rounds up
        assert_eq!(from_f32(0x7F80_0000), i32::MAX as u32);
        assert_eq!(from_f32(0xFF80_0000), i32::MIN as u32);
        assert_eq!(from_f32(0xCF00_0000), i32::MIN as u32); // -2^31 exactly
        assert_eq!(from_f32(0x4700_0000), i32::MAX as u32); // 32768 saturates
        assert_eq!(from_f32(0x7FC0_0000), 0);
        assert_eq!(from_f32(0x0000_0001), 0);
        // 1/π: 20860.757… units → 20861.
        assert_eq!(from_f32((1.0f32 / std::f32::consts::PI).to_bits()), 20861);
    }
}
