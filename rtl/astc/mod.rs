//! ASTC texture pipelines of the PBRU (`pbru.md` §5.2–5.4, D5): `address` is ASTC_A (UV →
//! block address and texel position), `dp` is ASTC_DP (one texel decoded from a 128-bit block).
//! Each submodule registers itself below.

pub mod address;
mod address_steps;
pub mod arith;
pub mod dp;
