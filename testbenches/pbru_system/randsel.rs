//! RANDSEL case frequencies (`pbru.md` §3.5, §9.4 T-EX-7 with unequal weights): many rays of a
//! four-case program run through the whole engine; every ray must equal the interpreter's (the
//! system runner's scoreboard), and the case counts must fit the weights by a χ² test.

use super::run;
use rendergen_rtl::pbru::ports::isa::asm::assemble;
use rendergen_sim::agents::pbru::{RayMode, SystemCfg};
use rendergen_sim::kit::seed_from_env_or;
use rendergen_sim::models::pbru::{golden, Memory, Ray};

/// Case weights, pushed w0 first (w0 is case 0).
const WEIGHTS: [f64; 4] = [1.0, 2.0, 3.0, 4.0];

/// χ² critical value for 3 degrees of freedom at p = 0.001.
const CHI2_CRIT_3DF_P001: f64 = 16.266;

/// Rays sent.
const RAYS: u32 = 1500;

/// The program: push the weights, RANDSEL 4, each case pushes its number.
fn program() -> String {
    let mut s: String = WEIGHTS.iter().map(|w| format!("PUSH {w:.1}q\n")).collect();
    s += "RANDSEL 4\n";
    for k in 0..WEIGHTS.len() {
        s += &format!("CASE\nPUSH {k}\nENDCASE\n");
    }
    s + "RAYSTOP\n"
}

/// Pearson's χ² of `counts` against `weights`.
fn chi_square(counts: &[u64], weights: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let total: f64 = weights.iter().sum();
    (counts.iter().zip(weights))
        .map(|(&c, w)| {
            let e = n as f64 * w / total;
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

/// 1,500 rays of RANDSEL over weights 1:2:3:4 on the engine: no mismatch against the
/// interpreter (so the engine chose each ray's case exactly as counted here), and
/// χ² (3 degrees of freedom) below 16.266, the critical value at p = 0.001.
#[test]
fn randsel_case_frequencies_follow_the_weights_chi_square() {
    let seed = seed_from_env_or(16);
    let mut mem = Memory::new();
    mem.write(0x2000, &assemble(&program()).expect("assembles"));
    let rays: Vec<_> = (0..RAYS)
        .map(|i| (Ray::new(i, 0x2000, vec![]), RayMode::Inline, 0))
        .collect();
    let sys = SystemCfg {
        seed,
        ..SystemCfg::default()
    };
    let r = run("pbru_system_randsel", mem.clone(), &rays, sys);
    assert_eq!((r.rays_out, r.mismatches, r.unchecked), (RAYS as u64, 0, 0));
    // The scoreboard compared every engine ray with this very answer.
    let mut counts = [0u64; 4];
    for (ray, _, _) in &rays {
        let (out, _) = golden(&mem, ray, 32).expect("defined");
        counts[out.stack[0] as usize] += 1;
    }
    let chi2 = chi_square(&counts, &WEIGHTS);
    assert!(
        chi2 < CHI2_CRIT_3DF_P001,
        "χ² = {chi2:.2} ≥ {CHI2_CRIT_3DF_P001} for counts {counts:?}, weights {WEIGHTS:?}"
    );
    // The test can fail: a uniform choice would be rejected.
    assert!(
        chi_square(&counts, &[1.0; 4]) > CHI2_CRIT_3DF_P001,
        "{counts:?}"
    );
    eprintln!("RANDSEL counts {counts:?} for weights {WEIGHTS:?}: χ² = {chi2:.2} (3 df)");
}
