//! Integer kernels of the ASTC_A pipeline: restoring long division by a 4-bit divisor, division
//! by reciprocal multiplication, the digit-by-digit integer square root and a capped floor
//! log2. The long division and the square root run most significant bit first, so a range of
//! steps can end at any pipeline register and resume after it.

use rendergen_hdl::{cat, lut, name_lets, or_all, Module, Sig};

/// A long division after some of its steps (see [`long_div`]).
#[derive(Clone, Copy, Debug)]
pub struct LongDiv {
    /// Remainder after the last step, 4 bits: `(x >> lo) mod d`.
    pub rem: Sig,
    /// Quotient bits of the steps run, `hi − lo + 1` bits; with the quotient bits of earlier
    /// steps above them, `floor((x >> lo) / d)`.
    pub quot: Sig,
    /// One flag per step, bit `b − lo` for dividend bit `b`: the remainder after consuming bit
    /// `b` was nonzero, i.e. `(x >> b) mod d ≠ 0`.
    pub nonzero: Sig,
}

impl LongDiv {
    /// A division in progress, from its registered parts.
    pub fn at(rem: Sig, quot: Sig, nonzero: Sig) -> LongDiv {
        LongDiv { rem, quot, nonzero }
    }

    /// Continues the division for dividend bits `hi` down to `lo` (just below the bits done).
    #[track_caller]
    #[name_lets]
    pub fn resume(self, x: Sig, d: Sig, hi: u32, lo: u32) -> LongDiv {
        let more = long_div(x, d, hi, lo, self.rem);
        LongDiv {
            rem: more.rem,
            quot: cat(&[self.quot, more.quot]),
            nonzero: cat(&[self.nonzero, more.nonzero]),
        }
    }
}

/// Runs the steps of a restoring long division of `x` by the 4-bit `d` (1..=15) for dividend
/// bits `hi` down to `lo`, starting from the 4-bit remainder `rem` of the steps above `hi` (0 for
/// a fresh division).
///
/// Because the dividend is consumed from the top, the step that consumes bit `b` leaves exactly
/// the quotient and remainder of `x >> b`: one division gives `floor((W >> l) / d)` and
/// `(W >> l) mod d` for every mip level `l` at once.
///
/// Cost: `hi − lo + 1` steps of a 5-bit compare-subtract and a 4-bit multiplexer.
#[track_caller]
#[name_lets]
pub fn long_div(x: Sig, d: Sig, hi: u32, lo: u32, rem: Sig) -> LongDiv {
    assert!(
        hi >= lo && hi < x.width(),
        "long_div bits {hi}..={lo} of {}",
        x.width()
    );
    let d5 = d.zext(5);
    let mut rem = rem;
    let mut quot = Vec::new();
    let mut nonzero = Vec::new();
    for b in (lo..=hi).rev() {
        let t = cat(&[rem, x.bit(b)]);
        let fits = t.ge(d5);
        rem = fits.mux((t - d5).bits(3, 0), t.bits(3, 0));
        quot.push(fits);
        nonzero.push(rem.any());
    }
    LongDiv {
        rem,
        quot: cat(&quot),
        nonzero: cat(&nonzero),
    }
}

/// A square root after some of its iterations (see [`isqrt_steps`]).
#[derive(Clone, Copy, Debug)]
pub struct SqrtState {
    /// Root bits found so far (one more bit per iteration, plus a leading 0).
    pub root: Sig,
    /// Remainder `(n >> 2i) − root²`, one bit wider than `root`.
    pub rem: Sig,
}

impl SqrtState {
    /// The state before the first iteration.
    pub fn start(m: &mut Module) -> SqrtState {
        SqrtState {
            root: m.lit(0, 1),
            rem: m.lit(0, 2),
        }
    }
}

/// Runs the iterations of the digit-by-digit integer square root of `n` for root bits `hi` down
/// to `lo` (iteration `i` consumes bits `2i+1, 2i` of `n`). After the iteration of bit 0, `root`
/// is `floor(sqrt(n))` (with one leading zero bit).
///
/// Cost: per iteration one compare-subtract as wide as the root so far plus 3 bits.
#[track_caller]
#[name_lets]
pub fn isqrt_steps(n: Sig, hi: u32, lo: u32, state: SqrtState) -> SqrtState {
    assert!(
        hi >= lo && 2 * hi + 1 < n.width(),
        "isqrt bits {hi}..={lo} of {}",
        n.width()
    );
    let SqrtState { mut root, mut rem } = state;
    for i in (lo..=hi).rev() {
        let w = root.width() + 2;
        let t = cat(&[rem, n.bits(2 * i + 1, 2 * i)]).resize(w + 1);
        let trial = (root.zext(w + 1) << 2) | 1u64; // 4·root + 1
        let fits = t.ge(trial);
        root = cat(&[root, fits]);
        rem = fits.mux(t - trial, t).resize(root.width() + 1);
    }
    SqrtState { root, rem }
}

/// `floor(log2(x))` capped at `cap` and `max_k`: the largest `k` in `1..=max_k` with
/// `x ≥ 2^k` and `cap ≥ k`, else 0 (so 0 and 1 both give 0). The flags `x ≥ 2^k && cap ≥ k`
/// form a thermometer code, turned into binary without a priority chain (about 10 gate
/// levels). The result has the width of `max_k`'s binary form.
#[track_caller]
#[name_lets]
pub fn capped_log2(x: Sig, cap: Sig, max_k: u32) -> Sig {
    let max_k = max_k.min(x.width() - 1);
    let w = 32 - max_k.leading_zeros();
    let above: Vec<Sig> = (1..=max_k)
        .map(|k| x.bits(x.width() - 1, k).any() & cap.ge(k as u64))
        .collect();
    let t = |k: u32| above.get(k as usize - 1).copied();
    // Bit j of the count is set inside the runs [s, s + 2^j) with s = 2^j, 3·2^j, 5·2^j, ...
    let bits: Vec<Sig> = (0..w)
        .rev()
        .map(|j| {
            let runs: Vec<Sig> = (1u32 << j..=max_k)
                .step_by(2 << j)
                .map(|s| match t(s + (1 << j)) {
                    Some(end) => t(s).expect("s <= max_k") & !end,
                    None => t(s).expect("s <= max_k"),
                })
                .collect();
            or_all(runs)
        })
        .collect();
    cat(&bits)
}

/// The 20-bit reciprocals `ceil(2^19 / d)` for `d` in 0..=15 (0 reads as 1).
fn reciprocals() -> Vec<u64> {
    (0..16u64)
        .map(|d| (1u64 << 19).div_ceil(d.max(1)))
        .collect()
}

/// `(x / d, x mod d)` for a 15-bit `x` and a 4-bit `d` (0 reads as 1) by a reciprocal
/// multiply: `x · ceil(2^19/d) >> 19` is exact for `x < 2^15` because the reciprocal's error
/// `e < d ≤ 15` gives `x·e < 2^19`. The remainder is below 16, so only the low 4 bits of
/// `x − q·d` are computed.
///
/// Cost: a 16-entry table, a 15×20 multiplier, a 4×4 multiplier and a 4-bit subtractor;
/// depth about that of the multiplier.
#[track_caller]
#[name_lets]
pub fn div_by_reciprocal(x: Sig, d: Sig) -> (Sig, Sig) {
    assert!(
        x.width() <= 15 && d.width() == 4,
        "div_by_reciprocal of {} by {} bits",
        x.width(),
        d.width()
    );
    let recip = lut(d, &reciprocals(), 20);
    let quot = x.zext(15).mul_full(recip).bits(33, 19);
    let d_low = d.eq(0).mux(1u64, d);
    let rem = x.zext(15).bits(3, 0) - quot.bits(3, 0).mul_full(d_low).bits(3, 0);
    (quot, rem)
}

/// `max(1, x)`, same width.
#[track_caller]
pub fn at_least_one(x: Sig) -> Sig {
    x.eq(0).mux(1u64, x)
}

/// Sum of `terms` (each zero-extended to `width`) as a balanced tree, modulo `2^width`.
#[track_caller]
#[name_lets]
pub fn sum_tree(m: &mut Module, terms: &[Sig], width: u32) -> Sig {
    let mut level: Vec<Sig> = terms.iter().map(|t| t.resize(width)).collect();
    if level.is_empty() {
        return m.lit(0, width);
    }
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|p| if p.len() == 2 { p[0] + p[1] } else { p[0] })
            .collect();
    }
    level[0]
}
