//! Hierarchy, named signals and error messages.

use crate::engine::{SimError, Simulator};
use rendergen_hdl::{Design, Module};

/// A counter with enable, as a child generator.
fn counter(m: &mut Module) {
    let en = m.input("en", 1);
    let count = m.reg("count", 4).reset(0);
    count.next_when(en, count.q() + 1);
    let wrapped = count.q().eq(15u64).named("at_max");
    m.output("value", count.q());
    m.output("max", wrapped);
}

pub fn two_counters() -> Design {
    Design::build("top", |m| {
        let go = m.input("go", 1);
        let a = m.instance("u_a", "counter", &(), counter);
        a.connect("en", go);
        let b = m.instance("u_b", "counter", &(), counter);
        b.connect("en", a.output("max"));
        let debug = (a.output("value") ^ b.output("value")).named("debug_xor");
        let _ = debug;
        m.output("low", a.output("value"));
        m.output("high", b.output("value"));
    })
    .unwrap()
}

#[test]
fn instances_and_named_signals() {
    let mut s = Simulator::new(&two_counters()).unwrap();
    let go = s.input("go").unwrap();
    let (lo, hi) = (s.output("low").unwrap(), s.output("high").unwrap());
    let count_b = s.signal("top.u_b.count_q").unwrap();
    let en_b = s.signal("top.u_b.en_i").unwrap();
    let dbg = s.signal("top.debug_xor").unwrap();
    s.reset(1);
    s.poke(go, 1);
    s.run(16 * 3 + 2);
    assert_eq!((s.peek(lo), s.peek(hi)), (2, 3));
    assert_eq!(s.peek_signal(count_b).to_u64(), 3);
    assert_eq!(s.peek_signal(en_b).to_u64(), 0);
    assert_eq!(
        s.peek_signal(dbg).to_u64(),
        2 ^ 3,
        "observation-only signal"
    );
    assert!(s.node_count() > 10);
}

#[test]
fn unknown_names_list_the_valid_choices() {
    let s = Simulator::new(&two_counters()).unwrap();
    let e = s.input("stop").unwrap_err();
    assert_eq!(
        e,
        SimError::UnknownPort {
            name: "stop".into(),
            valid: vec!["go".into()]
        }
    );
    assert!(e.to_string().contains("valid choices: go"), "{e}");
    let e = s.signal("top.u_b.cnt_q").unwrap_err().to_string();
    assert!(
        e.contains("top.u_b.count_q") && e.contains("top.u_b.value_o"),
        "{e}"
    );
    let e = s.signal("top.u_c.count_q").unwrap_err().to_string();
    assert!(e.contains("top.u_a."), "{e}");
}
