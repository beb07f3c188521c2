//! `pipe_schlick` against `rendergen_sim::models::pbru::shading::schlick`.

use super::{assert_full_throughput, assert_lint_clean, run_pipe};
use rendergen_rtl::pbru::pipes::schlick::{pipe_schlick_top, schlick_latency};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::pbru::shading::schlick;

const OP: u8 = 0x42;
const ONE: u32 = 0x1_0000;

/// `n` requests: a third in the domain (F0, F90 in [0, 1], cos in [0.01, 1]), a third grazing
/// and degenerate (cos 0, 2⁻¹⁶, 0.01, 1, negative, above 1; F0 = F90; the range's ends), a
/// third any words.
fn requests(seed: u64, n: usize) -> Vec<(u8, u8, Vec<u32>)> {
    let mut r = Rng::new(seed);
    let cosines = [
        0,
        1,
        655,
        ONE - 1,
        ONE,
        ONE + 1,
        ONE.wrapping_neg(),
        i32::MAX as u32,
        i32::MIN as u32,
    ];
    let ends = [0, ONE, i32::MAX as u32, i32::MIN as u32, 1, u32::MAX];
    (0..n)
        .map(|i| {
            let args: Vec<u32> = match i % 3 {
                0 => {
                    let mut a: Vec<u32> = (0..6).map(|_| r.below(ONE as u64 + 1) as u32).collect();
                    a.push(655 + r.below((ONE - 655) as u64 + 1) as u32);
                    a
                }
                1 => {
                    let mut a: Vec<u32> = (0..6)
                        .map(|_| ends[r.below(ends.len() as u64) as usize])
                        .collect();
                    if r.chance(0.3) {
                        a.copy_within(0..3, 3);
                    }
                    a.push(cosines[r.below(cosines.len() as u64) as usize]);
                    a
                }
                _ => (0..7).map(|_| r.next_u64() as u32).collect(),
            };
            (OP, 0, args)
        })
        .collect()
}

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    reqs.iter().map(|(_, _, a)| schlick(a).to_vec()).collect()
}

#[test]
fn schlick_pipe_matches_the_model_under_back_pressure() {
    let design = pipe_schlick_top().unwrap();
    let reqs = requests(1, 1500);
    run_pipe(&design, 1, &reqs, &expected(&reqs), (0.3, 0.4), true);
}

#[test]
fn schlick_pipe_takes_one_request_per_clock() {
    let design = pipe_schlick_top().unwrap();
    let reqs = requests(2, 300);
    assert_full_throughput(&design, &reqs, &expected(&reqs), schlick_latency());
}

#[test]
fn schlick_pipe_is_lint_clean() {
    assert_lint_clean(&pipe_schlick_top().unwrap());
}
