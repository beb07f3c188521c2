//! Activity-aware evaluation (`Eval::Active`) against full evaluation, on the cases where
//! skipping could go wrong: memories written under a register's enable and read
//! combinationally, registers that change only on reset, wide values, idle stretches.

use crate::engine::{Eval, Simulator};
use rendergen_hdl::Design;

fn design() -> Design {
    Design::build("act", |m| {
        let x = m.input("x", 8);
        let addr = m.input("addr", 3);
        let go = m.input("go", 1);
        // The write enable is a register: at the edge it is the old value (the settle before the
        // edge), while after the edge its place already holds the new one.
        let we = m.reg("we", 1).reset(0);
        we.next(go);
        let mem = m.memory("mem", 8, 8);
        mem.write(we.q(), addr, x);
        let rd = mem.read_comb(addr);
        // Changes only on reset (an enable that is constant 0 leaves only the reset).
        let held = m.reg("held", 70).reset(0x8000_0000_0000_0001);
        let never = m.lit(0, 1);
        held.next_when(never, held.q() + 1);
        let wide = m.reg("wide", 130).reset(1);
        wide.next_when(go, (wide.q() << 3) ^ x.zext(130));
        let acc = m.reg("acc", 16).reset(0);
        acc.next(acc.q() + rd.zext(16));
        // Eight independent cones, each several groups' worth of operations.
        for i in 0..8 {
            let mut v = m.input(&format!("lane{i}"), 16);
            for k in 0..12u64 {
                v = (v * (2 * k + 3)) ^ (v >> 3) ^ m.lit(k, 16);
            }
            m.output(&format!("lane{i}_out"), v);
        }
        m.output("rd", rd);
        m.output("held", held.q());
        m.output("wide", wide.q());
        m.output("acc", acc.q());
    })
    .expect("elaborates")
}

#[test]
fn active_evaluation_matches_full_evaluation_and_skips_idle_logic() {
    let d = design();
    let mut full = Simulator::new(&d).unwrap();
    let mut act = Simulator::with_eval(&d, Eval::Active).unwrap();
    assert_eq!(act.eval_mode(), Eval::Active);
    assert!(act.activity().groups >= 1);
    let names: Vec<String> = full.inputs().iter().map(|p| p.name.clone()).collect();
    let ids: Vec<_> = (names.iter())
        .map(|n| (full.input(n).unwrap(), act.input(n).unwrap()))
        .collect();
    let mut rng = crate::kit::Rng::new(5);
    for c in 0..400u64 {
        let rst = c < 2 || c == 200;
        full.set_reset(rst);
        act.set_reset(rst);
        // Bursts of activity on every input, then stretches where only `lane0` changes.
        let busy = (c / 20) % 2 == 0;
        for (&(f, a), name) in ids.iter().zip(&names) {
            if busy || name == "lane0" {
                let v = rng.next_u64();
                full.poke(f, v);
                act.poke(a, v);
            }
        }
        for o in 0..full.outputs().len() {
            let (fo, ao) = (full.output_at(o), act.output_at(o));
            assert_eq!(
                full.peek_words(fo).to_vec(),
                act.peek_words(ao).to_vec(),
                "cycle {c}: output {}",
                full.outputs()[o].name
            );
        }
        full.step();
        act.step();
    }
    let st = act.activity();
    assert!(st.settles >= 400, "{st:?}");
    // Half the cycles have one lane of eight changing: well under the full count (measured:
    // 2,406 of 4,000 group evaluations).
    assert!(
        st.evaluated * 4 < st.settles * st.groups as u64 * 3,
        "idle cycles skip groups: {st:?}"
    );
    assert_eq!(full.activity().groups, 0, "full evaluation has no groups");
}

/// 120 one-word registers, each feeding a cone of its own: neighbouring plain registers are
/// loaded as one block copy, but each is watched alone, so a change of one register wakes only
/// its own cone (and the flags span several 64-group words).
#[test]
fn a_register_change_wakes_only_its_readers() {
    const LANES: usize = 120;
    let d = Design::build("regs", |m| {
        for i in 0..LANES {
            let x = m.input(&format!("x{i}"), 16);
            let r = m.reg(&format!("r{i}"), 16).reset(0);
            r.next(x);
            let mut v = r.q();
            for k in 0..12u64 {
                v = (v * (2 * k + 3)) ^ (v >> 3) ^ m.lit(k, 16);
            }
            m.output(&format!("y{i}"), v);
        }
    })
    .expect("elaborates");
    let mut full = Simulator::new(&d).unwrap();
    let mut act = Simulator::with_eval(&d, Eval::Active).unwrap();
    let groups = act.activity().groups as u64;
    assert!(groups > 64, "{groups} groups: more than one flag word");
    let mut rng = crate::kit::Rng::new(11);
    let mut idle_evaluated = 0;
    for c in 0..200u64 {
        full.set_reset(c < 2);
        act.set_reset(c < 2);
        // Every input changes in the first 100 cycles; afterwards only lane `c % LANES`.
        for i in 0..LANES {
            if c < 100 || i == c as usize % LANES {
                let v = rng.next_u64();
                full.poke(full.input_at(i), v);
                act.poke(act.input_at(i), v);
            }
        }
        let before = act.activity().evaluated;
        for o in 0..LANES {
            assert_eq!(
                full.peek_words(full.output_at(o)).to_vec(),
                act.peek_words(act.output_at(o)).to_vec(),
                "cycle {c}: output y{o}"
            );
        }
        if c > 102 {
            idle_evaluated += act.activity().evaluated - before;
        }
        full.step();
        act.step();
    }
    // One register changes per idle cycle (the lane poked in the cycle before): its cone,
    // one or two groups of the whole.
    let per_cycle = idle_evaluated as f64 / 97.0;
    assert!(
        per_cycle * 10.0 < groups as f64,
        "{per_cycle:.1} of {groups} groups per idle cycle"
    );
}

/// The interpreter's active edge (`engine/reg_wake.rs`) loads only the registers of groups
/// that ran: every shape of register it must still get right, against full evaluation, with
/// sparse inputs, idle stretches and a reset in the middle of the run.
#[test]
fn registers_load_at_the_edge_only_when_their_operands_ran() {
    let d = Design::build("edge", |m| {
        let x = m.input("x", 16);
        let y = m.input("y", 16);
        // Next value straight from an input, and a constant one (no group writes them).
        let from_input = m.reg("from_input", 16).reset(3);
        from_input.next(x);
        let constant = m.reg("constant", 8).reset(5);
        constant.next(m.lit(9, 8));
        // Enable and next value from two cones of several groups each (built one after the
        // other: groups follow the netlist's order, so the cones share no group).
        let mut dv = x;
        for k in 0..40u64 {
            dv = (dv * (2 * k + 1)) ^ (dv >> 5) ^ m.lit(k, 16);
        }
        let mut ev = y;
        for k in 0..40u64 {
            ev = (ev + m.lit(k, 16)) ^ (ev << 1);
        }
        let en = ev.bit(3);
        let enabled = m.reg("enabled", 16).reset(0);
        enabled.next_when(en, dv);
        let wide = m.reg("wide", 130).reset(1);
        wide.next_when(en, rendergen_hdl::cat(&[dv, ev, dv.zext(98)]));
        // A shift chain (staged next values) and a swap that changes every cycle.
        let s1 = m.reg("s1", 16).reset(0);
        let s2 = m.reg("s2", 16).reset(0);
        let s3 = m.reg("s3", 16).reset(0);
        s1.next(dv);
        s2.next(s1.q());
        s3.next(s2.q());
        let a = m.reg("a", 4).reset(1);
        let b = m.reg("b", 4).reset(2);
        a.next(b.q());
        b.next(a.q());
        m.output("from_input", from_input.q());
        m.output("constant", constant.q());
        m.output("enabled", enabled.q());
        m.output("enabled_sq", enabled.q() * enabled.q());
        m.output("wide", wide.q());
        m.output("s3", s3.q() ^ s1.q());
        m.output("ab", rendergen_hdl::cat(&[a.q(), b.q()]));
        m.output("en", en);
    })
    .expect("elaborates");
    let mut full = Simulator::new(&d).unwrap();
    let mut act = Simulator::with_eval(&d, Eval::Active).unwrap();
    assert!(act.activity().groups > 4, "{:?}", act.activity());
    let mut rng = crate::kit::Rng::new(23);
    for c in 0..400u64 {
        let rst = c < 2 || (150..152).contains(&c);
        full.set_reset(rst);
        act.set_reset(rst);
        // Stretches of 30 idle cycles; otherwise each input changes one cycle in four.
        if (c / 30) % 2 == 0 {
            for i in 0..2 {
                if rng.next_u64().is_multiple_of(4) {
                    let v = rng.next_u64();
                    full.poke(full.input_at(i), v);
                    act.poke(act.input_at(i), v);
                }
            }
        }
        for o in 0..full.outputs().len() {
            assert_eq!(
                full.peek_words(full.output_at(o)).to_vec(),
                act.peek_words(act.output_at(o)).to_vec(),
                "cycle {c}: output {}",
                full.outputs()[o].name
            );
        }
        full.step();
        act.step();
    }
    // The enable's cone alone changes: the next value changed while the enable was low, then
    // the enable rises with the next value's cone idle. The register must still load.
    let (x, y) = (full.input_at(0), full.input_at(1));
    let en_out = full.output_at(full.outputs().len() - 1);
    let with_enable = |want: u64, from: u64, full: &mut Simulator, act: &mut Simulator| {
        let v = (from..).find(|&v| {
            full.poke(y, v);
            full.peek(en_out) == want
        });
        let v = v.expect("some input gives each enable value");
        act.poke(y, v);
        v + 1
    };
    let mut next = 0;
    for round in 0..20u64 {
        next = with_enable(0, next, &mut full, &mut act);
        full.poke(x, round * 7919);
        act.poke(x, round * 7919);
        full.step();
        act.step();
        next = with_enable(1, next, &mut full, &mut act);
        full.step();
        act.step();
        for o in 0..full.outputs().len() {
            assert_eq!(
                full.peek_words(full.output_at(o)).to_vec(),
                act.peek_words(act.output_at(o)).to_vec(),
                "enable round {round}: output {}",
                full.outputs()[o].name
            );
        }
    }
}

/// A register whose enable is computed in another group than its next value must be loaded
/// when only the enable's group ran (`engine/reg_wake.rs` lists it under both groups). The
/// next value's cone reads `x` alone, the enable's reads `y` alone, and a cone on `z` of a few
/// groups is built between them, so that no group holds instructions of both; the rounds then
/// change `x` with the enable low, and afterwards `y` alone to raise it: the edge must load the
/// value computed a cycle earlier by a group that did not run since.
#[test]
fn an_enable_from_another_group_loads_its_register() {
    use crate::engine::program::NONE;
    let d = Design::build("en_group", |m| {
        let x = m.input("x", 16);
        let z = m.input("z", 16);
        let y = m.input("y", 16);
        let mut dv = x;
        for k in 0..40u64 {
            dv = (dv * (2 * k + 1)) ^ (dv >> 5) ^ m.lit(k, 16);
        }
        let mut sep = z;
        for k in 0..40u64 {
            sep = (sep * (2 * k + 5)) ^ (sep >> 7) ^ m.lit(3 * k, 16);
        }
        let mut ev = y;
        for k in 0..40u64 {
            ev = (ev + m.lit(k, 16)) ^ (ev << 1);
        }
        let en = ev.bit(3);
        let r = m.reg("r", 16).reset(0);
        r.next_when(en, dv);
        m.output("r", r.q());
        m.output("sep", sep);
        m.output("en", en);
    })
    .expect("elaborates");
    let mut full = Simulator::new(&d).unwrap();
    let mut act = Simulator::with_eval(&d, Eval::Active).unwrap();
    // The design does what this test is about: the one register with an enable is listed
    // under two groups (its next value's and its enable's), not visited at every edge.
    {
        let wake = &act.compiled().0.activity.as_ref().expect("active").wake;
        let always = wake.always as usize;
        let listed = wake.regs[..always].iter().filter(|e| e.en != NONE).count();
        let every_edge = wake.regs[always..].iter().filter(|e| e.en != NONE).count();
        assert_eq!(
            (listed, every_edge),
            (2, 0),
            "the enabled register is listed under two groups"
        );
    }
    let [x, z, y] = [0, 1, 2].map(|i| full.input_at(i));
    let en_out = full.output_at(2);
    let poke = |full: &mut Simulator, act: &mut Simulator, p, v| {
        full.poke(p, v);
        act.poke(p, v);
    };
    // The first `y` from `from` on that gives enable `want` (searched on full evaluation).
    let enable_value = |full: &mut Simulator, want: u64, from: u64| -> u64 {
        let v = (from..).find(|&v| {
            full.poke(y, v);
            full.peek(en_out) == want
        });
        v.expect("some input gives each enable value")
    };
    let compare = |full: &mut Simulator, act: &mut Simulator, what: &str| {
        for o in 0..full.outputs().len() {
            assert_eq!(
                full.peek_words(full.output_at(o)).to_vec(),
                act.peek_words(act.output_at(o)).to_vec(),
                "{what}: output {}",
                full.outputs()[o].name
            );
        }
    };
    full.reset(2);
    act.reset(2);
    poke(&mut full, &mut act, z, 77);
    let (mut next, mut loads) = (0, 0);
    for round in 0..20u64 {
        // The next value changes with the enable low: nothing loads.
        let v = enable_value(&mut full, 0, next);
        poke(&mut full, &mut act, y, v);
        poke(&mut full, &mut act, x, 1 + round * 7919);
        full.step();
        act.step();
        compare(&mut full, &mut act, &format!("round {round}, enable low"));
        let before = full.peek(full.output_at(0));
        // The enable alone rises: the register loads the next value computed a cycle ago.
        let v = enable_value(&mut full, 1, v + 1);
        act.poke(y, v);
        full.step();
        act.step();
        compare(&mut full, &mut act, &format!("round {round}, enable high"));
        loads += u32::from(full.peek(full.output_at(0)) != before);
        next = v + 1;
    }
    assert!(
        loads >= 15,
        "the register changed in only {loads} of 20 rounds"
    );
}
