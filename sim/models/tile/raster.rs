//! Rasterisation of one set-up triangle in one tile: the quads of its bounding box in row-major
//! order (rows of quads top to bottom, left to right inside a row), each with its per-lane
//! coverage, per-lane D24 depth and the edge functions at the pixel centres; and the
//! perspective-correct barycentrics in binary32 computed from them.
use super::setup::TriSetup;
use super::{lane_position, DEPTH_MAX, PIXEL, QUADS, Z_FRAC};
use crate::models::fp32::{basic, recip};

/// A quad of fragments leaving the rasteriser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quad {
    /// Primitive id.
    pub prim: u32,
    /// Quad column in the tile, 0..8.
    pub qx: u32,
    /// Quad row in the tile, 0..8.
    pub qy: u32,
    /// Covered lanes (bit `pixel * samples + sample`).
    pub coverage: u32,
    /// D24 depth per lane.
    pub depth: Vec<u32>,
    /// `E_0`, `E_1`, `E_2` at each pixel centre (pixel order of the lanes).
    pub edge: [[i64; 3]; 4],
}

/// Edge `i` of `t` at the tile-local position `(x, y)` (sub-pixel units).
pub fn edge_at(t: &TriSetup, i: usize, x: i64, y: i64) -> i64 {
    let e = &t.edges[i];
    e.c + e.a * x + e.b * y
}

/// True when `(x, y)` is inside `t` under the top-left rule.
pub fn inside(t: &TriSetup, x: i64, y: i64) -> bool {
    (0..3).all(|i| {
        let e = edge_at(t, i, x, y);
        e > 0 || (e == 0 && t.edges[i].top_left)
    })
}

/// D24 depth of the plane of `t` at `(x, y)`.
pub fn depth_at(t: &TriSetup, x: i64, y: i64) -> u32 {
    let z = t.z_c + t.dzdx * x + t.dzdy * y + (1 << (Z_FRAC - 1));
    (z >> Z_FRAC).clamp(0, DEPTH_MAX as i64) as u32
}

/// The quad `(qx, qy)` of `t` (its coverage may be 0).
pub fn quad(t: &TriSetup, qx: u32, qy: u32, samples: u32) -> Quad {
    let lanes = 4 * samples;
    let mut coverage = 0;
    let mut depth = Vec::with_capacity(lanes as usize);
    for lane in 0..lanes {
        let (x, y) = lane_position(qx, qy, lane, samples);
        coverage |= (inside(t, x, y) as u32) << lane;
        depth.push(depth_at(t, x, y));
    }
    let edge = std::array::from_fn(|p| {
        let x = (2 * qx as i64 + (p & 1) as i64) * PIXEL + PIXEL / 2;
        let y = (2 * qy as i64 + (p >> 1) as i64) * PIXEL + PIXEL / 2;
        [
            edge_at(t, 0, x, y),
            edge_at(t, 1, x, y),
            edge_at(t, 2, x, y),
        ]
    });
    Quad {
        prim: t.prim,
        qx,
        qy,
        coverage,
        depth,
        edge,
    }
}

/// Every quad of `t`'s bounding box with some coverage, in walk order (before the depth test).
pub fn rasterise(t: &TriSetup, samples: u32) -> Vec<Quad> {
    let [qx0, qy0, qx1, qy1] = t.bbox;
    debug_assert!(qx1 < QUADS && qy1 < QUADS);
    (qy0..=qy1)
        .flat_map(|qy| (qx0..=qx1).map(move |qx| (qx, qy)))
        .map(|(qx, qy)| quad(t, qx, qy, samples))
        .filter(|q| q.coverage != 0)
        .collect()
}

/// The last column and row (0 ..= 15) of tile `(tx, ty)` inside a `width × height` screen:
/// (15, 15) for a whole tile, less for the partial tiles at the right and bottom edges.
pub fn visible_extent((tx, ty): (u32, u32), (width, height): (u32, u32)) -> (u32, u32) {
    let last = |size: u32, t: u32| (size.saturating_sub(16 * t + 1)).min(15);
    (last(width, tx), last(height, ty))
}

/// The lanes of quad `(qx, qy)` whose pixel lies at or before column `last.0` and row
/// `last.1` of its tile ([`visible_extent`]): the screen's scissor, bit `pixel · samples +
/// sample` as in [`Quad::coverage`].
pub fn visible_lanes(qx: u32, qy: u32, samples: u32, last: (u32, u32)) -> u32 {
    (0..4u32)
        .filter(|p| 2 * qx + (p & 1) <= last.0 && 2 * qy + (p >> 1) <= last.1)
        .map(|p| ((1u32 << samples) - 1) << (p * samples))
        .fold(0, |a, b| a | b)
}

/// [`rasterise`] inside the screen: only the lanes of pixels at or before column `last.0`
/// and row `last.1` of the tile are covered ([`visible_extent`]); quads left without
/// coverage are dropped. Pixels outside the screen are never rasterised, so neither shaded
/// nor depth-tested.
pub fn rasterise_visible(t: &TriSetup, samples: u32, last: (u32, u32)) -> Vec<Quad> {
    let mut quads = rasterise(t, samples);
    if last != (15, 15) {
        for q in &mut quads {
            q.coverage &= visible_lanes(q.qx, q.qy, samples, last);
        }
        quads.retain(|q| q.coverage != 0);
    }
    quads
}

/// An edge function value as binary32: the exact integer rounded to nearest even (what the
/// rasteriser's `bary` outputs carry).
pub fn edge_f32(e: i64) -> u32 {
    (e as f32).to_bits()
}

/// Perspective-correct barycentrics (binary32 bits) of a pixel from its edge functions as
/// binary32 `f = [f_0, f_1, f_2]` ([`edge_f32`], from the rasteriser) and the vertices' 1/w,
/// in this order of D6 binary32 operations (round to nearest even, flush to zero;
/// `rendergen_sim::models::fp32`, bit-exact with the shader core's MUL, ADD and RCP):
/// 1. `p_i = mul(f_i, rw_i)`, for i = 0, 1, 2;
/// 2. `s = add(add(p_0, p_1), p_2)`;
/// 3. `r = rcp(s)` (correctly rounded);
/// 4. `b_i = mul(p_i, r)`.
///
/// A varying is then `fma(b_2, v_2, fma(b_1, v_1, mul(b_0, v_0)))` ([`interpolate`]).
pub fn barycentrics(f: [u32; 3], rw: [f32; 3]) -> [u32; 3] {
    let p: [u32; 3] = std::array::from_fn(|i| basic::mul(f[i], rw[i].to_bits()));
    let s = basic::add(basic::add(p[0], p[1]), p[2]);
    let r = recip::rcp(s);
    p.map(|pi| basic::mul(pi, r))
}

/// A varying from per-vertex values `v` and barycentrics `b` (binary32 bits), in the order
/// given at [`barycentrics`].
pub fn interpolate(b: [u32; 3], v: [u32; 3]) -> u32 {
    basic::fma(b[2], v[2], basic::fma(b[1], v[1], basic::mul(b[0], v[0])))
}
