//! `fp_div` (binary32 division, IEEE subnormals kept): the RTL against the host CPU's `f32`
//! division bit for bit (NaN results compared as the canonical NaN), full throughput, random
//! gaps and back-pressure, special values, subnormal operands and results, ties on the
//! subnormal grid, quotients near rounding midpoints; lint; an ignored long sweep and area.

use super::{run_unit, Op, SPECIALS};
use rendergen_gen::tools::{synth, SynthTarget};
use rendergen_hdl::Design;
use rendergen_rtl::fp::div::{fp_div_top, LATENCY};
use rendergen_rtl::fp::{FpCfg, CANONICAL_NAN};
use rendergen_sim::kit::{seed_from_env_or, Rng};

fn design() -> Design {
    fp_div_top(&FpCfg::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The golden model: the host's IEEE division (x86-64 SSE and AArch64 keep subnormals by
/// default), any NaN replaced by the canonical one.
pub fn host_div(a: u32, b: u32) -> u32 {
    let q = f32::from_bits(a) / f32::from_bits(b);
    if q.is_nan() {
        CANONICAL_NAN
    } else {
        q.to_bits()
    }
}

/// A random operand: a random bit pattern, a random subnormal, or a value of moderate
/// exponent, each sign.
fn operand(rng: &mut Rng) -> u32 {
    let bits = rng.next_u64() as u32;
    match rng.below(4) {
        0 => bits,
        1 => bits & 0x807F_FFFF,
        _ => (bits & 0x807F_FFFF) | ((100 + rng.below(55) as u32) << 23),
    }
}

/// Pairs that reach the hard cases: results on the subnormal grid with exact ties (`a` over a
/// power of two), quotients of a rounding midpoint (`a` = `b·M` rounded, and its neighbours),
/// overflow and underflow boundaries, subnormal over subnormal.
fn hard_pair(rng: &mut Rng) -> (u32, u32) {
    let sign = |rng: &mut Rng| (rng.below(2) as u32) << 31;
    match rng.below(5) {
        0 => {
            // Small a over 2^k: the exact quotient is a multiple of 2^-150 or finer, so ties.
            let a = (rng.next_u64() as u32 & 0x007F_FFFF) | ((rng.below(24) as u32) << 23);
            let b = (127 + rng.below(30) as u32) << 23;
            (a | sign(rng), b | sign(rng))
        }
        1 => {
            // a ≈ b·M for a midpoint M between two representable quotients.
            let b = f32::from_bits((rng.next_u64() as u32 & 0x007F_FFFF) | (127 << 23));
            let k = (rng.next_u64() as u32 & 0x00FF_FFFF) | 0x0100_0000;
            let mid = (2 * k as u64 + 1) as f64 / (1u64 << 25) as f64;
            let a = (b as f64 * mid) as f32;
            let nudge = rng.below(3) as i64 - 1;
            let a = (a.to_bits() as i64 + nudge) as u32;
            let scale = (rng.below(200) as u32) << 23;
            (
                a | sign(rng),
                (b.to_bits() + scale - (100 << 23)) | sign(rng),
            )
        }
        2 => {
            // Quotients near the largest finite value and near 2^-126.
            let big = (rng.next_u64() as u32 & 0x007F_FFFF) | ((250 + rng.below(5) as u32) << 23);
            let small =
                (rng.next_u64() as u32 & 0x007F_FFFF) | ((120 + rng.below(10) as u32) << 23);
            if rng.below(2) == 0 {
                (big, small | sign(rng))
            } else {
                (small, big | sign(rng))
            }
        }
        3 => (
            rng.next_u64() as u32 & 0x807F_FFFF,
            rng.next_u64() as u32 & 0x807F_FFFF,
        ),
        _ => (operand(rng), operand(rng)),
    }
}

/// Every pair of [`SPECIALS`], then `n` random and `n` hard pairs.
fn ops(seed: u64, n: usize) -> (Vec<Op>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let mut pairs: Vec<(u32, u32)> = (SPECIALS.iter())
        .flat_map(|&a| SPECIALS.iter().map(move |&b| (a, b)))
        .collect();
    for _ in 0..n {
        pairs.push((operand(&mut rng), operand(&mut rng)));
        pairs.push(hard_pair(&mut rng));
    }
    let ops = (pairs.iter())
        .map(|&(a, b)| Op {
            x: [a, b, 0],
            op: 0,
        })
        .collect();
    let want = pairs.iter().map(|&(a, b)| host_div(a, b)).collect();
    (ops, want)
}

/// No gaps, no stalls: every quotient equals the host's and one result leaves per clock.
#[test]
fn full_throughput_matches_host() {
    let (ops, want) = ops(seed_from_env_or(0xD171), 1500);
    let cycles = run_unit(&design(), 1, &ops, &want, (0.0, 0.0));
    let bound = ops.len() as u64 + LATENCY as u64 + 4;
    assert!(
        cycles <= bound,
        "{} divisions took {cycles} cycles (> {bound})",
        ops.len()
    );
}

/// Random gaps and back-pressure: same results, in order, nothing lost or duplicated; the
/// documented special cases first.
#[test]
fn back_pressure_matches_host() {
    let mut ops: Vec<Op> = (SPECIAL_CASES.iter())
        .map(|&(a, b, _)| Op {
            x: [a, b, 0],
            op: 0,
        })
        .collect();
    let mut want: Vec<u32> = SPECIAL_CASES.iter().map(|c| c.2).collect();
    let (random, random_want) = self::ops(seed_from_env_or(0xD172), 1000);
    ops.extend(random);
    want.extend(random_want);
    run_unit(&design(), 2, &ops, &want, (0.3, 0.4));
}

const NAN: u32 = CANONICAL_NAN;

/// `(a, b, a / b)`: the special-case table of the unit's documentation, and subnormal edges.
const SPECIAL_CASES: &[(u32, u32, u32)] = &[
    (0x0000_0000, 0x0000_0000, NAN),
    (0x8000_0000, 0x0000_0000, NAN),
    (0x7F80_0000, 0xFF80_0000, NAN),
    (0x7FC0_1234, 0x3F80_0000, NAN),
    (0x3F80_0000, 0xFF80_0001, NAN),
    (0x3F80_0000, 0x0000_0000, 0x7F80_0000),
    (0xBF80_0000, 0x0000_0000, 0xFF80_0000),
    (0x3F80_0000, 0x8000_0000, 0xFF80_0000),
    (0x7F80_0000, 0x3F80_0000, 0x7F80_0000),
    (0x7F80_0000, 0x8000_0001, 0xFF80_0000),
    (0x3F80_0000, 0x7F80_0000, 0x0000_0000),
    (0xBF80_0000, 0x7F80_0000, 0x8000_0000),
    (0x0000_0000, 0x3F80_0000, 0x0000_0000),
    (0x0000_0000, 0x8000_0001, 0x8000_0000),
    // Subnormal operands and results (kept, not flushed).
    (0x0000_0001, 0x3F80_0000, 0x0000_0001),
    (0x0000_0001, 0x4000_0000, 0x0000_0000),
    (0x0000_0003, 0x4000_0000, 0x0000_0002),
    (0x0000_0001, 0x0000_0001, 0x3F80_0000),
    (0x0080_0000, 0x4000_0000, 0x0040_0000),
    (0x3F80_0000, 0x0000_0001, 0x7F80_0000),
    (0x3400_0000, 0x0000_0001, 0x7E80_0000),
    (0x0000_0001, 0x7F7F_FFFF, 0x0000_0000),
    (0x7F7F_FFFF, 0x3F00_0000, 0x7F80_0000),
    (0x3F80_0000, 0x4040_0000, 0x3EAA_AAAB),
];

/// The host gives the documented special values (the RTL is compared with it elsewhere).
#[test]
fn special_values_of_the_host() {
    for &(a, b, want) in SPECIAL_CASES {
        assert_eq!(host_div(a, b), want, "{a:#010x} / {b:#010x}");
    }
}

/// Verilator -Wall, Yosys and iverilog accept the emitted Verilog without a waiver.
#[test]
fn emitted_verilog_is_lint_clean() {
    super::assert_lint_clean(&design());
}

/// A `tag_width` outside 1..=64 is an elaboration error, not a panic.
#[test]
fn bad_tag_width_is_an_elaboration_error() {
    super::assert_rejects_bad_tag_widths(fp_div_top);
}

/// A long sweep: 400,000 random and hard pairs under back-pressure (`cargo test --release`).
#[test]
#[ignore = "slow: long sweep"]
fn long_sweep_matches_host() {
    let (ops, want) = ops(seed_from_env_or(0xD173), 200_000);
    run_unit(&design(), 3, &ops, &want, (0.1, 0.2));
}

/// Yosys generic synthesis of the default unit (`rendergen synth fp_div` gives the same).
#[test]
#[ignore = "slow: Yosys synthesis"]
fn yosys_area() {
    let report = synth(&design(), SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}");
}
