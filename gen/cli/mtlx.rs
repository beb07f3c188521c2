//! `rendergen mtlx compile`: the MaterialX material compiler (`compiler/mtlx`, ABI in
//! `compiler/mtlx/ABI.md`).

use crate::Failure;
use clap::{Args, Subcommand};
use rendergen_mtlx_compiler::{compile_file, Options};
use std::path::PathBuf;

/// `rendergen mtlx …`.
#[derive(Subcommand)]
pub enum MtlxCommand {
    /// Compile a MaterialX 1.39 material to the PBRU's shading and importance-sampling
    /// bytecode, its set-up and textures (container and stack layouts: compiler/mtlx/ABI.md).
    Compile(MtlxCompileArgs),
}

/// `rendergen mtlx compile`.
#[derive(Args)]
pub struct MtlxCompileArgs {
    /// The MaterialX document (.mtlx).
    input: PathBuf,
    /// Output file (default: the input's name with `.bin` appended; with --asm, standard
    /// output).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Write the assembly of both programs (with the set-up as comments) instead of the
    /// container.
    #[arg(long)]
    asm: bool,
    /// The surfacematerial to compile (needed when the document has several).
    #[arg(long)]
    material: Option<String>,
}

fn write(out: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    rendergen_gen::output::write_output(out, |w| w.write_all(bytes)).map_err(Failure::check)
}

/// Runs an `mtlx` subcommand.
pub fn run(cmd: MtlxCommand) -> Result<(), Failure> {
    let MtlxCommand::Compile(a) = cmd;
    let opts = Options {
        material: a.material.clone(),
        ..Options::default()
    };
    let c = compile_file(&a.input, &opts)
        .map_err(|e| Failure::check(format!("{}: {e}", a.input.display())))?;
    for w in &c.warnings {
        eprintln!("warning: {}: {w}", a.input.display());
    }
    if a.asm {
        return match &a.out {
            Some(out) => write(out, c.listing().as_bytes()),
            None => {
                print!("{}", c.listing());
                Ok(())
            }
        };
    }
    let out = a.out.unwrap_or_else(|| {
        let mut p = a.input.clone().into_os_string();
        p.push(".bin");
        PathBuf::from(p)
    });
    write(&out, &c.container().to_bytes())?;
    println!(
        "{}: material `{}`, {} lobe{} ({}); shading {} instructions ({} bytes, stack {}), \
         sampling {} instructions ({} bytes, stack {}); {} set-up request{}, {} texture{}",
        out.display(),
        c.material,
        c.lobes.len(),
        if c.lobes.len() == 1 { "" } else { "s" },
        c.lobes.join(", "),
        c.shading.instructions,
        c.shading.code.len(),
        c.shading.max_depth,
        c.sampling.instructions,
        c.sampling.code.len(),
        c.sampling.max_depth,
        c.setup.len(),
        if c.setup.len() == 1 { "" } else { "s" },
        c.textures.len(),
        if c.textures.len() == 1 { "" } else { "s" },
    );
    Ok(())
}
