//! Co-simulation tests: Rust traces replayed in both Verilog simulators.

use super::*;
use rendergen_hdl::{cat, Design};
use rendergen_sim::kit::rng::Rng;
use rendergen_sim::Simulator;

/// A design with registers (with and without reset), a wide datapath, a memory and an instance.
fn mixed() -> Design {
    Design::build("mixed", |m| {
        let en = m.input("en", 1);
        let a = m.input("a", 70);
        let b = m.input("b", 8);
        let count = m.reg("count", 8).reset(3);
        count.next_when(en, count.q() + b);
        let acc = m.reg("acc", 70);
        acc.next(acc.q() ^ a.sra(b));
        let ram = m.memory("ram", 16, 8);
        ram.write(en, b.slice(0, 3), cat(&[count.q(), b]));
        let rd = ram.read_sync(a.slice(0, 3), None);
        let child = m.instance("u_mul", "mul", &(), |c| {
            let x = c.input("x", 8);
            let y = c.input("y", 8);
            c.output("p", x.mul_full(y));
        });
        child.connect("x", count.q());
        child.connect("y", b);
        m.output("count", count.q());
        m.output("acc", acc.q());
        m.output("rd", rd);
        m.output("p", child.output("p"));
        m.output("lt", a.slt(acc.q()));
    })
    .unwrap()
}

/// Runs `cycles` random cycles (reset for the first two) and returns the trace.
fn random_trace(design: &Design, cycles: u32, seed: u64) -> Trace {
    let mut sim = Simulator::new(design).unwrap();
    let mut rng = Rng::new(seed);
    let ids: Vec<_> = (0..sim.inputs().len()).map(|i| sim.input_at(i)).collect();
    let widths: Vec<u32> = sim.inputs().iter().map(|p| p.width).collect();
    sim.start_recording();
    for c in 0..cycles {
        sim.set_reset(c < 2);
        for (id, w) in ids.iter().zip(&widths) {
            let words: Vec<u64> = (0..w.div_ceil(64)).map(|_| rng.next_u64()).collect();
            sim.poke_bits(*id, &Bits::from_words(&words, *w));
        }
        sim.step();
    }
    sim.take_trace()
}

#[test]
fn random_trace_matches_in_both_engines() {
    let d = mixed();
    let trace = random_trace(&d, 300, 7);
    cosim_both(&d, &trace).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn corrupted_expectation_is_reported() {
    let d = mixed();
    let mut trace = random_trace(&d, 40, 9);
    let p = trace.outputs.iter().position(|p| p.name == "acc").unwrap();
    let good = trace.cycles[17].outputs[p].clone();
    let mut words = good.words().to_vec();
    words[1] ^= 0x20;
    trace.cycles[17].outputs[p] = Bits::from_words(&words, 70);
    for engine in [CosimEngine::Iverilog, CosimEngine::Verilator] {
        match cosim(&d, &trace, engine) {
            Err(CosimError::Mismatch {
                cycle,
                signal,
                expected,
                actual,
                ..
            }) => {
                assert_eq!((cycle, signal.as_str()), (17, "acc"));
                assert_eq!(actual, format!("70'h{}", good.hex()));
                assert_ne!(expected, actual);
                let msg = cosim(&d, &trace, engine).unwrap_err().to_string();
                assert!(msg.contains("cycle 17, output `acc`"), "{msg}");
            }
            other => panic!("{engine}: expected a mismatch, got {other:?}"),
        }
    }
}

#[test]
fn hex_parsing() {
    assert_eq!(parse_hex("0ff", 8), Some(Bits::from_u64(0xff, 8)));
    assert_eq!(parse_hex("1x", 8), None);
    assert_eq!(parse_hex("100", 8), None);
    let wide = parse_hex("1_0000000000000002".replace('_', "").as_str(), 65).unwrap();
    assert_eq!(wide.words(), &[2, 1]);
}

/// Nested expressions that the emitter prints inline, built so that any Verilog widening
/// (a carry kept by a wider context), any sign leaking out of `$signed` or any lost parenthesis
/// would change an output: every shape is checked against the simulator in both tools.
fn inlined_trees() -> Design {
    Design::build("trees", |m| {
        let a = m.input("a", 8);
        let b = m.input("b", 8);
        let c = m.input("c", 8);
        let n = m.input("n", 3);
        let s = m.input("s", 1);
        let wide = m.input("wide", 70);
        let outs = [
            ("carry_lost", (a + b) >> 1),
            ("sum_eq", ((a + b).eq(c)).zext(8)),
            ("prod_hi", (a * b).shr(n) ^ c),
            ("sra_masked", a.sra(n) & b),
            ("sra_in_sum", a.sra(n) + (b - c)),
            ("signed_cmp", ((a - b).slt(c - a)).zext(8)),
            ("shift_by_sum", a.shl((n + 1).zext(4)) | c),
            ("neg_sum", -(a + b) & !(c - 1)),
            ("mux_tree", s.mux(a + b, (b - c) >> 2) + s.mux(c, a)),
            (
                "reduce",
                cat(&[(a ^ b).any(), (a & c).all(), (b + c).parity(), a.bits(4, 0)]),
            ),
            ("ext_sum", (a + b).zext(9).bits(8, 1)),
            (
                "wide_tree",
                ((wide + wide.shl(n)) ^ wide.sra(n)).bits(69, 62),
            ),
        ];
        for (name, v) in outs {
            m.output(name, v);
        }
    })
    .unwrap()
}

#[test]
fn inlined_expression_trees_keep_their_widths() {
    let d = inlined_trees();
    let text = crate::verilog::emit(&d)
        .into_iter()
        .map(|f| f.text)
        .collect::<String>();
    // The trees are printed inline (the point of the test), not through temporaries.
    assert!(text.contains("((a_i * b_i) >> n_i) ^ c_i"), "{text}");
    let trace = random_trace(&d, 400, 11);
    cosim_both(&d, &trace).unwrap_or_else(|e| panic!("{e}"));
}
