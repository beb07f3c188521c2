//! Printing the narrow (≤ 64-bit) instructions and batches: one statement each.

use super::Gen;
use crate::engine::program::{mask, Batch, Ins, Place, Run, Shape};
use std::fmt::Write;

/// Shortest indexed batch printed as a loop over a table in a large program (shorter ones
/// are unrolled; see `UNROLL_OPS`).
pub(super) const BATCH_LOOP: usize = 16;

/// Most cases of a narrow select printed as a chain of conditional moves (more are a
/// `match`).
const SELECT_CHAIN: usize = 32;

/// `& mask` for a `w`-bit result, or nothing at 64 bits.
fn m(w: u8) -> String {
    if w >= 64 {
        String::new()
    } else {
        format!(" & {:#x}", mask(w))
    }
}

impl Gen<'_> {
    /// The statements of one instruction of the main program.
    pub(super) fn ins(&mut self, ins: &Ins) -> Vec<String> {
        let r = |s| self.r(s);
        let one = |d: u32, e: String| vec![format!("{} = {e};", self.dst(d))];
        match *ins {
            Ins::Copy { d, a } => one(d, r(a)),
            Ins::Not { d, a, w } => one(d, format!("!{}{}", r(a), m(w))),
            Ins::Neg { d, a, w } => one(d, format!("{}.wrapping_neg(){}", r(a), m(w))),
            Ins::RedAnd { d, a, w } => one(d, format!("({} == {:#x}) as u64", r(a), mask(w))),
            Ins::RedOr { d, a } => one(d, format!("({} != 0) as u64", r(a))),
            Ins::RedXor { d, a } => one(d, format!("({}.count_ones() & 1) as u64", r(a))),
            Ins::Add { d, a, b, w } => one(d, format!("{}.wrapping_add({}){}", r(a), r(b), m(w))),
            Ins::Sub { d, a, b, w } => one(d, format!("{}.wrapping_sub({}){}", r(a), r(b), m(w))),
            Ins::Mul { d, a, b, w } => one(d, format!("{}.wrapping_mul({}){}", r(a), r(b), m(w))),
            Ins::MulAdd { d, a, b, c, w } => vec![self.batch(Batch::MulAdd, w, [d, a, b, c])],
            Ins::XorSlice { d, a, b, lo, w } => {
                vec![self.batch(Batch::XorSlice, w, [d, a, b, lo as u32])]
            }
            Ins::And { d, a, b } => one(d, format!("{} & {}", r(a), r(b))),
            Ins::Or { d, a, b } => one(d, format!("{} | {}", r(a), r(b))),
            Ins::Xor { d, a, b } => one(d, format!("{} ^ {}", r(a), r(b))),
            Ins::Shl { d, a, b, w } => one(
                d,
                format!(
                    "{{ let s = {}; if s >= {w} {{ 0 }} else {{ ({} << s){} }} }}",
                    r(b),
                    r(a),
                    m(w)
                ),
            ),
            Ins::Shr { d, a, b, w } => one(
                d,
                format!(
                    "{{ let s = {}; if s >= {w} {{ 0 }} else {{ {} >> s }} }}",
                    r(b),
                    r(a)
                ),
            ),
            Ins::Sra { d, a, b, w } => one(
                d,
                format!("(sx({}, {w}) >> {}.min(63)) as u64{}", r(a), r(b), m(w)),
            ),
            Ins::Eq { d, a, b } => one(d, format!("({} == {}) as u64", r(a), r(b))),
            Ins::Ne { d, a, b } => one(d, format!("({} != {}) as u64", r(a), r(b))),
            Ins::Lt { d, a, b } => one(d, format!("({} < {}) as u64", r(a), r(b))),
            Ins::Le { d, a, b } => one(d, format!("({} <= {}) as u64", r(a), r(b))),
            Ins::SLt { d, a, b, w } => {
                one(d, format!("(sx({}, {w}) < sx({}, {w})) as u64", r(a), r(b)))
            }
            Ins::SLe { d, a, b, w } => one(
                d,
                format!("(sx({}, {w}) <= sx({}, {w})) as u64", r(a), r(b)),
            ),
            Ins::Mux { d, s, t, f } => one(d, format!("sel({}, {}, {})", r(s), r(t), r(f))),
            Ins::Cat2 { d, hi, lo, sh } => one(d, format!("({} << {sh}) | {}", r(hi), r(lo))),
            Ins::Slice { d, a, lo, w } => one(d, format!("({} >> {lo}){}", r(a), m(w))),
            Ins::Sext { d, a, wa, w } => one(d, format!("sx({}, {wa}) as u64{}", r(a), m(w))),
            Ins::Select { d, idx, start, n } => {
                let tab = &self.p.sel_tab[start as usize..=(start + n) as usize];
                if (n as usize) <= SELECT_CHAIN {
                    // A chain of conditional moves from the default, one compare and one
                    // `cmov` per case: no branch (a `match` or an `if` chain becomes a jump
                    // table, mispredicted about every other time when the index is data), and
                    // unlike an array indexed by the saturated index, no stores of every case
                    // to the stack (`astc_dp`: 11,680 → 10,222 instructions per cycle).
                    let mut e = format!(
                        "{{ let i = {}; let mut x = {}; ",
                        r(idx),
                        r(tab[n as usize])
                    );
                    for (k, c) in tab[..n as usize].iter().enumerate().rev() {
                        write!(e, "x = sel((i == {k}) as u64, {}, x); ", r(*c)).unwrap();
                    }
                    return one(d, e + "x }");
                }
                let mut e = format!("match {} {{ ", r(idx));
                for (i, c) in tab[..n as usize].iter().enumerate() {
                    e += &format!("{i} => {}, ", r(*c));
                }
                e += &format!("_ => {} }}", r(tab[n as usize]));
                one(d, e)
            }
            Ins::Lut { d, idx, start, n } => {
                if n == 0 {
                    return one(d, "0".into());
                }
                let vals = &self.p.lut_tab[start as usize..(start + n) as usize];
                let (i, d) = (self.r(idx), self.dst(d));
                let t = self.table(vals);
                vec![format!(
                    "{d} = {{ let i = {i}; if i < {n} {{ {t}[i as usize] }} else {{ 0 }} }};"
                )]
            }
            Ins::MemRd { d, mem, addr } => {
                let info = self.p.mems[mem as usize];
                one(
                    d,
                    format!(
                        "{{ let a = {}; if a < {} {{ mem[{} + a as usize] }} else {{ 0 }} }}",
                        r(addr),
                        info.depth,
                        info.base
                    ),
                )
            }
            Ins::Wide(i) => {
                let p = self.p;
                vec![self.wide(&p.wide[i as usize])]
            }
            Ins::Batch { op, w, start, n } => {
                let p = self.p;
                let ops = &p.batch[start as usize..(start + n) as usize];
                if ops.len() >= self.printing.batch_loop {
                    return vec![self.batch_loop(op, w, ops)];
                }
                ops.iter().map(|o| self.batch(op, w, *o)).collect()
            }
            Ins::Run { op, w, shape, run } => {
                let r = self.p.runs[run as usize];
                if self.printing.unroll_runs {
                    // One statement per element, so elements can be locals.
                    return (0..r.n)
                        .map(|i| self.batch(op, w, r.entry(op, shape, i)))
                        .collect();
                }
                vec![self.run(op, w, shape, r)]
            }
        }
    }

    /// A run as one loop over neighbouring places (constant bounds, so the optimiser drops
    /// the bounds checks and vectorises it; every operand range lies below the destination).
    fn run(&self, op: Batch, w: u8, shape: Shape, r: Run) -> String {
        let at = |x: Place, steps: bool| {
            if steps {
                format!("v[{x} + i]")
            } else {
                self.r(x)
            }
        };
        let a = at(r.a, shape != Shape::FixA);
        let b = at(r.b, shape != Shape::FixB);
        let c = if op.reads() == 3 {
            at(r.c, true)
        } else {
            r.c.to_string()
        };
        let e = expr(op, w, &a, &b, &c);
        format!("for i in 0..{} {{ v[{} + i] = {e}; }}", r.n, r.d)
    }

    /// A long indexed batch as one loop over a static table of its entries `[d, a, b, c]`
    /// (`c` is a place or, for `Slice` and `XorSlice`, the shift).
    fn batch_loop(&mut self, op: Batch, w: u8, ops: &[[u32; 4]]) -> String {
        let name = format!("BATCH_{}", self.tables.len());
        let vals: Vec<String> = (ops.iter())
            .map(|[d, a, b, c]| format!("[{d}, {a}, {b}, {c}]"))
            .collect();
        writeln!(
            self.tables,
            "static {name}: [[u32; 4]; {}] = [{}];",
            ops.len(),
            vals.join(", ")
        )
        .unwrap();
        let c = if op.reads() == 3 {
            "v[e[3] as usize]"
        } else {
            "e[3]"
        };
        let e = expr(op, w, "v[e[1] as usize]", "v[e[2] as usize]", c);
        format!("for e in {name}.iter() {{ v[e[0] as usize] = {e}; }}")
    }

    /// One entry `[d, a, b, c]` of a batch.
    pub(super) fn batch(&self, op: Batch, w: u8, [d, a, b, c]: [u32; 4]) -> String {
        let c = if op.reads() == 3 {
            self.r(c)
        } else {
            c.to_string()
        };
        let e = expr(op, w, &self.r(a), &self.r(b), &c);
        format!("{} = {e};", self.dst(d))
    }
}

/// The expression of a batch kind over operand expressions `a`, `b` and `c` (a place's value,
/// or the shift of `Slice` and `XorSlice`).
fn expr(op: Batch, w: u8, a: &str, b: &str, c: &str) -> String {
    match op {
        Batch::Copy => a.to_string(),
        Batch::Add => format!("{a}.wrapping_add({b}){}", m(w)),
        Batch::Sub => format!("{a}.wrapping_sub({b}){}", m(w)),
        Batch::Mul => format!("{a}.wrapping_mul({b}){}", m(w)),
        Batch::And => format!("{a} & {b}"),
        Batch::Or => format!("{a} | {b}"),
        Batch::Xor => format!("{a} ^ {b}"),
        Batch::Eq => format!("({a} == {b}) as u64"),
        Batch::Mux => format!("sel({a}, {b}, {c})"),
        Batch::Slice => format!("({a} >> {c}){}", m(w)),
        Batch::Not => format!("!{a}{}", m(w)),
        Batch::MulAdd => format!("{a}.wrapping_mul({b}).wrapping_add({c}){}", m(w)),
        Batch::XorSlice => format!("{a} ^ (({b} >> {c}){})", m(w)),
    }
}
