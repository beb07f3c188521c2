//! `fifo`: order, no loss or duplication, count/full/empty every cycle, several depths.

use rendergen_rtl::stream::fifo::{fifo_top, FifoCfg};
use rendergen_sim::kit::{
    seed_from_env_or, InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

fn run(depth: u32, seed: u64, items: usize, gap: f64, stall: f64) -> u64 {
    let design = fifo_top(16, &FifoCfg { depth }).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, &format!("fifo_d{depth}"), seed);
    sim.start_recording();
    let result = (|| -> Result<u64, TbError> {
        let mut rng = Rng::new(seed);
        let mut src = [StreamSource::new(&sim, "push", rng.next_u64())?.gap_prob(gap)];
        let mut sink = [StreamSink::new(&sim, "pop", rng.next_u64())?.stall_prob(stall)];
        let mut board = InOrder::new();
        for _ in 0..items {
            let v = rng.bits_u64(16);
            src[0].send(&[v])?;
            board.expect(v);
        }
        let (count, full, empty) = (
            sim.output("count")?,
            sim.output("full")?,
            sim.output("empty")?,
        );
        sim.reset(1);
        let (mut seen, mut held) = (0usize, 0u64);
        let dog = Watchdog::new(60 * items as u64 + 100, seed);
        let cycles = dog.run_until(&mut sim, "the FIFO to deliver every item", |sim| {
            agents_cycle(sim, &mut src, &mut sink)?;
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
            let pushed = src[0].sent();
            for item in &sink[0].items()[seen..] {
                board.observe(item[0].to_u64())?;
            }
            seen = sink[0].items().len();
            if depth > 0 {
                held = pushed - seen as u64;
            }
            Ok(src[0].is_idle() && board.outstanding() == 0)
        })?;
        board.check_complete()?;
        Ok(cycles)
    })();
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
