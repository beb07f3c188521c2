//! Bounded waiting: run the simulation until a condition holds, or fail with a message that
//! says what was awaited, for how long, and the seed that reproduces the run.

use super::error::TbError;
use crate::engine::Simulator;

/// Limits how long a testbench waits for something.
#[derive(Clone, Debug)]
pub struct Watchdog {
    /// Maximum number of clock cycles to wait.
    pub max_cycles: u64,
    /// Seed of the run (printed in the timeout message).
    pub seed: u64,
}

impl Watchdog {
    /// A watchdog allowing `max_cycles` per wait.
    pub fn new(max_cycles: u64, seed: u64) -> Watchdog {
        Watchdog { max_cycles, seed }
    }

    /// Calls `cycle` once per clock cycle (drive inputs, sample outputs, return whether the
    /// awaited condition holds), stepping the clock after each call that returns `false`.
    /// Returns the number of edges waited, or a timeout error naming `what`.
    ///
    /// The clock is **not** stepped after the call that returns `true`: that cycle's edge is
    /// still to come, and the transfers its agents sampled take effect at it. A later phase on
    /// the same simulator must `sim.step()` first, or it drives and samples the same cycle
    /// again and counts its transfers twice.
    pub fn run_until(
        &self,
        sim: &mut Simulator,
        what: &str,
        mut cycle: impl FnMut(&mut Simulator) -> Result<bool, TbError>,
    ) -> Result<u64, TbError> {
        let start = sim.cycle();
        loop {
            if cycle(sim)? {
                return Ok(sim.cycle() - start);
            }
            if sim.cycle() - start >= self.max_cycles {
                return Err(TbError::new(format!(
                    "timeout: waited {} cycles (cycle {} now, started at {start}) for {what}; \
                     seed {:#x} (rerun with RENDERGEN_SEED={:#x})",
                    self.max_cycles,
                    sim.cycle(),
                    self.seed,
                    self.seed
                )));
            }
            sim.step();
        }
    }
}

/// [`Watchdog::run_until`] without a watchdog value.
pub fn run_until(
    sim: &mut Simulator,
    max_cycles: u64,
    seed: u64,
    what: &str,
    cycle: impl FnMut(&mut Simulator) -> Result<bool, TbError>,
) -> Result<u64, TbError> {
    Watchdog::new(max_cycles, seed).run_until(sim, what, cycle)
}
