//! Recorded stimulus: the inputs of a real run (for example `rendergen sim pbru --workload
//! texture --record-stimulus S.bin`) replayed at the ports of the same design on every engine,
//! so the engines are timed where activity is realistic, not only under random inputs that keep
//! every unit busy (issue 10).
//!
//! # File format (little-endian `u64` words)
//! ```text
//! "RGSTIM01" (8 bytes)  words_per_cycle  cycles
//! per cycle: reset (0 or 1), then every input's 64-bit words (declaration order, low first)
//! ```
//! The output hash is the benchmark protocol's (every output word of every cycle, FNV-1a), so
//! engines agree exactly when they behave the same.

use super::{BenchEngine, BenchResult, Measured, HASH_INIT, HASH_PRIME};
use crate::tools::ToolError;
use rendergen_hdl::ir::Design;
use rendergen_hdl::Bits;
use rendergen_sim::{Eval, Simulator, Trace};
use std::path::Path;
use std::time::Instant;

const MAGIC: &[u8; 8] = b"RGSTIM01";

/// A recorded stimulus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stimulus {
    /// Words per cycle: 1 (reset) + the input words.
    pub words_per_cycle: usize,
    /// `cycles × words_per_cycle` words.
    pub words: Vec<u64>,
}

/// Words per cycle a design's inputs need (reset word included).
pub fn words_per_cycle(design: &Design) -> usize {
    1 + (design.top().inputs.iter())
        .map(|p| p.width.div_ceil(64) as usize)
        .sum::<usize>()
}

impl Stimulus {
    /// The inputs of a recorded run ([`Simulator::start_recording`]).
    pub fn from_trace(trace: &Trace) -> Stimulus {
        let per = 1
            + (trace.inputs.iter())
                .map(|p| p.width.div_ceil(64) as usize)
                .sum::<usize>();
        let mut words = Vec::with_capacity(per * trace.cycles.len());
        for c in &trace.cycles {
            words.push(c.reset as u64);
            for (b, p) in c.inputs.iter().zip(&trace.inputs) {
                let n = p.width.div_ceil(64) as usize;
                words.extend((0..n).map(|k| b.words().get(k).copied().unwrap_or(0)));
            }
        }
        Stimulus {
            words_per_cycle: per,
            words,
        }
    }

    /// Cycles recorded.
    pub fn cycles(&self) -> u64 {
        (self.words.len() / self.words_per_cycle.max(1)) as u64
    }

    /// Writes the file (whole or nothing).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        crate::output::write_output(path, |f| {
            f.write_all(MAGIC)?;
            f.write_all(&(self.words_per_cycle as u64).to_le_bytes())?;
            f.write_all(&self.cycles().to_le_bytes())?;
            for w in &self.words {
                f.write_all(&w.to_le_bytes())?;
            }
            Ok(())
        })
    }

    /// Reads a stimulus file; errors name the file and what is wrong.
    pub fn read(path: &Path) -> Result<Stimulus, String> {
        let name = path.display();
        let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
        if bytes.len() < 24 || &bytes[..8] != MAGIC {
            return Err(format!(
                "{name}: not a stimulus file (no RGSTIM01 header; record one with `rendergen \
                 sim pbru --record-stimulus FILE` or `rendergen raster --engine rtl \
                 --record-stimulus FILE`)"
            ));
        }
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let (per, cycles) = (word(8), word(16));
        let expect = per.checked_mul(cycles).and_then(|n| n.checked_mul(8));
        if per == 0 || expect != Some(bytes.len() as u64 - 24) {
            return Err(format!(
                "{name}: header says {cycles} cycles of {per} words, but the file has {} bytes \
                 of data",
                bytes.len() - 24
            ));
        }
        let words = bytes[24..]
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        Ok(Stimulus {
            words_per_cycle: per as usize,
            words,
        })
    }

    /// Runs the stimulus on `sim` (a simulator of the design it was recorded on, after
    /// [`Stimulus::check`]): per cycle the reset level and every input, then `each(sim)` (to
    /// observe the settled outputs), then the clock edge.
    pub fn drive(&self, sim: &mut Simulator, mut each: impl FnMut(&mut Simulator)) {
        let inputs: Vec<_> = (0..sim.inputs().len())
            .map(|i| (sim.input_at(i), sim.inputs()[i].width))
            .collect();
        for w in self.words.chunks_exact(self.words_per_cycle) {
            sim.set_reset(w[0] != 0);
            let mut k = 1;
            for &(id, width) in &inputs {
                let n = width.div_ceil(64) as usize;
                if n == 1 {
                    sim.poke(id, w[k]);
                } else {
                    // Wide inputs only: `poke_bits` takes a `Bits` (one small allocation).
                    sim.poke_bits(id, &Bits::from_words(&w[k..k + n], width));
                }
                k += n;
            }
            each(sim);
            sim.step();
        }
    }

    /// Checks that the stimulus fits `design`'s inputs.
    pub fn check(&self, design: &Design) -> Result<(), String> {
        let want = words_per_cycle(design);
        if want != self.words_per_cycle {
            return Err(format!(
                "the stimulus has {} words per cycle but `{}` takes {want} (1 reset word + its \
                 inputs): it was recorded on another design or with other parameters",
                self.words_per_cycle,
                design.top().name
            ));
        }
        Ok(())
    }
}

/// Replays `stim` on `engine` (iverilog is not supported: its time is not comparable); the
/// result's `cycles` is the recording's length. `file` is the stimulus on disk (the external
/// engines read it).
pub fn bench_replay(
    design: &Design,
    engine: BenchEngine,
    stim: &Stimulus,
    file: &Path,
) -> Result<BenchResult, ToolError> {
    stim.check(design).map_err(|m| ToolError::Parse {
        tool: "rendergen bench".into(),
        message: m,
    })?;
    let cycles = stim.cycles();
    // The external engines run in a work directory of their own: a relative path would name
    // nothing there (`--replay texture.stim` failed with "stimulus file: NotFound").
    let absolute = std::path::absolute(file).map_err(ToolError::Io)?;
    let file = absolute.as_path();
    let run = match engine {
        BenchEngine::Rust => replay_rust(design, Eval::Full, stim)?,
        BenchEngine::RustActive => replay_rust(design, Eval::Active, stim)?,
        BenchEngine::Verilator => super::harness::run_verilator_replay(design, file, cycles)?,
        BenchEngine::RustCompiled => super::compiled::run_replay(design, Eval::Full, file, cycles)?,
        BenchEngine::RustCompiledActive => {
            super::compiled::run_replay(design, Eval::Active, file, cycles)?
        }
        BenchEngine::Iverilog => {
            return Err(ToolError::Parse {
                tool: "rendergen bench".into(),
                message: "--replay runs on rust, rust-active, rust-compiled and verilator".into(),
            })
        }
    };
    Ok(BenchResult::new(design, engine, cycles, run.seconds, run.hash).with(&run))
}

fn replay_rust(design: &Design, eval: Eval, stim: &Stimulus) -> Result<Measured, ToolError> {
    let mut sim = Simulator::with_eval(design, eval).map_err(|e| ToolError::Failed {
        tool: "rendergen-sim".into(),
        status: "could not compile the design".into(),
        output: e.to_string(),
    })?;
    let outputs: Vec<_> = (0..sim.outputs().len()).map(|i| sim.output_at(i)).collect();
    let mut h = HASH_INIT;
    let start = Instant::now();
    stim.drive(&mut sim, |sim| {
        for &o in &outputs {
            for &word in sim.peek_words(o) {
                h = (h ^ word).wrapping_mul(HASH_PRIME);
            }
        }
    });
    Ok(Measured::in_process(start.elapsed().as_secs_f64(), h, &sim))
}
