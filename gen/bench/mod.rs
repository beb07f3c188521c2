//! Simulation benchmarks: the same seeded random-stimulus protocol run by the Rust simulator,
//! a Verilator model and iverilog, reporting speed and a hash of every output on every cycle.
//!
//! # Protocol (identical in every engine)
//! ```text
//! rng = SplitMix64(seed); h = 0xcbf29ce484222325; mix(w): h = (h ^ w) * 0x100000001b3
//! for c in 0..cycles:
//!     rst = (c < 2)
//!     for each top input in declaration order, for each 64-bit word (low first):
//!         word = rng() masked to the bits of the input in that word; apply
//!     settle; for each top output in declaration order, for each 64-bit word (low first): mix(word)
//!     rising clock edge
//! ```
//! Registers without reset and memories without initial contents start at zero everywhere
//! (Verilator: `--x-initial 0`; iverilog: hierarchical `initial` assignments), so equal
//! hashes mean equal behaviour on every cycle.
//!
//! # Timing
//! Rust, the compiled Rust backend and Verilator time only the loop (`Instant` / `std::chrono::steady_clock`). iverilog
//! has no wall clock inside the simulation: its time is the `vvp` process's wall time, which
//! includes loading the compiled design (a few milliseconds).

mod compiled;
mod harness;
pub mod replay;

use crate::tools::ToolError;
use rendergen_hdl::bits::mask64;
use rendergen_hdl::ir::Design;
use rendergen_hdl::Bits;
use rendergen_sim::{Eval, Simulator};
use std::time::Instant;

/// Which simulator runs the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchEngine {
    /// `rendergen_sim::Simulator`, in process, full evaluation.
    Rust,
    /// `rendergen_sim::Simulator`, in process, activity-aware evaluation (`Eval::Active`).
    RustActive,
    /// A Verilator model built with `-O3`, single-threaded.
    Verilator,
    /// Icarus Verilog (`vvp`).
    Iverilog,
    /// The compiled backend (`rendergen_sim::codegen`): generated Rust built with `rustc -O`.
    RustCompiled,
    /// The compiled backend with activity-aware evaluation (`codegen::generate_with(…,
    /// Eval::Active)`).
    RustCompiledActive,
}

impl BenchEngine {
    /// Lower-case name, as in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            BenchEngine::Rust => "rust",
            BenchEngine::RustActive => "rust-active",
            BenchEngine::Verilator => "verilator",
            BenchEngine::Iverilog => "iverilog",
            BenchEngine::RustCompiled => "rust-compiled",
            BenchEngine::RustCompiledActive => "rust-compiled-active",
        }
    }
}

/// Outcome of one benchmark run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Top module name.
    pub top: String,
    /// Engine used.
    pub engine: BenchEngine,
    /// Cycles simulated.
    pub cycles: u64,
    /// Seconds spent in the simulation loop.
    pub seconds: f64,
    /// `cycles / seconds`.
    pub cycles_per_second: f64,
    /// FNV-1a hash of every output word on every cycle (see the module docs).
    pub output_hash: u64,
    /// Wall seconds the build of the executable that ran took (`rustc` for the compiled
    /// backend, Verilator and its C++ build, iverilog), as recorded in the tool cache when it
    /// was built (a cached build is not rebuilt); `None` for the in-process engines and for
    /// builds cached before the time was recorded.
    pub build_seconds: Option<f64>,
    /// Activity-aware engines: the program's groups and the groups evaluated over the run
    /// (one settle per cycle).
    pub groups: Option<(u64, u64)>,
}

/// What one engine run measured (internal to the benchmark runners).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Measured {
    /// Seconds of the simulation loop.
    pub seconds: f64,
    /// The output hash.
    pub hash: u64,
    /// See [`BenchResult::build_seconds`].
    pub build_seconds: Option<f64>,
    /// See [`BenchResult::groups`].
    pub groups: Option<(u64, u64)>,
}

impl Measured {
    /// A run of the in-process simulator `sim` (its activity counters, if any).
    pub(crate) fn in_process(seconds: f64, hash: u64, sim: &Simulator) -> Measured {
        let a = sim.activity();
        Measured {
            seconds,
            hash,
            build_seconds: None,
            groups: (a.groups > 0).then_some((a.groups as u64, a.evaluated)),
        }
    }
}

impl BenchResult {
    /// The result of a run of `cycles` cycles of `design` on `engine` that took `seconds`.
    pub fn new(
        design: &Design,
        engine: BenchEngine,
        cycles: u64,
        seconds: f64,
        output_hash: u64,
    ) -> BenchResult {
        BenchResult {
            top: design.top().name.clone(),
            engine,
            cycles,
            seconds,
            cycles_per_second: if seconds > 0.0 {
                cycles as f64 / seconds
            } else {
                0.0
            },
            output_hash,
            build_seconds: None,
            groups: None,
        }
    }

    /// This result with the build time and activity counters of `run`.
    pub(crate) fn with(mut self, run: &Measured) -> BenchResult {
        self.build_seconds = run.build_seconds;
        self.groups = run.groups;
        self
    }

    /// Activity-aware engines: the fraction of the groups evaluated per cycle.
    pub fn group_fraction(&self) -> Option<f64> {
        let (g, e) = self.groups?;
        (g > 0 && self.cycles > 0).then(|| e as f64 / (g as f64 * self.cycles as f64))
    }

    /// One-line JSON object with keys `top`, `engine`, `cycles`, `seconds`,
    /// `cycles_per_second`, `output_hash` (a hex string `"0x…"`), `build_seconds` (see
    /// [`BenchResult::build_seconds`]; `null` when unknown), and `groups`,
    /// `groups_evaluated` and `group_fraction` (evaluated ÷ (groups × cycles); all three `null`
    /// under full evaluation).
    pub fn to_json(&self) -> String {
        let top: String = self
            .top
            .chars()
            .flat_map(|c| match c {
                '"' | '\\' => vec!['\\', c],
                c if (c as u32) < 0x20 => vec![' '],
                c => vec![c],
            })
            .collect();
        format!(
            "{{\"top\": \"{top}\", \"engine\": \"{}\", \"cycles\": {}, \"seconds\": {:e}, \
             \"cycles_per_second\": {:.1}, \"output_hash\": \"0x{:016x}\", \
             \"build_seconds\": {}, \"groups\": {}, \"groups_evaluated\": {}, \
             \"group_fraction\": {}}}",
            self.engine.name(),
            self.cycles,
            self.seconds,
            self.cycles_per_second,
            self.output_hash,
            json_or_null(self.build_seconds.map(|s| format!("{s:.3}"))),
            json_or_null(self.groups.map(|g| g.0.to_string())),
            json_or_null(self.groups.map(|g| g.1.to_string())),
            json_or_null(self.group_fraction().map(|f| format!("{f:.5}"))),
        )
    }
}

/// A JSON value, or `null`.
fn json_or_null(v: Option<String>) -> String {
    v.unwrap_or_else(|| "null".into())
}

impl std::fmt::Display for BenchResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} cycles on {} in {:.3} s = {:.0} cycles/s, output hash 0x{:016x}",
            self.top,
            self.cycles,
            self.engine.name(),
            self.seconds,
            self.cycles_per_second,
            self.output_hash
        )?;
        if let Some(b) = self.build_seconds {
            write!(f, ", build {b:.1} s")?;
        }
        if let (Some((g, _)), Some(x)) = (self.groups, self.group_fraction()) {
            write!(f, ", {:.2} % of {g} groups evaluated per cycle", 100.0 * x)?;
        }
        Ok(())
    }
}

/// SplitMix64, exactly as in the protocol.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// FNV-1a offset basis (the hash's initial value).
pub const HASH_INIT: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a prime.
pub const HASH_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Runs the benchmark protocol for `cycles` cycles from `seed` on `engine`.
pub fn bench(
    design: &Design,
    engine: BenchEngine,
    cycles: u64,
    seed: u64,
) -> Result<BenchResult, ToolError> {
    bench_traced(design, engine, cycles, seed, None)
}

/// [`bench()`] on the compiled backend (`rust-compiled` for [`Eval::Full`],
/// `rust-compiled-active` for [`Eval::Active`]) with full evaluation split into functions of
/// at most `max_statements` statements: the same statements in the same order, built many
/// times faster by `rustc` than the default's large functions, for short runs of many designs
/// (the random-netlist fuzzer). The build is cached under its own key.
pub fn bench_compiled_split(
    design: &Design,
    eval: Eval,
    cycles: u64,
    seed: u64,
    max_statements: usize,
) -> Result<BenchResult, ToolError> {
    let engine = match eval {
        Eval::Full => BenchEngine::RustCompiled,
        Eval::Active => BenchEngine::RustCompiledActive,
    };
    let run = compiled::run_split(design, eval, cycles, seed, max_statements)?;
    Ok(BenchResult::new(design, engine, cycles, run.seconds, run.hash).with(&run))
}

/// [`bench()`] that also writes a waveform of the run (the `rust` engine only; the time then
/// includes writing it).
pub fn bench_traced(
    design: &Design,
    engine: BenchEngine,
    cycles: u64,
    seed: u64,
    vcd: Option<&crate::output::VcdOut>,
) -> Result<BenchResult, ToolError> {
    if vcd.is_some() && !matches!(engine, BenchEngine::Rust | BenchEngine::RustActive) {
        return Err(ToolError::Parse {
            tool: "rendergen bench".into(),
            message: "--vcd needs --engine rust or rust-active (the other engines run outside \
                      this process)"
                .into(),
        });
    }
    let run = match engine {
        BenchEngine::Rust => run_rust(design, Eval::Full, cycles, seed, vcd)?,
        BenchEngine::RustActive => run_rust(design, Eval::Active, cycles, seed, vcd)?,
        BenchEngine::Verilator => harness::run_verilator(design, cycles, seed)?,
        BenchEngine::Iverilog => harness::run_iverilog(design, cycles, seed)?,
        BenchEngine::RustCompiled => compiled::run(design, Eval::Full, cycles, seed)?,
        BenchEngine::RustCompiledActive => compiled::run(design, Eval::Active, cycles, seed)?,
    };
    Ok(BenchResult::new(design, engine, cycles, run.seconds, run.hash).with(&run))
}

fn run_rust(
    design: &Design,
    eval: Eval,
    cycles: u64,
    seed: u64,
    vcd: Option<&crate::output::VcdOut>,
) -> Result<Measured, ToolError> {
    let mut sim = Simulator::with_eval(design, eval).map_err(|e| ToolError::Failed {
        tool: "rendergen-sim".into(),
        status: "could not compile the design".into(),
        output: e.to_string(),
    })?;
    if let Some(v) = vcd {
        v.start(&mut sim)
            .map_err(|e| ToolError::Io(std::io::Error::other(e)))?;
    }
    let inputs: Vec<_> = (0..sim.inputs().len())
        .map(|i| (sim.input_at(i), sim.inputs()[i].width))
        .collect();
    let outputs: Vec<_> = (0..sim.outputs().len()).map(|i| sim.output_at(i)).collect();
    let mut wide = vec![
        0u64;
        inputs
            .iter()
            .map(|(_, w)| w.div_ceil(64))
            .max()
            .unwrap_or(1) as usize
    ];
    let (mut rng, mut h) = (SplitMix64(seed), HASH_INIT);
    let progress = crate::progress::Progress::bar("simulating", cycles, "cycles");
    let start = Instant::now();
    for c in 0..cycles {
        if c & 0xFFFF == 0 {
            progress.set(c);
        }
        sim.set_reset(c < 2);
        for &(id, w) in &inputs {
            if w <= 64 {
                sim.poke(id, rng.next_u64() & mask64(w));
            } else {
                let n = w.div_ceil(64);
                for (k, word) in wide[..n as usize].iter_mut().enumerate() {
                    *word = rng.next_u64() & mask64(w - 64 * k as u32);
                }
                // Wide inputs only: `poke_bits` takes a `Bits` (one small allocation).
                sim.poke_bits(id, &Bits::from_words(&wide[..n as usize], w));
            }
        }
        for &o in &outputs {
            for &word in sim.peek_words(o) {
                h = (h ^ word).wrapping_mul(HASH_PRIME);
            }
        }
        sim.step();
    }
    let seconds = start.elapsed().as_secs_f64();
    sim.finish_vcd().map_err(ToolError::Io)?;
    if let Some(v) = vcd {
        v.finish()
            .map_err(|e| ToolError::Io(std::io::Error::other(e)))?;
    }
    Ok(Measured::in_process(seconds, h, &sim))
}

#[cfg(test)]
mod compiled_tests;
#[cfg(test)]
mod tests;
