//! The tiler's work for one triangle (step 4 of [`super`]): the `DRAW`s of each tile its
//! bounding box touches. Public so that the RTL geometry front end's testbench checks against
//! the very code the frame model bins with.
use super::super::command::{Command, EncodeError};
use super::super::setup::{setup, RasterState, Vertex};
use super::super::{PIXEL, TILE};

/// A triangle the tiler binned: its draw state (the pass's mesh index), raster state and
/// screen-space vertices, in primitive order (`DRAW` primitive id = its index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinnedTriangle {
    /// Draw state (mesh index).
    pub mesh: u32,
    /// Culling and depth state of its mesh.
    pub state: RasterState,
    /// Vertices after the viewport transform.
    pub v: [Vertex; 3],
}

/// The encoded `DRAW` of primitive `prim` for each tile of the `tiles_x × tiles_y` grid that
/// the triangle's bounding box (clamped to the grid) touches and [`setup`] accepts, row-major:
/// `(tile index, words)`.
pub fn bin_triangle(
    v: &[Vertex; 3],
    state: &RasterState,
    draw_state: u32,
    prim: u32,
    (tiles_x, tiles_y): (u32, u32),
) -> Result<Vec<(usize, Vec<u64>)>, EncodeError> {
    let xs = v.map(|v| v.x);
    let ys = v.map(|v| v.y);
    let span = TILE * PIXEL;
    let lo = |v: i64, n: u32| (v.div_euclid(span)).clamp(0, n as i64 - 1) as u32;
    let (tx0, tx1) = (
        lo(*xs.iter().min().unwrap(), tiles_x),
        lo(*xs.iter().max().unwrap(), tiles_x),
    );
    let (ty0, ty1) = (
        lo(*ys.iter().min().unwrap(), tiles_y),
        lo(*ys.iter().max().unwrap(), tiles_y),
    );
    let mut out = Vec::new();
    for ty in ty0..=ty1 {
        for tx in tx0..=tx1 {
            if let Ok(tri) = setup(v, (tx, ty), state, prim) {
                let words = Command::Draw {
                    state: draw_state,
                    tri,
                }
                .encode()?;
                out.push(((ty * tiles_x + tx) as usize, words));
            }
        }
    }
    Ok(out)
}
