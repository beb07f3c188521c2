//! Triangle setup in fixed point: edge functions with the top-left rule, facing and culling,
//! the quad bounding box inside the tile, and the depth plane.
//!
//! Edge `i` runs from vertex `i+1` to vertex `i+2` (mod 3) and is opposite vertex `i`:
//! `E_i(p) = a_i·(p.x − P.x) + b_i·(p.y − P.y)` with `a_i = P.y − Q.y`, `b_i = Q.x − P.x`,
//! all in sub-pixel units, negated when the triangle is wound so that the interior is negative.
//! Then `E_i ≥ 0` inside, `E_0 + E_1 + E_2 = area2` (twice the area, > 0) everywhere, and
//! `E_i / area2` is the screen-space barycentric of vertex `i`. An edge is *top-left* when
//! `a > 0` (a left edge) or `a = 0, b > 0` (a top edge, y down); a sample exactly on an edge is
//! inside only for top-left edges (D7's fill rule).
//!
//! Depth plane: `z(x, y) = (z_c + dzdx·x + dzdy·y + 2^15) >> 16`, clamped to `0..=DEPTH_MAX`,
//! with `x, y` tile-local sub-pixel positions and
//! `dzdx = round(2^16·Σ z_i·a_i / area2)`, `dzdy = round(2^16·Σ z_i·b_i / area2)` (clamped to
//! ±(2^47 − 1)), `z_c = round(2^16·Σ z_i·E_i(tile origin) / area2)` (clamped to ±2^62);
//! `round` is round half up. The shifts are arithmetic.
use super::{DEPTH_MAX, GUARD, PIXEL, QUADS, TILE, Z_FRAC};

/// A screen-space vertex after the viewport transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// x in sub-pixel units (1/256 pixel).
    pub x: i64,
    /// y in sub-pixel units, y down.
    pub y: i64,
    /// D24 depth, `0..=DEPTH_MAX`.
    pub z: u32,
    /// 1/w (clip-space w) for perspective-correct varyings.
    pub rw: f32,
}

impl Vertex {
    /// A vertex from framebuffer coordinates in pixels (rounded to the nearest 1/256, halves
    /// away from zero), depth in [0, 1] (clamped, then `round(z·(2^24 − 1))`) and clip w.
    pub fn from_f32(x: f32, y: f32, z: f32, w: f32) -> Vertex {
        let q = |v: f32| (v as f64 * PIXEL as f64).round() as i64;
        Vertex {
            x: q(x),
            y: q(y),
            z: (z.clamp(0.0, 1.0) as f64 * DEPTH_MAX as f64).round() as u32,
            rw: 1.0 / w,
        }
    }
}

/// Which faces are discarded (`VkCullModeFlags`, without FRONT_AND_BACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CullMode {
    /// Keep every triangle.
    #[default]
    None,
    /// Discard front-facing triangles.
    Front,
    /// Discard back-facing triangles.
    Back,
}

/// Which winding is front-facing (`VkFrontFace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FrontFace {
    /// Counter-clockwise on screen is front (Vulkan's default).
    #[default]
    CounterClockwise,
    /// Clockwise on screen is front.
    Clockwise,
}

/// `VkCompareOp`, with Vulkan's numbering (the RTL's `zop` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CompareOp {
    /// Never passes.
    Never = 0,
    /// `new < stored` (D7's default).
    #[default]
    Less = 1,
    /// `new == stored`.
    Equal = 2,
    /// `new <= stored`.
    LessOrEqual = 3,
    /// `new > stored`.
    Greater = 4,
    /// `new != stored`.
    NotEqual = 5,
    /// `new >= stored`.
    GreaterOrEqual = 6,
    /// Always passes.
    Always = 7,
}

impl CompareOp {
    /// All eight, by code.
    pub const ALL: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];

    /// True when a fragment of depth `new` passes against `stored`.
    pub fn test(self, new: u32, stored: u32) -> bool {
        match self {
            CompareOp::Never => false,
            CompareOp::Less => new < stored,
            CompareOp::Equal => new == stored,
            CompareOp::LessOrEqual => new <= stored,
            CompareOp::Greater => new > stored,
            CompareOp::NotEqual => new != stored,
            CompareOp::GreaterOrEqual => new >= stored,
            CompareOp::Always => true,
        }
    }
}

/// Pipeline state that setup and the early depth test use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RasterState {
    /// Face culling.
    pub cull: CullMode,
    /// Front-face winding.
    pub front_face: FrontFace,
    /// Depth compare op (`Always` with `depth_write` false disables the test).
    pub depth_op: CompareOp,
    /// Write the depth of passing samples.
    pub depth_write: bool,
}

/// One edge function, evaluated tile-locally as `c + a·x + b·y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// ∂E/∂x (sub-pixel units).
    pub a: i64,
    /// ∂E/∂y.
    pub b: i64,
    /// E at the tile origin.
    pub c: i64,
    /// The edge owns samples exactly on it.
    pub top_left: bool,
}

/// A set-up triangle: what the rasteriser's input stream carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriSetup {
    /// Edge functions, edge `i` opposite vertex `i`.
    pub edges: [Edge; 3],
    /// Twice the area (sub-pixel units squared), > 0.
    pub area2: i64,
    /// Quad bounding box inside the tile, inclusive: `[qx0, qy0, qx1, qy1]`.
    pub bbox: [u32; 4],
    /// Depth plane at the tile origin (2^-16 D24 units).
    pub z_c: i64,
    /// Depth plane slope per sub-pixel step in x (2^-16 D24 units).
    pub dzdx: i64,
    /// Depth plane slope in y.
    pub dzdy: i64,
    /// Depth compare op and write enable.
    pub depth_op: CompareOp,
    /// Depth write enable.
    pub depth_write: bool,
    /// Primitive id carried to the fragments.
    pub prim: u32,
    /// 1/w of the vertices.
    pub rw: [f32; 3],
    /// Front-facing.
    pub front: bool,
}

/// Why setup produced no triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    /// Zero area.
    Degenerate,
    /// Discarded by the cull mode.
    Culled,
    /// The bounding box misses the tile.
    OffTile,
    /// A vertex lies outside the guard band.
    OutOfRange,
}

fn round_div(n: i128, d: i128) -> i128 {
    (2 * n + d).div_euclid(2 * d)
}

/// Sets up triangle `v` for tile `(tile_x, tile_y)` (in tiles) under `state`.
pub fn setup(
    v: &[Vertex; 3],
    (tile_x, tile_y): (u32, u32),
    state: &RasterState,
    prim: u32,
) -> Result<TriSetup, Reject> {
    if v.iter().any(|p| p.x.abs() >= GUARD || p.y.abs() >= GUARD) {
        return Err(Reject::OutOfRange);
    }
    let s = (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[1].y - v[0].y) * (v[2].x - v[0].x);
    if s == 0 {
        return Err(Reject::Degenerate);
    }
    // Vulkan's area a = −s/2 in a y-down framebuffer; counter-clockwise front means a > 0.
    let front = match state.front_face {
        FrontFace::CounterClockwise => s < 0,
        FrontFace::Clockwise => s > 0,
    };
    match (state.cull, front) {
        (CullMode::Back, false) | (CullMode::Front, true) => return Err(Reject::Culled),
        _ => {}
    }
    let (ox, oy) = (tile_x as i64 * TILE * PIXEL, tile_y as i64 * TILE * PIXEL);
    let span = TILE * PIXEL;
    let bound = |lo: i64, hi: i64| -> Option<(u32, u32)> {
        if hi < 0 || lo >= span {
            return None;
        }
        let q = |p: i64| (p.div_euclid(2 * PIXEL)).clamp(0, QUADS as i64 - 1) as u32;
        Some((q(lo), q(hi)))
    };
    let xs = v.iter().map(|p| p.x - ox);
    let ys = v.iter().map(|p| p.y - oy);
    let (Some((qx0, qx1)), Some((qy0, qy1))) = (
        bound(xs.clone().min().unwrap(), xs.max().unwrap()),
        bound(ys.clone().min().unwrap(), ys.max().unwrap()),
    ) else {
        return Err(Reject::OffTile);
    };
    let sign = if s > 0 { 1 } else { -1 };
    let edges: [Edge; 3] = std::array::from_fn(|i| {
        let (p, q) = (v[(i + 1) % 3], v[(i + 2) % 3]);
        let (a, b) = (sign * (p.y - q.y), sign * (q.x - p.x));
        Edge {
            a,
            b,
            c: a * (ox - p.x) + b * (oy - p.y),
            top_left: a > 0 || (a == 0 && b > 0),
        }
    });
    let area2 = s.abs();
    let plane = |coef: &dyn Fn(&Edge) -> i64, limit: i128| -> i64 {
        let n: i128 = (0..3)
            .map(|i| v[i].z as i128 * coef(&edges[i]) as i128)
            .sum();
        round_div(n << Z_FRAC, area2 as i128).clamp(-limit, limit) as i64
    };
    let slope_limit = (1i128 << 47) - 1;
    Ok(TriSetup {
        edges,
        area2,
        bbox: [qx0, qy0, qx1, qy1],
        z_c: plane(&|e| e.c, 1i128 << 62),
        dzdx: plane(&|e| e.a, slope_limit),
        dzdy: plane(&|e| e.b, slope_limit),
        depth_op: state.depth_op,
        depth_write: state.depth_write,
        prim,
        rw: [v[0].rw, v[1].rw, v[2].rw],
        front,
    })
}

/// Random vertices around tile `tile` for tests (model and RTL testbenches): offsets within one
/// of `spreads` (sub-pixel units, picked at random: near the tile or far, in the guard band),
/// some snapped to pixel centres or to the sample grid (samples exactly on edges), random
/// depth and 1/w.
pub fn random_triangle(
    rng: &mut crate::kit::Rng,
    tile: (u32, u32),
    spreads: [i64; 3],
) -> [Vertex; 3] {
    let (cx, cy) = (
        tile.0 as i64 * 16 * super::PIXEL,
        tile.1 as i64 * 16 * super::PIXEL,
    );
    let spread = spreads[rng.below(3) as usize];
    let snap = rng.below(3);
    std::array::from_fn(|_| {
        let mut c = |o: i64| {
            let v = o + 8 * super::PIXEL + rng.below(2 * spread as u64) as i64 - spread;
            match snap {
                0 => v,
                1 => v & !(super::PIXEL - 1) | 128,
                _ => v & !31,
            }
        };
        Vertex {
            x: c(cx),
            y: c(cy),
            z: rng.below(super::DEPTH_MAX as u64 + 1) as u32,
            rw: 1.0 / (0.5 + rng.below(1000) as f32 / 100.0),
        }
    })
}
