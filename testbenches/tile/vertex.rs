//! Vertex shading on the `tile_engine` RTL (`rendergen_rtl::tile::vertex`: the vertex
//! launcher, the attribute prologue on the core, the export sink writing the post-transform
//! vertex buffer) against the frame model's shaded vertices (`PassResult::clip_vertices`),
//! word for word, through `rendergen_gen::raster::vertex_rtl` (the memory agent's scoreboard
//! checks every transaction): the example scenes' meshes, a scene of edge cases (partial
//! warps, unaligned attributes, partial and repeated exports, dropped locations, zero fill,
//! two meshes of different varyings, uniforms) under random memory latency and
//! back-pressure, the model's errors, co-simulation and lint.
use super::buffer::assert_lint_clean;
use rendergen_gen::raster::rtl::RtlOptions;
use rendergen_gen::raster::vertex_rtl::{
    compare_vertices, run_vertices_rtl, run_vertices_rtl_with, VertexReport,
};
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::kit::Rng;
use rendergen_sim::models::tile::buffer::{BlendState, Format};
use rendergen_sim::models::tile::frame::{run_pass, Attribute, Mesh, Pass, Program, Target};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::port::WriteMode;
use rendergen_sim::models::tile::setup::RasterState;

fn program(src: &str, uniforms: Vec<u32>) -> Program {
    Program {
        words: assemble(src).unwrap_or_else(|e| panic!("{e}")),
        uniforms,
    }
}

/// Mesh A's vertex shader: position (x, y, z) + (0.25 from a uniform, 0, 0) with w = 1,
/// exported after a 1-word position; slot 0 = the uv (2 words); slot 1 written three times,
/// last with 2 words (its words 2, 3 must be 0); location 5 (beyond the mesh's 3 varyings)
/// dropped; slot 2 never written (zero fill).
const VERTEX_A: &str = "
ldu r30, 0
fadd r8, r8, r30
movi r11, 1065353216
export 256, r12, 1
export 0, r16, 2
export 1, r12, 1
export 1, r8, 4
export 1, r16, 2
export 5, r8, 4
export 256, r8, 4
end
";

/// Mesh B's vertex shader: the vertex index as a float in slot 0 (1 word), the position
/// attribute as is.
const VERTEX_B: &str = "
u2f r20, r0
export 0, r20, 1
export 256, r8, 4
end
";

const FRAGMENT: &str = "export 0, r8, 4\nend\n";

fn random_words(rng: &mut Rng, n: usize, scale: f32) -> Vec<u32> {
    (0..n)
        .map(|_| ((rng.below(2000) as f32 / 1000.0 - 1.0) * scale).to_bits())
        .collect()
}

fn mesh(name: &str, attributes: Vec<Attribute>, vertex: Program, varyings: u32) -> Mesh {
    let count = attributes[0].data.len() / attributes[0].components as usize;
    Mesh {
        name: name.into(),
        texture: None,
        attributes,
        indices: (0..(count / 3 * 3) as u32).collect(),
        vertex,
        fragment: program(FRAGMENT, vec![]),
        varyings,
        sample_shading: false,
        late_depth: false,
        state: RasterState::default(),
        blend: vec![BlendState::default()],
    }
}

/// The edge-case pass: mesh A (7 vertices: a warp and a partial one; attributes of 3, 1 and 2
/// components, so the second and third start at byte offsets 84 and 112), mesh B (5
/// vertices, one varying: its slots 1 and 2 are zero filled).
fn edge_pass(seed: u64) -> Pass {
    let mut rng = Rng::new(seed);
    let mut pos_a = Vec::new();
    for _ in 0..7 {
        pos_a.extend(random_words(&mut rng, 2, 0.9));
        pos_a.push((rng.below(1000) as f32 / 1000.0).to_bits());
    }
    let a = mesh(
        "a",
        vec![
            Attribute {
                location: 0,
                components: 3,
                data: pos_a,
            },
            Attribute {
                location: 1,
                components: 1,
                data: random_words(&mut rng, 7, 4.0),
            },
            Attribute {
                location: 2,
                components: 2,
                data: random_words(&mut rng, 14, 1.0),
            },
        ],
        program(VERTEX_A, vec![0.25f32.to_bits()]),
        3,
    );
    let mut pos_b = Vec::new();
    for _ in 0..5 {
        pos_b.extend(random_words(&mut rng, 2, 0.9));
        pos_b.extend([0.5f32.to_bits(), 1.0f32.to_bits()]);
    }
    let b = mesh(
        "b",
        vec![Attribute {
            location: 0,
            components: 4,
            data: pos_b,
        }],
        program(VERTEX_B, vec![]),
        1,
    );
    Pass {
        name: "vertex".into(),
        width: 32,
        height: 32,
        samples: 1,
        targets: vec![Target {
            name: "colour".into(),
            class: "output".into(),
            format: Format::Rgba8,
            writeout: WriteMode::Average,
            clear: 0,
        }],
        depth_writeout: WriteMode::Off,
        depth_clear: 0xFF_FFFF,
        meshes: vec![a, b],
        resolves: vec![],
        buffers: vec![],
        images: vec![],
    }
}

/// Runs `pass`'s vertex phase on the model and the RTL; the buffers must be equal, and the
/// buffer's bytes written are `bursts[m]` 16-byte writes per vertex of mesh `m` (its
/// exports of kept locations and the zero fill: nothing else, nothing twice).
fn check(pass: &Pass, opts: &RtlOptions, bursts: &[u64]) -> VertexReport {
    let mut mem = Memory::new();
    let res = run_pass(pass, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    let report = run_vertices_rtl(pass, &mem, opts).unwrap_or_else(|e| panic!("{e}"));
    if let Some(d) = compare_vertices(&report, &res) {
        panic!(
            "`{}`: RTL and model differ (seed {:#x}): {d}",
            pass.name, opts.seed
        );
    }
    let vertices: usize = res.clip_vertices.iter().map(Vec::len).sum();
    assert!(vertices > 0, "the pass shades vertices");
    let ptv = (report.regions.iter())
        .find(|r| r.0.ends_with("post-transform vertices"))
        .expect("the buffer's region");
    let want: u64 = (res.clip_vertices.iter().zip(bursts))
        .map(|(v, b)| 16 * b * v.len() as u64)
        .sum();
    assert_eq!(ptv.2, want, "bytes written to the post-transform buffer");
    eprintln!(
        "vertex phase `{}`: {vertices} vertices, {} warps, {} cycles, {} warp instructions ({} prologue); model {} (64-lane warps)",
        pass.name, report.warps, report.cycles, report.issued, report.prologue, res.vertex_instructions
    );
    report
}

/// Writes per vertex of the edge pass: mesh A two positions, slot 0 once, slot 1 three
/// times, slot 2 zero filled (location 5 dropped); mesh B slot 0 and the position, slots 1
/// and 2 zero filled.
const EDGE_BURSTS: [u64; 2] = [7, 4];

#[test]
fn edge_cases_match_the_model() {
    check(&edge_pass(1), &RtlOptions::default(), &EDGE_BURSTS);
}

#[test]
fn vertices_under_memory_back_pressure() {
    for seed in [0xB0A7, 0x5EED] {
        let opts = RtlOptions {
            seed,
            latency: (1, 24),
            stall: 0.3,
            gap: 0.3,
            ..RtlOptions::default()
        };
        check(&edge_pass(seed), &opts, &EDGE_BURSTS);
    }
}

/// Every pass with meshes of an example scene in `mode` (what `rendergen raster --engine
/// rtl` runs): each pass's buffer equals the model's vertices, every word written once.
fn example(file: &str, mode: rendergen_gen::raster::Mode) {
    use rendergen_gen::raster::vertex_rtl::{render_vertices_rtl, vertices_json};
    use rendergen_gen::raster::{render, RasterScene};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../gen/raster/scenes");
    let text = std::fs::read_to_string(dir.join(file)).expect("the scene");
    let sc = RasterScene::parse(&text, &dir).unwrap_or_else(|e| panic!("{e}"));
    let frame = render(&sc, mode, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
    let reports = render_vertices_rtl(&frame, &RtlOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(reports.len(), frame.passes.len(), "every pass has meshes");
    // What `rendergen raster --engine rtl --json` prints as `rtl_vertex`.
    let json = vertices_json(&frame, &reports);
    assert_eq!(
        json["cycles"],
        reports.iter().map(|r| r.1.cycles).sum::<u64>()
    );
    for (k, (_, res)) in frame.passes.iter().enumerate() {
        assert_eq!(json["passes"][k]["vertices"], res.vertices);
        assert_eq!(
            json["passes"][k]["model_vertex_instructions"],
            res.vertex_instructions
        );
    }
    for ((name, report), (_, res)) in reports.iter().zip(&frame.passes) {
        let ptv = (report.regions.iter())
            .find(|r| r.0.ends_with("post-transform vertices"))
            .expect("the buffer's region");
        assert_eq!(
            ptv.2,
            res.vertices * (16 + 16 * report.slots as u64),
            "{file} pass `{name}`: every word of the buffer written once"
        );
        eprintln!(
            "{file} pass `{name}`: {} vertices, {} cycles, {} warp instructions ({} prologue; model {} in 64-lane warps, cycles_geometry {})",
            res.vertices, report.cycles, report.issued, report.prologue, res.vertex_instructions, res.cycles_geometry
        );
    }
}

#[test]
fn lit_model_vertices_match_the_model() {
    example("lit_model.json", rendergen_gen::raster::Mode::TwoPass);
}

#[test]
fn many_lights_vertices_match_the_model() {
    example("many_lights.json", rendergen_gen::raster::Mode::TileShader);
}

/// The model's error for a vertex shader that exports no position, and the RTL's.
#[test]
fn a_vertex_shader_without_position_is_an_error() {
    let mut pass = edge_pass(3);
    pass.meshes[1].vertex = program("u2f r20, r0\nexport 0, r20, 1\nend\n", vec![]);
    let mut mem = Memory::new();
    let model = run_pass(&pass, &mut mem)
        .expect_err("no position")
        .to_string();
    assert_eq!(
        model,
        "mesh `b`: the vertex shader does not write a vec4 position"
    );
    let rtl = run_vertices_rtl(&pass, &mem, &RtlOptions::default()).expect_err("no position");
    assert!(rtl.contains(&model), "`{model}` missing from: {rtl}");
    assert!(rtl.contains("(vertex 0)"), "{rtl}");
}

/// A position of three words is no vec4 either (the model's check is on the last export).
#[test]
fn a_three_word_position_is_an_error() {
    let mut pass = edge_pass(4);
    pass.meshes[0].vertex = program("export 256, r8, 4\nexport 256, r8, 3\nend\n", vec![]);
    let mut mem = Memory::new();
    let model = run_pass(&pass, &mut mem)
        .expect_err("no vec4 position")
        .to_string();
    let rtl = run_vertices_rtl(&pass, &mem, &RtlOptions::default()).expect_err("no vec4");
    assert!(rtl.contains(&model), "`{model}` missing from: {rtl}");
}

/// A vertex warp's fault: the model's words, pc relative to the shader.
#[test]
fn a_faulting_vertex_shader_is_reported_as_the_model_does() {
    let mut pass = edge_pass(5);
    pass.meshes[1].vertex = program("export 256, r8, 4\nmovi r9, 1\n", vec![]);
    let mut mem = Memory::new();
    let model = run_pass(&pass, &mut mem)
        .expect_err("runs off its end")
        .to_string();
    let rtl = run_vertices_rtl(&pass, &mem, &RtlOptions::default()).expect_err("a fault");
    assert!(rtl.contains(&model), "`{model}` missing from: {rtl}");
}

/// Co-simulation of the engine top on mesh B's vertex phase (program load, launches,
/// attribute loads, exports, zero fill).
#[test]
fn vertex_phase_cosimulates() {
    let mut pass = edge_pass(6);
    pass.meshes.remove(0);
    let mut mem = Memory::new();
    run_pass(&pass, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    let opts = RtlOptions {
        record: true,
        ..RtlOptions::default()
    };
    run_vertices_rtl_with(&pass, &mem, &opts, &mut |design, sim| {
        let trace = sim.take_trace();
        assert!(trace.cycles.len() < 5_000, "a short run");
        if let Err(e) = rendergen_gen::cosim::cosim_both(design, &trace) {
            panic!("co-simulation of tile_engine's vertex phase failed: {e}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Lint of the vertex units, alone.
#[test]
fn vertex_units_lint_clean() {
    use rendergen_rtl::shader::ShaderCfg;
    use rendergen_rtl::tile::vertex::tile_vertex_top;
    let cfg = ShaderCfg::default();
    assert_lint_clean(&tile_vertex_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

/// Yosys area of the vertex units (default core: 8 warp slots), per module; the figures of
/// `rtl/tile/README.md` ("Vertex shading"), the same flow as `rendergen synth tile_vertex
/// --per-module`.
/// `cargo test -p rendergen-testbenches --test testbenches tile::vertex::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_tile_vertex_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    use rendergen_rtl::shader::ShaderCfg;
    use rendergen_rtl::tile::vertex::tile_vertex_top;
    let d = tile_vertex_top(&ShaderCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}

#[test]
fn bad_parameters_are_named() {
    use rendergen_rtl::shader::ShaderCfg;
    use rendergen_rtl::tile::vertex::tile_vertex_top;
    let e = tile_vertex_top(&ShaderCfg {
        quads: 2,
        ..ShaderCfg::default()
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("quads"), "{e}");
    let e = tile_vertex_top(&ShaderCfg {
        warps: 1,
        ..ShaderCfg::default()
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("warps") && e.contains("2..=16"), "{e}");
}
