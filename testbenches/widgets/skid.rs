//! `skid_buffer`: order, no loss or duplication, full throughput, registered ready.

use rendergen_rtl::stream::skid::skid_buffer_top;
use rendergen_sim::kit::{seed_from_env_or, TestRun};
use rendergen_sim::Simulator;
use rendergen_testbenches::{cosim_prefix, run_in_order};

fn run(seed: u64, items: usize, gap: f64, stall: f64) -> u64 {
    let design = skid_buffer_top(24).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "skid_buffer", seed);
    sim.start_recording();
    let result = run_in_order(
        &mut sim,
        ("in", "out"),
        24,
        items,
        seed,
        (gap, stall),
        |_, _, _| Ok(()),
    );
    let cycles = tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
    cycles
}

#[test]
fn skid_buffer_random_traffic() {
    run(seed_from_env_or(0x5C1D), 3000, 0.3, 0.5);
}

#[test]
fn skid_buffer_full_throughput() {
    let cycles = run(seed_from_env_or(3), 1000, 0.0, 0.0);
    assert!(
        cycles <= 1000 + 2,
        "one item per cycle expected: 1000 items took {cycles} cycles"
    );
}
