//! The ABI of `ABI.md` in code: the stacks the SM builds for the two programs and the results it
//! reads back, so a renderer (and the tests) never count stack words by hand.

use crate::codegen::{q16, Layout};

/// A vector of three numbers (x first).
pub type Vec3 = [f64; 3];

fn words(v: Vec3) -> [u32; 3] {
    v.map(|x| q16(x) as u32)
}

fn num(w: u32) -> f64 {
    f64::from(w as i32) / 65536.0
}

/// What the SM knows about a hit (all directions unit, world space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Shading normal N.
    pub n: Vec3,
    /// Direction towards the viewer V (the negated ray direction).
    pub v: Vec3,
    /// Texture coordinates (set 0).
    pub uv: [f64; 2],
    /// Square root of the UV-coverage fraction (0 if unknown).
    pub sqrt_cov: f64,
}

/// The shading program's initial stack for light direction `l` (`N V L u v sqrt_cov tex_base…`).
pub fn shading_stack(hit: &Hit, l: Vec3, tex_bases: &[u32]) -> Vec<u32> {
    let mut s = Vec::with_capacity(Layout::shading(tex_bases.len()).words);
    s.extend(words(hit.n));
    s.extend(words(hit.v));
    s.extend(words(l));
    s.extend([
        q16(hit.uv[0]) as u32,
        q16(hit.uv[1]) as u32,
        q16(hit.sqrt_cov) as u32,
    ]);
    s.extend_from_slice(tex_bases);
    s
}

/// The sampling program's initial stack (`N V u v sqrt_cov ξ1 ξ2 tex_base…`).
pub fn sampling_stack(hit: &Hit, xi: [f64; 2], tex_bases: &[u32]) -> Vec<u32> {
    let mut s = Vec::with_capacity(Layout::sampling(tex_bases.len()).words);
    s.extend(words(hit.n));
    s.extend(words(hit.v));
    s.extend([
        q16(hit.uv[0]) as u32,
        q16(hit.uv[1]) as u32,
        q16(hit.sqrt_cov) as u32,
    ]);
    s.extend([q16(xi[0]) as u32, q16(xi[1]) as u32]);
    s.extend_from_slice(tex_bases);
    s
}

/// What the shading program leaves above its inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shaded {
    /// `max(N·L, 0)`.
    pub cos: f64,
    /// `BSDF(V, L)·cos`, RGB.
    pub rgb: Vec3,
}

/// Reads the shading program's result from the final stack (`None` if the stack is not
/// `inputs + 4` words: the ray did not finish normally).
pub fn shaded(stack: &[u32], textures: usize) -> Option<Shaded> {
    let b = Layout::shading(textures).words;
    (stack.len() == b + 4).then(|| Shaded {
        cos: num(stack[b]),
        rgb: [num(stack[b + 1]), num(stack[b + 2]), num(stack[b + 3])],
    })
}

/// What the sampling program leaves above its inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampled {
    /// Sum of the lobes' albedo estimates.
    pub w_sum: f64,
    /// The sampled direction (towards the next hit).
    pub dir: Vec3,
    /// Its pdf under the chosen lobe.
    pub pdf: f64,
    /// The chosen lobe's `value·cos` at `dir`, RGB.
    pub rgb: Vec3,
    /// The chosen lobe's albedo estimate.
    pub w_k: f64,
    /// The chosen lobe's index (case order, [`crate::Compiled::lobes`]).
    pub k: u32,
}

impl Sampled {
    /// The path weight `rgb · W_sum / (W_k · pdf)`, or `None` when the path ends (no weight,
    /// no pdf, or a direction below the surface: `rgb` is then 0).
    pub fn throughput(&self) -> Option<Vec3> {
        (self.w_k > 0.0 && self.pdf > 0.0 && self.w_sum > 0.0)
            .then(|| self.rgb.map(|c| c * self.w_sum / (self.w_k * self.pdf)))
    }
}

/// Reads the sampling program's result from the final stack (`None` if it is not
/// `inputs + 10` words).
pub fn sampled(stack: &[u32], textures: usize) -> Option<Sampled> {
    let b = Layout::sampling(textures).words;
    (stack.len() == b + 10).then(|| Sampled {
        w_sum: num(stack[b]),
        dir: [num(stack[b + 1]), num(stack[b + 2]), num(stack[b + 3])],
        pdf: num(stack[b + 4]),
        rgb: [num(stack[b + 5]), num(stack[b + 6]), num(stack[b + 7])],
        w_k: num(stack[b + 8]),
        k: stack[b + 9],
    })
}
