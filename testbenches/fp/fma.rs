//! `fp_fma`: every operation bit-exact with the model `fp32::basic` (fma, mul, add, sub) on
//! random operands, special values, cancellation, overflow and underflow thresholds and
//! halfway cases; one result per clock without back-pressure; order and tags under random gaps
//! and stalls; co-simulation (in `run_unit`); lint; an ignored longer sweep and Yosys area.

use super::{operands, run_unit, Op, SPECIALS};
use rendergen_gen::tools::{synth, SynthTarget};
use rendergen_hdl::Design;
use rendergen_rtl::fp::fma::{fp_fma_top, LATENCY};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::fp32::basic;

fn design() -> Design {
    fp_fma_top(&FpCfg::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The model's result of `op` (0 fma, 1 mul, 2 add, 3 sub).
fn model(o: &Op) -> u32 {
    let [a, b, c] = o.x;
    match o.op {
        0 => basic::fma(a, b, c),
        1 => basic::mul(a, b),
        2 => basic::add(a, b),
        _ => basic::sub(a, b),
    }
}

/// A random binary32 with exponent field in `exp` (sign and significand random).
fn with_exp(rng: &mut Rng, exp: std::ops::Range<u32>) -> u32 {
    let e = exp.start + rng.below((exp.end - exp.start) as u64) as u32;
    (rng.next_u64() as u32 & 0x807F_FFFF) | e << 23
}

/// Hard cases for a fused unit: `c` near `−a·b` (massive cancellation, results that are the
/// product's rounding error), products and sums at the overflow and underflow thresholds,
/// and sums that are exact halfway cases.
fn hard_cases(rng: &mut Rng, n: usize) -> Vec<Op> {
    (0..n)
        .map(|i| {
            let r = rng.next_u64() as u32;
            match i % 5 {
                0 => {
                    let (a, b) = (r, rng.next_u64() as u32);
                    let p = basic::mul(a, b) ^ 0x8000_0000;
                    let c = p.wrapping_add(rng.below(5) as u32).wrapping_sub(2);
                    Op {
                        x: [a, b, c],
                        op: 0,
                    }
                }
                1 => {
                    // Product exponents near 254 (overflow) and near 0 (underflow).
                    let hi = rng.below(2) == 0;
                    let (a, b) = match hi {
                        true => (with_exp(rng, 180..255), with_exp(rng, 180..255)),
                        false => (with_exp(rng, 1..80), with_exp(rng, 1..80)),
                    };
                    let a = match hi {
                        true => a,
                        false => {
                            (a & 0x807F_FFFF)
                                | (128 - ((b >> 23) & 0xFF) + rng.below(4) as u32) << 23
                        }
                    };
                    let c = with_exp(rng, 0..4);
                    Op {
                        x: [a, b, c],
                        op: rng.below(2),
                    }
                }
                2 => {
                    // a + b with b a few ulps of a below: halfway and sticky patterns.
                    let a = with_exp(rng, 1..254);
                    let e = (a >> 23) & 0xFF;
                    let shift = 23 + rng.below(4) as u32;
                    let b = match e > shift {
                        true => (rng.next_u64() as u32 & 0x807F_FFFF) | (e - shift) << 23,
                        false => 0,
                    };
                    Op {
                        x: [a, b, 0],
                        op: 2 + rng.below(2),
                    }
                }
                3 => {
                    // Sums near the smallest normal: a ± b with tiny results.
                    let a = with_exp(rng, 1..3);
                    let b = (a ^ 0x8000_0000).wrapping_add(rng.below(3) as u32);
                    Op {
                        x: [a, b, with_exp(rng, 1..3)],
                        op: rng.below(4),
                    }
                }
                _ => {
                    // Exact ties in a·a ((1 + k·2^-12)^2, k odd: the bit below the last is
                    // set and nothing under it), broken or not by a c of 1 or 2 bits from
                    // just above the product down to far below it (every alignment and
                    // sticky position).
                    let a = 0x3F80_0000 | (rng.below(1 << 12) as u32 | 1) << 11;
                    let low = match rng.below(3) {
                        0 => 0,
                        _ => 1 << rng.below(23),
                    };
                    let c = (rng.below(2) as u32) << 31 | (40 + rng.below(100) as u32) << 23 | low;
                    Op {
                        x: [a, a, c],
                        op: 0,
                    }
                }
            }
        })
        .collect()
}

/// `n` random requests, operations mixed (every op a quarter), plus `hard` hard cases.
fn requests(seed: u64, n: usize, hard: usize) -> (Vec<Op>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let mut ops: Vec<Op> = (operands(&mut rng, n, SPECIALS).into_iter())
        .map(|x| Op {
            x,
            op: rng.below(4),
        })
        .collect();
    ops.extend(hard_cases(&mut rng, hard));
    let want = ops.iter().map(model).collect();
    (ops, want)
}

/// Every op bit-exact; one result per clock with no gaps or stalls.
#[test]
fn fma_unit_matches_model_at_full_throughput() {
    let design = design();
    let (ops, want) = requests(seed_from_env_or(0xF3A), 12_000, 20_000);
    let cycles = run_unit(&design, 1, &ops, &want, (0.0, 0.0));
    let n = ops.len() as u64;
    assert!(
        cycles <= n + LATENCY + 4,
        "{n} requests took {cycles} cycles (latency {LATENCY})"
    );
}

/// Order, tags and results under random gaps (0.3) and stalls (0.4).
#[test]
fn fma_unit_under_gaps_and_back_pressure() {
    let design = design();
    let (ops, want) = requests(seed_from_env_or(0xF3B), 3000, 1000);
    run_unit(&design, 2, &ops, &want, (0.3, 0.4));
}

/// Every pair of special values through every operation (and every special as `c`).
#[test]
fn fma_unit_special_values() {
    let design = design();
    let mut ops = Vec::new();
    for (i, &a) in SPECIALS.iter().enumerate() {
        for (j, &b) in SPECIALS.iter().enumerate() {
            let c = SPECIALS[(i * 7 + j * 3) % SPECIALS.len()];
            ops.extend((0..4).map(|op| Op { x: [a, b, c], op }));
        }
    }
    let want: Vec<u32> = ops.iter().map(model).collect();
    run_unit(&design, 3, &ops, &want, (0.1, 0.1));
}

/// Results at the thresholds, every neighbour: products and fused sums just below 2^-126
/// (rounding up to 2^-126 or flushed to ±0), and just below and above the overflow threshold
/// (the largest finite value or ∞), including exact ties.
#[test]
fn fma_unit_thresholds() {
    let design = design();
    let mut ops = Vec::new();
    for a in (0x3F7F_FF00u32..=0x3F80_0002).chain(0x3FFF_FF00..=0x4000_0002) {
        let sign = (a & 1) << 31;
        for b in [
            0x0080_0000,
            0x8080_0001,
            0x0040_0000 | 0x0080_0000,
            0x7F00_0000,
            0xFEFF_FFFF,
        ] {
            ops.push(Op {
                x: [a ^ sign, b, 0],
                op: 1,
            });
        }
        // a·2^-125 − 2^-126·(1 + k ulp): results around 2^-126.
        let c = 0x8080_0000 | (a & 0xF);
        ops.push(Op {
            x: [a, 0x0100_0000, c],
            op: 0,
        });
        // a·2^127 + (−MAX + k ulp) and MAX + half-ulp ties.
        ops.push(Op {
            x: [a, 0x7F00_0000, 0xFF7F_FFF0 | (a & 0xF)],
            op: 0,
        });
    }
    for k in 0..64u32 {
        ops.push(Op {
            x: [0x7F7F_FFFF - (k & 3), 0x7300_0000 + k - 32, 0],
            op: 2,
        });
        ops.push(Op {
            x: [0x0080_0000 + (k & 7), 0x0080_0000 + (k >> 3), 0],
            op: 3,
        });
    }
    let want: Vec<u32> = ops.iter().map(model).collect();
    let min_normal = want
        .iter()
        .filter(|&&r| r & 0x7FFF_FFFF == 0x0080_0000)
        .count();
    let infinities = want
        .iter()
        .filter(|&&r| r & 0x7FFF_FFFF == 0x7F80_0000)
        .count();
    assert!(
        min_normal >= 4 && infinities >= 10,
        "{min_normal} {infinities}"
    );
    run_unit(&design, 5, &ops, &want, (0.0, 0.0));
}

/// Elaboration refuses a tag width outside 1..=64 without panicking.
#[test]
fn fma_unit_rejects_bad_tag_width() {
    super::assert_rejects_bad_tag_widths(fp_fma_top);
}

#[test]
fn fma_unit_lint_clean() {
    super::assert_lint_clean(&design());
}

/// A longer run: 10^5 random operations and 10^5 hard cases, RTL against the model.
#[test]
#[ignore = "slow: 200,000 operations through the RTL"]
fn fma_unit_long_sweep() {
    let (ops, want) = requests(seed_from_env_or(0xF3C), 100_000, 100_000);
    run_unit(&design(), 4, &ops, &want, (0.05, 0.05));
}

/// Yosys generic synthesis of the default build.
#[test]
#[ignore = "slow: Yosys synthesis"]
fn fma_unit_yosys_area() {
    let report = synth(&design(), SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "fp_fma: {} cells, {} flip-flops, {} levels\n{report}",
        report.cells, report.flip_flops, report.longest_path
    );
}
