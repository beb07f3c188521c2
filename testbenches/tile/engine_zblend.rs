//! Late depth and a blend state per mesh on `tile_engine`, against the frame model bit for
//! bit: an inline scene of three meshes — opaque (blending off, depth LESS with writes),
//! alpha-blended (`SRC_ALPHA`, `ONE_MINUS_SRC_ALPHA`; depth LESS_OR_EQUAL without writes)
//! and one whose fragment shader writes `gl_FragDepth` (additive blending, depth LESS with
//! writes; its depth pushed out of [0, 1] at times, so the clamp matters, and exported by
//! front-facing triangles only, so a pixel without an export takes its rasterised depth) —
//! rendered by `run_pass`, then its tiles by the RTL through `rendergen_gen::raster::rtl`;
//! the surfaces must be equal byte for byte, forward and with a tile shader, at 1× and 4×.
use super::engine::program;
use super::engine::{model, triangles};
use rendergen_gen::raster::rtl::{compare, run_pass_rtl, run_pass_rtl_with, RtlOptions, RtlReport};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::tile::buffer::{BlendOp, BlendState, Factor, Format};
use rendergen_sim::models::tile::frame::{Attribute, Mesh, Pass, PassResult, Resolve, Target};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::port::WriteMode;
use rendergen_sim::models::tile::setup::{CompareOp, RasterState};

/// Vertex shader: clip position from location 0, location 1 as varying slot 0.
const VERTEX: &str = "export 256, r8, 4\nexport 0, r12, 4\nend\n";

/// Opaque and blended meshes: RT0 = the varying colour (its alpha drives the blend), RT1 =
/// the depth built-in plus a mesh-specific constant.
fn colour_shader(k: f32) -> String {
    format!("faddi r20, r2, {k:?}\nexport 0, r8, 4\nexport 1, r20, 1\nend\n")
}

/// The depth writer: `z' = (1.5·r − 0.25 + z) / 2` from the varying's red channel `r` and
/// the rasterised depth `z` (from −0.125 to 1.125: the clamp is exercised), exported as
/// `gl_FragDepth` (location 0x101 = 257) by front-facing triangles only; RT0 = the varying
/// colour, RT1 = `z'`.
const DEPTH_WRITER: &str = "
fmuli r20, r8, 1.5
faddi r20, r20, -0.25
fadd r20, r20, r2
fmuli r20, r20, 0.5
if r4
export 257, r20, 1
endif
export 0, r8, 4
export 1, r20, 1
end
";

/// Tile shader, one thread per pixel: RT1 += RT0's green channel.
const TILE_SHADER: &str = "
shli r10, r1, 14
or r10, r10, r0
spec r11, r10, r0, 0x101
spec r12, r10, r0, 0x104
fadd r11, r11, r12
spec r13, r10, r11, 0x204
end
";

fn mesh(
    rng: &mut Rng,
    name: &str,
    n: usize,
    fragment: &str,
    (depth_op, depth_write): (CompareOp, bool),
    blend: BlendState,
) -> Mesh {
    let (pos, col) = triangles(rng, n);
    Mesh {
        name: name.into(),
        texture: None,
        attributes: vec![
            Attribute {
                location: 0,
                components: 4,
                data: pos,
            },
            Attribute {
                location: 1,
                components: 4,
                data: col,
            },
        ],
        indices: (0..3 * n as u32).collect(),
        vertex: program(VERTEX),
        fragment: program(fragment),
        varyings: 1,
        sample_shading: false,
        late_depth: fragment == DEPTH_WRITER,
        state: RasterState {
            depth_op,
            depth_write,
            ..RasterState::default()
        },
        blend: vec![blend, BlendState::default()],
    }
}

/// Alpha blending: `src·As + dst·(1 − As)`, alpha likewise.
fn alpha_blend() -> BlendState {
    BlendState {
        enable: true,
        colour_op: BlendOp::Add,
        src_colour: Factor::SrcAlpha,
        dst_colour: Factor::OneMinusSrcAlpha,
        alpha_op: BlendOp::Add,
        src_alpha: Factor::One,
        dst_alpha: Factor::OneMinusSrcAlpha,
    }
}

/// Additive colour, the larger alpha.
fn additive() -> BlendState {
    BlendState {
        enable: true,
        colour_op: BlendOp::Add,
        src_colour: Factor::One,
        dst_colour: Factor::One,
        alpha_op: BlendOp::Max,
        src_alpha: Factor::One,
        dst_alpha: Factor::One,
    }
}

/// The scene (module docs): 32 × `height`, `samples` per pixel, RT0 RGBA8, RT1 R32F, depth
/// written out; `n` triangles per mesh, interleaved by mesh in submission order (opaque,
/// blended, depth writer, opaque again); with `resolve`, a tile shader after the meshes.
fn scene(seed: u64, n: usize, samples: u32, height: u32, resolve: bool) -> Pass {
    let mut rng = Rng::new(seed);
    let meshes = vec![
        mesh(
            &mut rng,
            "opaque",
            n,
            &colour_shader(0.0),
            (CompareOp::Less, true),
            BlendState::default(),
        ),
        mesh(
            &mut rng,
            "blended",
            n,
            &colour_shader(0.5),
            (CompareOp::LessOrEqual, false),
            alpha_blend(),
        ),
        mesh(
            &mut rng,
            "depth writer",
            n,
            DEPTH_WRITER,
            (CompareOp::Less, true),
            additive(),
        ),
        mesh(
            &mut rng,
            "opaque again",
            n,
            &colour_shader(0.25),
            (CompareOp::Less, true),
            BlendState::default(),
        ),
    ];
    let target = |name: &str, format, clear| Target {
        name: name.into(),
        class: "output".into(),
        format,
        writeout: WriteMode::Average,
        clear,
    };
    Pass {
        name: "zblend".into(),
        width: 32,
        height,
        samples,
        targets: vec![
            target("colour", Format::Rgba8, 0x4080_20FF),
            target("value", Format::R32f, 0.25f32.to_bits() as u64),
        ],
        depth_writeout: WriteMode::Average,
        depth_clear: 0xFF_FFFF,
        meshes,
        resolves: match resolve {
            true => vec![Resolve {
                after: 4,
                program: program(TILE_SHADER),
                threads: (16, 16),
                rect: None,
            }],
            false => vec![],
        },
        buffers: vec![],
        images: vec![],
    }
}

/// The model's surfaces' bytes.
fn surfaces(mem: &Memory, res: &PassResult) -> Vec<Vec<u8>> {
    (res.surfaces.iter().flatten())
        .map(|s| mem.regions()[s.region.0].bytes().to_vec())
        .collect()
}

/// Runs `pass` on the model and the RTL and compares the surfaces byte for byte.
fn check(pass: &Pass, opts: &RtlOptions) -> RtlReport {
    let (mem, res) = model(pass);
    let drawn: u32 = res.tiles.iter().map(|t| t.fragments).sum();
    assert!(
        drawn > 100,
        "the scene draws too little ({drawn} fragments)"
    );
    let report = run_pass_rtl(pass, &mem, &res, opts).unwrap_or_else(|e| panic!("{e}"));
    if let Some(d) = compare(&report, &mem) {
        panic!("RTL and model differ (seed {:#x}): {d}", opts.seed);
    }
    eprintln!(
        "tile_engine zblend {}x{} {}x: {drawn} fragments, {} cycles, {} warp instructions",
        pass.width, pass.height, pass.samples, report.cycles, report.issued
    );
    report
}

/// The scene exercises what it claims: the model's image changes when the depth writer's
/// export is ignored (early depth), and when every mesh blends as the first.
#[test]
fn the_scene_depends_on_late_depth_and_per_mesh_blend() {
    let pass = scene(31, 6, 1, 32, false);
    let (mem, res) = model(&pass);
    let base = surfaces(&mem, &res);
    let mut early = pass.clone();
    early.meshes[2].late_depth = false;
    let (m2, r2) = model(&early);
    assert_ne!(surfaces(&m2, &r2), base, "late depth changes nothing");
    let mut one_blend = pass.clone();
    for m in &mut one_blend.meshes {
        m.blend = pass.meshes[0].blend.clone();
    }
    let (m3, r3) = model(&one_blend);
    assert_ne!(
        surfaces(&m3, &r3)[0],
        base[0],
        "per-mesh blending changes nothing"
    );
}

#[test]
fn forward_frame_matches_the_model() {
    check(&scene(31, 6, 1, 32, false), &RtlOptions::default());
}

#[test]
fn tile_shader_frame_matches_the_model() {
    check(&scene(32, 6, 1, 32, true), &RtlOptions::default());
}

/// 4× MSAA: the late test per sample with the pixel's one exported depth, and the R32F
/// target averaged at write-out (the frame model's average is the write-out's rule since
/// session 14: it summed left to right before, and this frame differed in one R32F byte).
#[test]
fn msaa4_frame_matches_the_model_under_memory_back_pressure() {
    let opts = super::engine::back_pressure(0x2B1E);
    check(&scene(33, 4, 4, 16, false), &opts);
}

/// The engine with late depth tests and blended writes under way, co-simulated (iverilog
/// and Verilator) on the first tile's first 8,000 cycles.
#[test]
fn engine_with_late_depth_cosimulates() {
    let pass = scene(34, 3, 1, 16, false);
    let (mem, res) = model(&pass);
    let opts = RtlOptions {
        record: true,
        tiles: Some(1),
        ..RtlOptions::default()
    };
    run_pass_rtl_with(&pass, &mem, &res, &opts, &mut |design, sim| {
        let mut trace = sim.take_trace();
        trace.cycles.truncate(8_000);
        if let Err(e) = rendergen_gen::cosim::cosim_both(design, &trace) {
            panic!("co-simulation of tile_engine with late depth failed: {e}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

/// More meshes than the engine's blend-state and late-depth tables hold: a clear error.
#[test]
fn too_many_meshes_are_refused() {
    let mut pass = scene(35, 1, 1, 16, false);
    let m = pass.meshes[0].clone();
    pass.meshes = vec![m; 17];
    let (mem, res) = model(&pass);
    let e = run_pass_rtl(&pass, &mem, &res, &RtlOptions::default())
        .expect_err("17 meshes on a 16-entry table");
    assert!(e.contains("17 meshes") && e.contains("0..16"), "{e}");
}

/// `frag_exports`'s `gl_FragDepth` conversion equals the frame model's
/// `(clamp(z, 0, 1) as f64 · (2^24 − 1)).round()` (NaN → 0) on edge cases and random bits.
#[test]
fn frag_depth_converts_as_the_model() {
    use rendergen_hdl::Design;
    use rendergen_rtl::tile::exports::f32_to_d24;
    use rendergen_sim::models::tile::DEPTH_MAX;
    use rendergen_sim::Simulator;
    let design = Design::build("f32_to_d24", |m| {
        let z = m.input("z", 32);
        let d = f32_to_d24(m, z);
        m.output("d", d);
    })
    .unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let (z, d) = (sim.input("z").unwrap(), sim.output("d").unwrap());
    let want = |bits: u32| {
        let z = f32::from_bits(bits);
        let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
        (z as f64 * DEPTH_MAX as f64).round() as u32
    };
    let mut values: Vec<u32> = vec![
        0,
        0x8000_0000,
        1,
        0x007F_FFFF,
        0x3F80_0000,
        0x3F7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xBF80_0000,
        0x4000_0000,
    ];
    // Every exponent around the rounding cut-offs (2^-24 .. 1) with ties and near-ties.
    for e in 95u32..=127 {
        for f in [0u32, 1, 0x40_0000, 0x3F_FFFF, 0x7F_FFFF, 0x55_5555] {
            values.push(e << 23 | f);
        }
    }
    // Exact halves: (k + 0.5) / (2^24 − 1) rounded to binary32, and its neighbours.
    for k in [0u32, 1, 2, 3, 1000, 1 << 20, (1 << 24) - 2] {
        let b = ((k as f64 + 0.5) / DEPTH_MAX as f64) as f32;
        values.extend([b.to_bits() - 1, b.to_bits(), b.to_bits() + 1]);
    }
    let mut rng = Rng::new(0xD24);
    for _ in 0..20_000 {
        let bits = rng.next_u64() as u32;
        values.push(bits);
        values.push(bits & 0x3FFF_FFFF | 0x3000_0000); // mostly in [2^-31, 2)
    }
    for v in values {
        sim.poke(z, v as u64);
        assert_eq!(
            sim.peek(d) as u32,
            want(v),
            "z = {v:#010x} ({})",
            f32::from_bits(v)
        );
    }
}
