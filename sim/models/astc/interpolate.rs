//! Weight application (spec C.2.19): endpoints + weight → output value, per profile, and the
//! constant colour of void-extent blocks. The places where `astcenc` (the project's reference,
//! decision D5) differs from the letter of the spec are marked `astcenc:`.

use super::convert::{lns_to_fp16, unorm16_to_fp16};
use super::endpoints::Endpoints;
use super::header::Layout;
use super::texel::{Texel, TexelEncoding};
use super::Profile;

fn texel(rgba: [u16; 4], encoding: TexelEncoding, error: bool) -> Texel {
    Texel {
        rgba,
        encoding,
        error,
    }
}

/// `(a·(64−w) + b·w + 32) >> 6`.
fn lerp(a: i32, b: i32, w: i32) -> i32 {
    (a * (64 - w) + b * w + 32) >> 6
}

/// Interpolates endpoints `ep` with plane weights `w` (0..=64); with dual plane the channel
/// named by the colour component selector uses `w[1]`, the others `w[0]`.
pub fn interpolate(ep: &Endpoints, w: [u32; 2], layout: &Layout, profile: Profile) -> Texel {
    let weight = |c: usize| {
        let dual = layout.mode.dual_plane && c as u32 == layout.ccs;
        w[dual as usize] as i32
    };
    let ldr = profile.is_ldr();
    if ldr && ep.hdr.iter().any(|&h| h) {
        // astcenc: HDR endpoints in an LDR profile give the UNORM16 colour
        // (0xFF00, 0, 0xFF00, 0xFF00) for that partition's texels (8-bit (254,0,254,254) in
        // linear, (255,0,255,255) in sRGB), not exactly the spec's magenta.
        let e: [u16; 4] = [0xFF00, 0, 0xFF00, 0xFF00];
        let rgba = if profile == Profile::LdrSrgb {
            e.map(|c| (c >> 8) * 257)
        } else {
            e
        };
        return texel(rgba, TexelEncoding::Unorm16, true);
    }
    let rgba: [u16; 4] = std::array::from_fn(|c| {
        let (e0, e1, wc) = (ep.e0[c], ep.e1[c], weight(c));
        match profile {
            Profile::LdrLinear => lerp(e0 * 257, e1 * 257, wc) as u16,
            // astcenc: sRGB endpoints are interpolated at 8 bits, then scaled by 257. The top 8
            // bits equal the spec's ((e << 8) | 0x80) interpolation for every input.
            Profile::LdrSrgb => (lerp(e0, e1, wc) * 257) as u16,
            Profile::Hdr if ep.hdr[c] => lns_to_fp16(lerp(e0 << 4, e1 << 4, wc) as u16),
            Profile::Hdr => unorm16_to_fp16(lerp(e0 * 257, e1 * 257, wc) as u16),
        }
    });
    let encoding = if ldr {
        TexelEncoding::Unorm16
    } else {
        TexelEncoding::Fp16
    };
    texel(rgba, encoding, false)
}

/// Sets the quiet bit of an FP16 NaN (as a round trip through `f32` does).
pub fn quiet_nan(h: u16) -> u16 {
    if h & 0x7C00 == 0x7C00 && h & 0x3FF != 0 {
        h | 0x200
    } else {
        h
    }
}

/// The texel of a void-extent block with colour `rgba` (FP16 if `hdr`, else UNORM16).
pub fn void_extent_texel(hdr: bool, rgba: [u16; 4], profile: Profile) -> Texel {
    match (profile, hdr) {
        // astcenc: the FP16 colour passes through f32, which quiets signalling NaNs.
        (Profile::Hdr, true) => texel(rgba.map(quiet_nan), TexelEncoding::Fp16, false),
        (Profile::Hdr, false) => texel(rgba.map(unorm16_to_fp16), TexelEncoding::Fp16, false),
        // An HDR constant colour in an LDR profile is an error.
        (_, true) => Texel::error(profile),
        (Profile::LdrLinear, false) => texel(rgba, TexelEncoding::Unorm16, false),
        // astcenc: sRGB keeps the top 8 bits of the constant colour, rescaled by 257.
        (Profile::LdrSrgb, false) => {
            texel(rgba.map(|c| (c >> 8) * 257), TexelEncoding::Unorm16, false)
        }
    }
}
