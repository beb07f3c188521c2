//! Reads a dump back with the `vcd` crate: scopes, variable names and values over many cycles of
//! a small hierarchical design.

use crate::engine::tests::hier::two_counters;
use crate::engine::Simulator;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::rc::Rc;

/// A writer whose bytes the test can read after the simulator drops it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn value(v: &vcd::Vector) -> u64 {
    v.iter()
        .fold(0, |acc, b| (acc << 1) | (b == vcd::Value::V1) as u64)
}

#[test]
fn dump_reads_back_with_hierarchy_names_and_values() {
    let mut sim = Simulator::new(&two_counters()).unwrap();
    let buf = Shared::default();
    sim.trace_vcd(buf.clone()).unwrap();
    let go = sim.input("go").unwrap();
    let count_a = sim.signal("top.u_a.count_q").unwrap();
    let count_b = sim.signal("top.u_b.count_q").unwrap();
    // Expected values of each cycle, as the simulator shows them before each edge.
    let mut expected = Vec::new();
    sim.set_reset(true);
    for c in 0..40u64 {
        if c == 2 {
            sim.set_reset(false);
        }
        sim.poke(go, (c % 3 != 0) as u64);
        let a = sim.peek_signal(count_a).to_u64();
        let b = sim.peek_signal(count_b).to_u64();
        expected.push((c < 2, (c % 3 != 0) as u64, a, b));
        sim.step();
    }
    sim.finish_vcd().unwrap();
    let text = buf.0.borrow().clone();

    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    assert_eq!(header.timescale, Some((1, vcd::TimescaleUnit::NS)));
    for path in [
        &["top", "clk_i"][..],
        &["top", "rst_i"],
        &["top", "go_i"],
        &["top", "low_o"],
        &["top", "debug_xor"],
        &["top", "u_a", "en_i"],
        &["top", "u_a", "count_q"],
        &["top", "u_a", "value_o"],
        &["top", "u_a", "at_max"],
        &["top", "u_b", "count_q"],
    ] {
        assert!(header.find_var(path).is_some(), "no variable {path:?}");
    }
    assert_eq!(header.find_var(&["top", "u_a", "count_q"]).unwrap().size, 4);
    let code = |p: &[&str]| header.find_var(p).unwrap().code;
    let (clk, rst, go_c) = (
        code(&["top", "clk_i"]),
        code(&["top", "rst_i"]),
        code(&["top", "go_i"]),
    );
    let (ca, cb) = (
        code(&["top", "u_a", "count_q"]),
        code(&["top", "u_b", "count_q"]),
    );

    let mut now: HashMap<vcd::IdCode, u64> = HashMap::new();
    let mut samples = Vec::new();
    let mut time = 0;
    let mut flush = |time: u64, now: &HashMap<vcd::IdCode, u64>| {
        if time.is_multiple_of(10) && !now.is_empty() {
            samples.push((time, now[&clk], now[&rst], now[&go_c], now[&ca], now[&cb]));
        }
    };
    for cmd in parser {
        match cmd.unwrap() {
            vcd::Command::Timestamp(t) => {
                flush(time, &now);
                time = t;
            }
            vcd::Command::ChangeScalar(i, v) => {
                now.insert(i, (v == vcd::Value::V1) as u64);
            }
            vcd::Command::ChangeVector(i, v) => {
                now.insert(i, value(&v));
            }
            _ => {}
        }
    }
    flush(time, &now);
    assert_eq!(
        samples.len(),
        41,
        "one sample per cycle plus the final state"
    );
    for (c, (e, s)) in expected.iter().zip(&samples).enumerate() {
        let (rst_e, go_e, a_e, b_e) = *e;
        assert_eq!(
            *s,
            (c as u64 * 10, 1, rst_e as u64, go_e, a_e, b_e),
            "cycle {c}"
        );
    }
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("#15\n0!"), "clock falls at 5 past each edge");
}

#[test]
fn tracing_off_writes_nothing_and_finish_is_a_no_op() {
    let mut sim = Simulator::new(&two_counters()).unwrap();
    sim.run(10);
    sim.finish_vcd().unwrap();
}

/// A filtered dump keeps only the chosen scope's signals and the window's cycles, and its
/// values there are those of the full dump.
#[test]
fn filtered_dump_keeps_one_scope_and_a_window() {
    use crate::vcd::VcdFilter;
    let run = |filter: &VcdFilter| {
        let mut sim = Simulator::new(&two_counters()).unwrap();
        let buf = Shared::default();
        sim.trace_vcd_filtered(buf.clone(), filter).unwrap();
        let go = sim.input("go").unwrap();
        sim.reset(2);
        for c in 0..40u64 {
            sim.poke(go, (c % 3 != 0) as u64);
            sim.step();
        }
        sim.finish_vcd().unwrap();
        let text = buf.0.borrow().clone();
        text
    };
    let filter = VcdFilter {
        scopes: vec!["u_b".into()],
        window: Some((10, 19)),
    };
    let text = run(&filter);
    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    assert!(header.find_var(&["top", "u_b", "count_q"]).is_some());
    assert!(header.find_var(&["top", "u_a", "count_q"]).is_none());
    assert!(
        header.find_scope(&["top", "u_a"]).is_none(),
        "empty scope left out"
    );
    let times: Vec<u64> = (parser.filter_map(|c| match c.unwrap() {
        vcd::Command::Timestamp(t) => Some(t),
        _ => None,
    }))
    .collect();
    assert_eq!(times.first(), Some(&100));
    assert_eq!(times.last(), Some(&195));
    let full = String::from_utf8(run(&VcdFilter::default())).unwrap();
    assert!(
        full.len() > 2 * text.len(),
        "{} vs {}",
        full.len(),
        text.len()
    );
}

/// A register holding a hardware enum gets a `<name>_state` string variable beside its value,
/// showing the variant names (GTKWave's string extension of VCD).
#[test]
fn enum_registers_show_state_names() {
    use rendergen_hdl::{Design, HwEnum};
    #[derive(Clone, Copy, Debug, PartialEq, Eq, HwEnum)]
    enum Phase {
        Idle,
        Busy,
        Done,
    }
    let design = Design::build("fsm", |m| {
        let go = m.input("go", 1);
        let phase = m.enum_reg("phase", Phase::Idle);
        let (idle, busy) = (m.enum_const(Phase::Idle), m.enum_const(Phase::Busy));
        let done = m.enum_const(Phase::Done);
        let next = go.mux(
            phase
                .q()
                .eq(idle)
                .mux(busy, phase.q().eq(busy).mux(done, idle)),
            phase.q(),
        );
        phase.next(next);
        m.output("state", phase.q());
    })
    .unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let buf = Shared::default();
    sim.trace_vcd(buf.clone()).unwrap();
    let go = sim.input("go").unwrap();
    sim.reset(1);
    sim.poke(go, 1);
    sim.run(4);
    sim.finish_vcd().unwrap();
    let text = String::from_utf8(buf.0.borrow().clone()).unwrap();
    assert!(
        text.contains("$var string 1 ") && text.contains(" phase_state $end"),
        "{text}"
    );
    let code = (text.lines())
        .find_map(|l| {
            l.strip_suffix(" phase_state $end")?
                .strip_prefix("$var string 1 ")
        })
        .unwrap();
    let states: Vec<&str> = (text.lines().filter_map(|l| l.strip_prefix('s')))
        .filter_map(|l| l.strip_suffix(&format!(" {code}")))
        .collect();
    assert_eq!(states, ["Idle", "Busy", "Done", "Idle", "Busy"], "{text}");
}
