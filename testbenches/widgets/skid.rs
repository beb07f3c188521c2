//! `skid_buffer`: order, no loss or duplication, full throughput, registered ready.

use rendergen_rtl::stream::skid::skid_buffer_top;
use rendergen_sim::kit::{
    seed_from_env_or, InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

fn run(seed: u64, items: usize, gap: f64, stall: f64) -> u64 {
    let design = skid_buffer_top(24).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "skid_buffer", seed);
    sim.start_recording();
    let result = (|| -> Result<u64, TbError> {
        let mut rng = Rng::new(seed);
        let mut src = [StreamSource::new(&sim, "in", rng.next_u64())?.gap_prob(gap)];
        let mut sink = [StreamSink::new(&sim, "out", rng.next_u64())?.stall_prob(stall)];
        let mut board = InOrder::new();
        for _ in 0..items {
            let v = rng.bits_u64(24);
            src[0].send(&[v])?;
            board.expect(v);
        }
        sim.reset(1);
        let mut seen = 0;
        let dog = Watchdog::new(60 * items as u64 + 100, seed);
        let cycles = dog.run_until(&mut sim, "the skid buffer to deliver every item", |sim| {
            agents_cycle(sim, &mut src, &mut sink)?;
            for item in &sink[0].items()[seen..] {
                board.observe(item[0].to_u64())?;
            }
            seen = sink[0].items().len();
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
