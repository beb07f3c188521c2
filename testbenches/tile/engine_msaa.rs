//! `tile_engine` at 4× MSAA against the frame model, bit for bit (issue 13: two-pass at 4×):
//! the static write-out modes (every sample — a multisampled surface in the model's layout —,
//! a fixed sample, the mean, off) and sample-rate shading (a fragment shader reading
//! `gl_SampleID` runs once per covered sample, its outputs going to that sample only), first
//! on a small hand-built scene (random overlapping triangles, so samples are covered and
//! depth-tested unevenly), then on the example scene `lit_model` in `two-pass` — whose
//! G-buffer pass writes every sample and whose lighting pass reads them back per sample —
//! against the model and against the RTL's own `tile-shader` frame. Memory back-pressure on
//! both; the memory model's region counters show that suppressed planes are never written.
use super::engine::{lit_model_at, measure_lit_model_modes, program, random_mesh};
use rendergen_gen::raster::rtl::{compare, run_pass_rtl_with, RtlOptions, RtlReport};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::tile::buffer::Format;
use rendergen_sim::models::tile::frame::{run_pass, Mesh, Pass, PassResult, Target};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::port::WriteMode;

/// Sample-rate fragment shader (reads `r5`, `gl_SampleID`): RT0 = the varying with the sample
/// number times the sample's depth added to red; RT1 = sample + depth; RT2 = the varying.
const PER_SAMPLE: &str = "
u2f r20, r5
fmul r21, r20, r2
fadd r8, r8, r21
export 0, r8, 4
fadd r22, r20, r2
export 1, r22, 1
export 2, r12, 4
end
";

/// Pixel-rate fragment shader: RT0 = the varying, RT1 = the depth, RT2 = the varying.
const PER_PIXEL: &str = "
export 0, r8, 4
export 1, r2, 1
export 2, r8, 4
end
";

/// A mesh of `n` random triangles over the 32×32 screen (w in 1..4, so perspective-correct
/// varyings matter), shaded by `fragment`.
fn mesh(rng: &mut Rng, name: &str, n: usize, fragment: &str, per_sample: bool) -> Mesh {
    random_mesh(rng, name, n, fragment, per_sample, 4)
}

/// The small 4× scene: RT0 RGBA8 every sample, RT1 R32F sample 2, RT2 RGBA8 averaged, RT3
/// RG16F statically off, depth every sample; a sample-rate shaded mesh, then a pixel-rate
/// one over it.
fn scene(seed: u64) -> Pass {
    let mut rng = Rng::new(seed);
    let target = |name: &str, format, writeout, clear| Target {
        name: name.into(),
        class: "g-buffer".into(),
        format,
        writeout,
        clear,
    };
    Pass {
        name: "msaa".into(),
        width: 32,
        height: 32,
        samples: 4,
        targets: vec![
            target("colour", Format::Rgba8, WriteMode::All, 0x4080_20FF),
            target("value", Format::R32f, WriteMode::Sample(2), 0x3E80_0000),
            target("mean", Format::Rgba8, WriteMode::Average, 0x1020_3040),
            target("off", Format::Rg16f, WriteMode::Off, 0),
        ],
        depth_writeout: WriteMode::All,
        depth_clear: 0xFF_FFFF,
        meshes: vec![
            mesh(&mut rng, "per-sample", 6, PER_SAMPLE, true),
            mesh(&mut rng, "per-pixel", 3, PER_PIXEL, false),
        ],
        resolves: vec![],
        buffers: vec![],
        images: vec![],
    }
}

/// Runs `pass` on the model and on the RTL (with `opts`); the surfaces must be equal byte for
/// byte. Returns the RTL's report, the model's memory and result, and the write-out's byte
/// counters per plane (`bytes_<p>`, read at the end of the run).
fn check(pass: &Pass, opts: &RtlOptions) -> (RtlReport, Memory, PassResult, Vec<u64>) {
    let mut mem = Memory::new();
    let res = run_pass(pass, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    let mut counters = Vec::new();
    let planes = pass.targets.len() + 1;
    let report = run_pass_rtl_with(pass, &mem, &res, opts, &mut |_, sim| {
        counters = (0..planes)
            .map(|p| {
                let port = sim.output(&format!("bytes_{p}"));
                sim.peek(port.unwrap_or_else(|e| panic!("{e}")))
            })
            .collect();
    })
    .unwrap_or_else(|e| panic!("{e}"));
    if let Some(d) = compare(&report, &mem) {
        panic!("RTL and model differ (seed {:#x}): {d}", opts.seed);
    }
    (report, mem, res, counters)
}

/// Sample-rate shading and every static write-out mode at 4×, under memory back-pressure:
/// the surfaces equal the model's; every plane wrote exactly its surface's bytes (every
/// sample: 4 × the pixels); the statically suppressed plane wrote nothing.
#[test]
fn sample_shading_and_static_modes_match_the_model() {
    let pass = scene(0x4a5);
    let opts = super::engine::back_pressure(0x77);
    let (report, mem, res, counters) = check(&pass, &opts);
    let fragments: u32 = res.tiles.iter().map(|t| t.fragments).sum();
    assert!(
        fragments > 400,
        "the scene shades too little ({fragments} fragment invocations)"
    );
    let pixels = 32 * 32;
    assert_eq!(
        counters,
        vec![pixels * 4 * 4, pixels * 4, pixels * 4, 0, pixels * 4 * 4],
        "bytes written per plane: every sample, one sample, the mean, off, every sample"
    );
    assert!(res.surfaces[3].is_none(), "the model allocates no surface");
    for (p, s) in res.surfaces.iter().enumerate() {
        let Some(s) = s else { continue };
        let r = &mem.regions()[s.region.0];
        assert_eq!(report.regions[s.region.0].3, r.written_bytes, "plane {p}");
        assert_eq!(
            r.written_bytes, counters[p],
            "plane {p}: the region's bytes"
        );
    }
}

/// Sample-rate shading follows the draw state's bit: the same shader (it reads `r5`) on the
/// same scene with the flag cleared runs once per pixel with `gl_SampleID` = 0 on the model
/// and on the RTL, and gives another every-sample surface.
#[test]
fn sample_shading_is_per_draw_state() {
    let pass = scene(0x4a6);
    let mut pixel_rate = pass.clone();
    pixel_rate.meshes[0].sample_shading = false;
    let (a, ..) = check(&pass, &RtlOptions::default());
    let (b, ..) = check(&pixel_rate, &RtlOptions::default());
    assert_ne!(
        a.surfaces[0].1, b.surfaces[0].1,
        "sample-rate shading changes the every-sample surface"
    );
}

/// `lit_model.json` at 32×16 (two tiles).
fn lit_model_small() -> rendergen_gen::raster::RasterScene {
    lit_model_at(16)
}

/// Issue 13 at 4× MSAA: `lit_model`'s two-pass frame on the RTL (the G-buffer pass writes
/// every sample of its three targets; the lighting pass shades per sample, reading them back
/// through the image-load unit) equals the model's and the RTL's tile-shader frame bit for
/// bit, under memory back-pressure. Bytes per region equal the model's; the G-buffer is
/// written once in full (every sample) by two-pass and never by tile-shader, whose tile
/// shader suppresses it.
#[test]
fn lit_model_two_pass_at_4x_equals_tile_shader_on_the_rtl() {
    use rendergen_gen::raster::{render, render_rtl, Mode};
    let sc = lit_model_small();
    let opts = RtlOptions {
        seed: 0x4a4,
        latency: (2, 16),
        stall: 0.2,
        gap: 0.2,
        ..RtlOptions::default()
    };
    let mut tp =
        render(&sc, Mode::TwoPass, 4, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
    let model_pixels = tp.pixels.clone();
    let r_tp = render_rtl(&mut tp, &opts).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(tp.pixels, model_pixels, "two-pass 4×: RTL = model");
    let mut ts = render(&sc, Mode::TileShader, 4, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{}", e.message));
    let r_ts = render_rtl(&mut ts, &opts).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        ts.pixels, tp.pixels,
        "the RTL's tile-shader and two-pass frames at 4×"
    );
    let gbuffer_bytes = 32 * 16 * 4 * (4 + 8 + 8); // albedo RGBA8, normal and position RGBA16F
    for (frame, report, written) in [(&tp, &r_tp, gbuffer_bytes), (&ts, &r_ts, 0)] {
        let mut gbuffer = 0;
        let mut checked = 0;
        for (k, r) in frame.memory.regions().iter().enumerate() {
            if !["g-buffer", "lights", "output"].contains(&r.class.as_str()) {
                continue;
            }
            let (_, _, rd, wr) = &report.regions[k];
            assert_eq!(
                (*rd, *wr),
                (r.read_bytes, r.written_bytes),
                "region `{}`",
                r.name
            );
            if r.class == "g-buffer" {
                gbuffer += wr;
            }
            checked += 1;
        }
        assert!(
            checked >= 5,
            "three G-buffer planes, the lights, the output"
        );
        assert_eq!(gbuffer, written, "G-buffer bytes written on the RTL");
    }
    eprintln!(
        "lit_model 32×16 4× on the RTL: two-pass {} cycles, tile-shader {} cycles",
        r_tp.cycles, r_ts.cycles
    );
}

/// The engine at 4× with a sample-rate shaded mesh and every-sample write-out, co-simulated
/// in iverilog and Verilator: the first tile's first 8,000 cycles (the programs' load, the
/// clears, the draws and the per-sample fragment launches).
#[test]
fn engine_at_4x_cosimulates() {
    let mut pass = scene(0x4a7);
    pass.targets.truncate(1);
    pass.depth_writeout = WriteMode::Off;
    pass.meshes.truncate(1);
    pass.meshes[0].fragment = program("u2f r20, r5\nfadd r8, r8, r20\nexport 0, r8, 4\nend\n");
    let mut mem = Memory::new();
    let res = run_pass(&pass, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    let opts = RtlOptions {
        record: true,
        tiles: Some(1),
        ..RtlOptions::default()
    };
    run_pass_rtl_with(&pass, &mem, &res, &opts, &mut |design, sim| {
        let mut trace = sim.take_trace();
        trace.cycles.truncate(8_000);
        if let Err(e) = rendergen_gen::cosim::cosim_both(design, &trace) {
            panic!("co-simulation of tile_engine at 4x failed: {e}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

/// The engine at 4× (sample-rate launcher, every-sample write-out) emits lint-clean Verilog.
#[test]
fn engine_at_4x_lint_clean() {
    use rendergen_rtl::shader::ShaderCfg;
    use rendergen_rtl::tile::engine::{tile_engine_top, EngineCfg};
    use rendergen_rtl::tile::frag::FragCfg;
    use rendergen_rtl::tile::{RtFormat, TileCfg};
    let cfg = EngineCfg {
        frag: FragCfg {
            tile: TileCfg {
                samples: 4,
                formats: vec![RtFormat::Rgba8, RtFormat::Rgba16f],
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
    super::buffer::assert_lint_clean(&tile_engine_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

/// Every static mode beside a tile shader (which leaves the write-out alone, so the static
/// sample choice stands), on a 37×21 screen: partial tiles at the right and bottom edges,
/// rows that start in the middle of a beat. Under memory back-pressure the surfaces equal the
/// model's, each plane wrote exactly its visible pixels' bytes, and nothing is written outside
/// a surface (the driver's stray-write check).
#[test]
fn static_modes_beside_a_tile_shader_on_a_partial_screen() {
    use rendergen_sim::models::tile::frame::Resolve;
    let mut pass = scene(0x4a8);
    (pass.width, pass.height) = (37, 21);
    pass.resolves.push(Resolve {
        after: 2,
        program: program("end\n"),
        threads: (16, 16),
        rect: None,
    });
    let opts = super::engine::back_pressure(0x78);
    let (_, _, res, counters) = check(&pass, &opts);
    assert_eq!(res.tiles.len(), 6, "3 × 2 tiles");
    let pixels = 37 * 21;
    assert_eq!(
        counters,
        vec![pixels * 4 * 4, pixels * 4, pixels * 4, 0, pixels * 4 * 4],
        "bytes written per plane: every sample, one sample, the mean, off, every sample"
    );
}

/// The figures of `rtl/tile/README.md` for two-pass against tile-shader at 4× on the RTL:
/// `lit_model` at 32×32, the `rtl` section of `rendergen raster lit32.json -o x.png --mode
/// MODE --msaa 4 --engine rtl --json` (what the CLI calls): cycles, pixels per clock and
/// bytes per region class.
/// `cargo test -p rendergen-testbenches --test testbenches tile::engine_msaa::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_deferred_modes_at_4x_on_the_rtl() {
    measure_lit_model_modes(4);
}
