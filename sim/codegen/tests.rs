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
