//! `rendergen shade eval`: one shading pipeline on every row of a CSV file (library:
//! [`rendergen_gen::shade`]).

use crate::Failure;
use clap::{Subcommand, ValueEnum};
use rendergen_gen::output::write_output;
use rendergen_gen::shade::{self, PIPES};
use std::io::Write;
use std::path::PathBuf;

/// `shade` subcommands.
#[derive(Subcommand)]
pub enum ShadeCommand {
    /// Evaluate a shading pipeline on every row of a CSV file.
    ///
    /// The header names the inputs in stack order (rtl/isa/ISA.md; e.g. `nx,ny,nz,vx,vy,vz,lx,ly,lz,alpha` for ggx,
    /// `nx,ny,nz,vx,vy,vz,alpha,xi1,xi2` for ggx_dir), each row is one request in decimals
    /// (rounded to Q16.16). Output: one column per result word (`f`, or `lx,ly,lz,pdf`, …),
    /// Q16.16 printed exactly (rtl, model) or f64 (f64). `rtl` reports its cycles on stderr.
    #[command(after_help = after_help())]
    Eval {
        /// Pipeline (opcode name): ggx, ggx_dir, oren_nayar, oren_nayar_dir, schlick, sheen,
        /// subsurface, cel.
        pipe: String,
        /// Input CSV file.
        #[arg(long, value_name = "IN.csv")]
        inputs: PathBuf,
        /// rtl: the pipe's RTL in cycle-accurate simulation, one request per clock; model: the
        /// bit-exact binary32 model; f64: the f64 reference of the same formula.
        #[arg(long, value_enum, default_value_t = ShadeEngine::Rtl)]
        engine: ShadeEngine,
        /// Output CSV file (default: standard output); written whole or not at all.
        #[arg(short = 'o', long = "out", value_name = "OUT.csv")]
        out: Option<PathBuf>,
    },
}

/// The input header of every pipeline, for `--help`.
fn after_help() -> String {
    let mut s = String::from("Inputs → outputs of each pipeline:\n");
    for p in PIPES {
        s += &format!(
            "  {:<15} {} → {}\n",
            p.name,
            p.inputs.join(","),
            p.outputs.join(",")
        );
    }
    s
}

/// `--engine` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShadeEngine {
    /// The pipe's RTL in the cycle simulator.
    Rtl,
    /// The bit-exact binary32 model.
    Model,
    /// The f64 reference.
    F64,
}

/// Runs a `shade` subcommand.
pub fn run(cmd: ShadeCommand) -> Result<(), Failure> {
    let ShadeCommand::Eval {
        pipe,
        inputs,
        engine,
        out,
    } = cmd;
    let pipe = shade::find(&pipe).map_err(Failure::usage)?;
    let text = std::fs::read_to_string(&inputs)
        .map_err(|e| Failure::usage(format!("cannot read {}: {e}", inputs.display())))?;
    let rows =
        shade::parse_inputs(pipe, &inputs.display().to_string(), &text).map_err(Failure::usage)?;
    let csv = match engine {
        ShadeEngine::Model => shade::format_words(pipe, &shade::eval_model(pipe, &rows)),
        ShadeEngine::F64 => shade::format_f64(pipe, &shade::eval_f64(pipe, &rows)),
        ShadeEngine::Rtl => {
            let (results, cycles) = shade::eval_rtl(pipe, &rows).map_err(Failure::check)?;
            eprintln!(
                "rendergen: {} rows of {} through its pipe in {cycles} cycles",
                rows.len(),
                pipe.name
            );
            shade::format_words(pipe, &results)
        }
    };
    match out {
        Some(path) => write_output(&path, |w| w.write_all(csv.as_bytes())).map_err(Failure::check),
        None => std::io::stdout()
            .write_all(csv.as_bytes())
            .map_err(|e| Failure::check(format!("cannot write the output: {e}"))),
    }
}
