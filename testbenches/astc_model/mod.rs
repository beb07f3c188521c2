//! Bit-exact comparison of the ASTC reference model (`rendergen_sim::models::astc`) with ARM's
//! `astcenc` decoder. Needs `astcenc` on PATH (`scripts/install-deps.sh`); fails loudly if not.
//!
//! * `images_*`: procedural images compressed by astcenc at all 14 footprints and three quality
//!   presets, decoded by both; every texel through both model paths.
//! * `features_*`: hand-built blocks for every feature (void extent, partitions, endpoint modes,
//!   trit/quint ranges, dual plane, reserved encodings).
//! * `random_*`: 100,000 random blocks and 100,000 structured-random blocks per footprint.

pub(crate) mod astcenc;
pub(crate) mod compare;
pub(crate) mod gen;
pub(crate) mod images;
pub(crate) mod rng;
pub(crate) mod sweep;

use rendergen_sim::models::astc::Profile;

const PRESETS: [&str; 3] = ["-fastest", "-medium", "-thorough"];

#[test]
fn images_ldr_linear() {
    images::check_profile(Profile::LdrLinear, &PRESETS);
}

#[test]
fn images_ldr_srgb() {
    images::check_profile(Profile::LdrSrgb, &PRESETS);
}

#[test]
fn images_hdr() {
    images::check_profile(Profile::Hdr, &PRESETS);
}

#[test]
fn features_all_profiles() {
    sweep::features();
}

#[test]
fn random_ldr_linear() {
    sweep::random(Profile::LdrLinear);
}

#[test]
fn random_ldr_srgb() {
    sweep::random(Profile::LdrSrgb);
}

#[test]
fn random_hdr() {
    sweep::random(Profile::Hdr);
}
