//! Helpers that replicate a bit build one node, not a concatenation of `width` parts: the
//! simulator evaluates a concatenation part by part every cycle, and a 256-bit one-hot
//! multiplexer built that way once cost the PBRU top 42k concatenation parts per cycle.

use rendergen_hdl::ir::{Design, Op};
use rendergen_hdl::onehot_mux;

/// Parts of every concatenation in the design.
fn concat_parts(d: &Design) -> usize {
    (d.modules.iter().flat_map(|md| &md.nodes))
        .map(|n| match &n.op {
            Op::Concat(parts) => parts.len(),
            _ => 0,
        })
        .sum()
}

#[test]
fn onehot_mux_of_wide_values_builds_no_wide_concatenation() {
    let d = Design::build("ohm", |m| {
        let sel = m.input("sel", 4);
        let vals: Vec<_> = (0..4).map(|i| m.input(&format!("v{i}"), 256)).collect();
        m.output("y", onehot_mux(sel, &vals));
    })
    .unwrap();
    let parts = concat_parts(&d);
    assert!(
        parts < 16,
        "{parts} concatenation parts for a 4-lane 256-bit one-hot mux"
    );
}

#[test]
fn repeat_of_one_bit_builds_no_concatenation() {
    let d = Design::build("rep", |m| {
        let b = m.input("b", 1);
        m.output("y", b.repeat(300));
    })
    .unwrap();
    assert_eq!(concat_parts(&d), 0);
}
