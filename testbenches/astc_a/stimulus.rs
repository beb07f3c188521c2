//! Random ASTC_A requests: textures of every footprint, non-power-of-two and extreme sizes,
//! mip chains up to the full chain, coordinates far outside [0, 1), coverage from negative to
//! huge and right at the mip-level boundaries. A few requests leave the contract (size 0 or
//! above 16384, footprints that are not ASTC's, 0 or too many mips), where the unit's result is
//! still defined.

use rendergen_sim::kit::Rng;
use rendergen_sim::models::texture_address::{isqrt, AddressRequest, TextureDesc, FOOTPRINTS};

/// A texture size: powers of two, tiny, near the maximum, or log-uniform (mostly NPOT).
fn size(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0 => 1 << rng.below(15),
        1 => rng.below(8) as u32 + 1,
        2 => 16384 - rng.below(5) as u32,
        _ => {
            let bits = rng.below(14) + 1;
            (rng.below(1 << bits) as u32 + 1).min(16384)
        }
    }
}

/// Number of levels in the full mip chain of a `w`×`h` texture.
pub fn full_chain(w: u32, h: u32) -> u32 {
    32 - w.max(h).max(1).leading_zeros()
}

/// A texture inside the contract, with footprint `FOOTPRINTS[fp]`.
pub fn texture(rng: &mut Rng, fp: usize) -> TextureDesc {
    let (width, height) = (size(rng), size(rng));
    let chain = full_chain(width, height);
    let mips = if rng.chance(0.4) {
        chain
    } else {
        rng.below(chain as u64) as u32 + 1
    };
    let (bw, bh) = FOOTPRINTS[fp];
    TextureDesc {
        base: rng.next_u64() as u32,
        width,
        height,
        bw,
        bh,
        mips,
    }
}

/// A texture outside the contract in one or more fields (still fitting the ports).
pub fn odd_texture(rng: &mut Rng) -> TextureDesc {
    let fp = rng.below(14) as usize;
    let mut t = texture(rng, fp);
    match rng.below(4) {
        0 => t.width = [0, 16385, 32767][rng.below(3) as usize],
        1 => t.height = rng.below(1 << 15) as u32,
        2 => (t.bw, t.bh) = (rng.below(16) as u32, rng.below(16) as u32),
        _ => t.mips = [0, 15][rng.below(2) as usize],
    }
    t
}

/// A Q16.16 coordinate: anywhere, in [0, 1), negative, at the wrap points, or a few repeats.
fn coord(rng: &mut Rng) -> i32 {
    match rng.below(6) {
        0 => rng.next_u64() as i32,
        1 => rng.below(1 << 16) as i32,
        2 => -(rng.below(1 << 20) as i32),
        3 => [0, 1, 0xFFFF, 0x1_0000, -1, i32::MIN, i32::MAX][rng.below(7) as usize],
        _ => rng.below(4 << 16) as i32,
    }
}

/// √coverage: 0, negative, huge, at a mip boundary (±1), or log-uniform.
fn coverage(rng: &mut Rng, t: &TextureDesc) -> i32 {
    match rng.below(8) {
        0 => 0,
        1 => -(rng.below(1 << 31) as i32) - 1,
        2 => i32::MAX - rng.below(1 << 24) as i32,
        3 | 4 => {
            // Smallest coverage giving a footprint of 2^k texels, nudged by −1, 0 or +1.
            let s = isqrt(t.width as u64 * t.height as u64).max(1);
            let k = rng.below(16);
            let sc = (1u64 << (k + 16)).div_ceil(s) as i64 + rng.below(3) as i64 - 1;
            sc.clamp(0, i32::MAX as i64) as i32
        }
        _ => {
            let bits = rng.below(32);
            rng.below(1 << bits) as i32
        }
    }
}

/// `n` requests; the texture changes every few requests, footprints cycle through all 14, and
/// one request in `odd_every` (0: none) uses an out-of-contract texture.
pub fn requests(rng: &mut Rng, n: usize, odd_every: u64) -> Vec<AddressRequest> {
    let mut out = Vec::with_capacity(n);
    let mut tex = texture(rng, 0);
    for i in 0..n {
        if rng.chance(0.3) {
            tex = texture(rng, i % FOOTPRINTS.len());
        }
        let t = if odd_every > 0 && rng.below(odd_every) == 0 {
            odd_texture(rng)
        } else {
            tex
        };
        out.push(AddressRequest {
            u: coord(rng),
            v: coord(rng),
            sqrt_coverage: coverage(rng, &t),
            tex: t,
        });
    }
    out
}
