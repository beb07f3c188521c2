//! Generation tests that need no `rustc` (the compiled backend is checked against the
//! interpreter by `rendergen-gen`'s bench tests, which build and run the generated code).

use super::generate;
use rendergen_hdl::Design;

#[test]
fn generates_ports_constants_and_functions() {
    let d = Design::build("t", |m| {
        let a = m.input("a", 8);
        let b = m.input("b", 100);
        let r = m.reg("r", 8).reset(3);
        r.next(r.q() + a);
        m.output("y", r.q());
        m.output("z", b + 1u64);
    })
    .unwrap();
    let g = generate(&d).unwrap();
    assert_eq!(g.inputs.len(), 2);
    assert_eq!((g.inputs[1].name.as_str(), g.inputs[1].width), ("b", 100));
    assert_eq!(g.outputs[1].width, 100);
    for needle in [
        "pub fn settle(",
        "pub fn edge(",
        "pub fn new_state(",
        "if rst {",
    ] {
        assert!(g.source.contains(needle), "{needle} in:\n{}", g.source);
    }
    assert!(!g.source.contains("unsafe"));
}

/// A design of chained narrow operations with one named internal value and a select of
/// `cases` inputs.
fn chain(cases: usize) -> Design {
    Design::build("chain", |m| {
        let a = m.input("a", 16);
        let b = m.input("b", 16);
        let idx = m.input("idx", 6);
        let mixed = ((a + b) ^ a.slice(3, 13).zext(16)).named("mixed");
        let lanes: Vec<_> = (0..cases).map(|k| mixed + k as u64).collect();
        let picked = rendergen_hdl::select(idx, &lanes, b);
        m.output("y", (picked & 0xfffu64) | a.slice(4, 8).zext(16));
    })
    .unwrap()
}

/// Values written and read in one function are local array elements (`t[k]`), never stored;
/// with `Observe::Signals` every named signal is still written to its place in the value
/// array (where `peek_signal` and the VCD read it), with `Observe::Ports` it may be a local.
#[test]
fn internal_values_are_locals_and_named_signals_stay_in_the_array() {
    use super::{generate_from, Observe};
    let d = chain(4);
    let sim = crate::Simulator::new(&d).unwrap();
    let signals = generate_from(&sim, Observe::Signals);
    let ports = generate_from(&sim, Observe::Ports);
    assert!(
        signals.source.contains("let mut t = [0u64; "),
        "{}",
        signals.source
    );
    let stores = |src: &str| src.matches("    v[").count();
    assert!(
        stores(&ports.source) < stores(&signals.source),
        "a named value is stored only when it is observed"
    );
    let (prog, ..) = sim.compiled();
    let mut written = vec![false; ports.places];
    for ins in &prog.main {
        crate::engine::layout::dests(prog, ins, &mut |s, n| written[s..s + n].fill(true));
    }
    assert!(sim.signal_places().any(|(p, _)| written[p as usize]));
    for (place, w) in sim.signal_places() {
        assert!(w <= 64);
        let store = format!("v[{place}] = ");
        assert!(
            signals.source.contains(&store) || !written[place as usize],
            "named signal at place {place} is not stored:\n{}",
            signals.source
        );
    }
    // The select of four values is a chain of conditional moves, not a jump table.
    assert!(signals.source.contains("x = sel((i == 3) as u64, "));
    assert!(signals.source.contains("x = sel((i == 0) as u64, "));
    assert!(!signals.source.contains("= match "), "{}", signals.source);
    // Forty cases: a `match`.
    let many = generate_from(&crate::Simulator::new(&chain(40)).unwrap(), Observe::Ports);
    assert!(many.source.contains("= match "));
}

/// A concatenation chain (built in place in one place of the value array by the
/// interpreter's program) read only inside its function is a local: no statement of the
/// generated code loads the place it writes.
#[test]
fn concatenation_chains_are_locals() {
    use super::{generate_from, Observe};
    let d = Design::build("gather", |m| {
        let a = m.input("a", 32);
        let b = m.input("b", 32);
        let g = rendergen_hdl::cat(&[a.bit(30), b.slice(3, 2), a.bit(7), b.bit(19), a.bit(1)]);
        m.output("y", g + b.slice(8, 6));
    })
    .unwrap();
    let sim = crate::Simulator::new(&d).unwrap();
    let ports = generate_from(&sim, Observe::Ports);
    assert!(
        ports.source.contains(") | t["),
        "a concatenation step:\n{}",
        ports.source
    );
    for line in ports.source.lines().map(str::trim) {
        if let Some((dst, expr)) = line.split_once(" = ") {
            if dst.starts_with("v[") && !dst.contains("..") {
                assert!(!expr.contains(dst), "built in the value array: {line}");
            }
        }
    }
}
