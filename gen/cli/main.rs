//! `rendergen`: the command line of the rendergen hardware toolkit.
//!
//! Exit codes: 0 success; 1 a check failed (lint warnings, co-simulation mismatch, tool error);
//! 2 bad usage (unknown generator, parameter or value, a parameter the generator rejects at
//! elaboration; clap's own usage errors).

mod astc;
mod conv;
mod demo;
mod fuzz;
mod mtlx;
mod pbru;
mod raster;
mod render;
mod shade;
mod shader;
mod vcd;

use clap::{Parser, Subcommand, ValueEnum};
use rendergen_gen::progress::{self, ProgressMode};
use rendergen_hdl::Design;
use rendergen_rtl::catalog::{self, CatalogError, GENERATORS};
use std::path::PathBuf;
use std::process::ExitCode;

/// rendergen: GPU render-engine hardware in Rust — generate, simulate, emit Verilog, lint,
/// synthesise.
#[derive(Parser)]
#[command(
    name = "rendergen",
    version,
    about,
    after_help = "Environment:\n  RENDERGEN_CACHE_DIR  where Verilator, iverilog and compiled-simulator builds are cached\n                       (default: $XDG_CACHE_HOME/rendergen, else ~/.cache/rendergen)\n  RENDERGEN_PROGRESS   auto | always | never (as --progress)\n  RENDERGEN_LINT_TIMEOUT  seconds each lint tool may run before it is killed (default 900)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Progress on stderr: `auto` (when stderr is a terminal), `always` (plain lines when it is
    /// not), `never`. Default: $RENDERGEN_PROGRESS, else auto.
    #[arg(long, global = true, value_name = "WHEN", value_parser = ["auto", "always", "never"])]
    progress: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// One line per top-level generator: name, then its parameters with defaults. With --long
    /// (or a generator's name), each parameter with its default, valid values and meaning.
    List {
        /// Only this generator (implies --long).
        top: Option<String>,
        /// Every parameter with its valid values and meaning.
        #[arg(long)]
        long: bool,
    },
    /// Write the Verilog of a generator and print the files written.
    Verilog {
        /// Generator name (see `rendergen list`).
        top: String,
        /// Parameter override NAME=VALUE (repeatable; `rendergen list TOP` shows each parameter
        /// with its default, valid values and meaning).
        #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Output directory.
        #[arg(short = 'o', long = "out", default_value = "verilog")]
        out: PathBuf,
        /// Also print readability figures on stderr: modules, largest file, share of
        /// generated `<operation><number>` names, lint waivers.
        #[arg(long)]
        stats: bool,
    },
    /// Emit a generator's Verilog and run Verilator -Wall, Yosys check -assert and iverilog.
    Lint {
        /// Generator name.
        #[arg(required_unless_present = "all")]
        top: Option<String>,
        /// Lint every generator of the catalogue with default parameters (a few large ones
        /// with smaller lint parameters, listed in `rtl/catalog.rs`).
        #[arg(long, conflicts_with = "top")]
        all: bool,
        /// Parameter override NAME=VALUE (repeatable; not with `--all`).
        #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Generators linted at once with `--all` (default: the machine's cores); results are
        /// printed in catalogue order.
        #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=64))]
        jobs: Option<u32>,
    },
    /// Drive seeded random values on every input for N cycles; print speed and an output hash.
    Bench {
        /// Generator name.
        top: String,
        /// Parameter override NAME=VALUE (repeatable; `rendergen list TOP` shows each parameter
        /// with its default, valid values and meaning).
        #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Cycles to simulate, 1..=10^12 (progress on stderr shows the rate and time left).
        #[arg(long, default_value_t = 1_000_000,
              value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
        cycles: u64,
        /// RNG seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Simulation engine.
        #[arg(long, value_enum, default_value_t = Engine::Rust)]
        engine: Engine,
        /// Replay a recorded stimulus (`rendergen sim pbru --record-stimulus FILE`, or `rendergen
        /// raster --engine rtl --record-stimulus FILE` with the `-p` values it prints) instead of
        /// random inputs; --cycles and --seed are then ignored (the recording's length is run).
        #[arg(long, value_name = "FILE", conflicts_with = "vcd")]
        replay: Option<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        vcd: vcd::VcdArgs,
    },
    /// Synthesise with Yosys and print cells, LUTs, flip-flops, RAM bits and the longest path.
    ///
    /// The default report is of the flattened design. With --per-module the design is
    /// synthesised without flattening instead (no extra synthesis run) and a table lists every
    /// module definition: instances, cells and flip-flops of one instance (without its child
    /// instances), cells × instances, the cells under all its instances, and its share of the
    /// total, largest share first. Its totals are those of the unflattened netlist, which can
    /// be a little larger (no optimisation across module boundaries); the longest path is then
    /// measured on the flattened hierarchical gate netlist.
    Synth {
        /// Generator name.
        top: String,
        /// Parameter override NAME=VALUE (repeatable; `rendergen list TOP` shows each parameter
        /// with its default, valid values and meaning).
        #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Synthesis target.
        #[arg(long, value_enum, default_value_t = Target::Generic)]
        target: Target,
        /// Keep the hierarchy and add the per-module area table (see above).
        #[arg(long)]
        per_module: bool,
        /// Print one JSON object instead of text (with a `modules` array, empty unless
        /// --per-module).
        #[arg(long)]
        json: bool,
        /// With --target ice40: also place and route on an iCE40HX8K (ports behind the serial
        /// wrapper of `rendergen fpga --wrap`) and report nextpnr's Fmax.
        #[arg(long)]
        fmax: bool,
    },
    /// Place and route on an iCE40 with nextpnr: Yosys synth_ice40, a fit check before
    /// placing, nextpnr-ice40 against a clock target, icepack; reports logic cells, block RAMs,
    /// I/O pins, Fmax per clock and whether timing is met. Files land in the output folder.
    Fpga {
        /// Generator name.
        top: String,
        /// Parameter override NAME=VALUE (repeatable; `rendergen list TOP` shows each parameter
        /// with its default, valid values and meaning).
        #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Device: ice40-hx8k (HX8K-CT256, the HX8K breakout board) or ice40-up5k (UP5K-SG48,
        /// the iCEBreaker).
        #[arg(long, value_parser = ["ice40-hx8k", "ice40-up5k"])]
        target: String,
        /// Pin map (.pcf) naming the top's Verilog ports (`clk_i`, `rst_i`, `<port>_i`,
        /// `<port>_o`); without it nextpnr places the pins (or, with --wrap, the board's map in
        /// constraints/BOARD/serial_wrap.pcf is used).
        #[arg(long)]
        pcf: Option<PathBuf>,
        /// Clock target in MHz (timing-driven placement and the verdict).
        #[arg(long, default_value_t = 12.0)]
        freq: f64,
        /// Output folder (Verilog, netlist, placed design, bitstream, reports)
        /// [default: fpga-TOP-TARGET].
        #[arg(short = 'o', long = "out")]
        out: Option<PathBuf>,
        /// Put the top behind shift registers on five pins (clk_i, rst_i, sdi_i, capture_i,
        /// sdo_o), for timing and area studies: `auto` when the top has more port bits than the
        /// package has pins (the default), `always` (plain `--wrap`), `never`.
        #[arg(long, value_name = "WHEN", value_parser = ["auto", "always", "never"],
              default_value = "auto", num_args = 0..=1, default_missing_value = "always")]
        wrap: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// ASTC textures: decode through the ASTC_DP RTL or the reference model; inspect blocks.
    #[command(subcommand)]
    Astc(astc::AstcCommand),
    /// Assemble PBRU bytecode (syntax: rtl/isa/ISA.md).
    Asm(pbru::AsmArgs),
    /// Disassemble PBRU bytecode (the output assembles back to the same bytes).
    Disasm(pbru::DisasmArgs),
    /// The shader core: assemble, disassemble (rtl/shader-isa/ISA.md), compile GLSL/WGSL, run.
    #[command(subcommand)]
    Shader(shader::ShaderCommand),
    /// The MaterialX material compiler: a .mtlx material to PBRU bytecode
    /// (compiler/mtlx/ABI.md).
    #[command(subcommand)]
    Mtlx(mtlx::MtlxCommand),
    /// Render a scene (JSON: gen/render/scenes/) through the PBRU: the SM and intersection in
    /// Rust, every material program on the engine (rtl, model) or the f64 reference.
    Render(render::RenderArgs),
    /// Render a scene (JSON: gen/raster/scenes/) on the tile engine: tile-shader deferred
    /// lighting, the two-pass reference, or forward; external bytes per region with --json.
    Raster(raster::RasterArgs),
    /// Convolve an image (PNG) as a shader on the cores, every texel through the texture unit:
    /// per-pixel baseline or collective fetch (issue 14 §3).
    Conv(conv::ConvArgs),
    /// Simulate an engine with its SM, TTU and L1 agents.
    #[command(subcommand)]
    Sim(pbru::SimCommand),
    /// The PBRU's shading pipelines: evaluate one on CSV rows (RTL, model or f64).
    #[command(subcommand)]
    Shade(shade::ShadeCommand),
    /// Random-netlist agreement run (issue 10): every engine on random designs, the first
    /// disagreement fails (designs, batch size, engines per batch: see --help).
    Fuzz(fuzz::FuzzArgs),
    /// End-to-end demonstration: texture an image through the PBRU (PNG, engine Verilog, VCD,
    /// statistics), then simulate, lint and co-simulate every widget.
    Demo {
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    /// The interpreter, full evaluation (the reference).
    Rust,
    /// The interpreter, activity-aware evaluation (only groups whose inputs changed).
    RustActive,
    Verilator,
    Iverilog,
    /// Generated Rust built with rustc (cached per design), full evaluation.
    RustCompiled,
    /// Generated Rust with activity-aware evaluation.
    RustCompiledActive,
}

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    Generic,
    Ice40,
    Ecp5,
}

/// A failure with its exit code.
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Bad usage (exit 2).
    pub fn usage(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: 2,
            message: message.to_string(),
        }
    }

    /// A failed check or tool (exit 1).
    pub fn check(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: 1,
            message: message.to_string(),
        }
    }
}

impl From<CatalogError> for Failure {
    fn from(e: CatalogError) -> Failure {
        // Elaboration errors that only reject parameters are the user's; others are a bug.
        let code = match &e {
            CatalogError::Elaboration(errors) if !errors.only_params() => 1,
            _ => 2,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(mode) = cli.progress.as_deref().and_then(ProgressMode::parse) {
        progress::set_mode(mode);
    }
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("rendergen: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn build(top: &str, params: &[String]) -> Result<Design, Failure> {
    Ok(catalog::build(top, params)?)
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::List { top, long } => {
            let chosen = match &top {
                Some(name) => vec![catalog::find(name)?],
                None => GENERATORS.iter().collect(),
            };
            for g in chosen {
                if !long && top.is_none() {
                    println!("{:<18} {:<40} # {}", g.name, g.defaults(), g.doc);
                    continue;
                }
                println!("{} — {}", g.name, g.doc);
                let set = |p: &catalog::ParamSpec| format!("{}={}", p.name, p.default);
                let width = g.params.iter().map(|p| set(p).len()).max().unwrap_or(0);
                for p in g.params {
                    println!("  -p {:<width$}  {} ({})", set(p), p.doc, p.valid());
                }
                if g.params.is_empty() {
                    println!("  (no parameters)");
                }
            }
            Ok(())
        }
        Command::Verilog {
            top,
            params,
            out,
            stats,
        } => {
            let design = build(&top, &params)?;
            std::fs::create_dir_all(&out)
                .map_err(|e| Failure::check(format!("cannot create {}: {e}", out.display())))?;
            let files = rendergen_gen::verilog::emit(&design);
            for file in &files {
                let path = out.join(&file.name);
                rendergen_gen::output::write_output(&path, |w| w.write_all(file.text.as_bytes()))
                    .map_err(Failure::check)?;
                println!("{}", path.display());
            }
            if stats {
                eprintln!("{}", rendergen_gen::verilog::stats::stats(&files));
            }
            Ok(())
        }
        Command::Lint {
            top,
            all,
            params,
            jobs,
        } => {
            if all && !params.is_empty() {
                return Err(Failure::usage(
                    "`lint --all` lints every generator with its own parameters; `-p` applies to \
                     one generator: use `rendergen lint TOP -p NAME=VALUE`",
                ));
            }
            let names: Vec<String> = match (all, top) {
                (true, _) => GENERATORS.iter().map(|g| g.name.to_string()).collect(),
                (false, Some(t)) => vec![t],
                (false, None) => unreachable!("clap requires TOP or --all"),
            };
            let lint_one = |name: &str| -> Result<Option<String>, Failure> {
                let overrides = if all {
                    catalog::find(name)?.lint_overrides()
                } else {
                    params.clone()
                };
                let design = build(name, &overrides)?;
                let report = rendergen_gen::tools::lint(&design).map_err(Failure::check)?;
                Ok((!report.is_clean()).then(|| report.to_string()))
            };
            let jobs = jobs
                .map(|j| j as usize)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let mut dirty = 0;
            let mut print = |name: &str, r: Result<Option<String>, Failure>| {
                match r? {
                    None => {
                        println!(
                            "{name:<18} clean (verilator -Wall, yosys check -assert, iverilog)"
                        )
                    }
                    Some(report) => {
                        dirty += 1;
                        println!("{name:<18} NOT CLEAN\n{report}");
                    }
                }
                Ok::<(), Failure>(())
            };
            // Workers take the next generator; results print in catalogue order as soon as
            // every earlier one is done.
            let next = std::sync::atomic::AtomicUsize::new(0);
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::scope(|scope| {
                for _ in 0..jobs.min(names.len()) {
                    let tx = tx.clone();
                    let (next, names, lint_one) = (&next, &names, &lint_one);
                    scope.spawn(move || loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(name) = names.get(i) else { break };
                        if tx.send((i, lint_one(name))).is_err() {
                            break;
                        }
                    });
                }
                drop(tx);
                let mut done: Vec<Option<Result<Option<String>, Failure>>> =
                    (0..names.len()).map(|_| None).collect();
                let mut shown = 0;
                for (i, r) in rx {
                    done[i] = Some(r);
                    while let Some(r) = done.get_mut(shown).and_then(Option::take) {
                        if let Err(e) = print(&names[shown], r) {
                            // Stop handing out work; running lints finish.
                            next.store(names.len(), std::sync::atomic::Ordering::Relaxed);
                            return Err(e);
                        }
                        shown += 1;
                    }
                }
                Ok(())
            })?;
            if dirty > 0 {
                return Err(Failure::check(format!(
                    "{dirty} of {} generators not lint-clean",
                    names.len()
                )));
            }
            Ok(())
        }
        Command::Bench {
            top,
            params,
            cycles,
            seed,
            engine,
            replay,
            json,
            vcd,
        } => {
            use rendergen_gen::bench::{bench_traced, BenchEngine};
            let vcd = vcd.out()?;
            let design = build(&top, &params)?;
            let engine = match engine {
                Engine::Rust => BenchEngine::Rust,
                Engine::RustActive => BenchEngine::RustActive,
                Engine::Verilator => BenchEngine::Verilator,
                Engine::Iverilog => BenchEngine::Iverilog,
                Engine::RustCompiled => BenchEngine::RustCompiled,
                Engine::RustCompiledActive => BenchEngine::RustCompiledActive,
            };
            if vcd.is_some() && !matches!(engine, BenchEngine::Rust | BenchEngine::RustActive) {
                return Err(Failure::usage(
                    "--vcd needs --engine rust or rust-active (the other engines run outside \
                     this process)",
                ));
            }
            let r = match &replay {
                Some(file) => {
                    use rendergen_gen::bench::replay::{bench_replay, Stimulus};
                    let stim = Stimulus::read(file).map_err(Failure::usage)?;
                    stim.check(&design).map_err(Failure::usage)?;
                    bench_replay(&design, engine, &stim, file).map_err(Failure::check)?
                }
                None => bench_traced(&design, engine, cycles, seed, vcd.as_ref())
                    .map_err(Failure::check)?,
            };
            if json {
                println!("{}", r.to_json());
            } else {
                println!("{r}");
            }
            Ok(())
        }
        Command::Fpga {
            top,
            params,
            target,
            pcf,
            freq,
            out,
            wrap,
            json,
        } => {
            use rendergen_gen::fpga::{fpga, FpgaError, FpgaOptions, FpgaTarget, Wrap};
            if !(freq.is_finite() && freq > 0.0 && freq <= 1000.0) {
                return Err(Failure::usage(format!(
                    "--freq {freq}: a clock target in MHz, above 0 and at most 1000"
                )));
            }
            let target = FpgaTarget::parse(&target).expect("clap checked the value");
            let design = build(&top, &params)?;
            let out_dir = out.unwrap_or_else(|| format!("fpga-{top}-{}", target.name()).into());
            let opts = FpgaOptions {
                target,
                pcf,
                freq_mhz: freq,
                out_dir,
                wrap: match wrap.as_str() {
                    "always" => Wrap::Always,
                    "never" => Wrap::Never,
                    _ => Wrap::Auto,
                },
            };
            let report = fpga(&design, &opts).map_err(|e| match e {
                FpgaError::DoesNotFit(m) => Failure::check(m),
                e => Failure::check(e),
            })?;
            if json {
                println!("{}", report.to_json());
            } else {
                println!("{report}");
            }
            Ok(())
        }
        Command::Synth {
            top,
            params,
            target,
            per_module,
            json,
            fmax,
        } => {
            use rendergen_gen::tools::{synth, synth_per_module, SynthTarget};
            if fmax && !matches!(target, Target::Ice40) {
                return Err(Failure::usage(
                    "--fmax needs --target ice40 (nextpnr-ice40)",
                ));
            }
            let design = build(&top, &params)?;
            let target = match target {
                Target::Generic => SynthTarget::Generic,
                Target::Ice40 => SynthTarget::Ice40,
                Target::Ecp5 => SynthTarget::Ecp5,
            };
            let report = if per_module {
                synth_per_module(&design, target)
            } else {
                synth(&design, target)
            }
            .map_err(Failure::check)?;
            let fmax = match fmax {
                true => Some(fmax_on_ice40(&design)?),
                false => None,
            };
            match (json, fmax) {
                (true, None) => println!("{}", report.to_json()),
                (true, Some(f)) => {
                    let mut j = report.to_json();
                    j.pop();
                    println!("{j}, \"fmax_mhz\": {f:.2}}}");
                }
                (false, f) => {
                    print!("{report}");
                    if let Some(f) = f {
                        println!(
                            "  Fmax {f:.1} MHz (nextpnr-ice40 on an iCE40HX8K-CT256, ports behind \
                             the serial wrapper)"
                        );
                    }
                }
            }
            Ok(())
        }
        Command::Astc(cmd) => astc::run(cmd),
        Command::Demo { out } => demo::run(&out),
        Command::Asm(a) => pbru::asm(a),
        Command::Disasm(a) => pbru::disasm(a),
        Command::Shader(c) => shader::run(c),
        Command::Mtlx(c) => mtlx::run(c),
        Command::Render(a) => render::run(a),
        Command::Raster(a) => raster::run(a),
        Command::Conv(a) => conv::run(a),
        Command::Sim(c) => pbru::sim(c),
        Command::Shade(c) => shade::run(c),
        Command::Fuzz(a) => fuzz::run(a),
    }
}

/// nextpnr-ice40's Fmax of `design` on an HX8K behind the serial wrapper, in a temporary
/// folder (the slowest clock).
fn fmax_on_ice40(design: &Design) -> Result<f64, Failure> {
    use rendergen_gen::fpga::{fpga, FpgaOptions, FpgaTarget, Wrap};
    let dir = rendergen_gen::tools::WorkDir::new("fmax").map_err(Failure::check)?;
    let opts = FpgaOptions {
        target: FpgaTarget::Ice40Hx8k,
        pcf: None,
        freq_mhz: 12.0,
        out_dir: dir.path().to_path_buf(),
        wrap: Wrap::Always,
    };
    let r = fpga(design, &opts).map_err(Failure::check)?;
    Ok((r.clocks.iter().map(|c| c.fmax_mhz)).fold(f64::INFINITY, f64::min))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(r: Result<(), Failure>) -> (u8, String) {
        let f = r.expect_err("fails");
        (f.code, f.message)
    }

    #[test]
    fn bad_parameters_are_usage_errors() {
        let verilog = |params: &[&str]| Command::Verilog {
            top: "pbru".into(),
            params: params.iter().map(|s| s.to_string()).collect(),
            out: std::env::temp_dir().join("rendergen-cli-test-unused"),
            stats: false,
        };
        let (c, m) = code(run(verilog(&["icache_chunks=3"])));
        assert!(
            c == 2 && m.contains("`icache_chunks`") && m.contains("power of two"),
            "{m}"
        );
        let (c, m) = code(run(verilog(&["cores=18446744073709551615"])));
        assert!(c == 2 && m.contains("1..=8"), "{m}");
        // A parameter rejected by the generator itself (not the catalogue) is also exit 2.
        let e = rendergen_rtl::synthetic::counter(0).unwrap_err();
        assert_eq!(Failure::from(CatalogError::Elaboration(e)).code, 2);
    }

    #[test]
    fn lint_all_rejects_parameters() {
        let lint = Command::Lint {
            top: None,
            all: true,
            params: vec!["cores=1".into()],
            jobs: None,
        };
        let (c, m) = code(run(lint));
        assert!(c == 2 && m.contains("--all"), "{m}");
    }
}
