//! The frame-level golden model of the tile engine (issue 13 §1): one render pass from vertex
//! buffers to surfaces in a byte-accurate [`Memory`], written from `tiles-and-allocation.md`
//! Part A and D6/D7, independent of the RTL.
//!
//! # What a pass does
//! 1. **Vertex shading.** Every vertex of each mesh's vertex buffer is shaded once on the
//!    shader model ([`crate::models::shader`]), 64 lanes per warp: `r0` = vertex index,
//!    attribute location `l` component `c` in `r(8 + 4l + c)` (read from the `vertex data`
//!    region), exports `0x100` = clip position, location `l` = varying slot `l`.
//! 2. **Primitive assembly** of triangle lists (indices read from `vertex data`), **clipping**
//!    against the near plane `z ≥ 0` (Vulkan clip space; Sutherland–Hodgman, fan
//!    re-triangulation, varyings interpolated linearly in clip space), the **viewport
//!    transform** (`x = (x/w + 1)·W/2`, `y = (y/w + 1)·H/2`, `z = z/w`), then setup's guard
//!    band (±2^13 px; a triangle beyond it is dropped and counted — no x/y clipping),
//!    zero-area and **back-face culling** by [`RasterState`].
//! 3. **Primitive buffer**: the surviving triangles' vertices (for each: `rw` then the varying
//!    slots, 4 words each) are written to the `primitive data` region; a `DRAW` names its
//!    primitive by index.
//! 4. **Tiler**: each triangle is set up for every 16×16 tile its bounding box touches
//!    ([`setup`]); those that touch the tile become `DRAW` commands ([`Command`]) in the tile's
//!    list, in submission order, with `RESOLVE`s where the pass asks and `TILE_BEGIN`/`END_TILE`
//!    around, in the 64-bit encoding of [`command`] (the RTL `tile_cmd` runs the same lists).
//!    The `command lists` region holds a table (one 64-bit word per tile, row-major: offset
//!    and length of its list in words) and then the lists.
//! 5. **Per tile** (row-major), the command-list processor reads the tile's table entry and
//!    its commands one by one:
//!    * `TILE_BEGIN`: clears, and resets the tile's write-out modes to the static ones;
//!    * `DRAW`: reads the primitive's vertices, rasterises inside the screen
//!      ([`rasterise_visible`]: the partial tiles at the right and bottom edges cover only
//!      their pixels on screen), runs the early
//!      depth test quad by quad in walk order, then shades the passing quads (16 per warp;
//!      uncovered pixels of a quad are helper lanes; perspective-correct varyings by
//!      [`barycentrics`]/[`interpolate`] at the pixel centre; with sample shading — a
//!      fragment shader that reads `gl_SampleID` — one invocation per covered sample) and
//!      blends the exports (location `l` → render target `l`, [`pack`]) in quad order; a
//!      shader that writes depth gets the late test instead: on its exported depth (D24,
//!      clamped, rounded), after shading, before blending;
//!    * `RESOLVE`: the drain barrier (every fragment of the tile is committed — in this
//!      model drawing is in order, so the barrier holds by construction and is asserted by
//!      an outstanding-fragment counter), then the tile shader on `xthreads × ythreads`
//!      threads in warps of [`TS_WARP`] = 4 (below), then drawing resumes;
//!    * `END_TILE`: write-out of every plane whose static mode and tile mode are both on.
//! 6. **Write-out** ([`WriteMode`]): average, sample select or every sample, packed by
//!    format ([`pack`]), one row segment per pixel row into the plane's surface
//!    (`((y·W + x)·S + s)·bytes` with `S` the stored samples per pixel).
//!
//! # Tile-shader warps
//! The tile shader's threads `t = y·xthreads + x` run in warps of [`TS_WARP`] = 4 consecutive
//! threads (`t = 4w .. 4w + 3`, the last warp's missing lanes helpers), warp `w` after warp
//! `w − 1` has run to its end — the RTL engine's warp (one quad) and launch order
//! (`rtl/tile/tile_shader.rs`, `ts_launcher`). Inside a warp the lanes run in lockstep, a
//! special-port instruction's accesses in lane order, so a thread sees every tile-buffer
//! write its warp made in earlier instructions, its own and its warp neighbours' (the engine
//! gives the same: its special port answers in request order and holds an access behind an
//! unwritten store to the same sample). **Between warps of one RESOLVE the order is not
//! defined** (`tiles-and-allocation.md` A.6, "Races between tile-shader threads": no barrier
//! among tile-shader threads): the engine runs up to one warp per warp slot at once, so a
//! sample one warp writes and another warp reads or writes in the same RESOLVE has no
//! defined value, and this model's in-order answer is one of the engine's possible ones. A
//! tile shader whose threads communicate only inside their warp of four, or only across
//! RESOLVEs, has the same result on both. (With the former 64-thread warps a thread saw
//! the writes of the 63 others of its warp, which the engine did not give.)
//!
//! # Cost model (not RTL timing)
//! One shader core issuing one instruction per warp per cycle; `cycles` counts: geometry =
//! vertex-shader instructions + one per assembled triangle + one per (triangle, tile) binned;
//! per tile, command = one per 64-bit command word read; fragment = one per rasterised quad + the
//! fragment warps' instructions; tile shader = per 16 warps of four threads (64 threads, one
//! 64-lane warp of the cost model's core) the most instructions one of them executed (exact
//! when their control flow agrees; the lockstep union when it diverges is at least that);
//! write-out = bytes / 16
//! (a 16-byte burst per cycle), rounded up. Drain wait is 0 in this in-order model.
use super::buffer::{BlendState, Format, TileBuffer};
use super::command::{self, Command};
use super::memory::{BadAccess, Memory, RegionId};
use super::pack;
use super::port::{self, WriteMode};
use super::raster::{barycentrics, edge_f32, interpolate, rasterise_visible, visible_extent, Quad};
use super::setup::{setup, RasterState, Reject, Vertex};
use super::{DEPTH_MAX, TILE};
use crate::models::shader::{self, Env, Launch, SpecRequest, TexRequest};
use crate::models::texture::{Filter, TexDesc};
use std::fmt;

/// Threads per tile-shader warp: the RTL engine's warp (one quad of four lanes), so that
/// threads exchanging data through the tile buffer inside a warp see the same order on both
/// (module docs, "Tile-shader warps").
pub const TS_WARP: usize = 4;

/// Tile-shader warps the cost model charges as one 64-lane warp.
const TS_COST_GROUP: usize = 16;

/// A compiled program and its uniform words.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Instruction words.
    pub words: Vec<u64>,
    /// Uniform words (`ldu` index → word; missing words read 0).
    pub uniforms: Vec<u32>,
}

/// One vertex attribute stream.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// Shader input location.
    pub location: u32,
    /// Components per vertex (1..=4).
    pub components: u32,
    /// `components` words per vertex.
    pub data: Vec<u32>,
}

/// A mesh and its pipeline.
#[derive(Clone, Debug)]
pub struct Mesh {
    /// Its name (for messages).
    pub name: String,
    /// Vertex attributes (all of one vertex count).
    pub attributes: Vec<Attribute>,
    /// Triangle-list indices.
    pub indices: Vec<u32>,
    /// The vertex shader.
    pub vertex: Program,
    /// The fragment shader.
    pub fragment: Program,
    /// Varying slots (vec4 locations 0..varyings) the vertex shader exports.
    pub varyings: u32,
    /// Whether the fragment shader runs once per sample (it reads `gl_SampleID`).
    pub sample_shading: bool,
    /// Whether the fragment shader writes depth (`gl_FragDepth`, export `0x101`): the depth
    /// test then runs after shading on the exported depth (late depth), not before.
    pub late_depth: bool,
    /// Culling, depth test.
    pub state: RasterState,
    /// Blend state per colour render target.
    pub blend: Vec<BlendState>,
    /// The texture its fragment shader samples (`texture`/`textureLod`/`texelFetch`), if any.
    pub texture: Option<Texture>,
}

/// A sampled texture bound to a mesh's fragment shader: the texture unit's golden model
/// ([`crate::models::texture::sample`]) answers its `tex` requests from the texels, which live
/// in their own memory region (class `textures`, uploaded by the host uncounted); every texel
/// the unit reads is a counted 4-byte read of that region (no texture cache in this model).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Its name (the region is `<pass>: texture <name>`).
    pub name: String,
    /// The descriptor (wrap, sRGB, size, levels); `base` is the word offset in the region.
    pub desc: TexDesc,
    /// RGBA8 texels (R in bits 7:0) as the descriptor lays them out, [`TexDesc::words`] words.
    pub texels: Vec<u32>,
    /// The sampler's filter for normalised-coordinate filtered requests (GLSL `texture`):
    /// the binding's filter replaces the word's, as a Vulkan sampler's does; integer-coordinate
    /// fetches (`texelFetch`) stay exact.
    pub filter: Filter,
}

/// A colour render target.
#[derive(Clone, Debug)]
pub struct Target {
    /// Its name (regions are named after it).
    pub name: String,
    /// Region class for reports (`g-buffer`, `output` …).
    pub class: String,
    /// Format.
    pub format: Format,
    /// Static write-out mode (`Off` = static suppression).
    pub writeout: WriteMode,
    /// Clear value (format bits).
    pub clear: u64,
}

/// A surface in memory (a written-out plane) that a fragment shader may read.
#[derive(Clone, Copy, Debug)]
pub struct Surface {
    /// Its region.
    pub region: RegionId,
    /// Colour format, or `None` for D24 (4 bytes a sample).
    pub format: Option<Format>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Samples stored per pixel.
    pub samples: u32,
}

impl Surface {
    /// Byte offset of pixel `(x, y)` sample `s`.
    pub fn offset(&self, x: u32, y: u32, s: u32) -> u64 {
        ((y as u64 * self.width as u64 + x as u64) * self.samples as u64 + s as u64)
            * pack::bytes_per_sample(self.format) as u64
    }
}

/// A `RESOLVE`: the tile shader to run in every tile that overlaps `rect`.
#[derive(Clone, Debug)]
pub struct Resolve {
    /// Meshes drawn before it (it follows mesh `after − 1`).
    pub after: usize,
    /// The tile shader.
    pub program: Program,
    /// Threads per tile (`xthreads`, `ythreads`), each 1..=16.
    pub threads: (u32, u32),
    /// Screen rectangle `[x, y, w, h]` in pixels (`None`: the whole screen).
    pub rect: Option<[u32; 4]>,
}

/// One render pass.
#[derive(Clone, Debug)]
pub struct Pass {
    /// Its name (prefix of region names).
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Samples per pixel (1 or 4).
    pub samples: u32,
    /// Colour render targets (tile-buffer planes 0..).
    pub targets: Vec<Target>,
    /// Depth's static write-out mode.
    pub depth_writeout: WriteMode,
    /// Depth clear value (D24).
    pub depth_clear: u32,
    /// Meshes in submission order.
    pub meshes: Vec<Mesh>,
    /// Resolves.
    pub resolves: Vec<Resolve>,
    /// Storage buffers (binding, region) the shaders may load from and store to.
    pub buffers: Vec<(u32, RegionId)>,
    /// Surfaces of earlier passes fragment shaders read as images (binding, surface).
    pub images: Vec<(u32, Surface)>,
}

/// Counts of one tile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TileStats {
    /// Tile column and row.
    pub tile: (u32, u32),
    /// `DRAW` commands.
    pub draws: u32,
    /// Quads rasterised (with coverage).
    pub quads: u32,
    /// Fragment invocations (non-helper lanes shaded).
    pub fragments: u32,
    /// Tile-shader threads run.
    pub ts_threads: u32,
    /// Shader-core warp instructions issued (fragment and tile shader).
    pub instructions: u64,
    /// Cycles: command processing.
    pub cycles_command: u64,
    /// Cycles: fragment work.
    pub cycles_fragment: u64,
    /// Cycles: drain wait (0 in this model).
    pub cycles_drain: u64,
    /// Cycles: tile shader.
    pub cycles_tile_shader: u64,
    /// Cycles: write-out.
    pub cycles_writeout: u64,
}

/// What a pass leaves besides memory.
#[derive(Clone, Debug, Default)]
pub struct PassResult {
    /// Written-out surfaces per plane (colour RTs, then depth); `None` if statically off.
    pub surfaces: Vec<Option<Surface>>,
    /// Per-tile counts, row-major.
    pub tiles: Vec<TileStats>,
    /// Vertices shaded.
    pub vertices: u64,
    /// Triangles assembled from the index buffers.
    pub triangles_in: u64,
    /// Triangles after clipping, culling and the guard band (primitives in the buffer).
    pub triangles_out: u64,
    /// Triangles removed by back-face (or front-face) culling.
    pub culled: u64,
    /// Triangles dropped for leaving the guard band.
    pub guard_band_rejects: u64,
    /// Triangles wholly behind the near plane.
    pub near_clipped: u64,
    /// Vertex-shader warp instructions issued.
    pub vertex_instructions: u64,
    /// Geometry cycles (cost model).
    pub cycles_geometry: u64,
    /// The binned triangles in primitive order (the input of the RTL geometry front end).
    pub triangles: Vec<BinnedTriangle>,
    /// Per mesh, its shaded vertices in index order: the post-transform vertex buffer
    /// (position, then the pass's most varying slots, unexported words 0;
    /// `vary` has `4·slots_max` words), which the RTL's vertex phase writes and its index
    /// fetch reads.
    pub clip_vertices: Vec<Vec<ClipVertex>>,
}

impl PassResult {
    /// Shader-core utilisation of the cost model: warp instructions issued per cycle.
    pub fn core_utilisation(&self) -> f64 {
        let i = self.vertex_instructions + self.tiles.iter().map(|t| t.instructions).sum::<u64>();
        match self.cycles() {
            0 => 0.0,
            c => i as f64 / c as f64,
        }
    }

    /// Total cycles of the cost model.
    pub fn cycles(&self) -> u64 {
        self.cycles_geometry
            + self
                .tiles
                .iter()
                .map(|t| {
                    t.cycles_command
                        + t.cycles_fragment
                        + t.cycles_drain
                        + t.cycles_tile_shader
                        + t.cycles_writeout
                })
                .sum::<u64>()
    }
}

/// Why a pass failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// A bad pass description (what and where).
    Config(String),
    /// A shader ended with an error.
    Shader {
        /// Which program (`mesh m vertex`, `tile shader 0` …).
        program: String,
        /// Its error and pc.
        fault: String,
    },
    /// A tile-shader access outside its tile.
    OutOfTile {
        /// Tile column, row.
        tile: (u32, u32),
        /// Thread `(tx, ty)` in the tile's grid.
        thread: (u32, u32),
        /// Plane (binding).
        plane: u32,
        /// Screen pixel and sample of the access.
        address: (u32, u32, u32),
    },
    /// A memory access outside every region.
    Memory(String),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Config(s) | FrameError::Memory(s) => write!(f, "{s}"),
            FrameError::Shader { program, fault } => write!(f, "{program}: {fault}"),
            FrameError::OutOfTile {
                tile,
                thread,
                plane,
                address,
            } => write!(
                f,
                "tile shader thread ({}, {}) of tile ({}, {}) accessed plane {plane} at pixel \
                 ({}, {}) sample {}, outside its tile (pixels {}..{} × {}..{})",
                thread.0,
                thread.1,
                tile.0,
                tile.1,
                address.0,
                address.1,
                address.2,
                tile.0 * 16,
                tile.0 * 16 + 16,
                tile.1 * 16,
                tile.1 * 16 + 16
            ),
        }
    }
}

impl std::error::Error for FrameError {}

impl From<BadAccess> for FrameError {
    fn from(e: BadAccess) -> FrameError {
        FrameError::Memory(e.to_string())
    }
}

fn cfg(msg: String) -> FrameError {
    FrameError::Config(msg)
}

mod clip;
mod env;
mod fragment;
mod tiler;
pub use clip::{clip_near, lerp_vertex, ClipVertex};
use env::*;
use fragment::*;
pub use tiler::{bin_triangle, BinnedTriangle};

/// A geometry-stage triangle in screen space.
struct ScreenTri {
    mesh: usize,
    v: [Vertex; 3],
}

/// Runs `pass`, reading and writing `mem`.
pub fn run_pass(pass: &Pass, mem: &mut Memory) -> Result<PassResult, FrameError> {
    run_pass_with_progress(pass, mem, &mut |_, _| {})
}

/// [`run_pass`], calling `progress(done, total)` after each tile.
pub fn run_pass_with_progress(
    pass: &Pass,
    mem: &mut Memory,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<PassResult, FrameError> {
    check(pass)?;
    let mut res = PassResult::default();
    let tiles_x = pass.width.div_ceil(TILE as u32);
    let tiles_y = pass.height.div_ceil(TILE as u32);
    let slots_max = pass.meshes.iter().map(|m| m.varyings).max().unwrap_or(0) as usize;
    // Vertex data: attributes and indices, uploaded by the host (uncounted).
    let mut inputs = Vec::new();
    for (mi, m) in pass.meshes.iter().enumerate() {
        let mut bytes: Vec<u8> = Vec::new();
        let mut offsets = Vec::new();
        for a in &m.attributes {
            offsets.push(bytes.len() as u64);
            bytes.extend(a.data.iter().flat_map(|w| w.to_le_bytes()));
        }
        let index_offset = bytes.len() as u64;
        bytes.extend(m.indices.iter().flat_map(|w| w.to_le_bytes()));
        let r = mem.alloc(
            &format!("{}: vertex data {}", pass.name, m.name),
            "vertex data",
            bytes.len().max(1) as u64,
        );
        mem.preload(mem.base(r), &bytes)?;
        inputs.push((r, offsets, index_offset));
        let _ = mi;
    }
    // Textures, uploaded by the host (uncounted): one region per textured mesh.
    let mut textures: Vec<Option<RegionId>> = Vec::new();
    for m in &pass.meshes {
        textures.push(match &m.texture {
            Some(t) => {
                let r = mem.alloc(
                    &format!("{}: texture {}", pass.name, t.name),
                    "textures",
                    (4 * t.texels.len()).max(4) as u64,
                );
                let bytes: Vec<u8> = t.texels.iter().flat_map(|w| w.to_le_bytes()).collect();
                mem.preload(mem.base(r), &bytes)?;
                Some(r)
            }
            None => None,
        });
    }
    // 1–2: vertex shading, assembly, clipping, viewport, culling.
    let mut tris: Vec<ScreenTri> = Vec::new();
    let mut prim_words: Vec<u32> = Vec::new();
    let prim_stride = 3 * (1 + 4 * slots_max);
    for (mi, m) in pass.meshes.iter().enumerate() {
        let (region, ref offsets, index_offset) = inputs[mi];
        let base = mem.base(region);
        let count = m
            .attributes
            .first()
            .map_or(0, |a| a.data.len() / a.components as usize);
        let mut verts: Vec<ClipVertex> = Vec::with_capacity(count);
        for first in (0..count).step_by(64) {
            let n = (count - first).min(64);
            let mut launch = Launch::new(n.div_ceil(4));
            for l in 0..n {
                let v = first + l;
                let mut regs = vec![0u32; 8 + 4 * 14];
                regs[0] = v as u32;
                for (a, off) in m.attributes.iter().zip(offsets) {
                    let c = a.components as usize;
                    let w = mem.read_words(base + off + (v * c * 4) as u64, c)?;
                    let r = 8 + 4 * a.location as usize;
                    regs[r..r + c].copy_from_slice(&w);
                }
                let used = regs.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1);
                regs.truncate(used.max(1));
                launch.regs.push(regs);
            }
            launch.helpers = tail_helpers(n, 4 * launch.quads);
            let mut env = PassEnv {
                mem,
                buffers: &pass.buffers,
                uniforms: &m.vertex.uniforms,
                images: &pass.images,
                texture: None,
                tile: None,
                formats: &[],
                modes: None,
                threads: &[],
                tile_xy: (0, 0),
                error: None,
            };
            let (exports, executed) = run_warp(
                &m.vertex,
                &launch,
                &mut env,
                &format!("mesh `{}` vertex shader", m.name),
            )?;
            res.cycles_geometry += executed;
            res.vertex_instructions += executed;
            for e in exports.iter().take(n) {
                let pos = e.get(&0x100).cloned().unwrap_or_default();
                if pos.len() != 4 {
                    return Err(cfg(format!(
                        "mesh `{}`: the vertex shader does not write a vec4 position",
                        m.name
                    )));
                }
                let mut vary = vec![0u32; 4 * slots_max];
                for l in 0..m.varyings as usize {
                    if let Some(w) = e.get(&(l as u32)) {
                        vary[4 * l..4 * l + w.len()].copy_from_slice(w);
                    }
                }
                verts.push(ClipVertex {
                    pos: std::array::from_fn(|i| f32::from_bits(pos[i])),
                    vary,
                });
            }
        }
        res.vertices += count as u64;
        let idx = mem.read_words(base + index_offset, m.indices.len())?;
        res.clip_vertices.push(verts.clone());
        for (ti, t) in idx.chunks_exact(3).enumerate() {
            res.triangles_in += 1;
            res.cycles_geometry += 1;
            if let Some(&bad) = t.iter().find(|&&i| i as usize >= count) {
                return Err(cfg(format!(
                    "mesh `{}`: index {bad} of triangle {ti} is not below the vertex count {count}",
                    m.name
                )));
            }
            let clipped = clip_near(std::array::from_fn(|k| verts[t[k] as usize].clone()));
            if clipped.is_empty() {
                res.near_clipped += 1;
            }
            for c in clipped {
                let v = c.clone().map(|cv| {
                    let [x, y, z, w] = cv.pos;
                    let (nx, ny, nz) = (x / w, y / w, z / w);
                    Vertex::from_f32(
                        (nx + 1.0) * 0.5 * pass.width as f32,
                        (ny + 1.0) * 0.5 * pass.height as f32,
                        nz,
                        w,
                    )
                });
                match setup(&v, (0, 0), &m.state, 0) {
                    Err(Reject::Culled) => {
                        res.culled += 1;
                        continue;
                    }
                    Err(Reject::OutOfRange) => {
                        res.guard_band_rejects += 1;
                        continue;
                    }
                    Err(Reject::Degenerate) => continue,
                    _ => {}
                }
                for (cv, sv) in c.iter().zip(&v) {
                    prim_words.push(sv.rw.to_bits());
                    prim_words.extend(&cv.vary);
                }
                tris.push(ScreenTri { mesh: mi, v });
            }
        }
    }
    res.triangles_out = tris.len() as u64;
    command::check_prim_count(&pass.name, tris.len() as u64).map_err(cfg)?;
    let prim_region = mem.alloc(
        &format!("{}: primitive data", pass.name),
        "primitive data",
        (4 * prim_words.len()).max(4) as u64,
    );
    mem.write_words(mem.base(prim_region), &prim_words)?;
    // 4: the tiler.
    let ntiles = (tiles_x * tiles_y) as usize;
    let mut lists: Vec<Vec<u64>> = vec![Vec::new(); ntiles];
    let planes = pass.targets.len() + 1;
    let clear_mask = (1u32 << planes) - 1;
    // Clear values (raw bits of each plane's format; depth D24), carried by TILE_BEGIN.
    let clears: Vec<u64> = pass
        .targets
        .iter()
        .map(|t| t.clear)
        .chain([pass.depth_clear as u64])
        .collect();
    let enc = |c: Command| {
        c.encode()
            .map_err(|e| cfg(format!("pass `{}`: {e}", pass.name)))
    };
    for (ty, tx) in (0..tiles_y).flat_map(|y| (0..tiles_x).map(move |x| (y, x))) {
        lists[(ty * tiles_x + tx) as usize].extend(enc(Command::TileBegin {
            x: tx,
            y: ty,
            clear_mask,
            clears: clears.clone(),
        })?);
    }
    let resolve_at = |after: usize, lists: &mut Vec<Vec<u64>>| -> Result<(), FrameError> {
        for (ri, r) in pass.resolves.iter().enumerate() {
            if r.after != after {
                continue;
            }
            let [rx, ry, rw, rh] = r.rect.unwrap_or([0, 0, pass.width, pass.height]);
            for ty in 0..tiles_y {
                for tx in 0..tiles_x {
                    let (x0, y0) = (tx * 16, ty * 16);
                    let hit = rw > 0
                        && rh > 0
                        && x0 < rx + rw
                        && rx < x0 + 16
                        && y0 < ry + rh
                        && ry < y0 + 16;
                    if hit {
                        lists[(ty * tiles_x + tx) as usize].extend(enc(Command::Resolve {
                            program: ri as u32,
                            xthreads: r.threads.0,
                            ythreads: r.threads.1,
                        })?);
                    }
                }
            }
        }
        Ok(())
    };
    resolve_at(0, &mut lists)?;
    let mut mesh_done = 0;
    for (pi, t) in tris.iter().enumerate() {
        while mesh_done < t.mesh {
            mesh_done += 1;
            resolve_at(mesh_done, &mut lists)?;
        }
        let state = pass.meshes[t.mesh].state;
        let draws = bin_triangle(&t.v, &state, t.mesh as u32, pi as u32, (tiles_x, tiles_y))
            .map_err(|e| cfg(format!("pass `{}`: {e}", pass.name)))?;
        for (tile, words) in draws {
            res.cycles_geometry += 1;
            lists[tile].extend(words);
        }
        res.triangles.push(BinnedTriangle {
            mesh: t.mesh as u32,
            state,
            v: t.v,
        });
    }
    while mesh_done < pass.meshes.len() {
        mesh_done += 1;
        resolve_at(mesh_done, &mut lists)?;
    }
    // The table (per tile: offset and length in words), then the lists (command.rs).
    let mut table = Vec::with_capacity(ntiles);
    let mut at = ntiles as u64;
    for l in lists.iter_mut() {
        l.extend(enc(Command::EndTile)?);
        table.push(at | (l.len() as u64) << 32);
        at += l.len() as u64;
    }
    let cmd_region = mem.alloc(
        &format!("{}: command lists", pass.name),
        "command lists",
        8 * at,
    );
    let cmd_base = mem.base(cmd_region);
    let bytes = |w: &[u64]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    mem.write(cmd_base, &bytes(&table))?;
    for (i, l) in lists.iter().enumerate() {
        mem.write(cmd_base + 8 * (table[i] & 0xFFFF_FFFF), &bytes(l))?;
    }
    drop(lists);
    // Surfaces.
    let formats: Vec<Format> = pass.targets.iter().map(|t| t.format).collect();
    let static_modes: Vec<WriteMode> = pass
        .targets
        .iter()
        .map(|t| t.writeout)
        .chain([pass.depth_writeout])
        .collect();
    for (p, m) in static_modes.iter().enumerate() {
        let fmt = formats.get(p).copied();
        if *m == WriteMode::Off {
            res.surfaces.push(None);
            continue;
        }
        let (name, class) = match pass.targets.get(p) {
            Some(t) => (t.name.clone(), t.class.clone()),
            None => ("depth".to_string(), "depth".to_string()),
        };
        let samples = m.stored_samples(pass.samples);
        let bytes = pass.width as u64
            * pass.height as u64
            * samples as u64
            * pack::bytes_per_sample(fmt) as u64;
        let region = mem.alloc(&format!("{}: {name}", pass.name), &class, bytes);
        res.surfaces.push(Some(Surface {
            region,
            format: fmt,
            width: pass.width,
            height: pass.height,
            samples,
        }));
    }
    // 5: per tile.
    let mut tb = TileBuffer::new(pass.samples, &formats);
    let mut modes = static_modes.clone();
    for ti in 0..ntiles {
        let mut st = TileStats::default();
        let entry = read_u64(mem, cmd_base + 8 * ti as u64)?;
        let mut pc = cmd_base + 8 * (entry & 0xFFFF_FFFF);
        let end = pc + 8 * (entry >> 32);
        let mut outstanding = 0u32;
        let mut words = Vec::with_capacity(command::DRAW_WORDS);
        while pc < end {
            let w0 = read_u64(mem, pc)?;
            let n = Command::size(w0)
                .ok_or_else(|| cfg(format!("command list of tile {ti}: bad opcode 0x{w0:x}")))?;
            words.clear();
            words.push(w0);
            for k in 1..n as u64 {
                words.push(read_u64(mem, pc + 8 * k)?);
            }
            pc += 8 * n as u64;
            st.cycles_command += n as u64;
            let cmd = Command::decode(&words).expect("size checked");
            match cmd {
                Command::TileBegin {
                    x,
                    y,
                    clear_mask,
                    clears,
                } => {
                    st.tile = (x, y);
                    // Per plane: its value from the command when cleared (else unused).
                    let mut per_plane = vec![0; planes];
                    let mut next = clears.iter();
                    for (p, v) in per_plane.iter_mut().enumerate() {
                        if clear_mask >> p & 1 != 0 {
                            *v = *next.next().unwrap_or(&0);
                        }
                    }
                    tb.tile_begin((x, y), clear_mask, &per_plane);
                    modes.clone_from(&static_modes);
                }
                Command::Draw { state, tri } => {
                    st.draws += 1;
                    let m = &pass.meshes[state as usize];
                    let pw = mem.read_words(
                        mem.base(prim_region) + 4 * (tri.prim as u64 * prim_stride as u64),
                        prim_stride,
                    )?;
                    let vstride = 1 + 4 * slots_max;
                    let vary: [&[u32]; 3] =
                        std::array::from_fn(|k| &pw[k * vstride + 1..(k + 1) * vstride]);
                    let last = visible_extent(st.tile, (pass.width, pass.height));
                    let quads = rasterise_visible(&tri, pass.samples, last);
                    st.quads += quads.len() as u32;
                    st.cycles_fragment += quads.len() as u64;
                    let mut passing: Vec<(Quad, u32)> = Vec::new();
                    for q in quads {
                        let pass_mask = match m.late_depth {
                            true => q.coverage,
                            false => tb.depth_test(&q, tri.depth_op, tri.depth_write),
                        };
                        if pass_mask != 0 {
                            outstanding += 1;
                            passing.push((q, pass_mask));
                        }
                    }
                    let tex = m.texture.as_ref().zip(textures[state as usize]);
                    let shaded = shade_quads(pass, m, tex, &tri, &vary, &passing, mem, &mut st)?;
                    for (mut q, pixel_colours, mut lanes, depth) in shaded {
                        if m.late_depth {
                            // Late depth: the exported depth of each pixel, for its lanes.
                            for lane in 0..4 * pass.samples {
                                q.depth[lane as usize] = depth[(lane / pass.samples) as usize];
                            }
                            q.coverage = lanes;
                            lanes = tb.depth_test(&q, tri.depth_op, tri.depth_write);
                        }
                        for (rt, colours) in pixel_colours.iter().enumerate() {
                            if let Some(c) = colours {
                                let blend = m.blend.get(rt).copied().unwrap_or_default();
                                tb.write_quad(rt, (q.qx, q.qy), lanes, *c, &blend);
                            }
                        }
                    }
                    outstanding = outstanding.saturating_sub(passing.len() as u32);
                }
                Command::Resolve {
                    program,
                    xthreads,
                    ythreads,
                } => {
                    assert_eq!(
                        outstanding, 0,
                        "drain barrier: fragments outstanding at RESOLVE"
                    );
                    let r = &pass.resolves[program as usize];
                    let (tx, ty) = st.tile;
                    let threads: Vec<(u32, u32)> = (0..ythreads)
                        .flat_map(|y| (0..xthreads).map(move |x| (x, y)))
                        .collect();
                    st.ts_threads += threads.len() as u32;
                    // Warps of TS_WARP threads in launch order, each run to its end before
                    // the next (module docs, "Tile-shader warps"); the cost model charges a
                    // group of 16 of them as one 64-lane warp: its longest warp's count.
                    let mut group_cost = 0u64;
                    for (w, chunk) in threads.chunks(TS_WARP).enumerate() {
                        let mut launch = Launch::new(1);
                        for &(x, y) in chunk {
                            let gx = tx * xthreads + x;
                            let gy = ty * ythreads + y;
                            launch
                                .regs
                                .push(vec![gx, gy, 0, x, y, 0, y * xthreads + x, tx, ty, 0]);
                        }
                        launch.helpers = tail_helpers(chunk.len(), TS_WARP);
                        let mut env = PassEnv {
                            mem,
                            buffers: &pass.buffers,
                            uniforms: &r.program.uniforms,
                            images: &[],
                            texture: None,
                            tile: Some(&mut tb),
                            formats: &formats,
                            modes: Some(&mut modes),
                            threads: chunk,
                            tile_xy: (tx, ty),
                            error: None,
                        };
                        let (_, executed) = run_warp(
                            &r.program,
                            &launch,
                            &mut env,
                            &format!("tile shader {program}"),
                        )?;
                        group_cost = group_cost.max(executed);
                        let last = w + 1 == threads.len().div_ceil(TS_WARP);
                        if (w + 1) % TS_COST_GROUP == 0 || last {
                            st.cycles_tile_shader += group_cost;
                            st.instructions += group_cost;
                            group_cost = 0;
                        }
                    }
                }
                Command::EndTile => {
                    let written = write_out(
                        pass,
                        &tb,
                        st.tile,
                        &static_modes,
                        &modes,
                        &res.surfaces,
                        mem,
                    )?;
                    st.cycles_writeout += written.div_ceil(16);
                }
            }
        }
        res.tiles.push(st);
        progress(ti as u64 + 1, ntiles as u64);
    }
    Ok(res)
}

fn check(pass: &Pass) -> Result<(), FrameError> {
    if !matches!(pass.samples, 1 | 4) {
        return Err(cfg(format!(
            "pass `{}`: samples {} is not 1 or 4",
            pass.name, pass.samples
        )));
    }
    if pass.width == 0 || pass.height == 0 || pass.width > 8192 || pass.height > 8192 {
        return Err(cfg(format!(
            "pass `{}`: size {}×{} is not 1..=8192 in each dimension",
            pass.name, pass.width, pass.height
        )));
    }
    if pass.targets.len() > 8 {
        return Err(cfg(format!(
            "pass `{}`: {} render targets; the tile buffer has 8",
            pass.name,
            pass.targets.len()
        )));
    }
    for r in &pass.resolves {
        if !(1..=16).contains(&r.threads.0) || !(1..=16).contains(&r.threads.1) {
            return Err(cfg(format!(
                "pass `{}`: tile-shader threads {}×{}; each must be 1..=16",
                pass.name, r.threads.0, r.threads.1
            )));
        }
        if r.after > pass.meshes.len() {
            return Err(cfg(format!(
                "pass `{}`: a resolve after mesh {} of {}",
                pass.name,
                r.after,
                pass.meshes.len()
            )));
        }
    }
    if pass.resolves.len() > 255 || pass.meshes.len() > 255 {
        return Err(cfg(format!(
            "pass `{}`: more than 255 meshes or resolves",
            pass.name
        )));
    }
    for m in &pass.meshes {
        if m.varyings > 14 {
            return Err(cfg(format!(
                "mesh `{}`: {} varying slots; at most 14",
                m.name, m.varyings
            )));
        }
        let count = m
            .attributes
            .first()
            .map_or(0, |a| a.data.len() / a.components.max(1) as usize);
        for a in &m.attributes {
            if !(1..=4).contains(&a.components)
                || a.location > 13
                || a.data.len() != count * a.components as usize
            {
                return Err(cfg(format!(
                    "mesh `{}`: attribute at location {} has {} components and {} words (vertex count {count})",
                    m.name, a.location, a.components, a.data.len()
                )));
            }
        }
        if m.indices.len() % 3 != 0 {
            return Err(cfg(format!(
                "mesh `{}`: {} indices is not a triangle list",
                m.name,
                m.indices.len()
            )));
        }
    }
    Ok(())
}

/// A little-endian 64-bit word of a command list (counted).
fn read_u64(mem: &mut Memory, addr: u64) -> Result<u64, FrameError> {
    let mut b = [0; 8];
    mem.read(addr, &mut b)?;
    Ok(u64::from_le_bytes(b))
}
