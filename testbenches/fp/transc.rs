//! `fp_transc` (exp2, log2, sin, cos) against the golden model
//! `rendergen_sim::models::fp32::transc`, bit for bit: random operands, `SPECIALS` and each
//! function's edge cases, at full rate and under random gaps and back-pressure, co-simulated;
//! lint; Yosys area (ignored).

use super::{operands, run_unit, Op, SPECIALS};
use rendergen_gen::tools::{synth, SynthTarget};
use rendergen_rtl::fp::transc::{fp_transc_top, op, LATENCY};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::fp32::transc::transc;
use std::f32::consts::FRAC_PI_2;

/// Edge cases of each operation: integers and halves for exp2 (and its range ends), powers of
/// two and values near 1 for log2, multiples of π/2, tiny and large angles for sin and cos.
fn edge_cases() -> Vec<Op> {
    let mut v = Vec::new();
    let mut exp2 = Vec::new();
    for k in -300..=300 {
        exp2.push((k as f32 * 0.5).to_bits());
    }
    for x in [
        -126.0f32, -125.99999, -126.00001, 127.0, 127.99999, 128.0, 1e-30, -1e-30, 1e-8,
    ] {
        exp2.push(x.to_bits());
    }
    v.extend(exp2.iter().map(|&a| Op {
        x: [a, 0, 0],
        op: op::EXP2,
    }));
    let mut log2 = Vec::new();
    for n in -126..=127 {
        log2.push(2f32.powi(n).to_bits());
    }
    for k in 0..200u32 {
        log2.push(0x3F80_0000 + k);
        log2.push(0x3F80_0000 - k);
        log2.push(0x3F40_0000 + k - 100); // 0.75
        log2.push(0x3FC0_0000 + k - 100); // 1.5
    }
    v.extend(log2.iter().map(|&a| Op {
        x: [a, 0, 0],
        op: op::LOG2,
    }));
    let mut trig = Vec::new();
    for k in -64..=64 {
        let x = k as f32 * FRAC_PI_2;
        trig.extend([x.to_bits(), x.to_bits() + 1, x.to_bits().wrapping_sub(1)]);
    }
    for e in 100..=130u32 {
        trig.extend([e << 23, e << 23 | 0x8000_0000, e << 23 | 0x7F_FFFF]);
    }
    for x in [
        1e3f32,
        -1e3,
        1e6,
        1e20,
        1e38,
        f32::MAX,
        f32::MIN,
        355.0,
        103_993.0,
    ] {
        trig.push(x.to_bits());
    }
    for o in [op::SIN, op::COS] {
        v.extend(trig.iter().map(|&a| Op {
            x: [a, 0, 0],
            op: o,
        }));
    }
    v
}

/// `per_op` random operands for each operation (`operands`: random bits, values near 1 and
/// `SPECIALS`), then the edge cases and the special cases.
fn stimulus(seed: u64, per_op: usize) -> Vec<Op> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    for o in [op::EXP2, op::LOG2, op::SIN, op::COS] {
        let x = operands(&mut rng, per_op, SPECIALS);
        v.extend(x.iter().map(|x| Op {
            x: [x[0], 0, 0],
            op: o,
        }));
    }
    // interleave operations so that every stage sees them change every clock
    for i in (1..v.len()).step_by(3) {
        let j = rng.below(v.len() as u64) as usize;
        v.swap(i, j);
    }
    v.extend(edge_cases());
    v.extend(special_cases().iter().map(|&(o, a, _)| Op {
        x: [a, 0, 0],
        op: o,
    }));
    v
}

fn expected(ops: &[Op]) -> Vec<u32> {
    ops.iter().map(|o| transc(o.op, o.x[0])).collect()
}

/// One result per clock: every operation on 3,000 random operands each and the edge cases,
/// no gaps or stalls.
#[test]
fn transc_matches_model_at_full_rate() {
    let design = fp_transc_top(&FpCfg::default()).unwrap();
    let ops = stimulus(seed_from_env_or(0x7A5C), 3000);
    let want = expected(&ops);
    let cycles = run_unit(&design, 1, &ops, &want, (0.0, 0.0));
    let n = ops.len() as u64;
    assert!(
        cycles <= n + LATENCY + 4,
        "{n} requests took {cycles} cycles"
    );
}

/// Random gaps and back-pressure: order, tags and results still right.
#[test]
fn transc_matches_model_under_backpressure() {
    let design = fp_transc_top(&FpCfg { tag_width: 5 }).unwrap();
    let ops = stimulus(seed_from_env_or(0x7A5D), 1000);
    let want = expected(&ops);
    run_unit(&design, 2, &ops, &want, (0.3, 0.4));
}

/// The special cases of issue 12 with the results they must have: (op, operand, result).
fn special_cases() -> Vec<(u64, u32, u32)> {
    let (nan, inf, ninf, one) = (
        0x7FC0_0000u32,
        0x7F80_0000u32,
        0xFF80_0000u32,
        0x3F80_0000u32,
    );
    vec![
        (op::EXP2, ninf, 0),
        (op::EXP2, inf, inf),
        (op::EXP2, 200f32.to_bits(), inf),
        (op::EXP2, (-127f32).to_bits(), 0),
        (op::EXP2, 0, one),
        (op::EXP2, 0x8000_0000, one),
        (op::EXP2, 10f32.to_bits(), 1024f32.to_bits()),
        (op::EXP2, (-126f32).to_bits(), 0x0080_0000),
        (op::EXP2, 0xFFC0_0001, nan),
        (op::LOG2, 0, ninf),
        (op::LOG2, 0x8000_0000, ninf),
        (op::LOG2, 0x0000_0001, ninf),
        (op::LOG2, (-1f32).to_bits(), nan),
        (op::LOG2, ninf, nan),
        (op::LOG2, inf, inf),
        (op::LOG2, one, 0),
        (op::LOG2, 0x0080_0000, (-126f32).to_bits()),
        (op::LOG2, 2f32.powi(100).to_bits(), 100f32.to_bits()),
        (op::SIN, inf, nan),
        (op::SIN, ninf, nan),
        (op::COS, inf, nan),
        (op::COS, 0x7F80_0001, nan),
        (op::SIN, 0, 0),
        (op::SIN, 0x8000_0000, 0x8000_0000),
        (op::COS, 0x8000_0000, one),
        (op::SIN, 0x3000_0000, 0x3000_0000),
    ]
}

/// The special cases have their required values in the model; the RTL gives the model's
/// values for them in [`transc_matches_model_at_full_rate`], whose stimulus includes them.
#[test]
fn transc_special_cases() {
    for (o, a, want) in special_cases() {
        assert_eq!(transc(o, a), want, "op {o} of {a:#010x}");
    }
}

/// Elaboration rejects a tag width outside 1..=64 with an error, not a panic.
#[test]
fn transc_rejects_bad_tag_width() {
    super::assert_rejects_bad_tag_widths(fp_transc_top);
}

/// Verilator `-Wall`, Yosys `prep` + `check`, iverilog on the emitted Verilog.
#[test]
fn transc_lint_clean() {
    let design = fp_transc_top(&FpCfg::default()).unwrap();
    super::assert_lint_clean(&design);
}

/// Yosys generic synthesis (cells and flip-flops) of the default build.
#[test]
#[ignore = "slow: Yosys synthesis"]
fn transc_yosys_area() {
    let design = fp_transc_top(&FpCfg::default()).unwrap();
    let report = synth(&design, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{report}");
}
