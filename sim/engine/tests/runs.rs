//! A small multiply-add mesh (the shape of `mac_mesh`): strided runs and fused pairs against a
//! Rust model; named intermediates stay observable.

use crate::engine::Simulator;
use crate::kit::Rng;
use rendergen_hdl::{Design, Sig};

const LANES: usize = 8;
const STAGES: usize = 3;

/// The mesh; with `name_first` the first product is named (so it must not be fused away).
fn mesh(name_first: bool) -> Design {
    Design::build("mesh", |m| {
        let mut row: Vec<Sig> = (0..LANES).map(|i| m.input(&format!("x{i}"), 16)).collect();
        let coef: Vec<Sig> = (0..STAGES).map(|s| m.input(&format!("c{s}"), 16)).collect();
        for (s, c) in coef.iter().enumerate() {
            row = (0..LANES)
                .map(|i| {
                    let left = row[(i + LANES - 1) % LANES];
                    let mut p = row[i] * *c;
                    if name_first && s == 0 && i == 0 {
                        p = p.named("first_product");
                    }
                    let r = m.reg(&format!("cell_{s}_{i}"), 16).reset(0);
                    r.next(p + (left ^ (row[i] >> 3)));
                    r.q()
                })
                .collect();
        }
        for (i, x) in row.iter().enumerate() {
            m.output(&format!("y{i}"), *x);
        }
    })
    .unwrap()
}

fn model(state: &mut [[u64; LANES]; STAGES], xs: &[u64], cs: &[u64]) {
    let mut row: Vec<u64> = xs.to_vec();
    let mut next = *state;
    for s in 0..STAGES {
        for i in 0..LANES {
            let left = row[(i + LANES - 1) % LANES];
            next[s][i] = (row[i] * cs[s] + (left ^ (row[i] >> 3))) & 0xffff;
        }
        row = state[s].to_vec();
    }
    *state = next;
}

#[test]
fn runs_and_fused_pairs_match_the_model() {
    for name_first in [false, true] {
        let mut sim = Simulator::new(&mesh(name_first)).unwrap();
        let listing = sim.program_listing();
        assert!(listing.contains("Run {"), "{listing}");
        assert!(listing.contains("MulAdd"), "{listing}");
        assert!(listing.contains("XorSlice"), "{listing}");
        assert_eq!(
            listing.contains("Mul,") || listing.contains("Mul {"),
            name_first
        );
        let named = name_first.then(|| sim.signal("mesh.first_product").unwrap());
        let mut state = [[0u64; LANES]; STAGES];
        let mut r = Rng::new(9);
        for _ in 0..200 {
            let xs: Vec<u64> = (0..LANES).map(|_| r.bits_u64(16)).collect();
            let cs: Vec<u64> = (0..STAGES).map(|_| r.bits_u64(16)).collect();
            for (i, x) in xs.iter().chain(&cs).enumerate() {
                sim.poke(sim.input_at(i), *x);
            }
            if let Some(p) = named {
                assert_eq!(sim.peek_signal(p).to_u64(), (xs[0] * cs[0]) & 0xffff);
            }
            sim.step();
            model(&mut state, &xs, &cs);
            for (i, want) in state[STAGES - 1].iter().enumerate() {
                assert_eq!(sim.peek(sim.output_at(i)), *want, "lane {i}");
            }
        }
    }
}
