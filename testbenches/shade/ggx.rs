//! `pipe_ggx` against `rendergen_sim::models::pbru::shading::{ggx, ggx_dir}`: GGX and GGX_DIR
//! requests mixed in one stream.

use rendergen_rtl::pbru::pipes::ggx::{ggx_latency, pipe_ggx_top};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::pbru::shading::{ggx, ggx_dir};

const EVAL: u8 = 0x40;
const DIR: u8 = 0x50;
const ONE: u32 = 0x1_0000;

/// A unit vector in Q16.16.
fn unit(r: &mut Rng) -> [u32; 3] {
    loop {
        let v: Vec<f64> = (0..3)
            .map(|_| r.below(1 << 17) as f64 / 65536.0 - 1.0)
            .collect();
        let len = (v.iter().map(|x| x * x).sum::<f64>()).sqrt();
        if (0.1..=1.0).contains(&len) {
            return std::array::from_fn(|i| (v[i] / len * 65536.0).round() as i32 as u32);
        }
    }
}

/// `n` requests of opcode `op` taking `N V L rough`: see [`requests`] (without its GGX_DIR
/// share).
pub fn nvl_requests(seed: u64, n: usize, op: u8) -> Vec<(u8, u8, Vec<u32>)> {
    let reqs = requests(seed, n + n / 5 + 1);
    (reqs.into_iter())
        .filter(|(o, _, _)| *o == EVAL)
        .take(n)
        .map(|(_, _, a)| (op, 0, a))
        .collect()
}

/// `n` requests: unit vectors with α in (0, 1] (a fifth near the peak, L ≈ V ≈ N), degenerate
/// cases (V = N, L = −V, N·L = 0, α = 0, tiny α), any words, and GGX_DIR requests ([`dir`]).
fn requests(seed: u64, n: usize) -> Vec<(u8, u8, Vec<u32>)> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|i| match i % 6 {
            0..=2 => {
                let (n, v) = (unit(&mut r), unit(&mut r));
                let l = match r.below(5) {
                    0 => v,
                    1 => v.map(|c| c.wrapping_neg()),
                    2 => n,
                    _ => unit(&mut r),
                };
                let v = if r.chance(0.2) { n } else { v };
                let alpha = match r.below(5) {
                    0 => [0, 1, 100, 1310, ONE][r.below(5) as usize],
                    _ => r.below(ONE as u64 + 1) as u32,
                };
                (EVAL, 0, [&n[..], &v, &l, &[alpha]].concat())
            }
            3 => {
                let jitter =
                    |r: &mut Rng, c: u32| c.wrapping_add(r.below(400) as u32).wrapping_sub(200);
                let n = unit(&mut r);
                let v: Vec<u32> = n.iter().map(|c| jitter(&mut r, *c)).collect();
                let l: Vec<u32> = n.iter().map(|c| jitter(&mut r, *c)).collect();
                let alpha = 1310 + r.below(2000) as u32;
                (EVAL, 0, [&n[..], &v, &l, &[alpha]].concat())
            }
            4 => (EVAL, 0, (0..10).map(|_| r.next_u64() as u32).collect()),
            _ => (DIR, 0, dir(&mut r)),
        })
        .collect()
}

/// GGX_DIR words `N V α ξ1 ξ2`: unit vectors (V facing or, for a tenth, any), α in [0, 1],
/// ξ in [0, 1) with ξ = 0 and the cap's rim (ξ2 just below 1) emphasised, V = N; a quarter
/// any words.
fn dir(r: &mut Rng) -> Vec<u32> {
    if r.chance(0.25) {
        return (0..9).map(|_| r.next_u64() as u32).collect();
    }
    let n = unit(r);
    let v = match r.below(5) {
        0 => n,
        _ => unit(r),
    };
    let alpha = match r.below(5) {
        0 => [0, 1, 1310, ONE][r.below(4) as usize],
        _ => r.below(ONE as u64 + 1) as u32,
    };
    let xi1 = r.below(ONE as u64) as u32;
    let xi2 = match r.below(5) {
        0 => [0, ONE - 1, ONE - 2][r.below(3) as usize],
        _ => r.below(ONE as u64) as u32,
    };
    [&n[..], &v, &[alpha, xi1, xi2]].concat()
}

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    (reqs.iter())
        .map(|(op, _, a)| match *op {
            EVAL => vec![ggx(a)],
            _ => ggx_dir(a).to_vec(),
        })
        .collect()
}

big_pipe_tests! {
    top: pipe_ggx_top,
    latency: ggx_latency,
    requests: requests,
    tests: [
        ggx_pipe_matches_the_model_under_back_pressure,
        ggx_pipe_takes_one_request_per_clock,
        ggx_pipe_cosimulation,
        ggx_pipe_is_lint_clean,
    ],
}
