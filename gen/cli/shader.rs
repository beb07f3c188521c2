//! `rendergen shader asm` and `rendergen shader disasm`: the shader core's assembly
//! (`rtl/shader-isa/ISA.md`); `rendergen shader compile` and `rendergen shader run`: the
//! shader compiler and its engines (`rendergen_gen::shader`).

use crate::Failure;
use clap::{Args, Subcommand};
use rendergen_gen::shader;
use rendergen_shader_isa::{asm::assemble_for, disasm::disassemble, from_bytes, to_bytes};
use std::path::PathBuf;

/// `rendergen shader …`.
#[derive(Subcommand)]
pub enum ShaderCommand {
    /// Assemble shader-core assembly into 64-bit instruction words (little-endian).
    Asm(ShaderAsmArgs),
    /// Disassemble shader-core instruction words (the output assembles back to them).
    Disasm(ShaderDisasmArgs),
    /// Compile GLSL 4.50 (.vert/.frag/.comp, or .glsl with --stage) or WGSL to instruction
    /// words (ABI: compiler/shader/ABI.md).
    Compile(ShaderCompileArgs),
    /// Compile a shader and run it on invocations from JSON (format: `rendergen_gen::shader`).
    Run(ShaderRunArgs),
}

/// `rendergen shader compile`.
#[derive(Args)]
pub struct ShaderCompileArgs {
    /// Shader source (.vert, .frag, .comp, .glsl, .wgsl).
    input: PathBuf,
    /// The stage (needed for .glsl; picks the entry point of a WGSL module).
    #[arg(long, value_parser = ["vertex", "fragment", "compute"])]
    stage: Option<String>,
    /// The entry point's name.
    #[arg(long)]
    entry: Option<String>,
    /// Output file (default: the input's name with `.bin` appended; with --asm, standard
    /// output).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Write the disassembly instead of the words.
    #[arg(long)]
    asm: bool,
}

/// `rendergen shader run`.
#[derive(Args)]
pub struct ShaderRunArgs {
    /// Shader source (.vert, .frag, .comp, .glsl, .wgsl).
    program: PathBuf,
    /// Invocations: `{"invocations": [{"<input>": [numbers…]}, …]}`.
    #[arg(long)]
    inputs: PathBuf,
    /// Uniforms: `{"<member>": number or [numbers…]}`.
    #[arg(long)]
    uniforms: Option<PathBuf>,
    /// The stage (needed for .glsl).
    #[arg(long, value_parser = ["vertex", "fragment", "compute"])]
    stage: Option<String>,
    /// The entry point's name.
    #[arg(long)]
    entry: Option<String>,
    /// The engine: the golden interpreter (model), the RTL core (rtl), or Mesa's llvmpipe
    /// through headless EGL (llvmpipe: the GLSL source itself on a conformant OpenGL 4.5,
    /// the outside reference; vertex and fragment GLSL only, no textures; needs libEGL and
    /// Mesa's drivers). All give the same output shape, so the documents can be diffed.
    #[arg(long, default_value = "model", value_parser = ["model", "rtl", "llvmpipe"])]
    engine: String,
    /// Output file (default: standard output).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Add statistics (warps, instructions; cycles and IPC for rtl) under "stats".
    #[arg(long)]
    json: bool,
}

/// `rendergen shader asm`.
#[derive(Args)]
pub struct ShaderAsmArgs {
    /// Assembly source (syntax: rtl/shader-isa/ISA.md).
    input: PathBuf,
    /// Output file of instruction words.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Registers per lane of the target core (register fields are checked against it),
    /// 1..=256.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..=256))]
    regs: u16,
}

/// `rendergen shader disasm`.
#[derive(Args)]
pub struct ShaderDisasmArgs {
    /// File of instruction words.
    input: PathBuf,
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::check(format!("{}: {e}", path.display())))
}

/// Runs a `shader` subcommand.
pub fn run(cmd: ShaderCommand) -> Result<(), Failure> {
    match cmd {
        ShaderCommand::Asm(a) => {
            let src = String::from_utf8_lossy(&read(&a.input)?).into_owned();
            let words = assemble_for(&src, a.regs as usize)
                .map_err(|e| Failure::check(format!("{}:\n{e}", a.input.display())))?;
            let bytes = to_bytes(&words);
            rendergen_gen::output::write_output(&a.out, |w| w.write_all(&bytes))
                .map_err(Failure::check)?;
            println!("{}: {} instructions", a.out.display(), words.len());
            Ok(())
        }
        ShaderCommand::Disasm(a) => {
            let bytes = read(&a.input)?;
            let words = from_bytes(&bytes).ok_or_else(|| {
                Failure::check(format!(
                    "{}: {} bytes is not a whole number of 8-byte instructions",
                    a.input.display(),
                    bytes.len()
                ))
            })?;
            print!("{}", disassemble(&words));
            Ok(())
        }
        ShaderCommand::Compile(a) => compile(a),
        ShaderCommand::Run(a) => run_shader(a),
    }
}

fn failure(e: shader::ShaderError) -> Failure {
    if e.code == 2 {
        Failure::usage(e.message)
    } else {
        Failure::check(e.message)
    }
}

fn write(out: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    rendergen_gen::output::write_output(out, |w| w.write_all(bytes)).map_err(Failure::check)
}

fn compile(a: ShaderCompileArgs) -> Result<(), Failure> {
    let stage = a.stage.as_deref().and_then(shader::parse_stage);
    let c = shader::compile_file(&a.input, stage, a.entry).map_err(failure)?;
    if a.asm {
        match &a.out {
            Some(out) => write(out, c.asm.as_bytes())?,
            None => print!("{}", c.asm),
        }
        return Ok(());
    }
    let out = a.out.unwrap_or_else(|| shader::default_output(&a.input));
    write(&out, &to_bytes(&c.words))?;
    println!(
        "{}: {} instructions, {} registers ({} IR statements before optimisation, {} after)",
        out.display(),
        c.stats.instructions,
        c.stats.registers,
        c.stats.ir_before,
        c.stats.ir_after
    );
    Ok(())
}

fn run_shader(a: ShaderRunArgs) -> Result<(), Failure> {
    let stage = a.stage.as_deref().and_then(shader::parse_stage);
    let c = shader::compile_file(&a.program, stage, a.entry.clone()).map_err(failure)?;
    let invocations = shader::read_inputs(&c, &a.inputs).map_err(failure)?;
    let uniforms = match &a.uniforms {
        Some(u) => shader::read_uniforms(&c, u).map_err(failure)?,
        None => Vec::new(),
    };
    if a.engine == "llvmpipe" {
        return run_llvmpipe(&a, &c, &invocations, &uniforms);
    }
    let engine = if a.engine == "rtl" {
        shader::Engine::Rtl
    } else {
        shader::Engine::Model
    };
    let (mut doc, stats) =
        shader::run_program(&c, &invocations, uniforms, engine).map_err(failure)?;
    if a.json {
        doc.push_str(&format!(
            ",\n\"stats\": {{\"engine\": \"{}\", \"warps\": {}, \"program_instructions\": {}, \"instructions\": {}",
            a.engine, stats.warps, stats.program_instructions, stats.instructions
        ));
        if let Some(cy) = stats.cycles {
            doc.push_str(&format!(
                ", \"cycles\": {cy}, \"ipc\": {:.3}",
                stats.instructions as f64 / cy.max(1) as f64
            ));
        }
        doc.push('}');
    }
    finish(&a, doc)
}

fn finish(a: &ShaderRunArgs, mut doc: String) -> Result<(), Failure> {
    doc.push_str("}\n");
    match &a.out {
        Some(out) => write(out, doc.as_bytes()),
        None => {
            print!("{doc}");
            Ok(())
        }
    }
}

/// `--engine llvmpipe`: the source itself on Mesa's llvmpipe (`rendergen_gen::shader::llvmpipe`).
fn run_llvmpipe(
    a: &ShaderRunArgs,
    c: &rendergen_shader_compiler::Compiled,
    invocations: &[rendergen_shader_compiler::launch::Invocation],
    uniforms: &[u32],
) -> Result<(), Failure> {
    if a.program.extension().and_then(|e| e.to_str()) == Some("wgsl") {
        return Err(Failure::usage(format!(
            "{}: WGSL is not accepted by OpenGL; --engine llvmpipe runs GLSL 4.50 sources \
             (.vert, .frag, .glsl)",
            a.program.display()
        )));
    }
    let src = std::fs::read_to_string(&a.program)
        .map_err(|e| Failure::check(format!("{}: {e}", a.program.display())))?;
    let run = shader::llvmpipe::run(c, &src, invocations, uniforms).map_err(failure)?;
    let mut doc = shader::outputs_document(c, &run.outputs);
    if a.json {
        doc.push_str(&format!(
            ",\n\"stats\": {{\"engine\": \"llvmpipe\", \"invocations\": {}, \"renderer\": \"{}\"}}",
            run.outputs.len(),
            run.renderer.replace('"', "'")
        ));
    }
    finish(a, doc)
}
