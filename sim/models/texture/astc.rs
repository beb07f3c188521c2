//! ASTC textures (issue 14 §1, D5, D8): where a texel's block lives in memory and what the
//! unit samples, decoded with the astcenc-exact model [`crate::models::astc`].
//!
//! * **Layout.** Levels as [`TexDesc`] describes them (power-of-two storage `2^(log2_w − l) ×
//!   2^(log2_h − l)`), packed level 0 first in block units from word `base`; a level is
//!   `⌈W_l / bw⌉ × ⌈H_l / bh⌉` blocks, row-major; a block is four consecutive words, word 0 holding
//!   the block's bytes 0..3 (little-endian). `tiled` does not apply.
//! * **Decode.** The LDR linear profile (`astcenc -dl`), or LDR sRGB (`-ds`) when `srgb`; the
//!   8-bit output ([`crate::models::astc::texel::Texel::to_rgba8`]) is the texel the filter
//!   sees, exactly as an RGBA8 texel of the same `srgb` flag (so sRGB texels are linearised by
//!   the filter's table). HDR blocks decode to the LDR error colour, as astcenc's `-dl`/`-ds`.
//! * **Sampling** is [`sample`] on the decoded texture ([`decoded`]): every LOD, wrap, filter,
//!   gather and raw rule of the RGBA8 path holds unchanged.

use super::{sample, Answer, Counts, Request, TexDesc, TexelRef};
use crate::models::astc::texel::decode_texel;
use crate::models::astc::{Footprint, Profile};

/// Blocks across and down level `l`.
pub fn level_blocks(desc: &TexDesc, fp: Footprint, l: u32) -> (u32, u32) {
    let (lw, lh) = desc.level_log2(l);
    ((1u32 << lw).div_ceil(fp.w()), (1u32 << lh).div_ceil(fp.h()))
}

/// Word address of the block holding texel `(x, y)` of level `l`, and the texel's position in
/// the block.
pub fn block_of(desc: &TexDesc, fp: Footprint, l: u32, x: u32, y: u32) -> (u32, u32, u32) {
    let before: u32 = (0..l)
        .map(|k| {
            let (a, d) = level_blocks(desc, fp, k);
            a * d
        })
        .sum();
    let (across, _) = level_blocks(desc, fp, l);
    let number = before + (y / fp.h()) * across + x / fp.w();
    (desc.base.wrapping_add(4 * number), x % fp.w(), y % fp.h())
}

/// Words the ASTC texture takes from `base` (all levels).
pub fn words(desc: &TexDesc, fp: Footprint) -> u32 {
    (0..desc.mips)
        .map(|l| {
            let (a, d) = level_blocks(desc, fp, l);
            4 * a * d
        })
        .sum()
}

/// The profile the unit decodes with.
pub fn profile(desc: &TexDesc) -> Profile {
    match desc.srgb {
        false => Profile::LdrLinear,
        true => Profile::LdrSrgb,
    }
}

/// The decoded texture: an RGBA8 descriptor (linear layout from word 0, otherwise `desc`) and
/// its memory, every texel of every level decoded from the blocks in `mem`.
pub fn decoded(desc: &TexDesc, fp: Footprint, mem: &[u32]) -> (TexDesc, Vec<u32>) {
    let rgba = TexDesc {
        base: 0,
        tiled: false,
        ..*desc
    };
    let mut out = vec![0u32; rgba.words() as usize];
    let profile = profile(desc);
    for l in 0..desc.mips {
        let (lw, lh) = desc.level_log2(l);
        for y in 0..1u32 << lh {
            for x in 0..1u32 << lw {
                let (addr, tx, ty) = block_of(desc, fp, l, x, y);
                let mut block = [0u8; 16];
                for w in 0..4 {
                    let word = mem[(addr as usize + w) % mem.len()];
                    block[4 * w..4 * w + 4].copy_from_slice(&word.to_le_bytes());
                }
                let t = decode_texel(&block, fp, profile, tx, ty).to_rgba8();
                out[rgba.texel_addr(l, x, y) as usize] = u32::from_le_bytes(t);
            }
        }
    }
    (rgba, out)
}

/// One request on an ASTC texture: [`sample`] on [`decoded`] (decode once with [`decoded`] and
/// call [`sample`] when sampling many times).
pub fn sample_astc(
    desc: &TexDesc,
    fp: Footprint,
    mem: &[u32],
    r: &Request,
) -> (Answer, Counts, Vec<TexelRef>) {
    let (rgba, texels) = decoded(desc, fp, mem);
    sample(&rgba, &texels, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::texture::Wrap;

    fn desc(log2_w: u32, log2_h: u32) -> TexDesc {
        TexDesc {
            base: 100,
            log2_w,
            log2_h,
            width: 1 << log2_w,
            height: 1 << log2_h,
            mips: log2_w.max(log2_h) + 1,
            srgb: false,
            tiled: false,
            wrap: [Wrap::Repeat; 2],
            border: 0,
            min_lod: -32768,
            max_lod: 32767,
            base_level: 0,
        }
    }

    /// Blocks are packed level after level, every texel of a level in exactly one block
    /// position, and the texture's words end where the last level's blocks end.
    #[test]
    fn block_layout_is_dense_and_covers_every_texel() {
        for (w, h) in [(4, 4), (6, 6), (5, 4), (12, 10), (8, 5)] {
            let fp = Footprint::new(w, h).unwrap();
            let d = desc(5, 3);
            let mut seen = std::collections::HashSet::new();
            let mut max = 0;
            for l in 0..d.mips {
                let (lw, lh) = d.level_log2(l);
                for y in 0..1u32 << lh {
                    for x in 0..1u32 << lw {
                        let (a, tx, ty) = block_of(&d, fp, l, x, y);
                        assert!(tx < fp.w() && ty < fp.h());
                        assert_eq!((a - d.base) % 4, 0);
                        assert!(seen.insert((a, tx, ty)), "two texels at one place");
                        max = max.max(a);
                    }
                }
            }
            assert_eq!(max + 4 - d.base, words(&d, fp), "{w}x{h}");
        }
    }
}
