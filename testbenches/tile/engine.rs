//! `tile_engine` (back end + shader core + fragment and tile-shader launchers) against the
//! frame model, bit for bit: a small scene built here (hand-assembled shaders that export
//! every fragment built-in and an interpolated varying, perspective-correct with w ≠ 1, and
//! a tile shader reading one target and writing another with write-out control) rendered by
//! `rendergen_sim::models::tile::frame::run_pass`, then its per-tile part by the RTL through
//! `rendergen_gen::raster::rtl` (the memory agent's scoreboard checks every transaction);
//! the surfaces must be equal byte for byte.
use super::buffer::assert_lint_clean;
use rendergen_gen::raster::rtl::{compare, run_pass_rtl, run_pass_rtl_with, RtlOptions, RtlReport};
use rendergen_rtl::shader::ShaderCfg;
use rendergen_rtl::tile::engine::{tile_engine_top, EngineCfg};
use rendergen_rtl::tile::frag::FragCfg;
use rendergen_rtl::tile::{RtFormat, TileCfg};
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::kit::Rng;
use rendergen_sim::models::tile::buffer::{BlendState, Format};
use rendergen_sim::models::tile::frame::{
    run_pass, Attribute, Mesh, Pass, PassResult, Program, Resolve, Target,
};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::port::WriteMode;
use rendergen_sim::models::tile::setup::{CompareOp, RasterState};

/// Vertex shader: clip position from location 0, location 1 as varying slot 0.
pub(super) const VERTEX: &str = "export 256, r8, 4\nexport 0, r12, 4\nend\n";

/// Fragment shader: RT0 = the varying; RT1 = z + w + x·y + front (every built-in), doubled
/// for front-facing triangles (control flow: its targets are absolute instruction-memory
/// words, behind the prologue).
const FRAGMENT: &str = "
fadd r20, r2, r3
fmul r21, r0, r1
fadd r20, r20, r21
u2f r22, r4
fadd r20, r20, r22
if r4
fadd r20, r20, r20
endif
export 0, r8, 4
export 1, r20, 1
end
";

/// Tile shader (one thread per pixel): RT1 = RT0.r + RT0.g + RT1 except in the tile's first
/// column (control flow: the program sits in a later slot of the instruction memory); RT0 not
/// written out.
const TILE_SHADER: &str = "
shli r10, r1, 14
or r10, r10, r0
spec r11, r10, r0, 0x100
spec r12, r10, r0, 0x101
spec r13, r10, r0, 0x104
fadd r11, r11, r12
fadd r11, r11, r13
if r3
spec r14, r10, r11, 0x204
endif
movi r16, 0
movi r17, 0
spec r15, r16, r17, 0x33C
end
";

/// A program assembled from `src`, no uniforms (shared by the engine testbenches).
/// Memory back-pressure for an RTL run: answers after 1..=24 cycles, the request port stalled
/// and the answers held back 30 % of the time (seed `seed`).
pub(super) fn back_pressure(seed: u64) -> RtlOptions {
    RtlOptions {
        seed,
        latency: (1, 24),
        stall: 0.3,
        gap: 0.3,
        ..RtlOptions::default()
    }
}

pub(super) fn program(src: &str) -> Program {
    Program {
        words: assemble(src).unwrap_or_else(|e| panic!("{e}")),
        uniforms: vec![],
    }
}

/// `n` random triangles over a 32×32 screen with w in 1..4 (perspective), colours in 0..1.
pub(super) fn triangles(rng: &mut Rng, n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut pos = Vec::new();
    let mut col = Vec::new();
    for _ in 0..3 * n {
        let w = 1.0 + 3.0 * rng.below(1000) as f32 / 1000.0;
        let x = (rng.below(2000) as f32 / 1000.0 - 1.0) * 1.2 * w;
        let y = (rng.below(2000) as f32 / 1000.0 - 1.0) * 1.2 * w;
        let z = rng.below(1000) as f32 / 1000.0 * w;
        pos.extend([x, y, z, w].map(f32::to_bits));
        col.extend((0..4).map(|_| (rng.below(1001) as f32 / 1000.0).to_bits()));
    }
    (pos, col)
}

/// A mesh `name` of `n` random [`triangles`] (attribute 0 the clip position, 1 the colour,
/// one varying) shaded by the assembly `fragment`, depth LESS with writes, default blending
/// into `targets` render targets; `per_sample`: sample-rate shading.
pub(super) fn random_mesh(
    rng: &mut Rng,
    name: &str,
    n: usize,
    fragment: &str,
    per_sample: bool,
    targets: usize,
) -> Mesh {
    let (pos, col) = triangles(rng, n);
    let attribute = |location, data| Attribute {
        location,
        components: 4,
        data,
    };
    Mesh {
        name: name.into(),
        texture: None,
        attributes: vec![attribute(0, pos), attribute(1, col)],
        indices: (0..3 * n as u32).collect(),
        vertex: program(VERTEX),
        fragment: program(fragment),
        varyings: 1,
        sample_shading: per_sample,
        late_depth: false,
        state: RasterState {
            depth_op: CompareOp::Less,
            depth_write: true,
            ..RasterState::default()
        },
        blend: vec![BlendState::default(); targets],
    }
}

/// The scene: 32×32, 1 sample, RT0 RGBA8, RT1 R32F, depth LESS; with `resolve`, a tile
/// shader after the mesh that adds RT0 into RT1 and suppresses RT0's write-out.
fn scene(seed: u64, n: usize, resolve: bool) -> Pass {
    let mesh = random_mesh(&mut Rng::new(seed), "tris", n, FRAGMENT, false, 2);
    let target = |name: &str, format, clear| Target {
        name: name.into(),
        class: "output".into(),
        format,
        writeout: WriteMode::Average,
        clear,
    };
    Pass {
        name: "engine".into(),
        width: 32,
        height: 32,
        samples: 1,
        targets: vec![
            target("colour", Format::Rgba8, 0x4080_20FF),
            target("value", Format::R32f, 0.25f32.to_bits() as u64),
        ],
        depth_writeout: WriteMode::Off,
        depth_clear: 0xFF_FFFF,
        meshes: vec![mesh],
        resolves: match resolve {
            true => vec![Resolve {
                after: 1,
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

/// The frame model's run of `pass`: its memory and result.
pub(super) fn model(pass: &Pass) -> (Memory, PassResult) {
    let mut mem = Memory::new();
    let r = run_pass(pass, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    (mem, r)
}

/// Runs `pass` on the model and the RTL and compares the surfaces; returns the RTL's report
/// and the model's result.
fn check(pass: &Pass, opts: &RtlOptions) -> (RtlReport, PassResult) {
    let (mem, res) = model(pass);
    let drawn: u32 = res.tiles.iter().map(|t| t.fragments).sum();
    assert!(drawn > 50, "the scene draws too little ({drawn} fragments)");
    let report = run_pass_rtl(pass, &mem, &res, opts).unwrap_or_else(|e| panic!("{e}"));
    if let Some(d) = compare(&report, &mem) {
        panic!("RTL and model differ (seed {:#x}): {d}", opts.seed);
    }
    let pixels = pass.width * pass.height;
    eprintln!(
        "tile_engine `{}`: {drawn} fragments, {} cycles, {:.4} pixels/clock, {} warp instructions ({:.3}/clock)",
        pass.name,
        report.cycles,
        pixels as f64 / report.cycles as f64,
        report.issued,
        report.core_utilisation()
    );
    assert_eq!(report.tiles.len(), res.tiles.len(), "a report per tile");
    (report, res)
}

/// Bytes the RTL wrote to colour target `rt`'s surface.
fn written(report: &RtlReport, res: &PassResult, rt: usize) -> u64 {
    let region = res.surfaces[rt].as_ref().expect("a surface").region.0;
    report.regions[region].3
}

#[test]
fn forward_frame_matches_the_model() {
    let (report, res) = check(&scene(11, 6, false), &RtlOptions::default());
    assert_eq!(written(&report, &res, 0), 32 * 32 * 4, "RT0 written once");
    assert_eq!(written(&report, &res, 1), 32 * 32 * 4, "RT1 written once");
}

#[test]
fn tile_shader_frame_matches_the_model() {
    let (report, res) = check(&scene(12, 6, true), &RtlOptions::default());
    assert_eq!(
        written(&report, &res, 0),
        0,
        "the tile shader suppressed RT0"
    );
    assert_eq!(written(&report, &res, 1), 32 * 32 * 4, "RT1 written once");
}

#[test]
fn memory_back_pressure_keeps_the_frame() {
    let opts = back_pressure(0xBAC);
    let (report, res) = check(&scene(13, 5, true), &opts);
    assert_eq!(
        written(&report, &res, 0),
        0,
        "the tile shader suppressed RT0"
    );
}

#[test]
fn engine_cosimulates() {
    let pass = scene(14, 2, true);
    let (mem, res) = model(&pass);
    let opts = RtlOptions {
        record: true,
        tiles: Some(1),
        ..RtlOptions::default()
    };
    // The whole run, every output of every cycle on iverilog and Verilator: the programs'
    // load, the vertex and geometry phases, the tile's clears, draws, fragment warps,
    // RESOLVE, tile shader and write-out (about 4,100 cycles).
    let mut cycles = 0;
    let report = run_pass_rtl_with(&pass, &mem, &res, &opts, &mut |design, sim| {
        let trace = sim.take_trace();
        cycles = trace.cycles.len() as u64;
        if let Err(e) = rendergen_gen::cosim::cosim_both(design, &trace) {
            panic!("co-simulation of tile_engine failed: {e}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.tiles.len(), 1, "one tile rendered");
    assert!(
        cycles >= report.cycles,
        "the trace ({cycles} cycles) covers the run ({} cycles)",
        report.cycles
    );
}

#[test]
fn engine_lint_clean() {
    let cfg = EngineCfg {
        frag: FragCfg {
            tile: TileCfg {
                samples: 1,
                formats: vec![RtFormat::Rgba8],
            },
            core: ShaderCfg {
                warps: 2,
                regs: 16,
                imem_depth: 16,
                ..ShaderCfg::default()
            },
            entry_log2: 3,
            states: 4,
        },
        uniform_bits: 4,
        texture: None,
        geometry: None,
    };
    assert_lint_clean(&tile_engine_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

/// A memory that never takes a request: the driver gives up after `stall_cycles` without
/// progress (never a hang) and names what waits — the phase (the vertex phase: its attribute
/// loads are the run's first memory requests), the memory port's request with valid and no
/// ready, the command processor's state (idle: no list reached it), the tiles done.
#[test]
fn a_stuck_engine_reports_what_waits() {
    let pass = scene(15, 2, false);
    let (mem, res) = model(&pass);
    let opts = RtlOptions {
        stall: 1.0,
        stall_cycles: 2_000,
        ..RtlOptions::default()
    };
    let e = run_pass_rtl(&pass, &mem, &res, &opts).expect_err("a memory that never answers");
    for part in [
        "stuck",
        "for 2000 cycles",
        "0 of 4 tiles done",
        "valid without ready: ",
        " tile_engine.mem_req,",
        "stuck in the vertex phase",
        " tile_engine.core_mem.mem_req,",
        "tile_cmd.state_q = 0 (Idle)",
    ] {
        assert!(e.contains(part), "`{part}` missing from: {e}");
    }
}

#[test]
fn bad_parameters_are_named() {
    let mut cfg = EngineCfg::default();
    cfg.frag.core.quads = 2;
    let e = tile_engine_top(&cfg).unwrap_err().to_string();
    assert!(e.contains("core.quads"), "{e}");
    let cfg = EngineCfg {
        uniform_bits: 30,
        ..EngineCfg::default()
    };
    let e = tile_engine_top(&cfg).unwrap_err().to_string();
    assert!(e.contains("uniform_bits"), "{e}");
}

/// Lighting-pass fragment shader of the two-pass tests: reads the earlier pass's RT0 (RGBA8,
/// binding 0, four channels) and RT1 (R32F, binding 1) at its pixel with image loads, and
/// writes RT0 = (rt0.r + rt1, rt0.g, rt0.b, rt0.a) — the G-buffer read back through the
/// image-load unit.
const LIGHTING: &str = "
f2u r20, r0
f2u r21, r1
shli r22, r21, 14
or r22, r22, r20
spec r24, r22, r0, 0x100
spec r25, r22, r0, 0x101
spec r26, r22, r0, 0x102
spec r27, r22, r0, 0x103
spec r28, r22, r0, 0x104
spec r29, r22, r0, 0x105
spec r30, r22, r0, 0x106
spec r31, r22, r0, 0x107
fadd r24, r24, r28
export 0, r24, 4
end
";

/// The two-pass scene: pass 0 is [`scene`]'s forward pass (RT0 RGBA8, RT1 R32F, written
/// out); pass 1 draws a full-screen triangle whose fragment shader reads both as images.
fn two_pass(seed: u64, n: usize) -> (Pass, Pass) {
    let g = scene(seed, n, false);
    let mut l = scene(seed, 1, false);
    l.name = "lighting".into();
    l.targets.truncate(1);
    let full = [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]];
    let mesh = &mut l.meshes[0];
    mesh.name = "full-screen".into();
    mesh.attributes[0].data = full
        .iter()
        .flat_map(|p| [p[0], p[1], 0.5, 1.0].map(f32::to_bits))
        .collect();
    mesh.attributes[1].data = vec![0; 12];
    mesh.indices = vec![0, 1, 2];
    mesh.fragment = program(LIGHTING);
    mesh.state = RasterState {
        depth_op: CompareOp::Always,
        depth_write: false,
        ..RasterState::default()
    };
    mesh.blend = vec![BlendState::default()];
    (g, l)
}

/// The model's run of both passes (the lighting pass bound to the first pass's surfaces).
fn model_two_pass(g: &Pass, l: &mut Pass) -> (Memory, PassResult, PassResult) {
    let mut mem = Memory::new();
    let rg = run_pass(g, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    l.images = (rg.surfaces.iter().enumerate())
        .filter_map(|(b, s)| s.map(|s| (b as u32, s)))
        .collect();
    let rl = run_pass(l, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    (mem, rg, rl)
}

/// Both passes on the RTL, the lighting pass reading what the RTL wrote in the first; every
/// surface equal to the model's; the G-buffer's bytes read equal the model's.
fn check_two_pass(seed: u64, opts: &RtlOptions) {
    let (g, mut l) = two_pass(seed, 5);
    let (mem, rg, rl) = model_two_pass(&g, &mut l);
    let first = run_pass_rtl(&g, &mem, &rg, opts).unwrap_or_else(|e| panic!("{e}"));
    let second = run_pass_rtl(
        &l,
        &mem,
        &rl,
        &RtlOptions {
            preload: first.surfaces.clone(),
            vcd: std::env::var_os("TWO_VCD").map(Into::into),
            tiles: std::env::var_os("TWO_VCD").map(|_| 1),
            ..opts.clone()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for r in [&first, &second] {
        if let Some(d) = compare(r, &mem) {
            let mut diffs = Vec::new();
            for (i, bytes) in &r.surfaces {
                let model = mem.regions()[*i].bytes();
                for p in 0..bytes.len() / 4 {
                    if bytes[4 * p..4 * p + 4] != model[4 * p..4 * p + 4] {
                        diffs.push(format!(
                            "({}, {}): {:02x?} / {:02x?}",
                            p % 32,
                            p / 32,
                            &bytes[4 * p..4 * p + 4],
                            &model[4 * p..4 * p + 4]
                        ));
                    }
                }
            }
            panic!(
                "RTL and model differ (seed {:#x}): {d}; {} pixels (RTL / model): {}",
                opts.seed,
                diffs.len(),
                diffs[..diffs.len().min(40)].join(", ")
            );
        }
    }
    for (_, s) in &l.images {
        let k = s.region.0;
        let model = &mem.regions()[k];
        assert_eq!(
            (first.regions[k].3, second.regions[k].2),
            (model.written_bytes, model.read_bytes),
            "region `{}`: written by the first pass, read by the lighting pass",
            model.name
        );
        assert_eq!(model.read_bytes, 32 * 32 * 4, "one read per texel");
    }
    eprintln!(
        "tile_engine two-pass: {} + {} cycles",
        first.cycles, second.cycles
    );
}

#[test]
fn two_pass_frame_matches_the_model() {
    check_two_pass(21, &RtlOptions::default());
}

#[test]
fn two_pass_under_memory_back_pressure() {
    let opts = back_pressure(0x1A6);
    check_two_pass(22, &opts);
}

/// A lighting pass reading outside a surface: the image-load unit's sticky error stops the
/// run with the model's wording (binding, pixel, sample, the surface's size), not a hang.
#[test]
fn an_image_read_outside_its_surface_is_reported() {
    let (g, mut l) = two_pass(23, 3);
    let (mem, rg, rl) = model_two_pass(&g, &mut l);
    let first =
        run_pass_rtl(&g, &mem, &rg, &RtlOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // The RTL's table says binding 1 is 16 pixels wide: x ≥ 16 is outside.
    l.images[1].1.width = 16;
    let opts = RtlOptions {
        preload: first.surfaces,
        ..RtlOptions::default()
    };
    let e = run_pass_rtl(&l, &mem, &rl, &opts).expect_err("an image read outside its surface");
    for part in [
        "a fragment shader read image binding 1 at (",
        "outside the 16×32×1 surface",
        "image-load unit",
    ] {
        assert!(e.contains(part), "`{part}` missing from: {e}");
    }
}

/// The engine with image loads under way, co-simulated: the lighting pass's first tile.
#[test]
fn engine_cosimulates_image_loads() {
    let (g, mut l) = two_pass(24, 2);
    let (mem, rg, rl) = model_two_pass(&g, &mut l);
    let first =
        run_pass_rtl(&g, &mem, &rg, &RtlOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let opts = RtlOptions {
        record: true,
        tiles: Some(1),
        preload: first.surfaces,
        ..RtlOptions::default()
    };
    run_pass_rtl_with(&l, &mem, &rl, &opts, &mut |design, sim| {
        let mut trace = sim.take_trace();
        trace.cycles.truncate(4_000);
        if let Err(e) = rendergen_gen::cosim::cosim_both(design, &trace) {
            panic!("co-simulation of tile_engine with image loads failed: {e}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

/// `lit_model.json` at 32 × `height` pixels.
pub(super) fn lit_model_at(height: u32) -> rendergen_gen::raster::RasterScene {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../gen/raster/scenes");
    let mut text = std::fs::read_to_string(dir.join("lit_model.json")).expect("lit_model.json");
    for (from, to) in [
        ("\"width\": 96,", "\"width\": 32,".to_string()),
        ("\"height\": 64,", format!("\"height\": {height},")),
    ] {
        assert!(text.contains(from), "lit_model.json has `{from}`");
        text = text.replace(from, &to);
    }
    rendergen_gen::raster::RasterScene::parse(&text, &dir).unwrap_or_else(|e| panic!("{e}"))
}

/// `lit_model.json` at 32×16 (two tiles).
fn lit_model_small() -> rendergen_gen::raster::RasterScene {
    lit_model_at(16)
}

/// Issue 13's "tile-shader and two-pass give bit-identical images" on the RTL: the example
/// scene's two-pass frame on the RTL (the G-buffer written out by the RTL, read back by the
/// RTL's lighting pass through the image-load unit) equals the model's and the RTL's
/// tile-shader frame, bit for bit; the RTL's bytes per region of the G-buffer, the lights
/// and the output equal the model's.
#[test]
fn lit_model_two_pass_equals_tile_shader_on_the_rtl() {
    use rendergen_gen::raster::{render, render_rtl, Mode};
    let sc = lit_model_small();
    let mut tp =
        render(&sc, Mode::TwoPass, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
    let model_pixels = tp.pixels.clone();
    let r_tp =
        render_rtl(&mut tp, &RtlOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(tp.pixels, model_pixels, "two-pass: RTL = model");
    let mut ts = render(&sc, Mode::TileShader, 1, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{}", e.message));
    let r_ts =
        render_rtl(&mut ts, &RtlOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        ts.pixels, tp.pixels,
        "the RTL's tile-shader and two-pass frames"
    );
    let mut checked = 0;
    for (k, r) in tp.memory.regions().iter().enumerate() {
        if ["g-buffer", "lights", "output"].contains(&r.class.as_str()) {
            let (_, _, rd, wr) = &r_tp.regions[k];
            assert_eq!(
                (*rd, *wr),
                (r.read_bytes, r.written_bytes),
                "region `{}`",
                r.name
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "three G-buffer planes, the lights, the output"
    );
    eprintln!(
        "lit_model 32×16 on the RTL: two-pass {} cycles, tile-shader {} cycles",
        r_tp.cycles, r_ts.cycles
    );
}

/// The figures of `rtl/tile/README.md` for `lit_model` at 32×32 (the same as
/// `rendergen raster lit32.json -o x.png --mode MODE --engine rtl --json`, section `rtl`):
/// cycles, pixels per clock and bytes per region class of both deferred modes on the RTL.
/// `cargo test -p rendergen-testbenches --test testbenches tile::engine::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_lit_model_deferred_modes_on_the_rtl() {
    measure_lit_model_modes(1);
}

/// Prints the `rtl` figures of `lit_model` at 32×32 in tile-shader and two-pass mode at
/// `msaa` samples (the ignored measurement tests).
pub(super) fn measure_lit_model_modes(msaa: u32) {
    use rendergen_gen::raster::{render, render_rtl, rtl_json, Mode};
    let sc = lit_model_at(32);
    for mode in [Mode::TileShader, Mode::TwoPass] {
        let mut f =
            render(&sc, mode, msaa, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
        let r =
            render_rtl(&mut f, &RtlOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
        let j = rtl_json(&f, &r);
        eprintln!(
            "{mode:?} {msaa}x: cycles {} pixels/clock {} core utilisation {} bytes_by_class {}",
            j["cycles"], j["pixels_per_clock"], j["core_utilisation"], j["bytes_by_class"]
        );
    }
}
