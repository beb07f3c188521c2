//! The intake's timing: a ray is taken in one cycle, its stack is copied in the background.

use super::harness::build;
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::Simulator;

/// With free slots, `assign.ready` is high without waiting for `assign.valid`; a ray of `sp`
/// words holds the next one for `⌈sp / 4⌉ − 1` cycles (its copy, four words per cycle, words
/// 0..3 in the handshake cycle), rays of at most four words are taken back to back, and a full
/// core takes none.
#[test]
fn intake_takes_a_ray_per_cycle() {
    let cfg = PbruCfg {
        slots: 4,
        stack_depth: 16,
        miss_thresh: 0,
        ..PbruCfg::default()
    };
    let (_, mut sim) = build(&cfg);
    let input = |sim: &Simulator, n: &str| sim.input(n).unwrap();
    let valid = input(&sim, "assign_valid");
    let ray_id = input(&sim, "assign_ray_id");
    let sp = input(&sim, "assign_sp");
    let stack = input(&sim, "assign_stack");
    let ready = sim.output("assign_ready").unwrap();
    let busy = sim.output("busy").unwrap();
    for n in ["crsp_valid", "stop_valid", "creq_ready", "done_ready"] {
        let p = input(&sim, n);
        sim.poke(p, 0);
    }
    sim.poke(valid, 0);
    sim.poke(stack, 0x1234_5678);
    sim.reset(2);
    assert_eq!(sim.peek(ready), 1, "ready must not wait for valid");
    let sps = [12u64, 4, 0, 1, 3];
    let mut taken = Vec::new();
    let mut next = 0;
    for cycle in 0..40u64 {
        if next < sps.len() {
            sim.poke(valid, 1);
            sim.poke(ray_id, next as u64 + 1);
            sim.poke(sp, sps[next]);
        } else {
            sim.poke(valid, 0);
        }
        if next < sps.len() && sim.peek(ready) == 1 {
            taken.push(cycle);
            next += 1;
        }
        sim.step();
    }
    // Ray 1 (12 words) at 0, copied in cycles 0..=2; rays 2..4 from cycle 2 on; the fifth finds
    // every slot taken.
    assert_eq!(taken, vec![0, 2, 3, 4], "handshake cycles");
    assert_eq!(sim.peek(busy), 0b1111);
    assert_eq!(sim.peek(ready), 0, "a full core takes no ray");
}
