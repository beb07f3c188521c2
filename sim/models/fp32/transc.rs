//! exp2, log2, sine and cosine as `rendergen_rtl::fp::transc` computes them, bit for bit: the
//! unit's table-and-quadratic algorithm in plain integer arithmetic, over the shared tables of
//! `rendergen_isa::fp_tables::transc`.
//!
//! # Algorithm (shared by the four functions)
//! A reduced argument selects a segment of a table (its leading bits) and gives the position
//! `d` inside it (the next 24 bits); the quadratic `c0 + c1·t + c2·t²`, `t = d/2^24`, is
//! evaluated in Horner form with coefficients in units of `2^-32`:
//! `p = c0 + ((c1 + ((c2·d) >> 24))·d >> 24)` (arithmetic shifts, rounding toward −∞). The
//! result is a 64-bit magnitude in units of `2^-56` with a sign and an exponent adjustment,
//! normalised and rounded to nearest even (the same packing for all four).
//! * **exp2:** `x` as a two's-complement fixed-point number with 30 fraction bits (the
//!   magnitude truncated, then negated); `n = ⌊x⌋` goes to the exponent, the 30-bit fraction
//!   `f` gives segment `f >> 24` of `EXP2` (64 segments) and `d = f mod 2^24`.
//! * **log2:** `x = 2^e·m` with `m ∈ [0.75, 1.5)` (mantissas ≥ 1.5 are halved); `r = m − 1` is
//!   exact in 24 fraction bits; `g = LOG2` quadratic of `r` (96 segments of `1/128`);
//!   `log2 x = e + r·g`, summed exactly in units of `2^-56`, so that results near `x = 1` keep
//!   their relative precision and `log2(2^n) = n` exactly.
//! * **sin, cos:** exact Payne–Hanek reduction to turns: `|x| = M·2^E` (24-bit `M`); the 56
//!   bits of `1/(2π)` of weights `2^-(E+1) … 2^-(E+56)` times `M`, modulo 1, give the fraction
//!   of a turn `t` with 56 bits and an error below `2^-32` turns, for every finite `x`. The top
//!   two bits of `t` are the quadrant (plus one for cos), the next 33 the position `u` in it;
//!   odd quadrants use `1/4 − u`; `SIN` (129 segments of `1/512` turn) gives `sin(2πu)`,
//!   clamped at 0; quadrants 2 and 3 and negative sine arguments negate. `|x| < 2^-12` skips all
//!   that: `sin x = x`, `cos x = 1`.
//!
//! # Special cases (operands flushed first)
//! * exp2: NaN → NaN; −inf → +0; +inf and `x ≥ 128` → +inf; `x < −126` → +0; `exp2(±0) = 1`
//!   and `exp2(n) = 2^n` for integers `n` exactly (the first table entry is exactly 1).
//! * log2: NaN and negative numbers (−inf included) → NaN; ±0 → −inf; +inf → +inf;
//!   `log2(1) = +0`, `log2(2^n) = n`.
//! * sin, cos: NaN and ±inf → NaN; `sin(±0) = ±0`, `cos(±0) = 1`; `sin(−x) = −sin(x)` bit for bit.
//!
//! # Measured accuracy
//! Against `f64::exp2/log2/sin/cos` of the (flushed) f32 input, over all 2^32 inputs
//! (`cargo test --release -p rendergen-sim --lib fp32::transc::tests::exhaustive_error_table
//! -- --ignored --nocapture`): see [`ACCURACY`].

use super::{daz, CANONICAL_NAN};
use rendergen_isa::fp_tables::transc::{EXP2, INV_2PI, LOG2, SIN};

/// The measured error table: the exhaustive run of the module documentation, against f64.
///
/// | function | error measure | all finite inputs | \|x\| ≤ π | \|x\| ≤ 1000 | target |
/// |---|---|---|---|---|---|
/// | exp2 | ULP | 0.678 (at −3.3248716e-3) | 0.678 | 0.678 | ≤ 2 |
/// | log2 | ULP | 0.610 (at 0.7557611) | 0.610 | 0.610 | ≤ 2 |
/// | sin | absolute | 4.01e-8 (at 3.435392e10) | 3.94e-8 | 3.99e-8 | ≤ 2^-20 = 9.5e-7 on [−π, π] |
/// | cos | absolute | 4.00e-8 (at 2.9458496e16) | 3.90e-8 | 3.97e-8 | ≤ 2^-20 on [−π, π] |
///
/// No special result differs from the f64 reference under the flush conventions (over/underflow,
/// infinities, NaNs, zeros). The sine/cosine figures are dominated by the final rounding (half
/// an ULP of a result in [0.5, 1) is 3.0e-8); the reduction is exact to `2^-32` turn for every
/// finite input, so large arguments are as accurate as small ones. (2^32 inputs, 1,364 s on two
/// shared cores.) sin and cos keep an absolute, not a relative, bound: near their zeros
/// (`|x|` just above the `2^-12` bypass, `x` near `kπ`) the relative error is large, e.g.
/// 448 ULP for `sin(2^-12)`.
pub const ACCURACY: &str = "exp2 ≤ 0.678 ULP, log2 ≤ 0.610 ULP (all inputs); \
    sin ≤ 3.94e-8, cos ≤ 3.90e-8 absolute on [−π, π] (≤ 4.01e-8 for every finite input)";

/// Operation codes of the unit's `op` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TranscOp {
    /// `2^x` (op 0).
    Exp2 = 0,
    /// `log2 x` (op 1).
    Log2 = 1,
    /// `sin x`, x in radians (op 2).
    Sin = 2,
    /// `cos x`, x in radians (op 3).
    Cos = 3,
}

impl TranscOp {
    /// The operation of a 2-bit `op` code (bits above are ignored).
    pub fn from_code(op: u64) -> TranscOp {
        [TranscOp::Exp2, TranscOp::Log2, TranscOp::Sin, TranscOp::Cos][(op & 3) as usize]
    }
}

const POS_INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;
const ONE: u32 = 0x3F80_0000;

/// What the unit gives for operation `op` (0 exp2, 1 log2, 2 sin, 3 cos) on `a`.
pub fn transc(op: u64, a: u32) -> u32 {
    match TranscOp::from_code(op) {
        TranscOp::Exp2 => exp2(a),
        TranscOp::Log2 => log2(a),
        TranscOp::Sin => sin_cos(a, false),
        TranscOp::Cos => sin_cos(a, true),
    }
}

/// The quadratic of `seg` at `d / 2^24`, in units of `2^-32`.
fn poly(seg: &[i64; 3], d: u64) -> i64 {
    let d = d as i64;
    let t = seg[1] + ((seg[2] * d) >> 24);
    seg[0] + ((t * d) >> 24)
}

/// The binary32 of `±mag · 2^(ea − 56)`, rounded to nearest even; zero for `mag = 0`, ±inf
/// above the range, the zero of the sign below the normal range.
fn pack(neg: bool, mag: u64, ea: i32) -> u32 {
    let sign = (neg as u32) << 31;
    if mag == 0 {
        return sign;
    }
    let lz = mag.leading_zeros();
    let norm = mag << lz;
    let mut exp = 134 - lz as i32 + ea;
    let mut mant = norm >> 40;
    let guard = (norm >> 39) & 1 == 1;
    let sticky = norm & ((1 << 39) - 1) != 0;
    if guard && (sticky || mant & 1 == 1) {
        mant += 1;
    }
    if mant == 1 << 24 {
        mant = 1 << 23;
        exp += 1;
    }
    match exp {
        255.. => sign | POS_INF,
        ..=0 => sign,
        _ => sign | (exp as u32) << 23 | (mant as u32 & 0x7F_FFFF),
    }
}

/// `2^a` (see the module documentation).
pub fn exp2(a: u32) -> u32 {
    let x = daz(a);
    let (neg, bexp, frac) = (x >> 31 == 1, (x >> 23) & 0xFF, x & 0x7F_FFFF);
    if bexp == 255 && frac != 0 {
        return CANONICAL_NAN;
    }
    if bexp >= 134 {
        return if neg { 0 } else { POS_INF };
    }
    let m = if bexp == 0 {
        0
    } else {
        (frac | 1 << 23) as i64
    };
    let mag = match bexp {
        120.. => m << (bexp - 120),
        _ => m >> (120 - bexp).min(31),
    };
    let fixed = if neg { -mag } else { mag };
    let n = fixed >> 30;
    if n < -126 {
        return 0;
    }
    let f = (fixed & ((1 << 30) - 1)) as u64;
    let p = poly(&EXP2[(f >> 24) as usize], f & 0xFF_FFFF);
    pack(false, (p as u64) << 24, n as i32)
}

/// `log2 a` (see the module documentation).
pub fn log2(a: u32) -> u32 {
    let x = daz(a);
    let (bexp, frac) = ((x >> 23) & 0xFF, x & 0x7F_FFFF);
    match () {
        _ if bexp == 255 && frac != 0 => return CANONICAL_NAN,
        _ if x & 0x7FFF_FFFF == 0 => return NEG_INF,
        _ if x >> 31 == 1 => return CANONICAL_NAN,
        _ if x == POS_INF => return POS_INF,
        _ => {}
    }
    let (e, r) = match frac >> 22 {
        1 => (bexp as i64 - 126, frac as i64 - (1 << 23)),
        _ => (bexp as i64 - 127, (frac as i64) << 1),
    };
    let u = (r + (1 << 22)) as u64;
    let g = poly(&LOG2[(u >> 17) as usize], (u & 0x1_FFFF) << 7);
    let total = ((e as i128) << 56) + (r as i128) * (g as i128);
    pack(total < 0, total.unsigned_abs() as u64, 0)
}

/// 64 bits of `1/(2π)` starting at the bit of weight `2^-j` (`j ≥ −63`; bits of weight `2^0`
/// and above are zero).
fn inv_2pi_bits(j: i32) -> u64 {
    let words = [0, INV_2PI[0], INV_2PI[1], INV_2PI[2], 0, 0];
    let p = (j - 1 + 64) as usize;
    let (w, off) = (p / 64, p % 64);
    let pair = (words[w] as u128) << 64 | words[w + 1] as u128;
    ((pair << off) >> 64) as u64
}

/// `sin a` (`cos = false`) or `cos a` (see the module documentation).
pub fn sin_cos(a: u32, cos: bool) -> u32 {
    let x = daz(a);
    let (neg, bexp, frac) = (x >> 31 == 1, (x >> 23) & 0xFF, x & 0x7F_FFFF);
    if bexp == 255 {
        return CANONICAL_NAN;
    }
    if bexp < 115 {
        return if cos { ONE } else { x };
    }
    let m = (frac | 1 << 23) as u128;
    let e = bexp as i32 - 150;
    let window = inv_2pi_bits(e + 1) >> 8;
    let turn = (m * window as u128) as u64 & ((1 << 56) - 1);
    let quadrant = ((turn >> 54) + cos as u64) & 3;
    let v = (turn >> 21) & ((1 << 33) - 1);
    let u = if quadrant & 1 == 1 { (1 << 33) - v } else { v };
    let p = poly(&SIN[(u >> 26) as usize], (u >> 2) & 0xFF_FFFF).max(0);
    let negate = (quadrant >= 2) ^ (neg && !cos);
    pack(negate, (p as u64) << 24, 0)
}

/// `sin a`.
pub fn sin(a: u32) -> u32 {
    sin_cos(a, false)
}

/// `cos a`.
pub fn cos(a: u32) -> u32 {
    sin_cos(a, true)
}

/// `x^y` as the `fp_pow` unit computes it: `exp2(mul(log2(x), y))` of the model's own
/// functions (so its special cases are theirs: `x < 0` → NaN, `0^y` → `exp2(−inf · y)`).
pub fn pow(x: u32, y: u32) -> u32 {
    exp2(super::basic::mul(log2(x), y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: u32) -> f32 {
        f32::from_bits(x)
    }

    #[test]
    fn special_cases() {
        let nans = [0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFF80_0001];
        for n in nans {
            for op in 0..4 {
                assert_eq!(transc(op, n), CANONICAL_NAN, "op {op} of {n:#x}");
            }
        }
        // exp2
        assert_eq!(exp2(NEG_INF), 0);
        assert_eq!(exp2(POS_INF), POS_INF);
        assert_eq!(exp2(0), ONE);
        assert_eq!(exp2(0x8000_0000), ONE);
        assert_eq!(exp2(0x0000_0001), ONE); // subnormal = 0
        assert_eq!(exp2(128f32.to_bits()), POS_INF);
        assert_eq!(exp2(1000f32.to_bits()), POS_INF);
        assert_eq!(exp2((-126.5f32).to_bits()), 0);
        assert_eq!(exp2((-127f32).to_bits()), 0);
        for n in -126..=127 {
            let want = 2f32.powi(n).to_bits();
            assert_eq!(exp2((n as f32).to_bits()), want, "exp2({n})");
        }
        // log2
        assert_eq!(log2(0), NEG_INF);
        assert_eq!(log2(0x8000_0000), NEG_INF);
        assert_eq!(log2(0x8000_0001), NEG_INF);
        assert_eq!(log2(0xBF80_0000), CANONICAL_NAN);
        assert_eq!(log2(NEG_INF), CANONICAL_NAN);
        assert_eq!(log2(POS_INF), POS_INF);
        assert_eq!(log2(ONE), 0);
        for n in -126..=127 {
            let x = 2f32.powi(n).to_bits();
            assert_eq!(log2(x), (n as f32).to_bits(), "log2(2^{n})");
        }
        // sin, cos
        for x in [POS_INF, NEG_INF] {
            assert_eq!(sin(x), CANONICAL_NAN);
            assert_eq!(cos(x), CANONICAL_NAN);
        }
        assert_eq!(sin(0), 0);
        assert_eq!(sin(0x8000_0000), 0x8000_0000);
        assert_eq!(cos(0x8000_0000), ONE);
        assert_eq!(sin(0x8000_0001), 0x8000_0000);
        assert_eq!(sin(0x3000_0000), 0x3000_0000);
    }

    #[test]
    fn sine_is_odd_and_cosine_even() {
        let mut s = 0x1234_5678_9ABC_DEF0u64;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = s as u32 & 0x7FFF_FFFF;
            if x > POS_INF {
                continue; // NaN: canonical whatever the sign
            }
            assert_eq!(sin(x | 1 << 31), sin(x) ^ 1 << 31, "{x:#x}");
            assert_eq!(cos(x | 1 << 31), cos(x), "{x:#x}");
        }
    }

    /// Error of one result against f64: `Ulp(e)` for exp2/log2, `Abs(e)` for sin/cos, or
    /// `Special(ok)` when the reference is not a finite normal number.
    #[derive(Debug)]
    enum Err {
        Ulp(f64),
        Abs(f64),
        Special(bool),
    }

    fn error(op: u64, a: u32) -> Err {
        let x = f(daz(a)) as f64;
        let r = f(transc(op, a));
        let y = match op {
            0 => x.exp2(),
            1 => x.log2(),
            2 => x.sin(),
            _ => x.cos(),
        };
        let reference = super::super::ftz((y as f32).to_bits());
        if op >= 2 {
            return match y.is_finite() {
                true => Err::Abs((r as f64 - y).abs()),
                false => Err::Special(reference == r.to_bits()),
            };
        }
        if !y.is_finite()
            || y.abs() < f32::MIN_POSITIVE as f64
            || reference & 0x7F80_0000 == 0x7F80_0000
        {
            // Also IEEE overflow to inf: the unit must give the reference exactly.
            return Err::Special(reference == r.to_bits() || (y == 0.0 && r == 0.0));
        }
        if !r.is_finite() {
            return Err::Ulp(f64::INFINITY);
        }
        let ulp = 2f64.powi(y.abs().log2().floor() as i32 - 23);
        Err::Ulp((r as f64 - y).abs() / ulp)
    }

    /// Per-op maxima: ULP (exp2, log2) or absolute error (sin, cos) overall, on [−π, π] and
    /// on [−1000, 1000]; and the count of wrong special results.
    #[derive(Default, Debug, Clone, Copy)]
    struct Table {
        max: [f64; 4],
        max_at: [u32; 4],
        pi: [f64; 4],
        thousand: [f64; 4],
        bad_special: [u64; 4],
        count: u64,
    }

    impl Table {
        fn add(&mut self, a: u32) {
            self.count += 1;
            let x = f(daz(a)).abs();
            for op in 0..4 {
                let e = match error(op, a) {
                    Err::Ulp(e) | Err::Abs(e) => e,
                    Err::Special(ok) => {
                        self.bad_special[op as usize] += !ok as u64;
                        continue;
                    }
                };
                let i = op as usize;
                if e > self.max[i] {
                    self.max[i] = e;
                    self.max_at[i] = a;
                }
                if x <= std::f32::consts::PI {
                    self.pi[i] = self.pi[i].max(e);
                }
                if x <= 1000.0 {
                    self.thousand[i] = self.thousand[i].max(e);
                }
            }
        }

        fn merge(&mut self, o: &Table) {
            self.count += o.count;
            for i in 0..4 {
                if o.max[i] > self.max[i] {
                    self.max[i] = o.max[i];
                    self.max_at[i] = o.max_at[i];
                }
                self.pi[i] = self.pi[i].max(o.pi[i]);
                self.thousand[i] = self.thousand[i].max(o.thousand[i]);
                self.bad_special[i] += o.bad_special[i];
            }
        }

        fn print(&self) {
            println!("{} inputs", self.count);
            for (i, name) in ["exp2 (ULP)", "log2 (ULP)", "sin (abs)", "cos (abs)"]
                .iter()
                .enumerate()
            {
                println!(
                    "{name:11} max {:.4e} at {:#010x} ({:e}); |x|≤π {:.4e}; |x|≤1000 {:.4e}; wrong specials {}",
                    self.max[i],
                    self.max_at[i],
                    f(self.max_at[i]),
                    self.pi[i],
                    self.thousand[i],
                    self.bad_special[i]
                );
            }
        }

        fn check(&self) {
            assert!(self.max[0] <= 2.0, "exp2: {} ULP", self.max[0]);
            assert!(self.max[1] <= 2.0, "log2: {} ULP", self.max[1]);
            let bound = 2f64.powi(-20);
            assert!(self.pi[2] <= bound && self.pi[3] <= bound, "{:?}", self.pi);
            assert_eq!(self.bad_special, [0; 4]);
        }
    }

    /// A million random bit patterns, values of every exponent that matters for each function,
    /// and the specials: the targets of issue 12 (exp2/log2 ≤ 2 ULP, sin/cos ≤ 2^-20 on
    /// [−π, π]).
    #[test]
    fn random_error_table() {
        let mut t = Table::default();
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..1_000_000u32 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let (r, hi) = (s as u32, (s >> 32) as u32);
            let a = match i % 4 {
                0 => r,
                // |x| in [2^-10, 2^10): every exponent the functions are busy in
                1 => (r & 0x807F_FFFF) | (117 + hi % 20) << 23,
                // [0.5, 2), both signs
                2 => 0x3F00_0000 | (r & 0x80FF_FFFF),
                // within 2^15 ULP of 1
                _ => 0x3F80_0000u32.wrapping_add((r & 0xFFFF).wrapping_sub(0x8000)),
            };
            t.add(a);
        }
        for a in [
            0u32,
            0x8000_0000,
            1,
            0x3F80_0000,
            0x3F80_0001,
            0x3F7F_FFFF,
            0x42FE_0000,
            0x4300_0000,
            0xC2FC_0000,
            0xC2FC_0001,
            0x7F7F_FFFF,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
        ] {
            t.add(a);
        }
        t.print();
        t.check();
    }

    /// Every one of the 2^32 inputs, on two threads; prints the error table (a few minutes in
    /// release mode).
    #[test]
    #[ignore = "slow: all 2^32 inputs"]
    fn exhaustive_error_table() {
        let threads = 2u64;
        let parts: Vec<Table> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..threads)
                .map(|k| {
                    sc.spawn(move || {
                        let mut t = Table::default();
                        let lo = (k << 32) / threads;
                        let hi = ((k + 1) << 32) / threads;
                        for a in lo..hi {
                            t.add(a as u32);
                        }
                        t
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut t = Table::default();
        for p in &parts {
            t.merge(p);
        }
        t.print();
        t.check();
    }

    /// pow through exp2/log2: relative error against f64 `powf` over 10⁶ random `x ∈ [2⁻⁸,
    /// 2⁸]`, `y ∈ [−4, 4]` (results normal), in ULP of the result. The error grows with
    /// `|y · log2 x|` (here ≤ 32): log2's absolute error is scaled by `y`.
    #[test]
    fn pow_error_table() {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let (mut worst, mut at) = (0f64, (0u32, 0u32));
        for _ in 0..1_000_000 {
            let x = 2f32.powf((next() % 16_000) as f32 / 1000.0 - 8.0);
            let y = (next() % 8_000) as f32 / 1000.0 - 4.0;
            let want = (x as f64).powf(y as f64);
            let got = f(pow(x.to_bits(), y.to_bits())) as f64;
            let ulp = 2f64.powi(want.abs().log2().floor() as i32 - 23);
            let e = (got - want).abs() / ulp;
            if e > worst {
                (worst, at) = (e, (x.to_bits(), y.to_bits()));
            }
        }
        eprintln!(
            "pow: max {worst:.2} ULP at x={:#010x} y={:#010x}",
            at.0, at.1
        );
        assert!(worst < 16.0, "pow error {worst} ULP at {at:x?}");
        // Exact cases the composition keeps.
        assert_eq!(pow(0x4000_0000, 0x4040_0000), 0x4100_0000, "2^3 = 8");
        assert_eq!(pow(0x3F80_0000, 0x4120_0000), 0x3F80_0000, "1^10 = 1");
        assert_eq!(
            pow(0xBF80_0000, 0x4000_0000),
            super::super::CANONICAL_NAN,
            "x < 0"
        );
        assert_eq!(pow(0, 0x4000_0000), 0, "0^2 = 0");
    }
}
