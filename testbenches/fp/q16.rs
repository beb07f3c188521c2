//! `fp_q16` against `rendergen_sim::models::fp32::q16` (computed through the host's f64).

use super::{assert_lint_clean, assert_rejects_bad_tag_widths, operands, run_unit, Op, SPECIALS};
use rendergen_rtl::fp::q16::fp_q16_top;
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::Rng;
use rendergen_sim::models::fp32::q16::{from_f32, to_f32};

#[test]
fn q16_conversions_match_the_model() {
    let design = fp_q16_top(&FpCfg::default()).unwrap();
    let mut rng = Rng::new(16);
    let mut ops = Vec::new();
    // Q16.16 words: random, small, near the ends; binary32: specials, random, near 2^31 and
    // the rounding ties of 2^-17.
    let words = [
        0,
        1,
        0xFFFF_FFFF,
        0x7FFF_FFFF,
        0x8000_0000,
        0x0100_0001,
        0x1_0000,
        0xFFFF_0000,
    ];
    let floats = [
        0x4F00_0000,
        0xCF00_0000,
        0x4EFF_FFFF,
        0xCF00_0001,
        0x3700_0000,
        0x3740_0000,
        0x36FF_FFFF,
        0x3780_0000,
    ];
    for (i, x) in operands(&mut rng, 4000, SPECIALS).into_iter().enumerate() {
        let (w, f) = (words[i % words.len()], floats[i % floats.len()]);
        let a = match i % 5 {
            0 => w,
            1 => f,
            2 => x[0] & 0x0003_FFFF,
            _ => x[0],
        };
        ops.push(Op {
            x: [a, 0, 0],
            op: (i % 2) as u64,
        });
    }
    let expected: Vec<u32> = (ops.iter())
        .map(|o| match o.op {
            0 => to_f32(o.x[0] as i32 as i64),
            _ => from_f32(o.x[0]),
        })
        .collect();
    run_unit(&design, 16, &ops, &expected, (0.3, 0.3));
}

#[test]
fn fp_q16_is_lint_clean_and_checks_its_tag() {
    assert_lint_clean(&fp_q16_top(&FpCfg::default()).unwrap());
    assert_rejects_bad_tag_widths(fp_q16_top);
}
