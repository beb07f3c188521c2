//! Golden model of the tile engine (issue 13 §1; `tiles-and-allocation.md` Part A;
//! `DECISIONS.md` D7): triangle setup in fixed point ([`setup`]), rasterisation of one 16×16
//! tile in 2×2 quads with 1× or 4× MSAA coverage, depth and barycentrics ([`raster`]), the
//! tile buffer with early depth test, Vulkan blending on RGBA8, tile-shader access and clears
//! ([`buffer`]); and the frame level: a byte-accurate external memory with regions, counters
//! and poison ([`memory`]), the per-tile command lists ([`command`]), the special port the
//! tile shader reaches the tile buffer through ([`port`]), format conversions and resolves
//! ([`pack`]), and a whole render pass from vertex buffers to written-out surfaces
//! ([`frame`]; `rendergen raster` runs it, `gen/tests/raster.rs` tests it, scenarios A1–A17).
//!
//! The model is written from the spec and D7, not from the RTL (`rendergen_rtl::tile`); both
//! follow the fixed-point rules written here, and the model's coverage and depth are checked
//! against an independent f64 evaluation of the edge functions in its tests.
//!
//! # Conventions (D7)
//! * Screen coordinates are fixed point with [`SUB_BITS`] = 8 sub-pixel bits (1/256 pixel),
//!   origin top-left, y down; vertices lie within ±2^13 pixels (the guard band; setup rejects
//!   others). Pixel centres are at +0.5 (128/256).
//! * Sample positions inside a pixel (1/256 units): 1×: (128, 128); 4×: Vulkan's standard
//!   (0.375, 0.125), (0.875, 0.375), (0.125, 0.625), (0.625, 0.875) ([`sample_offsets`]).
//! * A tile is 16×16 pixels, 8×8 quads; quad `(qx, qy)` holds pixels `(2qx + i, 2qy + j)`.
//!   Inside a quad the *lanes* are numbered `pixel * samples + sample`, with
//!   `pixel = 2j + i` (top-left, top-right, bottom-left, bottom-right).
//! * Depth is D24: an integer in `0..=DEPTH_MAX` (`z·(2^24 − 1)` rounded), test LESS by default.
pub mod buffer;
pub mod command;
pub mod frame;
pub mod memory;
pub mod pack;
pub mod port;
pub mod raster;
pub mod setup;
#[cfg(test)]
mod tests;

/// Sub-pixel bits of screen coordinates (D7).
pub const SUB_BITS: u32 = 8;
/// One pixel in sub-pixel units.
pub const PIXEL: i64 = 1 << SUB_BITS;
/// Tile side in pixels (D7).
pub const TILE: i64 = 16;
/// Quads per tile side.
pub const QUADS: u32 = 8;
/// Largest D24 depth (1.0).
pub const DEPTH_MAX: u32 = (1 << 24) - 1;
/// Extra fractional bits of the depth plane coefficients.
pub const Z_FRAC: u32 = 16;
/// Vertex coordinates must satisfy `|x|, |y| < GUARD` (sub-pixel units): ±2^13 pixels.
pub const GUARD: i64 = 1 << 21;

/// Sample offsets inside a pixel in sub-pixel units, for 1 or 4 samples (D7); `None` for
/// other counts.
pub fn sample_offsets(samples: u32) -> Option<&'static [(i64, i64)]> {
    match samples {
        1 => Some(&[(128, 128)]),
        4 => Some(&[(96, 32), (224, 96), (32, 160), (160, 224)]),
        _ => None,
    }
}

/// Position of lane `lane` of quad `(qx, qy)` in tile-local sub-pixel units.
pub fn lane_position(qx: u32, qy: u32, lane: u32, samples: u32) -> (i64, i64) {
    let offsets = sample_offsets(samples).expect("1 or 4 samples");
    let (pixel, sample) = (lane / samples, lane % samples);
    let (ox, oy) = offsets[sample as usize];
    let px = 2 * qx as i64 + (pixel & 1) as i64;
    let py = 2 * qy as i64 + (pixel >> 1) as i64;
    (px * PIXEL + ox, py * PIXEL + oy)
}
