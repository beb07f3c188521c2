//! `fp_pow`: RTL == model (`fp32::transc::pow`) bit for bit at full rate and under
//! back-pressure, special cases, lint.

use super::{run_unit, Op};
use rendergen_rtl::fp::pow::{fp_pow_top, LATENCY};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::fp32::transc::pow;

fn stimulus(seed: u64, n: usize) -> Vec<Op> {
    let mut rng = Rng::new(seed);
    let mut ops: Vec<Op> = [
        (0x4000_0000, 0x4040_0000),
        (0x3F80_0000, 0x4120_0000),
        (0xBF80_0000, 0x4000_0000),
        (0, 0x4000_0000),
        (0, 0xC000_0000),
        (0, 0),
        (0x7F80_0000, 0x3F00_0000),
        (0x7FC0_0000, 0x3F80_0000),
        (0x4120_0000, 0x4280_0000),
    ]
    .into_iter()
    .map(|(x, y)| Op {
        x: [x, y, 0],
        op: 0,
    })
    .collect();
    while ops.len() < n {
        let x = 2f32.powf(rng.below(16_000) as f32 / 1000.0 - 8.0).to_bits();
        let y = match rng.below(4) {
            0 => rng.next_u64() as u32,
            _ => (rng.below(8_000) as f32 / 1000.0 - 4.0).to_bits(),
        };
        ops.push(Op {
            x: [x, y, 0],
            op: 0,
        });
    }
    ops
}

fn expected(ops: &[Op]) -> Vec<u32> {
    ops.iter().map(|o| pow(o.x[0], o.x[1])).collect()
}

#[test]
fn pow_matches_model_at_full_rate_and_under_back_pressure() {
    let design = fp_pow_top(&FpCfg::default()).unwrap();
    let ops = stimulus(seed_from_env_or(0x90E1), 2000);
    let want = expected(&ops);
    let cycles = run_unit(&design, 1, &ops, &want, (0.0, 0.0));
    let n = ops.len() as u64;
    assert!(
        cycles <= n + LATENCY + 4,
        "{n} requests took {cycles} cycles"
    );
    let design = fp_pow_top(&FpCfg { tag_width: 4 }).unwrap();
    let ops = stimulus(seed_from_env_or(0x90E2), 800);
    run_unit(&design, 2, &ops, &expected(&ops), (0.3, 0.4));
}

#[test]
fn pow_lint_clean() {
    super::assert_lint_clean(&fp_pow_top(&FpCfg::default()).unwrap());
}
