//! The compiled backend equals the interpreter: one design with every operation at widths
//! 1, 7, 63, 64, 65, 100, 128 and 200 (operands from inputs and from constants), registers with
//! and without enable and reset, and memories with initial contents, two write ports,
//! combinational and synchronous reads and out-of-range addresses, run through the bench
//! protocol on both engines (one `rustc` build, cached).

use super::*;
use rendergen_hdl::{cat, lut_wide, select, Design, Module, Sig};

const WIDTHS: [u32; 8] = [1, 7, 63, 64, 65, 100, 128, 200];

/// A `w`-bit constant with a pattern in every word.
fn konst(m: &mut Module, w: u32, seed: u64) -> Sig {
    let mut r = SplitMix64(seed);
    let words: Vec<u64> = (0..w.div_ceil(64)).map(|_| r.next_u64()).collect();
    m.constant(Bits::from_words(&words, w))
}

fn table(w: u32, n: u64) -> Vec<Bits> {
    let mut r = SplitMix64(w as u64);
    (0..n)
        .map(|_| {
            let words: Vec<u64> = (0..w.div_ceil(64)).map(|_| r.next_u64()).collect();
            Bits::from_words(&words, w)
        })
        .collect()
}

fn ops_at(m: &mut Module, w: u32) {
    let a = m.input(&format!("a{w}"), w);
    let b = m.input(&format!("b{w}"), w);
    let s = m.input(&format!("s{w}"), 8);
    let sw_in = m.input(&format!("sw{w}"), 70);
    let sel = m.input(&format!("sel{w}"), 1);
    let idx = m.input(&format!("idx{w}"), 2);
    let li = m.input(&format!("li{w}"), 3);
    let sw = sel.mux(sw_in, s.zext(70));
    let k = konst(m, w, w as u64 * 7 + 1);
    let half = w / 2;
    let mut outs: Vec<(&str, Sig)> = vec![
        ("add", a + b),
        ("sub", a - b),
        ("mul", a * b),
        ("and", a & b),
        ("or", a | b),
        ("xor", a ^ b),
        ("not", !a),
        ("neg", -a),
        ("red_and", a.all()),
        ("red_or", a.any()),
        ("red_xor", a.parity()),
        ("shl", a.shl(s)),
        ("shr", a.shr(s)),
        ("sra", a.sra(s)),
        ("shl_w", a.shl(sw)),
        ("shr_w", a.shr(sw)),
        ("sra_w", a.sra(sw)),
        ("eq", a.eq(b)),
        ("ne", a.ne(b)),
        ("lt", a.lt(b)),
        ("le", a.le(b)),
        ("slt", a.slt(b)),
        ("sle", a.sle(b)),
        ("mux", sel.mux(a, b)),
        ("cat", cat(&[a, b])),
        ("cat3", cat(&[sel, a, sel])),
        ("rep", cat(&[sel; 9])),
        ("slice", a.slice(w / 3, w - w / 3)),
        ("msb", a.msb()),
        ("slice_mid", a.slice(half, (w - half).min(64))),
        ("zext", a.zext(w + 5)),
        ("sext", a.sext(w + 5)),
        ("sext_far", a.sext(w + 70)),
        ("select", select(idx, &[a, b, !a], b)),
        ("lut", lut_wide(li, table(w, 5), w)),
        ("add_k", a + k),
        ("mul_k", k * b),
        ("shl_k", k.shl(s)),
        ("slt_k", a.slt(k)),
        ("cat_k", cat(&[k, a])),
        ("mux_k", sel.mux(k, a)),
        ("select_k", select(idx, &[k, a], k)),
    ];
    let acc = m.reg(&format!("acc{w}"), w).reset(1);
    acc.next_when(sel, acc.q() + a);
    let free = m.reg(&format!("free{w}"), w);
    free.next(free.q() ^ b);
    let swap = m.reg(&format!("swap{w}"), w);
    swap.next(free.q());
    let mem = m.memory(&format!("mem{w}"), w, 5).init_wide(table(w, 3));
    mem.write(sel, li, a);
    mem.write(idx.bit(0), li, b);
    outs.push(("acc", acc.q()));
    outs.push(("free", free.q()));
    outs.push(("swap", swap.q()));
    outs.push(("rd_comb", mem.read_comb(cat(&[idx.bit(1), idx]))));
    outs.push(("rd_sync", mem.read_sync(li, Some(sel))));
    outs.push(("rd_sync_always", mem.read_sync(li ^ 5u64, None)));
    for (name, sig) in outs {
        m.output(&format!("{name}_{w}"), sig);
    }
}

#[test]
fn compiled_backend_matches_the_interpreter_on_every_op_and_width() {
    let d = Design::build("codegen_ops", |m| WIDTHS.iter().for_each(|w| ops_at(m, *w)))
        .expect("ops design elaborates");
    let rust = bench(&d, BenchEngine::Rust, 400, 7).unwrap();
    let compiled = bench(&d, BenchEngine::RustCompiled, 400, 7).unwrap();
    assert_eq!(rust.output_hash, compiled.output_hash);
    let again = bench(&d, BenchEngine::RustCompiled, 400, 8).unwrap();
    assert_eq!(
        bench(&d, BenchEngine::Rust, 400, 8).unwrap().output_hash,
        again.output_hash
    );
    assert_ne!(again.output_hash, compiled.output_hash);
    let active = bench(&d, BenchEngine::RustCompiledActive, 400, 7).unwrap();
    assert_eq!(
        active.output_hash, rust.output_hash,
        "compiled, activity-aware"
    );
}

/// What the printer does to small programs (values in local arrays, statements in depth-first
/// order, selects of up to 32 cases as chains of conditional moves and longer ones as a `match`) computes
/// what the interpreter computes: deep chains of narrow operations sharing values, with
/// named intermediate values, registers fed back, and selects on both sides of the limit.
#[test]
fn compiled_locals_and_selects_match_the_interpreter() {
    let d = Design::build("codegen_shapes", |m| {
        let a = m.input("a", 32);
        let b = m.input("b", 32);
        let idx = m.input("idx", 6);
        let acc = m.reg("acc", 32).reset(5);
        let mut x = (a ^ acc.q()).named("seed");
        let mut taps = Vec::new();
        for k in 0..48u64 {
            let rot = cat(&[
                x.slice(0, (k % 7 + 1) as u32),
                x.slice((k % 7 + 1) as u32, 31 - (k % 7) as u32),
            ]);
            x = a.bit((k % 32) as u32).mux(rot + b, rot ^ a);
            taps.push(x);
        }
        let few = select(idx.slice(0, 3), &taps[..5], b);
        let many = select(idx, &taps[..40], a);
        acc.next(few ^ many);
        m.output("few", few);
        m.output("many", many);
        m.output("last", x);
    })
    .expect("shapes design elaborates");
    let rust = bench(&d, BenchEngine::Rust, 300, 11).unwrap();
    for e in [BenchEngine::RustCompiled, BenchEngine::RustCompiledActive] {
        assert_eq!(
            bench(&d, e, 300, 11).unwrap().output_hash,
            rust.output_hash,
            "{e:?}"
        );
    }
}

/// A design for the code-generation rules of the `wt-comp` session: concatenation chains of
/// scattered bit fields (built in place by the interpreter's program, locals in generated
/// code), selects of 3 and 9 cases (chains of conditional moves), and registers of every
/// kind that change rarely (so activity-aware evaluation skips most groups): plain narrow
/// registers, some fed by other registers (a pipeline), one fed back; an enabled one, one
/// with reset, a wide plain one, and synchronous read data; and a bank of ten plain
/// registers loaded from neighbouring one-bit inputs (each changes every other cycle).
fn rare_changes() -> Design {
    Design::build("codegen_rare", |m| {
        let a = m.input("a", 32);
        let b = m.input("b", 32);
        let idx = m.input("idx", 4);
        // Changes about once in sixteen cycles.
        let rare = a.slice(0, 4).eq(m.lit(0, 4));
        let count = m.reg("count", 12);
        count.next(rare.mux(count.q() + 1u64, count.q()));
        let stage: Vec<_> = (0..4).map(|k| m.reg(&format!("stage{k}"), 12)).collect();
        stage[0].next(count.q());
        for k in 1..4 {
            stage[k].next(stage[k - 1].q());
        }
        let held = m.reg("held", 20).reset(9);
        held.next_when(rare & b.bit(3), b.slice(0, 20));
        let reset_only = m.reg("reset_only", 8).reset(0xa5);
        reset_only.next(rare.mux(a.slice(8, 8), reset_only.q()));
        let wide = m.reg("wide", 100);
        wide.next(rare.mux(cat(&[b, a, b, b.slice(0, 4)]), wide.q()));
        // A bank of one-bit registers loaded from neighbouring one-bit inputs; each bit
        // changes every other cycle.
        let bits: Vec<_> = (0..10).map(|k| m.input(&format!("bit{k}"), 1)).collect();
        let bank: Vec<_> = (0..10).map(|k| m.reg(&format!("bank{k}"), 1)).collect();
        bits.iter().zip(&bank).for_each(|(b, r)| r.next(*b));
        let banked: Vec<_> = bank.iter().map(|r| r.q()).collect();
        m.output("bank", cat(&banked) ^ stage[2].q().slice(0, 10));
        let ram = m.memory("ram", 12, 8);
        ram.write(rare, a.slice(4, 3), stage[3].q());
        let rd = ram.read_sync(stage[1].q().slice(0, 3), Some(rare));
        // Scattered bit fields of registers and inputs, gathered by concatenation chains.
        let q = stage[3].q();
        let gather = cat(&[
            q.bit(11),
            a.slice(17, 2),
            q.bit(2),
            held.q().slice(5, 3),
            q.bit(0),
            count.q().slice(9, 2),
            b.bit(30),
            q.slice(6, 2),
        ]);
        let again = cat(&[
            gather.slice(1, 5),
            q.bit(7),
            gather.bit(9),
            count.q().bit(4),
        ]);
        let cases: Vec<_> = (0..9u64)
            .map(|k| match k % 3 {
                0 => gather + k,
                1 => wide.q().slice(k as u32 * 7, 13),
                _ => again.zext(13) ^ k,
            })
            .collect();
        m.output("pick9", select(idx, &cases, gather));
        m.output("pick3", select(idx.slice(0, 2), &cases[..3], rd.zext(13)));
        m.output("again", again);
        m.output("held", held.q());
        m.output("reset_only", reset_only.q());
        m.output("wide", wide.q());
        m.output("rd", rd);
    })
    .expect("rare-changes design elaborates")
}

/// The compiled backend's newer rules (concatenation chains as locals, selects as
/// conditional-move chains) compute what the interpreter computes, in full and
/// activity-aware code, on a design whose registers change rarely: the output hashes agree
/// on every engine, and the compiled activity-aware code evaluates exactly the groups the
/// interpreter's does.
#[test]
fn compiled_chains_and_rare_register_changes_match_the_interpreter() {
    let d = rare_changes();
    let rust = bench(&d, BenchEngine::Rust, 600, 5).unwrap();
    let active = bench(&d, BenchEngine::RustActive, 600, 5).unwrap();
    assert_eq!(active.output_hash, rust.output_hash, "interpreter, active");
    let compiled = bench(&d, BenchEngine::RustCompiled, 600, 5).unwrap();
    assert_eq!(compiled.output_hash, rust.output_hash, "compiled");
    let compiled_active = bench(&d, BenchEngine::RustCompiledActive, 600, 5).unwrap();
    assert_eq!(
        compiled_active.output_hash, rust.output_hash,
        "compiled, active"
    );
    let (groups, evaluated) = active.groups.expect("active engines count groups");
    assert_eq!(compiled_active.groups, Some((groups, evaluated)));
}
