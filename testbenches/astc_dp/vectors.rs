//! Test vectors, from the model testbench's block generators, procedural images and astcenc
//! runner (`testbenches/astc_model/`), so both benches use the same blocks.

use super::bench::Vector;
pub use crate::astc_model::rng::Rng;
use crate::astc_model::{astcenc, gen, images, sweep};
use rendergen_sim::models::astc::{Footprint, Profile};

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

/// Every texel (in raster order, edge blocks included whole) of the model bench's test image
/// compressed by astcenc at `fp` for `profile` with `preset`.
pub fn image(fp: Footprint, profile: Profile, preset: &str) -> Vec<Vector> {
    let src = images::source(profile);
    let scratch = astcenc::Scratch::new(&format!("dp-{fp}-{profile}"));
    let file = astcenc::compress(&scratch, "img", &src, fp, profile, preset);
    let mut out = Vec::new();
    for by in 0..file.blocks_y() {
        for bx in 0..file.blocks_x() {
            let block = u128::from_le_bytes(*file.block(bx, by));
            for y in 0..fp.h() {
                for x in 0..fp.w() {
                    out.push(Vector {
                        block,
                        fp,
                        profile,
                        x,
                        y,
                    });
                }
            }
        }
    }
    out
}

/// The model bench's hand-built feature blocks at `fp` (void extent of every kind, every
/// illegal reason, every weight and colour range, CEM and partition count, mixed CEMs, every
/// CCS), each at its four corners and every third texel.
pub fn features(fp: Footprint, profile: Profile) -> Vec<Vector> {
    let (blocks, _) = sweep::feature_blocks(fp);
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let block = u128::from_le_bytes(*b);
        for y in 0..fp.h() {
            for x in 0..fp.w() {
                let corner = (x == 0 || x == fp.w() - 1) && (y == 0 || y == fp.h() - 1);
                if corner || (x + y + i as u32).is_multiple_of(3) {
                    out.push(Vector {
                        block,
                        fp,
                        profile,
                        x,
                        y,
                    });
                }
            }
        }
    }
    out
}
