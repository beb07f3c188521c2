//! `rendergen asm`, `rendergen disasm` and `rendergen sim pbru`.

use crate::Failure;
use clap::{Args, Subcommand, ValueEnum};
use rendergen_gen::pbru::{run, to_json, to_text, SimOptions, Workload};
use rendergen_isa::{asm::assemble, disasm::disassemble_to};
use rendergen_rtl::pbru::ports::PbruCfg;
use std::io::Write;
use std::path::PathBuf;

/// `rendergen asm`.
#[derive(Args)]
pub struct AsmArgs {
    /// Assembly source (syntax: rtl/isa/ISA.md).
    input: PathBuf,
    /// Output bytecode file.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
}

/// `rendergen disasm`.
#[derive(Args)]
pub struct DisasmArgs {
    /// Bytecode file.
    input: PathBuf,
    /// Address of the first byte.
    #[arg(long, default_value_t = 0)]
    base: u32,
}

/// `rendergen sim …`.
#[derive(Subcommand)]
pub enum SimCommand {
    /// Run the PBRU with SM, TTU and L1 agents; check every ray against the interpreter.
    Pbru(PbruArgs),
}

/// `--workload` values.
#[derive(Clone, Copy, ValueEnum)]
pub enum WorkloadArg {
    /// One ray per pixel: TEX_A → TEX_READ → TEX_DP, scaled.
    Texture,
    /// Local arithmetic.
    Alu,
    /// The texture fetch with only u, v on the ray (constants pushed by the program).
    TextureLean,
    /// One Oren-Nayar evaluation per ray (N V L σ on the ray): that pipeline is the bottleneck.
    ShadeLean,
    /// Texture, arithmetic, shading, importance sampling and SM call-outs.
    Mixed,
}

/// The simulator's evaluation mode.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EvalArg {
    /// Every operation every cycle (the reference).
    Full,
    /// Only groups of operations whose inputs changed.
    Active,
}

impl EvalArg {
    /// The simulator's mode.
    pub fn eval(self) -> rendergen_sim::Eval {
        match self {
            EvalArg::Full => rendergen_sim::Eval::Full,
            EvalArg::Active => rendergen_sim::Eval::Active,
        }
    }
}

/// `rendergen sim pbru` options.
#[derive(Args)]
pub struct PbruArgs {
    /// Processing cores, 1..=8.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=8))]
    cores: u32,
    /// Ray slots per core, 1..=8.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    slots: u32,
    /// Rays to send, 1..=65536 (ray ids are 16 bits).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    rays: u32,
    /// Seed of the workload and the agents.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Built-in workload (gen/pbru/programs/).
    #[arg(long, value_enum, default_value_t = WorkloadArg::Texture)]
    workload: WorkloadArg,
    /// Run this program instead; each ray's stack holds u v sqrt_cov base dims format scale
    /// (its pixel of the texture) and three random Q16.16 words.
    #[arg(long)]
    program: Option<PathBuf>,
    /// ASTC texture (.astc, one mip level) instead of the generated 48x24 one.
    #[arg(long)]
    texture: Option<PathBuf>,
    /// Probability per cycle of a direct SM pipeline request on each SM port.
    #[arg(long, default_value_t = 0.0)]
    sm_load: f64,
    /// Pipeline instances the SM requests go to, by name (`astc_a`, `astc_dp`, `ggx`, …);
    /// repeat or separate with commas. Default: all.
    #[arg(long, value_delimiter = ',')]
    sm_target: Vec<String>,
    /// L1 latency in cycles.
    #[arg(long, default_value_t = 4)]
    l1_latency: u32,
    /// Every texture block misses in the L1 on first use and arrives this many cycles later
    /// (0: no misses; above 64 the waiting rays park at the TTU).
    #[arg(long, default_value_t = 0)]
    texture_misses: u64,
    #[command(flatten)]
    vcd: crate::vcd::VcdArgs,
    /// Cycles without progress (no ray entering or leaving, no SM result, no L1 request)
    /// before the run is reported as hung [default: 20000 + 2 × --l1-latency + 2 ×
    /// --texture-misses].
    #[arg(long, value_name = "CYCLES")]
    watchdog: Option<u64>,
    /// How the simulator evaluates logic: `active` skips groups of logic whose inputs did not
    /// change (same results, faster when units idle); `full` evaluates everything (the
    /// reference).
    #[arg(long, value_enum, default_value_t = EvalArg::Active)]
    eval: EvalArg,
    /// Record the engine's inputs on every cycle into FILE, for `rendergen bench pbru --replay
    /// FILE` (times every simulator on this real workload).
    #[arg(long, value_name = "FILE")]
    record_stimulus: Option<PathBuf>,
    /// Exit with status 1 if any ray ended with a program error (stack underflow or overflow,
    /// unknown opcode, bad control); without it such rays are reported and a warning printed.
    #[arg(long)]
    fail_on_fault: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::check(format!("{}: {e}", path.display())))
}

/// `rendergen asm IN -o OUT`.
pub fn asm(a: AsmArgs) -> Result<(), Failure> {
    let src = String::from_utf8_lossy(&read(&a.input)?).into_owned();
    let bytes =
        assemble(&src).map_err(|e| Failure::check(format!("{}:\n{e}", a.input.display())))?;
    rendergen_gen::output::write_output(&a.out, |w| w.write_all(&bytes)).map_err(Failure::check)?;
    println!("{}: {} bytes", a.out.display(), bytes.len());
    Ok(())
}

/// `rendergen disasm IN`.
pub fn disasm(a: DisasmArgs) -> Result<(), Failure> {
    let bytes = read(&a.input)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = disassemble_to(&bytes, a.base, &mut out).and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::check(format!("writing the disassembly: {e}")))
        }
        _ => Ok(()),
    }
}

/// `rendergen sim …`.
pub fn sim(cmd: SimCommand) -> Result<(), Failure> {
    let SimCommand::Pbru(a) = cmd;
    let cfg = PbruCfg {
        cores: a.cores,
        slots: a.slots,
        ..PbruCfg::default()
    };
    if !(0.0..=1.0).contains(&a.sm_load) {
        return Err(Failure::usage("--sm-load must be a probability in 0..=1"));
    }
    let sm_targets = (a.sm_target.iter())
        .map(|n| {
            (cfg.pipes.iter().position(|p| p.kind.name() == n.as_str()))
                .map(|i| i as u32)
                .ok_or_else(|| {
                    let names: Vec<&str> = cfg.pipes.iter().map(|p| p.kind.name()).collect();
                    Failure::usage(format!(
                        "--sm-target {n}: no such pipeline; valid: {}",
                        names.join(", ")
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let program = match &a.program {
        Some(p) => Some(String::from_utf8_lossy(&read(p)?).into_owned()),
        None => None,
    };
    let texture = match &a.texture {
        Some(p) => Some(crate::astc::read(p)?),
        None => None,
    };
    let opts = SimOptions {
        cfg,
        rays: a.rays,
        seed: a.seed,
        workload: match a.workload {
            WorkloadArg::Texture => Workload::Texture,
            WorkloadArg::Alu => Workload::Alu,
            WorkloadArg::TextureLean => Workload::TextureLean,
            WorkloadArg::ShadeLean => Workload::ShadeLean,
            WorkloadArg::Mixed => Workload::Mixed,
        },
        program,
        texture,
        sm_load: a.sm_load,
        sm_targets,
        l1_latency: a.l1_latency.max(1),
        texture_miss_cycles: a.texture_misses,
        vcd: a.vcd.out()?,
        watchdog: a.watchdog,
        eval: a.eval.eval(),
        record_stimulus: a.record_stimulus.clone(),
        code: None,
    };
    let report = run(&opts).map_err(Failure::check)?;
    eprintln!("{}", report.speed_line());
    if a.json {
        println!("{}", to_json(&report));
    } else {
        print!("{}", to_text(&report));
    }
    if report.mismatches > 0 {
        return Err(Failure::check(format!(
            "{} mismatches against the interpreter (seed {})",
            report.mismatches, a.seed
        )));
    }
    match (report.fault_count(), a.fail_on_fault) {
        (0, _) => Ok(()),
        (_, true) => Err(Failure::check(format!(
            "rays ended by a fault: {} (--fail-on-fault)",
            report.faults_text()
        ))),
        (_, false) => {
            eprintln!(
                "warning: rays ended by a fault: {}; the engine agreed with the interpreter \
                 (--fail-on-fault makes this an error)",
                report.faults_text()
            );
            Ok(())
        }
    }
}
