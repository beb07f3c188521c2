//! `pipe_cel` against `rendergen_sim::models::pbru::shading::cel_request`: lookups interleaved
//! with table writes (the SM side), checked in order against the stateful model.

use super::{assert_full_throughput, assert_lint_clean, run_pipe};
use rendergen_rtl::pbru::pipes::cel::{cel_latency, pipe_cel_top};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::pbru::shading::{cel_request, CelTable};

const OP: u8 = 0x45;

/// `n` requests `(op, imm, args)`: lookups of unit and any-word vectors and of N·L on a threshold,
/// and writes (a tenth) to random entries (some beyond the table).
fn requests(seed: u64, n: usize) -> Vec<(u8, u8, Vec<u32>)> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|i| {
            if r.chance(0.1) {
                let e = r.below(9) as u8;
                let w = match r.below(3) {
                    0 => r.next_u64() as u32,
                    _ => (r.below(0x2_0000) as i32 - 0x1_0000) as u32,
                };
                return (OP, 0x80 | e, vec![w]);
            }
            let a = match i % 3 {
                0 => (0..6).map(|_| r.next_u64() as u32).collect(),
                1 => vec![
                    0,
                    0,
                    0x1_0000,
                    0,
                    0,
                    [0, 0x4CCD, 0xB333, 0x4CCC][r.below(4) as usize],
                ],
                _ => (0..6)
                    .map(|_| (r.below(0x2_0000) as i32 - 0x1_0000) as u32)
                    .collect(),
            };
            (OP, 0, a)
        })
        .collect()
}

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    let mut t = CelTable::default();
    (reqs.iter())
        .map(|(_, imm, a)| vec![cel_request(*imm as u32, a, &mut t)])
        .collect()
}

#[test]
fn cel_pipe_matches_the_stateful_model_under_back_pressure() {
    let design = pipe_cel_top().unwrap();
    let reqs = requests(1, 3000);
    run_pipe(&design, 1, &reqs, &expected(&reqs), (0.3, 0.4), true);
}

#[test]
fn cel_pipe_takes_one_request_per_clock() {
    let design = pipe_cel_top().unwrap();
    let reqs = requests(2, 500);
    assert_full_throughput(&design, &reqs, &expected(&reqs), cel_latency());
}

#[test]
fn cel_pipe_is_lint_clean() {
    assert_lint_clean(&pipe_cel_top().unwrap());
}
