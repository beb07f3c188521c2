//! `tile_frontend` (index fetch → clip → setup/cull → ids → primitive data → tiler lists)
//! against the frame model's geometry step: for the passes of `lit_model.json` and
//! `many_lights.json` (forward and tile-shader, whose lighting pass has `RESOLVE`s), the
//! model's own shaded vertices are put in the post-transform layout, and every tile's list in
//! memory, the primitive data and the frame counters equal what `run_pass` left; the
//! testbench's golden composition of the model's functions ([`model_geometry`]: `clip_near`,
//! the viewport, `Vertex::from_f32`, `setup`, `bin_triangle`, the command encoder) is checked
//! to equal `run_pass` on those scenes and then drives random meshes with near-plane crossings,
//! culled, degenerate and guard-band triangles and RESOLVE rectangles; random memory latency,
//! stalls and answer gaps on the three memory ports, input gaps and list back-pressure; an
//! index out of range; co-simulation; lint.
use super::buffer::assert_lint_clean;
use super::flatten;
use super::geometry_fetch::{load_buffers, mesh_record, FetchItem, FetchMesh};
use rendergen_rtl::tile::geometry::fetch::FetchCfg;
use rendergen_rtl::tile::geometry::frontend::{tile_frontend_top, FrontCfg, ResolveDesc};
use rendergen_rtl::tile::geometry::{GeomCfg, KIND_BEGIN, KIND_END, KIND_RESOLVE};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::command::Command;
use rendergen_sim::models::tile::frame::{bin_triangle, clip_near, ClipVertex};
use rendergen_sim::models::tile::setup::{
    setup, CompareOp, CullMode, FrontFace, RasterState, Reject, Vertex,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

/// A mesh: its raster state, shaded vertices and index buffer.
#[derive(Clone, Debug)]
pub struct FeMesh {
    /// Raster state.
    pub state: RasterState,
    /// Clip-space vertices (`vary` of `4·slots` words).
    pub verts: Vec<ClipVertex>,
    /// Index buffer.
    pub indices: Vec<u32>,
}

/// A `RESOLVE` (the model's `Resolve`, with its index as the program).
#[derive(Clone, Debug)]
pub struct FeResolve {
    /// Meshes drawn before it.
    pub after: usize,
    /// Thread grid.
    pub threads: (u32, u32),
    /// Rectangle `[x, y, w, h]` in pixels.
    pub rect: [u32; 4],
}

/// A pass's geometry.
#[derive(Clone, Debug)]
pub struct FeFrame {
    /// Screen size in pixels.
    pub size: (u32, u32),
    /// Varying slots.
    pub slots: u32,
    /// Clear values of the planes.
    pub clears: Vec<u64>,
    /// Meshes in order.
    pub meshes: Vec<FeMesh>,
    /// RESOLVEs.
    pub resolves: Vec<FeResolve>,
}

impl FeFrame {
    fn tiles(&self) -> (u32, u32) {
        (self.size.0.div_ceil(16), self.size.1.div_ceil(16))
    }
}

/// What the model's geometry step leaves.
#[derive(Clone, Debug, PartialEq)]
pub struct Golden {
    /// Each tile's list.
    pub lists: Vec<Vec<u64>>,
    /// The primitive data.
    pub prim: Vec<u32>,
    /// triangles in, near-clipped, guard-band rejects, culled, triangles out.
    pub counters: [u64; 5],
}

/// The model's geometry step for `f`, composed from the model's functions in `run_pass`'s
/// order (a transcription of `sim/models/tile/frame/mod.rs`, checked against `run_pass` by
/// the scene tests).
pub fn model_geometry(f: &FeFrame) -> Golden {
    let (tx, ty) = f.tiles();
    let mut c = [0u64; 5];
    let mut tris = Vec::new();
    let mut prim = Vec::new();
    for (mi, m) in f.meshes.iter().enumerate() {
        for t in m.indices.chunks_exact(3) {
            if t.iter().any(|&i| i as usize >= m.verts.len()) {
                continue; // the model stops; the RTL drops it uncounted (tested apart)
            }
            c[0] += 1;
            let clipped = clip_near(std::array::from_fn(|k| m.verts[t[k] as usize].clone()));
            if clipped.is_empty() {
                c[1] += 1;
            }
            for cl in clipped {
                let v = cl.clone().map(|cv| {
                    let [x, y, z, w] = cv.pos;
                    let (nx, ny, nz) = (x / w, y / w, z / w);
                    Vertex::from_f32(
                        (nx + 1.0) * 0.5 * f.size.0 as f32,
                        (ny + 1.0) * 0.5 * f.size.1 as f32,
                        nz,
                        w,
                    )
                });
                match setup(&v, (0, 0), &m.state, 0) {
                    Err(Reject::Culled) => {
                        c[3] += 1;
                        continue;
                    }
                    Err(Reject::OutOfRange) => {
                        c[2] += 1;
                        continue;
                    }
                    Err(Reject::Degenerate) => continue,
                    _ => {}
                }
                for (cv, sv) in cl.iter().zip(&v) {
                    prim.push(sv.rw.to_bits());
                    prim.extend(&cv.vary);
                }
                tris.push((mi, v));
            }
        }
    }
    c[4] = tris.len() as u64;
    let mask = (1u32 << f.clears.len()) - 1;
    let mut lists: Vec<Vec<u64>> = (0..tx * ty)
        .map(|t| {
            Command::TileBegin {
                x: t % tx,
                y: t / tx,
                clear_mask: mask,
                clears: f.clears.clone(),
            }
            .encode()
            .expect("TILE_BEGIN")
        })
        .collect();
    let resolve_at = |after: usize, lists: &mut Vec<Vec<u64>>| {
        for (ri, r) in f.resolves.iter().enumerate() {
            if r.after != after {
                continue;
            }
            let [rx, ry, rw, rh] = r.rect;
            for y in 0..ty {
                for x in 0..tx {
                    let (x0, y0) = (x * 16, y * 16);
                    if rw > 0
                        && rh > 0
                        && x0 < rx + rw
                        && rx < x0 + 16
                        && y0 < ry + rh
                        && ry < y0 + 16
                    {
                        lists[(y * tx + x) as usize].extend(
                            Command::Resolve {
                                program: ri as u32,
                                xthreads: r.threads.0,
                                ythreads: r.threads.1,
                            }
                            .encode()
                            .expect("RESOLVE"),
                        );
                    }
                }
            }
        }
    };
    resolve_at(0, &mut lists);
    let mut done = 0;
    for (pi, (mi, v)) in tris.iter().enumerate() {
        while done < *mi {
            done += 1;
            resolve_at(done, &mut lists);
        }
        for (tile, words) in
            bin_triangle(v, &f.meshes[*mi].state, *mi as u32, pi as u32, (tx, ty)).expect("DRAW")
        {
            lists[tile].extend(words);
        }
    }
    while done < f.meshes.len() {
        done += 1;
        resolve_at(done, &mut lists);
    }
    for l in &mut lists {
        l.push(Command::EndTile.encode().expect("END_TILE")[0]);
    }
    Golden {
        lists,
        prim,
        counters: c,
    }
}

/// The `mesh` items and `resolve` records of `f` with its buffers laid out from `at`.
fn inputs(f: &FeFrame) -> (Vec<FetchItem>, Vec<Vec<u64>>) {
    let (tx, ty) = f.tiles();
    let mut items = vec![FetchItem::Marker(KIND_BEGIN)];
    let mut resolves = Vec::new();
    let mut at = 0x1000u64;
    let resolve_at = |after: usize, items: &mut Vec<FetchItem>, resolves: &mut Vec<Vec<u64>>| {
        for (ri, r) in f.resolves.iter().enumerate() {
            let [x, y, w, h] = r.rect;
            // Clipped to the tiles (what the model's loop over tiles sees); empty: nothing.
            let (x1, y1) = ((x + w).min(16 * tx), (y + h).min(16 * ty));
            if r.after != after || w == 0 || h == 0 || x >= x1 || y >= y1 {
                continue;
            }
            items.push(FetchItem::Marker(KIND_RESOLVE));
            let d = ResolveDesc {
                x: u64::from(x),
                y: u64::from(y),
                w: u64::from(x1 - x),
                h: u64::from(y1 - y),
                program: ri as u64,
                xthreads: u64::from(r.threads.0),
                ythreads: u64::from(r.threads.1),
            };
            resolves.push(flatten(&d, &ResolveDesc::SHAPE));
        }
    };
    resolve_at(0, &mut items, &mut resolves);
    for (mi, m) in f.meshes.iter().enumerate() {
        let index_base = at;
        at = (at + 4 * m.indices.len() as u64 + 15) & !15;
        let ptv_base = at;
        at += (16 + 16 * u64::from(f.slots)) * m.verts.len() as u64;
        items.push(FetchItem::Mesh(FetchMesh {
            state: [
                mi as u64,
                match m.state.cull {
                    CullMode::None => 0,
                    CullMode::Front => 1,
                    CullMode::Back => 2,
                },
                u64::from(m.state.front_face == FrontFace::Clockwise),
                m.state.depth_op as u64,
                u64::from(m.state.depth_write),
            ],
            verts: m
                .verts
                .iter()
                .map(|v| {
                    v.pos
                        .iter()
                        .map(|p| p.to_bits())
                        .chain(v.vary.iter().copied())
                        .collect()
                })
                .collect(),
            indices: m.indices.clone(),
            index_base,
            ptv_base,
        }));
        resolve_at(mi + 1, &mut items, &mut resolves);
    }
    items.push(FetchItem::Marker(KIND_END));
    (items, resolves)
}

/// What a run measured.
pub struct FeRun {
    /// Cycles from reset to the last list and write.
    pub cycles: u64,
    /// Triangles kept.
    pub triangles: u64,
}

const LISTS_BASE: u64 = 0x1000;
const PRIM_BASE: u64 = 0x2004;

/// The configuration for `f`: its slots and planes, bins that hold its longest list.
pub fn cfg_for(f: &FeFrame, g: &Golden) -> FrontCfg {
    let longest = g.lists.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let (tx, ty) = f.tiles();
    FrontCfg {
        fetch: FetchCfg {
            slots: f.slots,
            outstanding: 8,
        },
        geom: GeomCfg {
            planes: f.clears.len() as u32,
            bin_words: longest.next_power_of_two().max(32),
            max_tiles: (tx * ty).next_power_of_two(),
            div_steps: 4,
        },
    }
}

/// Runs `f` through `tile_frontend` and checks lists, primitive data, counters (and, with
/// `bad`, the error outputs) against `model_geometry`.
pub fn run(
    f: &FeFrame,
    seed: u64,
    (gap, stall, latency): (f64, f64, u64),
    cosim: bool,
    bad: Option<[u64; 3]>,
) -> FeRun {
    let g = model_geometry(f);
    let cfg = cfg_for(f, &g);
    let design = tile_frontend_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_frontend", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, &cfg, f, &g, seed, (gap, stall, latency), bad);
    let run = tb.check(&mut sim, r);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    run
}

#[allow(clippy::too_many_arguments)]
fn drive(
    sim: &mut Simulator,
    cfg: &FrontCfg,
    f: &FeFrame,
    g: &Golden,
    seed: u64,
    (gap, stall, latency): (f64, f64, u64),
    bad: Option<[u64; 3]>,
) -> Result<FeRun, TbError> {
    let mut rng = Rng::new(seed);
    let (tx, ty) = f.tiles();
    let ntiles = u64::from(tx * ty);
    let bin_bytes = 8 * u64::from(cfg.geom.bin_words);
    let (items, resolves) = inputs(f);
    let fetch_size = items
        .iter()
        .map(|i| match i {
            FetchItem::Mesh(m) => {
                m.ptv_base + (16 + 16 * u64::from(f.slots)) * m.verts.len() as u64
            }
            FetchItem::Marker(_) => 0,
        })
        .max()
        .unwrap_or(0)
        + 4096;
    let mcfg = |size: u64, rng: &mut Rng| MemCfg {
        size: size as usize,
        min_latency: 1,
        max_latency: latency,
        stall,
        gap,
        max_outstanding: 16,
        seed: rng.next_u64(),
        ..MemCfg::default()
    };
    let mut fetch_mem = MemoryAgent::new(sim, "fetch_mem", mcfg(fetch_size, &mut rng))?;
    load_buffers(&mut fetch_mem, &items);
    let mut lists_mem = MemoryAgent::new(
        sim,
        "lists_mem",
        mcfg(LISTS_BASE + ntiles * bin_bytes, &mut rng),
    )?;
    lists_mem.region("below", 0, LISTS_BASE);
    let prim_bytes = 4 * g.prim.len() as u64;
    let mut prim_mem =
        MemoryAgent::new(sim, "prim_mem", mcfg(PRIM_BASE + prim_bytes + 64, &mut rng))?;
    prim_mem.region("below", 0, PRIM_BASE);
    prim_mem.region("above", PRIM_BASE + prim_bytes, 60);
    for (name, v) in [
        ("cfg_tiles_x", u64::from(tx)),
        ("cfg_tiles_y", u64::from(ty)),
        ("cfg_base", LISTS_BASE),
        ("cfg_width", u64::from(f.size.0)),
        ("cfg_height", u64::from(f.size.1)),
        ("cfg_prim_base", PRIM_BASE),
    ] {
        let p = sim.input(name)?;
        sim.poke(p, v);
    }
    for (p, v) in f.clears.iter().enumerate() {
        let port = sim.input(&format!("cfg_clear_{p}"))?;
        sim.poke(port, *v);
    }
    let mut mesh_src = StreamSource::new(sim, "mesh", rng.next_u64())?.gap_prob(gap);
    let mut res_src = StreamSource::new(sim, "resolve", rng.next_u64())?.gap_prob(gap);
    let mut sink = StreamSink::new(sim, "list", rng.next_u64())?.stall_prob(stall);
    for i in &items {
        mesh_src.send(&mesh_record(i))?;
    }
    for r in &resolves {
        res_src.send(r)?;
    }
    let mut board = InOrder::new();
    for (t, l) in g.lists.iter().enumerate() {
        board.expect(vec![LISTS_BASE + t as u64 * bin_bytes, l.len() as u64]);
    }
    let outs: Vec<_> = [
        "triangles_in",
        "near_clipped",
        "guard_band_rejects",
        "culled",
        "triangles_out",
        "prim_outstanding",
        "overflow",
        "error",
        "error_state",
        "error_tri",
        "error_index",
    ]
    .iter()
    .map(|n| sim.output(n))
    .collect::<Result<_, _>>()?;
    sim.reset(1);
    let begin = sim.cycle();
    let draws: u64 = g.lists.iter().map(|l| l.len() as u64).sum();
    let budget = 300 * (g.counters[0] + g.counters[4]) + 40 * draws + 100 * ntiles * latency + 5000;
    let dog = Watchdog::new(budget, seed);
    dog.run_until(sim, "every list and write", |sim| {
        mesh_src.drive(sim);
        res_src.drive(sim);
        sink.drive(sim);
        fetch_mem.drive(sim);
        lists_mem.drive(sim);
        prim_mem.drive(sim);
        mesh_src.sample(sim);
        res_src.sample(sim);
        sink.sample(sim);
        fetch_mem.sample(sim);
        lists_mem.sample(sim);
        prim_mem.sample(sim);
        sink.protocol_result()?;
        for item in sink.take_items() {
            board.observe(item.iter().map(|b| b.to_u64()).collect())?;
        }
        if sim.peek(outs[6]) != 0 {
            return Err(TbError::new("overflow: a list did not fit its bin"));
        }
        Ok(board.outstanding() == 0
            && prim_mem.outstanding() == 0
            && sim.peek(outs[5]) == 0
            && res_src.is_idle())
    })?;
    board.check_complete()?;
    for m in [&fetch_mem, &lists_mem, &prim_mem] {
        m.check()?;
    }
    lists_mem.assert_not_written("below")?;
    prim_mem.assert_not_written("below")?;
    prim_mem.assert_not_written("above")?;
    if fetch_mem.transactions().0 != 0 {
        return Err(TbError::new("the fetch port wrote"));
    }
    let counters: Vec<u64> = outs[..5].iter().map(|&p| sim.peek(p)).collect();
    if counters != g.counters {
        return Err(TbError::new(format!(
            "counters (in, near-clipped, guard band, culled, out) {counters:?}, the model's {:?}",
            g.counters
        )));
    }
    let error: Vec<u64> = outs[7..].iter().map(|&p| sim.peek(p)).collect();
    let want_error = match bad {
        Some([s, t, i]) => vec![1, s, t, i],
        None => vec![0, 0, 0, 0],
    };
    if error != want_error {
        return Err(TbError::new(format!(
            "error outputs {error:?}, expected {want_error:?}"
        )));
    }
    for (t, l) in g.lists.iter().enumerate() {
        let want: Vec<u8> = l.iter().flat_map(|w| w.to_le_bytes()).collect();
        let got = lists_mem.bytes(LISTS_BASE + t as u64 * bin_bytes, want.len());
        if got != want.as_slice() {
            let word = (0..l.len())
                .find(|&k| got[8 * k..8 * k + 8] != want[8 * k..8 * k + 8])
                .unwrap_or(0);
            let gw = u64::from_le_bytes(got[8 * word..8 * word + 8].try_into().expect("8"));
            return Err(TbError::new(format!(
                "tile {t}: list word {word} is 0x{gw:016x}, the model's 0x{:016x} ({} words)",
                l[word],
                l.len()
            )));
        }
    }
    let want: Vec<u8> = g.prim.iter().flat_map(|w| w.to_le_bytes()).collect();
    let got = prim_mem.bytes(PRIM_BASE, want.len());
    if got != want.as_slice() {
        let word = (0..g.prim.len())
            .find(|&k| got[4 * k..4 * k + 4] != want[4 * k..4 * k + 4])
            .unwrap_or(0);
        return Err(TbError::new(format!(
            "primitive data word {word} (triangle {}) is {:02x?}, the model's 0x{:08x}",
            word / (3 * (1 + 4 * f.slots as usize)),
            &got[4 * word..4 * word + 4],
            g.prim[word]
        )));
    }
    Ok(FeRun {
        cycles: sim.cycle() - begin,
        triangles: g.counters[4],
    })
}

/// The frame model's passes of `scene` in `mode`: each pass's geometry (the model's shaded
/// vertices, indices, states, RESOLVEs, clears) and what `run_pass` left (lists read back from
/// its `command lists` region, primitive data, counters).
fn scene_passes(scene: &str, mode: rendergen_gen::raster::Mode) -> Vec<(FeFrame, Golden)> {
    use rendergen_gen::raster::{render, RasterScene};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gen/raster/scenes")
        .join(scene);
    let sc = RasterScene::load(&path).unwrap_or_else(|e| panic!("{e:?}"));
    let frame = render(&sc, mode, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e:?}"));
    let region = |name: &str| -> Vec<u8> {
        frame
            .memory
            .regions()
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no region `{name}`"))
            .bytes()
            .to_vec()
    };
    let mut out = Vec::new();
    for (pass, (_, res)) in frame.descs.iter().zip(&frame.passes) {
        if pass.meshes.is_empty() {
            continue;
        }
        let (tx, ty) = (pass.width.div_ceil(16), pass.height.div_ceil(16));
        let words: Vec<u64> = region(&format!("{}: command lists", pass.name))
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
            .collect();
        let lists: Vec<Vec<u64>> = (0..(tx * ty) as usize)
            .map(|t| {
                let (at, len) = ((words[t] & 0xFFFF_FFFF) as usize, (words[t] >> 32) as usize);
                words[at..at + len].to_vec()
            })
            .collect();
        let mut prim: Vec<u32> = region(&format!("{}: primitive data", pass.name))
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4")))
            .collect();
        if res.triangles_out == 0 {
            prim.clear(); // the region is at least 4 bytes
        }
        let planes = Command::size(lists[0][0]).expect("TILE_BEGIN") - 1;
        let slots = res
            .clip_vertices
            .iter()
            .flatten()
            .map(|v| v.vary.len() / 4)
            .next()
            .unwrap_or(0) as u32;
        let f = FeFrame {
            size: (pass.width, pass.height),
            slots,
            clears: lists[0][1..=planes].to_vec(),
            meshes: pass
                .meshes
                .iter()
                .zip(&res.clip_vertices)
                .map(|(m, v)| FeMesh {
                    state: m.state,
                    verts: v.clone(),
                    indices: m.indices.clone(),
                })
                .collect(),
            resolves: pass
                .resolves
                .iter()
                .map(|r| FeResolve {
                    after: r.after,
                    threads: r.threads,
                    rect: r.rect.unwrap_or([0, 0, pass.width, pass.height]),
                })
                .collect(),
        };
        let g = Golden {
            lists,
            prim,
            counters: [
                res.triangles_in,
                res.near_clipped,
                res.guard_band_rejects,
                res.culled,
                res.triangles_out,
            ],
        };
        out.push((f, g));
    }
    out
}

fn scene_test(scene: &str, mode: rendergen_gen::raster::Mode, seed: u64) {
    let passes = scene_passes(scene, mode);
    assert!(!passes.is_empty());
    for (k, (f, g)) in passes.iter().enumerate() {
        // The testbench's golden composition is the frame model's geometry step.
        let mine = model_geometry(f);
        assert_eq!(mine.counters, g.counters, "{scene} pass {k}: counters");
        assert!(
            mine.prim == g.prim,
            "{scene} pass {k}: primitive data differs"
        );
        assert!(mine.lists == g.lists, "{scene} pass {k}: lists differ");
        let r = run(f, seed + k as u64, (0.2, 0.2, 10), false, None);
        eprintln!(
            "{scene} {mode:?} pass {k}: {} triangles in, {} kept, {} resolves, {} cycles ({:.4} triangles/clock)",
            g.counters[0],
            r.triangles,
            f.resolves.len(),
            r.cycles,
            g.counters[0] as f64 / r.cycles as f64
        );
    }
}

#[test]
fn lit_model_forward_equals_the_frame_model() {
    scene_test("lit_model.json", rendergen_gen::raster::Mode::Forward, 0xF0);
}

#[test]
fn lit_model_tile_shader_equals_the_frame_model() {
    scene_test(
        "lit_model.json",
        rendergen_gen::raster::Mode::TileShader,
        0xF1,
    );
}

#[test]
fn many_lights_tile_shader_equals_the_frame_model() {
    scene_test(
        "many_lights.json",
        rendergen_gen::raster::Mode::TileShader,
        0xF2,
    );
}

#[test]
#[ignore]
fn many_lights_forward_equals_the_frame_model() {
    scene_test(
        "many_lights.json",
        rendergen_gen::raster::Mode::Forward,
        0xF3,
    );
}

fn float_in(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * (rng.below(1 << 20) as f32 / (1 << 20) as f32)
}

/// A random clip-space vertex: mostly in front, some behind the near plane, a few far outside
/// the guard band; varyings random floats.
fn random_vertex(rng: &mut Rng, slots: u32) -> ClipVertex {
    let w = float_in(rng, 0.5, 4.0);
    let spread = if rng.below(20) == 0 { 400.0 } else { 1.5 };
    let x = float_in(rng, -spread, spread) * w;
    let y = float_in(rng, -spread, spread) * w;
    let z = if rng.below(4) == 0 {
        float_in(rng, -2.0, -0.01) * w
    } else {
        float_in(rng, 0.0, 1.0) * w
    };
    ClipVertex {
        pos: [x, y, z, w],
        vary: (0..4 * slots)
            .map(|_| float_in(rng, -8.0, 8.0).to_bits())
            .collect(),
    }
}

/// Random meshes (random cull state, shared and repeated indices, degenerate triangles) and
/// RESOLVEs before, between and after them (whole screen, rectangles, some partly off the
/// tiles, some empty).
pub fn random_frame(rng: &mut Rng, size: (u32, u32), slots: u32, meshes: usize) -> FeFrame {
    let mut ms = Vec::new();
    for _ in 0..meshes {
        let count = 3 + rng.below(20) as usize;
        let mut verts: Vec<ClipVertex> = (0..count).map(|_| random_vertex(rng, slots)).collect();
        // Vertices 0..3 behind the near plane, and a triangle of them (wholly clipped).
        for v in &mut verts[..3] {
            v.pos[2] = -v.pos[2].abs() - 0.01 * v.pos[3];
        }
        let tris = 1 + rng.below(20) as usize;
        let mut indices = vec![0, 1, 2];
        for _ in 0..tris {
            let mut t: [u32; 3] = std::array::from_fn(|_| rng.below(count as u64) as u32);
            if rng.below(10) == 0 {
                t[1] = t[0]; // degenerate
            }
            indices.extend(t);
        }
        ms.push(FeMesh {
            state: RasterState {
                cull: [CullMode::None, CullMode::Front, CullMode::Back][rng.below(3) as usize],
                front_face: [FrontFace::CounterClockwise, FrontFace::Clockwise]
                    [rng.below(2) as usize],
                depth_op: CompareOp::ALL[rng.below(8) as usize],
                depth_write: rng.below(2) == 1,
            },
            verts,
            indices,
        });
    }
    let resolves = (0..rng.below(4))
        .map(|_| {
            let rect = match rng.below(4) {
                0 => [0, 0, size.0, size.1],
                1 => [0, 0, 0, 5],
                _ => {
                    let x = rng.below(u64::from(size.0) + 8) as u32;
                    let y = rng.below(u64::from(size.1) + 8) as u32;
                    [x, y, 1 + rng.below(40) as u32, 1 + rng.below(40) as u32]
                }
            };
            FeResolve {
                after: rng.below(meshes as u64 + 1) as usize,
                threads: (1 + rng.below(16) as u32, 1 + rng.below(16) as u32),
                rect,
            }
        })
        .collect();
    FeFrame {
        size,
        slots,
        clears: (0..3).map(|_| rng.next_u64()).collect(),
        meshes: ms,
        resolves,
    }
}

#[test]
fn random_meshes_equal_the_model() {
    let mut rng = Rng::new(0xFE0);
    let f = random_frame(&mut rng, (70, 50), 2, 5);
    let g = model_geometry(&f);
    assert!(g.counters[1] > 0 && g.counters[3] > 0, "{:?}", g.counters);
    run(&f, 0xFE01, (0.3, 0.3, 16), false, None);
    let f = random_frame(&mut rng, (40, 33), 1, 4);
    run(&f, 0xFE02, (0.1, 0.5, 4), false, None);
}

#[test]
fn index_out_of_range_sets_the_error() {
    let mut rng = Rng::new(0xFE1);
    let mut f = random_frame(&mut rng, (48, 32), 1, 3);
    let n = f.meshes[1].verts.len() as u32;
    f.meshes[1].indices[4] = n + 7;
    run(
        &f,
        0xFE11,
        (0.2, 0.2, 8),
        false,
        Some([1, 1, u64::from(n + 7)]),
    );
}

#[test]
fn cosim_and_lint() {
    let mut rng = Rng::new(0xFE2);
    // No varyings: the smallest clipper (the co-simulators compile every FMA datapath).
    let f = random_frame(&mut rng, (32, 32), 0, 2);
    run(&f, 0xFE21, (0.2, 0.2, 6), true, None);
    let g = model_geometry(&f);
    assert_lint_clean(&tile_frontend_top(&cfg_for(&f, &g)).unwrap_or_else(|e| panic!("{e}")));
}

/// Area of the default configuration, per module (what `rendergen synth tile_frontend
/// --per-module` prints); slow (Yosys on the clipper's FMA datapaths), so ignored.
#[test]
#[ignore]
fn measure_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = tile_frontend_top(&FrontCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}
