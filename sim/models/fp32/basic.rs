//! The correctly rounded binary32 operations on `u32` encodings, under the units' conventions
//! (see [`super`]): the golden model of `rendergen_rtl::fp::fma` and `rendergen_rtl::fp::misc`.
//!
//! The rounded operations (add, sub, mul, fma, conversions, floor … round_even, fract) are the
//! host CPU's `f32` through [`host`] (operands flushed, result flushed, NaN canonical), so they
//! are the IEEE-754 reference by construction; the tests below check them against an
//! independent exact computation (f64 two-sum and round-to-odd) on a million operands each.
//! The other operations (min, max, compares, abs, neg) are defined here bit by bit.
//!
//! Output flushing: the result is the IEEE result of the flushed operands rounded with gradual
//! underflow; only if *that* is subnormal does it become the zero of its sign (an exact value
//! just below 2^-126 that rounds up to 2^-126 stays 2^-126).

use super::{daz, ftz, host, is_nan, CANONICAL_NAN};

/// `a + b`, one rounding. `x + (−x)` is +0; `(−0) + (−0)` is −0.
pub fn add(a: u32, b: u32) -> u32 {
    host::op2(a, b, |x, y| x + y)
}

/// `a − b`, one rounding.
pub fn sub(a: u32, b: u32) -> u32 {
    host::op2(a, b, |x, y| x - y)
}

/// `a · b`, one rounding (equal to `fma(a, b, −0)`).
pub fn mul(a: u32, b: u32) -> u32 {
    host::op2(a, b, |x, y| x * y)
}

/// `a · b + c` with one rounding (fused multiply-add).
pub fn fma(a: u32, b: u32, c: u32) -> u32 {
    host::op3(a, b, c, f32::mul_add)
}

/// The total order min/max use on non-NaN flushed values: −0 below +0.
fn key(x: u32) -> i64 {
    let mag = (x & 0x7FFF_FFFF) as i64;
    match x >> 31 {
        1 => -mag - 1,
        _ => mag,
    }
}

/// Shared part of [`min`] and [`max`]: operands flushed; one NaN gives the other operand, two
/// give the canonical NaN; otherwise `pick_b(a, b)` says whether `b` is the result.
fn min_max(a: u32, b: u32, pick_b: impl Fn(i64, i64) -> bool) -> u32 {
    let (a, b) = (daz(a), daz(b));
    match (is_nan(a), is_nan(b)) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) if pick_b(key(a), key(b)) => b,
        _ => a,
    }
}

/// IEEE-754 minimumNumber on flushed operands: the smaller, with −0 < +0; if exactly one
/// operand is NaN the other (flushed) one; both NaN → canonical NaN. A subnormal operand counts
/// (and is returned) as the zero of its sign.
pub fn min(a: u32, b: u32) -> u32 {
    min_max(a, b, |ka, kb| kb < ka)
}

/// IEEE-754 maximumNumber on flushed operands (the mirror of [`min`]: −0 < +0, one NaN gives
/// the other operand, two give the canonical NaN).
pub fn max(a: u32, b: u32) -> u32 {
    min_max(a, b, |ka, kb| kb > ka)
}

/// A comparison of [`cmp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `a == b`.
    Eq,
    /// `a != b` (true when unordered).
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
}

/// The comparison `op` of the flushed operands as 1 or 0: −0 == +0, a subnormal equals the
/// zero of its sign; with a NaN operand every comparison is false except [`Cmp::Ne`].
pub fn cmp(op: Cmp, a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(daz(a)), f32::from_bits(daz(b)));
    let r = match op {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
    };
    r as u32
}

/// f32 → i32 (as bits): toward zero, saturating, NaN → 0 (Rust `as`).
pub fn f2i(a: u32) -> u32 {
    f32::from_bits(daz(a)) as i32 as u32
}

/// f32 → u32: toward zero, saturating (negative → 0), NaN → 0 (Rust `as`).
pub fn f2u(a: u32) -> u32 {
    f32::from_bits(daz(a)) as u32
}

/// i32 (the bits of `a`) → f32, round to nearest even.
pub fn i2f(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// u32 → f32, round to nearest even.
pub fn u2f(a: u32) -> u32 {
    (a as f32).to_bits()
}

/// Largest integer ≤ `a` (−0.5 → −1, −0 → −0).
pub fn floor(a: u32) -> u32 {
    host::op1(a, f32::floor)
}

/// Smallest integer ≥ `a` (−0.5 → −0).
pub fn ceil(a: u32) -> u32 {
    host::op1(a, f32::ceil)
}

/// `a` rounded toward zero to an integer (sign kept: −0.5 → −0).
pub fn trunc(a: u32) -> u32 {
    host::op1(a, f32::trunc)
}

/// GLSL `fract`: `a − floor(a)` computed as one f32 subtraction (so a tiny negative `a` gives
/// 1.0, integers and ±0 give +0, ±∞ give NaN).
pub fn fract(a: u32) -> u32 {
    host::op1(a, |x| x - x.floor())
}

/// GLSL `roundEven`: nearest integer, halfway cases to even (sign kept: −0.4 → −0).
pub fn round_even(a: u32) -> u32 {
    host::op1(a, f32::round_ties_even)
}

/// `|a|`, flushed and canonical like every result: a subnormal gives +0, a NaN the canonical
/// NaN.
pub fn abs(a: u32) -> u32 {
    ftz(daz(a) & 0x7FFF_FFFF)
}

/// `−a`, flushed and canonical: a subnormal gives the zero of the opposite sign, a NaN the
/// canonical NaN (its sign is not flipped).
pub fn neg(a: u32) -> u32 {
    ftz(daz(a) ^ 0x8000_0000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Xorshift random numbers (the test must not depend on the testbench kit).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 16) as u32
        }
    }

    /// Special values: zeros, subnormals, ±1, extremes, infinities, NaNs, rounding patterns.
    const SPECIALS: &[u32] = &[
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x807F_FFFF,
        0x0080_0000,
        0x8080_0000,
        0x0080_0001,
        0x3F80_0000,
        0xBF80_0000,
        0x3F80_0001,
        0x3FFF_FFFF,
        0x4000_0000,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0000,
        0x7F80_0001,
        0x4B00_0000,
        0x4B00_0001,
        0x3F00_0000,
        0x3400_0000,
        0x1F80_0000,
        0x2000_0001,
        0x5F80_0000,
        0x3EFF_FFFF,
        0x3F7F_FFFF,
        0xBF7F_FFFF,
        0x0100_0000,
    ];

    /// Operand flushing written independently of `daz`: through `f32` classification.
    fn flush(x: u32) -> f64 {
        let f = f32::from_bits(x);
        match f.is_subnormal() {
            true => f64::from(0.0f32.copysign(f)),
            false => f64::from(f),
        }
    }

    /// `a·b + c` of the flushed operands, exactly, rounded once to f32 with gradual underflow,
    /// then flushed: the product is exact in f64; the sum is exact as s + e (two-sum); rounding
    /// s to odd with e's sign and then to f32 (24 + 2 ≤ 53 bits) rounds the exact sum once.
    fn exact_fma(a: u32, b: u32, c: u32) -> u32 {
        let p = flush(a) * flush(b);
        let c = flush(c);
        let s = p + c;
        if !s.is_finite() {
            return canon(s as f32);
        }
        let bp = s - p;
        let e = (p - (s - bp)) + (c - bp);
        let odd = match e != 0.0 && s.to_bits() & 1 == 0 {
            true => match (e > 0.0) == (s > 0.0) {
                true => f64::from_bits(s.to_bits() + 1),
                false => f64::from_bits(s.to_bits() - 1),
            },
            false => s,
        };
        canon(odd as f32)
    }

    /// The output rule written independently of `ftz`: subnormal → signed zero, NaN canonical.
    fn canon(r: f32) -> u32 {
        match () {
            _ if r.is_nan() => CANONICAL_NAN,
            _ if r.is_subnormal() => 0.0f32.copysign(r).to_bits(),
            _ => r.to_bits(),
        }
    }

    fn check(n: usize, seed: u64, f: impl Fn(u32, u32, u32) -> (u32, u32)) {
        let mut rng = Rng(seed);
        let mut sp = SPECIALS.iter().copied().cycle();
        for i in 0..n {
            // A quarter of the operands are specials, a quarter near each other (cancellation).
            let mut x = [rng.next(), rng.next(), rng.next()];
            match i % 4 {
                0 => x[rng.next() as usize % 3] = sp.next().unwrap_or(0),
                1 => x[2] = (x[0] & 0xFF80_0000 | rng.next() & 0x7F_FFFF) ^ 0x8000_0000,
                2 => x = x.map(|v| v & 0x8FFF_FFFF | 0x3000_0000),
                _ => {}
            }
            let (model, exact) = f(x[0], x[1], x[2]);
            assert_eq!(
                model, exact,
                "operands {x:#010x?}: model {model:#010x}, exact {exact:#010x}"
            );
        }
        for &a in SPECIALS {
            for &b in SPECIALS {
                for &c in SPECIALS.iter().step_by(3) {
                    let (model, exact) = f(a, b, c);
                    assert_eq!(model, exact, "{a:#010x} {b:#010x} {c:#010x}");
                }
            }
        }
    }

    #[test]
    fn fma_matches_exact_rounding() {
        check(1_000_000, 0x9E37_79B9, |a, b, c| {
            (fma(a, b, c), exact_fma(a, b, c))
        });
    }

    /// Cancellation: c is the negated product rounded, so the exact result is the product's
    /// rounding error (tiny, often subnormal).
    #[test]
    fn fma_cancellation_matches_exact_rounding() {
        let mut rng = Rng(0x1234_5678);
        for _ in 0..1_000_000 {
            let (a, b) = (rng.next(), rng.next());
            let c = mul(a, b) ^ 0x8000_0000 ^ (rng.next() & 3);
            assert_eq!(
                fma(a, b, c),
                exact_fma(a, b, c),
                "{a:#010x} {b:#010x} {c:#010x}"
            );
        }
    }

    #[test]
    fn add_sub_mul_match_exact_rounding() {
        const ONE: u32 = 0x3F80_0000;
        check(1_000_000, 0xC0FF_EE11, |a, b, _| {
            (add(a, b), exact_fma(a, ONE, b))
        });
        check(1_000_000, 0xBEEF_0042, |a, b, _| {
            (sub(a, b), exact_fma(a, ONE, b ^ 0x8000_0000))
        });
        check(1_000_000, 0x5EED_0007, |a, b, _| {
            (mul(a, b), canon((flush(a) * flush(b)) as f32))
        });
        // mul is a·b + (−0) and add is a·1 + b in the fused unit.
        check(200_000, 0xAB, |a, b, _| (mul(a, b), fma(a, b, 0x8000_0000)));
        check(200_000, 0xCD, |a, b, _| (add(a, b), fma(a, ONE, b)));
    }

    /// Rounding to integers, fract and conversions against f64 arithmetic (every f32 and
    /// every i32/u32 is exact in f64; integral values of f32 operands are f32 values), with
    /// flushing and saturation written out here.
    #[test]
    fn integer_ops_match_f64() {
        const ONE: u32 = 0x3F80_0000;
        let int = |x: f64| canon(x as f32);
        let mut rng = Rng(0x0DD_BA11);
        let mut sp = SPECIALS.iter().copied().cycle();
        for i in 0..1_000_000 {
            let a = match i % 3 {
                0 => rng.next(),
                1 => rng.next() & 0x83FF_FFFF | 0x3C00_0000,
                _ => sp.next().unwrap_or(0),
            };
            let x = flush(a);
            assert_eq!(floor(a), int(x.floor()), "floor {a:#010x}");
            assert_eq!(ceil(a), int(x.ceil()), "ceil {a:#010x}");
            assert_eq!(trunc(a), int(x.trunc()), "trunc {a:#010x}");
            let even = match (x - x.floor() == 0.5, x.floor() % 2.0 == 0.0) {
                (true, true) => x.floor(),
                (true, false) => x.ceil(),
                _ => x.round(),
            };
            assert_eq!(round_even(a), int(even.copysign(x)), "roundEven {a:#010x}");
            let fl = int(x.floor());
            assert_eq!(
                fract(a),
                exact_fma(a, ONE, fl ^ 0x8000_0000),
                "fract {a:#010x}"
            );
            let t = x.trunc();
            let want_i = match () {
                _ if x.is_nan() => 0,
                _ if t >= 2_147_483_647.0 => i32::MAX,
                _ if t <= -2_147_483_648.0 => i32::MIN,
                _ => t as i64 as i32,
            };
            assert_eq!(f2i(a), want_i as u32, "f2i {a:#010x}");
            let want_u = match () {
                _ if x.is_nan() || t <= 0.0 => 0,
                _ if t >= 4_294_967_295.0 => u32::MAX,
                _ => t as i64 as u32,
            };
            assert_eq!(f2u(a), want_u, "f2u {a:#010x}");
            assert_eq!(
                i2f(a),
                (f64::from(a as i32) as f32).to_bits(),
                "i2f {a:#010x}"
            );
            assert_eq!(u2f(a), (f64::from(a) as f32).to_bits(), "u2f {a:#010x}");
        }
    }

    #[test]
    fn output_flush_rule() {
        // 2^-126 · (1 − 2^-24) rounds up to 2^-126 in IEEE: it stays.
        assert_eq!(mul(0x0080_0000, 0x3F7F_FFFF), 0x0080_0000);
        // (2^-126 · (1 − 2^-23)) is subnormal after rounding: flushed, sign kept.
        assert_eq!(mul(0x8080_0000, 0x3F7F_FFFE), 0x8000_0000);
        assert_eq!(add(0x3F80_0000, 0xBF80_0000), 0);
        assert_eq!(add(0x8000_0000, 0x8000_0000), 0x8000_0000);
        assert_eq!(fma(0x7F80_0000, 0, 0x3F80_0000), CANONICAL_NAN);
    }

    #[test]
    fn min_max_compare_conversions() {
        assert_eq!(min(0x8000_0000, 0), 0x8000_0000);
        assert_eq!(max(0x8000_0000, 0), 0);
        assert_eq!(min(0x7FC0_1234, 0xBF80_0000), 0xBF80_0000);
        assert_eq!(max(0x3F80_0000, 0xFF80_0001), 0x3F80_0000);
        assert_eq!(min(0x7F80_0001, 0xFFC0_0000), CANONICAL_NAN);
        assert_eq!(min(0x0000_0001, 0x3F80_0000), 0);
        assert_eq!(cmp(Cmp::Eq, 0x8000_0000, 0x0000_0001), 1);
        assert_eq!(cmp(Cmp::Ne, CANONICAL_NAN, CANONICAL_NAN), 1);
        assert_eq!(cmp(Cmp::Le, CANONICAL_NAN, 0), 0);
        assert_eq!(f2i(0x4F00_0000), i32::MAX as u32);
        assert_eq!(f2i(0xBFC0_0000), -1i32 as u32);
        assert_eq!(f2u(0xBF80_0000), 0);
        assert_eq!(i2f(0x7FFF_FFFF), 0x4F00_0000);
        assert_eq!(u2f(0xFFFF_FFFF), 0x4F80_0000);
        assert_eq!(floor(0xBF00_0000), 0xBF80_0000);
        assert_eq!(ceil(0xBF00_0000), 0x8000_0000);
        assert_eq!(fract(0xB280_0000), 0x3F80_0000);
        assert_eq!(fract(0x8000_0000), 0);
        assert_eq!(round_even(0x3FC0_0000), 0x4000_0000);
        assert_eq!(round_even(0x4020_0000), 0x4000_0000);
        assert_eq!(abs(0x8000_0001), 0);
        assert_eq!(neg(0x0000_0001), 0x8000_0000);
        assert_eq!(neg(0xFFC0_0001), CANONICAL_NAN);
    }
}
