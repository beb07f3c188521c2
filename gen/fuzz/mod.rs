//! Random-netlist fuzzing: every simulation engine must agree on random designs (issue 10,
//! item 3, "agreement proof").
//!
//! # Design
//! * [`generate`]: a seeded generator of random modules through the public builder API
//!   (inputs of 1–200 bits, constants, every operator, registers with and without enable and
//!   reset feeding back, memories with initial contents, several write ports and
//!   combinational and synchronous reads, child modules two levels deep).
//! * A **batch** puts `count` random designs side by side as children `d<i>` of one top
//!   (`fuzz_batch`), each with its own top ports `d<i>_i<k>` / `d<i>_o<k>`, so one tool build
//!   checks them all. Design `i` of batch `seed` is [`Spec::design`]`(seed, i)`, so
//!   [`single_design`] rebuilds it alone.
//! * [`check_batch`]: the bench protocol (`crate::bench`: SplitMix64 stimulus on every input,
//!   reset in cycles 0 and 1, FNV-1a hash of every output word every cycle) on the
//!   interpreter, recorded as a [`Trace`]; the same protocol on the compiled backend
//!   (`BenchEngine::RustCompiled`) must give the same hash (and `BenchEngine::Rust` too,
//!   checking the recording loop); the trace is replayed through iverilog and Verilator
//!   (`cosim`), which name the first differing output and cycle.
//! * On a disagreement the report names the seed, the engine, the design index (from the
//!   port name, or by re-running the designs one at a time for the hash-only compiled
//!   backend) and the signal, and [`shrink`] re-checks that design alone; [`reduce`]
//!   delta-debugs a disagreeing design down to the smallest netlist that still disagrees
//!   (`rendergen fuzz --reduce`).
//!
//! Seeds: `RENDERGEN_SEED` overrides the default of a test (`seed_from_env_or`); a batch of
//! seed `s` is fully determined by `s` and its size.

/// Statements per generated function in the compiled backend's full evaluation of a batch
/// (`rendergen_sim::codegen::generate_split`): 100 cycles of a batch do not repay the
/// default's large functions, whose `rustc -O3` build of 20 designs takes ~270 s against ~12 s
/// at this size (the generated statements are the same).
pub const FUZZ_STATEMENTS: usize = 1000;

pub mod generate;
pub mod reduce;

pub use generate::{fuzz_module, Spec};

use crate::bench::{bench, bench_compiled_split, BenchEngine, SplitMix64, HASH_INIT, HASH_PRIME};
use crate::cosim::{cosim_quick_build, CosimEngine, CosimError, Trace};
use crate::tools::ToolError;
use rendergen_hdl::bits::mask64;
use rendergen_hdl::{Bits, Design, Sig};
use rendergen_sim::{Eval, Simulator};
use std::fmt;
use std::time::Instant;

/// Which engines [`check_batch`] compares with the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Engines {
    /// How many designs of each batch (the first ones) also run on the compiled backend, as a
    /// top of their own (0: none). Its `rustc -O3` build is the slowest step by far (about
    /// 5–10 s per design, superlinear in the size of the top), so long runs check a subset.
    pub compiled: usize,
    /// How many designs of each batch (the first ones) also run on Verilator, as a top of
    /// their own when fewer than the batch (0: none; its build costs about 1.4 s per design).
    pub verilator: usize,
    /// iverilog (one build per batch).
    pub iverilog: bool,
}

impl Engines {
    /// Every engine.
    pub const ALL: Engines = Engines {
        compiled: usize::MAX,
        verilator: usize::MAX,
        iverilog: true,
    };
    /// The interpreter alone (elaboration, simulation, and the recording loop against
    /// `bench`).
    pub const INTERPRETER: Engines = Engines {
        compiled: 0,
        verilator: 0,
        iverilog: false,
    };
}

/// Builds the top `fuzz_batch` holding random designs `first..first + count` of `seed`.
pub fn batch_design(seed: u64, first: usize, count: usize) -> Design {
    let specs: Vec<(usize, Spec)> = (first..first + count)
        .map(|i| (i, Spec::design(seed, i)))
        .collect();
    Design::build("fuzz_batch", |m| {
        for (i, spec) in &specs {
            let ins: Vec<Sig> = spec
                .inputs
                .iter()
                .enumerate()
                .map(|(k, &w)| m.input(&format!("d{i}_i{k}"), w))
                .collect();
            let outs: Vec<Sig> = m.child(&format!("d[{i}]"), spec, ins, fuzz_module);
            for (k, o) in outs.into_iter().enumerate() {
                m.output(&format!("d{i}_o{k}"), o);
            }
        }
    })
    .unwrap_or_else(|e| panic!("generator bug: fuzz batch seed {seed:#x} does not elaborate:\n{e}"))
}

/// Design `index` of batch `seed` alone (same child definition as in the batch).
pub fn single_design(seed: u64, index: usize) -> Design {
    batch_design(seed, index, 1)
}

/// A top `fuzz_one` holding one module of `spec` (of any depth) with its inputs at the top:
/// how a disagreement is narrowed down to a child module.
pub fn spec_design(spec: &Spec) -> Design {
    Design::build("fuzz_one", |m| {
        let ins: Vec<Sig> = spec
            .inputs
            .iter()
            .enumerate()
            .map(|(k, &w)| m.input(&format!("i{k}"), w))
            .collect();
        let outs: Vec<Sig> = m.child("u", spec, ins, fuzz_module);
        for (k, o) in outs.into_iter().enumerate() {
            m.output(&format!("o{k}"), o);
        }
    })
    .unwrap_or_else(|e| panic!("generator bug: {spec:?} does not elaborate:\n{e}"))
}

/// What a batch run measured.
#[derive(Clone, Debug, Default)]
pub struct BatchStats {
    /// Designs checked.
    pub designs: usize,
    /// Of these, designs also run on the compiled backend.
    pub compiled_designs: usize,
    /// Of these, designs also run on Verilator.
    pub verilator_designs: usize,
    /// Cycles simulated per engine.
    pub cycles: u64,
    /// Flattened nodes of the batch.
    pub nodes: usize,
    /// Seconds generating and elaborating.
    pub elaborate_s: f64,
    /// Seconds in the interpreter (recorded run plus `bench`).
    pub interpreter_s: f64,
    /// Seconds for the compiled backend (build, cached, plus run).
    pub compiled_s: f64,
    /// Seconds for Verilator (build, cached, plus run).
    pub verilator_s: f64,
    /// Seconds for iverilog (build, cached, plus run).
    pub iverilog_s: f64,
}

impl BatchStats {
    /// Adds another batch's figures.
    pub fn add(&mut self, o: &BatchStats) {
        self.designs += o.designs;
        self.compiled_designs += o.compiled_designs;
        self.verilator_designs += o.verilator_designs;
        self.cycles += o.cycles;
        self.nodes += o.nodes;
        self.elaborate_s += o.elaborate_s;
        self.interpreter_s += o.interpreter_s;
        self.compiled_s += o.compiled_s;
        self.verilator_s += o.verilator_s;
        self.iverilog_s += o.iverilog_s;
    }

    /// Total seconds.
    pub fn total_s(&self) -> f64 {
        self.elaborate_s + self.interpreter_s + self.compiled_s + self.verilator_s + self.iverilog_s
    }
}

impl fmt::Display for BatchStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.total_s();
        write!(
            f,
            "{} designs ({} also on the compiled backend, {} on Verilator; {} flattened nodes), {} cycles per engine \
             (summed over batches), {:.1} s = {:.2} designs/s (elaborate {:.1} s, interpreter \
             {:.1} s, compiled {:.1} s, Verilator {:.1} s, iverilog {:.1} s)",
            self.designs,
            self.compiled_designs,
            self.verilator_designs,
            self.nodes,
            self.cycles,
            t,
            self.designs as f64 / t.max(1e-9),
            self.elaborate_s,
            self.interpreter_s,
            self.compiled_s,
            self.verilator_s,
            self.iverilog_s
        )
    }
}

/// Two engines disagree (or one failed).
#[derive(Debug)]
pub struct Disagreement {
    /// Batch seed.
    pub seed: u64,
    /// The batch (`first`, `count`).
    pub batch: (usize, usize),
    /// The engine that differs from the interpreter (or failed).
    pub engine: String,
    /// Design index in the batch seed, when known.
    pub design: Option<usize>,
    /// What differs: the first mismatch (cycle, signal, values) or the hashes or the error.
    pub detail: String,
    /// When the engine failed to build or run the design rather than computing other values:
    /// the fault's signature ([`reduce::fault_signature`]), which `rendergen fuzz --reduce`
    /// keeps while it reduces the design.
    pub fault: Option<String>,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fuzz seed {:#x}, designs {}..{}: {} disagrees with the interpreter",
            self.seed,
            self.batch.0,
            self.batch.0 + self.batch.1,
            self.engine
        )?;
        if let Some(d) = self.design {
            write!(
                f,
                " on design {d} (alone: rendergen_gen::fuzz::single_design({:#x}, {d}))",
                self.seed
            )?;
        }
        write!(f, ": {}", self.detail)
    }
}

impl std::error::Error for Disagreement {}

/// The bench protocol on the interpreter with the run recorded; returns the hash and trace.
pub fn run_recorded(design: &Design, cycles: u64, stim_seed: u64) -> (u64, Trace) {
    let mut sim = Simulator::new(design).expect("the interpreter compiles every fuzz design");
    sim.start_recording();
    let inputs: Vec<_> = (0..sim.inputs().len())
        .map(|i| (sim.input_at(i), sim.inputs()[i].width))
        .collect();
    let outputs: Vec<_> = (0..sim.outputs().len()).map(|i| sim.output_at(i)).collect();
    let (mut rng, mut h) = (SplitMix64(stim_seed), HASH_INIT);
    for c in 0..cycles {
        sim.set_reset(c < 2);
        for &(id, w) in &inputs {
            let words: Vec<u64> = (0..w.div_ceil(64))
                .map(|k| rng.next_u64() & mask64(w - 64 * k))
                .collect();
            sim.poke_bits(id, &Bits::from_words(&words, w));
        }
        for &o in &outputs {
            for &word in sim.peek_words(o) {
                h = (h ^ word).wrapping_mul(HASH_PRIME);
            }
        }
        sim.step();
    }
    (h, sim.take_trace())
}

/// Runs `design` on full and on activity-aware evaluation side by side with a *sparse* stimulus
/// (each input changes with probability 1/8 per cycle, and for stretches of 16 cycles nothing
/// changes), so that most groups are skipped most of the time, and compares every output word
/// every cycle. The first difference is the error.
pub fn compare_active(design: &Design, cycles: u64, stim_seed: u64) -> Result<(), String> {
    let mut full = Simulator::new(design).map_err(|e| e.to_string())?;
    let mut act = Simulator::with_eval(design, Eval::Active).map_err(|e| e.to_string())?;
    let inputs: Vec<_> = (0..full.inputs().len())
        .map(|i| (full.input_at(i), full.inputs()[i].width))
        .collect();
    let outputs: Vec<_> = (0..full.outputs().len())
        .map(|i| full.output_at(i))
        .collect();
    let mut rng = SplitMix64(stim_seed ^ 0x00AC_715E);
    for c in 0..cycles {
        full.set_reset(c < 2);
        act.set_reset(c < 2);
        let quiet = (c / 16) % 3 == 2;
        for &(id, w) in &inputs {
            if quiet || !rng.next_u64().is_multiple_of(8) {
                continue;
            }
            let words: Vec<u64> = (0..w.div_ceil(64))
                .map(|k| rng.next_u64() & mask64(w - 64 * k))
                .collect();
            let b = Bits::from_words(&words, w);
            full.poke_bits(id, &b);
            act.poke_bits(id, &b);
        }
        for (k, &o) in outputs.iter().enumerate() {
            let a = full.peek_words(o).to_vec();
            if act.peek_words(o) != a.as_slice() {
                return Err(format!(
                    "cycle {c}: output {} is {:x?} under full evaluation but {:x?} under \
                     activity-aware evaluation",
                    full.outputs()[k].name,
                    a,
                    act.peek_words(o)
                ));
            }
        }
        full.step();
        act.step();
    }
    Ok(())
}

/// The design index of a batch port name `d<i>_…`.
fn design_of(signal: &str) -> Option<usize> {
    signal.strip_prefix('d')?.split('_').next()?.parse().ok()
}

/// Runs designs `first..first + count` of `seed` for `cycles` cycles on the interpreter and
/// `engines`; the first disagreement is an error.
pub fn check_batch(
    seed: u64,
    first: usize,
    count: usize,
    cycles: u64,
    engines: Engines,
) -> Result<BatchStats, Box<Disagreement>> {
    let dis = |engine: &str, design: Option<usize>, detail: String| {
        Box::new(Disagreement {
            seed,
            batch: (first, count),
            engine: engine.into(),
            design,
            detail,
            fault: None,
        })
    };
    let mut st = BatchStats {
        designs: count,
        cycles,
        ..BatchStats::default()
    };
    let t = Instant::now();
    let design = batch_design(seed, first, count);
    st.elaborate_s = t.elapsed().as_secs_f64();
    let stim = seed ^ 0x5EED;
    let t = Instant::now();
    let (hash, trace) = run_recorded(&design, cycles, stim);
    st.nodes = design.flat_node_count();
    let again = bench(&design, BenchEngine::Rust, cycles, stim)
        .map_err(|e| dis("rust (bench)", None, e.to_string()))?;
    if again.output_hash != hash {
        return Err(dis(
            "rust (bench)",
            None,
            format!("hash {:#x} vs recorded run {hash:#x}", again.output_hash),
        ));
    }
    let active = bench(&design, BenchEngine::RustActive, cycles, stim)
        .map_err(|e| dis("rust-active", None, e.to_string()))?;
    if active.output_hash != hash {
        return Err(dis(
            "rust-active",
            None,
            format!(
                "hash {:#x} vs full evaluation {hash:#x}",
                active.output_hash
            ),
        ));
    }
    compare_active(&design, cycles, stim).map_err(|e| dis("rust-active (sparse)", None, e))?;
    st.interpreter_s = t.elapsed().as_secs_f64();
    if engines.compiled > 0 {
        let t = Instant::now();
        let n = engines.compiled.min(count);
        let sub = if n == count {
            design.clone()
        } else {
            batch_design(seed, first, n)
        };
        let hash = if n == count {
            hash
        } else {
            run_recorded(&sub, cycles, stim).0
        };
        let r = bench_compiled_split(&sub, Eval::Full, cycles, stim, FUZZ_STATEMENTS);
        let active = bench_compiled_split(&sub, Eval::Active, cycles, stim, FUZZ_STATEMENTS);
        st.compiled_s = t.elapsed().as_secs_f64();
        match active {
            Err(e) => return Err(dis("rust-compiled-active", None, e.to_string())),
            Ok(a) if a.output_hash != hash => {
                return Err(dis(
                    "rust-compiled-active",
                    None,
                    format!(
                        "output hash {:#x}, interpreter {hash:#x} ({cycles} cycles, stimulus \
                         seed {stim:#x})",
                        a.output_hash
                    ),
                ))
            }
            Ok(_) => {}
        }
        st.compiled_designs = n;
        match r {
            Err(e) => return Err(dis("rust-compiled", None, e.to_string())),
            Ok(r) if r.output_hash != hash => {
                let which = (first..first + n).find(|&i| {
                    let d = single_design(seed, i);
                    let h = |e| bench(&d, e, cycles, stim).map(|r| r.output_hash).ok();
                    h(BenchEngine::Rust) != h(BenchEngine::RustCompiled)
                });
                return Err(dis(
                    "rust-compiled",
                    which,
                    format!(
                        "output hash {:#x}, interpreter {hash:#x} ({cycles} cycles, stimulus \
                         seed {stim:#x})",
                        r.output_hash
                    ),
                ));
            }
            Ok(_) => {}
        }
    }
    for (n, engine) in [
        (count * engines.iverilog as usize, CosimEngine::Iverilog),
        (engines.verilator.min(count), CosimEngine::Verilator),
    ] {
        if n == 0 {
            continue;
        }
        let t = Instant::now();
        let r = if n == count {
            cosim_quick_build(&design, &trace, engine)
        } else {
            let sub = batch_design(seed, first, n);
            cosim_quick_build(&sub, &run_recorded(&sub, cycles, stim).1, engine)
        };
        let s = t.elapsed().as_secs_f64();
        match engine {
            CosimEngine::Iverilog => st.iverilog_s = s,
            CosimEngine::Verilator => {
                st.verilator_s = s;
                st.verilator_designs = n;
            }
        }
        if let Err(e) = r {
            let design = match &e {
                CosimError::Mismatch { signal, .. } => design_of(signal),
                _ if n == 1 => Some(first),
                _ => None,
            };
            let mut d = dis(&engine.to_string(), design, e.to_string());
            if let CosimError::Tool(ToolError::Failed { output, .. }) = &e {
                d.fault = reduce::fault_signature(output);
            }
            return Err(d);
        }
    }
    Ok(st)
}

/// Re-checks design `index` of `seed` alone on `engines` with a few stimulus seeds: the
/// smallest reproduction of a batch disagreement (`Ok` when the design alone agrees).
pub fn shrink(
    seed: u64,
    index: usize,
    cycles: u64,
    engines: Engines,
) -> Result<(), Box<Disagreement>> {
    check_batch(seed, index, 1, cycles, engines).map(|_| ())
}

/// Checks `designs` random designs of `seed` in batches of `batch`; returns the totals or
/// the first disagreement (shrunk to its design when possible, reported in the detail).
pub fn run(
    seed: u64,
    designs: usize,
    batch: usize,
    cycles: u64,
    engines: Engines,
    mut progress: impl FnMut(&BatchStats),
) -> Result<BatchStats, Box<Disagreement>> {
    let mut total = BatchStats::default();
    let mut first = 0;
    while first < designs {
        let n = batch.min(designs - first);
        match check_batch(seed, first, n, cycles, engines) {
            Ok(st) => {
                total.add(&st);
                progress(&st);
            }
            Err(mut d) => {
                if let Some(i) = d.design {
                    match shrink(seed, i, cycles, engines) {
                        Err(alone) => d.detail = format!("{}\n  alone: {}", d.detail, alone.detail),
                        Ok(()) => d.detail = format!("{}\n  (agrees when alone)", d.detail),
                    }
                }
                return Err(d);
            }
        }
        first += n;
    }
    Ok(total)
}

#[cfg(test)]
mod tests;
