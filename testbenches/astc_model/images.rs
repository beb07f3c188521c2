//! Procedural test images, compressed by astcenc and decoded by both astcenc and the model.

use super::astcenc::{self, Scratch};
use super::compare::{check_file, SingleTexel};
use super::rng::Rng;
use rendergen_sim::models::astc::{Footprint, Profile};
use rendergen_sim::models::ktx;

/// Image size: not a multiple of most footprints, so edge blocks are partly outside.
const W: u32 = 52;
const H: u32 = 46;

/// RGBA in [0,1] (HDR: colour up to `scale`) of a four-quadrant test pattern: smooth colour
/// gradient, grey with an alpha ramp, noise, and hard-edged colour stripes.
fn pattern(x: u32, y: u32, rng: &mut Rng, scale: f32) -> [f32; 4] {
    let (u, v) = (x as f32 / (W - 1) as f32, y as f32 / (H - 1) as f32);
    let left = x < W / 2;
    let top = y < H / 2;
    let c = match (left, top) {
        (true, true) => [u, v, 1.0 - u * v, 1.0],
        (false, true) => [v, v, v, u],
        (true, false) => [
            rng.unit(),
            rng.unit() * 0.5 + 0.25,
            rng.unit(),
            0.5 + rng.unit() * 0.5,
        ],
        (false, false) => match (x / 3 + y / 5) % 4 {
            0 => [1.0, 0.1, 0.1, 1.0],
            1 => [0.1, 0.9, 0.2, 0.6],
            2 => [0.05, 0.2, 1.0, 1.0],
            _ => [0.9, 0.9, 0.1, 0.3],
        },
    };
    [c[0] * scale, c[1] * scale, c[2] * scale, c[3]]
}

/// f32 to FP16 bits (round to nearest; inputs are small, positive and finite).
fn f32_to_f16(f: f32) -> u16 {
    if f <= 0.0 {
        return 0;
    }
    let bits = f.to_bits();
    let e = ((bits >> 23) & 0xFF) as i32 - 127 + 15;
    if e <= 0 {
        return ((f / (2.0f32).powi(-24)).round() as u16).min(0x3FF);
    }
    let m = bits & 0x7F_FFFF;
    let r = ((e as u32) << 10) + ((m + 0x1000) >> 13);
    r.min(0x7BFF) as u16
}

/// The LDR (RGBA8) or HDR (RGBA16F) source image as KTX bytes.
pub fn source(profile: Profile) -> Vec<u8> {
    let mut rng = Rng::new(0xA57C_0001);
    let scale = if profile.is_ldr() { 1.0 } else { 24.0 };
    let px: Vec<[f32; 4]> = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .map(|(x, y)| pattern(x, y, &mut rng, scale))
        .collect();
    if profile.is_ldr() {
        let bytes: Vec<u8> = px
            .iter()
            .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect();
        ktx::write_rgba8(W, H, &bytes)
    } else {
        let halfs: Vec<u16> = px.iter().flat_map(|p| p.map(f32_to_f16)).collect();
        ktx::write_rgba16f(W, H, &halfs)
    }
}

/// Compresses the test image at every footprint with `presets` and checks the model's decode of
/// astcenc's output against astcenc's own decode, texel by texel, both decode paths.
pub fn check_profile(profile: Profile, presets: &[&str]) {
    let src = source(profile);
    let scratch = Scratch::new(&format!("images-{profile}"));
    for fp in Footprint::ALL {
        for preset in presets {
            let tag = format!("img-{fp}{preset}");
            let file = astcenc::compress(&scratch, &tag, &src, fp, profile, preset);
            let reference = astcenc::decompress(&scratch, &tag, &file, profile);
            check_file(&file, profile, &reference, SingleTexel::All, &|_| {
                format!("image {preset}")
            });
        }
    }
}
