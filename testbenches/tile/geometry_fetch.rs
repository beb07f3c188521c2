//! `geom_fetch` (index fetch and primitive assembly) against a direct reading of the buffers:
//! meshes of random clip-space vertices in the post-transform layout (`16 + 16·S` bytes per
//! vertex) and random index buffers (shared vertices, odd and even word offsets, buffers across
//! 4 KiB boundaries, empty meshes), frame markers between them; every triangle leaves as the
//! three vertices its indices name, in order, nothing lost or duplicated (scoreboard), under
//! random memory latency, stalls and answer gaps and output back-pressure; an index out of range
//! sets the sticky error naming mesh, triangle and index and the frame still completes;
//! co-simulation; lint; bad parameters.
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_rtl::tile::geometry::clip::{ClipTri, ClipVert, TriInfo};
use rendergen_rtl::tile::geometry::fetch::{geom_fetch_top, FetchCfg, MeshDesc};
use rendergen_rtl::tile::geometry::{KIND_BEGIN, KIND_END};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

/// A mesh in memory: its post-transform vertices (`4 + 4·S` words each) and its indices.
#[derive(Clone, Debug)]
pub struct FetchMesh {
    /// Draw state, cull, front_cw, depth op, depth write.
    pub state: [u64; 5],
    /// Each vertex's words: x, y, z, w, then the varying words.
    pub verts: Vec<Vec<u32>>,
    /// The index buffer (a multiple of 3 long).
    pub indices: Vec<u32>,
    /// Byte address of the index buffer (a multiple of 4).
    pub index_base: u64,
    /// Byte address of vertex 0 (a multiple of 16).
    pub ptv_base: u64,
}

/// What goes on the `mesh` stream: a mesh, or a frame marker.
#[derive(Clone, Debug)]
pub enum FetchItem {
    /// A mesh.
    Mesh(FetchMesh),
    /// A marker of this kind.
    Marker(u64),
}

/// The `mesh` record of `item`.
pub fn mesh_record(item: &FetchItem) -> Vec<u64> {
    let r = match item {
        FetchItem::Mesh(m) => MeshDesc {
            kind: 0,
            index_base: m.index_base,
            triangles: (m.indices.len() / 3) as u64,
            ptv_base: m.ptv_base,
            vertices: m.verts.len() as u64,
            state: m.state[0],
            cull: m.state[1],
            front_cw: m.state[2],
            depth_op: m.state[3],
            depth_write: m.state[4],
        },
        FetchItem::Marker(k) => MeshDesc {
            kind: *k,
            index_base: 0,
            triangles: 0,
            ptv_base: 0,
            vertices: 0,
            state: 0,
            cull: 0,
            front_cw: 0,
            depth_op: 0,
            depth_write: 0,
        },
    };
    flatten(&r, &MeshDesc::SHAPE)
}

/// The first index out of range: (mesh state, triangle, index).
pub type FetchError = (u64, u64, u64);

/// The golden output: per item, its triangles as `tri` records (the vertices the indices
/// name, read straight from the vertex arrays), markers as they are; triangles with an index
/// out of range are left out and the first is returned.
pub fn expected(items: &[FetchItem], slots: u32) -> (Vec<Vec<u64>>, Option<FetchError>) {
    let shape = ClipTri::shape(
        &FetchCfg {
            slots,
            outstanding: 8,
        }
        .clip(),
    );
    let words = 4 + 4 * slots as usize;
    let mut out = Vec::new();
    let mut error = None;
    let zero = ClipVert {
        pos: [0; 4],
        vary: vec![0; words - 4],
    };
    for item in items {
        match item {
            FetchItem::Marker(k) => {
                let r = ClipTri {
                    info: TriInfo {
                        kind: *k,
                        prim: 0,
                        state: 0,
                        cull: 0,
                        front_cw: 0,
                        depth_op: 0,
                        depth_write: 0,
                    },
                    v: [zero.clone(), zero.clone(), zero.clone()],
                };
                out.push(flatten(&r, &shape));
            }
            FetchItem::Mesh(m) => {
                for (t, idx) in m.indices.chunks_exact(3).enumerate() {
                    if let Some(&bad) = idx.iter().find(|&&i| i as usize >= m.verts.len()) {
                        error.get_or_insert((m.state[0], t as u64, u64::from(bad)));
                        continue;
                    }
                    let vert = |i: u32| {
                        let w = &m.verts[i as usize];
                        ClipVert {
                            pos: std::array::from_fn(|c| u64::from(w[c])),
                            vary: w[4..].iter().map(|&x| u64::from(x)).collect(),
                        }
                    };
                    let r = ClipTri {
                        info: TriInfo {
                            kind: 0,
                            prim: t as u64,
                            state: m.state[0],
                            cull: m.state[1],
                            front_cw: m.state[2],
                            depth_op: m.state[3],
                            depth_write: m.state[4],
                        },
                        v: [vert(idx[0]), vert(idx[1]), vert(idx[2])],
                    };
                    out.push(flatten(&r, &shape));
                }
            }
        }
    }
    (out, error)
}

/// Random meshes between a frame's markers: vertex words random (positions as floats), index
/// buffers at odd and even word offsets, some empty meshes, some across 4 KiB; with `bad`, one
/// index of a few triangles is at or beyond the vertex count.
pub fn random_items(rng: &mut Rng, slots: u32, meshes: usize, bad: bool) -> Vec<FetchItem> {
    let words = 4 + 4 * slots as usize;
    let mut items = vec![FetchItem::Marker(KIND_BEGIN)];
    let mut at = 0x0F00u64; // the first buffers cross 4 KiB
    for k in 0..meshes {
        let count = 1 + rng.below(40) as usize;
        let tris = if rng.below(6) == 0 {
            0
        } else {
            1 + rng.below(30) as usize
        };
        let verts: Vec<Vec<u32>> = (0..count)
            .map(|_| {
                (0..words)
                    .map(|c| match c {
                        0..4 => (rng.below(2000) as f32 / 100.0 - 10.0).to_bits(),
                        _ => rng.next_u64() as u32,
                    })
                    .collect()
            })
            .collect();
        let mut indices: Vec<u32> = (0..3 * tris)
            .map(|_| rng.below(count as u64) as u32)
            .collect();
        if bad && tris > 0 && rng.below(2) == 0 {
            let i = rng.below(indices.len() as u64) as usize;
            indices[i] = count as u32 + [0, 1, u32::MAX - count as u32][rng.below(3) as usize];
        }
        let index_base = at + 4 * rng.below(2);
        at = (index_base + 4 * indices.len() as u64 + 15) & !15;
        let ptv_base = at + 16 * rng.below(4);
        at = ptv_base + (16 + 16 * u64::from(slots)) * count as u64 + 16 * rng.below(3);
        items.push(FetchItem::Mesh(FetchMesh {
            state: [
                k as u64 & 0xFF,
                rng.below(3),
                rng.below(2),
                rng.below(8),
                rng.below(2),
            ],
            verts,
            indices,
            index_base,
            ptv_base,
        }));
        if rng.below(5) == 0 {
            items.push(FetchItem::Marker(3));
        }
    }
    items.push(FetchItem::Marker(KIND_END));
    items
}

/// Memory size for `items` (their buffers, rounded up).
fn memory_size(items: &[FetchItem], slots: u32) -> u64 {
    let stride = 16 + 16 * u64::from(slots);
    let end = items
        .iter()
        .filter_map(|i| match i {
            FetchItem::Mesh(m) => Some(
                (m.index_base + 4 * m.indices.len() as u64 + 16)
                    .max(m.ptv_base + stride * m.verts.len() as u64),
            ),
            FetchItem::Marker(_) => None,
        })
        .max()
        .unwrap_or(0);
    (end + 4096) & !4095
}

/// Writes the buffers of `items` into `mem`.
pub fn load_buffers(mem: &mut MemoryAgent, items: &[FetchItem]) {
    for i in items {
        if let FetchItem::Mesh(m) = i {
            let idx: Vec<u8> = m.indices.iter().flat_map(|w| w.to_le_bytes()).collect();
            mem.load(m.index_base, &idx);
            let v: Vec<u8> = m
                .verts
                .iter()
                .flatten()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            mem.load(m.ptv_base, &v);
        }
    }
}

/// What a run measured.
pub struct FetchRun {
    /// Cycles from reset to the last output.
    pub cycles: u64,
    /// Triangles out.
    pub triangles: usize,
}

/// Runs `items` through `geom_fetch` with random memory timing (`gap` and `stall` also on the
/// ports); with `cosim`, replays the start in iverilog and Verilator.
pub fn run(
    cfg: &FetchCfg,
    items: &[FetchItem],
    seed: u64,
    (gap, stall, latency): (f64, f64, u64),
    cosim: bool,
) -> FetchRun {
    let design = geom_fetch_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "geom_fetch", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, cfg, items, seed, (gap, stall, latency));
    let run = tb.check(&mut sim, r);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    run
}

fn drive(
    sim: &mut Simulator,
    cfg: &FetchCfg,
    items: &[FetchItem],
    seed: u64,
    (gap, stall, latency): (f64, f64, u64),
) -> Result<FetchRun, TbError> {
    let mut rng = Rng::new(seed);
    let (want, error) = expected(items, cfg.slots);
    let mut mem = MemoryAgent::new(
        sim,
        "mem",
        MemCfg {
            size: memory_size(items, cfg.slots) as usize,
            min_latency: 1,
            max_latency: latency,
            stall,
            gap,
            max_outstanding: 16,
            seed: rng.next_u64(),
            ..MemCfg::default()
        },
    )?;
    mem.region("all", 0, memory_size(items, cfg.slots));
    load_buffers(&mut mem, items);
    let error_ports = [
        sim.output("error")?,
        sim.output("error_state")?,
        sim.output("error_tri")?,
        sim.output("error_index")?,
    ];
    let mut src = StreamSource::new(sim, "mesh", rng.next_u64())?.gap_prob(gap);
    let mut sink = StreamSink::new(sim, "tri", rng.next_u64())?.stall_prob(stall);
    let mut board = InOrder::new();
    for i in items {
        src.send(&mesh_record(i))?;
    }
    for r in &want {
        board.expect(r.clone());
    }
    sim.reset(1);
    let begin = sim.cycle();
    let reads: u64 = items
        .iter()
        .map(|i| match i {
            FetchItem::Mesh(m) => m.indices.len() as u64 / 3 * (2 + 3 * (1 + u64::from(cfg.slots))),
            FetchItem::Marker(_) => 1,
        })
        .sum();
    let dog = Watchdog::new(4 * (latency + 4) * reads + 2000, seed);
    dog.run_until(sim, "every triangle", |sim| {
        super::mem_unit_cycle(sim, &mut src, &mut sink, &mut mem, &mut board)?;
        Ok(board.outstanding() == 0 && src.is_idle() && mem.outstanding() == 0)
    })?;
    board.check_complete()?;
    mem.check()?;
    let got: Vec<u64> = error_ports.iter().map(|&p| sim.peek(p)).collect();
    match error {
        None if got[0] != 0 => {
            return Err(TbError::new(format!(
                "error set without a bad index: {got:?}"
            )))
        }
        Some((state, tri, index)) if got != [1, state, tri, index] => {
            return Err(TbError::new(format!(
                "error outputs {got:?}, expected [1, {state}, {tri}, {index}]"
            )))
        }
        _ => {}
    }
    if mem.transactions().0 != 0 {
        return Err(TbError::new("geom_fetch wrote to memory"));
    }
    Ok(FetchRun {
        cycles: sim.cycle() - begin,
        triangles: want.len(),
    })
}

#[test]
fn triangles_equal_the_buffers() {
    let mut rng = Rng::new(0xFE7);
    let cfg = FetchCfg::default();
    let items = random_items(&mut rng, cfg.slots, 12, false);
    let r = run(&cfg, &items, 0xFE71, (0.3, 0.3, 20), false);
    assert!(r.triangles > 60, "{} triangles", r.triangles);
}

#[test]
fn triangles_equal_the_buffers_no_varyings_long_latency() {
    let mut rng = Rng::new(0xFE8);
    let cfg = FetchCfg {
        slots: 0,
        outstanding: 2,
    };
    let items = random_items(&mut rng, cfg.slots, 6, false);
    run(&cfg, &items, 0xFE81, (0.5, 0.5, 40), false);
    let cfg = FetchCfg {
        slots: 3,
        outstanding: 16,
    };
    let items = random_items(&mut rng, cfg.slots, 6, false);
    run(&cfg, &items, 0xFE82, (0.1, 0.1, 8), false);
}

#[test]
fn index_out_of_range_sets_the_error_and_the_frame_completes() {
    let mut rng = Rng::new(0xFE9);
    let cfg = FetchCfg::default();
    let items = random_items(&mut rng, cfg.slots, 10, true);
    assert!(
        expected(&items, cfg.slots).1.is_some(),
        "no bad index drawn"
    );
    run(&cfg, &items, 0xFE91, (0.3, 0.3, 12), false);
}

/// Without gaps or stalls and a short latency the answers' data beats set the pace, one per
/// clock: a triangle every `2 + 6·(1 + S)` clocks (20 for `S = 2`; its 11 reads fit in that).
#[test]
fn one_data_beat_per_clock() {
    let mut rng = Rng::new(0xFEA);
    let cfg = FetchCfg::default();
    let mut items = random_items(&mut rng, cfg.slots, 1, false);
    if let FetchItem::Mesh(m) = &mut items[1] {
        m.indices = (0..3 * 100)
            .map(|_| rng.below(m.verts.len() as u64) as u32)
            .collect();
        m.ptv_base = (m.index_base + 4 * m.indices.len() as u64 + 15) & !15;
    }
    let r = run(&cfg, &items, 0xFEA1, (0.0, 0.0, 1), false);
    let per = r.cycles as f64 / r.triangles as f64;
    eprintln!(
        "geom_fetch: {} triangles in {} cycles ({per:.2} clocks per triangle)",
        r.triangles, r.cycles
    );
    let beats = 2.0 + 6.0 * f64::from(1 + cfg.slots);
    assert!(
        per < beats + 0.5,
        "{per:.2} clocks per triangle ({beats} data beats each)"
    );
}

#[test]
fn cosim_and_lint() {
    let mut rng = Rng::new(0xFEB);
    let cfg = FetchCfg {
        slots: 1,
        outstanding: 4,
    };
    let items = random_items(&mut rng, cfg.slots, 3, true);
    run(&cfg, &items, 0xFEB1, (0.2, 0.2, 6), true);
    assert_lint_clean(&geom_fetch_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

#[test]
fn bad_parameters_are_elaboration_errors() {
    for (cfg, name) in [
        (
            FetchCfg {
                slots: 9,
                ..FetchCfg::default()
            },
            "`slots`",
        ),
        (
            FetchCfg {
                outstanding: 1,
                ..FetchCfg::default()
            },
            "`outstanding`",
        ),
    ] {
        let e = geom_fetch_top(&cfg).map(|_| ()).unwrap_err();
        assert!(e.only_params(), "{e}");
        assert!(e.to_string().contains(name), "{e}");
    }
}

/// Area of the default configuration, per module (what `rendergen synth geom_fetch
/// --per-module` prints).
#[test]
#[ignore]
fn measure_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = geom_fetch_top(&FetchCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}
