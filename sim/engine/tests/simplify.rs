//! Bit-shuffle simplification ([`simplify`](crate::engine::simplify)): for each rewrite, a design
//! where it applies (checked on the pass's counts), simulated with and without rewriting (full
//! and activity-aware evaluation) on random inputs with resets; every output and every named
//! signal must agree in every cycle, and the rewritten program must be shorter.

use crate::engine::simplify::{simplify, Stats};
use crate::engine::{Eval, Simulator};
use rendergen_hdl::{cat, Design, FlatNetlist, Module, Sig};

/// Operations of one full evaluation of `sim`'s main program.
fn ops(sim: &Simulator) -> u64 {
    sim.op_counts().iter().map(|c| c.1).sum()
}

/// Checks `build`: the pass's counts satisfy `applies`, the values agree with the unsimplified
/// simulation for 300 random cycles, and the simplified program is shorter.
fn check(name: &str, build: impl Fn(&mut Module), applies: impl Fn(&Stats) -> bool) {
    let d = Design::build(name, build).expect("elaborates");
    let stats = simplify(&mut FlatNetlist::new(&d));
    assert!(applies(&stats), "{name}: rewrite not applied: {stats:?}");
    let mut reference = Simulator::with_options(&d, Eval::Full, false).unwrap();
    let mut sims = [
        Simulator::with_options(&d, Eval::Full, true).unwrap(),
        Simulator::with_options(&d, Eval::Active, true).unwrap(),
    ];
    let (before, after) = (ops(&reference), ops(&sims[0]));
    assert!(after < before, "{name}: {before} -> {after} operations");
    let paths: Vec<String> = reference.signal_paths().map(String::from).collect();
    assert!(
        !paths.is_empty(),
        "{name}: the design names its intermediate values"
    );
    let mut rng = crate::kit::Rng::new(17);
    for cycle in 0..300u64 {
        let rst = cycle < 2 || cycle == 150;
        let inputs: Vec<_> = (reference.inputs().iter())
            .map(|p| (p.name.clone(), rng.bits(p.width)))
            .collect();
        for sim in std::iter::once(&mut reference).chain(sims.iter_mut()) {
            sim.set_reset(rst);
            for (n, v) in &inputs {
                let id = sim.input(n).unwrap();
                sim.poke_bits(id, v);
            }
        }
        for sim in &mut sims {
            for i in 0..reference.outputs().len() {
                let port = reference.outputs()[i].name.clone();
                let (r, s) = (reference.output(&port).unwrap(), sim.output(&port).unwrap());
                assert_eq!(
                    reference.peek_bits(r),
                    sim.peek_bits(s),
                    "{name}: output {port}, cycle {cycle}"
                );
            }
            for p in &paths {
                let (r, s) = (reference.signal(p).unwrap(), sim.signal(p).unwrap());
                assert_eq!(
                    reference.peek_signal(r),
                    sim.peek_signal(s),
                    "{name}: signal {p}, cycle {cycle}"
                );
            }
        }
        for sim in std::iter::once(&mut reference).chain(sims.iter_mut()) {
            sim.step();
        }
    }
}

/// A register holding `v` (so that the shuffles stay combinational but state is involved).
fn held(m: &mut Module, name: &str, v: Sig) -> Sig {
    let r = m.reg(name, v.width()).reset(0);
    r.next(v);
    r.q()
}

#[test]
fn slice_of_concatenation_reads_the_part() {
    check(
        "slice_of_cat",
        |m| {
            let (a, b, c) = (m.input("a", 8), m.input("b", 8), m.input("c", 8));
            let packed = cat(&[a, b, c]).named("packed");
            m.output("b_out", packed.bits(15, 8));
            m.output("across", packed.slice(4, 12));
            // Wide: three 50-bit fields.
            let (x, y, z) = (m.input("x", 50), m.input("y", 50), m.input("z", 50));
            let wide = cat(&[x, y, z]);
            m.output("y_out", wide.slice(50, 50));
            m.output("y_part", wide.slice(60, 20));
            let q = held(m, "q", wide.slice(40, 30));
            m.output("q", q);
        },
        |s| s.slice >= 4,
    );
}

#[test]
fn concatenation_of_neighbouring_slices_is_one_slice() {
    check(
        "cat_of_slices",
        |m| {
            let a = m.input("a", 32);
            let hi = a.slice(16, 8).named("hi");
            m.output("joined", cat(&[hi, a.slice(8, 8), a.slice(4, 4)]));
            // Not neighbours: stays a concatenation.
            m.output("swapped", cat(&[a.slice(0, 8), a.slice(24, 8)]));
            let w = m.input("w", 100);
            m.output("wide_joined", cat(&[w.slice(60, 10), w.slice(50, 10)]));
        },
        |s| s.concat >= 2,
    );
}

#[test]
fn slice_of_slice_and_of_extension() {
    check(
        "slice_of_slice",
        |m| {
            let a = m.input("a", 32);
            let mid = a.slice(4, 20).named("mid");
            m.output("inner", mid.slice(3, 5));
            let s = m.input("s", 8);
            m.output("z_low", s.zext(32).slice(4, 8));
            m.output("z_zero", s.zext(32).slice(10, 8));
            m.output("s_low", s.sext(32).slice(2, 4));
            // Above the sign bit: stays the extension's slice.
            m.output("s_high", s.sext(32).slice(6, 8));
            // Fields of a wide value: within one word, across words, its top word.
            let w = m.input("w", 150);
            let field = w.slice(70, 40).named("field");
            m.output("w_in_word", field.slice(2, 20));
            m.output("w_across", field.slice(30, 10));
            m.output("w_top", w.slice(128, 22).slice(1, 21));
            let q = held(m, "wq", w);
            m.output("q_field", q.slice(64, 64).slice(8, 8));
        },
        |s| s.slice >= 8,
    );
}

#[test]
fn zeros_on_top_of_a_concatenation_are_an_extension() {
    check(
        "cat_zero",
        |m| {
            let a = m.input("a", 12);
            let zero = m.lit(0, 20);
            let padded = cat(&[zero, a]).named("padded");
            m.output("sum", padded + 1);
            let b = m.input("b", 40);
            let (z90, z10) = (m.lit(0, 90), m.lit(0, 10));
            m.output("wide", cat(&[z90, b]) ^ cat(&[z10, b, b, b]));
        },
        |s| s.concat >= 2,
    );
}

#[test]
fn double_inversion_and_inverted_selects() {
    check(
        "not_not",
        |m| {
            let a = m.input("a", 16);
            let b = m.input("b", 16);
            let s = m.input("s", 1);
            let na = (!a).named("na");
            m.output("a_again", !na);
            m.output("picked", (!s).mux(a, b));
            let nb = !b;
            m.output("same", na.eq(nb));
            m.output("differ", na.ne(nb));
            let q = held(m, "q", (!s).mux(b, a));
            m.output("q", q);
        },
        |s| s.not_not >= 1 && s.mux_not >= 2 && s.cmp_not >= 2,
    );
}

#[test]
fn inverted_tests_are_the_opposite_tests() {
    check(
        "not_test",
        |m| {
            let (a, b) = (m.input("a", 12), m.input("b", 12));
            let w = m.input("w", 90);
            let idle = (!a.any()).named("idle");
            m.output("idle", idle);
            m.output("none", !w.any());
            m.output("ne", !a.eq(b));
            m.output("eq", !a.ne(b));
            m.output("ge", !a.lt(b));
            m.output("gt", !a.le(b));
            m.output("sge", !a.slt(b));
            m.output("sgt", !a.sle(b));
        },
        |s| s.not_test >= 8,
    );
}

#[test]
fn identical_operations_are_computed_once() {
    check(
        "shared",
        |m| {
            let a = m.input("a", 16);
            let b = m.input("b", 16);
            let x = (a & b).named("x");
            let y = (a & b).named("y");
            m.output("xy", x ^ (y + 1));
            // The builder shares identical nodes itself; these become identical only once the
            // slices of the concatenation read `b` directly.
            let f1 = cat(&[a, b]).slice(3, 7).named("f1");
            m.output("f1", (f1 + 1) ^ a.slice(0, 7));
            m.output("f2", b.slice(3, 7) + 1);
            let nn = !!a;
            m.output("f3", nn & b);
            m.output("f4", a & b);
        },
        |s| s.shared >= 3,
    );
}

#[test]
fn record_packed_and_unpacked_through_a_mux() {
    // The shape of a stream payload: fields packed, chosen by a mux, unpacked again; and a
    // concatenation whose only reader is another concatenation (flattened into it).
    check(
        "record",
        |m| {
            let (a, b) = (m.input("a", 24), m.input("b", 24));
            let sel = m.input("sel", 1);
            let pa = cat(&[a.slice(16, 8), a.slice(8, 8), a.slice(0, 8)]);
            let pb = cat(&[b.slice(12, 12), b.slice(0, 12)]);
            let chosen = sel.mux(pa, pb).named("chosen");
            m.output("f0", chosen.slice(0, 8));
            let inner = cat(&[a.slice(0, 4), b.slice(20, 4)]);
            m.output("outer", cat(&[inner, a.slice(4, 4), sel]));
        },
        |s| s.concat >= 3,
    );
}
