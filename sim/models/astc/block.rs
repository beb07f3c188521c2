//! Whole-block decode: decodes every colour value and every grid weight once, then produces all
//! texels. Independent of the single-texel path's sequencing, so each checks the other.

use super::header::{values_of, BlockKind};
use super::ise::decode_value;
use super::texel::{interpolate, partition_endpoints, void_extent_texel, DecodeWork, Texel};
use super::weights::{unquantize_weight, Infill};
use super::{block_bits, partition, Footprint, Profile};

/// Decodes all texels of `block`, row-major (`x + y * fp.w()`).
pub fn decode_block(block: &[u8; 16], fp: Footprint, profile: Profile) -> Vec<Texel> {
    decode_block_traced(block, fp, profile).0
}

/// [`decode_block`], also returning the work a whole-block decode does.
pub fn decode_block_traced(
    block: &[u8; 16],
    fp: Footprint,
    profile: Profile,
) -> (Vec<Texel>, DecodeWork) {
    let n = fp.texels() as usize;
    let bits = block_bits(block);
    let layout = match BlockKind::parse(bits, fp) {
        BlockKind::VoidExtent { hdr, rgba } => {
            return (
                vec![void_extent_texel(hdr, rgba, profile); n],
                DecodeWork::default(),
            )
        }
        BlockKind::Illegal(_) => return (vec![Texel::error(profile); n], DecodeWork::default()),
        BlockKind::Normal(l) => l,
    };
    let endpoints: Vec<_> = (0..layout.partitions)
        .map(|p| partition_endpoints(bits, &layout, p))
        .collect();
    let q = layout.mode.weight_quant;
    let count = layout.mode.weight_count();
    let stream = layout.weight_stream(bits);
    let grid: Vec<u32> = (0..count)
        .map(|i| unquantize_weight(q, decode_value(&stream, q, i)))
        .collect();
    let planes = if layout.mode.dual_plane { 2 } else { 1 };
    let mut texels = Vec::with_capacity(n);
    for y in 0..fp.h() {
        for x in 0..fp.w() {
            let p = partition::select(layout.seed, x, y, layout.partitions, fp.texels() < 31);
            let infill = Infill::new(x, y, fp.w(), fp.h(), layout.mode.grid_w, layout.mode.grid_h);
            let mut w = [0u32; 2];
            for (plane, wp) in w.iter_mut().enumerate().take(planes) {
                let corner = infill.index.map(|g| {
                    let i = (g * planes as u32 + plane as u32) as usize;
                    grid.get(i).copied().unwrap_or(0)
                });
                *wp = infill.combine(corner);
            }
            texels.push(interpolate(&endpoints[p as usize], w, &layout, profile));
        }
    }
    let work = DecodeWork {
        endpoint_pairs: layout.partitions,
        colour_values: (0..layout.partitions)
            .map(|p| values_of(layout.cem(p)))
            .sum(),
        grid_weights: count,
    };
    (texels, work)
}
