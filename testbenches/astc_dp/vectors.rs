//! Test vectors: random and structured-random blocks (the model testbench's generators),
//! texel positions, hand-built feature blocks, texels of astcenc-compressed images.

#[path = "../astc_model/gen.rs"]
#[allow(dead_code)]
mod gen;
#[path = "../astc_model/rng.rs"]
#[allow(dead_code)]
mod rng;

use super::bench::Vector;
use rendergen_sim::models::astc::{Footprint, Profile};
pub use rng::Rng;

/// `n` texels of random blocks (half pure random, half structured random) at `fp`.
pub fn random(seed: u64, fp: Footprint, profile: Profile, n: usize) -> Vec<Vector> {
    let mut rng = Rng::new(seed ^ ((fp.w() as u64) << 8 | fp.h() as u64));
    let modes = gen::legal_modes(fp);
    (0..n)
        .map(|i| {
            let block = if i % 2 == 0 {
                rng.next_u128()
            } else {
                gen::structured(&mut rng, &modes)
            };
            Vector {
                block,
                fp,
                profile,
                x: rng.below(fp.w()),
                y: rng.below(fp.h()),
            }
        })
        .collect()
}
