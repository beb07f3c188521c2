//! `fp_misc`: every operation bit-exact with the model `fp32::basic` on random operands,
//! special values and the ranges where each operation changes behaviour (integer limits,
//! the last fraction bit, |a| < 1); one result per clock without back-pressure; order and tags
//! under random gaps and stalls; co-simulation (in `run_unit`); lint; an ignored longer sweep
//! and Yosys area.

use super::{operands, run_unit, Op, SPECIALS};
use rendergen_gen::tools::{synth, SynthTarget};
use rendergen_hdl::Design;
use rendergen_rtl::fp::misc::{fp_misc_top, MiscOp, LATENCY};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::fp32::basic::{self, Cmp};

/// Every operation, in code order.
const OPS: [MiscOp; 19] = [
    MiscOp::Min,
    MiscOp::Max,
    MiscOp::Eq,
    MiscOp::Ne,
    MiscOp::Lt,
    MiscOp::Le,
    MiscOp::Gt,
    MiscOp::Ge,
    MiscOp::F2i,
    MiscOp::F2u,
    MiscOp::I2f,
    MiscOp::U2f,
    MiscOp::Floor,
    MiscOp::Ceil,
    MiscOp::Trunc,
    MiscOp::Fract,
    MiscOp::RoundEven,
    MiscOp::Abs,
    MiscOp::Neg,
];

fn design() -> Design {
    fp_misc_top(&FpCfg::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The model's result of a request (codes beyond the table give 0).
fn model(o: &Op) -> u32 {
    let [a, b, _] = o.x;
    let Some(op) = OPS.get(o.op as usize) else {
        return 0;
    };
    match op {
        MiscOp::Min => basic::min(a, b),
        MiscOp::Max => basic::max(a, b),
        MiscOp::Eq => basic::cmp(Cmp::Eq, a, b),
        MiscOp::Ne => basic::cmp(Cmp::Ne, a, b),
        MiscOp::Lt => basic::cmp(Cmp::Lt, a, b),
        MiscOp::Le => basic::cmp(Cmp::Le, a, b),
        MiscOp::Gt => basic::cmp(Cmp::Gt, a, b),
        MiscOp::Ge => basic::cmp(Cmp::Ge, a, b),
        MiscOp::F2i => basic::f2i(a),
        MiscOp::F2u => basic::f2u(a),
        MiscOp::I2f => basic::i2f(a),
        MiscOp::U2f => basic::u2f(a),
        MiscOp::Floor => basic::floor(a),
        MiscOp::Ceil => basic::ceil(a),
        MiscOp::Trunc => basic::trunc(a),
        MiscOp::Fract => basic::fract(a),
        MiscOp::RoundEven => basic::round_even(a),
        MiscOp::Abs => basic::abs(a),
        MiscOp::Neg => basic::neg(a),
    }
}

/// A value whose exponent field lies in `exp` (sign and significand random, significands
/// often ending in few set bits: halfway and exact cases).
fn near(rng: &mut Rng, exp: std::ops::Range<u32>) -> u32 {
    let e = exp.start + rng.below((exp.end - exp.start) as u64) as u32;
    let mut frac = rng.next_u64() as u32 & 0x7F_FFFF;
    if rng.below(2) == 0 {
        frac &= !((1u32 << rng.below(24)) - 1);
    }
    (rng.next_u64() as u32 & 0x8000_0000) | e << 23 | frac
}

/// `n` random requests of every operation mixed, a third of them in the exponent range where
/// the operation has its cases (95..160: |a| around 1 and the integer limits), plus equal and
/// sign-flipped pairs for the compares.
fn requests(seed: u64, n: usize) -> (Vec<Op>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let x = operands(&mut rng, n, SPECIALS);
    let ops: Vec<Op> = (x.into_iter().enumerate())
        .map(|(i, mut x)| {
            let op = rng.below(OPS.len() as u64);
            match i % 3 {
                0 => x[0] = near(&mut rng, 95..160),
                1 if op < 8 => x[1] = x[0] ^ (rng.below(2) as u32) << 31,
                _ => {}
            }
            Op { x, op }
        })
        .collect();
    let want = ops.iter().map(model).collect();
    (ops, want)
}

/// Every op bit-exact; one result per clock with no gaps or stalls.
#[test]
fn misc_unit_matches_model_at_full_throughput() {
    let design = design();
    let (ops, want) = requests(seed_from_env_or(0x3150), 50_000);
    let cycles = run_unit(&design, 1, &ops, &want, (0.0, 0.0));
    let n = ops.len() as u64;
    assert!(
        cycles <= n + LATENCY + 4,
        "{n} requests took {cycles} cycles (latency {LATENCY})"
    );
}

/// Order, tags and results under random gaps (0.3) and stalls (0.4), and the unused codes.
#[test]
fn misc_unit_under_gaps_and_back_pressure() {
    let design = design();
    let (mut ops, mut want) = requests(seed_from_env_or(0x3151), 6000);
    for op in 19..32 {
        ops.push(Op {
            x: [0x3F80_0000; 3],
            op,
        });
        want.push(0);
    }
    run_unit(&design, 2, &ops, &want, (0.3, 0.4));
}

/// Every pair of special values through every operation.
#[test]
fn misc_unit_special_values() {
    let design = design();
    let mut ops = Vec::new();
    for &a in SPECIALS {
        for &b in SPECIALS {
            ops.extend((0..OPS.len() as u64).map(|op| Op { x: [a, b, 0], op }));
        }
    }
    let want: Vec<u32> = ops.iter().map(model).collect();
    run_unit(&design, 3, &ops, &want, (0.0, 0.0));
}

/// Elaboration refuses a tag width outside 1..=64 without panicking.
#[test]
fn misc_unit_rejects_bad_tag_width() {
    super::assert_rejects_bad_tag_widths(fp_misc_top);
}

#[test]
fn misc_unit_lint_clean() {
    super::assert_lint_clean(&design());
}

/// A longer run: 10^5 random operations, RTL against the model.
#[test]
#[ignore = "slow: 100,000 operations through the RTL"]
fn misc_unit_long_sweep() {
    let (ops, want) = requests(seed_from_env_or(0x3152), 100_000);
    run_unit(&design(), 4, &ops, &want, (0.05, 0.05));
}

/// Yosys generic synthesis of the default build.
#[test]
#[ignore = "slow: Yosys synthesis"]
fn misc_unit_yosys_area() {
    let report = synth(&design(), SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "fp_misc: {} cells, {} flip-flops, {} levels\n{report}",
        report.cells, report.flip_flops, report.longest_path
    );
}
