//! Testbench support shared by the integration tests: running stream agents under a watchdog,
//! and co-simulating a prefix of a recorded run through iverilog and Verilator.
//!
//! The README's first-generator example is compiled and run as a doctest of this crate.

#![doc = include_str!("../README.md")]

use rendergen_gen::cosim::cosim_both;
use rendergen_hdl::Design;
use rendergen_sim::kit::{StreamSink, StreamSource, TbError};
use rendergen_sim::Simulator;

/// Environment variable choosing the engine of the testbenches that run generated Rust (the
/// PBRU system tests and the ASTC_DP tests, built by `rendergen-compiled`): `compiled` (the
/// default) or `interpreter`, which interprets the same design with the same evaluation mode.
/// For measuring what the compiled engine saves the test suite
/// (`RENDERGEN_TB_ENGINE=interpreter cargo test -p rendergen-testbenches --test testbenches
/// pbru_system`).
pub const TB_ENGINE_ENV: &str = "RENDERGEN_TB_ENGINE";

/// Whether the testbenches that can run generated Rust do (see [`TB_ENGINE_ENV`]); panics
/// naming the variable and its valid values on anything else.
pub fn compiled_from_env() -> bool {
    match std::env::var(TB_ENGINE_ENV).as_deref().map(str::trim) {
        Err(_) | Ok("") | Ok("compiled") => true,
        Ok("interpreter") => false,
        Ok(other) => panic!(
            "{TB_ENGINE_ENV}={other:?}: the testbench engine is `compiled` (default) or `interpreter`"
        ),
    }
}

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

/// Sends `items` random `width`-bit words into input stream `input` with random gaps, takes
/// them from output stream `output` with random stalls, and checks they arrive complete and in
/// order. `each_cycle(sim, sent, received)` runs every cycle after sampling (for per-cycle
/// invariants). Returns the cycles taken.
#[allow(clippy::too_many_arguments)]
pub fn run_in_order(
    sim: &mut Simulator,
    (input, output): (&str, &str),
    width: u32,
    items: usize,
    seed: u64,
    (gap, stall): (f64, f64),
    mut each_cycle: impl FnMut(&mut Simulator, u64, u64) -> Result<(), TbError>,
) -> Result<u64, TbError> {
    use rendergen_sim::kit::{InOrder, Rng, Watchdog};
    let mut rng = Rng::new(seed);
    let mut src = [StreamSource::new(sim, input, rng.next_u64())?.gap_prob(gap)];
    let mut sink = [StreamSink::new(sim, output, rng.next_u64())?.stall_prob(stall)];
    let mut board = InOrder::new();
    for _ in 0..items {
        let v = rng.bits_u64(width);
        src[0].send(&[v])?;
        board.expect(v);
    }
    sim.reset(1);
    let mut seen = 0;
    let dog = Watchdog::new(60 * items as u64 + 100, seed);
    let what = format!("every item from `{input}` at `{output}`");
    let cycles = dog.run_until(sim, &what, |sim| {
        agents_cycle(sim, &mut src, &mut sink)?;
        for item in &sink[0].items()[seen..] {
            board.observe(item[0].to_u64())?;
        }
        seen = sink[0].items().len();
        each_cycle(sim, src[0].sent(), seen as u64)?;
        Ok(src[0].is_idle() && board.outstanding() == 0)
    })?;
    board.check_complete()?;
    Ok(cycles)
}
