//! Every IR operation against the naive model, on random and corner-case values at widths that
//! straddle word boundaries, with operands from inputs (interpreted) and from constants (folded).

use super::model::{self as md, B};
use crate::engine::Simulator;
use crate::kit::Rng;
use rendergen_hdl::{cat, lut_wide, select, Bits, Design, Sig};

const WIDTHS: [u32; 8] = [1, 7, 63, 64, 65, 100, 128, 200];

/// Operands of every operation.
struct In<T> {
    a: T,
    b: T,
    /// Shift amount, 8 bits.
    s: T,
    /// Shift amount, 70 bits (saturating index path).
    sw: T,
    sel: T,
    /// Select index, 2 bits (3 cases + default).
    idx: T,
    /// Lookup index, 3 bits (5 entries, then 0).
    li: T,
}

type Build = fn(&In<Sig>) -> Sig;
type Model = fn(&In<B>) -> B;

fn table(w: u32) -> Vec<Bits> {
    let mut r = Rng::new(w as u64);
    (0..5).map(|_| r.bits(w)).collect()
}

#[rustfmt::skip]
const OPS: &[(&str, Build, Model)] = &[
    ("add", |i| i.a + i.b, |i| md::add(&i.a, &i.b)),
    ("sub", |i| i.a - i.b, |i| md::sub(&i.a, &i.b)),
    ("mul", |i| i.a * i.b, |i| md::mul(&i.a, &i.b)),
    ("and", |i| i.a & i.b, |i| md::zip(&i.a, &i.b, |x, y| x & y)),
    ("or", |i| i.a | i.b, |i| md::zip(&i.a, &i.b, |x, y| x | y)),
    ("xor", |i| i.a ^ i.b, |i| md::zip(&i.a, &i.b, |x, y| x ^ y)),
    ("not", |i| !i.a, |i| md::not(&i.a)),
    ("neg", |i| -i.a, |i| md::neg(&i.a)),
    ("red_and", |i| i.a.all(), |i| md::reduce(&i.a, |x, y| x & y)),
    ("red_or", |i| i.a.any(), |i| md::reduce(&i.a, |x, y| x | y)),
    ("red_xor", |i| i.a.parity(), |i| md::reduce(&i.a, |x, y| x ^ y)),
    ("shl", |i| i.a.shl(i.s), |i| md::shl(&i.a, md::index(&i.s))),
    ("shr", |i| i.a.shr(i.s), |i| md::shr(&i.a, md::index(&i.s), false)),
    ("sra", |i| i.a.sra(i.s), |i| md::shr(&i.a, md::index(&i.s), true)),
    ("shl_w", |i| i.a.shl(i.sw), |i| md::shl(&i.a, md::index(&i.sw))),
    ("shr_w", |i| i.a.shr(i.sw), |i| md::shr(&i.a, md::index(&i.sw), false)),
    ("sra_w", |i| i.a.sra(i.sw), |i| md::shr(&i.a, md::index(&i.sw), true)),
    ("eq", |i| i.a.eq(i.b), |i| md::eq(&i.a, &i.b)),
    ("ne", |i| i.a.ne(i.b), |i| md::not(&md::eq(&i.a, &i.b))),
    ("lt", |i| i.a.lt(i.b), |i| md::lt(&i.a, &i.b, false)),
    ("le", |i| i.a.le(i.b), |i| md::le(&i.a, &i.b, false)),
    ("slt", |i| i.a.slt(i.b), |i| md::lt(&i.a, &i.b, true)),
    ("sle", |i| i.a.sle(i.b), |i| md::le(&i.a, &i.b, true)),
    ("mux", |i| i.sel.mux(i.a, i.b), |i| if i.sel[0] { i.a.clone() } else { i.b.clone() }),
    ("cat", |i| cat(&[i.a, i.b]), |i| [i.b.clone(), i.a.clone()].concat()),
    ("rep", |i| cat(&[i.sel; 9]), |i| vec![i.sel[0]; 9]),
    ("cat3", |i| cat(&[i.sel, i.a, i.sel]), |i| [i.sel.clone(), i.a.clone(), i.sel.clone()].concat()),
    ("slice", |i| { let w = i.a.width(); i.a.slice(w / 3, w - w / 3) },
        |i| { let w = i.a.len(); i.a[w / 3..].to_vec() }),
    ("msb", |i| i.a.msb(), |i| vec![i.a[i.a.len() - 1]]),
    ("slice_mid", |i| { let w = i.a.width(); i.a.slice(w / 2, (w - w / 2).min(64)) },
        |i| { let w = i.a.len(); i.a[w / 2..w / 2 + (w - w / 2).min(64)].to_vec() }),
    ("zext", |i| i.a.zext(i.a.width() + 5), |i| md::extend(&i.a, i.a.len() + 5, false)),
    ("sext", |i| i.a.sext(i.a.width() + 5), |i| md::extend(&i.a, i.a.len() + 5, true)),
    ("sext_far", |i| i.a.sext(i.a.width() + 70), |i| md::extend(&i.a, i.a.len() + 70, true)),
    ("select", |i| select(i.idx, &[i.a, i.b, !i.a], i.b),
        |i| match md::index(&i.idx) { 0 => i.a.clone(), 2 => md::not(&i.a), _ => i.b.clone() }),
    ("lut", |i| lut_wide(i.li, table(i.a.width()), i.a.width()),
        |i| match table(i.a.len() as u32).get(md::index(&i.li) as usize) {
            Some(v) => md::of(v),
            None => vec![false; i.a.len()],
        }),
];

fn widths(w: u32) -> In<u32> {
    In {
        a: w,
        b: w,
        s: 8,
        sw: 70,
        sel: 1,
        idx: 2,
        li: 3,
    }
}

fn random_inputs(r: &mut Rng, w: u32) -> In<Bits> {
    let s = Bits::from_u64(r.below(w as u64 + 4).min(255), 8);
    let a = r.interesting_bits(w);
    let b = if r.chance(0.2) {
        a.clone()
    } else {
        r.interesting_bits(w)
    };
    let sw = if r.chance(0.5) {
        Bits::from_u64(r.below(w as u64 + 2), 70)
    } else {
        r.interesting_bits(70)
    };
    In {
        a,
        b,
        s,
        sw,
        sel: r.bits(1),
        idx: r.bits(2),
        li: r.bits(3),
    }
}

fn model_inputs(v: &In<Bits>) -> In<B> {
    In {
        a: md::of(&v.a),
        b: md::of(&v.b),
        s: md::of(&v.s),
        sw: md::of(&v.sw),
        sel: md::of(&v.sel),
        idx: md::of(&v.idx),
        li: md::of(&v.li),
    }
}

/// Builds all operations over inputs (`consts` is `None`) or over constant operands.
fn design(w: u32, consts: Option<&In<Bits>>) -> Design {
    Design::build("ops", |m| {
        let wd = widths(w);
        let mut src = |name: &str, width: u32, c: Option<&Bits>| match c {
            Some(c) => m.constant(c.clone()),
            None => m.input(name, width),
        };
        let i = In {
            a: src("a", wd.a, consts.map(|c| &c.a)),
            b: src("b", wd.b, consts.map(|c| &c.b)),
            s: src("s", wd.s, consts.map(|c| &c.s)),
            sw: src("sw", wd.sw, consts.map(|c| &c.sw)),
            sel: src("sel", wd.sel, consts.map(|c| &c.sel)),
            idx: src("idx", wd.idx, consts.map(|c| &c.idx)),
            li: src("li", wd.li, consts.map(|c| &c.li)),
        };
        for (name, build, _) in OPS {
            m.output(name, build(&i));
        }
    })
    .expect("ops design elaborates")
}

fn check(sim: &mut Simulator, v: &In<Bits>, w: u32) {
    let mi = model_inputs(v);
    for (k, (name, _, model)) in OPS.iter().enumerate() {
        let got = sim.peek_bits(sim.output_at(k));
        let want = md::to_bits(&model(&mi));
        assert_eq!(
            got, want,
            "{name} at width {w}: a={} b={} s={} sw={} sel={} idx={} li={}",
            v.a, v.b, v.s, v.sw, v.sel, v.idx, v.li
        );
    }
}

#[test]
fn every_op_matches_the_model_at_every_width() {
    let mut r = Rng::new(0x0B5);
    for w in WIDTHS {
        let mut sim = Simulator::new(&design(w, None)).unwrap();
        let ids: Vec<_> = ["a", "b", "s", "sw", "sel", "idx", "li"]
            .iter()
            .map(|n| sim.input(n).unwrap())
            .collect();
        for _ in 0..150 {
            let v = random_inputs(&mut r, w);
            for (id, val) in ids
                .iter()
                .zip([&v.a, &v.b, &v.s, &v.sw, &v.sel, &v.idx, &v.li])
            {
                sim.poke_bits(*id, val);
            }
            check(&mut sim, &v, w);
        }
    }
}

#[test]
fn constant_folding_matches_the_model() {
    let mut r = Rng::new(0xF01D);
    for w in WIDTHS {
        for _ in 0..4 {
            let v = random_inputs(&mut r, w);
            let mut sim = Simulator::new(&design(w, Some(&v))).unwrap();
            assert_eq!(sim.instruction_count(), 0, "everything folds at width {w}");
            check(&mut sim, &v, w);
        }
    }
}

#[test]
fn poke_truncates_to_the_port_width() {
    let d = Design::build("t", |m| {
        let a = m.input("a", 5);
        m.output("y", a);
    })
    .unwrap();
    let mut sim = Simulator::new(&d).unwrap();
    let (a, y) = (sim.input("a").unwrap(), sim.output("y").unwrap());
    sim.poke(a, 0xff);
    assert_eq!(sim.peek(y), 0x1f);
    sim.poke_bits(a, &Bits::from_u64(0x3f, 6));
    assert_eq!(sim.peek(y), 0x1f);
}
