//! `rr_arbiter` and `priority_arbiter`: per-lane order, nothing lost or duplicated, the grant
//! names the lane whose item moved, round-robin fairness and strict priority.

use rendergen_rtl::stream::arbiter::{arbiter_top, ArbPolicy};
use rendergen_sim::kit::{
    seed_from_env_or, InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

const LANES: usize = 4;

/// Runs `items` per lane; payload = lane << 12 | sequence. Returns the lane of every transfer.
fn run(policy: ArbPolicy, seed: u64, items: usize, gap: f64, stall: f64) -> Vec<usize> {
    let name = if policy == ArbPolicy::RoundRobin {
        "rr_arbiter"
    } else {
        "priority_arbiter"
    };
    let design = arbiter_top(name, policy, LANES as u32, 16).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, name, seed);
    sim.start_recording();
    let result = (|| -> Result<Vec<usize>, TbError> {
        let mut rng = Rng::new(seed);
        let mut srcs = Vec::new();
        for lane in 0..LANES {
            srcs.push(
                StreamSource::new(&sim, &format!("lane{lane}"), rng.next_u64())?.gap_prob(gap),
            );
        }
        let mut sink = [StreamSink::new(&sim, "out", rng.next_u64())?.stall_prob(stall)];
        let mut boards: Vec<InOrder<u64>> = (0..LANES).map(|_| InOrder::new()).collect();
        for seq in 0..items as u64 {
            for (lane, src) in srcs.iter_mut().enumerate() {
                let v = (lane as u64) << 12 | seq;
                src.send(&[v])?;
                boards[lane].expect(v);
            }
        }
        let grant = sim.output("grant")?;
        let out_valid = sim.output("out_valid")?;
        sim.reset(1);
        let (mut seen, mut order) = (0, Vec::new());
        let dog = Watchdog::new(60 * (LANES * items) as u64 + 100, seed);
        dog.run_until(&mut sim, "every lane's items through the arbiter", |sim| {
            agents_cycle(sim, &mut srcs, &mut sink)?;
            let g = sim.peek(grant) as usize;
            for item in &sink[0].items()[seen..] {
                let v = item[0].to_u64();
                let lane = (v >> 12) as usize;
                if lane != g || sim.peek(out_valid) != 1 {
                    return Err(TbError::new(format!(
                        "item {v:#x} of lane {lane} moved under grant {g}"
                    )));
                }
                boards[lane].observe(v)?;
                order.push(lane);
            }
            seen = sink[0].items().len();
            Ok(srcs.iter().all(|s| s.is_idle()) && boards.iter().all(|b| b.outstanding() == 0))
        })?;
        for b in &boards {
            b.check_complete()?;
        }
        Ok(order)
    })();
    let order = tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
    order
}

#[test]
fn rr_arbiter_random_traffic() {
    run(
        ArbPolicy::RoundRobin,
        seed_from_env_or(0xA4B),
        400,
        0.4,
        0.5,
    );
}

#[test]
fn rr_arbiter_is_fair_under_contention() {
    // Every lane always valid, output always ready: grants rotate 0,1,2,3,0,...
    let order = run(
        ArbPolicy::RoundRobin,
        seed_from_env_or(0xFA1),
        200,
        0.0,
        0.0,
    );
    for (i, window) in order.chunks(LANES).enumerate() {
        let mut lanes = window.to_vec();
        lanes.sort_unstable();
        assert_eq!(
            lanes,
            [0, 1, 2, 3],
            "window {i} of grants {window:?} is not fair"
        );
    }
}

#[test]
fn rr_arbiter_is_fair_with_back_pressure() {
    // With a stalling output, no lane waits more than LANES - 1 grants of others.
    let order = run(
        ArbPolicy::RoundRobin,
        seed_from_env_or(0xFA2),
        200,
        0.0,
        0.6,
    );
    let mut since = [0usize; LANES];
    for lane in order.iter().take(LANES * 190) {
        for (l, s) in since.iter_mut().enumerate() {
            *s = if l == *lane { 0 } else { *s + 1 };
            assert!(*s < LANES, "lane {l} starved for {s} grants");
        }
    }
}

#[test]
fn priority_arbiter_random_traffic() {
    run(ArbPolicy::Priority, seed_from_env_or(0xB4B), 400, 0.4, 0.5);
}

#[test]
fn priority_arbiter_serves_lane_zero_first() {
    let order = run(ArbPolicy::Priority, seed_from_env_or(0xB4C), 100, 0.0, 0.3);
    let first_non_zero = order.iter().position(|l| *l != 0).unwrap();
    assert_eq!(
        first_non_zero, 100,
        "lane 0 (always valid) must take every grant first: {order:?}"
    );
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "lanes served in priority order"
    );
}
