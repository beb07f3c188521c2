//! A testbench run that can explain its failure: it knows its seed, optionally dumps a VCD
//! (directory in `RENDERGEN_VCD`), and turns an error into a report with both.
//!
//! ```no_run
//! # fn demo(sim: &mut rendergen_sim::Simulator) {
//! use rendergen_sim::kit::{seed_from_env_or, TestRun, TbError};
//! let run = TestRun::start(sim, "fifo_random", seed_from_env_or(0x5EED));
//! let result: Result<(), TbError> = Ok(()); // ... drive the design with run.seed() ...
//! run.check(sim, result); // panics with seed and waveform path on failure
//! # }
//! ```

use crate::engine::Simulator;
use std::fmt::Display;
use std::path::PathBuf;

/// Environment variable naming a directory where runs write their VCD.
pub const VCD_ENV: &str = "RENDERGEN_VCD";

/// A named, seeded run of a testbench.
pub struct TestRun {
    name: String,
    seed: u64,
    vcd: Option<PathBuf>,
    vcd_error: Option<String>,
}

impl TestRun {
    /// Starts a run; with `RENDERGEN_VCD=dir` set, traces to `dir/<name>-<seed>.vcd`.
    pub fn start(sim: &mut Simulator, name: &str, seed: u64) -> TestRun {
        let mut run = TestRun {
            name: name.into(),
            seed,
            vcd: None,
            vcd_error: None,
        };
        if let Some(dir) = std::env::var_os(VCD_ENV) {
            let path = PathBuf::from(dir).join(format!("{name}-{seed:x}.vcd"));
            let opened = std::fs::File::create(&path)
                .and_then(|f| sim.trace_vcd(std::io::BufWriter::new(f)));
            match opened {
                Ok(()) => run.vcd = Some(path),
                Err(e) => run.vcd_error = Some(format!("{}: {e}", path.display())),
            }
        }
        run
    }

    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The failure report for `error`: the error, the seed, how to rerun, and the waveform.
    pub fn report(&self, error: &dyn Display) -> String {
        let wave = match (&self.vcd, &self.vcd_error) {
            (Some(p), _) => format!("waveform: {}", p.display()),
            (None, Some(e)) => format!("waveform could not be written ({e})"),
            (None, None) => format!("waveform: set {VCD_ENV}=<dir> to dump one"),
        };
        format!(
            "{} failed: {error}\n  seed: {:#x} (rerun with RENDERGEN_SEED={:#x})\n  {wave}",
            self.name, self.seed, self.seed
        )
    }

    /// Finishes the VCD and returns the value, or the failure report.
    pub fn finish<T, E: Display>(self, sim: &mut Simulator, r: Result<T, E>) -> Result<T, String> {
        let closed = sim.finish_vcd();
        match (r, closed) {
            (Ok(v), Ok(())) => Ok(v),
            (Ok(_), Err(e)) => Err(self.report(&format!("writing the VCD: {e}"))),
            (Err(e), _) => Err(self.report(&e)),
        }
    }

    /// Like [`finish`](Self::finish), panicking with the report on failure (for `#[test]`s).
    #[track_caller]
    pub fn check<T, E: Display>(self, sim: &mut Simulator, r: Result<T, E>) -> T {
        match self.finish(sim, r) {
            Ok(v) => v,
            Err(report) => panic!("{report}"),
        }
    }
}
