//! Simulation speed: rendergen's cycle simulator against rust-hdl 0.46's `Simulation` engine,
//! on the same two designs driven by the same testbench work:
//!
//! 1. a 32-bit counter with enable (held high), final value checked;
//! 2. a 16-bit × 16-deep synchronous FIFO driven by a seeded SplitMix64 push/pop pattern, every
//!    popped word checked against a `VecDeque` model.
//!
//! Each engine runs for its own number of cycles (rust-hdl is slow); rates are compared.
//! Usage: `cargo run --release [-- SCALE]` — SCALE (default 1.0) multiplies every cycle count.

use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

// Cycle counts at SCALE = 1 (chosen for about 5–10 s per rust-hdl run and a few s per rendergen run).
const HDL_COUNTER_CYCLES: u64 = 100_000;
const HDL_FIFO_CYCLES: u64 = 100_000;
const RG_COUNTER_CYCLES: u64 = 200_000_000;
const RG_FIFO_CYCLES: u64 = 40_000_000;

const SEED: u64 = 0x5EED_F1F0_2024_0001;

/// SplitMix64: the push/pop/data pattern, identical for both engines.
#[derive(Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// One cycle's stimulus: (push, pop, data).
    fn draw(&mut self) -> (bool, bool, u64) {
        let a = self.next();
        let b = self.next();
        (a & 1 == 1, b & 1 == 1, (a >> 16) & 0xFFFF)
    }
}

/// What one run did.
struct Run {
    design: &'static str,
    engine: &'static str,
    cycles: u64,
    seconds: f64,
    note: String,
}

impl Run {
    fn rate(&self) -> f64 {
        self.cycles as f64 / self.seconds
    }
}

// ---------------------------------------------------------------------------------------------
// rust-hdl side
// ---------------------------------------------------------------------------------------------

/// 32-bit counter with enable, written in rust-hdl.
#[derive(LogicBlock, Default)]
struct HdlCounter {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    pub count: Signal<Out, Bits<32>>,
    counter: DFF<Bits<32>>,
}

impl Logic for HdlCounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, counter);
        if self.enable.val() {
            self.counter.d.next = self.counter.q.val() + 1;
        }
        self.count.next = self.counter.q.val();
    }
}

fn hdl_counter(cycles: u64) -> Run {
    let mut uut = HdlCounter::default();
    uut.enable.connect();
    uut.connect_all();
    let final_count = Arc::new(AtomicU64::new(u64::MAX));
    let seen = final_count.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<HdlCounter>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<HdlCounter>| {
        let mut x = sim.init()?;
        x.enable.next = true;
        wait_clock_cycles!(sim, clock, x, cycles);
        seen.store(x.count.val().to_u64(), Ordering::SeqCst);
        sim.done(x)
    });
    let t = Instant::now();
    sim.run(Box::new(uut), 10 * cycles + 100)
        .expect("rust-hdl counter simulation failed");
    let seconds = t.elapsed().as_secs_f64();
    let got = final_count.load(Ordering::SeqCst);
    let want = cycles & 0xFFFF_FFFF;
    assert_eq!(
        got, want,
        "rust-hdl counter: final value {got}, expected {want}"
    );
    Run {
        design: "counter32",
        engine: "rust-hdl 0.46",
        cycles,
        seconds,
        note: format!("value {got} ok"),
    }
}

/// The FIFO under test wrapped with its clock (16 bits × 16 entries: N = log2 16 = 4, NP1 = 5).
#[derive(LogicBlock, Default)]
struct HdlFifo {
    pub clock: Signal<In, Clock>,
    pub fifo: SynchronousFIFO<Bits<16>, 4, 5, 1>,
}

impl Logic for HdlFifo {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo);
    }
}

fn hdl_fifo(cycles: u64) -> Run {
    let mut uut = HdlFifo::default();
    uut.fifo.read.connect();
    uut.fifo.write.connect();
    uut.fifo.data_in.connect();
    uut.connect_all();
    let pushes = Arc::new(AtomicU64::new(0));
    let pops = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(u64::MAX));
    let (p_push, p_pop, p_err) = (pushes.clone(), pops.clone(), errors.clone());
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<HdlFifo>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<HdlFifo>| {
        let mut x = sim.init()?;
        let mut rng = SplitMix64(SEED);
        let mut model: VecDeque<u64> = VecDeque::new();
        let (mut n_push, mut n_pop, mut n_err) = (0u64, 0u64, 0u64);
        for _ in 0..cycles {
            // Outputs are registered (no combinational path from read/write), so they can be
            // sampled here, between edges, before this cycle's inputs are applied.
            let (push, pop, data) = rng.draw();
            // rust-hdl's FIFO latches `underflow`/`overflow` on a read when empty or a write
            // when full, so its read/write are gated by the flags: the same transfers as a
            // valid/ready handshake.
            let read = pop && !x.fifo.empty.val();
            let write = push && !x.fifo.full.val();
            if read {
                let got = x.fifo.data_out.val().to_u64();
                if model.pop_front() != Some(got) {
                    n_err += 1;
                }
                n_pop += 1;
            }
            if write {
                model.push_back(data);
                n_push += 1;
            }
            x.fifo.write.next = write;
            x.fifo.read.next = read;
            x.fifo.data_in.next = data.into();
            wait_clock_cycle!(sim, clock, x);
        }
        p_push.store(n_push, Ordering::SeqCst);
        p_pop.store(n_pop, Ordering::SeqCst);
        p_err.store(
            n_err + x.fifo.overflow.val() as u64 + x.fifo.underflow.val() as u64,
            Ordering::SeqCst,
        );
        sim.done(x)
    });
    let t = Instant::now();
    sim.run(Box::new(uut), 10 * cycles + 100)
        .expect("rust-hdl FIFO simulation failed");
    let seconds = t.elapsed().as_secs_f64();
    let (n_push, n_pop, n_err) = (
        pushes.load(Ordering::SeqCst),
        pops.load(Ordering::SeqCst),
        errors.load(Ordering::SeqCst),
    );
    assert_eq!(n_err, 0, "rust-hdl FIFO: {n_err} mismatches");
    assert!(
        n_pop > cycles / 8,
        "rust-hdl FIFO: only {n_pop} pops in {cycles} cycles"
    );
    Run {
        design: "fifo16x16",
        engine: "rust-hdl 0.46",
        cycles,
        seconds,
        note: format!("{n_push} pushes, {n_pop} pops checked"),
    }
}

// ---------------------------------------------------------------------------------------------
// rendergen side
// ---------------------------------------------------------------------------------------------

fn rg_counter(cycles: u64) -> Run {
    let design = rendergen_rtl::synthetic::counter(32).expect("rendergen counter elaborates");
    let mut sim = rendergen_sim::Simulator::new(&design).expect("rendergen counter compiles");
    let en = sim.input("en").expect("port en");
    let value = sim.output("value").expect("port value");
    sim.reset(1);
    assert_eq!(sim.peek(value), 0);
    let t = Instant::now();
    sim.poke(en, 1);
    for _ in 0..cycles {
        sim.step();
    }
    let got = sim.peek(value);
    let seconds = t.elapsed().as_secs_f64();
    let want = cycles & 0xFFFF_FFFF;
    assert_eq!(
        got, want,
        "rendergen counter: final value {got}, expected {want}"
    );
    Run {
        design: "counter32",
        engine: "rendergen",
        cycles,
        seconds,
        note: format!("value {got} ok"),
    }
}

fn rg_fifo(cycles: u64) -> Run {
    use rendergen_rtl::stream::fifo::{fifo_top, FifoCfg};
    let design = fifo_top(16, &FifoCfg { depth: 16 }).expect("rendergen FIFO elaborates");
    let mut sim = rendergen_sim::Simulator::new(&design).expect("rendergen FIFO compiles");
    let push_valid = sim.input("push_valid").expect("port push_valid");
    let push_data = sim.input("push_data").expect("port push_data");
    let pop_ready = sim.input("pop_ready").expect("port pop_ready");
    let push_ready = sim.output("push_ready").expect("port push_ready");
    let pop_valid = sim.output("pop_valid").expect("port pop_valid");
    let pop_data = sim.output("pop_data").expect("port pop_data");
    sim.reset(1);
    let mut rng = SplitMix64(SEED);
    let mut model: VecDeque<u64> = VecDeque::new();
    let (mut n_push, mut n_pop, mut n_err) = (0u64, 0u64, 0u64);
    let t = Instant::now();
    for _ in 0..cycles {
        let (push, pop, data) = rng.draw();
        sim.poke(push_valid, push as u64);
        sim.poke(push_data, data);
        sim.poke(pop_ready, pop as u64);
        // A transfer happens at the edge where valid and ready are both high.
        if pop && sim.peek(pop_valid) == 1 {
            let got = sim.peek(pop_data);
            if model.pop_front() != Some(got) {
                n_err += 1;
            }
            n_pop += 1;
        }
        if push && sim.peek(push_ready) == 1 {
            model.push_back(data);
            n_push += 1;
        }
        sim.step();
    }
    let seconds = t.elapsed().as_secs_f64();
    assert_eq!(n_err, 0, "rendergen FIFO: {n_err} mismatches");
    assert!(
        n_pop > cycles / 8,
        "rendergen FIFO: only {n_pop} pops in {cycles} cycles"
    );
    Run {
        design: "fifo16x16",
        engine: "rendergen",
        cycles,
        seconds,
        note: format!("{n_push} pushes, {n_pop} pops checked"),
    }
}

// ---------------------------------------------------------------------------------------------

fn scaled(n: u64, scale: f64) -> u64 {
    ((n as f64 * scale).round() as u64).max(100)
}

fn main() {
    let scale: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("SCALE must be a number"))
        .unwrap_or(1.0);

    let mut runs = Vec::new();
    eprintln!("counter32: rust-hdl ...");
    runs.push(hdl_counter(scaled(HDL_COUNTER_CYCLES, scale)));
    eprintln!("counter32: rendergen ...");
    runs.push(rg_counter(scaled(RG_COUNTER_CYCLES, scale)));
    eprintln!("fifo16x16: rust-hdl ...");
    runs.push(hdl_fifo(scaled(HDL_FIFO_CYCLES, scale)));
    eprintln!("fifo16x16: rendergen ...");
    runs.push(rg_fifo(scaled(RG_FIFO_CYCLES, scale)));

    println!(
        "| {:<10} | {:<14} | {:>12} | {:>8} | {:>14} | {:<38} |",
        "design", "engine", "cycles", "seconds", "cycles/s", "check"
    );
    println!(
        "|{:-<12}|{:-<16}|{:->14}|{:->10}|{:->16}|{:-<40}|",
        "", "", "", "", "", ""
    );
    for r in &runs {
        println!(
            "| {:<10} | {:<14} | {:>12} | {:>8.3} | {:>14.0} | {:<38} |",
            r.design,
            r.engine,
            r.cycles,
            r.seconds,
            r.rate(),
            r.note
        );
    }
    println!();
    println!("| {:<10} | {:>24} |", "design", "rendergen / rust-hdl rate");
    println!("|{:-<12}|{:->26}|", "", "");
    for design in ["counter32", "fifo16x16"] {
        let rate = |engine: &str| {
            runs.iter()
                .find(|r| r.design == design && r.engine == engine)
                .map(Run::rate)
                .expect("run present")
        };
        println!(
            "| {:<10} | {:>23.0}x |",
            design,
            rate("rendergen") / rate("rust-hdl 0.46")
        );
    }
}
