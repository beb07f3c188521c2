//! Hierarchy, named signals and error messages.

use crate::engine::{Eval, SimError, Simulator};
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

/// Internal signals watched every cycle with `peek_signal_words` (no allocation), in both
/// evaluation modes and right after a poke: signals that feed an output or state are read
/// from the main program's values, the observation-only one from the observation program.
#[test]
fn peeking_signals_every_cycle() {
    for eval in [Eval::Full, Eval::Active] {
        let mut s = Simulator::with_eval(&two_counters(), eval).unwrap();
        let go = s.input("go").unwrap();
        let (lo, hi) = (s.output("low").unwrap(), s.output("high").unwrap());
        let en_b = s.signal("top.u_b.en_i").unwrap();
        let at_max = s.signal("top.u_a.at_max").unwrap();
        let dbg = s.signal("top.debug_xor").unwrap();
        let count_b = s.signal("top.u_b.count_q").unwrap();
        assert!(s.signal_is_observation_only(dbg), "{eval:?}");
        for main in [en_b, at_max, count_b] {
            assert!(!s.signal_is_observation_only(main), "{eval:?}");
        }
        s.reset(1);
        let mut rng = 0x1234_5678u64;
        for cycle in 0..200 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.poke(go, rng >> 63);
            let (a, b) = (s.peek(lo), s.peek(hi));
            let wrap = u64::from(a == 15);
            assert_eq!(
                s.peek_signal_words(at_max),
                [wrap],
                "{eval:?} cycle {cycle}"
            );
            assert_eq!(s.peek_signal_words(en_b), [wrap], "{eval:?} cycle {cycle}");
            assert_eq!(s.peek_signal_words(count_b), [b], "{eval:?} cycle {cycle}");
            assert_eq!(s.peek_signal_words(dbg), [a ^ b], "{eval:?} cycle {cycle}");
            assert_eq!(s.peek_signal(dbg).to_u64(), a ^ b);
            s.step();
        }
    }
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
