//! rendergen's shader compiler (issue 12 §3–§4, decision D6): GLSL 4.50 (Vulkan flavour) and
//! WGSL through [naga] into the project's SSA IR ([`ir`]), optimised ([`opt`]), then
//! instruction selection, scheduling and register allocation ([`back`]) to the shader core's
//! ISA (`rtl/shader-isa/ISA.md`). Where inputs, built-ins, uniforms, samplers and outputs go
//! is the ABI (`compiler/shader/ABI.md`, [`abi`]).
//!
//! ```
//! use rendergen_shader_compiler::{compile, Lang, Options};
//! let src = "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
//!     return vec4<f32>(x * 2.0, 0.0, 0.0, 1.0);
//! }";
//! let out = compile(src, "a.wgsl", &Options::new(Lang::Wgsl)).unwrap();
//! assert!(out.asm.contains("export 0"));
//! ```

pub mod abi;
pub mod back;
pub mod collective;
pub mod front;
pub mod ir;
pub mod launch;
pub mod opt;

pub use naga;
pub use naga::ShaderStage;
use std::fmt;

/// The source language (GLSL needs its stage: it has no entry-point attributes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// GLSL 4.50 (Vulkan flavour) of a stage.
    Glsl(ShaderStage),
    /// WGSL.
    Wgsl,
}

/// What to compile and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// The language.
    pub lang: Lang,
    /// The entry point (default: the only one, or the first of the stage asked).
    pub entry: Option<String>,
    /// The stage (WGSL: picks the entry point when `entry` is not given).
    pub stage: Option<ShaderStage>,
    /// Run the optimiser (default on).
    pub optimise: bool,
    /// Contract `a·b + c` into `ffma` (default: on for GLSL, which allows it unless `precise`;
    /// off for WGSL, whose results are then those of separately rounded operations).
    pub contract: bool,
    /// Registers per lane of the target core (default 64).
    pub regs: usize,
}

impl Options {
    /// Defaults for `lang`.
    pub fn new(lang: Lang) -> Options {
        Options {
            lang,
            entry: None,
            stage: None,
            optimise: true,
            contract: matches!(lang, Lang::Glsl(_)),
            regs: rendergen_shader_isa::DEFAULT_REGS,
        }
    }
}

/// A compile error: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// `file:line:column: message` (or `file: message`).
    pub message: String,
    /// naga's rendering with the source excerpt, if any.
    pub detail: String,
    /// 1-based line and column, if known.
    pub location: Option<(u32, u32)>,
}

impl CompileError {
    /// An error at a source location.
    pub fn at(
        path: &str,
        loc: Option<naga::SourceLocation>,
        message: String,
        detail: String,
    ) -> CompileError {
        match loc {
            Some(l) => CompileError {
                message: format!("{path}:{}:{}: {message}", l.line_number, l.line_position),
                detail,
                location: Some((l.line_number, l.line_position)),
            },
            None => CompileError::plain(path, message),
        }
    }

    /// An error without a location.
    pub fn plain(path: &str, message: String) -> CompileError {
        CompileError {
            message: format!("{path}: {message}"),
            detail: String::new(),
            location: None,
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if !self.detail.is_empty() {
            write!(f, "\n{}", self.detail.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for CompileError {}

/// An input or output of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoVar {
    /// Its name in the source.
    pub name: String,
    /// Inputs: the first launch register; outputs: the export location.
    pub slot: u32,
    /// Its words' types.
    pub tys: Vec<ir::Ty>,
}

/// A uniform (block member or plain uniform variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniformVar {
    /// Its name in the source.
    pub name: String,
    /// Uniform word and type of each leaf.
    pub words: Vec<(u32, ir::Ty)>,
}

/// What a program reads and writes (the ABI instance of one program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// The stage.
    pub stage: ShaderStage,
    /// The entry point's name.
    pub entry: String,
    /// Inputs and built-ins in launch registers.
    pub inputs: Vec<IoVar>,
    /// Outputs by export location.
    pub outputs: Vec<IoVar>,
    /// Uniforms.
    pub uniforms: Vec<UniformVar>,
    /// Textures: name and binding (the `tex` immediate).
    pub samplers: Vec<(String, u32)>,
    /// Storage buffers: name and binding (base address [`abi::storage_address`]).
    pub buffers: Vec<(String, u32)>,
    /// Storage images (the tile engine's planes through `spec`).
    pub images: Vec<ImageVar>,
    /// A compute program's workgroup size (a tile shader's `xthreads × ythreads`); zeros for
    /// other stages.
    pub workgroup_size: [u32; 3],
}

/// A storage image (a tile-buffer plane, depth, or the write-out control; `ABI.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageVar {
    /// Its name in the source.
    pub name: String,
    /// Its binding (0..=7 render targets, 8 depth, 15 write-out control).
    pub binding: u32,
    /// naga's name of its format (`Rgba8Unorm`, `Rgba16Float`, `Rg16Float`, `R32Float`,
    /// `R32Uint`).
    pub format: String,
    /// Channels of the format.
    pub channels: u32,
}

impl Default for Interface {
    fn default() -> Interface {
        Interface {
            stage: ShaderStage::Fragment,
            entry: String::new(),
            inputs: vec![],
            outputs: vec![],
            uniforms: vec![],
            samplers: vec![],
            buffers: vec![],
            images: vec![],
            workgroup_size: [0; 3],
        }
    }
}

/// Figures of one compilation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// IR statements after lowering.
    pub ir_before: usize,
    /// IR statements after optimisation.
    pub ir_after: usize,
    /// Machine instructions.
    pub instructions: usize,
    /// Registers used.
    pub registers: usize,
    /// Estimated cycles of the straight-line path (every instruction once) before scheduling.
    pub cycles_unscheduled: u64,
    /// The same after scheduling.
    pub cycles_scheduled: u64,
    /// The scheduling window that fitted the core's registers (`usize::MAX`: whole regions;
    /// 0: source order; see [`back::SCHEDULE_WINDOWS`]).
    pub schedule_window: usize,
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The instruction words.
    pub words: Vec<u64>,
    /// Its disassembly.
    pub asm: String,
    /// Its interface.
    pub interface: Interface,
    /// The optimised IR.
    pub ir: ir::Program,
    /// Figures.
    pub stats: Stats,
}

/// The entry point to compile.
fn pick_entry(module: &naga::Module, opts: &Options, path: &str) -> Result<usize, CompileError> {
    let eps = &module.entry_points;
    let found = eps.iter().position(|e| {
        opts.entry.as_ref().is_none_or(|n| &e.name == n) && opts.stage.is_none_or(|s| e.stage == s)
    });
    found.ok_or_else(|| {
        let names: Vec<String> = eps
            .iter()
            .map(|e| format!("{} ({:?})", e.name, e.stage))
            .collect();
        CompileError::plain(
            path,
            format!(
                "no entry point{}{}; the module has: {}",
                opts.entry
                    .as_ref()
                    .map_or(String::new(), |n| format!(" named `{n}`")),
                opts.stage
                    .map_or(String::new(), |s| format!(" of stage {s:?}")),
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ),
        )
    })
}

/// Compiles `src` (read from `path`, for messages).
pub fn compile(src: &str, path: &str, opts: &Options) -> Result<Compiled, CompileError> {
    let (module, info) = front::parse(src, path, opts.lang)?;
    let entry = pick_entry(&module, opts, path)?;
    let (mut prog, interface) = front::lower(&module, &info, entry, src, path)?;
    ir::verify::verify(&prog)
        .map_err(|e| CompileError::plain(path, format!("internal error after lowering: {e}")))?;
    let ir_before = prog.count_defs();
    if opts.optimise {
        opt::optimise(&mut prog, opts.contract);
        ir::verify::verify(&prog).map_err(|e| {
            CompileError::plain(path, format!("internal error after optimisation: {e}"))
        })?;
    }
    let ir_after = prog.count_defs();
    let out = back::generate(&prog, opts.regs, opts.optimise)
        .map_err(|e| CompileError::plain(path, e))?;
    let asm = rendergen_shader_isa::disasm::disassemble(&out.words);
    Ok(Compiled {
        asm,
        words: out.words,
        interface,
        ir: prog,
        stats: Stats {
            ir_before,
            ir_after,
            instructions: out.instructions,
            registers: out.registers,
            cycles_unscheduled: out.cycles_unscheduled,
            cycles_scheduled: out.cycles_scheduled,
            schedule_window: out.schedule_window,
        },
    })
}
