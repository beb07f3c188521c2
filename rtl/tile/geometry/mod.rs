//! The tile engine's geometry front end (issue 13 §1 "Geometry"): triangle setup of
//! screen-space triangles, bit-identical with the frame model's `setup.rs`, a tiler that sets
//! each triangle up for every 16×16 tile of its bounding box, and a list writer that appends
//! the encoded `DRAW` commands (the model's `command.rs` encoding) to per-tile command lists in
//! memory through the engine's memory port, then hands the lists to the per-tile back end.
//!
//! ```text
//!  prim ─► geom_setup ─► geom_bin (tile loop; geom_div: dz/dx, dz/dy, z_c per tile) ─► draw
//!          (guard band, area, cull,     per tile: edge c, quad bbox, off-tile, DRAW words
//!           edges, depth numerators)                                                   │
//!                     mem_req ◄─ geom_lists (TILE_BEGIN per tile, DRAW appends, END_TILE) ◄┘
//!                     mem_resp ─►            ─► list (address, words) per tile, row-major
//! ```
//!
//! # What the input is
//! `prim` carries triangles **after** vertex shading, clipping and the viewport transform: per
//! vertex `x`, `y` in 1/256-pixel units (the model's `Vertex`: framebuffer position rounded
//! to nearest, halves away from zero), D24 `z` and `rw` = 1/w (binary32), with the draw state,
//! the primitive id and the raster state (cull mode, front face, depth op and write). Frame
//! markers on the same stream keep the order: `kind` 1 begins a frame (each tile's list gets
//! its `TILE_BEGIN` clearing every plane with the `cfg_clear` values), `kind` 2 ends it (each
//! list gets `END_TILE` and is offered on `list`). The whole chain from shaded vertices in
//! memory (index fetch, near-plane clipping, viewport, ids after rejects, primitive data,
//! `RESOLVE`s) is [`frontend::tile_frontend`].
//!
//! # Lists in memory
//! Tile `t = ty·tiles_x + tx` owns the bin `cfg_base + t·8·bin_words` (bytes; `cfg_base` a
//! multiple of 128); its list starts there. A list holds exactly what the model's list of that
//! tile holds for the same triangles: `TILE_BEGIN`, the `DRAW`s in submission order, `END_TILE`
//! (the model packs its lists one after another behind a table; the RTL keeps fixed bins and
//! gives each list's address and length on `list`). A `DRAW` that would not leave room for
//! `END_TILE` in its bin is dropped and sets the sticky `overflow` output.
pub mod bin;
pub mod clip;
pub mod div;
pub mod fetch;
pub mod frontend;
pub mod lists;
pub mod setup;

use crate::tile::cmd::TileList;
use crate::tile::mem_port::{MemReq, MemResp};
use crate::tile::DEPTH_BITS;
use bin::{geom_bin, BinIn};
use lists::{geom_lists, ListsIn};
use rendergen_hdl::{Bundle, Design, ElabErrors, Module, Sig, Stream};
use setup::{geom_setup, SetupIn};

/// Bits of a vertex coordinate on `prim` (signed, 1/256 pixel).
pub const XY_BITS: u32 = 32;
/// Bits of the primitive id in a `DRAW` (the model's `command::PRIM_BITS`).
pub const PRIM_ID_BITS: u32 = 24;
/// Bits of twice the triangle's area (`|s| < 2^45` inside the guard band).
pub const AREA_BITS: u32 = 46;
/// Bits of the slope numerators `Σ z_i·a_i` (signed).
pub const SLOPE_NUM_BITS: u32 = 52;
/// Bits of the depth-constant numerator `Σ z_i·c_i` (signed).
pub const NUM_BITS: u32 = 76;
/// Bits of a tile coordinate (screens up to 8192 pixels: 512 tiles).
pub const TILE_BITS: u32 = 9;
/// Bits of a tile count (1 ..= 512).
pub const TILES_BITS: u32 = 10;
/// Words of a `DRAW`.
pub const DRAW_WORDS: usize = 10;
/// `kind` of a triangle.
pub const KIND_TRIANGLE: u64 = 0;
/// `kind` of the frame-begin marker.
pub const KIND_BEGIN: u64 = 1;
/// `kind` of the frame-end marker.
pub const KIND_END: u64 = 2;
/// `kind` of a `RESOLVE` (after `geom_setup`: a [`SetupTri`] whose bounding box is the
/// resolve's rectangle, `prim` the program and `rw[0]` `xthreads | ythreads << 8`).
pub const KIND_RESOLVE: u64 = 3;

/// Parameters of [`tile_geometry_top`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GeomCfg {
    /// Planes cleared by `TILE_BEGIN` (colour targets + depth), 1 ..= 9. Default 5.
    pub planes: u32,
    /// Words of a tile's bin, a power of two in 32 ..= 65536. Default 512 (4 KiB: 50 DRAWs).
    pub bin_words: u32,
    /// Tiles the list writer tracks (`tiles_x · tiles_y` must not exceed it), a power of two
    /// in 1 ..= 65536. Default 4096 (1024 × 1024 pixels).
    pub max_tiles: u32,
    /// Quotient bits per clock of the depth-plane divider, 1 ..= 8. Default 4.
    pub div_steps: u32,
}

impl Default for GeomCfg {
    fn default() -> Self {
        GeomCfg {
            planes: 5,
            bin_words: 512,
            max_tiles: 4096,
            div_steps: 4,
        }
    }
}

impl GeomCfg {
    /// Checks the parameters (elaboration errors name the parameter and its valid values).
    pub fn check(&self, m: &mut Module) -> bool {
        let a = m.check_param("planes", self.planes.into(), 1..=9);
        let b = m.check_param_pow2("bin_words", self.bin_words.into(), 32..=65536);
        let c = m.check_param_pow2("max_tiles", self.max_tiles.into(), 1..=65536);
        let d = m.check_param("div_steps", self.div_steps.into(), 1..=8);
        a && b && c && d
    }
}

/// A triangle in screen space, or a frame marker (`kind`).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct GeomPrim<T = Sig> {
    /// [`KIND_TRIANGLE`], [`KIND_BEGIN`] or [`KIND_END`] (2 bits); markers carry no triangle.
    pub kind: T,
    /// Vertex x in 1/256 pixel, signed [`XY_BITS`].
    pub x: [T; 3],
    /// Vertex y in 1/256 pixel (y down), signed [`XY_BITS`].
    pub y: [T; 3],
    /// Vertex depth, D24.
    pub z: [T; 3],
    /// Vertex 1/w, binary32 (carried to the `DRAW`).
    pub rw: [T; 3],
    /// Primitive id, [`PRIM_ID_BITS`].
    pub prim: T,
    /// Draw state (the pass's mesh index), 8 bits.
    pub state: T,
    /// Cull mode: 0 none, 1 front, 2 back (`VkCullModeFlags` without FRONT_AND_BACK).
    pub cull: T,
    /// Clockwise is front (`VK_FRONT_FACE_CLOCKWISE`), else counter-clockwise.
    pub front_cw: T,
    /// Depth compare op (`VkCompareOp`), 3 bits.
    pub depth_op: T,
    /// Depth write.
    pub depth_write: T,
}

impl GeomPrim<u32> {
    /// The shape.
    pub const SHAPE: GeomPrim<u32> = GeomPrim {
        kind: 2,
        x: [XY_BITS; 3],
        y: [XY_BITS; 3],
        z: [DEPTH_BITS; 3],
        rw: [32; 3],
        prim: PRIM_ID_BITS,
        state: 8,
        cull: 2,
        front_cw: 1,
        depth_op: 3,
        depth_write: 1,
    };
}

/// One edge function at the screen origin.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct SetupTriEdge<T = Sig> {
    /// ∂E/∂x, signed [`COEF_BITS`](crate::tile::COEF_BITS).
    pub a: T,
    /// ∂E/∂y, signed [`COEF_BITS`](crate::tile::COEF_BITS).
    pub b: T,
    /// E at the screen origin, signed [`EDGE_BITS`](crate::tile::EDGE_BITS).
    pub c: T,
    /// Top-left edge.
    pub top_left: T,
}

/// A triangle set up for the screen (or a frame marker): what the tiler needs.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct SetupTri<T = Sig> {
    /// As [`GeomPrim::kind`].
    pub kind: T,
    /// Bounding box in 1/256 pixel, signed 22 bits.
    pub xmin: T,
    /// Bounding box.
    pub xmax: T,
    /// Bounding box.
    pub ymin: T,
    /// Bounding box.
    pub ymax: T,
    /// Edges, edge `i` opposite vertex `i`.
    pub edge: [SetupTriEdge<T>; 3],
    /// Twice the area, > 0, [`AREA_BITS`].
    pub area2: T,
    /// `Σ z_i·a_i`, signed [`SLOPE_NUM_BITS`].
    pub na: T,
    /// `Σ z_i·b_i`, signed [`SLOPE_NUM_BITS`].
    pub nb: T,
    /// `Σ z_i·c_i` at the screen origin, signed [`NUM_BITS`].
    pub nc: T,
    /// Front-facing.
    pub front: T,
    /// Vertex 1/w.
    pub rw: [T; 3],
    /// Primitive id.
    pub prim: T,
    /// Draw state.
    pub state: T,
    /// Depth op.
    pub depth_op: T,
    /// Depth write.
    pub depth_write: T,
}

/// A `DRAW` for one tile (or a frame marker, `kind`), from the tiler to the list writer.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct DrawCmd<T = Sig> {
    /// As [`GeomPrim::kind`].
    pub kind: T,
    /// Tile column, [`TILE_BITS`].
    pub tile_x: T,
    /// Tile row, [`TILE_BITS`].
    pub tile_y: T,
    /// The command's ten 64-bit words.
    pub words: [T; DRAW_WORDS],
}

/// The frame's configuration (registers, stable while a frame runs).
#[derive(rendergen_hdl::Io)]
pub struct FrameCfg {
    /// Tiles per row, 1 ..= 512 ([`TILES_BITS`]).
    pub tiles_x: Sig,
    /// Tile rows, 1 ..= 512.
    pub tiles_y: Sig,
    /// Byte address of tile 0's bin, a multiple of 128.
    pub base: Sig,
    /// Clear value of each plane (64 bits, raw format bits; depth D24 in `[23:0]`).
    pub clear: Vec<Sig>,
}

/// What [`tile_geometry`] takes.
#[derive(rendergen_hdl::Io)]
pub struct GeomIn {
    /// Screen-space triangles and frame markers.
    pub prim: Stream<GeomPrim>,
    /// Memory answers (write acknowledgements).
    pub mem_resp: Stream<MemResp>,
    /// The frame's configuration.
    pub cfg: FrameCfg,
}

/// What [`tile_geometry`] gives.
#[derive(rendergen_hdl::Io)]
pub struct GeomOut {
    /// List writes.
    pub mem_req: Stream<MemReq>,
    /// Each tile's list at the end of a frame, row-major.
    pub list: Stream<TileList>,
    /// Sticky: a `DRAW` did not fit its bin and was dropped.
    pub overflow: Sig,
}

/// The geometry front end: [`setup::geom_setup`] → [`bin::geom_bin`] → [`lists::geom_lists`]
/// (module docs).
///
/// * **Ports:** `prim` ([`GeomPrim`]), `cfg_*` ([`FrameCfg`]), `mem_req`/`mem_resp` (the
///   engine's memory port, `mem_port.rs`), `list` ([`TileList`], what `tile_cmd` takes),
///   `overflow`.
/// * **Protocol:** stream rules on every stream; lists in submission order per tile.
/// * **Timing:** see the children; a triangle costs the tiler two divisions (dz/dx, dz/dy)
///   and one per tile its bounding box touches, `ceil(94 / div_steps) + 3` clocks each; a
///   `DRAW` is 10 write beats.
/// * **Cost** (default configuration, Yosys generic, unflattened, measured with
///   `cargo test -p rendergen-testbenches --test testbenches tile::geometry::measure_area --
///   --ignored`, the library call behind `rendergen synth tile_geometry --per-module`): 216,116
///   cells, 44,165 flip-flops, 128 gate levels; `geom_lists` 93,906 cells / 41,103 flops (the
///   4096 × 10-bit fill RAM as flip-flops), `setup_edges` 86,113 (the depth-numerator
///   products), `geom_bin` 17,931, `setup_area` 11,187, `geom_div` 3,550.
/// * **Throughput** (measured, `lit_model` forward pass, 286 triangles, 399 DRAWs, 20 % input
///   gaps and memory stalls): 32,378 cycles, 0.0088 triangles and 0.012 DRAWs per clock.
/// * **Errors:** elaboration rejects parameters outside the ranges of [`GeomCfg`].
pub fn tile_geometry(m: &mut Module, cfg: &GeomCfg, i: GeomIn) -> GeomOut {
    let GeomIn {
        prim,
        mem_resp,
        cfg: frame,
    } = i;
    let set = m.child("setup", &(), SetupIn { prim }, geom_setup);
    let bin = m.child(
        "bin",
        cfg,
        BinIn {
            tri: set.tri,
            tiles_x: frame.tiles_x,
            tiles_y: frame.tiles_y,
        },
        geom_bin,
    );
    let out = m.child(
        "lists",
        cfg,
        ListsIn {
            draw: bin.draw,
            mem_resp,
            cfg: frame,
        },
        geom_lists,
    );
    GeomOut {
        mem_req: out.mem_req,
        list: out.list,
        overflow: out.overflow,
    }
}

/// The catalogue top `tile_geometry`: [`tile_geometry`] with its ports at the top.
pub fn tile_geometry_top(cfg: &GeomCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("tile_geometry", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let prim = m.input_stream::<GeomPrim>("prim", &GeomPrim::SHAPE);
        let mem_resp = m.input_stream::<MemResp>("mem_resp", &MemResp::SHAPE);
        let frame = FrameCfg {
            tiles_x: m.input("cfg_tiles_x", TILES_BITS),
            tiles_y: m.input("cfg_tiles_y", TILES_BITS),
            base: m.input("cfg_base", crate::tile::mem_port::MEM_ADDR_BITS),
            clear: (0..cfg.planes)
                .map(|p| m.input(&format!("cfg_clear_{p}"), 64))
                .collect(),
        };
        let out = tile_geometry(
            m,
            cfg,
            GeomIn {
                prim,
                mem_resp,
                cfg: frame,
            },
        );
        m.output_stream("mem_req", out.mem_req);
        m.output_stream("list", out.list);
        m.output("overflow", out.overflow);
    })
}
