//! `fifo`: order, no loss or duplication, count/full/empty every cycle, several depths.

use rendergen_rtl::stream::fifo::{fifo_top, FifoCfg};
use rendergen_sim::kit::{seed_from_env_or, TbError, TestRun};
use rendergen_sim::Simulator;
use rendergen_testbenches::{cosim_prefix, run_in_order};

fn run(depth: u32, seed: u64, items: usize, gap: f64, stall: f64) -> u64 {
    let design = fifo_top(16, &FifoCfg { depth }).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, &format!("fifo_d{depth}"), seed);
    sim.start_recording();
    let (count, full, empty) = (
        sim.output("count").unwrap(),
        sim.output("full").unwrap(),
        sim.output("empty").unwrap(),
    );
    // The count seen in a cycle is the state before that cycle's transfers.
    let mut held = 0u64;
    let result = run_in_order(
        &mut sim,
        ("push", "pop"),
        16,
        items,
        seed,
        (gap, stall),
        |sim, sent, got| {
            let c = sim.peek(count);
            let want_full = depth == 0 || c == depth as u64;
            let want_empty = depth == 0 || c == 0;
            if c != held
                || (sim.peek(full) == 1) != want_full
                || (sim.peek(empty) == 1) != want_empty
            {
                return Err(TbError::new(format!(
                    "cycle {}: count {c} (model {held}), full {}, empty {}",
                    sim.cycle(),
                    sim.peek(full),
                    sim.peek(empty)
                )));
            }
            if depth > 0 {
                held = sent - got;
            }
            Ok(())
        },
    );
    let cycles = tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
    cycles
}

#[test]
fn fifo_depth_16_random_traffic() {
    run(16, seed_from_env_or(0xF1F0), 2000, 0.3, 0.5);
}

#[test]
fn fifo_odd_depths_and_degenerate_sizes() {
    for depth in [0, 1, 2, 3, 5] {
        run(
            depth,
            seed_from_env_or(0xF1F1 + depth as u64),
            500,
            0.4,
            0.4,
        );
    }
}

#[test]
fn fifo_full_throughput_without_stalls() {
    let cycles = run(4, seed_from_env_or(7), 1000, 0.0, 0.0);
    assert!(
        cycles <= 1000 + 3,
        "one item per cycle expected: 1000 items took {cycles} cycles"
    );
}
