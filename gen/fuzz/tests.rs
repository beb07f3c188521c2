//! The fuzzer's own tests: generated designs elaborate, cover every operator, are
//! deterministic, and every engine agrees on a few hundred of them.
//!
//! `cargo test` runs 300 designs on the interpreter (a few seconds) and 100
//! (`RENDERGEN_FUZZ_TEST_DESIGNS`) against iverilog, 10 of them against Verilator and 2 against
//! the compiled backend (about 35 s on a quiet machine with an empty tool cache, seconds
//! when cached).
//!
//! The long run is `#[ignore]`d: `RENDERGEN_FUZZ_DESIGNS` designs (default 2,000) in batches
//! of `RENDERGEN_FUZZ_BATCH` (default 100), seed `RENDERGEN_SEED` (default 0xF022):
//! `cargo test --release -p rendergen-gen --lib fuzz::tests::fuzz_many -- --ignored --nocapture`.

use super::*;
use crate::cosim::cosim;
use rendergen_hdl::ir::{BinOp, Op, UnOp};
use rendergen_sim::kit::seed_from_env_or;
use std::collections::BTreeSet;

fn env_or(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// iverilog on every design (`RENDERGEN_FUZZ_IVERILOG=0`: none), `RENDERGEN_FUZZ_COMPILED`
/// (default `compiled`) and `RENDERGEN_FUZZ_VERILATOR` (default `verilator`) designs of each
/// batch on the compiled backend and Verilator (their builds cost seconds per design).
fn engines_from_env(compiled: usize, verilator: usize) -> Engines {
    Engines {
        compiled: env_or("RENDERGEN_FUZZ_COMPILED", compiled),
        verilator: env_or("RENDERGEN_FUZZ_VERILATOR", verilator),
        iverilog: env_or("RENDERGEN_FUZZ_IVERILOG", 1) != 0,
    }
}

/// The names of the IR operations in `design`.
fn op_kinds(design: &Design) -> BTreeSet<String> {
    let mut kinds = BTreeSet::new();
    for m in &design.modules {
        for n in &m.nodes {
            let k = match &n.op {
                Op::Unary(u, _) => format!("{u:?}"),
                Op::Binary(b, _, _) => format!("{b:?}"),
                Op::Extend { signed, .. } => format!("Extend{signed}"),
                op => format!("{op:?}")
                    .split([' ', '(', '{'])
                    .next()
                    .unwrap()
                    .to_string(),
            };
            kinds.insert(k);
        }
        if m.regs.iter().any(|r| r.reset.is_some()) {
            kinds.insert("RegReset".into());
        }
        if m.regs.iter().any(|r| r.enable.is_some()) {
            kinds.insert("RegEnable".into());
        }
        if m.mems.iter().any(|x| x.init.is_some()) {
            kinds.insert("MemInit".into());
        }
        if m.mems.iter().any(|x| x.writes.len() > 1) {
            kinds.insert("MemWritePorts".into());
        }
        if m.mems.iter().any(|x| x.reads.iter().any(|r| r.sync)) {
            kinds.insert("MemReadSync".into());
        }
        if m.mems.iter().any(|x| x.reads.iter().any(|r| !r.sync)) {
            kinds.insert("MemReadComb".into());
        }
    }
    kinds
}

#[test]
fn designs_cover_every_operator_and_are_deterministic() {
    let seed = seed_from_env_or(0xF022);
    let d = batch_design(seed, 0, 100);
    let kinds = op_kinds(&d);
    let mut want: Vec<String> = [
        UnOp::Not,
        UnOp::Neg,
        UnOp::RedAnd,
        UnOp::RedOr,
        UnOp::RedXor,
    ]
    .iter()
    .map(|u| format!("{u:?}"))
    .collect();
    want.extend(
        [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Shl,
            BinOp::Shr,
            BinOp::Sra,
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::SLt,
            BinOp::SLe,
        ]
        .iter()
        .map(|b| format!("{b:?}")),
    );
    for k in [
        "Input",
        "Const",
        "Wire",
        "Reg",
        "MemRead",
        "InstOut",
        "Mux",
        "Concat",
        "Slice",
        "Extendtrue",
        "Extendfalse",
        "Select",
        "Lut",
        "RegReset",
        "RegEnable",
        "MemInit",
        "MemWritePorts",
        "MemReadSync",
        "MemReadComb",
    ] {
        want.push(k.into());
    }
    let missing: Vec<&String> = want.iter().filter(|k| !kinds.contains(*k)).collect();
    assert!(
        missing.is_empty(),
        "seed {seed:#x}: never generated {missing:?}"
    );
    // Hierarchy two levels deep: fuzz_batch → d_i → sub_k → sub_k.
    let depth = |m: usize| -> usize {
        fn go(d: &Design, m: usize) -> usize {
            1 + d.modules[m]
                .insts
                .iter()
                .map(|i| go(d, i.module))
                .max()
                .unwrap_or(0)
        }
        go(&d, m)
    };
    assert_eq!(depth(d.modules.len() - 1), 4, "seed {seed:#x}");
    // Deterministic: the same seed gives the same Verilog, another seed another design.
    let v = |d: &Design| {
        crate::verilog::emit(d)
            .iter()
            .map(|f| f.text.clone())
            .collect::<String>()
    };
    assert_eq!(v(&batch_design(seed, 0, 10)), v(&batch_design(seed, 0, 10)));
    assert_ne!(
        v(&batch_design(seed, 0, 10)),
        v(&batch_design(seed + 1, 0, 10))
    );
    // A design alone is the same definition as in its batch.
    let alone = single_design(seed, 7);
    let inner = &alone.modules[alone.modules.len() - 2];
    assert!(d
        .modules
        .iter()
        .any(|m| m.params == inner.params && m.nodes.len() == inner.nodes.len()));
}

#[test]
fn three_hundred_designs_on_the_interpreter() {
    let seed = seed_from_env_or(0xF022);
    let st =
        run(seed, 300, 100, 100, Engines::INTERPRETER, |_| {}).unwrap_or_else(|d| panic!("{d}"));
    eprintln!("interpreter: {st}");
}

#[test]
fn every_engine_agrees_on_random_designs() {
    let seed = seed_from_env_or(0xF022);
    let n = env_or("RENDERGEN_FUZZ_TEST_DESIGNS", 100);
    let engines = engines_from_env(2, 10);
    let st = run(seed, n, 100, 64, engines, |s| eprintln!("batch: {s}"))
        .unwrap_or_else(|d| panic!("{d}"));
    eprintln!("all engines: {st}");
    assert_eq!(st.designs, n);
}

#[test]
#[ignore = "long: RENDERGEN_FUZZ_DESIGNS designs (default 2000) on every engine"]
fn fuzz_many() {
    let seed = seed_from_env_or(0xF022);
    let n = env_or("RENDERGEN_FUZZ_DESIGNS", 2000);
    let batch = env_or("RENDERGEN_FUZZ_BATCH", 100);
    let cycles = env_or("RENDERGEN_FUZZ_CYCLES", 100) as u64;
    println!("fuzz: seed {seed:#x}, {n} designs in batches of {batch}, {cycles} cycles");
    let t = Instant::now();
    let mut done = 0;
    let st = run(seed, n, batch, cycles, engines_from_env(1, 5), |s| {
        done += s.designs;
        println!("  {done}/{n}: {s}");
    })
    .unwrap_or_else(|d| panic!("{d}"));
    println!(
        "fuzz: {} designs checked, {} cycles per engine per batch ({} design-cycles), wall {:.1} s \
         = {:.1} designs/s; {st}",
        st.designs,
        cycles,
        st.designs as u64 * cycles,
        t.elapsed().as_secs_f64(),
        st.designs as f64 / t.elapsed().as_secs_f64()
    );
}

/// The smallest designs of the emitter bugs the fuzzer found, now fixed in the emitter (a
/// `lut` of zeros declared `reg` but assigned; a `case` on a constant index that iverilog never
/// evaluated; shifts by constants wider than 32 bits that Verilator rejected) or, for a
/// Verilator optimiser fault the emitter cannot avoid, in the co-simulation build: each is
/// co-simulated in iverilog and Verilator against the interpreter. Regression test.
#[test]
fn emitter_bugs_found_by_the_fuzzer() {
    use rendergen_hdl::{cat, lut};
    let cases: Vec<(&str, Design)> = vec![
        (
            "lut of zeros only: `reg o` driven by `assign`",
            Design::build("lut_zeros", |m| {
                let i = m.input("i", 2);
                m.output("o", lut(i, &[0], 8));
            })
            .unwrap(),
        ),
        (
            "lut on a constant index: `always @*` without sensitivities",
            Design::build("lut_const_index", |m| {
                let _i = m.input("i", 2);
                let k = m.lit(1, 2);
                m.output("o", lut(k, &[0x94, 0x80, 0xe0], 8));
            })
            .unwrap(),
        ),
    ];
    let mut cases = cases;
    // Verilator 5.006 -O3 folded `$signed(x) <= $signed(x)` to 0 when `x` is a constant
    // reaching a child module (seed 0xF022, design 61 of the first fuzzer version).
    let compare = |_: &mut rendergen_hdl::Module, _: &(), x: Sig| -> Sig {
        let b = x.bit(14);
        cat(&[b.sle(b), b.le(b), b.slt(b), b.lt(b), b.eq(b), b.ne(b)])
    };
    // Verilator 5.006 -O3 also folded `$signed(K) <= $signed(x)` to 0 when the parent drives
    // `x` with a constant equal to `K` (seed 0xF022, design 1604, a 1-bit `le` of the constant
    // 1 against an input tied to 1); the emitter now prints a signed `<=` as an unsigned `<=` of
    // the operands with flipped sign bits. Every width, both orders, equal and unequal values.
    fn le_against(m: &mut rendergen_hdl::Module, k: &u64, x: Sig) -> Sig {
        let c = m.lit(*k, x.width());
        cat(&[c.sle(x), x.sle(c), c.slt(x), x.slt(c)])
    }
    let values = |w: u32| -> Vec<u64> {
        let top = if w >= 64 { u64::MAX } else { (1 << w) - 1 };
        let mut v = vec![0, 1 & top, top, top >> 1, (top >> 1) + 1];
        v.sort_unstable();
        v.dedup();
        v
    };
    let signed_le = Design::build("signed_le_const", |m| {
        let i = m.input("i", 1);
        let mut outs = vec![i];
        for w in [1u32, 2, 8, 33, 65] {
            for (n, k) in values(w).into_iter().enumerate() {
                for (j, x) in values(w).into_iter().enumerate() {
                    let xin = m.lit(x, w);
                    let name = format!("w{w}_c{n}_{j}");
                    outs.push(m.child(&name, &k, xin, le_against));
                }
            }
        }
        m.output("o", cat(&outs));
    })
    .unwrap();
    cases.push(("signed <= of equal constants through a child", signed_le));
    cases.push((
        "a value compared with itself, constant-propagated into a child",
        Design::build("self_compare", |m| {
            let i = m.input("i", 4);
            let k = m.lit(0, 15);
            let o = m.child("c", &(), k, compare);
            m.output("o", cat(&[o, i.slice(0, 1)]));
        })
        .unwrap(),
    ));
    for (kw, konst) in [(40, true), (100, true), (40, false), (100, false)] {
        let name = format!("shift_{}{kw}", if konst { "const" } else { "input" });
        let d = Design::build(&name, |m| {
            let a = m.input("a", 8);
            let n = if konst {
                m.constant(Bits::from_words(&[0xFFFF_FFFF_FFFF_FFFF, 0xFF], kw))
            } else {
                m.input("n", kw)
            };
            m.output("o", a.shr(n));
        })
        .unwrap();
        cases.push((
            if konst {
                if kw == 40 {
                    "shift by a 40-bit constant"
                } else {
                    "shift by a 100-bit constant"
                }
            } else if kw == 40 {
                "shift by a 40-bit input"
            } else {
                "shift by a 100-bit input"
            },
            d,
        ));
    }
    // Verilator 5.006 rejected `x << (s − C)` where `s` is the slice of a zero extension
    // that holds only zeros (so Verilator folds the amount to a wide constant) and `C` is
    // wide: "Value too wide for 32-bits expected in this context" (seed 0xF022, designs
    // 700..800). Wide variable amounts are now split at 2^32.
    cases.push((
        "shift by a wide amount Verilator folds to a constant",
        Design::build("shift_wide_sub", |m| {
            let x = m.input("x", 8);
            let b = m.input("b", 1);
            let s = b.zext(130).slice(41, 82);
            let c = m.constant(Bits::from_words(&[0x8000_0000_0000_0000, 0], 82));
            let n = s - c;
            // Small amounts through the split too: `b` itself, 82 bits wide.
            let small = b.zext(82);
            m.output(
                "o",
                cat(&[x.shl(n), x.shr(n), x.sra(n), x.shl(small), x.sra(small)]),
            );
        })
        .unwrap(),
    ));
    // The first form of that fix shifted by 32'hFFFFFFFF for huge amounts, which Verilator
    // 5.006 -O3 folded wrongly (design 204 of seed 0xF022: a 40-bit value shifted by itself).
    cases.push((
        "a 40-bit value shifted by itself",
        Design::build("shift_self_40", |m| {
            let x = m.input("x", 40);
            let y = m.input("y", 136);
            m.output(
                "o",
                cat(&[x.shl(x), x.shr(x), y.sra(y), y.sra(x), x.sra(y)]),
            );
        })
        .unwrap(),
    ));
    // Verilator 5.006's bit-op-tree optimisation computed bit 16 of a zero-extended parity
    // (extended in the parent, sliced in a child, under a `case`) as the parity of bits 16..48
    // of its operand instead of 0 (seed 0xF022, design 1009: bit 4 of `d1009_o0` in cycle 0).
    // Co-simulation builds now pass `-fno-const-bit-op-tree` (`cosim::verilator::COSIM_FLAGS`).
    fn zext_parity_leaf(_: &mut rendergen_hdl::Module, _: &(), io: Vec<Sig>) -> Sig {
        let (a, m) = (io[0], io[1]);
        lut(
            m.zext(4) ^ a.slice(16, 4),
            &[0, 1, 0x43, 0xff, 0x83, 0x80, 0x66],
            8,
        )
    }
    fn zext_parity_mid(m: &mut rendergen_hdl::Module, _: &(), io: Vec<Sig>) -> Sig {
        let a = io[0].slice(0, 62);
        m.child("leaf", &(), vec![a, io[1]], zext_parity_leaf)
    }
    cases.push((
        "a bit above bit 0 of a zero-extended parity, through two child modules",
        Design::build("zext_parity_slice", |m| {
            let x = m.input("x", 49);
            let s = m.input("m", 1);
            let p = x.parity().zext(191);
            let o = m.child("mid", &(), vec![p, s], zext_parity_mid);
            m.output("o", o);
        })
        .unwrap(),
    ));
    // Verilator 5.006 at -O3 crashed ("Internal Error: V3EmitCFunc.h:1031: Reduction over
    // single bit value should have been folded") on the parity of the NOT of a 65-bit input
    // that the parent drives with a zero extension of one bit (seed 0xF022, design 1118;
    // reduced with `rendergen fuzz --reduce`, file in `gen/fuzz/known/`). The emitter now
    // prints a parity of more than 64 bits as the parity of its 64-bit parts. Widths 65
    // (one bit above a part), 128 and 200, and a wide constant parity.
    fn not_parity_leaf(_: &mut rendergen_hdl::Module, _width: &u32, io: Vec<Sig>) -> Sig {
        let (a, r) = (io[0], io[1]);
        (!a).parity().mux(r, !r)
    }
    cases.push((
        "the parity of a NOT of a one-bit zero extension, through a child module",
        Design::build("not_zext_parity", |m| {
            let b = m.input("b", 1);
            let r = m.input("r", 44);
            let mut outs = Vec::new();
            for w in [65, 128, 200] {
                let x = b.zext(w);
                outs.push(m.child(&format!("w{w}"), &w, vec![x, r], not_parity_leaf));
            }
            let k = m.constant(Bits::from_words(&[0b1011, 0, 1], 130));
            outs.push(k.parity());
            outs.push(r.zext(100).parity());
            m.output("o", cat(&outs));
        })
        .unwrap(),
    ));
    // Verilator 5.006 at -O3 computed wrong values for OR and AND reductions of the NOT of a
    // zero extension past 64 bits: `|(~{118'h0, {11'h0, x}})` (always 1) was 0 in some cycles
    // (seed 0xF022, design 1160, reduced to 36 nodes in `gen/fuzz/known/`), and hand-written
    // probes found `&(~{58'h0, x})` in one module, and `&`, `^` and `~|` of the NOT of a
    // zero extension made by the parent, wrong for some `x` at widths 65 to 200. The emitter
    // now prints every `&`, `|` and `^` reduction of more than 64 bits as the reduction of
    // its 64-bit parts. Both shapes (extension in the module and in the parent), the 1160
    // form (a double extension, reduction as a mux select), and wide constants.
    fn not_zext_reductions(_: &mut rendergen_hdl::Module, _width: &u32, io: Vec<Sig>) -> Sig {
        let (a, r) = (io[0], io[1]);
        let n = !a;
        cat(&[
            n.any(),
            n.all(),
            n.parity(),
            !n.any(),
            !n.all(),
            n.any().mux(r, !r),
            n.all().mux(r, !r),
        ])
    }
    cases.push((
        "OR and AND reductions of a NOT of a zero extension wider than 64 bits",
        Design::build("not_zext_reductions", |m| {
            // `&` went wrong for `x == 0`: a 1-bit input hits it in half the cycles.
            let x = m.input("x", 7);
            let b = m.input("b", 1);
            let r = m.input("r", 5);
            let mut outs = Vec::new();
            for w in [65, 100, 136, 200] {
                for (name, v) in [("x", x), ("b", b)] {
                    // The extension in the parent, the NOT and the reductions in a child.
                    let a = v.zext(w);
                    let c = format!("{name}{w}");
                    outs.push(m.child(&c, &w, vec![a, r], not_zext_reductions));
                    // All in this module.
                    let n = !v.zext(w);
                    outs.extend([n.any(), n.all(), n.any().mux(r, !r), n.all().mux(r, !r)]);
                }
            }
            // Design 1160: `(|(~{118'h0, {11'h0, x}})) ? r : 0`.
            let n = !x.zext(18).zext(136);
            outs.push(n.any().mux(r, m.lit(0, 5)));
            for words in [[u64::MAX, u64::MAX, 3], [0, 0, 0], [0, 1 << 40, 0]] {
                let k = m.constant(Bits::from_words(&words, 130));
                outs.extend([k.any(), k.all(), k.parity()]);
            }
            m.output("o", cat(&outs));
        })
        .unwrap(),
    ));
    let mut failed = Vec::new();
    for (what, d) in &cases {
        let (_, trace) = run_recorded(d, 16, 1);
        println!("{what}:\n{}", crate::verilog::emit_single(d));
        for engine in [CosimEngine::Iverilog, CosimEngine::Verilator] {
            let r = cosim(d, &trace, engine);
            println!("  {engine}: {:?}", r.as_ref().map_err(|e| e.to_string()));
            if r.is_err() {
                failed.push(format!("{what} ({engine})"));
            }
        }
    }
    assert!(failed.is_empty(), "still disagreeing: {failed:?}");
}

/// The Verilator disagreement the fuzzer found: design 61 of seed 0xF022 (bit 0 of output
/// `d61_o2` flipped in cycle 0; the interpreter and iverilog agree), narrowed with
/// [`spec_design`] to one of its child modules. Reduced by hand: Verilator 5.006 at -O3 folds
/// `$signed(x) <= $signed(x)` to 0 when `x` is a constant reaching a child; the emitter now
/// prints a value compared with itself as a constant (`emitter_bugs_found_by_the_fuzzer`).
/// The spec no longer makes that design since the generator changed.
#[test]
#[ignore = "the design changed with the generator; the shape (a signed self-compare) is in emitter_bugs_found_by_the_fuzzer"]
fn known_verilator_disagreement() {
    let spec = Spec {
        seed: 16438101023216865297,
        depth: 1,
        inputs: vec![1, 6, 65],
        known_bugs: false,
    };
    let d = spec_design(&spec);
    let (_, trace) = run_recorded(&d, 64, 7);
    cosim(&d, &trace, CosimEngine::Iverilog).unwrap();
    cosim(&d, &trace, CosimEngine::Verilator).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
}
