//! Testbench support shared by the integration tests: running stream agents under a watchdog,
//! and co-simulating a prefix of a recorded run through iverilog and Verilator.
//!
//! The README's first-generator example is compiled and run as a doctest of this crate.

#![doc = include_str!("../README.md")]

use rendergen_gen::cosim::cosim_both;
use rendergen_hdl::Design;
use rendergen_sim::kit::{StreamSink, StreamSource, TbError};
use rendergen_sim::Simulator;

/// Cycles of each testbench's recorded run replayed in co-simulation.
pub const COSIM_CYCLES: usize = 600;

/// One testbench cycle: drive every agent, sample every agent (so combinational ready/valid
/// paths settle before sampling), then let `check` inspect the settled state.
pub fn agents_cycle(
    sim: &mut Simulator,
    sources: &mut [StreamSource],
    sinks: &mut [StreamSink],
) -> Result<(), TbError> {
    for s in sources.iter_mut() {
        s.drive(sim);
    }
    for s in sinks.iter_mut() {
        s.drive(sim);
    }
    for s in sources.iter_mut() {
        s.sample(sim);
    }
    for s in sinks.iter_mut() {
        s.sample(sim);
        s.protocol_result()?;
    }
    Ok(())
}

/// Replays the first [`COSIM_CYCLES`] cycles of the recording in `sim` through iverilog and
/// Verilator on the emitted Verilog; panics with the first mismatch.
pub fn cosim_prefix(design: &Design, sim: &mut Simulator) {
    let mut trace = sim.take_trace();
    trace.cycles.truncate(COSIM_CYCLES);
    assert!(
        !trace.cycles.is_empty(),
        "nothing recorded: call start_recording first"
    );
    if let Err(e) = cosim_both(design, &trace) {
        panic!("co-simulation of `{}` failed: {e}", design.top().name);
    }
}
