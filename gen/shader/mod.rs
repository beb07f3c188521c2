//! `rendergen shader compile` and `rendergen shader run`: the shader compiler
//! (`rendergen-shader-compiler`) from files, and compiled programs run on an engine with
//! inputs and uniforms from JSON.
//!
//! * **Languages** by extension: `.vert`, `.frag`, `.comp` are GLSL of that stage; `.glsl`
//!   is GLSL and needs `--stage`; `.wgsl` is WGSL (`--stage`/`--entry` pick the entry point).
//! * **`compile` output:** without `-o`, the words go next to the input with `.bin` appended
//!   (`shade.frag` → `shade.frag.bin`, so `x.vert` and `x.frag` do not collide); `--asm`
//!   writes the disassembly instead (to `-o`, or to standard output without it).
//! * **`run` input:** `{"invocations": [{"<input>": [numbers…], …}, …]}` keyed by the
//!   shader's input names (built-ins by their variable names, `gl_FragCoord` or a WGSL
//!   argument's name; a scalar may be a number or a one-element list; booleans as `true`/
//!   `false` or 0/1). Every 4 consecutive invocations are a quad (top-left, top-right,
//!   bottom-left, bottom-right); a last, partial quad is filled with helper lanes whose
//!   inputs are zero. Up to 16 quads form a warp.
//! * **Uniforms:** `{"<member>": number or [numbers…]}` by the names in the shader
//!   (members of a uniform block, or a plain uniform's name), in the ABI's words.
//! * **Textures:** the engine's texture port is the test environment's
//!   (`rendergen_sim::models::shader::MemoryEnv`): a `tex` answers 16-bit UNORM words as the
//!   texture unit does (`compiler/shader/ABI.md` "Sampled textures"), the coordinates clamped
//!   to 0..1, then 1, 1 — so `texture(t, uv)` reads `(uv, 1, 1)` and a program's texture
//!   traffic is visible in its outputs. Real texels come with the texture unit (`TexEnv`).
//! * **Output:** `{"outputs": [{"<output>": [numbers…]}, …]}` in invocation order
//!   (a discarded invocation has `{}`); floats in the shortest form that reads back to the
//!   same f32, integers as integers, NaN and infinities as the strings `"NaN"`, `"inf"`,
//!   `"-inf"`. `--json` adds `"stats"` (warps, instructions executed; cycles and IPC for the
//!   RTL engine).
//! * **`--engine llvmpipe`** runs the GLSL source itself on Mesa's llvmpipe ([`llvmpipe`]),
//!   the conformant outside reference; its documents have the same shape.

pub mod llvmpipe;
pub mod rtl;

use rendergen_shader_compiler::ir::Ty;
use rendergen_shader_compiler::{compile, launch, Compiled, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{self as model, Config, Env, Launch, MemoryEnv, Outcome};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A failure: exit code (1: the program faulted; 2: bad input) and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderError {
    /// 1 or 2.
    pub code: u8,
    /// What went wrong, naming the file, line or field.
    pub message: String,
}

fn bad(message: impl Into<String>) -> ShaderError {
    ShaderError {
        code: 2,
        message: message.into(),
    }
}

/// Which engine runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The golden interpreter (`rendergen_sim::models::shader`).
    Model,
    /// The RTL core (through its simulation driver).
    Rtl,
}

/// What an engine reports for a run.
#[derive(Clone, Debug)]
pub struct EngineRun {
    /// Per launch, in launch order: exports, instructions executed, error (the RTL engine
    /// reports no final registers: `regs` is empty).
    pub warps: Vec<Outcome>,
    /// Cycles of the whole run (warps run at once), for engines that have them.
    pub cycles: Option<u64>,
}

/// Runs `program` on each launch on `engine` with the ports of `env`: the one call an engine
/// needs to provide. The RTL engine simulates `shader_core` (one quad per warp, 8 warp slots,
/// 64 registers, instruction memory the program's length rounded up to a power of two) with
/// the launches running at once, answering every port from `env` after one cycle.
pub fn run_engine(
    engine: Engine,
    program: &[u64],
    launches: &[Launch],
    env: &mut dyn Env,
) -> Result<EngineRun, ShaderError> {
    match engine {
        Engine::Model => Ok(EngineRun {
            warps: (launches.iter())
                .map(|l| model::run(program, &Config::default(), l, env))
                .collect(),
            cycles: None,
        }),
        Engine::Rtl => {
            use rendergen_rtl::shader::{ShaderCfg, IMEM_DEPTH};
            use rendergen_sim::models::shader::Fault;
            if let Some(l) = launches.iter().find(|l| l.quads != 1) {
                return Err(bad(format!(
                    "--engine rtl runs warps of one quad (a launch has {} quads)",
                    l.quads
                )));
            }
            let depth = program.len().next_power_of_two().max(16) as u64;
            if !IMEM_DEPTH.contains(&depth) {
                return Err(bad(format!(
                    "the program has {} instructions; the RTL core's instruction memory holds \
                     at most {}",
                    program.len(),
                    IMEM_DEPTH.end()
                )));
            }
            let cfg = ShaderCfg {
                imem_depth: depth as u32,
                ..ShaderCfg::default()
            };
            let acfg = rendergen_sim::agents::shader_core::AgentCfg::default();
            let (outs, stats) =
                rtl::run_rtl(&cfg, &acfg, program, launches, env).map_err(|e| ShaderError {
                    code: 1,
                    message: format!("the RTL shader core: {e}"),
                })?;
            Ok(EngineRun {
                warps: (outs.into_iter())
                    .map(|o| Outcome {
                        exports: o.exports,
                        regs: Vec::new(),
                        executed: o.executed,
                        error: o.error.map(|(error, pc)| Fault { error, pc }),
                    })
                    .collect(),
                cycles: Some(stats.cycles),
            })
        }
    }
}

/// The language of a file from its extension and `--stage`.
pub fn language(path: &Path, stage: Option<ShaderStage>) -> Result<Lang, ShaderError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let glsl = |s: ShaderStage| -> Result<Lang, ShaderError> {
        match stage {
            Some(given) if given != s => Err(bad(format!(
                "{}: --stage {} contradicts the extension .{ext}",
                path.display(),
                stage_name(given)
            ))),
            _ => Ok(Lang::Glsl(s)),
        }
    };
    match ext {
        "vert" => glsl(ShaderStage::Vertex),
        "frag" => glsl(ShaderStage::Fragment),
        "comp" => glsl(ShaderStage::Compute),
        "glsl" => stage.map(Lang::Glsl).ok_or_else(|| {
            bad(format!(
                "{}: a .glsl file needs --stage vertex|fragment|compute",
                path.display()
            ))
        }),
        "wgsl" => Ok(Lang::Wgsl),
        _ => Err(bad(format!(
            "{}: unknown shader extension (use .vert, .frag, .comp, .glsl with --stage, or .wgsl)",
            path.display()
        ))),
    }
}

/// A stage's command-line name.
pub fn stage_name(s: ShaderStage) -> &'static str {
    match s {
        ShaderStage::Vertex => "vertex",
        ShaderStage::Fragment => "fragment",
        _ => "compute",
    }
}

/// Parses `vertex|fragment|compute`.
pub fn parse_stage(s: &str) -> Option<ShaderStage> {
    match s {
        "vertex" => Some(ShaderStage::Vertex),
        "fragment" => Some(ShaderStage::Fragment),
        "compute" => Some(ShaderStage::Compute),
        _ => None,
    }
}

fn read_text(path: &Path) -> Result<String, ShaderError> {
    std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))
}

/// Compiles a shader file.
pub fn compile_file(
    path: &Path,
    stage: Option<ShaderStage>,
    entry: Option<String>,
) -> Result<Compiled, ShaderError> {
    let lang = language(path, stage)?;
    let src = read_text(path)?;
    let mut o = Options::new(lang);
    o.entry = entry;
    o.stage = stage;
    compile(&src, &path.display().to_string(), &o).map_err(|e| bad(e.to_string()))
}

/// Where `compile` writes without `-o`.
pub fn default_output(input: &Path) -> PathBuf {
    let mut s = input.as_os_str().to_owned();
    s.push(".bin");
    PathBuf::from(s)
}

/// A JSON number (or bool) as the word of a value of type `ty`.
fn word(v: &Json, ty: Ty, at: &str) -> Result<u32, ShaderError> {
    let err = |what: &str| bad(format!("{at}: {what}, found {v}"));
    match (ty, v) {
        (Ty::Bool, Json::Bool(b)) => Ok(*b as u32),
        (_, Json::String(s)) if ty == Ty::F32 => match s.as_str() {
            "NaN" | "nan" => Ok(f32::NAN.to_bits()),
            "inf" => Ok(f32::INFINITY.to_bits()),
            "-inf" => Ok(f32::NEG_INFINITY.to_bits()),
            _ => Err(err("expected a number")),
        },
        (Ty::F32, Json::Number(n)) => Ok((n.as_f64().unwrap() as f32).to_bits()),
        (Ty::I32, Json::Number(n)) => n
            .as_i64()
            .filter(|x| i32::try_from(*x).is_ok())
            .map(|x| x as i32 as u32)
            .ok_or_else(|| err("expected a 32-bit signed integer")),
        (Ty::U32 | Ty::Bool, Json::Number(n)) => n
            .as_u64()
            .filter(|x| u32::try_from(*x).is_ok() && (ty != Ty::Bool || *x <= 1))
            .map(|x| x as u32)
            .ok_or_else(|| {
                err(if ty == Ty::Bool {
                    "expected true, false, 0 or 1"
                } else {
                    "expected a 32-bit unsigned integer"
                })
            }),
        _ => Err(err("expected a number")),
    }
}

/// A JSON number or list as words of types `tys`.
fn words(v: &Json, tys: &[Ty], at: &str) -> Result<Vec<u32>, ShaderError> {
    let items: Vec<&Json> = match v {
        Json::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    if items.len() != tys.len() {
        return Err(bad(format!(
            "{at}: {} numbers, the shader's has {}",
            items.len(),
            tys.len()
        )));
    }
    items
        .iter()
        .zip(tys)
        .enumerate()
        .map(|(i, (x, &t))| word(x, t, &format!("{at}[{i}]")))
        .collect()
}

fn parse_json(path: &Path) -> Result<Json, ShaderError> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "{}:{}:{}: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// The invocations of an inputs file, as words by input name.
pub fn read_inputs(c: &Compiled, path: &Path) -> Result<Vec<launch::Invocation>, ShaderError> {
    let doc = parse_json(path)?;
    let p = path.display();
    let list = doc
        .get("invocations")
        .and_then(Json::as_array)
        .ok_or_else(|| bad(format!("{p}: expected {{\"invocations\": [ … ]}}")))?;
    let mut out = Vec::new();
    for (i, inv) in list.iter().enumerate() {
        let obj = inv.as_object().ok_or_else(|| {
            bad(format!(
                "{p}: invocations[{i}]: expected an object of inputs"
            ))
        })?;
        let mut m = BTreeMap::new();
        for (name, v) in obj {
            let at = format!("{p}: invocations[{i}].{name}");
            let tys = launch::input_types(&c.interface, name).ok_or_else(|| {
                let known: Vec<&str> = c.interface.inputs.iter().map(|v| v.name.as_str()).collect();
                bad(format!(
                    "{at}: the shader has no input `{name}` (its inputs: {})",
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ))
            })?;
            m.insert(name.clone(), words(v, &tys, &at)?);
        }
        out.push(m);
    }
    Ok(out)
}

/// Uniform words from a uniforms file.
pub fn read_uniforms(c: &Compiled, path: &Path) -> Result<Vec<u32>, ShaderError> {
    let doc = parse_json(path)?;
    let p = path.display();
    let obj = doc
        .as_object()
        .ok_or_else(|| bad(format!("{p}: expected an object of uniforms")))?;
    let mut m = BTreeMap::new();
    for (name, v) in obj {
        let at = format!("{p}: {name}");
        let u = c
            .interface
            .uniforms
            .iter()
            .find(|u| &u.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = c
                    .interface
                    .uniforms
                    .iter()
                    .map(|u| u.name.as_str())
                    .collect();
                bad(format!(
                    "{at}: the shader has no uniform `{name}` (its uniforms: {})",
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ))
            })?;
        let tys: Vec<Ty> = u.words.iter().map(|w| w.1).collect();
        m.insert(name.clone(), words(v, &tys, &at)?);
    }
    launch::uniforms(&c.interface, &m).map_err(|e| bad(format!("{p}: {e}")))
}

/// A word of type `ty` as JSON text: floats in the shortest form that reads back to the same
/// f32, integers as integers.
pub fn format_word(w: u32, ty: Ty) -> String {
    match ty {
        Ty::F32 => {
            let x = f32::from_bits(w);
            if x.is_nan() {
                "\"NaN\"".into()
            } else if x.is_infinite() {
                if x > 0.0 {
                    "\"inf\"".into()
                } else {
                    "\"-inf\"".into()
                }
            } else {
                let s = format!("{x:?}");
                s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
            }
        }
        Ty::I32 => (w as i32).to_string(),
        Ty::U32 | Ty::Bool => w.to_string(),
    }
}

/// Statistics of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Warps launched.
    pub warps: usize,
    /// Instructions executed, summed over warps.
    pub instructions: u64,
    /// The program's length.
    pub program_instructions: usize,
    /// Cycles (RTL engine).
    pub cycles: Option<u64>,
}

/// One invocation's outputs: export location → words (empty: the invocation was discarded).
pub type Exports = BTreeMap<u32, Vec<u32>>;

/// Runs a compiled program on invocations; returns the outputs document and statistics.
pub fn run_program(
    c: &Compiled,
    invocations: &[launch::Invocation],
    uniforms: Vec<u32>,
    engine: Engine,
) -> Result<(String, RunStats), ShaderError> {
    let (outs, stats) = run_exports(c, invocations, uniforms, engine)?;
    Ok((outputs_document(c, &outs), stats))
}

/// Runs a compiled program on invocations; returns each invocation's exports and statistics.
pub fn run_exports(
    c: &Compiled,
    invocations: &[launch::Invocation],
    uniforms: Vec<u32>,
    engine: Engine,
) -> Result<(Vec<Exports>, RunStats), ShaderError> {
    let regs = launch::registers(&c.interface, invocations).map_err(bad)?;
    // One quad per warp on every engine (the RTL core's default), so `warp`/`quad`/`lane`
    // read the same on both.
    let lanes_per_warp = 4;
    let launches: Vec<Launch> = regs
        .chunks(lanes_per_warp)
        .enumerate()
        .map(|(w, chunk)| {
            let quads = chunk.len().div_ceil(4);
            let mut l = Launch::new(quads);
            l.regs = chunk.to_vec();
            l.helpers = (chunk.len()..quads * 4).fold(0u64, |m, i| m | 1 << i);
            l.warp_id = w as u32;
            l
        })
        .collect();
    let mut env = MemoryEnv {
        uniforms,
        ..Default::default()
    };
    let run = run_engine(engine, &c.words, &launches, &mut env)?;
    let mut stats = RunStats {
        warps: run.warps.len(),
        program_instructions: c.words.len(),
        cycles: run.cycles,
        ..Default::default()
    };
    let mut outs = Vec::with_capacity(invocations.len());
    for (w, (r, chunk)) in run
        .warps
        .iter()
        .zip(regs.chunks(lanes_per_warp))
        .enumerate()
    {
        if let Some(f) = r.error {
            return Err(ShaderError {
                code: 1,
                message: format!("warp {w} ended with {} at pc {}", f.error, f.pc),
            });
        }
        stats.instructions += r.executed;
        outs.extend(r.exports[..chunk.len()].iter().cloned());
    }
    Ok((outs, stats))
}

/// The outputs document (`{"outputs": [ … ]`, without the closing brace, so that statistics
/// can follow) of each invocation's exports.
pub fn outputs_document(c: &Compiled, invocations: &[Exports]) -> String {
    let mut doc = String::from("{\"outputs\": [");
    for (i, exports) in invocations.iter().enumerate() {
        let outs = launch::outputs(&c.interface, exports);
        let fields: Vec<String> = outs
            .iter()
            .map(|(name, ws, tys)| {
                let nums: Vec<String> = ws
                    .iter()
                    .zip(tys)
                    .map(|(&w, &t)| format_word(w, t))
                    .collect();
                format!("\"{}\": [{}]", name.replace('"', "\\\""), nums.join(", "))
            })
            .collect();
        doc.push_str(if i == 0 { "\n  " } else { ",\n  " });
        doc.push_str(&format!("{{{}}}", fields.join(", ")));
    }
    doc.push_str("\n]");
    doc
}
