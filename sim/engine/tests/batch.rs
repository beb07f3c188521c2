//! Wide, regular logic (where the scheduler forms batches of one opcode) against a Rust model.

use crate::engine::Simulator;
use crate::kit::Rng;
use rendergen_hdl::{Design, Sig};

const LANES: usize = 6;

/// Per lane: `r = a[0] ? (a*b + k) : (a*b - b) ^ !a`, `a` the lane, `b` the next lane; also
/// `a & b`, `a | b`, `a == b`, `a[7:3]`, copies through registers.
fn cell(a: u64, b: u64, k: u64) -> u64 {
    let p = a.wrapping_mul(b) & 0xffff;
    let v = if a & 1 == 1 {
        (p + k) & 0xffff
    } else {
        p.wrapping_sub(b) & 0xffff
    };
    (v ^ (!a & 0xffff)) ^ (a & b) ^ (a | b) ^ ((a == b) as u64) ^ ((a >> 3) & 0x1f)
}

#[test]
fn batched_lanes_match_the_model() {
    let d = Design::build("lanes", |m| {
        let xs: Vec<Sig> = (0..LANES).map(|i| m.input(&format!("x{i}"), 16)).collect();
        for i in 0..LANES {
            let (a, b) = (xs[i], xs[(i + 1) % LANES]);
            let p = a * b;
            let v = a.bit(0).mux(p + (i as u64 * 977), p - b);
            let y = (v ^ !a) ^ (a & b) ^ (a | b) ^ a.eq(b).zext(16) ^ a.bits(7, 3).zext(16);
            let r = m.reg(&format!("r{i}"), 16);
            r.next(y);
            m.output(&format!("y{i}"), r.q());
        }
    })
    .unwrap();
    let mut sim = Simulator::new(&d).unwrap();
    let ins: Vec<_> = (0..LANES).map(|i| sim.input_at(i)).collect();
    let mut r = Rng::new(5);
    for _ in 0..300 {
        let xs: Vec<u64> = (0..LANES)
            .map(|_| if r.chance(0.1) { 7 } else { r.bits_u64(16) })
            .collect();
        for (id, x) in ins.iter().zip(&xs) {
            sim.poke(*id, *x);
        }
        sim.step();
        for i in 0..LANES {
            let want = cell(xs[i], xs[(i + 1) % LANES], i as u64 * 977);
            assert_eq!(sim.peek(sim.output_at(i)), want, "lane {i}, inputs {xs:?}");
        }
    }
}
