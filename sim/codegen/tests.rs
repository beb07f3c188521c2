//! Generation tests that need no `rustc` (the compiled backend is checked against the
//! interpreter by `rendergen-gen`'s bench tests, which build and run the generated code).

use super::generate;
use rendergen_hdl::bits::words_for;
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

/// Builds the generated code of `d` under `eval` with `rustc` and runs it on `stim` (per
/// cycle: reset, then every input word in declaration order). Returns every output word of
/// every cycle (settled, before the edge) and, for activity-aware code, the groups evaluated.
fn run_generated(d: &Design, eval: crate::Eval, stim: &[Vec<u64>], name: &str) -> (Vec<u64>, u64) {
    run_split(d, eval, stim, name, None)
}

/// [`run_generated`] with full evaluation split into functions of at most `split` statements.
fn run_split(
    d: &Design,
    eval: crate::Eval,
    stim: &[Vec<u64>],
    name: &str,
    split: Option<usize>,
) -> (Vec<u64>, u64) {
    use std::fmt::Write;
    let g = match split {
        None => super::generate_observing(d, eval, super::Observe::Ports),
        Some(n) => super::generate_split(d, eval, super::Observe::Ports, n),
    }
    .unwrap();
    let words: Vec<String> = stim.iter().flatten().map(|x| format!("{x:#x}")).collect();
    let per = stim[0].len();
    let mut body = String::new();
    let mut k = 1;
    for p in &g.inputs {
        for w in 0..words_for(p.width) {
            writeln!(body, "        v[{}] = s[{k}];", p.place + w).unwrap();
            k += 1;
        }
    }
    body.push_str("        design::settle(&mut v, &mem);\n");
    for p in &g.outputs {
        for w in 0..words_for(p.width) {
            writeln!(body, "        println!(\"{{}}\", v[{}]);", p.place + w).unwrap();
        }
    }
    body.push_str("        design::edge(&mut v, &mut mem, s[0] != 0);\n");
    let evals = match g.source.contains("pub const EVALS") {
        true => "    println!(\"{}\", v[design::EVALS]);\n",
        false => "    println!(\"0\");\n",
    };
    let main = format!(
        "mod design;\nstatic STIM: [u64; {}] = [{}];\nfn main() {{\n\
         \x20   let (mut v, mut mem) = design::new_state();\n\
         \x20   for s in STIM.chunks({per}) {{\n{body}    }}\n{evals}}}\n",
        words.len(),
        words.join(", ")
    );
    let dir = std::env::temp_dir().join(format!(
        "rendergen-codegen-{name}-{}-{:x}",
        std::process::id(),
        super::fingerprint(&main) ^ g.fingerprint
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("design.rs"), &g.source).unwrap();
    std::fs::write(dir.join("main.rs"), &main).unwrap();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(rustc)
        .args([
            "-C",
            "opt-level=1",
            "--edition",
            "2021",
            "-o",
            "sim",
            "main.rs",
        ])
        .current_dir(&dir)
        .output()
        .expect("rustc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = std::process::Command::new(dir.join("sim"))
        .output()
        .unwrap();
    assert!(run.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    let mut vals: Vec<u64> = (String::from_utf8(run.stdout).unwrap().lines())
        .map(|l| l.parse().unwrap())
        .collect();
    let evals = vals.pop().unwrap();
    (vals, evals)
}

/// Registers of every kind the edge loads only when their operands' groups ran (next value
/// from an input, a constant read by an output and by a group, enable and next value from two cones, 130 bits with enable, a
/// staged chain, a swap, one that changes only on reset), a memory written under a register's
/// enable and read combinationally and synchronously; sparse inputs, idle stretches and a
/// reset in the middle.
fn edge_design() -> Design {
    Design::build("edge", |m| {
        let x = m.input("x", 16);
        let y = m.input("y", 16);
        let from_input = m.reg("from_input", 16).reset(3);
        from_input.next(x);
        let constant = m.reg("constant", 8).reset(5);
        constant.next(m.lit(9, 8));
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
        let held = m.reg("held", 70).reset(0x8000_0000_0000_0001u64);
        held.next_when(m.lit(0, 1), held.q() + 1);
        let we = m.reg("we", 1).reset(0);
        we.next(en);
        let mem = m.memory("mem", 16, 8);
        mem.write(we.q(), x.slice(0, 3), dv);
        let rd = mem.read_comb(y.slice(0, 3));
        let sync = mem.read_sync(x.slice(4, 3), Some(ev.bit(5)));
        m.output("from_input", from_input.q());
        m.output("constant", constant.q());
        m.output("constant_mix", constant.q() ^ y.slice(0, 8));
        m.output("enabled", enabled.q());
        m.output("enabled_sq", enabled.q() * enabled.q());
        m.output("wide", wide.q());
        m.output("s3", s3.q() ^ s1.q());
        m.output("ab", rendergen_hdl::cat(&[a.q(), b.q()]));
        m.output("held", held.q());
        m.output("rd", rd + sync);
        m.output("en", en);
    })
    .expect("elaborates")
}

/// Activity-aware generated code loads at the edge only the registers of the groups that ran
/// and wakes the readers of those that changed (`wake`): every output of every cycle equals
/// full evaluation's (interpreter), and it evaluates exactly the interpreter's groups (whose
/// edge follows the same rule).
#[test]
fn compiled_edge_wakes_only_changed_registers() {
    let d = edge_design();
    let g = super::generate_with(&d, crate::Eval::Active).unwrap();
    assert!(
        g.source.contains("fn registers("),
        "the edge-driven scheme is used"
    );
    let mut full = crate::Simulator::new(&d).unwrap();
    let mut act = crate::Simulator::with_eval(&d, crate::Eval::Active).unwrap();
    assert!(act.activity().groups > 4, "{:?}", act.activity());
    let mut rng = crate::kit::Rng::new(41);
    let (mut xv, mut yv) = (0u64, 0u64);
    let mut stim = Vec::new();
    let mut want = Vec::new();
    for c in 0..500u64 {
        let rst = c < 2 || (150..152).contains(&c) || c == 400;
        if (c / 30) % 2 == 0 {
            if rng.next_u64().is_multiple_of(4) {
                xv = rng.next_u64() & 0xffff;
            }
            if rng.next_u64().is_multiple_of(4) {
                yv = rng.next_u64() & 0xffff;
            }
        }
        stim.push(vec![rst as u64, xv, yv]);
        for s in [&mut full, &mut act] {
            s.set_reset(rst);
            s.poke(s.input_at(0), xv);
            s.poke(s.input_at(1), yv);
        }
        for o in 0..full.outputs().len() {
            let f = full.peek_words(full.output_at(o)).to_vec();
            assert_eq!(f, act.peek_words(act.output_at(o)), "cycle {c}");
            want.extend(f);
        }
        full.step();
        act.step();
    }
    let (got, evals) = run_generated(&d, crate::Eval::Active, &stim, "wake");
    let per = want.len() / stim.len();
    for (c, (w, g)) in want.chunks(per).zip(got.chunks(per)).enumerate() {
        assert_eq!(w, g, "cycle {c}: outputs of the compiled active code");
    }
    assert_eq!(got.len(), want.len());
    assert_eq!(evals, act.activity().evaluated, "groups evaluated");
    assert!(
        evals < 500 * act.activity().groups as u64 / 2,
        "{evals} groups evaluated"
    );
    let (full_out, _) = run_generated(&d, crate::Eval::Full, &stim, "wake_full");
    assert_eq!(full_out, want, "compiled full evaluation");
    // The same statements split into functions of at most 3 (the fuzzer's builds split at
    // 1,000): values that now cross a function boundary go through the value array.
    let split = super::generate_split(&d, crate::Eval::Full, super::Observe::Ports, 3).unwrap();
    let whole = super::generate_observing(&d, crate::Eval::Full, super::Observe::Ports).unwrap();
    let fns = |src: &str| src.matches("\nfn settle_").count();
    assert!(
        fns(&split.source) > fns(&whole.source) + 3,
        "split into more functions: {} vs {}",
        fns(&split.source),
        fns(&whole.source)
    );
    let (split_out, _) = run_split(&d, crate::Eval::Full, &stim, "wake_split", Some(3));
    assert_eq!(
        split_out, want,
        "compiled full evaluation in functions of 3 statements"
    );
}

/// Under the edge-driven scheme the settle compares only the sources that are not registers
/// (here the two inputs and the synchronous read data): the register outputs are not in the
/// source runs.
#[test]
fn active_settle_compares_no_register_outputs() {
    let d = edge_design();
    let g = super::generate_with(&d, crate::Eval::Active).unwrap();
    let runs = g.source.split("static SRUNS").nth(1).unwrap();
    let runs = &runs[runs.find("= [").unwrap() + 3..runs.find("];").unwrap()];
    let words: u32 = (runs.split("), (").filter(|r| !r.is_empty()))
        .map(|r| {
            let f: Vec<&str> = r
                .trim_matches(|c| c == '(' || c == ')')
                .split(", ")
                .collect();
            f[2].parse::<u32>().unwrap()
        })
        .sum();
    assert!(
        words <= 3,
        "source words compared per settle: {words} in {runs}"
    );
}
