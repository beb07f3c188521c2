//! `geom_clip` (near-plane clipping, perspective divide, viewport, `Vertex::from_f32`) against
//! the frame model's own functions (`clip_near`, which calls `lerp_vertex`, then the model's
//! viewport expression and `Vertex::from_f32`): random clip-space triangles inside, crossing
//! and behind the near plane, degenerate ones, `w` near 0 and negative, `z` exactly ±0, NaN
//! coordinates, frame markers; every output triangle and its varyings equal the model's, in
//! order, nothing lost or duplicated (scoreboard), under random gaps and back-pressure;
//! co-simulation; lint; bad parameters.
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_rtl::fp::CANONICAL_NAN;
use rendergen_rtl::tile::geometry::clip::{
    geom_clip_top, ClipCfg, ClipOut, ClipTri, ClipVert, TriInfo, VERTEX_STAGES,
};
use rendergen_rtl::tile::geometry::{GeomPrim, KIND_BEGIN, KIND_END};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::frame::{clip_near, ClipVertex};
use rendergen_sim::models::tile::setup::Vertex;
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

/// An input triangle with its state (`kind` 0), or a frame marker.
#[derive(Clone, Debug)]
pub struct InTri {
    /// `KIND_*`.
    pub kind: u64,
    /// The clip-space vertices.
    pub v: [ClipVertex; 3],
    /// Primitive id, draw state, cull, front_cw, depth op, depth write.
    pub state: [u64; 6],
}

fn nan_canonical(w: u32) -> u32 {
    if f32::from_bits(w).is_nan() {
        CANONICAL_NAN
    } else {
        w
    }
}

fn saturate(v: i64) -> u64 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as u64
}

/// The model's output for one input: its clipped triangles through the frame model's viewport
/// expression and `Vertex::from_f32`, as `out` records (NaN words canonical).
pub fn model_out(t: &InTri, size: (u32, u32), varyings: usize) -> Vec<Vec<u64>> {
    let info = |kind: u64| TriInfo {
        kind,
        prim: t.state[0],
        state: t.state[1],
        cull: t.state[2],
        front_cw: t.state[3],
        depth_op: t.state[4],
        depth_write: t.state[5],
    };
    let shape = ClipOut {
        prim: GeomPrim::SHAPE,
        vary: [vec![32; varyings], vec![32; varyings], vec![32; varyings]],
    };
    let record = |info: TriInfo<u64>, v: [Vertex; 3], vary: [Vec<u64>; 3]| {
        let out = ClipOut {
            prim: GeomPrim {
                kind: info.kind,
                x: v.map(|v| saturate(v.x)),
                y: v.map(|v| saturate(v.y)),
                z: v.map(|v| u64::from(v.z)),
                rw: v.map(|v| u64::from(nan_canonical(v.rw.to_bits()))),
                prim: info.prim,
                state: info.state,
                cull: info.cull,
                front_cw: info.front_cw,
                depth_op: info.depth_op,
                depth_write: info.depth_write,
            },
            vary,
        };
        flatten(&out, &shape)
    };
    if t.kind != 0 {
        // A marker's vertex fields and varyings are zero.
        let zero = Vertex {
            x: 0,
            y: 0,
            z: 0,
            rw: 0.0,
        };
        let vary = std::array::from_fn(|_| vec![0; varyings]);
        return vec![record(info(t.kind), [zero; 3], vary)];
    }
    clip_near(t.v.clone())
        .into_iter()
        .map(|c| {
            // The frame model's viewport (sim/models/tile/frame/mod.rs, geometry step).
            let v = c.clone().map(|cv| {
                let [x, y, z, w] = cv.pos;
                let (nx, ny, nz) = (x / w, y / w, z / w);
                Vertex::from_f32(
                    (nx + 1.0) * 0.5 * size.0 as f32,
                    (ny + 1.0) * 0.5 * size.1 as f32,
                    nz,
                    w,
                )
            });
            let vary = c.clone().map(|cv| {
                cv.vary
                    .iter()
                    .map(|&w| u64::from(nan_canonical(w)))
                    .collect()
            });
            record(info(0), v, vary)
        })
        .collect()
}

/// The `tri` record of `t`.
fn in_record(t: &InTri, varyings: usize) -> Vec<u64> {
    let vert = |v: &ClipVertex| ClipVert {
        pos: v.pos.map(|p| u64::from(p.to_bits())),
        vary: v.vary.iter().map(|&w| u64::from(w)).collect(),
    };
    let r = ClipTri {
        info: TriInfo {
            kind: t.kind,
            prim: t.state[0],
            state: t.state[1],
            cull: t.state[2],
            front_cw: t.state[3],
            depth_op: t.state[4],
            depth_write: t.state[5],
        },
        v: [vert(&t.v[0]), vert(&t.v[1]), vert(&t.v[2])],
    };
    flatten(
        &r,
        &ClipTri::shape(&ClipCfg {
            varyings: varyings as u32,
        }),
    )
}

/// A random float of magnitude in `[2^lo, 2^hi)`, random sign.
fn float_in(rng: &mut Rng, lo: i32, hi: i32) -> f32 {
    let e = lo + rng.below((hi - lo) as u64) as i32;
    let m = 1.0 + rng.below(1 << 23) as f32 / (1 << 23) as f32;
    let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    s * m * 2f32.powi(e)
}

/// A random clip-space vertex: a screen position in about twice the screen scaled by `w`,
/// `w` usually positive in `[2^-4, 2^7)`, sometimes tiny or negative; `z` of either sign with
/// many near-plane crossings, sometimes exactly ±0; varyings in `[2^-8, 2^8)`.
fn vertex(rng: &mut Rng, varyings: usize) -> ClipVertex {
    let w = match rng.below(10) {
        0 => float_in(rng, -30, -10),
        1 => -float_in(rng, -4, 7).abs(),
        _ => float_in(rng, -4, 7).abs(),
    };
    let x = (rng.below(4001) as f32 / 1000.0 - 2.0) * w;
    let y = (rng.below(4001) as f32 / 1000.0 - 2.0) * w;
    let z = match rng.below(8) {
        0 => 0.0,
        1 => -0.0,
        2 => w.abs(),
        _ => float_in(rng, -6, 6) * w.abs().max(1.0),
    };
    ClipVertex {
        pos: [x, y, z, w],
        vary: (0..varyings)
            .map(|_| float_in(rng, -8, 8).to_bits())
            .collect(),
    }
}

/// `n` random inputs: fresh triangles, triangles sharing a vertex or with two equal vertices
/// (degenerate), collinear ones, a few NaN or ∞ coordinates; frame markers around them.
pub fn random_input(rng: &mut Rng, n: usize, varyings: usize) -> Vec<InTri> {
    let mut out = vec![InTri {
        kind: KIND_BEGIN,
        v: std::array::from_fn(|_| vertex(rng, varyings)),
        state: [0; 6],
    }];
    for p in 0..n {
        let mut v: [ClipVertex; 3] = std::array::from_fn(|_| vertex(rng, varyings));
        match rng.below(12) {
            0 => v[1] = v[0].clone(),
            1 => {
                // Collinear: the midpoint of 0 and 2.
                let mid = |a: f32, b: f32| (a + b) * 0.5;
                v[1].pos = std::array::from_fn(|i| mid(v[0].pos[i], v[2].pos[i]));
            }
            2 => v[rng.below(3) as usize].pos[rng.below(4) as usize] = f32::NAN,
            3 => v[rng.below(3) as usize].pos[rng.below(3) as usize] = f32::INFINITY,
            _ => {}
        }
        out.push(InTri {
            kind: 0,
            v,
            state: [
                p as u64 & 0xFF_FFFF,
                rng.below(256),
                rng.below(3),
                rng.below(2),
                rng.below(8),
                rng.below(2),
            ],
        });
    }
    out.push(InTri {
        kind: KIND_END,
        v: std::array::from_fn(|_| vertex(rng, varyings)),
        state: [0; 6],
    });
    out
}

/// What a run saw.
pub struct ClipRun {
    /// Cycles from reset to the last output.
    pub cycles: u64,
    /// Output records (triangles and markers).
    pub outputs: usize,
}

/// Runs `input` through `geom_clip` (`varyings` words) on a `size` screen with random gaps and
/// stalls; every output equals the model's, in order. With `cosim`, replays the start in
/// iverilog and Verilator.
pub fn run(
    varyings: usize,
    size: (u32, u32),
    input: &[InTri],
    seed: u64,
    (gap, stall): (f64, f64),
    cosim: bool,
) -> ClipRun {
    let cfg = ClipCfg {
        varyings: varyings as u32,
    };
    let design = geom_clip_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "geom_clip", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, varyings, size, input, seed, (gap, stall));
    let run = tb.check(&mut sim, r);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    run
}

fn drive(
    sim: &mut Simulator,
    varyings: usize,
    size: (u32, u32),
    input: &[InTri],
    seed: u64,
    (gap, stall): (f64, f64),
) -> Result<ClipRun, TbError> {
    let mut rng = Rng::new(seed);
    let (w, h) = (sim.input("width")?, sim.input("height")?);
    sim.poke(w, u64::from(size.0));
    sim.poke(h, u64::from(size.1));
    let mut src = StreamSource::new(sim, "tri", rng.next_u64())?.gap_prob(gap);
    let mut sink = StreamSink::new(sim, "out", rng.next_u64())?.stall_prob(stall);
    let mut board = InOrder::new();
    let mut outputs = 0;
    for t in input {
        src.send(&in_record(t, varyings))?;
        for r in model_out(t, size, varyings) {
            board.expect(r);
            outputs += 1;
        }
    }
    sim.reset(1);
    let begin = sim.cycle();
    let dog = Watchdog::new(
        20 * input.len() as u64 + 10 * u64::from(VERTEX_STAGES) + 500,
        seed,
    );
    dog.run_until(sim, "every output triangle", |sim| {
        src.drive(sim);
        sink.drive(sim);
        src.sample(sim);
        sink.sample(sim);
        sink.protocol_result()?;
        for item in sink.take_items() {
            board.observe(item.iter().map(|b| b.to_u64()).collect())?;
        }
        Ok(board.outstanding() == 0)
    })?;
    board.check_complete()?;
    Ok(ClipRun {
        cycles: sim.cycle() - begin,
        outputs,
    })
}

/// The model's clipper meets every case the random input is meant to hold.
#[test]
fn random_input_covers_the_cases() {
    let mut rng = Rng::new(0xC11);
    let input = random_input(&mut rng, 400, 2);
    let counts = input[1..input.len() - 1]
        .iter()
        .fold([0usize; 3], |mut c, t| {
            c[clip_near(t.v.clone()).len()] += 1;
            c
        });
    let partial = input[1..input.len() - 1]
        .iter()
        .filter(|t| {
            let inside = t.v.iter().filter(|v| v.pos[2] >= 0.0).count();
            inside == 1 || inside == 2
        })
        .count();
    assert!(
        counts.iter().all(|&c| c >= 8),
        "0/1/2 triangles: {counts:?}"
    );
    assert!(partial >= 100, "{partial} triangles cross the near plane");
}

/// Random triangles, four varyings, random gaps and back-pressure: equal to the model.
#[test]
fn clipped_triangles_equal_the_model() {
    let seed = rendergen_sim::kit::seed_from_env_or(0xC12);
    let mut rng = Rng::new(seed);
    let input = random_input(&mut rng, 500, 4);
    run(4, (320, 200), &input, seed, (0.3, 0.4), false);
}

/// No gaps or stalls: an unclipped triangle every three clocks.
#[test]
fn unclipped_throughput_is_one_vertex_per_clock() {
    let mut rng = Rng::new(0xC13);
    let mut input = random_input(&mut rng, 300, 0);
    for t in &mut input {
        for v in &mut t.v {
            let w = v.pos[3];
            v.pos[3] = if w.is_finite() {
                w.abs().max(0.0625)
            } else {
                1.0
            };
            v.pos[2] = v.pos[3] * 0.5;
            for c in &mut v.pos[..2] {
                if !c.is_finite() {
                    *c = 0.0;
                }
            }
        }
    }
    let r = run(0, (1920, 1080), &input, 0xC131, (0.0, 0.0), false);
    let bound = 3 * 300 + 2 + u64::from(VERTEX_STAGES) + 8;
    assert!(r.cycles <= bound, "{} cycles > {bound}", r.cycles);
    assert_eq!(r.outputs, 302);
}

/// Co-simulation (iverilog and Verilator) of a short run with one varying word, and lint.
#[test]
fn cosim_and_lint() {
    let mut rng = Rng::new(0xC14);
    let input = random_input(&mut rng, 40, 1);
    run(1, (64, 48), &input, 0xC141, (0.2, 0.3), true);
    let design = geom_clip_top(&ClipCfg { varyings: 1 }).unwrap_or_else(|e| panic!("{e}"));
    assert_lint_clean(&design);
}

/// `varyings` beyond 32 is an elaboration error naming it.
#[test]
fn bad_parameters_are_elaboration_errors() {
    let Err(e) = geom_clip_top(&ClipCfg { varyings: 33 }) else {
        panic!("varyings 33 accepted")
    };
    assert!(e.to_string().contains("varyings"), "{e}");
}

/// Yosys area of the default `geom_clip` (8 varying words), per module definition
/// (`rendergen synth geom_clip --per-module` prints the same); slow, so ignored.
#[test]
#[ignore = "slow: Yosys synthesis"]
fn measure_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = geom_clip_top(&ClipCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}
