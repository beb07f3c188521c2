//! Golden model of the ASTC_A texture-address pipeline (`pbru.md` §5.2, decision D5).
//!
//! Plain integer arithmetic, written from the pseudocode and independent of the RTL
//! (`rendergen_rtl::astc::a`), which computes the same numbers by other means (a
//! digit-by-digit square root, one long division serving every mip level, division by
//! reciprocal multiplication, a summed table of level sizes).
//!
//! # The exact semantics (every choice §5.2 leaves open)
//! * **Port widths.** `u`, `v`, `sqrt_coverage` are 32-bit Q16.16 two's complement; `base` is
//!   32 bits; `width`, `height` are 15 bits; `bw`, `bh`, `mips` are 4 bits. The model asserts
//!   that every field fits its port. The contract is 1..=16384 for the sizes, the 14 ASTC 2D
//!   footprints ([`FOOTPRINTS`]) and 1..=15 mips, but every value that fits a port has a defined
//!   result, which the RTL reproduces bit for bit.
//! * **Wrapping (repeat).** Only the fraction of `u` and `v` is used: `u_frac = u & 0xFFFF`
//!   (the floor-based fraction, so −0.25 wraps to 0.75).
//! * **Footprint width.** `sqrt_texture_area = isqrt(W·H)` (integer square root, floor), and
//!   `width_of_footprint = (sqrt_coverage · sqrt_texture_area) >> 16` (the Q16.16 product,
//!   floored). A negative `sqrt_coverage` counts as 0. (Flooring the root first can only lower
//!   the width, and so the mip, when `sqrt_coverage · sqrt(W·H)` lies just above a power of
//!   two; it spares the hardware a 62×30-bit product of `sqrt_coverage² · W · H`.)
//! * **Mip level.** `mip = min(floor(log2(width_of_footprint)), coarsest)` with
//!   `coarsest = max(mips, 1) − 1`; a width of 0 or 1 gives mip 0 (`mips = 0` behaves as 1).
//! * **Mip sizes.** `mip_xsize = max(1, W >> mip)`, `mip_ysize = max(1, H >> mip)`.
//! * **Texel in the mip.** `modified_u = min((u_frac · mip_xsize) >> 16, mip_xsize − 1)` (the
//!   clamp never acts, since `u_frac < 2^16`); likewise `modified_v`.
//! * **Block dimensions.** `bw`, `bh` as given; 0 counts as 1.
//! * **Block.** `bx = modified_u / bw`, `texel_x = modified_u − bx·bw` (same for y);
//!   `mip_block_count_x = ceil(mip_xsize / bw)`.
//! * **Addresses are in block units.** `base` is the index of the first block (level 0, block
//!   (0, 0)) of the texture's block set; multiply by 16 for a byte address of 128-bit blocks. Mips
//!   are packed level 0 first, each level row-major:
//!   `mip_block_offset(L) = Σ_{l<L} ceil(max(1, W>>l)/bw) · ceil(max(1, H>>l)/bh)`, and
//!   `block_address = base + mip_block_offset(mip) + bx + by · mip_block_count_x`, modulo 2^32.

/// The 14 two-dimensional ASTC block footprints (width, height) in texels.
pub const FOOTPRINTS: [(u32, u32); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

/// A texture descriptor as the address pipeline sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// Index of the texture's first block (block units, level 0 first), 32 bits.
    pub base: u32,
    /// Width of level 0 in texels, 15 bits (contract: 1..=16384).
    pub width: u32,
    /// Height of level 0 in texels, 15 bits (contract: 1..=16384).
    pub height: u32,
    /// Block footprint width in texels, 4 bits (contract: an entry of [`FOOTPRINTS`]).
    pub bw: u32,
    /// Block footprint height in texels, 4 bits.
    pub bh: u32,
    /// Number of mip levels stored, 4 bits (contract: 1..=15); the coarsest is `mips − 1`.
    pub mips: u32,
}

/// One address request (message 1010).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressRequest {
    /// Texture coordinate u, Q16.16 (wrapped: only the fraction counts).
    pub u: i32,
    /// Texture coordinate v, Q16.16.
    pub v: i32,
    /// Square root of the UV-coverage fraction, Q16.16 (negative counts as 0).
    pub sqrt_coverage: i32,
    /// The texture.
    pub tex: TextureDesc,
}

/// The pipeline's answer (message 1020).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressResult {
    /// Address of the target block, in block units.
    pub block_address: u32,
    /// Texel column inside the block, `0..bw`.
    pub texel_x: u32,
    /// Texel row inside the block, `0..bh`.
    pub texel_y: u32,
    /// The mip level chosen.
    pub mip: u32,
}

/// Integer square root (floor) of `n` < 2^52, from `f64::sqrt` with an exact correction.
pub fn isqrt(n: u64) -> u64 {
    assert!(n < 1 << 52, "isqrt argument {n} out of range");
    let mut r = (n as f64).sqrt() as u64;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

/// Floor of log2 of `x`, with 0 and 1 both giving 0.
fn floor_log2(x: u64) -> u32 {
    if x <= 1 {
        0
    } else {
        63 - x.leading_zeros()
    }
}

fn ceil_div(a: u32, b: u32) -> u32 {
    a.div_ceil(b)
}

/// `(bw, bh)` with 0 read as 1.
fn block_dims(t: &TextureDesc) -> (u32, u32) {
    (t.bw.max(1), t.bh.max(1))
}

/// `width_of_footprint = (max(sqrt_coverage, 0) · isqrt(W·H)) >> 16`.
pub fn footprint_width(sqrt_coverage: i32, t: &TextureDesc) -> u64 {
    let sc = sqrt_coverage.max(0) as u64;
    let area = t.width as u64 * t.height as u64;
    (sc * isqrt(area)) >> 16
}

/// The mip level chosen for a footprint width: `min(floor(log2(width)), max(mips, 1) − 1)`.
pub fn mip_level(width_of_footprint: u64, mips: u32) -> u32 {
    floor_log2(width_of_footprint).min(mips.max(1) - 1)
}

/// Blocks per row and per column of level `l`.
pub fn level_blocks(t: &TextureDesc, l: u32) -> (u32, u32) {
    let (bw, bh) = block_dims(t);
    let xs = (t.width >> l).max(1);
    let ys = (t.height >> l).max(1);
    (ceil_div(xs, bw), ceil_div(ys, bh))
}

/// `mip_block_offset(L)`: blocks of levels `0..L`, level 0 first (modulo 2^32).
pub fn mip_block_offset(t: &TextureDesc, level: u32) -> u32 {
    (0..level).fold(0u32, |acc, l| {
        let (cx, cy) = level_blocks(t, l);
        acc.wrapping_add(cx.wrapping_mul(cy))
    })
}

fn check_ports(t: &TextureDesc) {
    assert!(
        t.width < 1 << 15 && t.height < 1 << 15,
        "texture size {}x{} does not fit 15 bits",
        t.width,
        t.height
    );
    assert!(
        t.bw < 16 && t.bh < 16 && t.mips < 16,
        "footprint {}x{} or mips {} does not fit 4 bits",
        t.bw,
        t.bh,
        t.mips
    );
}

/// Rescales a wrapped coordinate to a mip of `size` texels and splits it into block and texel.
fn texel_of(coord: i32, size: u32, block: u32) -> (u32, u32) {
    let frac = (coord as u32 & 0xFFFF) as u64;
    let modified = (((frac * size as u64) >> 16) as u32).min(size - 1);
    (modified / block, modified % block)
}

/// The address pipeline's result for one request (see the module documentation).
///
/// # Panics
/// If a descriptor field does not fit its port width.
pub fn texture_address(req: &AddressRequest) -> AddressResult {
    let t = &req.tex;
    check_ports(t);
    let mip = mip_level(footprint_width(req.sqrt_coverage, t), t.mips);
    let (bw, bh) = block_dims(t);
    let xs = (t.width >> mip).max(1);
    let ys = (t.height >> mip).max(1);
    let (bx, texel_x) = texel_of(req.u, xs, bw);
    let (by, texel_y) = texel_of(req.v, ys, bh);
    let (count_x, _) = level_blocks(t, mip);
    let block_address = t
        .base
        .wrapping_add(mip_block_offset(t, mip))
        .wrapping_add(bx)
        .wrapping_add(by.wrapping_mul(count_x));
    AddressResult {
        block_address,
        texel_x,
        texel_y,
        mip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex(width: u32, height: u32, bw: u32, bh: u32, mips: u32) -> TextureDesc {
        TextureDesc {
            base: 1000,
            width,
            height,
            bw,
            bh,
            mips,
        }
    }

    fn req(u: f64, v: f64, sc: f64, tex: TextureDesc) -> AddressRequest {
        let q = |x: f64| (x * 65536.0).round() as i32;
        AddressRequest {
            u: q(u),
            v: q(v),
            sqrt_coverage: q(sc),
            tex,
        }
    }

    #[test]
    fn isqrt_is_exact_near_squares() {
        for r in [0u64, 1, 2, 3, 1000, 16383, 16384, 32767, (1 << 26) - 1] {
            assert_eq!(isqrt(r * r), r);
            if r > 0 {
                assert_eq!(isqrt(r * r - 1), r - 1);
            }
            assert_eq!(isqrt(r * r + 2 * r), r);
        }
    }

    #[test]
    fn hand_worked_example() {
        // 100x60 texture of 5x4 blocks, 7 levels: level 0 is 20x15 blocks, level 1 (50x30)
        // 10x8, level 2 (25x15) 5x4. sqrt(100*60) = 77; coverage 0.1 → width 7 → mip 2.
        let t = tex(100, 60, 5, 4, 7);
        assert_eq!(mip_block_offset(&t, 2), 300 + 80);
        let r = texture_address(&req(0.5, 0.75, 0.1, t));
        // u: 0.5*25 = 12.5 → 12 → bx 2, x 2. v: 0.75*15 = 11.25 → 11 → by 2, y 3.
        assert_eq!(
            r,
            AddressResult {
                block_address: 1000 + 380 + 2 + 2 * 5,
                texel_x: 2,
                texel_y: 3,
                mip: 2
            }
        );
    }

    #[test]
    fn coverage_edges_and_clamp_to_coarsest() {
        let t = tex(1024, 1024, 4, 4, 11);
        assert_eq!(texture_address(&req(0.3, 0.3, 0.0, t)).mip, 0);
        assert_eq!(texture_address(&req(0.3, 0.3, -2.0, t)).mip, 0);
        // 1024 * (1/512) = 2 → mip 1; just below → width 1 → mip 0.
        assert_eq!(texture_address(&req(0.3, 0.3, 1.0 / 512.0, t)).mip, 1);
        let just_below = AddressRequest {
            sqrt_coverage: 127,
            ..req(0.3, 0.3, 0.0, t)
        };
        assert_eq!(texture_address(&just_below).mip, 0);
        assert_eq!(texture_address(&req(0.3, 0.3, 30000.0, t)).mip, 10);
        let r = texture_address(&req(0.3, 0.3, 1.0, tex(1024, 1024, 4, 4, 4)));
        assert_eq!(r.mip, 3);
    }

    #[test]
    fn wrapping_repeats() {
        let t = tex(300, 200, 6, 6, 1);
        let a = texture_address(&req(0.25, 0.5, 0.0, t));
        assert_eq!(a, texture_address(&req(3.25, -1.5, 0.0, t)));
        assert_eq!(
            texture_address(&req(-0.25, 0.0, 0.0, t)),
            texture_address(&req(0.75, 1.0, 0.0, t))
        );
    }

    #[test]
    fn coarse_levels_are_one_block() {
        let t = tex(37, 5, 12, 12, 15);
        assert_eq!(level_blocks(&t, 0), (4, 1));
        assert_eq!(level_blocks(&t, 14), (1, 1));
        let r = texture_address(&req(0.99, 0.99, 30000.0, t));
        assert_eq!((r.mip, r.texel_x, r.texel_y), (14, 0, 0));
        assert_eq!(r.block_address, 1000 + mip_block_offset(&t, 14));
    }
}
