//! `rendergen raster`: a scene ([`scene`]) rendered by the tile engine's frame model
//! (`rendergen_sim::models::tile::frame`) in one of three modes:
//! * `tile-shader`: one pass; the G-buffer stays in the tile buffer, the tile shader lights it
//!   in place and turns the G-buffer's write-out off, so only the output leaves the chip;
//! * `two-pass`: the conventional deferred renderer on the same engine: pass 1 writes the
//!   G-buffer out (every sample), pass 2 draws a full-screen triangle whose fragment shader
//!   reads it back (storage images bound to the surfaces) and lights it;
//! * `forward`: one pass, each mesh's `forward_shader` writes the output directly.
//!
//! `tile-shader` and `two-pass` give bit-identical images when the tile shader and the
//! lighting shader compute the same function of the same G-buffer values (the example scenes'
//! shaders share their lighting code).
pub mod gltf;
pub mod rtl;
pub mod scene;
pub mod vertex_rtl;

use rendergen_shader_compiler::{compile, Compiled, Lang, Options, ShaderStage};
use rendergen_sim::models::texture::TexDesc;
use rendergen_sim::models::tile::buffer::{BlendState, Format};
use rendergen_sim::models::tile::command;
use rendergen_sim::models::tile::frame::{
    run_pass_with_progress, Attribute, FrameError, Mesh, Pass, PassResult, Program, Resolve,
    Surface, Target, Texture,
};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::pack;
use rendergen_sim::models::tile::port::WriteMode;
use rendergen_sim::models::tile::setup::{CompareOp, CullMode, RasterState};
use rendergen_sim::models::tile::DEPTH_MAX;
pub use scene::RasterScene;
use std::collections::BTreeMap;
use std::path::Path;

/// How the frame is rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Lighting by the tile shader in the tile buffer.
    TileShader,
    /// G-buffer written out and read back by a full-screen pass.
    TwoPass,
    /// One pass with forward shading.
    Forward,
}

/// A failure: exit code (1 bad input, 2 bad usage) and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RasterError {
    /// 1 or 2.
    pub code: u8,
    /// What went wrong, naming the file or field.
    pub message: String,
}

fn bad(message: impl Into<String>) -> RasterError {
    RasterError {
        code: 1,
        message: message.into(),
    }
}

impl From<FrameError> for RasterError {
    fn from(e: FrameError) -> RasterError {
        bad(e.to_string())
    }
}

/// A rendered frame.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// RGBA8 pixels of the output (row-major), or the output format's bits per pixel.
    pub pixels: Vec<u64>,
    /// The output's format.
    pub format: Format,
    /// The memory after the frame (regions and counters).
    pub memory: Memory,
    /// Per pass: its name and result.
    pub passes: Vec<(String, PassResult)>,
    /// The analytic minimum of external bytes (see [`analytic_minimum`]).
    pub minimum_bytes: u64,
    /// The passes as run (for `--engine rtl`, which runs their per-tile part again on the RTL).
    pub descs: Vec<Pass>,
    /// The output plane of the last pass.
    pub out_plane: usize,
}

fn format_of(s: &str) -> Format {
    match s {
        "rgba16f" => Format::Rgba16f,
        "rg16f" => Format::Rg16f,
        "r32f" => Format::R32f,
        _ => Format::Rgba8,
    }
}

fn compile_file(path: &Path, stage: ShaderStage) -> Result<Compiled, RasterError> {
    let src = std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let lang = match path.extension().and_then(|e| e.to_str()) {
        Some("wgsl") => Lang::Wgsl,
        _ => Lang::Glsl(stage),
    };
    let mut o = Options::new(lang);
    o.stage = Some(stage);
    compile(&src, &path.display().to_string(), &o).map_err(|e| bad(e.to_string()))
}

/// Uniform words of `c` from the engine's values and the user's (`name → numbers`).
fn uniforms(
    c: &Compiled,
    path: &Path,
    sc: &RasterScene,
    model: &[f32; 16],
    user: &[(String, Vec<f32>)],
    samples: u32,
) -> Result<Vec<u32>, RasterError> {
    let declared = |n: &str| c.interface.uniforms.iter().find(|u| u.name == n);
    let mut vals: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut put = |n: &str, words: Vec<u32>| {
        if let Some(u) = declared(n) {
            let mut w = words;
            w.resize(u.words.len(), 0);
            vals.insert(n.to_string(), w);
        }
    };
    let f = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    put("model", f(model));
    put(
        "view_projection",
        f(&scene::mat_mul(&sc.projection, &sc.view)),
    );
    put("eye", f(&[sc.eye[0], sc.eye[1], sc.eye[2], 1.0]));
    put("screen", f(&[sc.width as f32, sc.height as f32, 0.0, 0.0]));
    put("samples", vec![samples]);
    put(
        "ambient",
        f(&[sc.ambient[0], sc.ambient[1], sc.ambient[2], 0.0]),
    );
    for (n, v) in user {
        if declared(n).is_some() {
            vals.insert(n.clone(), f(v));
        }
    }
    // Lengths must match what the shader declares.
    for (n, w) in vals.iter_mut() {
        let want = declared(n).map_or(0, |u| u.words.len());
        if w.len() != want {
            return Err(bad(format!(
                "{}: uniform `{n}` has {} numbers, the shader's has {want}",
                path.display(),
                w.len()
            )));
        }
    }
    rendergen_shader_compiler::launch::uniforms(&c.interface, &vals)
        .map_err(|e| bad(format!("{}: {e}", path.display())))
}

fn varyings(c: &Compiled) -> u32 {
    c.interface
        .outputs
        .iter()
        .filter(|o| o.slot < 0x100)
        .map(|o| o.slot + 1)
        .max()
        .unwrap_or(0)
}

fn sample_shading(c: &Compiled) -> bool {
    c.interface.inputs.iter().any(|i| i.slot == 5)
}

fn clear_bits(t: &scene::TargetDesc) -> u64 {
    pack::pack(format_of(&t.format), t.clear.map(f32::to_bits))
}

/// Checks that a program's storage images match the planes they are bound to.
fn check_images(c: &Compiled, path: &Path, planes: &[(String, Format)]) -> Result<(), RasterError> {
    for im in &c.interface.images {
        let want = match im.binding {
            15 => "R32Uint".to_string(),
            8 => "R32Uint".to_string(),
            b => match planes.get(b as usize) {
                Some((_, f)) => match f {
                    Format::Rgba8 => "Rgba8Unorm",
                    Format::Rgba16f => "Rgba16Float",
                    Format::Rg16f => "Rg16Float",
                    Format::R32f => "R32Float",
                }
                .to_string(),
                None => {
                    return Err(bad(format!(
                        "{}: image `{}` at binding {}: there are only {} render targets",
                        path.display(),
                        im.name,
                        b,
                        planes.len()
                    )))
                }
            },
        };
        if im.format != want {
            return Err(bad(format!(
                "{}: image `{}` at binding {} is declared {}, the render target is {want}",
                path.display(),
                im.name,
                im.binding,
                im.format
            )));
        }
    }
    Ok(())
}

struct Compiled3 {
    vertex: Compiled,
    fragment: Compiled,
}

fn geometry_meshes(
    sc: &RasterScene,
    mode: Mode,
    targets: usize,
    samples: u32,
) -> Result<Vec<Mesh>, RasterError> {
    let mut out = Vec::new();
    for m in &sc.meshes {
        let fs_path = match mode {
            Mode::Forward => m.forward_shader.clone().ok_or_else(|| {
                bad(format!(
                    "mesh `{}`: --mode forward needs its `forward_shader`",
                    m.name
                ))
            })?,
            _ => m.fragment_shader.clone(),
        };
        let c = Compiled3 {
            vertex: compile_file(&m.vertex_shader, ShaderStage::Vertex)?,
            fragment: compile_file(&fs_path, ShaderStage::Fragment)?,
        };
        for (c, path) in [(&c.vertex, &m.vertex_shader), (&c.fragment, &fs_path)] {
            let Some((name, binding)) = c.interface.samplers.first() else {
                continue;
            };
            if c.interface.stage != ShaderStage::Fragment || m.texture.is_none() {
                return Err(bad(format!(
                    "mesh `{}`: {} samples texture `{name}` (binding {binding}); only a \
                     fragment shader of a mesh with a `texture` may sample",
                    m.name,
                    path.display()
                )));
            }
        }
        for (u, _) in &m.uniforms {
            let has = |c: &Compiled| c.interface.uniforms.iter().any(|x| &x.name == u);
            if !has(&c.vertex) && !has(&c.fragment) {
                return Err(bad(format!(
                    "mesh `{}`: uniform `{u}` is declared by neither {} nor {}",
                    m.name,
                    m.vertex_shader.display(),
                    fs_path.display()
                )));
            }
        }
        let mut attributes = vec![Attribute {
            location: 0,
            components: 3,
            data: m.positions.iter().map(|x| x.to_bits()).collect(),
        }];
        if !m.normals.is_empty() {
            attributes.push(Attribute {
                location: 1,
                components: 3,
                data: m.normals.iter().map(|x| x.to_bits()).collect(),
            });
        }
        if !m.uvs.is_empty() {
            attributes.push(Attribute {
                location: 2,
                components: 2,
                data: m.uvs.iter().map(|x| x.to_bits()).collect(),
            });
        }
        let cull = match m.cull.as_str() {
            "back" => CullMode::Back,
            "front" => CullMode::Front,
            _ => CullMode::None,
        };
        out.push(Mesh {
            name: m.name.clone(),
            attributes,
            indices: m.indices.clone(),
            vertex: Program {
                words: c.vertex.words.clone(),
                uniforms: uniforms(
                    &c.vertex,
                    &m.vertex_shader,
                    sc,
                    &m.model,
                    &m.uniforms,
                    samples,
                )?,
            },
            fragment: Program {
                words: c.fragment.words.clone(),
                uniforms: uniforms(&c.fragment, &fs_path, sc, &m.model, &m.uniforms, samples)?,
            },
            varyings: varyings(&c.vertex),
            sample_shading: sample_shading(&c.fragment),
            late_depth: c.fragment.interface.outputs.iter().any(|o| o.slot == 0x101),
            state: RasterState {
                cull,
                depth_op: CompareOp::Less,
                depth_write: true,
                ..Default::default()
            },
            blend: vec![BlendState::default(); targets],
            texture: m.texture.as_ref().map(texture),
        });
    }
    Ok(out)
}

/// The frame model's texture of a scene texture: linear layout from word 0, one level.
fn texture(t: &scene::TextureDesc) -> Texture {
    Texture {
        name: t.name.clone(),
        desc: TexDesc {
            base: 0,
            log2_w: t.width.trailing_zeros(),
            log2_h: t.height.trailing_zeros(),
            width: t.width,
            height: t.height,
            mips: 1,
            srgb: t.srgb,
            tiled: false,
            wrap: t.wrap,
            border: 0,
            min_lod: 0,
            max_lod: 0,
            base_level: 0,
        },
        texels: t.texels.clone(),
        filter: t.filter,
    }
}

/// The full-screen triangle's vertex shader (clip-space positions at location 0).
const FULLSCREEN_VS: &str = "#version 450
layout(location = 0) in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }";

/// Renders `sc` in `mode` with `samples` per pixel; `progress(done, total)` per tile.
pub fn render(
    sc: &RasterScene,
    mode: Mode,
    samples: u32,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Frame, RasterError> {
    if !matches!(samples, 1 | 4) {
        return Err(RasterError {
            code: 2,
            message: format!("--msaa {samples}: expected 1 or 4"),
        });
    }
    let mut mem = Memory::new();
    // The light list (storage binding 9): the count, then per light position and radius,
    // colour (vec4 each) from byte 16; uploaded by the host.
    let mut light_words = vec![sc.lights.len() as u32, 0, 0, 0];
    for l in &sc.lights {
        let p = l.position;
        let c = l.colour;
        light_words.extend([p[0], p[1], p[2], l.radius, c[0], c[1], c[2], 0.0].map(f32::to_bits));
    }
    let lights = mem.alloc("lights", "lights", 4 * light_words.len() as u64);
    let bytes: Vec<u8> = light_words.iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.preload(mem.base(lights), &bytes)
        .map_err(|e| bad(e.to_string()))?;
    let out_fmt = format_of(&sc.output.format);
    let gtargets: Vec<Target> = sc
        .gbuffer
        .iter()
        .map(|t| Target {
            name: t.name.clone(),
            class: "g-buffer".into(),
            format: format_of(&t.format),
            writeout: WriteMode::Off,
            clear: clear_bits(t),
        })
        .collect();
    let output = Target {
        name: sc.output.name.clone(),
        class: "output".into(),
        format: out_fmt,
        writeout: WriteMode::Average,
        clear: clear_bits(&sc.output),
    };
    let depth_clear = (sc.depth_clear.clamp(0.0, 1.0) as f64 * DEPTH_MAX as f64).round() as u32;
    let planes: Vec<(String, Format)> = gtargets
        .iter()
        .chain([&output])
        .map(|t| (t.name.clone(), t.format))
        .collect();
    let base = |name: &str, targets: Vec<Target>, meshes: Vec<Mesh>| Pass {
        name: name.into(),
        width: sc.width,
        height: sc.height,
        samples,
        targets,
        depth_writeout: WriteMode::Off,
        depth_clear,
        meshes,
        resolves: vec![],
        buffers: vec![(9, lights)],
        images: vec![],
    };
    let mut passes = Vec::new();
    let out_plane: usize;
    match mode {
        Mode::Forward => {
            let meshes = geometry_meshes(sc, mode, 1, samples)?;
            passes.push(base("forward", vec![output.clone()], meshes));
            out_plane = 0;
        }
        Mode::TileShader => {
            let path = sc
                .tile_shader
                .clone()
                .ok_or_else(|| bad("--mode tile-shader needs the scene's `tile_shader`"))?;
            let ts = compile_file(&path, ShaderStage::Compute)?;
            check_images(&ts, &path, &planes)?;
            let [x, y, _] = ts.interface.workgroup_size;
            if !(1..=16).contains(&x) || !(1..=16).contains(&y) {
                return Err(bad(format!(
                    "{}: workgroup size {x}×{y}: a tile shader's thread grid is 1..=16 × 1..=16",
                    path.display()
                )));
            }
            let mut targets = gtargets.clone();
            for t in &mut targets {
                t.writeout = WriteMode::Average; // on statically; the tile shader turns it off
            }
            targets.push(output.clone());
            let meshes = geometry_meshes(sc, mode, targets.len(), samples)?;
            let n = meshes.len();
            let mut p = base("tile-shader", targets, meshes);
            p.resolves.push(Resolve {
                after: n,
                program: Program {
                    words: ts.words.clone(),
                    uniforms: uniforms(&ts, &path, sc, &[0.0; 16], &[], samples)?,
                },
                threads: (x, y),
                rect: None,
            });
            out_plane = gtargets.len();
            passes.push(p);
        }
        Mode::TwoPass => {
            let path = sc
                .lighting_shader
                .clone()
                .ok_or_else(|| bad("--mode two-pass needs the scene's `lighting_shader`"))?;
            let ls = compile_file(&path, ShaderStage::Fragment)?;
            check_images(&ls, &path, &planes)?;
            let mut targets = gtargets.clone();
            for t in &mut targets {
                t.writeout = WriteMode::All;
            }
            let meshes = geometry_meshes(sc, mode, targets.len(), samples)?;
            passes.push(base("g-buffer", targets, meshes));
            let vs = compile(
                FULLSCREEN_VS,
                "full-screen.vert",
                &Options::new(Lang::Glsl(ShaderStage::Vertex)),
            )
            .map_err(|e| bad(format!("internal: {e}")))?;
            let tri = [-1.0f32, -1.0, 0.0, 3.0, -1.0, 0.0, -1.0, 3.0, 0.0];
            let full = Mesh {
                name: "full-screen".into(),
                attributes: vec![Attribute {
                    location: 0,
                    components: 3,
                    data: tri.iter().map(|x| x.to_bits()).collect(),
                }],
                indices: vec![0, 1, 2],
                vertex: Program {
                    words: vs.words,
                    uniforms: vec![],
                },
                fragment: Program {
                    words: ls.words.clone(),
                    uniforms: uniforms(&ls, &path, sc, &[0.0; 16], &[], samples)?,
                },
                varyings: 0,
                sample_shading: sample_shading(&ls),
                late_depth: false,
                state: RasterState {
                    depth_op: CompareOp::Always,
                    depth_write: false,
                    ..Default::default()
                },
                blend: vec![BlendState::default()],
                texture: None,
            };
            passes.push(base("lighting", vec![output.clone()], vec![full]));
            out_plane = 0;
        }
    }
    let mut results: Vec<(String, PassResult)> = Vec::new();
    let total_tiles =
        passes.len() as u64 * (sc.width.div_ceil(16) as u64 * sc.height.div_ceil(16) as u64);
    for i in 0..passes.len() {
        if i > 0 {
            // The next pass reads the previous pass's surfaces as images 0...
            let prev: Vec<(u32, Surface)> = results[i - 1]
                .1
                .surfaces
                .iter()
                .enumerate()
                .filter_map(|(b, s)| s.map(|s| (b as u32, s)))
                .collect();
            passes[i].images = prev;
        }
        let done_before = i as u64 * total_tiles / passes.len() as u64;
        let r = run_pass_with_progress(&passes[i], &mut mem, &mut |d, _| {
            progress(done_before + d, total_tiles)
        })?;
        results.push((passes[i].name.clone(), r));
    }
    let (_, last) = results.last().expect("a pass");
    let surf = last.surfaces[out_plane].expect("the output is written out");
    let n = pack::bytes_per_sample(Some(out_fmt));
    let bytes = mem.region(surf.region).bytes().to_vec();
    let pixels = bytes
        .chunks(n)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect();
    // Inputs both modes read: the light list and the textures, as read in this frame (the two
    // deferred modes read them the same way: the G-buffer pass is the same; a test checks that
    // they read the same bytes).
    let texture_reads: u64 = mem
        .regions()
        .iter()
        .filter(|r| r.class == "textures")
        .map(|r| r.read_bytes)
        .sum();
    let minimum_bytes = analytic_minimum(sc, &passes[0], &results[0].1, out_fmt)
        + mem.region(lights).read_bytes
        + texture_reads;
    Ok(Frame {
        width: sc.width,
        height: sc.height,
        pixels,
        format: out_fmt,
        memory: mem,
        passes: results,
        minimum_bytes,
        descs: passes,
        out_plane,
    })
}

/// `--engine rtl`: the per-tile part of every pass of `frame` again on the `tile_engine` RTL
/// ([`rtl`]), in order; a pass reading images (the two-pass lighting pass) reads the surfaces
/// the RTL wrote in the previous pass ([`rtl::RtlOptions::preload`]). The RTL's surfaces
/// must equal the model's byte for byte, and the frame's pixels become the RTL's output. The
/// report sums the passes: cycles, instructions, bytes per region; tiles in pass order.
pub fn render_rtl(
    frame: &mut Frame,
    opts: &rtl::RtlOptions,
) -> Result<rtl::RtlReport, RasterError> {
    let mut report = rtl::RtlReport::default();
    let mut previous: Vec<(usize, Vec<u8>)> = Vec::new();
    for (pass, (name, result)) in frame.descs.iter().zip(&frame.passes) {
        let pass_opts = rtl::RtlOptions {
            preload: previous.clone(),
            ..opts.clone()
        };
        let r = rtl::run_pass_rtl(pass, &frame.memory, result, &pass_opts)
            .map_err(|e| bad(format!("{e} (pass `{name}`)")))?;
        if let Some(d) = rtl::compare(&r, &frame.memory) {
            return Err(bad(format!(
                "--engine rtl: the RTL's image differs from the model's in pass `{name}`: {d}"
            )));
        }
        report.cycles += r.cycles;
        report.issued += r.issued;
        report.tiles.extend(r.tiles);
        if report.regions.is_empty() {
            report.regions = r.regions;
        } else {
            for (sum, (_, _, rd, wr)) in report.regions.iter_mut().zip(r.regions) {
                sum.2 += rd;
                sum.3 += wr;
            }
        }
        if let Some(t) = &r.texture {
            report.texture.get_or_insert_with(Default::default).add(t);
        }
        report.simulated.0 += r.simulated.0;
        report.simulated.1 += r.simulated.1;
        report.replay_params.extend(r.replay_params);
        report.vertex.extend(r.vertex);
        report.geometry.extend(r.geometry);
        previous = r.surfaces.clone();
        report.surfaces.extend(r.surfaces);
    }
    let result = &frame.passes.last().expect("a pass").1;
    let surf = result.surfaces[frame.out_plane].expect("the output is written out");
    let n = pack::bytes_per_sample(Some(frame.format));
    let bytes = &report
        .surfaces
        .iter()
        .find(|(i, _)| *i == surf.region.0)
        .expect("the output surface was read back")
        .1;
    frame.pixels = bytes
        .chunks(n)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect();
    Ok(report)
}

/// The `--json` section of an RTL run: its cycles, pixels per clock, bytes per region and
/// class, per-tile cycle breakdown and core utilisation.
pub fn rtl_json(frame: &Frame, r: &rtl::RtlReport) -> serde_json::Value {
    let mut classes: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (_, class, rd, wr) in &r.regions {
        let e = classes.entry(class.clone()).or_default();
        e.0 += rd;
        e.1 += wr;
    }
    serde_json::json!({
        "cycles": r.cycles,
        "pixels_per_clock": if r.cycles > 0 { (frame.width * frame.height) as f64 / r.cycles as f64 } else { 0.0 },
        "core_utilisation": r.core_utilisation(),
        "instructions": r.issued,
        "bytes_by_class": classes.into_iter().map(|(k, (rd, wr))| (k, serde_json::json!({ "read": rd, "written": wr }))).collect::<serde_json::Map<_, _>>(),
        "regions": r.regions.iter().map(|(n, c, rd, wr)| serde_json::json!({ "name": n, "class": c, "read_bytes": rd, "written_bytes": wr })).collect::<Vec<_>>(),
        "texture": r.texture.as_ref().map(|t| {
            let model_read: u64 = frame.memory.regions().iter().filter(|g| g.class == "textures").map(|g| g.read_bytes).sum();
            let rtl_read: u64 = r.regions.iter().filter(|g| g.1 == "textures").map(|g| g.2).sum();
            serde_json::json!({
                "requests": t.requests,
                "footprints": t.footprints,
                "cache_hits": t.cache_hits,
                "line_fills": t.line_fills,
                "descriptor_switches": t.switches,
                "rtl_read_bytes": rtl_read,
                "model_read_bytes": model_read,
                "note": "the RTL's texture unit reads 16-byte line fills through its cache; the frame model counts 4 bytes per texel read (no cache): the textures class differs, every other region equals the model's",
            })
        }),
        "tiles": r.tiles.iter().map(|t| serde_json::json!({
            "tile": [t.tile.0, t.tile.1],
            "cycles": { "total": t.cycles, "fragment": t.fragment(), "drain": t.drain, "tile_shader": t.tile_shader, "writeout": t.writeout },
        })).collect::<Vec<_>>(),
    })
}

/// The `--json` section of the RTL's geometry phases (`rtl_geometry`): per pass the cycles
/// from the vertex phase's end to the first list handed to the tiles, the front end's
/// counters (equal to the model's: the run checks them) and its bytes (lists and primitive
/// data written, indices and post-transform vertices read); beside them the vertex and tile
/// phases' cycles of the same simulation.
pub fn geometry_json(r: &rtl::RtlReport) -> serde_json::Value {
    let passes: Vec<serde_json::Value> = (r.geometry.iter())
        .map(|(name, g)| {
            serde_json::json!({
                "pass": name,
                "cycles": g.cycles,
                "triangles_in": g.triangles_in,
                "near_clipped": g.near_clipped,
                "guard_band_rejects": g.guard_band_rejects,
                "culled": g.culled,
                "triangles_out": g.triangles_out,
                "list_bytes": g.list_bytes,
                "primitive_bytes": g.prim_bytes,
                "fetch_read_bytes": g.fetch_bytes,
            })
        })
        .collect();
    let vertex: u64 = r.vertex.iter().map(|v| v.1.cycles).sum();
    let geometry: u64 = r.geometry.iter().map(|g| g.1.cycles).sum();
    serde_json::json!({
        "cycles": geometry,
        "vertex_cycles": vertex,
        "tile_cycles": r.cycles,
        "frame_cycles": vertex + geometry + r.cycles,
        "simulated_cycles": r.simulated.0,
        "simulation_cycles_per_second": r.simulated.0 as f64 / r.simulated.1.max(1e-9),
        "passes": passes,
    })
}

/// The analytic minimum of external bytes of a frame: what any tile renderer of the scene
/// reads and writes whatever it does with the G-buffer — the output image (`W·H·bytes`), the
/// vertex data read once, the primitive buffer written once and read once per `DRAW`, and the
/// command lists written and read once — computed from the geometry pass's counts (triangles
/// kept, `DRAW`s and `RESOLVE`s per tile), not from the memory counters. [`render`] adds the
/// inputs both deferred modes read: the light list's and the textures' bytes as read by the
/// frame.
pub fn analytic_minimum(sc: &RasterScene, pass: &Pass, r: &PassResult, out: Format) -> u64 {
    let output = sc.width as u64 * sc.height as u64 * pack::bytes_per_sample(Some(out)) as u64;
    let vertex: u64 = pass
        .meshes
        .iter()
        .map(|m| {
            4 * (m.attributes.iter().map(|a| a.data.len()).sum::<usize>() + m.indices.len()) as u64
        })
        .sum();
    let slots = pass.meshes.iter().map(|m| m.varyings).max().unwrap_or(0) as u64;
    let prim = 4 * 3 * (1 + 4 * slots);
    let draws: u64 = r.tiles.iter().map(|t| t.draws as u64).sum();
    let tiles = r.tiles.len() as u64;
    let resolves = if pass.resolves.is_empty() { 0 } else { tiles };
    // Command lists (sim/models/tile/command.rs): per tile a table word, TILE_BEGIN with every
    // plane's clear value, END_TILE; the DRAWs and RESOLVEs; 64-bit words.
    let planes = pass.targets.len() as u32 + 1;
    let begin = command::tile_begin_words((1 << planes) - 1) as u64;
    let cmd_words = tiles * (1 + begin + command::END_TILE_WORDS as u64)
        + draws * command::DRAW_WORDS as u64
        + resolves * command::RESOLVE_WORDS as u64;
    output + vertex + prim * r.triangles_out + prim * draws + 2 * 8 * cmd_words
}

impl Frame {
    /// Bytes read and written per region class over the frame.
    pub fn bytes_by_class(&self) -> BTreeMap<String, (u64, u64)> {
        let mut m: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for r in self.memory.regions() {
            let e = m.entry(r.class.clone()).or_default();
            e.0 += r.read_bytes;
            e.1 += r.written_bytes;
        }
        m
    }

    /// Total external bytes (read + written).
    pub fn total_bytes(&self) -> u64 {
        let (r, w) = self.memory.totals();
        r + w
    }

    /// Cycles of the cost model over every pass.
    pub fn cycles(&self) -> u64 {
        self.passes.iter().map(|(_, p)| p.cycles()).sum()
    }

    /// The output as 8-bit RGBA (float formats clamped to [0, 1]).
    pub fn rgba8(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pixels.len() * 4);
        for &p in &self.pixels {
            for c in 0..4 {
                let v = match self.format {
                    Format::Rgba8 => ((p >> (8 * c)) & 0xFF) as u8,
                    f => pack::unorm8_from_f32(pack::load_channel(f, p, c)) as u8,
                };
                out.push(v);
            }
        }
        out
    }

    /// The `--json` document.
    pub fn stats_json(&self, mode: Mode, samples: u32) -> serde_json::Value {
        let regions: Vec<serde_json::Value> = self
            .memory
            .regions()
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name, "class": r.class, "size": r.size(),
                    "read_bytes": r.read_bytes, "written_bytes": r.written_bytes,
                    "poison_reads": r.poison_reads,
                })
            })
            .collect();
        let classes: serde_json::Map<String, serde_json::Value> = self
            .bytes_by_class()
            .into_iter()
            .map(|(k, (r, w))| (k, serde_json::json!({ "read": r, "written": w })))
            .collect();
        let passes: Vec<serde_json::Value> = self
            .passes
            .iter()
            .map(|(name, p)| {
                let sum = |f: &dyn Fn(&rendergen_sim::models::tile::frame::TileStats) -> u64| {
                    p.tiles.iter().map(f).sum::<u64>()
                };
                serde_json::json!({
                    "name": name,
                    "cycles": p.cycles(),
                    "cycles_geometry": p.cycles_geometry,
                    "cycles_command": sum(&|t| t.cycles_command),
                    "cycles_fragment": sum(&|t| t.cycles_fragment),
                    "cycles_drain": sum(&|t| t.cycles_drain),
                    "cycles_tile_shader": sum(&|t| t.cycles_tile_shader),
                    "cycles_writeout": sum(&|t| t.cycles_writeout),
                    "core_utilisation": p.core_utilisation(),
                    "vertices": p.vertices,
                    "triangles_in": p.triangles_in,
                    "triangles_out": p.triangles_out,
                    "culled": p.culled,
                    "near_clipped": p.near_clipped,
                    "guard_band_rejects": p.guard_band_rejects,
                    "tiles": p.tiles.iter().map(|t| serde_json::json!({
                        "tile": [t.tile.0, t.tile.1], "draws": t.draws, "quads": t.quads,
                        "fragments": t.fragments, "ts_threads": t.ts_threads,
                        "instructions": t.instructions,
                        "cycles": { "command": t.cycles_command, "fragment": t.cycles_fragment,
                            "drain": t.cycles_drain, "tile_shader": t.cycles_tile_shader,
                            "writeout": t.cycles_writeout },
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let (read, written) = self.memory.totals();
        let cycles = self.cycles();
        serde_json::json!({
            "engine": "model",
            "cost_model": "model engine cost model (sim/models/tile/frame.rs): one instruction per warp per cycle, one quad per cycle, 16 B per write-out cycle; not RTL timing",
            "mode": match mode { Mode::TileShader => "tile-shader", Mode::TwoPass => "two-pass", Mode::Forward => "forward" },
            "msaa": samples,
            "width": self.width,
            "height": self.height,
            "cycles": cycles,
            "pixels_per_clock": if cycles > 0 { (self.width * self.height) as f64 / cycles as f64 } else { 0.0 },
            "external_bytes": { "read": read, "written": written, "total": read + written },
            "analytic_minimum_bytes": self.minimum_bytes,
            "bytes_by_class": classes,
            "poison_reads": self.memory.poison_reads(),
            "regions": regions,
            "passes": passes,
        })
    }
}
