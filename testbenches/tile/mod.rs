//! The tile engine's per-tile RTL (`rendergen_rtl::tile`) against the golden model
//! `rendergen_sim::models::tile`: the rasteriser with early depth (`tile_raster`) and the tile
//! buffer's ports (`tile_buffer`), under random gaps and back-pressure on every stream, with
//! in-order scoreboards (nothing lost, duplicated or reordered); a mesh of triangles sharing
//! edges; co-simulation in iverilog and Verilator; lint; measurements.

mod backend;
mod buffer;
mod cmd;
mod engine;
mod engine_frame;
mod engine_msaa;
mod engine_texture;
mod engine_tshader;
mod engine_zblend;
mod frag;
mod geometry;
mod geometry_clip;
mod geometry_fetch;
mod geometry_frontend;
mod image_load;
mod memory;
mod raster;
mod tile_shader;
mod vertex;
mod writeout;

use rendergen_hdl::{Bundle, Leaves, PortPath};
use rendergen_rtl::tile::{QuadFrag, TileCfg, TriSetup};
use rendergen_sim::agents::memory::MemoryAgent;
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError};
use rendergen_sim::models::tile::raster::{edge_f32, Quad};
use rendergen_sim::models::tile::setup::{self as model, Vertex};
use rendergen_sim::models::tile::{DEPTH_MAX, PIXEL};
use rendergen_sim::Simulator;

/// One cycle of a unit between a request source, an answer sink and the memory agent: drive
/// all three, sample all three, check the sink's protocol, then take every answer into `board`.
pub fn mem_unit_cycle(
    sim: &mut Simulator,
    src: &mut StreamSource,
    sink: &mut StreamSink,
    mem: &mut MemoryAgent,
    board: &mut InOrder<Vec<u64>>,
) -> Result<(), TbError> {
    src.drive(sim);
    sink.drive(sim);
    mem.drive(sim);
    src.sample(sim);
    sink.sample(sim);
    mem.sample(sim);
    sink.protocol_result()?;
    for item in sink.take_items() {
        board.observe(item.iter().map(|b| b.to_u64()).collect())?;
    }
    Ok(())
}

/// The small configuration of the co-simulations: 1 sample, one RGBA8 and one R32F target.
pub fn small_cfg() -> TileCfg {
    use rendergen_rtl::tile::RtFormat;
    TileCfg {
        samples: 1,
        formats: vec![RtFormat::Rgba8, RtFormat::R32f],
    }
}

/// A record's leaves in declaration order (the order of its ports), each masked to the width
/// its shape gives (two's complement for negative values).
pub fn flatten<V: Leaves<u64>, S: Leaves<u32>>(value: &V, shape: &S) -> Vec<u64> {
    let mut values = Vec::new();
    value.each_leaf(&mut PortPath::default(), &mut |_, v| values.push(*v));
    let mut widths = Vec::new();
    shape.each_leaf(&mut PortPath::default(), &mut |_, w| widths.push(*w));
    assert_eq!(values.len(), widths.len(), "value and shape differ");
    (values.iter().zip(&widths))
        .map(|(v, w)| match w {
            64 => *v,
            w => v & ((1u64 << w) - 1),
        })
        .collect()
}

/// The port names of a record's leaves under `prefix`.
pub fn port_names<B: Bundle>(prefix: &str, shape: &B::Shape) -> Vec<String> {
    B::layout(shape)
        .into_iter()
        .map(|(n, _)| format!("{prefix}_{n}"))
        .collect()
}

/// The RTL's input record for the model's set-up triangle drawn with draw state `state`.
pub fn tri_record(t: &model::TriSetup, state: u32) -> TriSetup<u64> {
    let e = |i: usize| rendergen_rtl::tile::EdgeSetup {
        a: t.edges[i].a as u64,
        b: t.edges[i].b as u64,
        c: t.edges[i].c as u64,
        top_left: t.edges[i].top_left as u64,
    };
    TriSetup {
        edge: [e(0), e(1), e(2)],
        bbox: t.bbox.map(|b| b as u64),
        z_c: t.z_c as u64,
        dzdx: t.dzdx as u64,
        dzdy: t.dzdy as u64,
        depth_op: t.depth_op as u64,
        depth_write: t.depth_write as u64,
        prim: t.prim as u64,
        state: state as u64,
        front: t.front as u64,
        rw: t.rw.map(|r| r.to_bits() as u64),
    }
}

/// The RTL's output record the model expects for quad `q` of triangle `t` drawn with draw
/// state `state` (coverage after the depth test; `late`: the state's shader writes depth).
pub fn quad_record(
    q: &Quad,
    t: &model::TriSetup,
    state: u32,
    late: bool,
    cfg: &TileCfg,
) -> Vec<u64> {
    let frag = QuadFrag {
        prim: q.prim as u64,
        state: state as u64,
        front: t.front as u64,
        rw: t.rw.map(|r| r.to_bits() as u64),
        qx: q.qx as u64,
        qy: q.qy as u64,
        coverage: q.coverage as u64,
        depth: q.depth.iter().map(|&d| d as u64).collect(),
        bary: q.edge.map(|p| p.map(|e| edge_f32(e) as u64)),
        depth_op: t.depth_op as u64,
        depth_write: t.depth_write as u64,
        late: late as u64,
    };
    flatten(&frag, &QuadFrag::shape(cfg))
}

/// Random vertices around tile `tile` (offsets within 6, 20 or 300 pixels).
pub fn random_triangle(rng: &mut Rng, tile: (u32, u32)) -> [Vertex; 3] {
    model::random_triangle(rng, tile, [6 * PIXEL, 20 * PIXEL, 300 * PIXEL])
}

/// A jittered `n×n` grid over the tile at `tile` (and 2 pixels beyond), split into triangles
/// with both diagonals: every sample of the tile lies in exactly one triangle.
pub fn mesh(rng: &mut Rng, tile: (u32, u32), n: usize) -> Vec<[Vertex; 3]> {
    let (ox, oy) = (tile.0 as i64 * 16 * PIXEL, tile.1 as i64 * 16 * PIXEL);
    let step = 20 * PIXEL / (n as i64 - 1);
    let pts: Vec<Vec<Vertex>> = (0..n)
        .map(|j| {
            (0..n)
                .map(|i| {
                    let border = i == 0 || j == 0 || i == n - 1 || j == n - 1;
                    let jit = |r: &mut Rng| match border {
                        true => 0,
                        false => r.below(PIXEL as u64) as i64 - PIXEL / 2,
                    };
                    Vertex {
                        x: (ox - 2 * PIXEL + i as i64 * step + jit(rng)) & !63,
                        y: (oy - 2 * PIXEL + j as i64 * step + jit(rng)) & !63,
                        z: rng.below(DEPTH_MAX as u64) as u32,
                        rw: 1.0,
                    }
                })
                .collect()
        })
        .collect();
    let mut tris = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let (a, b, c, d) = (pts[j][i], pts[j][i + 1], pts[j + 1][i], pts[j + 1][i + 1]);
            match (i + j) % 2 {
                0 => tris.extend([[a, b, d], [a, d, c]]),
                _ => tris.extend([[a, b, c], [b, d, c]]),
            }
        }
    }
    tris
}
