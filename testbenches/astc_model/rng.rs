//! The kit's seeded SplitMix64 generator with the draws the ASTC vectors use.

use rendergen_sim::kit::Rng as KitRng;

/// A [`KitRng`] with 128-bit, bounded-`u32` and unit-float draws.
pub struct Rng(KitRng);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(KitRng::new(seed))
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// 128 random bits.
    pub fn next_u128(&mut self) -> u128 {
        (self.next_u64() as u128) | ((self.next_u64() as u128) << 64)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift of the high 32 bits.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}
