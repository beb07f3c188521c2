//! Reciprocal, reciprocal square root and square root, bit for bit as the unit
//! `rendergen_rtl::fp::recip` computes them, in plain integer arithmetic over the shared table
//! [`rendergen_isa::fp_tables::recip`].
//!
//! # Algorithm (correctly rounded)
//! 1. A quadratic on one of 128 segments (the table's module documentation) gives `y`, in
//!    units of `2^-30`, within `2^-24.8` of `z = g(v)` in `[1, 2]` (`2/v`, `2/sqrt(v)` or
//!    `sqrt(v)`).
//! 2. `k = y >> 7` is `y` truncated to a 24-bit significand; the only rounding boundary
//!    within half a unit in the last place (`u = 2^-23`) of `y` is the midpoint
//!    `M = (k + ½)·u`, so the correctly rounded `z` is `k` if `z < M` and `k + 1` if `z > M`
//!    (`z = M` is impossible: a 25-bit midpoint is never the reciprocal, square root or
//!    reciprocal square root of a 24-bit significand).
//! 3. The sign of a remainder decides `z > M`, exactly, in integers: `v·M − 2` (rcp),
//!    `M² − v` (sqrt), `v·M² − 4` (rsqrt) is negative. Each is known to be small
//!    (`< 2^25`, `2^27`, `2^52` in its units), so its low 30 (rcp, sqrt) or 54 (rsqrt) bits
//!    carry its sign: the hardware keeps only those.
//! 4. `k + 1 = 2^24` happens only for `z = 2` (`v = 1` for rcp and rsqrt): the exponent
//!    goes up by one and the fraction is 0.
//!
//! The results are the correctly rounded (round to nearest even) values of the flushed
//! operand, flushed to zero when subnormal: `rcp` equals the host's `1.0 / x` and `sqrt` the
//! host's `x.sqrt()` under [`host::op1`](super::host::op1) for every input, `rsqrt` the exact
//! rounding of `1/√x`. Special cases: [`recip`].

use super::{daz, CANONICAL_NAN};
use rendergen_isa::fp_tables::recip::{self as tab, Func};

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7F80_0000;

/// `op` 0: [`rcp`], 1: [`rsqrt`], 2: [`sqrt`], 3: reserved, always the canonical NaN.
pub fn recip(op: u32, a: u32) -> u32 {
    match op {
        0 => rcp(a),
        1 => rsqrt(a),
        2 => sqrt(a),
        _ => CANONICAL_NAN,
    }
}

/// `1/x`: NaN → canonical NaN, ±0 → ±inf, ±inf → ±0, `|x| > 2^126` → ±0 (the result is
/// subnormal, or `2^-127` for `|x| = 2^127`, and flushed); otherwise correctly rounded.
pub fn rcp(a: u32) -> u32 {
    let x = daz(a);
    let (sign, e, f) = (x & SIGN, (x >> 23) & 0xFF, x & 0x7F_FFFF);
    match (e, f) {
        (0xFF, 0) => sign,
        (0xFF, _) => CANONICAL_NAN,
        (0, _) => sign | INF,
        _ => {
            let (sig, carry) = significand(Func::Rcp, false, f);
            let ef = 253 - e as i32 + carry as i32;
            match ef <= 0 {
                true => sign,
                false => sign | (ef as u32) << 23 | sig,
            }
        }
    }
}

/// `1/√x`: NaN, negative non-zero (−inf included) → canonical NaN; +0 → +inf, −0 → −inf,
/// +inf → +0; otherwise correctly rounded (always a normal number).
pub fn rsqrt(a: u32) -> u32 {
    let x = daz(a);
    let (sign, e, f) = (x & SIGN, (x >> 23) & 0xFF, x & 0x7F_FFFF);
    match (sign != 0, e, f) {
        (_, 0xFF, f) if f != 0 => CANONICAL_NAN,
        (_, 0, _) => sign | INF,
        (true, _, _) => CANONICAL_NAN,
        (false, 0xFF, _) => 0,
        (false, _, _) => {
            let (sig, carry) = significand(Func::Rsqrt, e & 1 == 0, f);
            (190 - ((e + 1) >> 1) + carry) << 23 | sig
        }
    }
}

/// `√x`: NaN, negative non-zero (−inf included) → canonical NaN; ±0 → ±0, +inf → +inf;
/// otherwise correctly rounded.
pub fn sqrt(a: u32) -> u32 {
    let x = daz(a);
    let (sign, e, f) = (x & SIGN, (x >> 23) & 0xFF, x & 0x7F_FFFF);
    match (sign != 0, e, f) {
        (_, 0xFF, f) if f != 0 => CANONICAL_NAN,
        (_, 0, _) => sign,
        (true, _, _) => CANONICAL_NAN,
        (false, 0xFF, _) => INF,
        (false, _, _) => {
            let (sig, carry) = significand(Func::Sqrt, e & 1 == 0, f);
            (63 + ((e + 1) >> 1) + carry) << 23 | sig
        }
    }
}

/// The table-and-quadratic approximation `y` of `g(v)` in units of `2^-30`, for the fraction
/// `f` and (sqrt, rsqrt) an odd unbiased exponent `odd` (`v = 2 × 1.f`).
pub fn approximation(func: Func, odd: bool, f: u32) -> i64 {
    let odd = odd && func != Func::Rcp;
    let c = tab::table()[tab::index(func, odd, (f >> tab::DX_BITS) as usize)];
    let dx = (f & ((1 << tab::DX_BITS) - 1)) as i64;
    let sq = (dx * dx) >> tab::DX_BITS;
    c.c0 + ((c.c1 * dx) >> tab::PRODUCT_SHIFT) + ((c.c2 * sq) >> tab::PRODUCT_SHIFT)
}

/// The correctly rounded fraction (23 bits) of `g(v)` and whether it rounded up to 2
/// (then the fraction is 0 and the exponent one more).
fn significand(func: Func, odd: bool, f: u32) -> (u32, u32) {
    let odd = odd && func != Func::Rcp;
    let y = approximation(func, odd, f);
    let k = (y >> 7) as u64; // 24-bit significand, 2^24 at most
    let mid = 2 * k + 1; // M in units of 2^-24
    let m = (1u64 << 23) | f as u64; // 1.f in units of 2^-23
    let v = m << odd as u32; // v in units of 2^-23
    let up = match func {
        // m·M − 2 in units of 2^-47: 2 is 2^48 ≡ 0 modulo 2^30.
        Func::Rcp => (mid * m) >> 29 & 1,
        // M² − v in units of 2^-48.
        Func::Sqrt => (mid * mid).wrapping_sub(v << 25) >> 29 & 1,
        // v·M² − 4 in units of 2^-71: 4 is 2^73 ≡ 0 modulo 2^54.
        Func::Rsqrt => v.wrapping_mul(mid * mid) >> 53 & 1,
    };
    let sig = k + up;
    ((sig & 0x7F_FFFF) as u32, (sig >> 24) as u32)
}

#[cfg(test)]
mod tests {
    use super::super::host;
    use super::*;

    /// Exact check that `r` is the correctly rounded `g(x)` of a positive normal `x` whose
    /// result is normal: compares `x` with the squares or products at `r ± ½ ulp` in 128-bit
    /// integers (no floating point, no use of the table).
    pub(super) fn correctly_rounded(func: Func, x: u32, r: u32) -> bool {
        let (ex, mx) = (
            (x >> 23) as i32 - 150,
            (1u128 << 23) | (x & 0x7F_FFFF) as u128,
        );
        let (er, mr) = (
            (r >> 23) as i32 - 150,
            (1u128 << 23) | (r & 0x7F_FFFF) as u128,
        );
        // Bounds lo = (2mr − 1)·2^(er−1), hi = (2mr + 1)·2^(er−1); below the binade's start
        // the lower neighbour is half as far.
        let lo_num = if r & 0x7F_FFFF == 0 {
            4 * mr - 1
        } else {
            2 * (2 * mr - 1)
        };
        let (lo, hi, eb) = (lo_num, 2 * (2 * mr + 1), er - 2);
        // Is t = n·2^eb below g(x)? (with exact integer comparisons)
        let below = |n: u128| -> bool {
            match func {
                // n·2^eb · mx·2^ex < 1
                Func::Rcp => cmp_pow2(n * mx, eb + ex) == std::cmp::Ordering::Less,
                // (n·2^eb)² < mx·2^ex
                Func::Sqrt => cmp_scaled(n * n, 2 * eb, mx, ex) == std::cmp::Ordering::Less,
                // (n·2^eb)² · mx·2^ex < 1
                Func::Rsqrt => cmp_pow2(n * n * mx, 2 * eb + ex) == std::cmp::Ordering::Less,
            }
        };
        below(lo) && !below(hi)
    }

    /// Compares `a·2^e` with 1.
    fn cmp_pow2(a: u128, e: i32) -> std::cmp::Ordering {
        cmp_scaled(a, e, 1, 0)
    }

    /// Compares `a·2^ea` with `b·2^eb` (a, b < 2^100).
    fn cmp_scaled(a: u128, ea: i32, b: u128, eb: i32) -> std::cmp::Ordering {
        let d = ea - eb;
        match d {
            0 => a.cmp(&b),
            d if d > 0 && d < 128 && a.leading_zeros() as i32 > d => (a << d).cmp(&b),
            d if d > 0 => std::cmp::Ordering::Greater,
            d if -d < 128 && b.leading_zeros() as i32 > -d => a.cmp(&(b << -d)),
            _ => std::cmp::Ordering::Less,
        }
    }

    /// `|r − exact| / ulp(exact)`, with ulp taken at the binade of `exact` (a normal
    /// binary32 magnitude).
    pub(super) fn ulp_error(r: u32, exact: f64) -> f64 {
        let ulp = 2f64.powi(exact.abs().log2().floor() as i32 - 23);
        (f32::from_bits(r) as f64 - exact).abs() / ulp
    }

    /// The exact value in f64 (accurate to about 2^-52).
    pub(super) fn exact(func: Func, x: u32) -> f64 {
        let x = f32::from_bits(x) as f64;
        match func {
            Func::Rcp => 1.0 / x,
            Func::Rsqrt => 1.0 / x.sqrt(),
            Func::Sqrt => x.sqrt(),
        }
    }

    pub(super) fn model(func: Func) -> fn(u32) -> u32 {
        match func {
            Func::Rcp => rcp,
            Func::Rsqrt => rsqrt,
            Func::Sqrt => sqrt,
        }
    }

    const FUNCS: [Func; 3] = [Func::Rcp, Func::Rsqrt, Func::Sqrt];

    /// Every fraction of every function and parity: the approximation is within half a unit
    /// in the last place, `2^-24`, of `g(v)`, as the correct-rounding argument needs.
    /// Measured: largest `|y − g|` = `2^-24.87` (2/v), `2^-26.31` (2/√v),
    /// `2^-27.75` (√v).
    #[test]
    fn approximation_is_within_half_an_ulp() {
        for func in FUNCS {
            let mut worst = 0f64;
            let parities: &[bool] = match func {
                Func::Rcp => &[false],
                _ => &[false, true],
            };
            for &odd in parities {
                for f in 0..1u32 << 23 {
                    let v = (1.0 + f as f64 / (1u64 << 23) as f64) * if odd { 2.0 } else { 1.0 };
                    let g = match func {
                        Func::Rcp => 2.0 / v,
                        Func::Rsqrt => 2.0 / v.sqrt(),
                        Func::Sqrt => v.sqrt(),
                    };
                    let y = approximation(func, odd, f) as f64 / (1u64 << 30) as f64;
                    worst = worst.max((y - g).abs());
                }
            }
            println!("{func:?}: max |y - g| = 2^{:.2}", worst.log2());
            assert!(worst < 2f64.powi(-24), "{func:?}: 2^{}", worst.log2());
        }
    }

    #[test]
    fn special_values() {
        let nan = CANONICAL_NAN;
        for (x, r, q, s) in [
            // x, rcp, rsqrt, sqrt
            (0x0000_0000, 0x7F80_0000, 0x7F80_0000, 0x0000_0000),
            (0x8000_0000, 0xFF80_0000, 0xFF80_0000, 0x8000_0000),
            (0x0000_0001, 0x7F80_0000, 0x7F80_0000, 0x0000_0000), // subnormal: +0
            (0x807F_FFFF, 0xFF80_0000, 0xFF80_0000, 0x8000_0000), // subnormal: −0
            (0x7F80_0000, 0x0000_0000, 0x0000_0000, 0x7F80_0000),
            (0xFF80_0000, 0x8000_0000, nan, nan),
            (0x7FC0_0000, nan, nan, nan),
            (0xFF80_0001, nan, nan, nan),
            (0x3F80_0000, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000),
            (0xBF80_0000, 0xBF80_0000, nan, nan),
            (0x4080_0000, 0x3E80_0000, 0x3F00_0000, 0x4000_0000), // 4
            (0x4000_0000, 0x3F00_0000, 0x3F35_04F3, 0x3FB5_04F3), // 2
            (0x7E80_0000, 0x0080_0000, 0x2000_0000, 0x5F00_0000), // 2^126: rcp 2^-126
            (0x7E80_0001, 0x0000_0000, 0x1FFF_FFFF, 0x5F00_0000), // just above: rcp flushed
            (0xFF00_0000, 0x8000_0000, nan, nan),                 // −2^127: rcp 2^-127, flushed
            (0x0080_0000, 0x7E80_0000, 0x5F00_0000, 0x2000_0000), // 2^-126
        ] {
            assert_eq!(rcp(x), r, "rcp({x:#010x})");
            assert_eq!(rsqrt(x), q, "rsqrt({x:#010x})");
            assert_eq!(sqrt(x), s, "sqrt({x:#010x})");
        }
        for a in [0, 0x3F80_0000, 0x7F80_0000, 0xFFC0_0000] {
            assert_eq!(recip(3, a), nan);
        }
    }

    /// A million random operands plus specials and edge patterns: rcp and sqrt equal the
    /// host's `1.0 / x` and `x.sqrt()`, rsqrt is the exactly checked correct rounding, and the
    /// f64-measured error is at most ½ ulp (plus f64's own error).
    #[test]
    fn random_million_is_correctly_rounded() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut inputs: Vec<u32> = (0..1_000_000)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 16) as u32
            })
            .collect();
        inputs.extend(edge_inputs());
        let mut worst = [0f64; 3];
        for &x in &inputs {
            assert_eq!(rcp(x), host::op1(x, |a| 1.0 / a), "rcp({x:#010x})");
            assert_eq!(sqrt(x), host::op1(x, f32::sqrt), "sqrt({x:#010x})");
            let d = daz(x);
            let normal_in = d & 0x7F80_0000 != 0 && d & 0x7F80_0000 != 0x7F80_0000;
            if normal_in && d & SIGN == 0 {
                assert!(
                    correctly_rounded(Func::Rsqrt, d, rsqrt(x)),
                    "rsqrt({x:#010x})"
                );
                assert!(correctly_rounded(Func::Sqrt, d, sqrt(x)), "sqrt({x:#010x})");
                if d < 0x7E80_0001 {
                    assert!(correctly_rounded(Func::Rcp, d, rcp(x)), "rcp({x:#010x})");
                }
            }
            for (i, func) in FUNCS.into_iter().enumerate() {
                let r = model(func)(x);
                if normal_in && (d & SIGN == 0 || func == Func::Rcp) && r & 0x7F80_0000 != 0 {
                    worst[i] = worst[i].max(ulp_error(r, exact(func, d)));
                }
            }
        }
        assert!(worst.iter().all(|&w| w <= 0.5 + 1e-6), "{worst:?}");
    }

    /// Powers of two, all-ones fractions, the edges of the exponent range and the specials.
    pub(super) fn edge_inputs() -> Vec<u32> {
        let mut v = Vec::new();
        for e in 0..=255u32 {
            for f in [0, 1, 2, 0x40_0000, 0x7F_FFFE, 0x7F_FFFF] {
                v.extend([e << 23 | f, SIGN | e << 23 | f]);
            }
        }
        v
    }

    /// Every binary32 input: the maximum error in ulp against f64, the count of results that
    /// are not correctly rounded (exact integer check) and of differences from the host's
    /// `1.0 / x` and `x.sqrt()`. Results flushed to zero (rcp of `|x| > 2^126`) and special
    /// inputs are left out of the ulp measure; they are checked against the host.
    /// `cargo test --release -p rendergen-sim --lib fp32::recip::tests::exhaustive -- --ignored --nocapture`
    ///
    /// Measured (6 min of CPU, two threads):
    ///
    /// | function | max error (ulp, vs f64) | not correctly rounded | != host |
    /// |---|---|---|---|
    /// | Rcp | 0.500000 | 0 | 0 |
    /// | Rsqrt | 0.500000 | 0 | - |
    /// | Sqrt | 0.500000 | 0 | 0 |
    #[test]
    #[ignore = "2^32 inputs × 3 functions: minutes"]
    fn exhaustive() {
        let threads = 2u64;
        let chunk = (1u64 << 32) / threads;
        let parts: Vec<_> = (0..threads)
            .map(|t| {
                std::thread::spawn(move || {
                    let mut worst = [0f64; 3];
                    let mut not_cr = [0u64; 3];
                    let mut host_diff = [0u64; 2];
                    for x in (t * chunk..(t + 1) * chunk).map(|x| x as u32) {
                        let (r, q, s) = (rcp(x), rsqrt(x), sqrt(x));
                        host_diff[0] += (r != host::op1(x, |a| 1.0 / a)) as u64;
                        host_diff[1] += (s != host::op1(x, f32::sqrt)) as u64;
                        let d = daz(x);
                        if d & 0x7F80_0000 == 0 || d & 0x7F80_0000 == 0x7F80_0000 {
                            continue;
                        }
                        if d & !SIGN < 0x7E80_0001 {
                            let a = d & !SIGN;
                            worst[0] = worst[0].max(ulp_error(r & !SIGN, exact(Func::Rcp, a)));
                            not_cr[0] += !correctly_rounded(Func::Rcp, a, r & !SIGN) as u64;
                        }
                        if d & SIGN == 0 {
                            for (i, func, v) in [(1, Func::Rsqrt, q), (2, Func::Sqrt, s)] {
                                worst[i] = worst[i].max(ulp_error(v, exact(func, d)));
                                not_cr[i] += !correctly_rounded(func, d, v) as u64;
                            }
                        }
                    }
                    (worst, not_cr, host_diff)
                })
            })
            .collect();
        let (mut worst, mut not_cr, mut host_diff) = ([0f64; 3], [0u64; 3], [0u64; 2]);
        for p in parts {
            let (w, n, h) = p.join().unwrap();
            for i in 0..3 {
                worst[i] = worst[i].max(w[i]);
                not_cr[i] += n[i];
            }
            host_diff[0] += h[0];
            host_diff[1] += h[1];
        }
        println!("| function | max error (ulp, vs f64) | not correctly rounded | != host |");
        println!("|---|---|---|---|");
        for (i, func) in FUNCS.into_iter().enumerate() {
            let host = match i {
                0 => host_diff[0].to_string(),
                2 => host_diff[1].to_string(),
                _ => "-".to_string(),
            };
            println!("| {func:?} | {:.6} | {} | {host} |", worst[i], not_cr[i]);
        }
        assert_eq!(not_cr, [0; 3]);
        assert_eq!(host_diff, [0; 2]);
    }
}
