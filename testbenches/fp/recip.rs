//! `fp_recip` (reciprocal, reciprocal square root, square root): the RTL against the model
//! `rendergen_sim::models::fp32::recip` bit for bit (the model is checked against the host and
//! exact integer arithmetic in its own tests), full throughput, back-pressure, specials, lint,
//! and (ignored) Yosys area.

use super::{operands, run_unit, Op, SPECIALS};
use rendergen_gen::tools::{synth, SynthTarget};
use rendergen_hdl::Design;
use rendergen_rtl::fp::recip::{fp_recip_top, LATENCY};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::fp32::recip::recip;

fn design() -> Design {
    fp_recip_top(&FpCfg::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Edge operands: powers of two and all-ones fractions at both ends of the exponent range
/// (rcp's flush boundary 2^126 included), around 1, 2 and 4, and subnormals.
fn edges() -> Vec<u32> {
    let mut v = Vec::new();
    for e in [
        0u32, 1, 2, 63, 64, 125, 126, 127, 128, 129, 252, 253, 254, 255,
    ] {
        for f in [0, 1, 0x40_0000, 0x7F_FFFE, 0x7F_FFFF] {
            v.extend([e << 23 | f, 0x8000_0000 | e << 23 | f]);
        }
    }
    v
}

/// `n` operations per op code (0..=3), each on random, near-one, special and edge operands.
fn ops(seed: u64, n: usize) -> (Vec<Op>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let mut specials = SPECIALS.to_vec();
    specials.extend(edges());
    let mut ops = Vec::new();
    for op in 0..4u64 {
        // Specials and edges first, so that the co-simulated start of the run holds them.
        let mut xs = match op {
            3 => SPECIALS.to_vec(),
            _ => specials.clone(),
        };
        xs.extend(operands(&mut rng, n, &specials).iter().map(|x| x[0]));
        ops.extend(xs.into_iter().map(|a| Op { x: [a, 0, 0], op }));
    }
    // Interleave the op codes so that neighbouring stages hold different operations.
    let mut shuffled = Vec::with_capacity(ops.len());
    let quarter = ops.len() / 4;
    for i in 0..quarter {
        shuffled.extend([
            ops[i],
            ops[quarter + i],
            ops[2 * quarter + i],
            ops[3 * quarter + i],
        ]);
    }
    shuffled.extend(&ops[4 * quarter..]);
    let want = (shuffled.iter())
        .map(|o| recip(o.op as u32, o.x[0]))
        .collect();
    (shuffled, want)
}

/// No gaps, no stalls: every operation equals the model and one result leaves per clock.
#[test]
fn full_throughput_matches_model() {
    let (ops, want) = ops(seed_from_env_or(0x5EC1), 1500);
    let cycles = run_unit(&design(), 1, &ops, &want, (0.0, 0.0));
    let bound = ops.len() as u64 + LATENCY as u64 + 4;
    assert!(
        cycles <= bound,
        "{} operations took {cycles} cycles (> {bound})",
        ops.len()
    );
}

/// Random gaps and back-pressure: same results, in order, nothing lost or duplicated; the
/// documented special cases ([`SPECIAL_CASES`]) first.
#[test]
fn back_pressure_matches_model() {
    let (random, random_want) = ops(seed_from_env_or(0x5EC2), 1000);
    let mut ops: Vec<Op> = (SPECIAL_CASES.iter())
        .map(|&(op, a, _)| Op { x: [a, 0, 0], op })
        .collect();
    let mut want: Vec<u32> = SPECIAL_CASES.iter().map(|c| c.2).collect();
    ops.extend(random);
    want.extend(random_want);
    run_unit(&design(), 2, &ops, &want, (0.3, 0.4));
}

const NAN: u32 = 0x7FC0_0000;

/// `(op, operand, result)`: each special case of the unit's documented table (the RTL runs
/// them in `back_pressure_matches_model`).
const SPECIAL_CASES: &[(u64, u32, u32)] = &[
    (0, 0x0000_0000, 0x7F80_0000),
    (0, 0x8000_0000, 0xFF80_0000),
    (0, 0x0000_0001, 0x7F80_0000),
    (0, 0x7F80_0000, 0x0000_0000),
    (0, 0xFF80_0000, 0x8000_0000),
    (0, 0x7E80_0000, 0x0080_0000),
    (0, 0x7E80_0001, 0x0000_0000),
    (0, 0xFF00_0000, 0x8000_0000),
    (0, 0xFFC0_0001, NAN),
    (1, 0x0000_0000, 0x7F80_0000),
    (1, 0x8000_0000, 0xFF80_0000),
    (1, 0x8000_0001, 0xFF80_0000),
    (1, 0xBF80_0000, NAN),
    (1, 0xFF80_0000, NAN),
    (1, 0x7F80_0000, 0x0000_0000),
    (1, 0x4080_0000, 0x3F00_0000),
    (1, 0x7F80_0001, NAN),
    (2, 0x8000_0000, 0x8000_0000),
    (2, 0x0000_0000, 0x0000_0000),
    (2, 0x807F_FFFF, 0x8000_0000),
    (2, 0xC080_0000, NAN),
    (2, 0xFF80_0000, NAN),
    (2, 0x7F80_0000, 0x7F80_0000),
    (2, 0x4080_0000, 0x4000_0000),
    (2, 0x7FC0_0000, NAN),
    (3, 0x3F80_0000, NAN),
    (3, 0x0000_0000, NAN),
];

/// The model gives the documented special values (the RTL is compared with it elsewhere).
#[test]
fn special_values_of_the_model() {
    for &(op, a, want) in SPECIAL_CASES {
        assert_eq!(recip(op as u32, a), want, "op {op} of {a:#010x}");
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
    super::assert_rejects_bad_tag_widths(fp_recip_top);
}

/// Yosys generic synthesis of the default unit (`rendergen synth fp_recip` gives the same).
#[test]
#[ignore = "slow: Yosys synthesis"]
fn yosys_area() {
    let report = synth(&design(), SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}");
}
