//! Work per texel: what decoding one texel needs (the texel's partition's colour values, at
//! most four grid weights per plane) against decoding the whole block, over the astcenc test
//! images at every footprint (the reference model counts both).

use super::vectors;
use rendergen_sim::models::astc::{decode_block_traced, decode_texel_traced, Footprint, Profile};
use std::collections::HashSet;

#[test]
fn single_texel_decode_does_less_work_than_whole_block() {
    eprintln!("footprint  per texel: colour values, grid weights | whole block: colour values, grid weights");
    for fp in Footprint::ALL {
        let v = vectors::image(fp, Profile::LdrLinear, "-thorough");
        let (mut colour, mut weights) = (0u64, 0u64);
        for t in &v {
            let (_, w) = decode_texel_traced(&t.block.to_le_bytes(), fp, t.profile, t.x, t.y);
            colour += w.colour_values as u64;
            weights += w.grid_weights as u64;
        }
        let blocks: HashSet<u128> = v.iter().map(|t| t.block).collect();
        let (mut block_colour, mut block_weights, mut n) = (0u64, 0u64, 0u64);
        for b in &blocks {
            let (_, w) = decode_block_traced(&b.to_le_bytes(), fp, Profile::LdrLinear);
            block_colour += w.colour_values as u64;
            block_weights += w.grid_weights as u64;
            n += 1;
        }
        let texels = v.len() as f64;
        let per = |x: u64, d: f64| x as f64 / d;
        eprintln!(
            "{fp:>9}  {:>6.2} {:>6.2} | {:>6.2} {:>6.2}",
            per(colour, texels),
            per(weights, texels),
            per(block_colour, n as f64),
            per(block_weights, n as f64)
        );
        assert!(per(weights, texels) <= 8.0 && per(colour, texels) <= 8.0);
        assert!(colour as f64 / texels <= block_colour as f64 / n as f64 + 1e-9);
    }
}
