//! Micro-benchmark of the simulator: ns per cycle and per node on a ≥10k-node mesh of pipelined
//! 16-bit multiply-add lanes and on a small FIFO. Run with
//! `cargo bench -p rendergen-sim --bench engine` (plain `main`, no harness dependency).

use rendergen_hdl::{cat, Design, Module, Sig};
use rendergen_sim::kit::Rng;
use rendergen_sim::Simulator;
use std::hint::black_box;
use std::time::Instant;

/// `lanes` × `stages` cells; each cell registers `a * b + k` or `a * b - b` (by a bit of `a`),
/// where `a` is its lane's previous stage and `b` the next lane's.
fn mesh(m: &mut Module, lanes: usize, stages: usize) {
    let x = m.input("x", 16);
    let mut prev: Vec<Sig> = (0..lanes)
        .map(|i| x ^ ((i as u64 * 0x9E3) & 0xffff))
        .collect();
    for s in 0..stages {
        let mut next = Vec::with_capacity(lanes);
        for i in 0..lanes {
            let (a, b) = (prev[i], prev[(i + 1) % lanes]);
            let p = a * b;
            let k = ((s * lanes + i) as u64 * 0x2545) & 0xffff;
            let v = a.bit(0).mux(p + k, p - b);
            let r = m.reg(&format!("r{s}_{i}"), 16);
            r.next(v);
            next.push(r.q());
        }
        prev = next;
    }
    let out = prev.iter().skip(1).fold(prev[0], |acc, v| acc ^ *v);
    m.output("y", out);
}

/// A FIFO of `1 << depth_log2` entries of `width` bits with valid/ready streams.
fn fifo(m: &mut Module, depth_log2: u32, width: u32) {
    let push_valid = m.input("push_valid", 1);
    let push_data = m.input("push_data", width);
    let pop_ready = m.input("pop_ready", 1);
    let wr = m.reg("wr_ptr", depth_log2 + 1).reset(0);
    let rd = m.reg("rd_ptr", depth_log2 + 1).reset(0);
    let count = wr.q() - rd.q();
    let full = count.eq(1u64 << depth_log2);
    let empty = count.eq(0u64);
    let push = push_valid & !full;
    let pop = pop_ready & !empty;
    let mem = m.memory("mem", width, 1 << depth_log2);
    mem.write(push, wr.q().slice(0, depth_log2), push_data);
    wr.next_when(push, wr.q() + 1);
    rd.next_when(pop, rd.q() + 1);
    m.output("push_ready", !full);
    m.output("pop_valid", !empty);
    m.output("pop_data", mem.read_comb(rd.q().slice(0, depth_log2)));
    m.output("count", cat(&[count]));
}

fn report(name: &str, sim: &Simulator, cycles: u64, secs: f64) {
    let ns = secs * 1e9 / cycles as f64;
    println!(
        "{name:>6}: {} nodes, {} instructions: {ns:9.1} ns/cycle, {:.3} ns/node, {:.3} ns/instruction",
        sim.node_count(),
        sim.instruction_count(),
        ns / sim.node_count() as f64,
        ns / sim.instruction_count().max(1) as f64
    );
}

fn main() {
    let d = Design::build("mesh", |m| mesh(m, 32, 48)).unwrap();
    let mut sim = Simulator::new(&d).unwrap();
    let (x, y) = (sim.input("x").unwrap(), sim.output("y").unwrap());
    let cycles = 20_000;
    let t = Instant::now();
    for c in 0..cycles {
        sim.poke(x, c);
        sim.step();
    }
    black_box(sim.peek(y));
    report("mesh", &sim, cycles, t.elapsed().as_secs_f64());
    let t = Instant::now();
    for c in 0..cycles {
        sim.poke(x, c);
        black_box(sim.peek(y));
    }
    report("settle", &sim, cycles, t.elapsed().as_secs_f64());

    let d = Design::build("fifo", |m| fifo(m, 4, 32)).unwrap();
    let mut sim = Simulator::new(&d).unwrap();
    let ids = ["push_valid", "push_data", "pop_ready"].map(|n| sim.input(n).unwrap());
    let outs = ["push_ready", "pop_valid", "pop_data"].map(|n| sim.output(n).unwrap());
    let mut rng = Rng::new(1);
    let pattern: Vec<u64> = (0..1024).map(|_| rng.next_u64()).collect();
    sim.reset(1);
    let cycles = 2_000_000u64;
    let mut acc = 0;
    let t = Instant::now();
    for c in 0..cycles {
        let r = pattern[(c & 1023) as usize];
        sim.poke(ids[0], r & 1);
        sim.poke(ids[1], r >> 8);
        sim.poke(ids[2], (r >> 1) & 1);
        acc += sim.peek(outs[0]) + sim.peek(outs[1]) + sim.peek(outs[2]);
        sim.step();
    }
    black_box(acc);
    report("fifo", &sim, cycles, t.elapsed().as_secs_f64());
}
