//! The tile engine's per-tile part (issue 13 §1; `tiles-and-allocation.md` Part A; D7): the
//! rasteriser with its early depth test ([`raster`], [`early_z`]) and the tile buffer
//! ([`buffer`], [`blend`]), composed by the catalogue tops [`top::tile_raster_top`] and
//! [`top::tile_buffer_top`].
//!
//! ```text
//!  tri ──► raster ─► (quad walk ─► edge/depth eval ─► drop empty) ─► early_z ─► quad
//!                                                       z_req │ ▲ z_resp
//!  tile_begin ─┐                                              ▼ │
//!  pixel ──────┼──► tile_buffer (arbiter ─► access pipeline ─► responses) ─► ts_resp, wo_resp
//!  ts_req ─────┤        planes: N colour RTs + D24 depth, 8×8 quads × 4·samples lanes
//!  wo_req ─────┘
//! ```
//!
//! Conventions are D7's and the golden model's (`rendergen_sim::models::tile`, whose module
//! docs give the fixed-point rules): 8 sub-pixel bits, pixel centres at +0.5, top-left fill
//! rule, Vulkan's 4× sample positions, D24 depth with `VkCompareOp` codes, 16×16 tiles in 8×8
//! quads, lanes `pixel·samples + sample` with pixel order TL, TR, BL, BR.
//!
//! # How the rest of the engine plugs in (not built yet)
//! * **Geometry and tiler** produce [`TriSetup`] records per tile (the model's
//!   `setup::setup` is their specification: edge functions at the tile origin, quad bounding
//!   box, depth plane); the command-list processor feeds them to `tri` after a `tile_begin`.
//! * **Fragment shading:** a [`QuadFrag`] is one SIMT quad for the shader core
//!   (`rtl/shader/core.rs`): 4 lanes, a lane live when any of its samples is covered, the pixel
//!   position `(2qx + i, 2qy + j)` plus the tile origin, `prim` to fetch the vertex outputs.
//!   The perspective-correct barycentrics are the model's `raster::barycentrics`: from the
//!   quad's `bary` (each pixel's `E_0`, `E_1`, `E_2` as binary32, converted here) the core runs
//!   `p_i = MUL(f_i, rw_i)`, `s = ADD(ADD(p_0, p_1), p_2)`, `r = RCP(s)`, `b_i = MUL(p_i, r)`
//!   with the vertices' 1/w, bit-exact with the model by D6. The shader's colour outputs come back on the tile
//!   buffer's `pixel` port with the coverage that passed (blending happens there).
//! * **Tile shader** uses the `ts_req`/`ts_resp` ports (screen coordinates; out-of-tile accesses answer with
//!   `error` and change nothing), **write-out** `wo_req`/`wo_resp` (one pixel's samples per
//!   answer), the **command-list processor** `tile_begin` (origin and clears).
//! * A fragment tracker for the RESOLVE drain barrier counts quads leaving `quad` against
//!   pixel writes accepted on `pixel`.

pub mod backend;
pub mod blend;
pub mod buffer;
pub mod cmd;
pub mod convert;
pub mod core_mem;
pub mod early_z;
pub mod engine;
pub mod exports;
pub mod frag;
pub mod geometry;
pub mod image_load;
pub mod mem_port;
pub mod raster;
pub mod resolve;
pub mod texture;
pub mod tile_shader;
pub mod top;
pub mod vertex;
pub mod writeout;

use rendergen_hdl::{cat, clog2, Bundle, Module, Sig};

/// The part of a tile inside the screen (the scissor of the right and bottom edges' partial
/// tiles): its last column and row, 0 ..= 15 (15 for a whole tile), and whether the tile lies
/// wholly outside.
pub struct VisibleExtent {
    /// Last column of the tile inside the screen, 4 bits.
    pub last_col: Sig,
    /// Last row of the tile inside the screen, 4 bits.
    pub last_row: Sig,
    /// The tile's origin is at or beyond the screen's width or height (nothing of it is on
    /// screen; `last_col`/`last_row` then say 15).
    pub outside: Sig,
}

/// [`VisibleExtent`] of tile `(tile_x, tile_y)` (in tiles) on a `width × height` screen
/// (pixels); the frame model's `visible_extent` in `sim/models/tile/raster.rs`.
/// Combinational: two subtractions and comparisons.
pub fn visible_extent(
    m: &mut Module,
    (tile_x, tile_y): (Sig, Sig),
    (width, height): (Sig, Sig),
) -> VisibleExtent {
    let mut last = |size: Sig, tile: Sig| {
        let w = size.width().max(tile.width() + 4) + 1;
        let origin = cat(&[tile, m.lit(0, 4)]).zext(w);
        let size = size.zext(w);
        let rem = size - origin - 1u64;
        let last = rem.ge(15u64).mux(m.lit(15, 4), rem.bits(3, 0));
        (last, origin.ge(size))
    };
    let (last_col, out_x) = last(width, tile_x);
    let (last_row, out_y) = last(height, tile_y);
    VisibleExtent {
        last_col,
        last_row,
        outside: out_x | out_y,
    }
}

/// Format of a colour render target (code in parentheses, as in the `formats` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtFormat {
    /// 8-bit UNORM RGBA, blended (0).
    Rgba8,
    /// Four binary16, 64 bits per sample (1).
    Rgba16f,
    /// One binary32 (2).
    R32f,
    /// Two binary16 (3).
    Rg16f,
}

impl RtFormat {
    /// Bits per sample.
    pub fn bits(self) -> u32 {
        match self {
            RtFormat::Rgba16f => 64,
            _ => 32,
        }
    }

    /// The format of code `c`.
    pub fn from_code(c: u64) -> Option<RtFormat> {
        [
            RtFormat::Rgba8,
            RtFormat::Rgba16f,
            RtFormat::R32f,
            RtFormat::Rg16f,
        ]
        .get(c as usize)
        .copied()
    }
}

/// Bits of a D24 depth value.
pub const DEPTH_BITS: u32 = 24;
/// Bits of a quad address in the tile (8×8 quads).
pub const ADDR_BITS: u32 = 6;
/// Bits of an edge function's coefficient `a`, `b` (signed).
pub const COEF_BITS: u32 = 24;
/// Bits of an edge function value (signed).
pub const EDGE_BITS: u32 = 48;
/// Bits of the depth plane constant (signed).
pub const ZC_BITS: u32 = 64;
/// Bits of a depth plane slope (signed).
pub const DZ_BITS: u32 = 48;
/// Bits of the primitive id.
pub const PRIM_BITS: u32 = 16;
/// Bits of a DRAW's draw state (`w[0][15:8]`).
pub const STATE_BITS: u32 = 8;
/// Bits of a tile-shader tag.
pub const TAG_BITS: u32 = 8;
/// Bits of a tile coordinate (in tiles) and of a screen pixel coordinate.
pub const TILE_COORD_BITS: u32 = 9;
/// Bits of a screen pixel coordinate on the tile-shader port.
pub const PIXEL_COORD_BITS: u32 = 16;

/// Parameters of the tile engine's per-tile part.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileCfg {
    /// Samples per pixel: 1 or 4 (D7's standard positions). Default 4.
    pub samples: u32,
    /// Formats of the colour render targets, 1 ..= 8 of them. Default RGBA8, RGBA16F, R32F,
    /// RG16F.
    pub formats: Vec<RtFormat>,
}

impl Default for TileCfg {
    fn default() -> Self {
        TileCfg {
            samples: 4,
            formats: vec![
                RtFormat::Rgba8,
                RtFormat::Rgba16f,
                RtFormat::R32f,
                RtFormat::Rg16f,
            ],
        }
    }
}

impl TileCfg {
    /// Checks the parameters, recording an elaboration error that names the parameter and its
    /// valid values; false if any is bad.
    pub fn check(&self, m: &mut Module) -> bool {
        let samples_ok = matches!(self.samples, 1 | 4)
            || m.param_error("samples", self.samples as u64, "1 or 4");
        let rts_ok = m.check_param("rts", self.formats.len() as u64, 1..=8);
        samples_ok && rts_ok
    }

    /// Lanes of a quad: `4 · samples`.
    pub fn lanes(&self) -> usize {
        4 * self.samples as usize
    }

    /// Planes: the colour render targets, then depth (index `rts`).
    pub fn planes(&self) -> usize {
        self.formats.len() + 1
    }

    /// Bits of a plane index.
    pub fn plane_bits(&self) -> u32 {
        clog2(self.planes() as u64)
    }

    /// Bits of the data of one sample on the ports (the widest plane).
    pub fn data_bits(&self) -> u32 {
        self.formats.iter().map(|f| f.bits()).max().unwrap_or(32)
    }

    /// Bits stored per sample of plane `p`.
    pub fn plane_width(&self, p: usize) -> u32 {
        self.formats.get(p).map_or(DEPTH_BITS, |f| f.bits())
    }
}

/// One edge function of a set-up triangle, evaluated tile-locally as `c + a·x + b·y`.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct EdgeSetup<T = Sig> {
    /// ∂E/∂x, signed [`COEF_BITS`].
    pub a: T,
    /// ∂E/∂y, signed [`COEF_BITS`].
    pub b: T,
    /// E at the tile origin, signed [`EDGE_BITS`].
    pub c: T,
    /// Samples exactly on the edge are inside.
    pub top_left: T,
}

/// A set-up triangle for one tile (the model's `setup::TriSetup`).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TriSetup<T = Sig> {
    /// Edge `i` is opposite vertex `i`.
    pub edge: [EdgeSetup<T>; 3],
    /// Quad bounding box `[qx0, qy0, qx1, qy1]`, 3 bits each, inclusive.
    pub bbox: [T; 4],
    /// Depth plane at the tile origin, signed [`ZC_BITS`].
    pub z_c: T,
    /// Depth slope in x, signed [`DZ_BITS`].
    pub dzdx: T,
    /// Depth slope in y, signed [`DZ_BITS`].
    pub dzdy: T,
    /// `VkCompareOp` of the early depth test, 3 bits.
    pub depth_op: T,
    /// Write passing depths.
    pub depth_write: T,
    /// Primitive id, [`PRIM_BITS`].
    pub prim: T,
    /// The DRAW's draw state ([`STATE_BITS`]): which pipeline (mesh) shades the fragments.
    pub state: T,
    /// The triangle is front-facing (`gl_FrontFacing`).
    pub front: T,
    /// 1/w of vertex `i` (binary32): the inputs of the perspective-correct barycentrics.
    pub rw: [T; 3],
}

impl TriSetup<u32> {
    /// The shape (independent of the configuration).
    pub fn shape() -> TriSetup<u32> {
        let e = EdgeSetup {
            a: COEF_BITS,
            b: COEF_BITS,
            c: EDGE_BITS,
            top_left: 1,
        };
        TriSetup {
            edge: [e.clone(), e.clone(), e],
            bbox: [3; 4],
            z_c: ZC_BITS,
            dzdx: DZ_BITS,
            dzdy: DZ_BITS,
            depth_op: 3,
            depth_write: 1,
            prim: PRIM_BITS,
            state: STATE_BITS,
            front: 1,
            rw: [32; 3],
        }
    }
}

/// A quad of fragments: the rasteriser's output, one SIMT quad for the shader core.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct QuadFrag<T = Sig> {
    /// Primitive id.
    pub prim: T,
    /// Quad column, 3 bits.
    pub qx: T,
    /// Quad row, 3 bits.
    pub qy: T,
    /// Covered lanes that passed the depth test, `4·samples` bits.
    pub coverage: T,
    /// D24 depth per lane.
    pub depth: Vec<T>,
    /// `E_0`, `E_1`, `E_2` at each pixel centre as binary32 (the exact integers rounded to
    /// nearest even): the inputs of the perspective-correct barycentrics (module docs).
    pub bary: [[T; 3]; 4],
    /// The triangle's draw state ([`STATE_BITS`]).
    pub state: T,
    /// The triangle is front-facing.
    pub front: T,
    /// 1/w of the triangle's vertices (binary32), for the barycentrics.
    pub rw: [T; 3],
    /// `VkCompareOp` of the triangle's depth test, 3 bits (for late depth).
    pub depth_op: T,
    /// The triangle writes passing depths (for late depth).
    pub depth_write: T,
    /// Late depth: the draw state's fragment shader writes depth, so the early test passed
    /// every covered lane without writing, and the tile buffer tests at the pixel write
    /// ([`early_z`](early_z::early_z) sets it from its `late` configuration).
    pub late: T,
}

impl QuadFrag<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> QuadFrag<u32> {
        QuadFrag {
            prim: PRIM_BITS,
            qx: 3,
            qy: 3,
            coverage: cfg.lanes() as u32,
            depth: vec![DEPTH_BITS; cfg.lanes()],
            bary: [[32; 3]; 4],
            state: STATE_BITS,
            front: 1,
            rw: [32; 3],
            depth_op: 3,
            depth_write: 1,
            late: 1,
        }
    }
}

/// An early depth test of one quad (the tile buffer's depth port).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ZReq<T = Sig> {
    /// Quad address `qy·8 + qx`.
    pub addr: T,
    /// Lanes to test.
    pub mask: T,
    /// D24 depth per lane.
    pub depth: Vec<T>,
    /// `VkCompareOp`, 3 bits.
    pub op: T,
    /// Write the depth of passing lanes.
    pub write: T,
}

impl ZReq<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> ZReq<u32> {
        ZReq {
            addr: ADDR_BITS,
            mask: cfg.lanes() as u32,
            depth: vec![DEPTH_BITS; cfg.lanes()],
            op: 3,
            write: 1,
        }
    }
}

/// The answer to a [`ZReq`].
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ZResp<T = Sig> {
    /// Lanes that passed.
    pub pass: T,
}

/// A render target's blend state (`VkPipelineColorBlendAttachmentState` codes).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct BlendBits<T = Sig> {
    /// Blend (else replace).
    pub enable: T,
    /// `VkBlendOp` of RGB, 3 bits (0..=4).
    pub colour_op: T,
    /// `VkBlendFactor` of the RGB source, 4 bits.
    pub src_colour: T,
    /// `VkBlendFactor` of the RGB destination, 4 bits.
    pub dst_colour: T,
    /// `VkBlendOp` of alpha.
    pub alpha_op: T,
    /// `VkBlendFactor` of the alpha source.
    pub src_alpha: T,
    /// `VkBlendFactor` of the alpha destination.
    pub dst_alpha: T,
}

impl BlendBits<u32> {
    /// The shape.
    pub const SHAPE: BlendBits<u32> = BlendBits {
        enable: 1,
        colour_op: 3,
        src_colour: 4,
        dst_colour: 4,
        alpha_op: 3,
        src_alpha: 4,
        dst_alpha: 4,
    };
}

/// A write of shaded colours into one render target (the pixel pipeline's port), or a late
/// depth test.
///
/// With `rt` = the depth plane (index `rts`) it is a **late depth test** of the quad: lane
/// `l`'s D24 depth is `colour[l / samples]` (bits 23:0), tested with `zop` against the
/// stored depth under `mask`; passing lanes are written when `zwrite`, and the passing lanes
/// are remembered for the colour writes that follow with `late` set (their mask is ANDed
/// with them). Colour writes without `late` ignore `zop`, `zwrite`.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct PixelReq<T = Sig> {
    /// Render target (or `rts`: a late depth test).
    pub rt: T,
    /// Quad address.
    pub addr: T,
    /// Lanes to write (or to test).
    pub mask: T,
    /// Colour per pixel (TL, TR, BL, BR), raw bits of the target's format; D24 depth per
    /// pixel for a late depth test.
    pub colour: [T; 4],
    /// How RGBA8 targets blend.
    pub blend: BlendBits<T>,
    /// `VkCompareOp` of a late depth test, 3 bits.
    pub zop: T,
    /// A late depth test writes the passing depths.
    pub zwrite: T,
    /// A colour write of a late-depth quad: only the lanes that passed the pixel port's last
    /// late depth test are written.
    pub late: T,
}

impl PixelReq<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> PixelReq<u32> {
        PixelReq {
            rt: cfg.plane_bits(),
            addr: ADDR_BITS,
            mask: cfg.lanes() as u32,
            colour: [cfg.data_bits(); 4],
            blend: BlendBits::SHAPE,
            zop: 3,
            zwrite: 1,
            late: 1,
        }
    }
}

/// A tile-shader access of one sample (screen coordinates).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TsReq<T = Sig> {
    /// Write (else read).
    pub write: T,
    /// Plane: a render target, or `rts` for depth.
    pub plane: T,
    /// Screen pixel x, [`PIXEL_COORD_BITS`].
    pub x: T,
    /// Screen pixel y.
    pub y: T,
    /// Sample, 2 bits.
    pub sample: T,
    /// Data to write.
    pub data: T,
    /// Returned with the answer.
    pub tag: T,
}

impl TsReq<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> TsReq<u32> {
        TsReq {
            write: 1,
            plane: cfg.plane_bits(),
            x: PIXEL_COORD_BITS,
            y: PIXEL_COORD_BITS,
            sample: 2,
            data: cfg.data_bits(),
            tag: TAG_BITS,
        }
    }
}

/// The answer to a [`TsReq`] (reads and writes alike).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TsResp<T = Sig> {
    /// The sample read (0 on an error; the old value for a write).
    pub data: T,
    /// The access was outside the tile, or to a sample or plane that does not exist.
    pub error: T,
    /// The request's tag.
    pub tag: T,
}

/// A write-out read of one pixel (tile-local).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoReq<T = Sig> {
    /// Plane.
    pub plane: T,
    /// Pixel x in the tile, 4 bits.
    pub px: T,
    /// Pixel y in the tile, 4 bits.
    pub py: T,
}

impl WoReq<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoReq<u32> {
        WoReq {
            plane: cfg.plane_bits(),
            px: 4,
            py: 4,
        }
    }
}

/// The samples of the pixel a [`WoReq`] asked for.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoResp<T = Sig> {
    /// Sample `s` of the pixel.
    pub samples: Vec<T>,
}

/// TILE_BEGIN: the tile's origin and the clears.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TileBegin<T = Sig> {
    /// Tile column (in tiles).
    pub tile_x: T,
    /// Tile row.
    pub tile_y: T,
    /// Planes to clear (bit `p`).
    pub clear_mask: T,
    /// Clear value of each plane.
    pub clear: Vec<T>,
}

impl TileBegin<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> TileBegin<u32> {
        TileBegin {
            tile_x: TILE_COORD_BITS,
            tile_y: TILE_COORD_BITS,
            clear_mask: cfg.planes() as u32,
            clear: vec![cfg.data_bits(); cfg.planes()],
        }
    }
}
