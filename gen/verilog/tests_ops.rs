//! Every IR operation at widths 1, 8, 64, 65 and 128, through the three tools.

use super::tests::assert_lint_clean;
use rendergen_hdl::{cat, lut_wide, select, Bits, Design, Module, Sig};

/// Builds one module with every operation on `w`-bit operands.
fn all_ops(m: &mut Module, w: u32) {
    let a = m.input("a", w);
    let b = m.input("b", w);
    let s = m.input("s", 1);
    let amount = m.input("amount", 7);
    let idx = m.input("idx", 2);
    let outs: Vec<(&str, Sig)> = vec![
        ("not", !a),
        ("neg", -a),
        ("all", a.all()),
        ("any", a.any()),
        ("parity", a.parity()),
        ("add", a + b),
        ("sub", a - b),
        ("mul", a * b),
        ("and", a & b),
        ("or", a | b),
        ("xor", a ^ b),
        ("shl", a.shl(amount)),
        ("shr", a.shr(amount)),
        ("sra", a.sra(amount)),
        ("shl_wide", a.shl(b)),
        ("eq", a.eq(b)),
        ("ne", a.ne(b)),
        ("lt", a.lt(b)),
        ("le", a.le(b)),
        ("slt", a.slt(b)),
        ("sle", a.sle(b)),
        ("mux", s.mux(a, b)),
        ("cat", cat(&[a, b, s])),
        ("msb", a.msb()),
        ("low", a.slice(0, w.div_ceil(2))),
        ("zext", a.zext(w + 3)),
        ("sext", a.sext(w + 3)),
        ("sel", select(idx, &[a, b, !a], b)),
        (
            "lut",
            lut_wide(
                idx,
                vec![
                    Bits::from_u64(1, w),
                    Bits::zero(w),
                    Bits::from_u128(u128::MAX, w),
                ],
                w,
            ),
        ),
        (
            "const_slice",
            m.constant(Bits::from_words(&[u64::MAX / 3; 3], 192))
                .slice(3, w),
        ),
        ("const_sext", m.lit(1, 1).sext(w + 1)),
    ];
    for (name, v) in outs {
        m.output(name, v);
    }
    let r = m.reg("acc", w);
    r.next_when(s, r.q() ^ a);
    m.output("acc", r.q());
}

#[test]
fn every_op_at_every_width_lints_clean() {
    for w in [1, 8, 64, 65, 128] {
        let d = Design::build(&format!("ops{w}"), |m| all_ops(m, w)).unwrap();
        assert_lint_clean(&d);
    }
}

#[test]
fn memories_and_hierarchy_lint_clean() {
    let d = Design::build("top", |m| {
        let we = m.input("we", 1);
        let addr = m.input("addr", 3);
        let data = m.input("data", 65);
        let ram = m.memory("ram", 65, 6).init(&[1, 2, 3]);
        ram.write(we, addr, data);
        let rd = ram.read_sync(addr, Some(!we));
        let comb = ram.read_comb(addr);
        let rom = m.memory("rom", 8, 4).init(&[9, 8, 7, 6]);
        let romd = rom.read_sync(addr.slice(0, 2), None);
        let zeros = m.memory("zeros", 4, 16);
        let zd = zeros.read_comb(cat(&[addr, we]));
        let child = m.instance("u_add", "adder", &8u32, |c| {
            let a = c.input("a", 8);
            let b = c.input("b", 8);
            c.output("sum", a + b);
            c.output("carry", a.add_full(b).msb());
        });
        child.connect("a", romd);
        child.connect("b", rd.slice(0, 8));
        let child2 = m.instance("u_add2", "adder", &8u32, |_| unreachable!());
        child2.connect("a", data.slice(8, 8));
        child2.connect("b", m.lit(3, 8));
        m.output("sum", child.output("sum") ^ child2.output("sum"));
        m.output("comb", comb);
        m.output("zd", zd);
    })
    .unwrap();
    assert_eq!(d.modules.len(), 2);
    let files = super::emit(&d);
    assert_eq!(files[0].name, "adder.v");
    assert!(files[1].text.contains("adder u_add ("), "{}", files[1].text);
    assert!(
        files[1].text.contains(".a_i(rom_rdata)"),
        "{}",
        files[1].text
    );
    assert_lint_clean(&d);
}

/// A one-case `index_select` is a select with no cases but its default: an assignment, never a
/// `reg` (iverilog rejects a `reg` driven by `assign`).
#[test]
fn one_case_index_select_lints_clean() {
    let d = Design::build("one_case", |m| {
        let i = m.input("i", 2);
        let a = m.input("a", 8);
        let y = rendergen_hdl::index_select(i, &[a]);
        m.output("y", y);
        m.output("i_seen", i);
    })
    .unwrap();
    assert_lint_clean(&d);
}
