//! Decoding a whole image through the ASTC_DP RTL in the cycle simulator.

use crate::Failure;
use rendergen_sim::models::astc::{AstcFile, Profile, Texel};

/// Decodes every texel of `file` through ASTC_DP; returns the texels (row-major) and the cycles
/// simulated. `progress(done, total)` is called as texels complete.
pub fn decode(
    _file: &AstcFile,
    _profile: Profile,
    _progress: fn(u64, u64),
) -> Result<(Vec<Texel>, u64), Failure> {
    Err(Failure::check(
        "the ASTC_DP RTL is not in this build yet; use --engine model",
    ))
}
