//! The golden model of the shader core's 32-bit integer ALU (`rendergen_rtl::fp::int_alu`,
//! issue 12 §1), written from the specification with Rust's wrapping integer operations on
//! `u32` bit patterns (`as i32` where the operation is signed).
//!
//! Shift amounts are `b & 31` (a shift by 32 is a shift by 0, Rust's `wrapping_shl`);
//! compares give 1 or 0; `sel(a, b, c)` is `c ≠ 0 ? a : b`.

/// `a + b`, wrapping.
pub fn add(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

/// `a − b`, wrapping.
pub fn sub(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b)
}

/// Low 32 bits of `a · b` (the same for signed and unsigned operands).
pub fn mul(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}

/// `a << (b & 31)`.
pub fn shl(a: u32, b: u32) -> u32 {
    a.wrapping_shl(b)
}

/// `a >> (b & 31)`, logical.
pub fn shr(a: u32, b: u32) -> u32 {
    a.wrapping_shr(b)
}

/// `a >> (b & 31)`, arithmetic (`a` signed).
pub fn sar(a: u32, b: u32) -> u32 {
    (a as i32).wrapping_shr(b) as u32
}

/// A comparison of [`cmp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntCmp {
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// Signed `a < b`.
    Slt,
    /// Signed `a <= b`.
    Sle,
    /// Unsigned `a < b`.
    Ult,
    /// Unsigned `a <= b`.
    Ule,
}

/// The comparison `op` as 1 or 0.
pub fn cmp(op: IntCmp, a: u32, b: u32) -> u32 {
    let (sa, sb) = (a as i32, b as i32);
    u32::from(match op {
        IntCmp::Eq => a == b,
        IntCmp::Ne => a != b,
        IntCmp::Slt => sa < sb,
        IntCmp::Sle => sa <= sb,
        IntCmp::Ult => a < b,
        IntCmp::Ule => a <= b,
    })
}

/// Signed minimum.
pub fn min(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

/// Signed maximum.
pub fn max(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

/// Unsigned minimum.
pub fn minu(a: u32, b: u32) -> u32 {
    a.min(b)
}

/// Unsigned maximum.
pub fn maxu(a: u32, b: u32) -> u32 {
    a.max(b)
}

/// `c ≠ 0 ? a : b`.
pub fn sel(a: u32, b: u32, c: u32) -> u32 {
    match c {
        0 => b,
        _ => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u32 = 0x8000_0000;
    const MAX: u32 = 0x7FFF_FFFF;
    const NEG1: u32 = 0xFFFF_FFFF;

    #[test]
    fn arithmetic_wraps() {
        assert_eq!(add(2, 3), 5);
        assert_eq!(add(MAX, 1), MIN);
        assert_eq!(add(NEG1, 1), 0);
        assert_eq!(sub(0, 1), NEG1);
        assert_eq!(sub(MIN, 1), MAX);
        assert_eq!(sub(5, 7), (-2i32) as u32);
        assert_eq!(mul(6, 7), 42);
        assert_eq!(mul(NEG1, NEG1), 1);
        assert_eq!(mul((-3i32) as u32, 5), (-15i32) as u32);
        assert_eq!(mul(MIN, NEG1), MIN);
        assert_eq!(mul(0x1_0000, 0x1_0000), 0);
        // Low word of 0x1234_5678 · 0x9ABC_DEF0 (Python big integers).
        assert_eq!(mul(0x1234_5678, 0x9ABC_DEF0), 0x242D_2080);
        assert_eq!(mul(0xFFFF, 0xFFFF), 0xFFFE_0001);
    }

    #[test]
    fn shifts_use_the_low_five_bits() {
        assert_eq!(shl(1, 0), 1);
        assert_eq!(shl(1, 31), MIN);
        assert_eq!(shl(1, 32), 1);
        assert_eq!(shl(1, 33), 2);
        assert_eq!(shl(3, 0xFFFF_FFE1), 6);
        assert_eq!(shr(MIN, 31), 1);
        assert_eq!(shr(MIN, 32), MIN);
        assert_eq!(shr(NEG1, 4), 0x0FFF_FFFF);
        assert_eq!(sar(MIN, 31), NEG1);
        assert_eq!(sar(MIN, 4), 0xF800_0000);
        assert_eq!(sar(MIN, 63), NEG1);
        assert_eq!(sar(MAX, 30), 1);
        assert_eq!(sar(0x4000_0000, 32), 0x4000_0000);
    }

    #[test]
    fn compares_signed_and_unsigned() {
        let n = |x: i32| x as u32;
        assert_eq!(cmp(IntCmp::Eq, 5, 5), 1);
        assert_eq!(cmp(IntCmp::Eq, 5, 6), 0);
        assert_eq!(cmp(IntCmp::Ne, 5, 6), 1);
        assert_eq!(cmp(IntCmp::Ne, MIN, MIN), 0);
        assert_eq!(cmp(IntCmp::Slt, n(-1), 0), 1);
        assert_eq!(cmp(IntCmp::Ult, n(-1), 0), 0);
        assert_eq!(cmp(IntCmp::Slt, MIN, MAX), 1);
        assert_eq!(cmp(IntCmp::Ult, MIN, MAX), 0);
        assert_eq!(cmp(IntCmp::Slt, n(-2), n(-1)), 1);
        assert_eq!(cmp(IntCmp::Slt, n(-1), n(-1)), 0);
        assert_eq!(cmp(IntCmp::Sle, n(-1), n(-1)), 1);
        assert_eq!(cmp(IntCmp::Sle, 0, n(-1)), 0);
        assert_eq!(cmp(IntCmp::Ule, 0, n(-1)), 1);
        assert_eq!(cmp(IntCmp::Ule, 7, 7), 1);
        assert_eq!(cmp(IntCmp::Ult, 7, 7), 0);
    }

    #[test]
    fn min_max_and_select() {
        let n = |x: i32| x as u32;
        assert_eq!(min(n(-1), 1), n(-1));
        assert_eq!(minu(n(-1), 1), 1);
        assert_eq!(max(n(-1), 1), 1);
        assert_eq!(maxu(n(-1), 1), n(-1));
        assert_eq!(min(MIN, MAX), MIN);
        assert_eq!(max(MIN, MAX), MAX);
        assert_eq!(minu(MIN, MAX), MAX);
        assert_eq!(maxu(MIN, MAX), MIN);
        assert_eq!(min(n(-5), n(-7)), n(-7));
        assert_eq!(sel(1, 2, 0), 2);
        assert_eq!(sel(1, 2, 1), 1);
        assert_eq!(sel(1, 2, MIN), 1);
    }
}
