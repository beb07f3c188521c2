//! The tile engine at scenario level (`tiles-and-allocation.md` A.10.3, A1–A17): each
//! scenario's pass on the frame model against an independent expectation, then on the RTL
//! engine (`run_pass_rtl`, one simulation from vertices to pixels, with random memory latency,
//! stalls and gaps) against the model, every surface and storage-buffer byte and every
//! region's written-byte count (`on_rtl`); `rendergen raster` modes (tile-shader and two-pass bit-identical, bytes against the analytic
//! minimum, nothing written to a suppressed render target) and its command line.

mod common;
use common::*;
use rendergen_gen::raster::rtl::{compare, run_pass_rtl, RtlOptions, RtlReport};
use rendergen_gen::raster::{render, render_rtl, Frame, Mode, RasterScene};
use rendergen_shader_compiler::{abi, compile, Lang, Options, ShaderStage};
use rendergen_sim::models::texture::{Filter, TexDesc, Wrap};
use rendergen_sim::models::tile::buffer::{div255, BlendOp, BlendState, Factor, Format};
use rendergen_sim::models::tile::command::Command;
use rendergen_sim::models::tile::frame::{
    run_pass, Attribute, FrameError, Mesh, Pass, PassResult, Program, Resolve, Target, Texture,
};
use rendergen_sim::models::tile::memory::{Memory, POISON};
use rendergen_sim::models::tile::port::{self, WriteMode};
use rendergen_sim::models::tile::setup::{CompareOp, RasterState};
use std::path::{Path, PathBuf};

fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("raster/scenes")
}

fn prog(src: &str, stage: ShaderStage) -> Program {
    let c = compile(src, "test", &Options::new(Lang::Glsl(stage)))
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    Program {
        words: c.words,
        uniforms: vec![],
    }
}

const VS: &str = "#version 450
layout(location = 0) in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }";

/// A fragment shader writing constant colours to locations `locs`.
fn fs_const(outs: &[(u32, [f32; 4])]) -> String {
    let mut s = String::from("#version 450\n");
    for (l, _) in outs {
        s += &format!("layout(location = {l}) out vec4 o{l};\n");
    }
    s += "void main() {\n";
    for (l, c) in outs {
        s += &format!(
            "o{l} = vec4({:?}, {:?}, {:?}, {:?});\n",
            c[0], c[1], c[2], c[3]
        );
    }
    s + "}\n"
}

/// A screen-space triangle (pixels) at depth `z` in a `w × h` frame.
fn tri_mesh(name: &str, w: u32, h: u32, px: [[f32; 2]; 3], z: f32, fs: &str) -> Mesh {
    let data = px
        .iter()
        .flat_map(|p| [2.0 * p[0] / w as f32 - 1.0, 2.0 * p[1] / h as f32 - 1.0, z])
        .map(f32::to_bits)
        .collect();
    Mesh {
        name: name.into(),
        attributes: vec![Attribute {
            location: 0,
            components: 3,
            data,
        }],
        indices: vec![0, 1, 2],
        vertex: prog(VS, ShaderStage::Vertex),
        fragment: prog(fs, ShaderStage::Fragment),
        varyings: 0,
        sample_shading: false,
        late_depth: false,
        state: RasterState {
            depth_op: CompareOp::Always,
            depth_write: false,
            ..Default::default()
        },
        blend: vec![BlendState::default(); 8],
        texture: None,
    }
}

/// A rectangle as two triangles covering pixels `[x0, x1) × [y0, y1)`.
fn rect_mesh(name: &str, w: u32, h: u32, r: [f32; 4], fs: &str) -> Mesh {
    let [x0, y0, x1, y1] = r;
    let mut m = tri_mesh(name, w, h, [[x0, y0], [x1, y0], [x0, y1]], 0.5, fs);
    let mut data = m.attributes[0].data.clone();
    let p = |x: f32, y: f32| [2.0 * x / w as f32 - 1.0, 2.0 * y / h as f32 - 1.0, 0.5];
    data.extend(p(x1, y1).map(f32::to_bits));
    m.attributes[0].data = data;
    m.indices = vec![0, 1, 2, 1, 3, 2];
    m
}

fn target(name: &str, format: Format, writeout: WriteMode) -> Target {
    Target {
        name: name.into(),
        class: name.into(),
        format,
        writeout,
        clear: 0,
    }
}

fn pass(w: u32, h: u32, samples: u32, targets: Vec<Target>, meshes: Vec<Mesh>) -> Pass {
    Pass {
        name: "t".into(),
        width: w,
        height: h,
        samples,
        targets,
        depth_writeout: WriteMode::Off,
        depth_clear: 0xFF_FFFF,
        meshes,
        resolves: vec![],
        buffers: vec![],
        images: vec![],
    }
}

fn resolve(after: usize, src: &str, threads: (u32, u32)) -> Resolve {
    Resolve {
        after,
        program: prog(src, ShaderStage::Compute),
        threads,
        rect: None,
    }
}

/// Plane `p`'s surface as values (one per stored sample), without counting reads.
fn surface(mem: &Memory, r: &PassResult, p: usize) -> Vec<u64> {
    let s = r.surfaces[p].expect("surface");
    let n = rendergen_sim::models::tile::pack::bytes_per_sample(s.format);
    mem.region(s.region)
        .bytes()
        .chunks(n)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn rgba8(c: [u32; 4]) -> u64 {
    (c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24) as u64
}

/// The commands of tile `i` of the pass's command-list region.
fn tile_commands(mem: &Memory, i: usize) -> Vec<Command> {
    let r = mem
        .regions()
        .iter()
        .find(|r| r.class == "command lists")
        .unwrap();
    let w: Vec<u64> = r
        .bytes()
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (mut at, n) = ((w[i] & 0xFFFF_FFFF) as usize, (w[i] >> 32) as usize);
    let end = at + n;
    let mut out = vec![];
    while at < end {
        let k = Command::size(w[at]).unwrap();
        out.push(Command::decode(&w[at..at + k]).unwrap());
        at += k;
    }
    out
}

/// Memory back-pressure for the RTL runs: answers after 1..=24 cycles, the request port and
/// the answers held back at random (seed `seed`).
fn rtl_options(seed: u64) -> RtlOptions {
    RtlOptions {
        seed,
        latency: (1, 24),
        stall: 0.2,
        gap: 0.2,
        ..RtlOptions::default()
    }
}

/// Runs pass `p` on the RTL engine (`mem` and `res`: the model's memory and result after
/// `run_pass` of `p`) with memory back-pressure and asserts that it equals the model: every
/// byte of every surface and bound storage buffer (`compare`), the bytes written to each of
/// those regions (a suppressed target's region gets 0), one report per tile.
fn on_rtl(p: &Pass, mem: &Memory, res: &PassResult, seed: u64) -> RtlReport {
    let report = run_pass_rtl(p, mem, res, &rtl_options(seed))
        .unwrap_or_else(|e| panic!("pass `{}` on the RTL: {e}", p.name));
    if let Some(d) = compare(&report, mem) {
        panic!("pass `{}`: RTL and model differ: {d}", p.name);
    }
    let regions =
        (res.surfaces.iter().flatten().map(|s| s.region.0)).chain(p.buffers.iter().map(|b| b.1 .0));
    for i in regions {
        let m = &mem.regions()[i];
        assert_eq!(
            report.regions[i].3, m.written_bytes,
            "pass `{}`: bytes written to `{}` (RTL, model)",
            p.name, m.name
        );
    }
    assert_eq!(report.tiles.len(), res.tiles.len(), "a report per tile");
    report
}

/// Bytes the RTL wrote to the region of plane `plane`'s surface.
fn rtl_written(report: &RtlReport, res: &PassResult, plane: usize) -> u64 {
    report.regions[res.surfaces[plane].expect("a surface").region.0].3
}

/// The RTL's refusal of pass `p` (the model's memory and result after it).
fn rtl_refuses(p: &Pass, mem: &Memory, res: &PassResult) -> String {
    match run_pass_rtl(p, mem, res, &rtl_options(1)) {
        Ok(_) => panic!("pass `{}`: the RTL ran it", p.name),
        Err(e) => e,
    }
}

/// Every pass of `f` on the RTL with memory back-pressure (`render_rtl` compares each pass's
/// surfaces with the model's); the RTL's bytes written per region must equal the model's.
fn frame_on_rtl(f: &mut Frame, seed: u64) -> RtlReport {
    let model_pixels = f.pixels.clone();
    let report = render_rtl(f, &rtl_options(seed)).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(f.pixels, model_pixels, "the RTL's output");
    for (i, r) in f.memory.regions().iter().enumerate() {
        if r.class != "command lists" && r.class != "primitive data" {
            assert_eq!(
                report.regions[i].3, r.written_bytes,
                "bytes written to `{}`",
                r.name
            );
        }
    }
    report
}

const TS_HEAD: &str = "#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, rgba8) uniform image2DArray rt0;
layout(binding = 1, rgba8) uniform image2DArray rt1;
layout(binding = 2, rgba8) uniform image2DArray rt2;
layout(binding = 15, r32ui) uniform uimage2D writeout;
";

#[test]
fn port_numbers_agree_with_the_compiler_abi() {
    for (op, aop) in [
        (port::OP_LOAD, abi::SPEC_LOAD),
        (port::OP_STORE, abi::SPEC_STORE),
        (port::OP_WRITEOUT, abi::SPEC_WRITEOUT),
    ] {
        assert_eq!(op, aop);
        assert_eq!(port::function(op, 5, 3), abi::spec_function(aop, 5, 3));
    }
    assert_eq!(port::DEPTH_PLANE, abi::TILE_DEPTH_BINDING);
    assert_eq!(port::WRITEOUT_BINDING, abi::WRITEOUT_BINDING);
}

/// A1 (drain barrier) and A16 (one core runs fragment then tile-shader threads): two
/// blended draws, then RESOLVE; the tile shader copies RT0 to RT1 and must see the blended
/// result of every fragment; every RESOLVE follows every DRAW of its tile in the list.
#[test]
fn a1_a16_resolve_sees_every_committed_fragment() {
    let (w, h) = (32, 16);
    let mut a = rect_mesh(
        "a",
        w,
        h,
        [0.0, 0.0, 32.0, 16.0],
        &fs_const(&[(0, [0.5, 0.0, 0.0, 1.0])]),
    );
    let mut b = rect_mesh(
        "b",
        w,
        h,
        [8.0, 0.0, 24.0, 16.0],
        &fs_const(&[(0, [0.0, 0.25, 0.0, 0.5])]),
    );
    let add = BlendState {
        enable: true,
        src_colour: Factor::SrcAlpha,
        dst_colour: Factor::One,
        src_alpha: Factor::One,
        dst_alpha: Factor::Zero,
        colour_op: BlendOp::Add,
        alpha_op: BlendOp::Add,
    };
    a.blend[0] = add;
    b.blend[0] = add;
    let mut p = pass(
        w,
        h,
        1,
        vec![
            target("rt0", Format::Rgba8, WriteMode::Off),
            target("rt1", Format::Rgba8, WriteMode::Average),
        ],
        vec![a, b],
    );
    let ts = format!("{TS_HEAD}void main() {{ ivec3 q = ivec3(gl_GlobalInvocationID.xy, 0); imageStore(rt1, q, imageLoad(rt0, q)); }}");
    p.resolves.push(resolve(2, &ts, (16, 16)));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 1);
    // Independent expectation: 0.5 red (128) + 0.5·0.25 green (0.125 → 32) where b covers.
    for y in 0..16 {
        for x in 0..32 {
            let want = if (8..24).contains(&x) {
                rgba8([128, 32, 0, 128])
            } else {
                rgba8([128, 0, 0, 255])
            };
            assert_eq!(out[y * 32 + x], want, "pixel ({x}, {y})");
        }
    }
    for t in 0..2 {
        let cmds = tile_commands(&mem, t);
        let last_draw = cmds
            .iter()
            .rposition(|c| matches!(c, Command::Draw { .. }))
            .unwrap();
        let res = cmds
            .iter()
            .position(|c| matches!(c, Command::Resolve { .. }))
            .unwrap();
        assert!(res > last_draw, "tile {t}: {cmds:?}");
        assert!(r.tiles[t].fragments > 0 && r.tiles[t].ts_threads == 256);
    }
    // The RTL: one core shades the fragments and then runs the tile shader's warps of each
    // tile; its image is the model's (the tile shader saw every blended fragment).
    let rep = on_rtl(&p, &mem, &r, 0xA1);
    assert_eq!(rtl_written(&rep, &r, 1), 32 * 16 * 4);
    assert!(rep.issued > 0);
    // The runs use the simulator's activity-aware evaluation (`RtlOptions::default`); the
    // same run under full evaluation, the reference, is the same cycle by cycle.
    let full = run_pass_rtl(
        &p,
        &mem,
        &r,
        &RtlOptions {
            eval: rendergen_sim::Eval::Full,
            ..rtl_options(0xA1)
        },
    )
    .unwrap();
    assert_eq!(rtl_options(0xA1).eval, rendergen_sim::Eval::Active);
    assert_eq!(
        (full.cycles, full.issued, &full.tiles, &full.regions),
        (rep.cycles, rep.issued, &rep.tiles, &rep.regions),
        "full and activity-aware evaluation"
    );
    assert_eq!(full.surfaces, rep.surfaces);
    assert_eq!(full.simulated.0, rep.simulated.0);
}

/// A2: DRAW, RESOLVE, DRAW: the overlay after the resolve blends over the tile shader's output
/// (32×16).
#[test]
fn a2_drawing_resumes_after_resolve() {
    let (w, h) = (32, 16);
    let base = rect_mesh(
        "base",
        w,
        h,
        [0.0, 0.0, 32.0, 16.0],
        &fs_const(&[(0, [0.2, 0.4, 0.6, 1.0])]),
    );
    let mut overlay = rect_mesh(
        "overlay",
        w,
        h,
        [0.0, 0.0, 8.0, 16.0],
        &fs_const(&[(1, [1.0, 1.0, 1.0, 0.5])]),
    );
    overlay.blend[1] = BlendState {
        enable: true,
        src_colour: Factor::SrcAlpha,
        dst_colour: Factor::OneMinusSrcAlpha,
        src_alpha: Factor::One,
        dst_alpha: Factor::Zero,
        ..Default::default()
    };
    let mut p = pass(
        w,
        h,
        1,
        vec![
            target("rt0", Format::Rgba8, WriteMode::Off),
            target("rt1", Format::Rgba8, WriteMode::Average),
        ],
        vec![base, overlay],
    );
    // The tile shader swaps red and blue into RT1.
    let ts = format!("{TS_HEAD}void main() {{ ivec3 q = ivec3(gl_GlobalInvocationID.xy, 0); imageStore(rt1, q, imageLoad(rt0, q).bgra); }}");
    p.resolves.push(resolve(1, &ts, (16, 16)));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 1);
    let ts_out = [153u32, 102, 51, 255]; // 0.6, 0.4, 0.2 as UNORM8
    let over: Vec<u32> = ts_out
        .iter()
        .take(3)
        .map(|&d| div255(255 * 128 + d * 127))
        .collect();
    for (x, &got) in out.iter().take(32).enumerate() {
        let want = if x < 8 {
            rgba8([over[0], over[1], over[2], 128])
        } else {
            rgba8(ts_out)
        };
        assert_eq!(got, want, "x = {x}");
    }
    let cmds = tile_commands(&mem, 0);
    let kinds: Vec<&str> = cmds
        .iter()
        .map(|c| match c {
            Command::TileBegin { .. } => "begin",
            Command::Draw { .. } => "draw",
            Command::Resolve { .. } => "resolve",
            Command::EndTile => "end",
        })
        .collect();
    assert_eq!(
        kinds,
        ["begin", "draw", "draw", "resolve", "draw", "draw", "end"]
    );
    on_rtl(&p, &mem, &r, 0xA2);
}

fn scene(name: &str) -> RasterScene {
    RasterScene::load(&scenes().join(name)).unwrap()
}

/// The lighting of `lighting.comp` in f64 from G-buffer values (an independent golden model).
fn shade_f64(
    sc: &RasterScene,
    albedo: [f64; 3],
    n: [f64; 3],
    p: [f64; 3],
    geometry: f64,
) -> [f64; 3] {
    let mut c: [f64; 3] = std::array::from_fn(|i| sc.ambient[i] as f64 * albedo[i]);
    for l in &sc.lights {
        let d: [f64; 3] = std::array::from_fn(|i| l.position[i] as f64 - p[i]);
        let dist2 = d.iter().map(|x| x * x).sum::<f64>();
        let r = l.radius as f64;
        let fall = (1.0 - dist2 / (r * r)).max(0.0);
        let ndl = (0..3).map(|i| n[i] * d[i]).sum::<f64>() / dist2.max(1e-8).sqrt();
        for i in 0..3 {
            c[i] += albedo[i] * l.colour[i] as f64 * ndl.max(0.0) * fall * fall;
        }
    }
    c.map(|x| x * geometry)
}

/// A3 (deferred lighting bit-exact with the two-pass reference; checked against an f64
/// golden model of the lighting from the G-buffer) and A15 (full frame, both example
/// scenes, 1× and 4×), with the bandwidth figures: tile-shader bytes equal the analytic
/// minimum exactly, and two-pass adds exactly the G-buffer written once and read once.
#[test]
fn a3_a15_tile_shader_equals_two_pass_and_the_minimum() {
    for (name, msaa) in [
        ("lit_model.json", 1),
        ("lit_model.json", 4),
        ("many_lights.json", 1),
    ] {
        let sc = scene(name);
        let ts = render(&sc, Mode::TileShader, msaa, &mut |_, _| {}).unwrap();
        let tp = render(&sc, Mode::TwoPass, msaa, &mut |_, _| {}).unwrap();
        assert_eq!(
            ts.pixels, tp.pixels,
            "{name} {msaa}×: tile-shader and two-pass differ"
        );
        assert_eq!(ts.total_bytes(), ts.minimum_bytes, "{name} {msaa}×");
        assert_eq!(ts.memory.poison_reads(), 0);
        assert_eq!(tp.memory.poison_reads(), 0);
        let classes_ts = ts.bytes_by_class();
        let classes_tp = tp.bytes_by_class();
        assert_eq!(
            classes_ts["g-buffer"],
            (0, 0),
            "{name}: the G-buffer stays on chip"
        );
        assert_eq!(
            classes_ts["lights"], classes_tp["lights"],
            "both read the same inputs"
        );
        assert_eq!(
            classes_ts.get("textures"),
            classes_tp.get("textures"),
            "both read the same texels"
        );
        if name == "many_lights.json" {
            let (read, written) = classes_ts["textures"];
            assert!(
                read > 0 && written == 0,
                "the textured floor: {read} bytes read"
            );
        }
        let px = (sc.width * sc.height) as u64;
        let gbytes = px * msaa as u64 * (4 + 8 + 8);
        assert_eq!(classes_tp["g-buffer"], (gbytes, gbytes), "{name} {msaa}×");
        assert_eq!(classes_ts["output"], (0, 4 * px));
        if msaa == 1 && name == "lit_model.json" {
            // Golden: f64 lighting of the two-pass G-buffer surfaces, within 1 LSB.
            let region = |n: &str| {
                tp.memory
                    .regions()
                    .iter()
                    .find(|r| r.name.ends_with(n))
                    .unwrap()
                    .bytes()
                    .to_vec()
            };
            let (alb, nrm, pos) = (region(": albedo"), region(": normal"), region(": position"));
            let h = |b: &[u8], i: usize| {
                f32::from_bits(rendergen_sim::models::tile::pack::f16_to_f32(
                    u16::from_le_bytes([b[i], b[i + 1]]),
                )) as f64
            };
            let mut worst = 0;
            for i in 0..px as usize {
                let a = [0, 1, 2].map(|c| alb[4 * i + c] as f64 / 255.0);
                let n = [0, 1, 2].map(|c| h(&nrm, 8 * i + 2 * c));
                let p = [0, 1, 2].map(|c| h(&pos, 8 * i + 2 * c));
                let c = shade_f64(&sc, a, n, p, h(&nrm, 8 * i + 6));
                for (k, ck) in c.iter().enumerate() {
                    let want = (ck.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as i64;
                    let got = ((ts.pixels[i] >> (8 * k)) & 0xFF) as i64;
                    worst = worst.max((want - got).abs());
                }
            }
            assert!(
                worst <= 1,
                "lighting differs from the f64 golden model by {worst} LSB"
            );
        }
    }
}

/// `lit_model.json` at `w × h` (its camera, meshes, lights and shaders).
fn lit_model_at(w: u32, h: u32) -> RasterScene {
    let text = std::fs::read_to_string(scenes().join("lit_model.json")).unwrap();
    assert!(text.contains("\"width\": 96,") && text.contains("\"height\": 64,"));
    let text = (text.replace("\"width\": 96,", &format!("\"width\": {w},")))
        .replace("\"height\": 64,", &format!("\"height\": {h},"));
    RasterScene::parse(&text, &scenes()).unwrap()
}

/// A3, A6 and A15 on the RTL: `lit_model` at 32×16 (two tiles) in tile-shader and two-pass
/// mode at 1×, every pass on the RTL with memory back-pressure (the 96×64 frame and 4× are
/// `a3_a6_a15_full_frames_on_the_rtl`, ignored).
#[test]
fn a3_a6_a15_frames_on_the_rtl() {
    lit_model_on_rtl(&lit_model_at(32, 16), false);
}

/// A3, A6 and A15's whole frames on the RTL: `lit_model` at 96×64 (24 tiles) in tile-shader
/// mode at 1× and 4× and in two-pass mode at 1× (251 s on one core with the activity-aware
/// simulation; about 14 minutes before).
#[test]
#[ignore = "long: the 96×64 frame three times on the RTL"]
fn a3_a6_a15_full_frames_on_the_rtl() {
    lit_model_on_rtl(&scene("lit_model.json"), true);
}

/// `sc` in tile-shader and two-pass mode at 1× (and tile-shader mode at 4× with `msaa4`) on
/// the model, then every pass on the RTL with memory back-pressure (`render_rtl` compares
/// every surface byte with the model's, `frame_on_rtl` the bytes written per region): the
/// RTL's two modes give the same image (A3, A15); in tile-shader mode nothing reaches the
/// G-buffer's regions and the output is written once (A6).
fn lit_model_on_rtl(sc: &RasterScene, msaa4: bool) {
    let px = u64::from(sc.width * sc.height);
    let mut images = vec![];
    let mut runs = vec![(Mode::TileShader, 1, 0xA3), (Mode::TwoPass, 1, 0xA15)];
    if msaa4 {
        runs.push((Mode::TileShader, 4, 0xA6));
    }
    for (mode, msaa, seed) in runs {
        let mut f = render(sc, mode, msaa, &mut |_, _| {}).unwrap();
        let rep = frame_on_rtl(&mut f, seed);
        eprintln!(
            "{mode:?} {msaa}×: {} cycles simulated in {:.1} s",
            rep.simulated.0, rep.simulated.1
        );
        let written = |class: &str| -> u64 {
            (rep.regions.iter())
                .filter(|r| r.1 == class)
                .map(|r| r.3)
                .sum()
        };
        let gbuffer = match mode {
            Mode::TwoPass => px * u64::from(msaa) * (4 + 8 + 8),
            _ => 0,
        };
        assert_eq!(written("g-buffer"), gbuffer, "{mode:?} {msaa}×");
        assert_eq!(written("output"), 4 * px, "{mode:?} {msaa}×");
        images.push(f.pixels);
    }
    assert_eq!(images[0], images[1], "tile-shader and two-pass on the RTL");
}

/// A4: neighbour access across render targets inside the tile (edges clamped to the tile),
/// and an access outside the tile is an error naming the thread and the address.
#[test]
fn a4_neighbour_access_and_out_of_tile_errors() {
    let (w, h) = (32, 16);
    let fs = "#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(gl_FragCoord.x / 64.0, gl_FragCoord.y / 64.0, 0.0, 1.0); }";
    let m = rect_mesh("grad", w, h, [0.0, 0.0, 32.0, 16.0], fs);
    let targets = vec![
        target("rt0", Format::Rgba8, WriteMode::Off),
        target("rt1", Format::Rgba8, WriteMode::Average),
    ];
    let mut p = pass(w, h, 1, targets, vec![m]);
    // rt1(p) = rt0(right neighbour, clamped to the tile) − rt0(p) + rt0(below, clamped).
    let ts = format!("{TS_HEAD}void main() {{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 o = ivec2(gl_WorkGroupID.xy) * 16;
    ivec2 r = ivec2(min(p.x + 1, o.x + 15), p.y);
    ivec2 b = ivec2(p.x, min(p.y + 1, o.y + 15));
    vec4 c = imageLoad(rt0, ivec3(r, 0)) - imageLoad(rt0, ivec3(p, 0)) + imageLoad(rt0, ivec3(b, 0));
    imageStore(rt1, ivec3(p, 0), vec4(c.rgb, 1.0));
}}");
    p.resolves.push(resolve(1, &ts, (16, 16)));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 1);
    let v = |x: u32, y: u32| {
        [
            ((x as f64 + 0.5) / 64.0 * 255.0 + 0.5).floor() as i64,
            ((y as f64 + 0.5) / 64.0 * 255.0 + 0.5).floor() as i64,
        ]
    };
    for y in 0..16u32 {
        for x in 0..32u32 {
            let rx = (x + 1).min(x / 16 * 16 + 15);
            let by = (y + 1).min(15);
            let c: Vec<i64> = (0..2)
                .map(|k| v(rx, y)[k] - v(x, y)[k] + v(x, by)[k])
                .collect();
            let want = rgba8([c[0].clamp(0, 255) as u32, c[1].clamp(0, 255) as u32, 0, 255]);
            assert_eq!(out[(y * 32 + x) as usize], want, "({x}, {y})");
        }
    }
    on_rtl(&p, &mem, &r, 0xA4);
    // Without the clamp, thread (15, y) reads pixel (16, y) of the next tile.
    let bad = format!("{TS_HEAD}void main() {{ ivec2 p = ivec2(gl_GlobalInvocationID.xy); imageStore(rt1, ivec3(p, 0), imageLoad(rt0, ivec3(p.x + 1, p.y, 0))); }}");
    p.resolves[0] = resolve(1, &bad, (16, 16));
    // The RTL (same geometry, so the good pass's model run serves as its reference): the
    // first tile's thread (15, y) reading pixel (16, y) of binding 0 (rt0), sample 0, stops
    // the run with an error naming the thread and the access (which y first is the core's
    // choice: warps of one RESOLVE run in no defined order).
    let e = rtl_refuses(&p, &mem, &r);
    let y = (e.split("tile shader thread (15, ").nth(1))
        .and_then(|t| t.split(')').next())
        .unwrap_or_else(|| panic!("no thread (15, y) in: {e}"));
    assert!(
        e.contains(&format!("thread (15, {y}) of tile (0, 0)"))
            && e.contains(&format!(
                "accessed binding 0 at pixel (16, {y}) sample 0: outside its tile"
            )),
        "{e}"
    );
    let e = run_pass(&p, &mut Memory::new()).unwrap_err();
    match &e {
        FrameError::OutOfTile {
            tile,
            thread,
            plane,
            address,
        } => {
            assert_eq!(
                (*tile, thread.0, *plane, address.0, address.2),
                ((0, 0), 15, 0, 16, 0)
            );
            assert_eq!(address.1, thread.1);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("outside its tile"), "{e}");
}

/// A5: scatter and multiple outputs: thread p writes the pixel mirrored in its tile of two
/// render targets, every sample, at 4× (32×16), with a static sample choice and the same
/// choice made by the tile shader.
#[test]
fn a5_scatter_to_other_pixels_samples_and_targets() {
    let fs = "#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(gl_FragCoord.x / 32.0, gl_FragCoord.y / 16.0, 0.0, 1.0); }";
    let m = rect_mesh("grad", 32, 16, [0.0, 0.0, 32.0, 16.0], fs);
    let targets = vec![
        target("rt0", Format::Rgba8, WriteMode::Off),
        target("rt1", Format::Rgba8, WriteMode::All),
        target("rt2", Format::Rgba8, WriteMode::Sample(2)),
    ];
    let mut p = pass(32, 16, 4, targets, vec![m]);
    // `select`: a statement choosing write-out modes per tile.
    let ts = |select: &str| {
        format!(
            "{TS_HEAD}void main() {{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 q = ivec2(gl_WorkGroupID.xy) * 16 + ivec2(15) - ivec2(gl_LocalInvocationID.xy);
    for (int s = 0; s < 4; s++) {{
        vec4 c = imageLoad(rt0, ivec3(p, s));
        imageStore(rt1, ivec3(q, s), vec4(c.rg, float(s) / 4.0, 1.0));
        imageStore(rt2, ivec3(q, 3 - s), c.gbra);
    }}
    {select}
}}"
        )
    };
    p.resolves.push(resolve(1, &ts(""), (16, 16)));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let (o1, o2) = (surface(&mem, &r, 1), surface(&mem, &r, 2));
    let u = |v: f64| (v * 255.0 + 0.5).floor() as u32;
    for y in 0..16u32 {
        for x in 0..32u32 {
            let (sx, sy) = (x / 16 * 16 + 15 - x % 16, 15 - y); // the source pixel
            let c = [u((sx as f64 + 0.5) / 32.0), u((sy as f64 + 0.5) / 16.0)];
            for s in 0..4 {
                assert_eq!(
                    o1[((y * 32 + x) * 4 + s) as usize],
                    rgba8([c[0], c[1], u(s as f64 / 4.0), 255])
                );
            }
            // rt2's sample 2 came from source sample 1: (g, b, r, a).
            assert_eq!(o2[(y * 32 + x) as usize], rgba8([c[1], 0, c[0], 255]));
        }
    }
    // The static selection on the RTL (the tile shader leaves rt2's resolve alone).
    let rep = on_rtl(&p, &mem, &r, 0xA5 ^ 0x50);
    assert_eq!(rtl_written(&rep, &r, 2), 32 * 16 * 4, "one sample of rt2");
    // The same selection made by the tile shader (rt2: write-out mode 2 + 2, sample 2, per
    // tile) gives the same image on the model, and the RTL's equals it.
    p.targets[2].writeout = WriteMode::Average;
    let select = "if (gl_LocalInvocationIndex == 0u) imageStore(writeout, ivec2(2, 0), uvec4(4u));";
    p.resolves[0] = resolve(1, &ts(select), (16, 16));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    assert_eq!((surface(&mem, &r, 1), surface(&mem, &r, 2)), (o1, o2));
    let rep = on_rtl(&p, &mem, &r, 0xA5);
    assert_eq!(
        rtl_written(&rep, &r, 1),
        32 * 16 * 4 * 4,
        "every sample of rt1"
    );
    assert_eq!(rtl_written(&rep, &r, 2), 32 * 16 * 4, "one sample of rt2");
}

/// A6 and the memory-model assertion: in tile-shader mode nothing is ever written to a
/// suppressed render target's region (every byte still poison), only the output is written.
#[test]
fn a6_suppressed_targets_are_never_written() {
    let sc = scene("lit_model.json");
    let f = render(&sc, Mode::TileShader, 4, &mut |_, _| {}).unwrap();
    let mut gb = 0;
    for r in f.memory.regions() {
        if r.class == "g-buffer" {
            gb += 1;
            assert_eq!((r.written_bytes, r.bytes_touched()), (0, 0), "{}", r.name);
            assert!(r.bytes().iter().all(|&b| b == POISON), "{}", r.name);
        }
    }
    assert_eq!(
        gb, 3,
        "the G-buffer has surfaces (static write-out on), suppressed per tile"
    );
    let out = f
        .memory
        .regions()
        .iter()
        .find(|r| r.class == "output")
        .unwrap();
    assert_eq!(out.written_bytes, 4 * (sc.width * sc.height) as u64);
    assert_eq!(out.bytes_touched(), out.size());
}

/// A7: dynamic per-tile suppression: the tile shader keeps the output of tiles with no
/// geometry off; their memory stays poison, on the model and on the RTL (64×16).
#[test]
fn a7_dynamic_suppression_per_tile() {
    let (w, h) = (64, 16);
    let m = rect_mesh(
        "mid",
        w,
        h,
        [16.0, 0.0, 32.0, 16.0],
        &fs_const(&[(0, [1.0, 0.0, 0.0, 1.0])]),
    );
    let targets = vec![
        target("rt0", Format::Rgba8, WriteMode::Average),
        target("rt1", Format::Rgba8, WriteMode::Average),
    ];
    let mut p = pass(w, h, 1, targets, vec![m]);
    // Thread 0 turns write-out of both planes off unless the tile's first pixel is red.
    let ts = format!(
        "{TS_HEAD}void main() {{
    ivec2 o = ivec2(gl_WorkGroupID.xy) * 16;
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    imageStore(rt1, ivec3(p, 0), vec4(0.0, 1.0, 0.0, 1.0));
    if (gl_LocalInvocationIndex == 0u) {{
        uint mode = imageLoad(rt0, ivec3(o, 0)).r > 0.5 ? 1u : 0u;
        imageStore(writeout, ivec2(0, 0), uvec4(mode));
        imageStore(writeout, ivec2(1, 0), uvec4(mode));
    }}
}}"
    );
    p.resolves.push(resolve(1, &ts, (16, 16)));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    for plane in 0..2 {
        let s = r.surfaces[plane].unwrap();
        let reg = mem.region(s.region);
        assert_eq!(
            reg.written_bytes,
            16 * 16 * 4,
            "plane {plane}: one tile written"
        );
        for y in 0..16u64 {
            for x in 0..64u64 {
                let o = (y * 64 + x) * 4;
                assert_eq!(
                    reg.was_written(o),
                    (16..32).contains(&x),
                    "plane {plane} ({x}, {y})"
                );
            }
        }
    }
    assert_eq!(
        r.tiles
            .iter()
            .map(|t| t.cycles_writeout)
            .collect::<Vec<_>>(),
        [0, 128, 0, 0]
    ); // two planes × 1 KiB at 16 B a cycle
    let rep = on_rtl(&p, &mem, &r, 0xA7);
    for plane in 0..2 {
        assert_eq!(rtl_written(&rep, &r, plane), 16 * 16 * 4, "plane {plane}");
    }
}

/// A8: static suppression by configuration: no region, no bytes, no tile-shader instruction.
#[test]
fn a8_static_suppression() {
    let m = rect_mesh(
        "all",
        32,
        32,
        [0.0, 0.0, 32.0, 32.0],
        &fs_const(&[(0, [1.0, 0.0, 0.0, 1.0]), (1, [0.0, 1.0, 0.0, 1.0])]),
    );
    let targets = vec![
        target("rt0", Format::Rgba8, WriteMode::Off),
        target("rt1", Format::Rgba8, WriteMode::Average),
    ];
    let p = pass(32, 32, 1, targets, vec![m]);
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    assert!(
        r.surfaces[0].is_none() && r.surfaces[2].is_none(),
        "rt0 and depth are off"
    );
    assert!(!mem.regions().iter().any(|r| r.name.ends_with("rt0")));
    assert!(surface(&mem, &r, 1)
        .iter()
        .all(|&v| v == rgba8([0, 255, 0, 255])));
    let written: u64 = mem
        .regions()
        .iter()
        .filter(|r| r.class == "rt1")
        .map(|r| r.written_bytes)
        .sum();
    assert_eq!(written, 32 * 32 * 4);
    let rep = on_rtl(&p, &mem, &r, 0xA8);
    assert_eq!(rtl_written(&rep, &r, 1), 32 * 32 * 4);
    let total: u64 = rep
        .regions
        .iter()
        .filter(|r| r.1 == "rt1" || r.1 == "rt0")
        .map(|r| r.3)
        .sum();
    assert_eq!(total, 32 * 32 * 4, "nothing else written to a target");
}

/// A9: direct store: the tile shader writes its result with storage-buffer stores, every
/// write-out is off, and the image in memory matches the golden one.
#[test]
fn a9_direct_store_bypasses_write_out() {
    let fs = "#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(gl_FragCoord.x / 32.0, 0.0, 0.0, 1.0); }";
    let m = rect_mesh("grad", 32, 16, [0.0, 0.0, 32.0, 16.0], fs);
    let mut p = pass(
        32,
        16,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Off)],
        vec![m],
    );
    let mut mem = Memory::new();
    let out = mem.alloc("ts out", "ts out", 32 * 16 * 4);
    p.buffers.push((3, out));
    let ts = format!(
        "{TS_HEAD}
layout(std430, binding = 3) buffer Out {{ uint px[512]; }};
void main() {{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 c = imageLoad(rt0, ivec3(p, 0));
    px[p.y * 32 + p.x] = uint(c.r * 255.0 + 0.5) + 1000u;
}}"
    );
    p.resolves.push(resolve(1, &ts, (16, 16)));
    let r = run_pass(&p, &mut mem).unwrap();
    assert!(r.tiles.iter().all(|t| t.cycles_writeout == 0));
    let b = mem.region(out).bytes();
    for i in 0..512usize {
        let x = (i % 32) as f64;
        let want = ((x + 0.5) / 32.0 * 255.0 + 0.5).floor() as u32 + 1000;
        assert_eq!(
            u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]),
            want,
            "pixel {i}"
        );
    }
    assert_eq!(mem.region(out).written_bytes, 512 * 4);
    // The RTL: the buffer's bytes are the model's (`compare`), written once each; no
    // surface, so no write-out.
    let rep = on_rtl(&p, &mem, &r, 0xA9);
    assert_eq!(rep.regions[out.0].3, 512 * 4);
    assert!(r.surfaces.iter().all(Option::is_none));
    let other: Vec<_> = (rep.regions.iter().enumerate())
        .filter(|(i, r)| *i != out.0 && r.3 > 0)
        .filter(|(_, r)| {
            !["primitive data", "command lists", "post-transform vertices"].contains(&r.1.as_str())
        })
        .collect();
    assert!(other.is_empty(), "written besides the buffer: {other:?}");
}

/// A10: two RESOLVEs in one tile; the second reads the first one's output render target
/// (32×16).
#[test]
fn a10_second_resolve_reads_the_first_output() {
    let m = rect_mesh(
        "c",
        32,
        16,
        [0.0, 0.0, 32.0, 16.0],
        &fs_const(&[(0, [0.4, 0.2, 0.0, 1.0])]),
    );
    let targets = vec![
        target("rt0", Format::Rgba8, WriteMode::Off),
        target("rt1", Format::Rgba8, WriteMode::Off),
        target("rt2", Format::Rgba8, WriteMode::Average),
    ];
    let mut p = pass(32, 16, 1, targets, vec![m]);
    let first = format!("{TS_HEAD}void main() {{ ivec3 q = ivec3(gl_GlobalInvocationID.xy, 0); imageStore(rt1, q, imageLoad(rt0, q) * 2.0); }}");
    let second = format!("{TS_HEAD}void main() {{ ivec3 q = ivec3(gl_GlobalInvocationID.xy, 0); vec4 c = imageLoad(rt1, q); imageStore(rt2, q, vec4(c.g, c.r, 0.0, 1.0)); }}");
    p.resolves.push(resolve(1, &first, (16, 16)));
    p.resolves.push(resolve(1, &second, (16, 16)));
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    // 0.4 → 102 → 102/255·2 → 204; 0.2 → 51 → 102.
    assert!(surface(&mem, &r, 2)
        .iter()
        .all(|&v| v == rgba8([102, 204, 0, 255])));
    let resolves = tile_commands(&mem, 0)
        .iter()
        .filter(|c| matches!(c, Command::Resolve { .. }))
        .count();
    assert_eq!(resolves, 2);
    on_rtl(&p, &mem, &r, 0xA10);
}

/// A11: a region resolve reaches exactly the tiles that hold a pixel of its rectangle.
#[test]
fn a11_region_resolve_tiles() {
    let m = rect_mesh(
        "c",
        64,
        48,
        [0.0, 0.0, 64.0, 48.0],
        &fs_const(&[(0, [1.0, 1.0, 1.0, 1.0])]),
    );
    let mut p = pass(
        64,
        48,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Average)],
        vec![m],
    );
    let ts = format!("{TS_HEAD}void main() {{ imageStore(rt0, ivec3(gl_GlobalInvocationID.xy, 0), vec4(0.0)); }}");
    for (rect, want) in [
        ([15, 16, 2, 1], vec![(0, 1), (1, 1)]),
        ([16, 16, 16, 16], vec![(1, 1)]),
        ([31, 31, 2, 2], vec![(1, 1), (2, 1), (1, 2), (2, 2)]),
        ([0, 0, 0, 5], vec![]),
    ] {
        let mut res = resolve(1, &ts, (16, 16));
        res.rect = Some(rect);
        p.resolves = vec![res];
        let mut mem = Memory::new();
        let r = run_pass(&p, &mut mem).unwrap();
        let got: Vec<(u32, u32)> = r
            .tiles
            .iter()
            .filter(|t| t.ts_threads > 0)
            .map(|t| t.tile)
            .collect();
        assert_eq!(got, want, "rect {rect:?}");
        let black = surface(&mem, &r, 0).iter().filter(|&&v| v == 0).count();
        assert_eq!(black, want.len() * 256, "rect {rect:?}");
        let rep = on_rtl(&p, &mem, &r, 0xA11 + rect[0] as u64);
        let ts: Vec<(u32, u32)> = (rep.tiles.iter())
            .filter(|t| t.tile_shader > 0)
            .map(|t| t.tile)
            .collect();
        assert_eq!(
            ts, want,
            "rect {rect:?}: tiles whose tile shader ran on the RTL"
        );
    }
}

/// A12: 4× MSAA: the tile shader reads every sample; write-out by average and by selecting
/// each sample, statically (the target's mode) and dynamically (the tile shader's write-out
/// control, which also undoes a static selection with "average"), against an f64 coverage
/// golden model of the standard sample positions. Every case also on the RTL.
#[test]
fn a12_msaa_average_and_sample_select() {
    // 32×16; the triangle is in the left tile.
    let (w, h) = (32, 16);
    // Vertices on the 1/256 grid (what setup snaps to), off the sample lattice.
    let tri = [
        [77.0 / 256.0, 51.0 / 256.0],
        [4019.0 / 256.0, 795.0 / 256.0],
        [563.0 / 256.0, 3943.0 / 256.0],
    ];
    let inside = |x: f64, y: f64| {
        let e = |a: [f32; 2], b: [f32; 2]| {
            let (a, b) = (a.map(|v| v as f64), b.map(|v| v as f64));
            (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])
        };
        let s = [e(tri[0], tri[1]), e(tri[1], tri[2]), e(tri[2], tri[0])];
        assert!(s.iter().all(|&v| v != 0.0), "a sample on an edge");
        s.iter().all(|&v| v > 0.0) || s.iter().all(|&v| v < 0.0)
    };
    let pos = [
        (0.375, 0.125),
        (0.875, 0.375),
        (0.125, 0.625),
        (0.625, 0.875),
    ];
    // (the target's static mode, the mode the tile shader sets, the effective mode)
    let mut cases: Vec<(WriteMode, Option<WriteMode>, WriteMode)> =
        vec![(WriteMode::Average, None, WriteMode::Average)];
    for s in 0..4 {
        let sample = WriteMode::Sample(s);
        cases.push((sample, None, sample));
        cases.push((WriteMode::Average, Some(sample), sample));
    }
    // The tile shader's "average" over a static selection, and one selection over another.
    let average = WriteMode::Average;
    cases.push((WriteMode::Sample(1), Some(average), average));
    cases.push((
        WriteMode::Sample(3),
        Some(WriteMode::Sample(0)),
        WriteMode::Sample(0),
    ));
    for (k, (static_mode, dynamic, mode)) in cases.into_iter().enumerate() {
        let m = tri_mesh("t", w, h, tri, 0.5, &fs_const(&[(0, [1.0, 1.0, 1.0, 1.0])]));
        let targets = vec![
            target("rt0", Format::Rgba8, WriteMode::Off),
            target("rt1", Format::Rgba8, static_mode),
        ];
        let select = match dynamic {
            Some(d) => format!(
                "if (gl_LocalInvocationIndex == 0u) imageStore(writeout, ivec2(1, 0), uvec4({}u));",
                d.code()
            ),
            None => String::new(),
        };
        let mut p = pass(w, h, 4, targets, vec![m]);
        // rt1 sample s = rt0 sample s with green = the number of covered samples / 4.
        let ts = format!(
            "{TS_HEAD}void main() {{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    float n = 0.0;
    for (int s = 0; s < 4; s++) n += imageLoad(rt0, ivec3(p, s)).r;
    for (int s = 0; s < 4; s++) {{
        vec4 c = imageLoad(rt0, ivec3(p, s));
        imageStore(rt1, ivec3(p, s), vec4(c.r, n / 4.0, 0.0, 1.0));
    }}
    {select}
}}"
        );
        p.resolves.push(resolve(1, &ts, (16, 16)));
        let mut mem = Memory::new();
        let r = run_pass(&p, &mut mem).unwrap();
        let out = surface(&mem, &r, 1);
        for y in 0..16 {
            for x in 0..32 {
                let cov: Vec<bool> = pos
                    .iter()
                    .map(|&(dx, dy)| inside(x as f64 + dx, y as f64 + dy))
                    .collect();
                let n = cov.iter().filter(|&&c| c).count() as u32;
                let g = (n as f64 / 4.0 * 255.0 + 0.5).floor() as u32;
                let want = match mode {
                    WriteMode::Sample(s) => rgba8([255 * cov[s as usize] as u32, g, 0, 255]),
                    _ => rgba8([(255 * n + 2) / 4, g, 0, 255]),
                };
                assert_eq!(out[y * 32 + x], want, "{mode:?} pixel ({x}, {y})");
            }
        }
        let rep = on_rtl(&p, &mem, &r, 0xA12 + k as u64);
        assert_eq!(rtl_written(&rep, &r, 1), 32 * 16 * 4, "{mode:?}");
    }
}

/// A13: the tile shader reads depth, writes depth, and depth write-out follows its control
/// (32×16).
#[test]
fn a13_depth_from_the_tile_shader() {
    let mut m = rect_mesh(
        "d",
        32,
        16,
        [0.0, 0.0, 32.0, 8.0],
        &fs_const(&[(0, [1.0, 0.0, 0.0, 1.0])]),
    );
    m.state.depth_op = CompareOp::Less;
    m.state.depth_write = true;
    let targets = vec![target("rt0", Format::R32f, WriteMode::Average)];
    for depth_on in [true, false] {
        let mut p = pass(32, 16, 1, targets.clone(), vec![m.clone()]);
        p.depth_writeout = WriteMode::Average;
        let ts = format!(
            "#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, r32f) uniform image2D rt0;
layout(binding = 8, r32ui) uniform uimage2D depth;
layout(binding = 15, r32ui) uniform uimage2D writeout;
void main() {{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint d = imageLoad(depth, p).x;
    imageStore(rt0, p, vec4(float(d)));
    imageStore(depth, p, uvec4(d / 2u + uint(p.x)));
    if (gl_LocalInvocationIndex == 0u) imageStore(writeout, ivec2(8, 0), uvec4({}u));
}}",
            depth_on as u32
        );
        p.resolves.push(resolve(1, &ts, (16, 16)));
        let mut mem = Memory::new();
        let r = run_pass(&p, &mut mem).unwrap();
        let z = (0.5f64 * 0xFF_FFFF as f64).round() as u32; // the rectangle's D24 depth
        let c = surface(&mem, &r, 0);
        let dreg = mem.region(r.surfaces[1].unwrap().region);
        for y in 0..16usize {
            for x in 0..32usize {
                let d = if y < 8 { z } else { 0xFF_FFFF };
                assert_eq!(c[y * 32 + x] as u32, (d as f32).to_bits(), "({x}, {y})");
            }
        }
        if depth_on {
            let dv = surface(&mem, &r, 1);
            assert_eq!(dv[3], (z / 2 + 3) as u64);
            assert_eq!(dv[15 * 32 + 21], (0xFF_FFFF / 2 + 21) as u64);
        } else {
            assert_eq!(dreg.written_bytes, 0);
        }
        let rep = on_rtl(&p, &mem, &r, 0xA13 + depth_on as u64);
        let depth_bytes = if depth_on { 32 * 16 * 4 } else { 0 };
        assert_eq!(
            rtl_written(&rep, &r, 1),
            depth_bytes,
            "depth on: {depth_on}"
        );
    }
}

/// A14: external reads: the tile shader looks a table up at pixel-dependent addresses.
#[test]
fn a14_external_reads_from_the_tile_shader() {
    let m = rect_mesh(
        "c",
        32,
        32,
        [0.0, 0.0, 32.0, 32.0],
        &fs_const(&[(0, [0.0, 0.0, 0.0, 1.0])]),
    );
    let mut p = pass(
        32,
        32,
        1,
        vec![target("rt0", Format::R32f, WriteMode::Average)],
        vec![m],
    );
    let mut mem = Memory::new();
    let table: Vec<u32> = (0..97u32)
        .map(|i| (i * 7919 % 1000) as f32)
        .map(f32::to_bits)
        .collect();
    let t = mem.alloc("table", "table", 4 * 97);
    mem.preload(
        mem.base(t),
        &table
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    p.buffers.push((4, t));
    let ts = "#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, r32f) uniform image2D rt0;
layout(std430, binding = 4) readonly buffer Table { float v[97]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint i = (uint(p.x) * 31u + uint(p.y) * 17u) & 63u;
    imageStore(rt0, p, vec4(v[i] + v[i + 33u]));
}";
    p.resolves.push(resolve(1, ts, (16, 16)));
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 0);
    for y in 0..32u32 {
        for x in 0..32u32 {
            let i = ((x * 31 + y * 17) & 63) as usize;
            let want = f32::from_bits(table[i]) + f32::from_bits(table[i + 33]);
            assert_eq!(out[(y * 32 + x) as usize] as u32, want.to_bits());
        }
    }
    assert_eq!(mem.region(t).read_bytes, 32 * 32 * 2 * 4);
    let rep = on_rtl(&p, &mem, &r, 0xA14);
    assert_eq!(
        rep.regions[t.0].2,
        32 * 32 * 2 * 4,
        "the table's bytes read on the RTL"
    );
}

/// A17: thread grids 16×16 (one pixel each), 4×4 and 8×2 (loops over a region through the
/// thread ids) give identical images, in 40×24 and 37×21 frames (partial tiles at the right
/// and bottom; 37-pixel rows start in the middle of a beat) and a 32×24 frame, on the model
/// and on the RTL (which writes only the pixels on screen: no byte outside a surface).
#[test]
fn a17_thread_grid_variants_agree() {
    let fs = "#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(fract(gl_FragCoord.x * 0.37), fract(gl_FragCoord.y * 0.21), 0.5, 1.0); }";
    for (w, h) in [(40, 24), (37, 21), (32, 24)] {
        a17_grids(w, h, fs);
    }
}

fn a17_grids(w: u32, h: u32, fs: &str) {
    let m = tri_mesh(
        "t",
        w,
        h,
        [[-3.0, 1.0], [w as f32 + 1.0, 5.0], [9.0, 30.0]],
        0.5,
        fs,
    );
    let mut images = vec![];
    for (tx, ty) in [(16u32, 16u32), (4, 4), (8, 2)] {
        let (sx, sy) = (16 / tx, 16 / ty);
        let ts = format!(
            "#version 450
layout(local_size_x = {tx}, local_size_y = {ty}) in;
layout(binding = 0, rgba8) uniform image2DArray rt0;
layout(binding = 1, rgba8) uniform image2DArray rt1;
void main() {{
    ivec2 o = ivec2(gl_WorkGroupID.xy) * 16 + ivec2(gl_LocalInvocationID.xy) * ivec2({sx}, {sy});
    for (int j = 0; j < {sy}; j++)
        for (int i = 0; i < {sx}; i++) {{
            ivec3 q = ivec3(o + ivec2(i, j), 0);
            imageStore(rt1, q, imageLoad(rt0, q).gbra);
        }}
}}"
        );
        let targets = vec![
            target("rt0", Format::Rgba8, WriteMode::Off),
            target("rt1", Format::Rgba8, WriteMode::Average),
        ];
        let mut p = pass(w, h, 1, targets, vec![m.clone()]);
        p.resolves.push(resolve(1, &ts, (tx, ty)));
        let mut mem = Memory::new();
        let r = run_pass(&p, &mut mem).unwrap();
        assert_eq!(r.tiles[0].ts_threads, tx * ty);
        images.push(surface(&mem, &r, 1));
        let rep = on_rtl(&p, &mem, &r, 0xA17 + u64::from(tx + w));
        assert_eq!(rtl_written(&rep, &r, 1), u64::from(w * h * 4), "{w}×{h}");
    }
    assert!(images[0].iter().any(|&v| v != 0));
    assert_eq!(images[0], images[1], "{w}×{h}: 16×16 and 4×4 threads");
    assert_eq!(images[0], images[2], "{w}×{h}: 16×16 and 8×2 threads");
}

/// Late depth: a fragment shader that writes depth is tested on the depth it writes.
#[test]
fn late_depth_uses_the_exported_depth() {
    let near = rect_mesh(
        "near",
        32,
        16,
        [0.0, 0.0, 32.0, 16.0],
        &fs_const(&[(0, [1.0, 0.0, 0.0, 1.0])]),
    );
    // Drawn second at plane depth 0.5 but writing depth 0.25 on the left half, 0.75 on the right.
    let fs = "#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(0.0, 1.0, 0.0, 1.0); gl_FragDepth = gl_FragCoord.x < 8.0 ? 0.25 : 0.75; }";
    let mut deep = rect_mesh("deep", 32, 16, [0.0, 0.0, 32.0, 16.0], fs);
    deep.late_depth = true;
    let mut near = near;
    for m in [&mut near, &mut deep] {
        m.state.depth_op = CompareOp::Less;
        m.state.depth_write = true;
    }
    let mut p = pass(
        32,
        16,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Average)],
        vec![near, deep],
    );
    p.depth_writeout = WriteMode::Average;
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let c = surface(&mem, &r, 0);
    let d = surface(&mem, &r, 1);
    for x in 0..32 {
        let left = x < 8;
        assert_eq!(
            c[x],
            if left {
                rgba8([0, 255, 0, 255])
            } else {
                rgba8([255, 0, 0, 255])
            },
            "x = {x}"
        );
        let z = if left { 0.25 } else { 0.5 };
        assert_eq!(d[x], (z * 0xFF_FFFF as f64).round() as u64, "x = {x}");
    }
    on_rtl(&p, &mem, &r, 0x1A7E);
}

#[test]
fn forward_mode_renders_and_clipping_culls() {
    let sc = scene("lit_model.json");
    let f = render(&sc, Mode::Forward, 1, &mut |_, _| {}).unwrap();
    assert!(f.pixels.iter().filter(|&&p| p & 0xFF_FFFF != 0).count() > 1000);
    let p = &f.passes[0].1;
    assert!(p.culled > 0, "the torus's back faces are culled");
    assert_eq!(p.triangles_in, 2 + 24 * 12 * 2);
}

#[test]
fn near_plane_clipping_keeps_the_visible_part() {
    // A triangle crossing z = 0 in clip space: the part with z < 0 is removed.
    let vs = "#version 450
layout(location = 0) in vec3 position;
void main() { gl_Position = vec4(position.xy, position.z, 1.0); }";
    let mut m = tri_mesh(
        "t",
        16,
        16,
        [[0.0, 0.0], [16.0, 0.0], [0.0, 16.0]],
        0.5,
        &fs_const(&[(0, [1.0, 1.0, 1.0, 1.0])]),
    );
    m.vertex = prog(vs, ShaderStage::Vertex);
    // z = -1 at the top-left vertex, +1 at the others: z ≥ 0 beyond half way along the edges.
    let mut d: Vec<f32> = m.attributes[0]
        .data
        .iter()
        .map(|&w| f32::from_bits(w))
        .collect();
    d[2] = -1.0;
    d[5] = 1.0;
    d[8] = 1.0;
    m.attributes[0].data = d.iter().map(|x| x.to_bits()).collect();
    let p = pass(
        16,
        16,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Average)],
        vec![m],
    );
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 0);
    assert_eq!(r.triangles_out, 2, "a quadrilateral, fanned");
    assert_eq!(out[0], 0, "the clipped corner");
    assert_ne!(out[12 * 16], 0);
    assert_ne!(out[12], 0);
    assert_ne!(out[9 * 16 + 1], 0);
}

#[test]
fn cli_renders_and_reports_json() {
    let out = scratch_path("raster", "lit.png");
    let scene = scenes().join("lit_model.json");
    let o = rendergen(&[
        "raster",
        scene.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["mode"], "tile-shader");
    assert_eq!(v["external_bytes"]["total"], v["analytic_minimum_bytes"]);
    assert!(v["cycles"].as_u64().unwrap() > 0);
    assert!(v["passes"][0]["tiles"].as_array().unwrap().len() == 24);
    assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn cli_bad_input_is_a_clear_error_and_writes_nothing() {
    let dir = scratch_path("raster", "bad");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in [
        "gbuffer.vert",
        "gbuffer.frag",
        "lighting.comp",
        "lighting.frag",
        "forward.frag",
        "gbuffer_textured.frag",
        "forward_textured.frag",
        "floor.png",
    ] {
        std::fs::copy(scenes().join(f), dir.join(f)).unwrap();
    }
    let good = std::fs::read_to_string(scenes().join("many_lights.json")).unwrap();
    let out = dir.join("out.png");
    let run = |json: &str, extra: &[&str]| {
        let s = dir.join("scene.json");
        std::fs::write(&s, json).unwrap();
        let mut args = vec!["raster", s.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend(extra);
        rendergen(&args)
    };
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    let cases: Vec<(String, Vec<&str>, u8, &str)> = vec![
        ("{ not json".into(), vec![], 1, "malformed JSON"),
        (
            good.replace("gbuffer_textured.frag", "missing.frag"),
            vec![],
            1,
            "missing.frag",
        ),
        (
            {
                v["gbuffer"] =
                    serde_json::Value::Array(vec![serde_json::json!({"format": "rgba8"}); 8]);
                v.to_string()
            },
            vec![],
            1,
            "gbuffer: 8 render targets",
        ),
        (
            good.clone(),
            vec![
                "--engine",
                "rtl",
                "--mode",
                "two-pass",
                "--max-cycles",
                "1000",
            ],
            1,
            "not done after 1000 cycles",
        ),
        (good.clone(), vec!["--msaa", "2"], 2, "--msaa 2"),
        (
            good.replace("floor.png", "missing.png"),
            vec![],
            1,
            "meshes[0].texture.image",
        ),
    ];
    for (json, extra, code, needle) in cases {
        let o = run(&json, &extra);
        assert_eq!(
            o.status.code(),
            Some(code as i32),
            "{needle}: {}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains(needle),
            "want `{needle}` in: {}",
            stderr(&o)
        );
        assert!(!out.exists(), "{needle}: nothing written");
    }
    // A shader that does not compile, and a tile shader that leaves its tile.
    std::fs::write(
        dir.join("gbuffer_textured.frag"),
        "#version 450\nvoid main() { nope; }",
    )
    .unwrap();
    let o = run(&good, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("gbuffer_textured.frag"),
        "{}",
        stderr(&o)
    );
    std::fs::copy(
        scenes().join("gbuffer_textured.frag"),
        dir.join("gbuffer_textured.frag"),
    )
    .unwrap();
    let ts = std::fs::read_to_string(scenes().join("lighting.comp")).unwrap();
    std::fs::write(
        dir.join("lighting.comp"),
        ts.replace(
            "ivec3 q = ivec3(p, int(s));",
            "ivec3 q = ivec3(p + ivec2(0, 1), int(s));",
        ),
    )
    .unwrap();
    let o = run(&good, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("tile shader thread (0, 15)")
            && stderr(&o).contains("outside its tile"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

/// The scene's `view`/`projection` matrices and inline arrays give the same frame as its
/// camera and glTF file (checks the glTF reader and the camera against each other).
#[test]
fn scene_matrices_and_inline_arrays_match_camera_and_gltf() {
    let sc = scene("lit_model.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scenes().join("lit_model.json")).unwrap())
            .unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("camera");
    obj.insert("view".into(), serde_json::json!(sc.view.to_vec()));
    obj.insert(
        "projection".into(),
        serde_json::json!(sc.projection.to_vec()),
    );
    let torus = &sc.meshes[1];
    let m = obj["meshes"][1].as_object_mut().unwrap();
    m.remove("gltf");
    m.insert("positions".into(), serde_json::json!(torus.positions));
    m.insert("normals".into(), serde_json::json!(torus.normals));
    m.insert("indices".into(), serde_json::json!(torus.indices));
    let sc2 = RasterScene::parse(&v.to_string(), &scenes()).unwrap();
    assert_eq!(torus.positions.len(), 24 * 12 * 3);
    assert!(sc2
        .eye
        .iter()
        .zip(&sc.eye)
        .all(|(a, b)| (a - b).abs() < 1e-5));
    let a = render(&sc, Mode::TileShader, 1, &mut |_, _| {}).unwrap();
    let b = render(&sc2, Mode::TileShader, 1, &mut |_, _| {}).unwrap();
    assert_eq!(a.pixels, b.pixels);
}

/// The memory model reports reads of never-written bytes: a lighting pass that reads a
/// G-buffer surface whose tiles were suppressed reads poison, counted per region.
#[test]
fn poison_reads_are_counted() {
    let g = rect_mesh(
        "g",
        32,
        16,
        [0.0, 0.0, 32.0, 16.0],
        &fs_const(&[(0, [0.5, 0.5, 0.5, 1.0])]),
    );
    let mut p1 = pass(
        32,
        16,
        1,
        vec![target("g", Format::Rgba8, WriteMode::Average)],
        vec![g],
    );
    // The tile shader suppresses the write-out of the right-hand tile only.
    let ts = format!("{TS_HEAD}void main() {{
    if (gl_LocalInvocationIndex == 0u && gl_WorkGroupID.x == 1u) imageStore(writeout, ivec2(0, 0), uvec4(0u));
}}");
    p1.resolves.push(resolve(1, &ts, (16, 16)));
    let mut mem = Memory::new();
    let r1 = run_pass(&p1, &mut mem).unwrap();
    let fs = "#version 450
layout(binding = 0, rgba8) uniform image2D g;
layout(location = 0) out vec4 o;
void main() { o = imageLoad(g, ivec2(gl_FragCoord.xy)); }";
    let full = rect_mesh("full", 32, 16, [0.0, 0.0, 32.0, 16.0], fs);
    let mut p2 = pass(
        32,
        16,
        1,
        vec![target("lit", Format::Rgba8, WriteMode::Average)],
        vec![full],
    );
    p2.images = vec![(0, r1.surfaces[0].unwrap())];
    run_pass(&p2, &mut mem).unwrap();
    let g = mem.region(r1.surfaces[0].unwrap().region);
    assert_eq!(g.read_bytes, 32 * 16 * 4, "one read per texel");
    assert_eq!(g.poison_reads, 16 * 16 * 4, "the suppressed tile");
}

/// The RTL keeps 16-bit primitive ids (0xFFFF is its drain fence): a pass with more than
/// 0xFFFF triangles after culling is refused with an error naming the limit, before tiling.
#[test]
fn frames_whose_primitive_ids_do_not_fit_the_rtl_are_refused() {
    use rendergen_sim::models::tile::command::{check_prim_count, RTL_PRIMS};
    assert!(check_prim_count("p", RTL_PRIMS).is_ok());
    assert!(check_prim_count("p", RTL_PRIMS + 1).is_err());
    // One small triangle drawn 0x10000 times (3 vertices, shaded once each).
    let fs = fs_const(&[(0, [1.0, 0.0, 0.0, 1.0])]);
    let mut m = tri_mesh(
        "many",
        16,
        16,
        [[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]],
        0.5,
        &fs,
    );
    m.indices = [0, 1, 2].repeat(RTL_PRIMS as usize + 1);
    let p = pass(
        16,
        16,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Average)],
        vec![m],
    );
    let e = run_pass(&p, &mut Memory::new()).unwrap_err().to_string();
    assert!(
        e.contains("65536 triangles") && e.contains("16 bits"),
        "{e}"
    );
    assert!(e.contains("at most 65535"), "{e}");
}

/// A 16×16 pass drawing one triangle over the whole frame whose fragment shader samples the
/// texture at `gl_FragCoord.xy / 16 + offset / 16` into an RGBA8 target.
fn textured_pass(texture: Texture, offset: [f32; 2]) -> Pass {
    let fs = format!(
        "#version 450
layout(binding = 2) uniform texture2D tex;
layout(binding = 3) uniform sampler smp;
layout(location = 0) out vec4 o;
void main() {{ o = texture(sampler2D(tex, smp), (gl_FragCoord.xy + vec2({:?}, {:?})) * 0.0625); }}",
        offset[0], offset[1]
    );
    let mut m = tri_mesh(
        "quad",
        16,
        16,
        [[0.0, 0.0], [32.0, 0.0], [0.0, 32.0]],
        0.5,
        &fs,
    );
    m.texture = Some(texture);
    pass(
        16,
        16,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Average)],
        vec![m],
    )
}

/// A 16×16 RGBA8 texture of random texels (linear, one level, repeat).
fn random_texture(seed: u64, filter: Filter) -> Texture {
    let mut x = seed;
    let texels = (0..256)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 32) as u32
        })
        .collect();
    Texture {
        name: "random".into(),
        desc: TexDesc {
            base: 0,
            log2_w: 4,
            log2_h: 4,
            width: 16,
            height: 16,
            mips: 1,
            srgb: false,
            tiled: false,
            wrap: [Wrap::Repeat; 2],
            border: 0,
            min_lod: 0,
            max_lod: 0,
            base_level: 0,
        },
        texels,
        filter,
    }
}

fn texture_bytes_read(mem: &Memory) -> u64 {
    mem.regions()
        .iter()
        .filter(|r| r.class == "textures")
        .map(|r| r.read_bytes)
        .sum()
}

/// A textured mesh renders its texture: with the nearest filter at texel centres every pixel
/// is its texel exactly (UNORM16 → binary32 → RGBA8 round trip), one texel (4 bytes) read per
/// pixel from the `textures` region.
#[test]
fn textured_mesh_nearest_is_exact_and_counts_texel_bytes() {
    let t = random_texture(0x7e5, Filter::Nearest);
    let texels = t.texels.clone();
    let p = textured_pass(t, [0.0, 0.0]);
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 0);
    for (i, &px) in out.iter().enumerate() {
        assert_eq!(px, texels[i] as u64, "pixel ({}, {})", i % 16, i / 16);
    }
    assert_eq!(texture_bytes_read(&mem), 256 * 4);
    let region = mem
        .regions()
        .iter()
        .find(|r| r.class == "textures")
        .unwrap();
    assert_eq!(region.name, "t: texture random");
    assert_eq!(region.written_bytes, 0, "uploaded by the host, not counted");
}

/// Bilinear filtering against an f64 bilinear of the texels (fractions of 8 bits, D8) within
/// one 8-bit step, wrapping (repeat) at the right and bottom edges; four texels read a pixel.
#[test]
fn textured_mesh_bilinear_matches_f64() {
    let t = random_texture(0xb11, Filter::Linear);
    let texels = t.texels.clone();
    let offset = [0.3f32, 0.6];
    let p = textured_pass(t, offset);
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let out = surface(&mem, &r, 0);
    let ch =
        |x: usize, y: usize, c: usize| ((texels[(y % 16) * 16 + x % 16] >> (8 * c)) & 0xFF) as f64;
    let mut worst = 0.0f64;
    for y in 0..16 {
        for x in 0..16 {
            // u·16 − ½ = x + offset: texels x, x + 1 with weight frac(offset) (8 bits).
            let fx = (offset[0] as f64 * 256.0).floor() / 256.0;
            let fy = (offset[1] as f64 * 256.0).floor() / 256.0;
            for c in 0..4 {
                let top = ch(x, y, c) * (1.0 - fx) + ch(x + 1, y, c) * fx;
                let bot = ch(x, y + 1, c) * (1.0 - fx) + ch(x + 1, y + 1, c) * fx;
                let want = top * (1.0 - fy) + bot * fy;
                let got = ((out[y * 16 + x] >> (8 * c)) & 0xFF) as f64;
                worst = worst.max((want - got).abs());
            }
        }
    }
    assert!(worst <= 1.0, "{worst} steps from the f64 bilinear");
    assert_eq!(texture_bytes_read(&mem), 256 * 4 * 4);
}

/// Bad texture input in a scene is an error naming the field (or file) and the fault.
#[test]
fn bad_texture_input_is_a_clear_error() {
    let dir = scratch_path("raster", "textures");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.png"), b"\x89PNG\r\n\x1a\n not really").unwrap();
    std::fs::copy(scenes().join("floor.png"), dir.join("floor.png")).unwrap();
    let good = std::fs::read_to_string(scenes().join("many_lights.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&good).unwrap();
    let with = |t: serde_json::Value| {
        let mut v = v.clone();
        v["meshes"][0]["texture"] = t;
        v.to_string()
    };
    assert!(RasterScene::parse(&good, &dir).is_ok());
    let cases = [
        (
            serde_json::json!({"image": "none.png"}),
            "meshes[0].texture.image",
        ),
        (serde_json::json!({"image": "none.png"}), "none.png"),
        (
            serde_json::json!({"image": "bad.png"}),
            "not a readable PNG",
        ),
        (
            serde_json::json!({"image": "floor.png", "filter": "cubic"}),
            "meshes[0].texture.filter: `cubic`",
        ),
        (
            serde_json::json!({"image": "floor.png", "wrap": "border"}),
            "meshes[0].texture.wrap: `border`",
        ),
        (
            serde_json::json!({"image": "floor.png", "wrap": ["repeat", 3]}),
            "meshes[0].texture.wrap[1]",
        ),
        (
            serde_json::json!({"image": "floor.png", "srgb": 1}),
            "meshes[0].texture.srgb",
        ),
        (
            serde_json::json!({"image": "floor.png", "size": 3}),
            "meshes[0].texture.size: unknown field",
        ),
        (
            serde_json::json!({}),
            "exactly one of `image` and `procedural`",
        ),
        (
            serde_json::json!({"procedural": {"pattern": "checker", "size": [48, 16], "colours": [[0, 0, 0, 1], [1, 1, 1, 1]]}}),
            "48×16 texels; each side must be a power of two",
        ),
        (
            serde_json::json!({"procedural": {"pattern": "noise", "size": [16, 16]}}),
            "meshes[0].texture.procedural.pattern: `noise`",
        ),
        (
            serde_json::json!({"procedural": {"pattern": "checker", "size": [16, 16], "colours": [[0, 0, 0, 2], [1, 1, 1, 1]]}}),
            "meshes[0].texture.procedural.colours[0]: channels are 0..=1",
        ),
    ];
    for (t, needle) in cases {
        let e = RasterScene::parse(&with(t.clone()), &dir).unwrap_err();
        assert!(e.contains(needle), "{t}: want `{needle}` in: {e}");
    }
    // A procedural checker: 2 × 2 cells of 8 × 8 texels, the first colour at (0, 0).
    let t = serde_json::json!({"procedural": {"pattern": "checker", "size": [16, 16], "cells": 2,
        "colours": [[1, 0, 0, 1], [0, 0, 1, 1]]}, "filter": "nearest", "wrap": ["clamp", "mirror"]});
    let sc = RasterScene::parse(&with(t), &dir).unwrap();
    let tex = sc.meshes[0].texture.as_ref().unwrap();
    assert_eq!(
        (tex.width, tex.height, tex.filter),
        (16, 16, Filter::Nearest)
    );
    assert_eq!(tex.wrap, [Wrap::Clamp, Wrap::Mirror]);
    assert_eq!(tex.texels[0], 0xFF00_00FF);
    assert_eq!(tex.texels[8], 0xFFFF_0000);
    assert_eq!(tex.texels[8 * 16 + 8], 0xFF00_00FF);
    // A shader that samples on a mesh without a texture is refused when the scene is rendered.
    let mut nv = v.clone();
    nv["meshes"][0].as_object_mut().unwrap().remove("texture");
    let sc = RasterScene::parse(&nv.to_string(), &scenes()).unwrap();
    let e = render(&sc, Mode::TileShader, 1, &mut |_, _| {}).unwrap_err();
    assert!(
        e.message
            .contains("gbuffer_textured.frag samples texture `albedo_texture`"),
        "{}",
        e.message
    );
}

/// `RtlOptions::stimulus` (`rendergen raster --record-stimulus`): the recorded inputs, replayed
/// on the catalogue's `tile_engine` built from the report's `replay_params`, make the engine
/// take the same lists and issue the same instructions as the run; full and activity-aware
/// replays hash the same outputs (`rendergen bench tile_engine --replay`).
#[test]
fn recorded_stimulus_replays_on_the_catalogue_engine() {
    use rendergen_gen::bench::replay::{bench_replay, Stimulus};
    use rendergen_gen::bench::BenchEngine;
    let (w, h) = (32, 16);
    let m = rect_mesh(
        "m",
        w,
        h,
        [4.0, 2.0, 30.0, 14.0],
        &fs_const(&[(0, [0.25, 0.5, 0.75, 1.0])]),
    );
    let p = pass(
        w,
        h,
        1,
        vec![target("rt0", Format::Rgba8, WriteMode::Average)],
        vec![m],
    );
    let mut mem = Memory::new();
    let r = run_pass(&p, &mut mem).unwrap();
    let path = std::env::temp_dir().join(format!("rendergen-stim-{}.stim", std::process::id()));
    let opts = RtlOptions {
        stimulus: Some(path.clone()),
        ..rtl_options(0x57)
    };
    let rep = run_pass_rtl(&p, &mem, &r, &opts).unwrap();
    assert!(compare(&rep, &mem).is_none());
    let stim = Stimulus::read(&path).unwrap();
    let design = rendergen_rtl::catalog::find("tile_engine")
        .unwrap()
        .build(&rep.replay_params)
        .unwrap();
    stim.check(&design).unwrap();
    let mut sim =
        rendergen_sim::Simulator::with_eval(&design, rendergen_sim::Eval::Active).unwrap();
    let (issue, taken) = (
        sim.output("issue").unwrap(),
        sim.output("list_taken").unwrap(),
    );
    let (mut issued, mut lists) = (0, 0);
    stim.drive(&mut sim, |sim| {
        issued += sim.peek(issue);
        lists += sim.peek(taken);
    });
    let vertex_issued: u64 = rep.vertex.iter().map(|v| v.1.issued).sum();
    assert_eq!(lists, 2, "lists taken in the replay (one per tile)");
    assert_eq!(
        issued,
        rep.issued + vertex_issued,
        "warp instructions issued"
    );
    let hash = |e| bench_replay(&design, e, &stim, &path).unwrap().output_hash;
    assert_eq!(hash(BenchEngine::Rust), hash(BenchEngine::RustActive));
    let _ = std::fs::remove_file(&path);
}
