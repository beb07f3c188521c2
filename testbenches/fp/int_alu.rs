//! `int_alu`: every operation bit-exact with the model `fp32::int` on random operands, edge
//! values (0, ±1, i32::MIN/MAX, shift amounts 0/31/32+) in every pair, equal and sign-flipped
//! pairs for the compares; one result per clock without back-pressure; order and tags under
//! random gaps and stalls; the unused codes; co-simulation (in `run_unit`); lint; an ignored
//! Yosys area.

use super::{run_unit, Op};
use rendergen_gen::tools::{synth, SynthTarget};
use rendergen_hdl::Design;
use rendergen_rtl::fp::int_alu::{int_alu_top, IntOp, LATENCY};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::fp32::int::{self, IntCmp};

/// Every operation, in code order.
const OPS: [IntOp; 21] = [
    IntOp::Add,
    IntOp::Sub,
    IntOp::Mul,
    IntOp::Shl,
    IntOp::Shr,
    IntOp::Sar,
    IntOp::And,
    IntOp::Or,
    IntOp::Xor,
    IntOp::Not,
    IntOp::Eq,
    IntOp::Ne,
    IntOp::Slt,
    IntOp::Sle,
    IntOp::Ult,
    IntOp::Ule,
    IntOp::Min,
    IntOp::Max,
    IntOp::Minu,
    IntOp::Maxu,
    IntOp::Sel,
];

/// Edge values: zero, ±1, the signed and unsigned limits, single bits, shift amounts 31, 32,
/// 33, 63.
const EDGES: &[u32] = &[
    0,
    1,
    2,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x8000_0000,
    0x8000_0001,
    0x7FFF_FFFF,
    0x0000_FFFF,
    0xFFFF_0000,
    0x0001_0000,
    0x00FF_00FF,
    0x5555_5555,
    0xAAAA_AAAA,
    31,
    32,
    33,
    63,
];

fn design() -> Design {
    int_alu_top(&FpCfg::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The model's result of a request (codes beyond the table give 0).
fn model(o: &Op) -> u32 {
    let [a, b, c] = o.x;
    let Some(op) = OPS.get(o.op as usize) else {
        return 0;
    };
    match op {
        IntOp::Add => int::add(a, b),
        IntOp::Sub => int::sub(a, b),
        IntOp::Mul => int::mul(a, b),
        IntOp::Shl => int::shl(a, b),
        IntOp::Shr => int::shr(a, b),
        IntOp::Sar => int::sar(a, b),
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Not => !a,
        IntOp::Eq => int::cmp(IntCmp::Eq, a, b),
        IntOp::Ne => int::cmp(IntCmp::Ne, a, b),
        IntOp::Slt => int::cmp(IntCmp::Slt, a, b),
        IntOp::Sle => int::cmp(IntCmp::Sle, a, b),
        IntOp::Ult => int::cmp(IntCmp::Ult, a, b),
        IntOp::Ule => int::cmp(IntCmp::Ule, a, b),
        IntOp::Min => int::min(a, b),
        IntOp::Max => int::max(a, b),
        IntOp::Minu => int::minu(a, b),
        IntOp::Maxu => int::maxu(a, b),
        IntOp::Sel => int::sel(a, b, c),
    }
}

/// A random operand: uniform bits, an edge value, a small signed value, or a shift amount.
fn operand(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => EDGES[rng.below(EDGES.len() as u64) as usize],
        1 => (rng.below(64) as i32 - 32) as u32,
        _ => rng.next_u64() as u32,
    }
}

/// `n` random requests of every operation mixed; a quarter of the pairs equal or differing
/// only in the sign bit (compares, min/max), `c` zero half the time (`sel`).
fn requests(seed: u64, n: usize) -> (Vec<Op>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let ops: Vec<Op> = (0..n)
        .map(|_| {
            let a = operand(&mut rng);
            let mut b = operand(&mut rng);
            if rng.below(4) == 0 {
                b = a ^ (rng.below(2) as u32) << 31;
            }
            let c = match rng.below(2) {
                0 => 0,
                _ => operand(&mut rng),
            };
            let op = rng.below(OPS.len() as u64);
            Op { x: [a, b, c], op }
        })
        .collect();
    let want = ops.iter().map(model).collect();
    (ops, want)
}

/// Every op bit-exact; one result per clock with no gaps or stalls.
#[test]
fn int_alu_matches_model_at_full_throughput() {
    let design = design();
    let (ops, want) = requests(seed_from_env_or(0x1A10), 50_000);
    let cycles = run_unit(&design, 1, &ops, &want, (0.0, 0.0));
    let n = ops.len() as u64;
    assert!(
        cycles <= n + LATENCY + 4,
        "{n} requests took {cycles} cycles (latency {LATENCY})"
    );
}

/// Order, tags and results under random gaps (0.3) and stalls (0.4), and the unused codes.
#[test]
fn int_alu_under_gaps_and_back_pressure() {
    let design = design();
    let (mut ops, mut want) = requests(seed_from_env_or(0x1A11), 6000);
    for op in OPS.len() as u64..32 {
        ops.push(Op {
            x: [0x1234_5678, 3, 1],
            op,
        });
        want.push(0);
    }
    run_unit(&design, 2, &ops, &want, (0.3, 0.4));
}

/// Every pair of edge values through every operation (`c` = 0 and `c` = the edge value `a`).
#[test]
fn int_alu_edge_values() {
    let design = design();
    let mut ops = Vec::new();
    for &a in EDGES {
        for &b in EDGES {
            ops.extend((0..OPS.len() as u64).map(|op| Op { x: [a, b, 0], op }));
            ops.push(Op {
                x: [a, b, a],
                op: IntOp::Sel as u64,
            });
        }
    }
    let want: Vec<u32> = ops.iter().map(model).collect();
    run_unit(&design, 3, &ops, &want, (0.0, 0.0));
}

/// Hand-computed results through the RTL (independent of the model).
#[test]
fn int_alu_hand_values() {
    let n = |x: i32| x as u32;
    let cases: &[(IntOp, [u32; 3], u32)] = &[
        (IntOp::Add, [0x7FFF_FFFF, 1, 0], 0x8000_0000),
        (IntOp::Sub, [0, 1, 0], 0xFFFF_FFFF),
        (IntOp::Mul, [0x1234_5678, 0x9ABC_DEF0, 0], 0x242D_2080),
        (IntOp::Mul, [n(-3), 5, 0], n(-15)),
        (IntOp::Mul, [0x8000_0000, 0xFFFF_FFFF, 0], 0x8000_0000),
        (IntOp::Shl, [1, 31, 0], 0x8000_0000),
        (IntOp::Shl, [1, 32, 0], 1),
        (IntOp::Shr, [0x8000_0000, 31, 0], 1),
        (IntOp::Sar, [0x8000_0000, 31, 0], 0xFFFF_FFFF),
        (IntOp::Sar, [0x8000_0000, 36, 0], 0xF800_0000),
        (IntOp::Not, [0x0F0F_0F0F, 0, 0], 0xF0F0_F0F0),
        (IntOp::Slt, [0x8000_0000, 0x7FFF_FFFF, 0], 1),
        (IntOp::Ult, [0x8000_0000, 0x7FFF_FFFF, 0], 0),
        (IntOp::Sle, [n(-1), n(-1), 0], 1),
        (IntOp::Ule, [0, n(-1), 0], 1),
        (IntOp::Min, [n(-1), 1, 0], n(-1)),
        (IntOp::Minu, [n(-1), 1, 0], 1),
        (IntOp::Max, [0x8000_0000, 0x7FFF_FFFF, 0], 0x7FFF_FFFF),
        (IntOp::Maxu, [0x8000_0000, 0x7FFF_FFFF, 0], 0x8000_0000),
        (IntOp::Sel, [7, 9, 0x8000_0000], 7),
        (IntOp::Sel, [7, 9, 0], 9),
    ];
    let ops: Vec<Op> = (cases.iter())
        .map(|&(op, x, _)| Op { x, op: op as u64 })
        .collect();
    let want: Vec<u32> = cases.iter().map(|c| c.2).collect();
    run_unit(&design(), 5, &ops, &want, (0.0, 0.0));
}

/// Elaboration refuses a tag width outside 1..=64 without panicking.
#[test]
fn int_alu_rejects_bad_tag_width() {
    super::assert_rejects_bad_tag_widths(int_alu_top);
}

#[test]
fn int_alu_lint_clean() {
    super::assert_lint_clean(&design());
}

/// Yosys generic synthesis of the default build.
#[test]
#[ignore = "slow: Yosys synthesis"]
fn int_alu_yosys_area() {
    let report = synth(&design(), SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "int_alu: {} cells, {} flip-flops, {} levels\n{report}",
        report.cells, report.flip_flops, report.longest_path
    );
}
