//! `pipe_oren_nayar` against `rendergen_sim::models::pbru::shading::{oren_nayar, oren_nayar_dir}`.

use rendergen_rtl::pbru::pipes::oren_nayar::{oren_nayar_latency, pipe_oren_nayar_top};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::pbru::shading::{oren_nayar, oren_nayar_dir};

const EVAL: u8 = 0x41;
const DIR: u8 = 0x51;
const ONE: u32 = 0x1_0000;

/// A unit vector in Q16.16 (random direction).
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

/// `n` requests of both opcodes: unit vectors with random roughness and ξ, degenerate cases
/// (V = N, L = −V, N·L = 0, roughness 0, N = 0, ξ at 0 and 1), and any words.
fn requests(seed: u64, n: usize) -> Vec<(u8, u8, Vec<u32>)> {
    let mut r = Rng::new(seed);
    let specials = [
        0,
        1,
        ONE - 1,
        ONE,
        ONE.wrapping_neg(),
        1310,
        i32::MAX as u32,
        i32::MIN as u32,
    ];
    (0..n)
        .map(|i| {
            let pick = |r: &mut Rng| specials[r.below(specials.len() as u64) as usize];
            match i % 6 {
                0 | 1 => {
                    let (n, v) = (unit(&mut r), unit(&mut r));
                    let l = match r.below(4) {
                        0 => v,
                        1 => v.map(|c| c.wrapping_neg()),
                        _ => unit(&mut r),
                    };
                    let rough = if r.chance(0.2) {
                        0
                    } else {
                        r.below(ONE as u64 + 1) as u32
                    };
                    (EVAL, 0, [&n[..], &v, &l, &[rough]].concat())
                }
                2 | 3 => {
                    let n = if r.chance(0.1) { [0; 3] } else { unit(&mut r) };
                    let (x1, x2) = if r.chance(0.2) {
                        (pick(&mut r), pick(&mut r))
                    } else {
                        (r.below(ONE as u64) as u32, r.below(ONE as u64) as u32)
                    };
                    (DIR, 0, [&n[..], &[x1, x2]].concat())
                }
                4 => (EVAL, 0, (0..10).map(|_| r.next_u64() as u32).collect()),
                _ => (DIR, 0, (0..5).map(|_| r.next_u64() as u32).collect()),
            }
        })
        .collect()
}

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    (reqs.iter())
        .map(|(op, _, a)| match *op {
            EVAL => vec![oren_nayar(a)],
            _ => oren_nayar_dir(a).to_vec(),
        })
        .collect()
}

big_pipe_tests! {
    top: pipe_oren_nayar_top,
    latency: oren_nayar_latency,
    requests: requests,
    tests: [
        oren_nayar_pipe_matches_the_model_under_back_pressure,
        oren_nayar_pipe_takes_one_request_per_clock,
        oren_nayar_pipe_cosimulation,
        oren_nayar_pipe_is_lint_clean,
    ],
}
