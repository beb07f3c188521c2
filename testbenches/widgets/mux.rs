//! `stream_mux` and `stream_demux`: items move only through the selected lane, per-lane order,
//! nothing lost or duplicated. The select changes only between transfers (the widgets'
//! documented contract), in random phases.

use rendergen_rtl::stream::mux::{stream_demux_top, stream_mux_top};
use rendergen_sim::kit::{
    seed_from_env_or, InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

const LANES: usize = 4;
const ITEMS: u64 = 150;

#[test]
fn stream_mux_random_phases() {
    let seed = seed_from_env_or(0x30C);
    let design = stream_mux_top(LANES as u32, 16).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "stream_mux", seed);
    sim.start_recording();
    let result = (|| -> Result<(), TbError> {
        let mut rng = Rng::new(seed);
        let mut srcs = Vec::new();
        let mut boards: Vec<InOrder<u64>> = (0..LANES).map(|_| InOrder::new()).collect();
        for (lane, board) in boards.iter_mut().enumerate() {
            let mut s =
                StreamSource::new(&sim, &format!("lane{lane}"), rng.next_u64())?.gap_prob(0.3);
            for seq in 0..ITEMS {
                let v = (lane as u64) << 12 | seq;
                s.send(&[v])?;
                board.expect(v);
            }
            srcs.push(s);
        }
        let mut sink = [StreamSink::new(&sim, "out", rng.next_u64())?.stall_prob(0.4)];
        let sel = sim.input("sel")?;
        sim.reset(1);
        let (mut cur, mut left, mut seen) = (0usize, 5u64, 0usize);
        let mut next_sel = None;
        let mut remaining = [ITEMS; LANES];
        sim.poke(sel, 0);
        Watchdog::new(100 * ITEMS * LANES as u64, seed).run_until(
            &mut sim,
            "every item through the mux",
            |sim| {
                if let Some(l) = next_sel.take() {
                    cur = l;
                    sim.poke(sel, l as u64);
                }
                agents_cycle(sim, &mut srcs, &mut sink)?;
                for item in &sink[0].items()[seen..] {
                    let v = item[0].to_u64();
                    let lane = (v >> 12) as usize;
                    if lane != cur {
                        return Err(TbError::new(format!(
                            "item {v:#x} of lane {lane} passed while sel = {cur}"
                        )));
                    }
                    boards[lane].observe(v)?;
                    remaining[lane] -= 1;
                    left = left.saturating_sub(1);
                }
                let moved = sink[0].items().len() > seen;
                seen = sink[0].items().len();
                if (moved && left == 0) || remaining[cur] == 0 {
                    // Between transfers: pick another lane that still has items.
                    let open: Vec<usize> = (0..LANES).filter(|l| remaining[*l] > 0).collect();
                    if let Some(l) = open.get(rng.below(open.len().max(1) as u64) as usize) {
                        next_sel = Some(*l);
                        left = 1 + rng.below(8);
                    }
                }
                Ok(remaining.iter().all(|r| *r == 0))
            },
        )?;
        boards.iter().try_for_each(|b| b.check_complete())
    })();
    tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
}

#[test]
fn stream_demux_random_phases() {
    let seed = seed_from_env_or(0xDE3);
    let design = stream_demux_top(LANES as u32, 16).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "stream_demux", seed);
    sim.start_recording();
    let result = (|| -> Result<(), TbError> {
        let mut rng = Rng::new(seed);
        let total = ITEMS * LANES as u64;
        let mut src = [StreamSource::new(&sim, "in", rng.next_u64())?.gap_prob(0.3)];
        for v in 0..total {
            src[0].send(&[v])?;
        }
        let mut sinks = Vec::new();
        for lane in 0..LANES {
            sinks.push(
                StreamSink::new(&sim, &format!("out{lane}"), rng.next_u64())?.stall_prob(0.4),
            );
        }
        let sel = sim.input("sel")?;
        sim.reset(1);
        let (mut cur, mut left, mut expected) = (0usize, 5u64, 0u64);
        let mut next_sel = None;
        let mut seen = [0usize; LANES];
        sim.poke(sel, 0);
        Watchdog::new(100 * total, seed).run_until(&mut sim, "every item through the demux", |sim| {
            if let Some(l) = next_sel.take() {
                cur = l;
                sim.poke(sel, l as u64);
            }
            agents_cycle(sim, &mut src, &mut sinks)?;
            let mut moved = false;
            for (lane, sink) in sinks.iter().enumerate() {
                for item in &sink.items()[seen[lane]..] {
                    let v = item[0].to_u64();
                    if lane != cur || v != expected {
                        return Err(TbError::new(format!(
                            "item {v:#x} (expected {expected:#x}) left through output {lane} while sel = {cur}"
                        )));
                    }
                    expected += 1;
                    moved = true;
                    left = left.saturating_sub(1);
                }
                seen[lane] = sink.items().len();
            }
            if moved && left == 0 {
                next_sel = Some(rng.below(LANES as u64) as usize);
                left = 1 + rng.below(8);
            }
            Ok(expected == total)
        })?;
        Ok(())
    })();
    tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
}
