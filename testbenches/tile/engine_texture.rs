//! `tile_engine` with its texture unit (`rtl/tile/texture.rs`) against the frame model, bit
//! for bit: fragment shaders that sample (`tex`) on textured meshes, the model answering from
//! `rendergen_sim::models::texture::sample` (the unit's golden model, independent of the
//! RTL), the RTL through `tex_binder` → `tex_bridge` → `texture_unit` → `tex_line_port` on the
//! engine's one memory port (the memory agent's scoreboard checks every transaction).
use super::buffer::assert_lint_clean;
use super::engine::program;
use rendergen_gen::raster::rtl::{compare, run_pass_rtl, run_pass_rtl_with, RtlOptions, RtlReport};
use rendergen_rtl::shader::ShaderCfg;
use rendergen_rtl::tile::engine::{tile_engine_top, EngineCfg};
use rendergen_rtl::tile::frag::FragCfg;
use rendergen_rtl::tile::texture::EngineTexCfg;
use rendergen_rtl::tile::{RtFormat, TileCfg};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::texture::{Filter, TexDesc, Wrap};
use rendergen_sim::models::tile::buffer::{BlendState, Format};
use rendergen_sim::models::tile::frame::{
    run_pass, Attribute, Mesh, Pass, PassResult, Target, Texture,
};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::port::WriteMode;
use rendergen_sim::models::tile::setup::{CompareOp, RasterState};

/// Vertex shader: clip position from location 0, location 1 as varying slot 0.
const VERTEX: &str = "export 256, r8, 4\nexport 0, r12, 4\nend\n";

/// Fragment shader of a textured mesh: `texture(s, uv)` (filtered, bilinear, mip linear,
/// implicit LOD: `abi::tex_word_sample(0)`) at the varying's (x, y); the four UNORM16 words
/// as exact floats into RT0..RT3 (R32F).
const SAMPLING: &str = "
tex r20, r8, 0x1400
u2f r20, r20
u2f r21, r21
u2f r22, r22
u2f r23, r23
export 0, r20, 1
export 1, r21, 1
export 2, r22, 1
export 3, r23, 1
end
";

/// Fragment shader of an untextured mesh: the varying's words into RT0..RT3.
const PLAIN: &str = "
export 0, r8, 1
export 1, r9, 1
export 2, r10, 1
export 3, r11, 1
end
";

/// `n` random triangles over a 32×32 screen with w in 1..4 and texture coordinates in
/// `-1 .. 2` (every wrap mode matters), some small and some stretched (various LODs).
fn triangles(rng: &mut Rng, n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut pos = Vec::new();
    let mut uv = Vec::new();
    for _ in 0..n {
        let scale = [0.3, 1.0, 4.0][rng.below(3) as usize];
        let (u0, v0) = (
            rng.below(2000) as f32 / 1000.0 - 1.0,
            rng.below(2000) as f32 / 1000.0 - 1.0,
        );
        for _ in 0..3 {
            let w = 1.0 + 3.0 * rng.below(1000) as f32 / 1000.0;
            let x = (rng.below(2000) as f32 / 1000.0 - 1.0) * 1.2 * w;
            let y = (rng.below(2000) as f32 / 1000.0 - 1.0) * 1.2 * w;
            let z = rng.below(1000) as f32 / 1000.0 * w;
            pos.extend([x, y, z, w].map(f32::to_bits));
            let du = scale * rng.below(1000) as f32 / 1000.0;
            let dv = scale * rng.below(1000) as f32 / 1000.0;
            uv.extend([u0 + du, v0 + dv, 0.5, 1.0].map(f32::to_bits));
        }
    }
    (pos, uv)
}

/// A random RGBA8 texture of `2^lw × 2^lh` texels with `mips` levels.
fn texture(rng: &mut Rng, name: &str, lw: u32, lh: u32, mips: u32, wrap: [Wrap; 2]) -> Texture {
    let desc = TexDesc {
        base: 0,
        log2_w: lw,
        log2_h: lh,
        width: 1 << lw,
        height: 1 << lh,
        mips,
        srgb: false,
        tiled: false,
        wrap,
        border: 0,
        min_lod: 0,
        max_lod: 16 << 8,
        base_level: 0,
    };
    let texels = (0..desc.words()).map(|_| rng.next_u64() as u32).collect();
    Texture {
        name: name.into(),
        desc,
        texels,
        filter: Filter::Linear,
    }
}

fn mesh(name: &str, rng: &mut Rng, n: usize, fragment: &str, tex: Option<Texture>) -> Mesh {
    let (pos, uv) = triangles(rng, n);
    Mesh {
        name: name.into(),
        texture: tex,
        attributes: vec![
            Attribute {
                location: 0,
                components: 4,
                data: pos,
            },
            Attribute {
                location: 1,
                components: 4,
                data: uv,
            },
        ],
        indices: (0..3 * n as u32).collect(),
        vertex: program(VERTEX),
        fragment: program(fragment),
        varyings: 1,
        sample_shading: false,
        late_depth: false,
        state: RasterState {
            depth_op: CompareOp::Less,
            depth_write: true,
            ..RasterState::default()
        },
        blend: vec![BlendState::default(); 4],
    }
}

/// 32×32, four R32F targets; mesh 0 samples a 16×8 texture with 4 levels (trilinear,
/// repeat × mirrored repeat), mesh 1 has no texture, mesh 2 samples a 32×32 sRGB texture
/// of one level with clamp to edge and the binding's nearest filter. The meshes' triangles
/// interleave in the tiles, so the unit switches descriptors.
fn scene(seed: u64, n: usize) -> Pass {
    let mut rng = Rng::new(seed);
    let a = texture(&mut rng, "a", 4, 3, 4, [Wrap::Repeat, Wrap::Mirror]);
    let mut b = texture(&mut rng, "b", 5, 5, 1, [Wrap::Clamp; 2]);
    b.desc.srgb = true;
    b.filter = Filter::Nearest;
    let meshes = vec![
        mesh("a", &mut rng, n, SAMPLING, Some(a)),
        mesh("plain", &mut rng, n / 2 + 1, PLAIN, None),
        mesh("b", &mut rng, n, SAMPLING, Some(b)),
    ];
    let target = |k: usize| Target {
        name: format!("channel{k}"),
        class: "output".into(),
        format: Format::R32f,
        writeout: WriteMode::Average,
        clear: 0x4040_0000,
    };
    Pass {
        name: "textured".into(),
        width: 32,
        height: 32,
        samples: 1,
        targets: (0..4).map(target).collect(),
        depth_writeout: WriteMode::Off,
        depth_clear: 0xFF_FFFF,
        meshes,
        resolves: vec![],
        buffers: vec![],
        images: vec![],
    }
}

fn model(pass: &Pass) -> (Memory, PassResult) {
    let mut mem = Memory::new();
    let r = run_pass(pass, &mut mem).unwrap_or_else(|e| panic!("model: {e}"));
    (mem, r)
}

/// Runs `pass` on the model and the RTL, compares the surfaces and every region's byte
/// counts but the textures'; returns the RTL's report and the model's memory.
fn check(pass: &Pass, opts: &RtlOptions) -> (RtlReport, Memory) {
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
    check_regions(&report, &mem, "");
    let t = report.texture.clone().expect("texture counters");
    let rtl_tex: u64 = (report.regions.iter())
        .filter(|r| r.1 == "textures")
        .map(|r| r.2)
        .sum();
    let model_tex: u64 = (mem.regions().iter())
        .filter(|r| r.class == "textures")
        .map(|r| r.read_bytes)
        .sum();
    assert_eq!(rtl_tex, 16 * t.line_fills, "16 bytes per line fill");
    assert!(t.requests > 0 && t.switches > 1, "{t:?}");
    eprintln!(
        "tile_engine with textures `{}`: {drawn} fragments, {} cycles, {:?}; textures read: RTL {rtl_tex} bytes (line fills), model {model_tex} (4 per texel)",
        pass.name, report.cycles, t
    );
    (report, mem)
}

/// Every region's byte counts on the RTL equal the model's, but the textures' (line fills
/// through the cache against 4 bytes per texel read), what the geometry (in the model only)
/// moves (the vertex data, the command lists: the driver reads their tile table itself) and
/// the primitive buffer (the RTL's prologue loads each varying word per lane; not this
/// issue's).
fn check_regions(report: &RtlReport, mem: &Memory, what: &str) {
    for (k, r) in mem.regions().iter().enumerate() {
        let (_, class, rd, wr) = &report.regions[k];
        let (rd, wr) = match class.as_str() {
            "textures" | "vertex data" | "primitive data" | "command lists" => continue,
            _ => (*rd, *wr),
        };
        assert_eq!(
            (rd, wr),
            (r.read_bytes, r.written_bytes),
            "{what}region `{}`",
            r.name
        );
    }
}

#[test]
fn textured_draws_match_the_model() {
    check(&scene(21, 8), &RtlOptions::default());
}

#[test]
fn textured_draws_under_memory_back_pressure() {
    let opts = RtlOptions {
        seed: 0x7E8,
        latency: (1, 30),
        stall: 0.3,
        gap: 0.3,
        ..RtlOptions::default()
    };
    check(&scene(22, 6), &opts);
}

/// The recorded run of the first tile (program load, clears, textured and plain draws with
/// descriptor switches and line fills) replayed on the emitted Verilog in iverilog and
/// Verilator.
#[test]
fn engine_with_texture_cosimulates() {
    let pass = scene(23, 2);
    let (mem, res) = model(&pass);
    let opts = RtlOptions {
        record: true,
        tiles: Some(1),
        ..RtlOptions::default()
    };
    run_pass_rtl_with(&pass, &mem, &res, &opts, &mut |design, sim| {
        let trace = sim.take_trace();
        if let Err(e) = rendergen_gen::cosim::cosim_both(design, &trace) {
            panic!("co-simulation of tile_engine with its texture unit failed: {e}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
}

fn small_cfg(texture: Option<EngineTexCfg>) -> EngineCfg {
    EngineCfg {
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
        texture,
        geometry: None,
    }
}

#[test]
fn engine_with_texture_lint_clean() {
    let cfg = small_cfg(Some(EngineTexCfg {
        states: 2,
        ..EngineTexCfg::default()
    }));
    assert_lint_clean(&tile_engine_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

#[test]
fn bad_texture_parameters_are_named() {
    for (t, name) in [
        (
            EngineTexCfg {
                states: 0,
                ..EngineTexCfg::default()
            },
            "texture.states",
        ),
        (
            EngineTexCfg {
                cache_lines: 12,
                ..EngineTexCfg::default()
            },
            "texture.cache_lines",
        ),
        (
            EngineTexCfg {
                order_depth: 65,
                ..EngineTexCfg::default()
            },
            "texture.order_depth",
        ),
    ] {
        let e = tile_engine_top(&small_cfg(Some(t)))
            .unwrap_err()
            .to_string();
        assert!(e.contains(name), "{e}");
    }
}

/// The example scene `many_lights.json` (many small lights over a textured floor) at
/// `width × height` with its first `lights` lights.
fn many_lights(width: u32, height: u32, lights: usize) -> rendergen_gen::raster::RasterScene {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../gen/raster/scenes");
    let text = std::fs::read_to_string(dir.join("many_lights.json")).expect("many_lights.json");
    let text = (text.replace("\"width\": 128,", &format!("\"width\": {width},")))
        .replace("\"height\": 80,", &format!("\"height\": {height},"));
    let mut sc =
        rendergen_gen::raster::RasterScene::parse(&text, &dir).unwrap_or_else(|e| panic!("{e}"));
    sc.lights.truncate(lights);
    sc
}

/// `many_lights` in `mode` on the model and the RTL: the RTL's image equals the model's bit
/// for bit (`render_rtl` checks every surface of every pass), every region's byte counts but
/// the textures' equal the model's; returns the pixels.
fn many_lights_on_the_rtl(
    sc: &rendergen_gen::raster::RasterScene,
    mode: rendergen_gen::raster::Mode,
) -> Vec<u64> {
    use rendergen_gen::raster::{render, render_rtl, rtl_json};
    let mut f = render(sc, mode, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
    let model_pixels = f.pixels.clone();
    let r = render_rtl(&mut f, &RtlOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(f.pixels, model_pixels, "{mode:?}: RTL = model");
    check_regions(&r, &f.memory, &format!("{mode:?}: "));
    let j = rtl_json(&f, &r);
    eprintln!(
        "many_lights {}×{} {mode:?} on the RTL: {} cycles, texture {}",
        sc.width, sc.height, j["cycles"], j["texture"]
    );
    assert!(
        j["texture"]["line_fills"].as_u64().unwrap_or(0) > 0,
        "{}",
        j["texture"]
    );
    f.pixels
}

/// `many_lights` at 32×16 (two tiles) with 1 of its 48
/// lights (the lights' loop is most of the cycles; with all 48 this test takes 400 s here) in
/// the three modes on the RTL: each equals the model, and the tile-shader and two-pass frames
/// are equal.
#[test]
fn many_lights_small_matches_the_model_in_every_mode() {
    use rendergen_gen::raster::Mode;
    let sc = many_lights(32, 16, 1);
    many_lights_on_the_rtl(&sc, Mode::Forward);
    let ts = many_lights_on_the_rtl(&sc, Mode::TileShader);
    let tp = many_lights_on_the_rtl(&sc, Mode::TwoPass);
    assert_eq!(ts, tp, "tile-shader and two-pass frames");
}

/// The whole example frame (128×80) in the three modes on the RTL (long: run with
/// `cargo test -p rendergen-testbenches --test testbenches tile::engine_texture::many_lights_full -- --ignored --nocapture`).
#[test]
#[ignore]
fn many_lights_full_frame_matches_the_model() {
    use rendergen_gen::raster::Mode;
    let sc = many_lights(128, 80, usize::MAX);
    many_lights_on_the_rtl(&sc, Mode::Forward);
    let ts = many_lights_on_the_rtl(&sc, Mode::TileShader);
    let tp = many_lights_on_the_rtl(&sc, Mode::TwoPass);
    assert_eq!(ts, tp, "tile-shader and two-pass frames");
}

/// `tex_line_port` alone: random line reads (four word addresses anywhere in a 16 KiB
/// memory, as a clamped or wrapped line may give) under random gaps, back-pressure and memory
/// latency; an in-order scoreboard against the memory's words (nothing lost, duplicated or
/// reordered), 16 bytes counted per line; optionally co-simulated.
fn line_port_run(
    seed: u64,
    lines: usize,
    (gap, stall): (f64, f64),
    cosim: bool,
) -> Result<(), String> {
    use rendergen_rtl::tile::texture::tex_line_port_top;
    use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
    use rendergen_sim::kit::{InOrder, StreamSink, StreamSource, TbError, TestRun, Watchdog};
    let design = tex_line_port_top(8).map_err(|e| e.to_string())?;
    let mut sim = rendergen_sim::Simulator::new(&design).map_err(|e| e.to_string())?;
    if cosim {
        sim.start_recording();
    }
    let tb = TestRun::start(&mut sim, "tex_line_port", seed);
    let r = (|| -> Result<(), TbError> {
        let sim = &mut sim;
        let mut rng = Rng::new(seed);
        let size = 0x4000usize;
        let mut mem = MemoryAgent::new(
            sim,
            "mem",
            MemCfg {
                size,
                min_latency: 1,
                max_latency: 20,
                stall,
                gap,
                poison: 0xA5,
                max_outstanding: 8,
                seed: rng.next_u64(),
            },
        )?;
        let bytes: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
        mem.region("texels", 0, size as u64);
        mem.load(0, &bytes);
        let word = |a: u64| {
            u32::from_le_bytes(
                bytes[4 * a as usize..4 * a as usize + 4]
                    .try_into()
                    .unwrap(),
            ) as u64
        };
        let mut src = StreamSource::new(sim, "line_req", rng.next_u64())?.gap_prob(gap);
        let mut sink = StreamSink::new(sim, "line_resp", rng.next_u64())?.stall_prob(stall);
        let mut board = InOrder::new();
        for _ in 0..lines {
            let base = rng.below(size as u64 / 4 - 64);
            let addr: Vec<u64> = (0..4).map(|_| base + rng.below(64)).collect();
            src.send(&addr)?;
            board.expect(addr.iter().map(|&a| word(a)).collect());
        }
        sim.reset(1);
        let dog = Watchdog::new(200 * lines as u64 + 1000, seed);
        dog.run_until(sim, "every line", |sim| {
            super::mem_unit_cycle(sim, &mut src, &mut sink, &mut mem, &mut board)?;
            Ok(src.is_idle() && board.outstanding() == 0)
        })?;
        board.check_complete()?;
        mem.check()?;
        let r = &mem.regions()[0];
        if r.read_bytes != 16 * lines as u64 || r.written_bytes != 0 {
            return Err(TbError::new(format!(
                "read {} bytes, written {}: 16 per line expected",
                r.read_bytes, r.written_bytes
            )));
        }
        Ok(())
    })();
    tb.finish(&mut sim, r)?;
    if cosim {
        let mut trace = sim.take_trace();
        trace.cycles.truncate(1_500);
        rendergen_gen::cosim::cosim_both(&design, &trace).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[test]
fn line_port_matches_memory() {
    line_port_run(31, 400, (0.0, 0.0), false).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn line_port_under_back_pressure() {
    line_port_run(32, 400, (0.4, 0.4), false).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn line_port_cosimulates() {
    line_port_run(33, 100, (0.3, 0.3), true).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn line_port_lint_clean() {
    use rendergen_rtl::tile::texture::tex_line_port_top;
    assert_lint_clean(&tex_line_port_top(8).unwrap_or_else(|e| panic!("{e}")));
}
