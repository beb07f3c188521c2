//! `rendergen shader run --engine llvmpipe`: the same GLSL source, inputs and uniforms run on
//! Mesa's llvmpipe (a conformant OpenGL 4.5 implementation) through headless EGL, with the
//! outputs in the shape of the other engines, so that `--engine model` and
//! `--engine llvmpipe` documents can be diffed. It is the project's *outside* reference for
//! GLSL results (the interpreter is bit-exact with the RTL; the naga-IR evaluator of
//! `compiler/shader/tests` is independent but ours).
//!
//! * **What runs.** GLSL 4.50 vertex and fragment shaders (`.vert`, `.frag`, `.glsl` with
//!   `--stage`). WGSL is not a GL language: it is refused. Compute shaders have no outputs in
//!   `shader run`, textures and storage buffers have no llvmpipe counterpart of the engine's
//!   test texture port: each is a clear error, not a silent difference.
//! * **Source edits** ([`source`]), all documented and kept minimal, so GL compiles the
//!   user's own statements: comments stripped (line numbers kept); one prelude line after
//!   `#version`/`#extension` (`layout(std140) uniform;`, GL's default block layout being
//!   `shared` where Vulkan GLSL's is std140, plus the declarations below); `main` renamed to
//!   `rg_main` where a wrapper `main` is appended (fragment shaders).
//! * **Vertex shaders:** one vertex per invocation, drawn as points with the rasteriser
//!   discarded; attributes by location from the inputs (float attributes through
//!   `glVertexAttribPointer(GL_FLOAT)`, integer ones through `glVertexAttribIPointer` with the
//!   shader's signedness: the bits arrive unchanged); `gl_VertexIndex`/`gl_InstanceIndex`
//!   (Vulkan names; GL has `gl_VertexID`/`gl_InstanceID`, which a draw cannot set per vertex
//!   to arbitrary values) become integer attributes at locations 15 and 14 carrying the
//!   JSON's values (GLSL types them `int`, naga `uint`: they agree below 2^31, which every
//!   real index is). Every output and `gl_Position` is captured exactly by transform feedback.
//! * **Fragment shaders:** invocation `4q + k` is pixel `(2·(q mod Q) + (k & 1),
//!   2·(q div Q) + (k >> 1))` of a framebuffer `2Q` wide (`Q = min(quads, 32)`), so each JSON
//!   quad (top-left, top-right, bottom-left, bottom-right) is one GL pixel quad. Its top row is
//!   GL's lower window row, so `dFdy` (towards +y in GL window space) is bottom minus top, as
//!   the interpreter's. One triangle covers the framebuffer; every pixel, including those of a
//!   partial last quad (the interpreter's zero-input helper lanes), runs the shader. Inputs do
//!   not come through interpolation: each `in` declaration becomes a plain global that the
//!   wrapper `main` loads from an RGBA32UI texture at the pixel (`texelFetch`, bits cast back
//!   with `uintBitsToFloat`), so every value, including negative zero, NaN payloads and
//!   denormals, reaches the shader unchanged, and derivatives see exactly the four values of
//!   the quad. `gl_FragCoord`, `gl_FrontFacing`, `gl_SampleID` are loaded the same way from the
//!   JSON (renamed `rg_FragCoord`, …). Outputs go to an RGBA32F/RGBA32I/RGBA32UI attachment per
//!   location (the output's kind); `gl_FragDepth` is renamed into one more float attachment
//!   (GL would clamp a depth buffer to [0, 1]); the wrapper writes 1 to a last R32UI
//!   attachment after `rg_main` returns, so a discarded invocation (0) has no outputs, as on the
//!   other engines. Up to 8 attachments: outputs, depth and that flag together.
//! * **Uniforms:** one buffer of 1 KiB per binding of the program's blocks, filled with the
//!   words the ABI gives (`read_uniforms`), which are naga's std140 offsets; before running, the
//!   offset GL reports for each active uniform member (`GL_UNIFORM_OFFSET`; GL's names
//!   `name`, `Block.name`, `name[0]`) must equal the compiler's, so a layout disagreement is an error
//!   rather than wrong numbers.
//! * **Derivatives:** llvmpipe (Mesa 22.3) computes every derivative fine: `dFdx` at a lane is
//!   its row's right minus left, `dFdy` its column's bottom minus top, and the `…Coarse` forms
//!   are the same (gallivm has no coarse variant). The project's compiler makes plain `dFdx`/
//!   `dFdy` coarse (the quad's top row / left column for every lane), which GLSL allows. So
//!   `…Fine` results agree on every lane, plain and coarse ones only where coarse equals fine
//!   (`dFdx` on the top row, `dFdy` on the left column); `gen/tests/llvmpipe.rs` compares them
//!   there. Derivatives after a `discard` in the quad are undefined in GLSL.
//! * **Context:** [`gl::Gl`]: a desktop GL 4.5 core context on Mesa's software EGL device; the
//!   renderer must be llvmpipe. One context per run. Up to [`MAX_FRAGMENT_INVOCATIONS`]
//!   (524,288) fragment invocations per run; 100,000 invocations of `loops.frag` take 0.9 s
//!   (`time rendergen shader run gen/shader/examples/loops.frag --inputs BIG.json --engine
//!   llvmpipe`, debug build; the model: 2.0 s).

pub mod gl;
pub mod source;

use super::{Exports, ShaderError};
use gl::{Attribute, FragmentDraw, Gl, Kind, VertexDraw};
use rendergen_shader_compiler::ir::Ty;
use rendergen_shader_compiler::{abi, launch, Compiled, ShaderStage};

/// Location of the attribute that carries `gl_VertexIndex`.
pub const VERTEX_INDEX_LOCATION: u32 = 15;
/// Location of the attribute that carries `gl_InstanceIndex`.
pub const INSTANCE_INDEX_LOCATION: u32 = 14;
/// Texture unit of a fragment shader's inputs texture.
const INPUT_UNIT: u32 = 15;
/// Quads per framebuffer row.
const QUADS_PER_ROW: usize = 32;
/// Framebuffer rows at most (llvmpipe's textures reach 16384; half keeps margin).
const MAX_ROWS: usize = 8192;
/// Invocations of one fragment run at most.
pub const MAX_FRAGMENT_INVOCATIONS: usize = QUADS_PER_ROW * 4 * MAX_ROWS / 2;
/// Colour attachments llvmpipe offers (`GL_MAX_DRAW_BUFFERS`).
const MAX_ATTACHMENTS: usize = 8;

fn unsupported(message: impl Into<String>) -> ShaderError {
    ShaderError {
        code: 2,
        message: message.into(),
    }
}

fn failed(message: impl Into<String>) -> ShaderError {
    ShaderError {
        code: 1,
        message: format!("llvmpipe: {}", message.into()),
    }
}

/// A run on llvmpipe: the outputs of each invocation and the GL renderer that made them.
#[derive(Clone, Debug)]
pub struct LlvmpipeRun {
    /// Per invocation, in order: export location → words (empty: discarded).
    pub outputs: Vec<Exports>,
    /// `GL_RENDERER`.
    pub renderer: String,
}

/// Runs the GLSL `source` (compiled as `c`, whose interface names the inputs, outputs and
/// uniforms) on llvmpipe with `invocations` and uniform words `uniforms` (as
/// [`super::read_uniforms`] gives them).
pub fn run(
    c: &Compiled,
    source: &str,
    invocations: &[launch::Invocation],
    uniforms: &[u32],
) -> Result<LlvmpipeRun, ShaderError> {
    let iface = &c.interface;
    if let Some((name, _)) = iface.samplers.first() {
        return Err(unsupported(format!(
            "textures (`{name}`) are not supported by the llvmpipe engine (the other engines \
             answer `tex` from a test port that GL has no counterpart of)"
        )));
    }
    if let Some((name, _)) = iface.buffers.first() {
        return Err(unsupported(format!(
            "storage buffers (`{name}`) are not supported by the llvmpipe engine"
        )));
    }
    let (blocks, layout) = uniform_blocks(c, uniforms);
    let src = source::strip_comments(source);
    match iface.stage {
        ShaderStage::Vertex => run_vertex(c, &src, invocations, &blocks, &layout),
        ShaderStage::Fragment => run_fragment(c, &src, invocations, &blocks, &layout),
        _ => Err(unsupported(
            "the llvmpipe engine runs vertex and fragment shaders (a compute program has no \
             outputs in `shader run`)",
        )),
    }
}

/// One buffer per uniform binding the program uses, and each member's byte offset in it.
#[allow(clippy::type_complexity)]
fn uniform_blocks(c: &Compiled, words: &[u32]) -> (Vec<(u32, Vec<u32>)>, Vec<(String, u32)>) {
    let per = abi::UNIFORM_WORDS_PER_BINDING;
    let mut bindings: Vec<u32> = (c.interface.uniforms.iter())
        .filter_map(|u| u.words.first().map(|w| w.0 / per))
        .collect();
    bindings.sort_unstable();
    bindings.dedup();
    let blocks = bindings
        .iter()
        .map(|&b| {
            let block = (0..per)
                .map(|i| words.get((b * per + i) as usize).copied().unwrap_or(0))
                .collect();
            (b, block)
        })
        .collect();
    let layout = (c.interface.uniforms.iter())
        .filter_map(|u| u.words.first().map(|w| (u.name.clone(), (w.0 % per) * 4)))
        .collect();
    (blocks, layout)
}

fn kind(ty: Ty, what: &str) -> Result<Kind, ShaderError> {
    match ty {
        Ty::F32 => Ok(Kind::Float),
        Ty::I32 => Ok(Kind::Int),
        Ty::U32 => Ok(Kind::Uint),
        Ty::Bool => Err(unsupported(format!(
            "{what} is a boolean, which GL cannot pass through an attribute or attachment"
        ))),
    }
}

fn context() -> Result<Gl, ShaderError> {
    Gl::new().map_err(failed)
}

fn run_vertex(
    c: &Compiled,
    src: &str,
    invocations: &[launch::Invocation],
    blocks: &[(u32, Vec<u32>)],
    layout: &[(String, u32)],
) -> Result<LlvmpipeRun, ShaderError> {
    let iface = &c.interface;
    let mut prelude = String::from("layout(std140) uniform;");
    let mut renames = Vec::new();
    let mut attributes = Vec::new();
    for v in &iface.inputs {
        let (location, k) = match v.name.as_str() {
            "gl_VertexIndex" => (VERTEX_INDEX_LOCATION, Kind::Int),
            "gl_InstanceIndex" => (INSTANCE_INDEX_LOCATION, Kind::Int),
            _ if v.slot >= abi::INPUT_BASE as u32 => (
                (v.slot - abi::INPUT_BASE as u32) / 4,
                kind(v.tys[0], &format!("input `{}`", v.name))?,
            ),
            other => {
                return Err(unsupported(format!(
                    "the built-in `{other}` is not supported by the llvmpipe engine"
                )))
            }
        };
        if let Some(b) = v.name.strip_prefix("gl_") {
            let to = format!("rg_{b}");
            prelude.push_str(&format!(" layout(location = {location}) in int {to};"));
            renames.push((v.name.clone(), to));
        }
        let n = v.tys.len();
        let mut words = Vec::with_capacity(invocations.len() * n);
        for inv in invocations {
            match inv.get(&v.name) {
                Some(w) => words.extend_from_slice(w),
                None => words.extend(std::iter::repeat_n(0, n)),
            }
        }
        attributes.push(Attribute {
            location,
            components: n,
            kind: k,
            words,
        });
    }
    let map: Vec<(&str, &str)> = renames
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let text = source::insert_prelude(&source::rename(src, &map), &prelude);
    let feedback: Vec<&str> = iface.outputs.iter().map(|o| o.name.as_str()).collect();
    let per_vertex: usize = iface.outputs.iter().map(|o| o.tys.len()).sum();
    let gl = context()?;
    let words = gl
        .run_vertex(
            &VertexDraw {
                source: &text,
                attributes: &attributes,
                vertices: invocations.len(),
                feedback: &feedback,
                captured: per_vertex,
            },
            blocks,
            layout,
        )
        .map_err(failed)?;
    let outputs = (0..invocations.len())
        .map(|i| {
            let mut at = i * per_vertex;
            let mut e = Exports::new();
            for o in &iface.outputs {
                e.insert(o.slot, words[at..at + o.tys.len()].to_vec());
                at += o.tys.len();
            }
            e
        })
        .collect();
    Ok(LlvmpipeRun {
        outputs,
        renderer: gl.renderer.clone(),
    })
}

/// The GLSL type of a built-in fragment input (after renaming).
fn builtin_type(name: &str) -> Option<&'static str> {
    match name {
        "gl_FragCoord" => Some("vec4"),
        "gl_FrontFacing" => Some("bool"),
        "gl_SampleID" => Some("int"),
        _ => None,
    }
}

/// `TYPE(…)` of `n` words of type `ty` from the `uvec4` `t`.
fn load(ty_name: &str, ty: Ty, n: usize) -> String {
    let swz = &"xyzw"[..n];
    let inner = match ty {
        Ty::F32 => format!("uintBitsToFloat(rg_t.{swz})"),
        Ty::I32 => format!("ivec4(rg_t).{swz}"),
        Ty::U32 => format!("rg_t.{swz}"),
        Ty::Bool if n == 1 => "rg_t.x != 0u".to_string(),
        Ty::Bool => format!("notEqual(rg_t.{swz}, uvec{n}(0u))"),
    };
    format!("{ty_name}({inner})")
}

fn run_fragment(
    c: &Compiled,
    src: &str,
    invocations: &[launch::Invocation],
    blocks: &[(u32, Vec<u32>)],
    layout: &[(String, u32)],
) -> Result<LlvmpipeRun, ShaderError> {
    let iface = &c.interface;
    if invocations.len() > MAX_FRAGMENT_INVOCATIONS {
        return Err(unsupported(format!(
            "{} invocations: the llvmpipe engine runs at most {MAX_FRAGMENT_INVOCATIONS} \
             fragment invocations at once (a {}-row framebuffer)",
            invocations.len(),
            MAX_ROWS
        )));
    }
    let (text, decls) = source::inputs_to_globals(src).map_err(unsupported)?;
    let mut prelude = format!(
        "layout(std140) uniform; layout(binding = {INPUT_UNIT}) uniform highp usampler2D rg_inputs;"
    );
    let mut renames: Vec<(String, String)> = vec![("main".into(), "rg_main".into())];
    // Inputs: texel j of a pixel holds input j's words.
    let mut loads = String::new();
    for (j, v) in iface.inputs.iter().enumerate() {
        let (ty_name, global) = if let Some(t) = builtin_type(&v.name) {
            let to = format!("rg_{}", &v.name[3..]);
            prelude.push_str(&format!(" {t} {to};"));
            renames.push((v.name.clone(), to.clone()));
            (t.to_string(), to)
        } else if let Some(d) = decls.iter().find(|d| d.name == v.name) {
            (d.ty.clone(), v.name.clone())
        } else if v.name.starts_with("gl_") {
            return Err(unsupported(format!(
                "the built-in `{}` is not supported by the llvmpipe engine",
                v.name
            )));
        } else {
            return Err(unsupported(format!(
                "input `{}` is not a top-level `in` declaration the llvmpipe engine can feed \
                 (input blocks are not supported)",
                v.name
            )));
        };
        loads.push_str(&format!(
            "    rg_t = texelFetch(rg_inputs, ivec2(rg_p.x * RG_K + {j}, rg_p.y), 0);\n    {global} = {};\n",
            load(&ty_name, v.tys[0], v.tys.len())
        ));
    }
    let k = iface.inputs.len().max(1);
    let loads = loads.replace("RG_K", &k.to_string());
    // Outputs: location → kind; depth and the "alive" flag take the next free locations.
    let mut outputs: Vec<Option<Kind>> = Vec::new();
    let mut depth_loc = None;
    for o in &iface.outputs {
        if o.slot == abi::FRAG_DEPTH_EXPORT {
            continue;
        }
        let loc = o.slot as usize;
        if loc >= MAX_ATTACHMENTS {
            return Err(unsupported(format!(
                "output `{}` at location {loc}: llvmpipe has {MAX_ATTACHMENTS} colour attachments",
                o.name
            )));
        }
        if outputs.len() <= loc {
            outputs.resize(loc + 1, None);
        }
        outputs[loc] = Some(kind(o.tys[0], &format!("output `{}`", o.name))?);
    }
    let next_free = |outputs: &mut Vec<Option<Kind>>, k: Kind| -> Result<usize, ShaderError> {
        let at = outputs
            .iter()
            .position(Option::is_none)
            .unwrap_or(outputs.len());
        if at >= MAX_ATTACHMENTS {
            return Err(unsupported(format!(
                "the outputs, gl_FragDepth and the discard flag need more than the \
                 {MAX_ATTACHMENTS} colour attachments llvmpipe has"
            )));
        }
        if outputs.len() <= at {
            outputs.resize(at + 1, None);
        }
        outputs[at] = Some(k);
        Ok(at)
    };
    if iface
        .outputs
        .iter()
        .any(|o| o.slot == abi::FRAG_DEPTH_EXPORT)
    {
        let d = next_free(&mut outputs, Kind::Float)?;
        prelude.push_str(&format!(" layout(location = {d}) out float rg_FragDepth;"));
        renames.push(("gl_FragDepth".into(), "rg_FragDepth".into()));
        depth_loc = Some(d);
    }
    let alive = next_free(&mut outputs, Kind::Uint)?;
    prelude.push_str(&format!(" layout(location = {alive}) out uint rg_alive;"));
    let map: Vec<(&str, &str)> = renames
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let mut text = source::insert_prelude(&source::rename(&text, &map), &prelude);
    text.push_str(&format!(
        "\nvoid main() {{\n    ivec2 rg_p = ivec2(gl_FragCoord.xy);\n    uvec4 rg_t;\n{loads}    rg_main();\n    rg_alive = 1u;\n}}\n"
    ));
    // The framebuffer and the inputs texture.
    let quads = invocations.len().div_ceil(4).max(1);
    let per_row = quads.min(QUADS_PER_ROW);
    let (width, height) = (2 * per_row, 2 * quads.div_ceil(per_row));
    let pixel = |i: usize| {
        let (q, l) = (i / 4, i % 4);
        (2 * (q % per_row) + (l & 1), 2 * (q / per_row) + (l >> 1))
    };
    let input_width = width * k;
    let mut texels = vec![0u32; input_width * height * 4];
    for (i, inv) in invocations.iter().enumerate() {
        let (x, y) = pixel(i);
        for (j, v) in iface.inputs.iter().enumerate() {
            if let Some(w) = inv.get(&v.name) {
                let at = ((y * input_width) + x * k + j) * 4;
                texels[at..at + w.len()].copy_from_slice(w);
            }
        }
    }
    let gl = context()?;
    let got = gl
        .run_fragment(
            &FragmentDraw {
                source: &text,
                input_unit: INPUT_UNIT,
                input_width,
                input_texels: &texels,
                width,
                height,
                outputs: &outputs,
            },
            blocks,
            layout,
        )
        .map_err(failed)?;
    let read = |loc: usize, i: usize, n: usize| -> Vec<u32> {
        let (x, y) = pixel(i);
        let at = (y * width + x) * 4;
        got[loc]
            .as_ref()
            .map_or(vec![0; n], |px| px[at..at + n].to_vec())
    };
    let outputs = (0..invocations.len())
        .map(|i| {
            let mut e = Exports::new();
            if read(alive, i, 1)[0] != 1 {
                return e;
            }
            for o in &iface.outputs {
                let loc = if o.slot == abi::FRAG_DEPTH_EXPORT {
                    depth_loc.unwrap_or(0)
                } else {
                    o.slot as usize
                };
                e.insert(o.slot, read(loc, i, o.tys.len()));
            }
            e
        })
        .collect();
    Ok(LlvmpipeRun {
        outputs,
        renderer: gl.renderer.clone(),
    })
}
