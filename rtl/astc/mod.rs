//! ASTC texture pipelines of the PBRU (`pbru.md` §5.2–5.4, D5), one folder each: [`a`] is
//! ASTC_A (UV → block address and texel position), [`dp`] is ASTC_DP (one texel decoded from a
//! 128-bit block).

pub mod a;
pub mod dp;
