//! The kit end to end on a small FIFO: random gaps and back-pressure, scoreboard, watchdog,
//! protocol checker (also on a deliberately broken producer).

use super::*;
use crate::engine::Simulator;
use rendergen_hdl::{cat, Design, Module};

/// A FIFO of `1 << depth_log2` entries with streams `push` (fields `data`, `tag`) and `pop`.
pub fn fifo(m: &mut Module, depth_log2: u32, width: u32) {
    let push_valid = m.input("push_valid", 1);
    let push_data = m.input("push_data", width);
    let push_tag = m.input("push_tag", 4);
    let pop_ready = m.input("pop_ready", 1);
    let wr = m.reg("wr_ptr", depth_log2 + 1).reset(0);
    let rd = m.reg("rd_ptr", depth_log2 + 1).reset(0);
    let count = (wr.q() - rd.q()).named("count");
    let full = count.eq(1u64 << depth_log2);
    let empty = count.eq(0u64);
    let push = push_valid & !full;
    let pop = pop_ready & !empty;
    let mem = m.memory("mem", width + 4, 1 << depth_log2);
    mem.write(
        push,
        wr.q().slice(0, depth_log2),
        cat(&[push_tag, push_data]),
    );
    let rdata = mem.read_comb(rd.q().slice(0, depth_log2));
    wr.next_when(push, wr.q() + 1);
    rd.next_when(pop, rd.q() + 1);
    m.output("push_ready", !full);
    m.output("pop_valid", !empty);
    m.output("pop_data", rdata.slice(0, width));
    m.output("pop_tag", rdata.slice(width, 4));
}

fn fifo_sim() -> Simulator {
    Simulator::new(&Design::build("fifo", |m| fifo(m, 2, 16)).unwrap()).unwrap()
}

/// Runs `n` random items through the FIFO; returns the cycles taken.
fn fifo_run(sim: &mut Simulator, seed: u64, n: usize) -> Result<u64, TbError> {
    let mut rng = Rng::new(seed);
    let mut src = StreamSource::new(sim, "push", rng.next_u64())?.gap_prob(0.3);
    let mut sink = StreamSink::new(sim, "pop", rng.next_u64())?.stall_prob(0.5);
    assert_eq!(src.fields(), ["push_data", "push_tag"]);
    let mut board = InOrder::new();
    for _ in 0..n {
        let item = vec![rng.bits_u64(16), rng.bits_u64(4)];
        src.send(&item)?;
        board.expect(item);
    }
    sim.reset(1);
    let mut seen = 0;
    let cycles = Watchdog::new(50 * n as u64, seed).run_until(sim, "the FIFO to drain", |sim| {
        src.drive(sim);
        sink.drive(sim);
        src.sample(sim);
        sink.sample(sim);
        for item in &sink.items_u64()[seen..] {
            board.observe(item.clone())?;
        }
        seen = sink.items().len();
        sink.protocol_result()?;
        Ok(src.is_idle() && board.outstanding() == 0)
    })?;
    board.check_complete()?;
    Ok(cycles)
}

#[test]
fn fifo_passes_random_traffic() {
    let mut sim = fifo_sim();
    let seed = seed_from_env_or(0x5EED);
    let run = TestRun::start(&mut sim, "kit_fifo", seed);
    let r = fifo_run(&mut sim, run.seed(), 300);
    let cycles = run.check(&mut sim, r);
    assert!(
        cycles > 300,
        "back-pressure and gaps slow it down: {cycles}"
    );
}

#[test]
fn watchdog_times_out_with_seed_and_reason() {
    let mut sim = fifo_sim();
    let mut src = StreamSource::new(&sim, "push", 1).unwrap();
    (0..10).for_each(|i| src.send(&[i, 0]).unwrap());
    sim.reset(1);
    // Nobody pops: the FIFO fills and the source never finishes.
    let e = run_until(&mut sim, 40, 0xABC, "all pushes", |sim| {
        src.drive(sim);
        src.sample(sim);
        Ok(src.is_idle())
    })
    .unwrap_err()
    .message;
    assert!(
        e.contains("waited 40 cycles") && e.contains("all pushes"),
        "{e}"
    );
    assert!(e.contains("RENDERGEN_SEED=0xabc"), "{e}");
    assert_eq!(src.sent(), 4, "four entries fit");
    let report = TestRun::start(&mut sim, "t", 7).report(&e);
    assert!(report.contains("seed: 0x7"), "{report}");
}

#[test]
fn sink_flags_a_producer_that_drops_valid() {
    // A broken producer: valid toggles every cycle regardless of ready.
    let d = Design::build("bad", |m| {
        let ready = m.input("out_ready", 1);
        let _ = ready;
        let t = m.reg("toggle", 1).reset(0);
        t.next(!t.q());
        m.output("out_valid", t.q());
        let three = m.lit(3, 8);
        m.output("out_data", three);
    })
    .unwrap();
    let mut sim = Simulator::new(&d).unwrap();
    let mut sink = StreamSink::new(&sim, "out", 3).unwrap().stall_prob(1.0);
    sim.reset(1);
    for _ in 0..4 {
        sink.drive(&mut sim);
        sink.sample(&mut sim);
        sim.step();
    }
    let e = sink.protocol_result().unwrap_err().message;
    assert!(e.contains("dropped valid"), "{e}");
}

#[test]
fn source_rejects_values_too_wide_for_their_port() {
    let sim = fifo_sim();
    let mut src = StreamSource::new(&sim, "push", 1).unwrap();
    let e = src.send(&[1 << 16, 0]).unwrap_err().message;
    assert!(e.contains("push_data") && e.contains("16 bits"), "{e}");
    assert!(src.send(&[1]).is_err(), "one value per field");
    assert!(StreamSource::new(&sim, "pull", 1).is_err());
}

/// A stream whose name extends another's (`ts_resp` beside `ts`) is not part of its payload,
/// on either side.
#[test]
fn nested_stream_names_are_not_payload() {
    let d = Design::build("two_streams", |m| {
        let v = m.input("ts_valid", 1);
        let a = m.input("ts_addr", 8);
        let rr = m.input("ts_resp_ready", 1);
        m.output("ts_ready", rr);
        m.output("ts_resp_valid", v);
        m.output("ts_resp_data", a);
    })
    .unwrap();
    let sim = Simulator::new(&d).unwrap();
    let src = StreamSource::new(&sim, "ts", 1).unwrap();
    assert_eq!(src.fields(), ["ts_addr"]);
    let sink = StreamSink::new(&sim, "ts_resp", 2).unwrap();
    assert_eq!(sink.fields(), ["ts_resp_data"]);
}
