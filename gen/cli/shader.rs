//! `rendergen shader asm` and `rendergen shader disasm`: the shader core's assembly
//! (`rtl/shader-isa/ISA.md`).

use crate::Failure;
use clap::{Args, Subcommand};
use rendergen_shader_isa::{asm::assemble_for, disasm::disassemble, from_bytes, to_bytes};
use std::path::PathBuf;

/// `rendergen shader …`.
#[derive(Subcommand)]
pub enum ShaderCommand {
    /// Assemble shader-core assembly into 64-bit instruction words (little-endian).
    Asm(ShaderAsmArgs),
    /// Disassemble shader-core instruction words (the output assembles back to them).
    Disasm(ShaderDisasmArgs),
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
    }
}
