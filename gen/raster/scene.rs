//! The scene file of `rendergen raster` (JSON). Paths are relative to the scene file.
//!
//! ```json
//! {
//!   "width": 128, "height": 96,
//!   "camera": { "position": [0, 2, 5], "look_at": [0, 0, 0], "up": [0, 1, 0],
//!               "fov": 45, "near": 0.1, "far": 50 },
//!   "gbuffer": [ { "name": "albedo", "format": "rgba8", "clear": [0, 0, 0, 0] },
//!                { "name": "normal", "format": "rgba16f" } ],
//!   "output": { "name": "lit", "format": "rgba8" },
//!   "depth_clear": 1.0,
//!   "meshes": [ { "name": "floor", "gltf": "floor.gltf",
//!                 "model": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1],
//!                 "vertex_shader": "gbuffer.vert", "fragment_shader": "gbuffer.frag",
//!                 "forward_shader": "forward.frag",
//!                 "uniforms": { "base_colour": [0.8, 0.8, 0.8, 1] }, "cull": "back" } ],
//!   "lights": [ { "position": [0, 1, 0], "radius": 3, "colour": [1, 0.9, 0.8] } ],
//!   "ambient": [0.05, 0.05, 0.05],
//!   "tile_shader": "lighting.comp",
//!   "lighting_shader": "lighting.frag"
//! }
//! ```
//! * `camera`: a perspective camera (Vulkan clip space: z in [0, w], y down); or `view` and
//!   `projection` as 16 numbers each, column-major, instead.
//! * `gbuffer`: 1..=7 render targets (formats `rgba8`, `rgba16f`, `rg16f`, `r32f`; `clear`
//!   optional, zeros), tile-buffer planes 0.. in order; `output` is the next plane. The tile
//!   buffer has 8 colour planes and depth.
//! * `meshes`: geometry from a glTF 2.0 file (`gltf`, `.gltf` or `.glb`, read by the `gltf`
//!   crate: every triangle-list primitive of the first mesh; `POSITION`, optional `NORMAL`
//!   and `TEXCOORD_0`, indices; buffers in the `.glb`, as files beside it or base64 data URIs;
//!   node transforms are not applied) or inline arrays (`positions` xyz…, optional `normals`,
//!   `uvs`, `indices`). Attribute locations: 0 position (vec3), 1 normal (vec3), 2 uv (vec2).
//!   `model`: 16 numbers, column-major (default identity). `cull`: `none` (default), `back`,
//!   `front`.
//! * A mesh's `texture` (optional): the one texture its fragment shaders sample (GLSL
//!   `texture(sampler2D(t, s), uv)`, `textureLod`, `texelFetch`; any binding, one texture per
//!   program, `compiler/shader/ABI.md` "Sampled textures"):
//!   `{"image": "floor.png"}` (an 8-bit PNG: grey, grey + alpha, RGB, RGBA or palette) or
//!   `{"procedural": {"pattern": "checker", "size": [w, h], "cells": n, "colours": [[r, g, b,
//!   a], [r, g, b, a]]}}` (an n × n checkerboard, channels 0..=1, the first colour at texel
//!   (0, 0)); sides powers of two 1..=1024 (one mip level, linear layout); `"wrap"`: `repeat`
//!   (default), `clamp` or `mirror`, or one per axis `[x, y]`; `"filter"`: `linear` (default,
//!   bilinear) or `nearest` (the sampler's filter: it replaces the `texture()` word's, as a
//!   Vulkan sampler does; `texelFetch` is always exact); `"srgb"`: false (default) or true.
//!   The texels live in their own memory region (class `textures`); every texel the texture
//!   unit reads is 4 bytes read there (no texture cache in the model), counted in `--json`.
//!   With `--engine rtl` the RTL's texture unit reads that region in 16-byte line fills
//!   through its cache: `--json`'s `rtl.regions` count those, and `rtl.texture` gives both
//!   figures (`rtl_read_bytes`, `model_read_bytes`); the image is the model's bit for bit.
//!   A shader that samples on a mesh without a `texture`, or a vertex shader that samples, is
//!   an error.
//! * Uniforms the engine fills when a shader declares them (by member name): `model`,
//!   `view_projection` (mat4), `eye` (vec4: camera position), `screen` (vec4: width, height),
//!   `ambient` (vec4), `samples` (uint: 1 or 4). A mesh's `uniforms` give the others (numbers,
//!   flattened).
//! * `lights` (at most 60): a light list in external memory, storage buffer binding 9 of every
//!   shader: `uint` count at byte 0, then from byte 16 per light two vec4s, position and
//!   radius, colour (the `lights` region; both deferred modes read it).
//! * `tile_shader`: the compute program `--mode tile-shader` runs once per tile after the
//!   G-buffer is drawn (its workgroup size is the thread grid). `lighting_shader`: the
//!   fragment program of `--mode two-pass`'s full-screen pass (it reads the G-buffer surfaces
//!   as storage images, bindings as in the tile shader). `forward_shader` (per mesh):
//!   `--mode forward`'s fragment program, which writes the output directly.
use rendergen_sim::models::texture::{Filter, Wrap};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A render-target description.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetDesc {
    /// Name.
    pub name: String,
    /// `rgba8` …
    pub format: String,
    /// Clear colour.
    pub clear: [f32; 4],
}

/// A mesh of the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshDesc {
    /// Name.
    pub name: String,
    /// xyz per vertex.
    pub positions: Vec<f32>,
    /// xyz per vertex (empty: none).
    pub normals: Vec<f32>,
    /// uv per vertex (empty: none).
    pub uvs: Vec<f32>,
    /// Triangle-list indices.
    pub indices: Vec<u32>,
    /// Model matrix, column-major.
    pub model: [f32; 16],
    /// Vertex shader file.
    pub vertex_shader: PathBuf,
    /// G-buffer fragment shader file.
    pub fragment_shader: PathBuf,
    /// Forward fragment shader file.
    pub forward_shader: Option<PathBuf>,
    /// User uniforms by member name.
    pub uniforms: Vec<(String, Vec<f32>)>,
    /// `none`, `back` or `front`.
    pub cull: String,
    /// The texture its fragment shaders sample, if any.
    pub texture: Option<TextureDesc>,
}

/// A mesh's texture: RGBA8 texels and the sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureDesc {
    /// Where it came from (the PNG's file name, or `procedural <pattern>`).
    pub name: String,
    /// Width in texels (a power of two, 1 ..= 1024).
    pub width: u32,
    /// Height in texels (a power of two, 1 ..= 1024).
    pub height: u32,
    /// Row-major RGBA8 texels, R in bits 7:0.
    pub texels: Vec<u32>,
    /// Wrap in x and y.
    pub wrap: [Wrap; 2],
    /// Filter of `texture()`.
    pub filter: Filter,
    /// sRGB-encoded colour channels (decoded to linear by the texture unit).
    pub srgb: bool,
}

/// A point light.
#[derive(Clone, Debug, PartialEq)]
pub struct LightDesc {
    /// Position.
    pub position: [f32; 3],
    /// Radius of influence.
    pub radius: f32,
    /// Colour.
    pub colour: [f32; 3],
}

/// A scene.
#[derive(Clone, Debug, PartialEq)]
pub struct RasterScene {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// View matrix, column-major.
    pub view: [f32; 16],
    /// Projection matrix, column-major.
    pub projection: [f32; 16],
    /// Camera position.
    pub eye: [f32; 3],
    /// G-buffer render targets.
    pub gbuffer: Vec<TargetDesc>,
    /// The output render target.
    pub output: TargetDesc,
    /// Depth clear in [0, 1].
    pub depth_clear: f32,
    /// Meshes.
    pub meshes: Vec<MeshDesc>,
    /// Lights.
    pub lights: Vec<LightDesc>,
    /// Ambient colour.
    pub ambient: [f32; 3],
    /// The tile shader file.
    pub tile_shader: Option<PathBuf>,
    /// The two-pass lighting fragment shader file.
    pub lighting_shader: Option<PathBuf>,
}

type Res<T> = Result<T, String>;

fn known(v: &Value, path: &str, keys: &[&str]) -> Res<()> {
    let Some(o) = v.as_object() else {
        return Err(format!("{path}: expected an object"));
    };
    for k in o.keys() {
        if !keys.contains(&k.as_str()) {
            return Err(format!(
                "{path}.{k}: unknown field (known: {})",
                keys.join(", ")
            ));
        }
    }
    Ok(())
}

fn nums(v: &Value, path: &str) -> Res<Vec<f32>> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("{path}: expected an array of numbers"))?;
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_f64()
                .filter(|f| f.is_finite())
                .map(|f| f as f32)
                .ok_or_else(|| format!("{path}[{i}]: expected a number"))
        })
        .collect()
}

fn fixed<const N: usize>(v: &Value, path: &str) -> Res<[f32; N]> {
    let n = nums(v, path)?;
    n.clone()
        .try_into()
        .map_err(|_| format!("{path}: expected {N} numbers, found {}", n.len()))
}

fn num(v: &Value, path: &str) -> Res<f32> {
    v.as_f64()
        .filter(|f| f.is_finite())
        .map(|f| f as f32)
        .ok_or_else(|| format!("{path}: expected a number"))
}

fn string(v: &Value, path: &str) -> Res<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{path}: expected a string"))
}

const IDENTITY: [f32; 16] = [
    1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
];

/// `a · b`, column-major 4×4.
pub fn mat_mul(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    std::array::from_fn(|i| {
        let (c, r) = (i / 4, i % 4);
        (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum()
    })
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: [f32; 3]) -> [f32; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A right-handed look-at view matrix (camera looks down −z).
fn look_at(eye: [f32; 3], at: [f32; 3], up: [f32; 3]) -> Res<[f32; 16]> {
    let f = sub(at, eye);
    let s0 = cross(f, up);
    if dot(f, f) == 0.0 || dot(s0, s0) == 0.0 {
        return Err("camera: position, look_at and up must not be collinear".into());
    }
    let f = norm(f);
    let s = norm(s0);
    let u = cross(s, f);
    Ok([
        s[0],
        u[0],
        -f[0],
        0.,
        s[1],
        u[1],
        -f[1],
        0.,
        s[2],
        u[2],
        -f[2],
        0.,
        -dot(s, eye),
        -dot(u, eye),
        dot(f, eye),
        1.,
    ])
}

/// Vulkan perspective: z_clip in [0, w] for depth near..far, y down in framebuffer space.
fn perspective(fov_deg: f32, aspect: f32, near: f32, far: f32) -> [f32; 16] {
    let t = 1.0 / (fov_deg.to_radians() / 2.0).tan();
    let mut m = [0.0; 16];
    m[0] = t / aspect;
    m[5] = -t; // y down
    m[10] = far / (near - far);
    m[11] = -1.0;
    m[14] = near * far / (near - far);
    m
}

impl RasterScene {
    /// Loads a scene file.
    pub fn load(path: &Path) -> Res<RasterScene> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        RasterScene::parse(&text, dir).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses scene JSON with paths relative to `dir`.
    pub fn parse(text: &str, dir: &Path) -> Res<RasterScene> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON: {e}"))?;
        known(
            &v,
            "scene",
            &[
                "width",
                "height",
                "camera",
                "view",
                "projection",
                "gbuffer",
                "output",
                "depth_clear",
                "meshes",
                "lights",
                "ambient",
                "tile_shader",
                "lighting_shader",
            ],
        )?;
        let size = |k: &str, d: u32| -> Res<u32> {
            match v.get(k) {
                None => Ok(d),
                Some(x) => x
                    .as_u64()
                    .filter(|n| (1..=4096).contains(n))
                    .map(|n| n as u32)
                    .ok_or_else(|| format!("{k}: expected an integer 1..=4096")),
            }
        };
        let (width, height) = (size("width", 128)?, size("height", 96)?);
        let (view, projection, eye) = match (v.get("camera"), v.get("view"), v.get("projection")) {
            (Some(c), None, None) => {
                known(
                    c,
                    "camera",
                    &["position", "look_at", "up", "fov", "near", "far"],
                )?;
                let g = |k: &str| c.get(k).ok_or_else(|| format!("camera.{k}: missing"));
                let eye: [f32; 3] = fixed(g("position")?, "camera.position")?;
                let at = fixed(g("look_at")?, "camera.look_at")?;
                let up = match c.get("up") {
                    Some(u) => fixed(u, "camera.up")?,
                    None => [0., 1., 0.],
                };
                let fov = num(g("fov")?, "camera.fov")?;
                if !(fov > 0.0 && fov < 180.0) {
                    return Err("camera.fov: expected 0 < fov < 180 degrees".into());
                }
                let near = c.get("near").map_or(Ok(0.1), |x| num(x, "camera.near"))?;
                let far = c.get("far").map_or(Ok(100.0), |x| num(x, "camera.far"))?;
                if !(near > 0.0 && far > near) {
                    return Err("camera.near, camera.far: expected 0 < near < far".into());
                }
                (
                    look_at(eye, at, up)?,
                    perspective(fov, width as f32 / height as f32, near, far),
                    eye,
                )
            }
            (None, Some(vm), Some(pm)) => {
                let view: [f32; 16] = fixed(vm, "view")?;
                // The eye is the view's inverse translation (rigid view matrices).
                let t = [view[12], view[13], view[14]];
                let eye = std::array::from_fn(|i| {
                    -(view[i * 4] * t[0] + view[i * 4 + 1] * t[1] + view[i * 4 + 2] * t[2])
                });
                (view, fixed(pm, "projection")?, eye)
            }
            _ => return Err("scene: give either `camera` or both `view` and `projection`".into()),
        };
        let target = |t: &Value, path: &str| -> Res<TargetDesc> {
            known(t, path, &["name", "format", "clear"])?;
            let format = string(
                t.get("format").ok_or(format!("{path}.format: missing"))?,
                &format!("{path}.format"),
            )?;
            if !["rgba8", "rgba16f", "rg16f", "r32f"].contains(&format.as_str()) {
                return Err(format!(
                    "{path}.format: `{format}` (expected rgba8, rgba16f, rg16f, r32f)"
                ));
            }
            Ok(TargetDesc {
                name: t
                    .get("name")
                    .map_or(Ok(path.to_string()), |n| string(n, &format!("{path}.name")))?,
                format,
                clear: t
                    .get("clear")
                    .map_or(Ok([0.0; 4]), |c| fixed(c, &format!("{path}.clear")))?,
            })
        };
        let gb = v
            .get("gbuffer")
            .and_then(Value::as_array)
            .ok_or("gbuffer: expected an array of render targets")?;
        if gb.is_empty() || gb.len() > 7 {
            return Err(format!(
                "gbuffer: {} render targets; the tile buffer has 8 colour planes, one of them for the output (1..=7)",
                gb.len()
            ));
        }
        let gbuffer = gb
            .iter()
            .enumerate()
            .map(|(i, t)| target(t, &format!("gbuffer[{i}]")))
            .collect::<Res<Vec<_>>>()?;
        let output = target(v.get("output").ok_or("output: missing")?, "output")?;
        let path_of = |x: &Value, p: &str| -> Res<PathBuf> { Ok(dir.join(string(x, p)?)) };
        let ms = v
            .get("meshes")
            .and_then(Value::as_array)
            .ok_or("meshes: expected an array")?;
        let mut meshes = Vec::new();
        for (i, m) in ms.iter().enumerate() {
            let p = format!("meshes[{i}]");
            known(
                m,
                &p,
                &[
                    "name",
                    "gltf",
                    "positions",
                    "normals",
                    "uvs",
                    "indices",
                    "model",
                    "vertex_shader",
                    "fragment_shader",
                    "forward_shader",
                    "uniforms",
                    "cull",
                    "texture",
                ],
            )?;
            let field = |k: &str| m.get(k).ok_or_else(|| format!("{p}.{k}: missing"));
            let (positions, normals, uvs, indices) = match m.get("gltf") {
                Some(g) => {
                    let file = path_of(g, &format!("{p}.gltf"))?;
                    super::gltf::load(&file).map_err(|e| format!("{p}.gltf: {e}"))?
                }
                None => {
                    let pos = nums(field("positions")?, &format!("{p}.positions"))?;
                    let opt = |k: &str| {
                        m.get(k)
                            .map_or(Ok(vec![]), |x| nums(x, &format!("{p}.{k}")))
                    };
                    let idx = match m.get("indices") {
                        Some(x) => nums(x, &format!("{p}.indices"))?
                            .iter()
                            .map(|&f| f as u32)
                            .collect(),
                        None => (0..pos.len() as u32 / 3).collect(),
                    };
                    (pos, opt("normals")?, opt("uvs")?, idx)
                }
            };
            let n = positions.len() / 3;
            if positions.len() % 3 != 0 || n == 0 {
                return Err(format!("{p}.positions: expected xyz triples"));
            }
            if !normals.is_empty() && normals.len() != 3 * n {
                return Err(format!("{p}.normals: expected {} numbers", 3 * n));
            }
            if !uvs.is_empty() && uvs.len() != 2 * n {
                return Err(format!("{p}.uvs: expected {} numbers", 2 * n));
            }
            if indices.len() % 3 != 0 {
                return Err(format!(
                    "{p}.indices: {} is not a multiple of 3",
                    indices.len()
                ));
            }
            if let Some(bad) = indices.iter().find(|&&x| x as usize >= n) {
                return Err(format!(
                    "{p}.indices: index {bad} is not below the vertex count {n}"
                ));
            }
            let mut uniforms = Vec::new();
            if let Some(u) = m.get("uniforms") {
                let o = u
                    .as_object()
                    .ok_or(format!("{p}.uniforms: expected an object"))?;
                for (k, x) in o {
                    let vals = match x.as_f64() {
                        Some(f) => vec![f as f32],
                        None => nums(x, &format!("{p}.uniforms.{k}"))?,
                    };
                    uniforms.push((k.clone(), vals));
                }
            }
            let cull = m
                .get("cull")
                .map_or(Ok("none".to_string()), |c| string(c, &format!("{p}.cull")))?;
            if !["none", "back", "front"].contains(&cull.as_str()) {
                return Err(format!("{p}.cull: `{cull}` (expected none, back, front)"));
            }
            meshes.push(MeshDesc {
                name: m
                    .get("name")
                    .map_or(Ok(format!("mesh{i}")), |x| string(x, &format!("{p}.name")))?,
                positions,
                normals,
                uvs,
                indices,
                model: m
                    .get("model")
                    .map_or(Ok(IDENTITY), |x| fixed(x, &format!("{p}.model")))?,
                vertex_shader: path_of(field("vertex_shader")?, &format!("{p}.vertex_shader"))?,
                fragment_shader: path_of(
                    field("fragment_shader")?,
                    &format!("{p}.fragment_shader"),
                )?,
                forward_shader: m
                    .get("forward_shader")
                    .map(|x| path_of(x, &format!("{p}.forward_shader")))
                    .transpose()?,
                uniforms,
                cull,
                texture: m
                    .get("texture")
                    .map(|t| texture(t, &format!("{p}.texture"), dir))
                    .transpose()?,
            });
        }
        let mut lights = Vec::new();
        if let Some(ls) = v.get("lights") {
            let ls = ls.as_array().ok_or("lights: expected an array")?;
            for (i, l) in ls.iter().enumerate() {
                let p = format!("lights[{i}]");
                known(l, &p, &["position", "radius", "colour"])?;
                let g = |k: &str| l.get(k).ok_or_else(|| format!("{p}.{k}: missing"));
                lights.push(LightDesc {
                    position: fixed(g("position")?, &format!("{p}.position"))?,
                    radius: num(g("radius")?, &format!("{p}.radius"))?,
                    colour: fixed(g("colour")?, &format!("{p}.colour"))?,
                });
            }
        }
        if lights.len() > 60 {
            return Err(format!(
                "lights: {} lights; at most 60 (uniform space)",
                lights.len()
            ));
        }
        Ok(RasterScene {
            width,
            height,
            view,
            projection,
            eye,
            gbuffer,
            output,
            depth_clear: v
                .get("depth_clear")
                .map_or(Ok(1.0), |x| num(x, "depth_clear"))?,
            meshes,
            lights,
            ambient: v
                .get("ambient")
                .map_or(Ok([0.0; 3]), |x| fixed(x, "ambient"))?,
            tile_shader: v
                .get("tile_shader")
                .map(|x| path_of(x, "tile_shader"))
                .transpose()?,
            lighting_shader: v
                .get("lighting_shader")
                .map(|x| path_of(x, "lighting_shader"))
                .transpose()?,
        })
    }
}

/// Largest texture side (the texture unit's 10-bit `log2` sizes).
const MAX_TEXTURE_SIDE: u32 = 1024;

/// A mesh's `texture` (module docs).
fn texture(t: &Value, p: &str, dir: &Path) -> Res<TextureDesc> {
    known(t, p, &["image", "procedural", "wrap", "filter", "srgb"])?;
    let (name, width, height, texels) = match (t.get("image"), t.get("procedural")) {
        (Some(f), None) => {
            let file = dir.join(string(f, &format!("{p}.image"))?);
            let (w, h, texels) =
                read_png(&file).map_err(|e| format!("{p}.image: {}: {e}", file.display()))?;
            let name = file
                .file_name()
                .map_or("image".into(), |n| n.to_string_lossy().into_owned());
            (name, w, h, texels)
        }
        (None, Some(g)) => procedural(g, &format!("{p}.procedural"))?,
        _ => return Err(format!("{p}: give exactly one of `image` and `procedural`")),
    };
    let side_ok = |n: u32| n.is_power_of_two() && n <= MAX_TEXTURE_SIDE;
    if !side_ok(width) || !side_ok(height) {
        return Err(format!(
            "{p}: {width}×{height} texels; each side must be a power of two 1..={MAX_TEXTURE_SIDE}"
        ));
    }
    let wrap_of = |v: &Value, q: &str| -> Res<Wrap> {
        match string(v, q)?.as_str() {
            "repeat" => Ok(Wrap::Repeat),
            "clamp" => Ok(Wrap::Clamp),
            "mirror" => Ok(Wrap::Mirror),
            w => Err(format!("{q}: `{w}` (expected repeat, clamp, mirror)")),
        }
    };
    let wrap = match t.get("wrap") {
        None => [Wrap::Repeat; 2],
        Some(Value::Array(a)) if a.len() == 2 => [
            wrap_of(&a[0], &format!("{p}.wrap[0]"))?,
            wrap_of(&a[1], &format!("{p}.wrap[1]"))?,
        ],
        Some(w @ Value::String(_)) => [wrap_of(w, &format!("{p}.wrap"))?; 2],
        Some(_) => return Err(format!("{p}.wrap: expected a wrap mode or two")),
    };
    let filter = match t.get("filter") {
        None => Filter::Linear,
        Some(f) => match string(f, &format!("{p}.filter"))?.as_str() {
            "linear" => Filter::Linear,
            "nearest" => Filter::Nearest,
            f => return Err(format!("{p}.filter: `{f}` (expected linear, nearest)")),
        },
    };
    let srgb = match t.get("srgb") {
        None => false,
        Some(b) => b
            .as_bool()
            .ok_or_else(|| format!("{p}.srgb: expected true or false"))?,
    };
    Ok(TextureDesc {
        name,
        width,
        height,
        texels,
        wrap,
        filter,
        srgb,
    })
}

/// An 8-bit PNG (grey, grey + alpha, RGB, RGBA; palettes expanded) as RGBA8 texels.
fn read_png(path: &Path) -> Res<(u32, u32, Vec<u32>)> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("not a readable PNG ({e})"))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("not a readable PNG ({e})"))?;
    if info.bit_depth != png::BitDepth::Eight {
        return Err(format!(
            "{:?}-bit channels; textures are 8 bits per channel",
            info.bit_depth
        ));
    }
    let channels = info.color_type.samples();
    let texels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| {
            let [r, g, b, a] = match *c {
                [y] => [y, y, y, 255],
                [y, a] => [y, y, y, a],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => [0; 4],
            };
            u32::from_le_bytes([r, g, b, a])
        })
        .collect();
    Ok((info.width, info.height, texels))
}

/// A generated texture: `{"pattern": "checker", "size": [w, h], "cells": n, "colours":
/// [[r, g, b, a], [r, g, b, a]]}` (an `n × n` checkerboard, colours 0..=1, first colour at
/// texel (0, 0)).
fn procedural(g: &Value, p: &str) -> Res<(String, u32, u32, Vec<u32>)> {
    known(g, p, &["pattern", "size", "cells", "colours"])?;
    let pattern = string(
        g.get("pattern").ok_or(format!("{p}.pattern: missing"))?,
        &format!("{p}.pattern"),
    )?;
    if pattern != "checker" {
        return Err(format!("{p}.pattern: `{pattern}` (expected checker)"));
    }
    let [w, h]: [f32; 2] = fixed(
        g.get("size").ok_or(format!("{p}.size: missing"))?,
        &format!("{p}.size"),
    )?;
    if !(w >= 1.0 && h >= 1.0 && w.fract() == 0.0 && h.fract() == 0.0) {
        return Err(format!("{p}.size: expected two positive integers"));
    }
    let (w, h) = (w.min(1e6) as u32, h.min(1e6) as u32);
    let cells = g
        .get("cells")
        .map_or(Ok(8.0), |c| num(c, &format!("{p}.cells")))?;
    if !(cells >= 1.0 && cells.fract() == 0.0 && cells as u32 <= w.min(h)) {
        return Err(format!(
            "{p}.cells: expected an integer 1..={} (the smaller side)",
            w.min(h)
        ));
    }
    let cells = cells as u32;
    let colours = g
        .get("colours")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .ok_or(format!("{p}.colours: expected two RGBA colours"))?;
    let unorm = |c: &Value, i: usize| -> Res<u32> {
        let q = format!("{p}.colours[{i}]");
        let v: [f32; 4] = fixed(c, &q)?;
        if v.iter().any(|x| !(0.0..=1.0).contains(x)) {
            return Err(format!("{q}: channels are 0..=1"));
        }
        Ok(u32::from_le_bytes(v.map(|x| (x * 255.0).round() as u8)))
    };
    let pair = [unorm(&colours[0], 0)?, unorm(&colours[1], 1)?];
    let texels = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            pair[((x * cells / w + y * cells / h) % 2) as usize]
        })
        .collect();
    Ok((format!("procedural {pattern}"), w, h, texels))
}
