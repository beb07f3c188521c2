//! Strided runs: after [`renumbering`](super::layout), a batch whose destinations are
//! neighbouring words and whose operands advance with them (or stay on one place) becomes an
//! [`Ins::Run`], executed as a slice loop the optimiser vectorises
//! (`for i in 0..n { v[d + i] = f(v[a + i], v[b + i]) }`) instead of one indexed load per
//! operand. Parts of a batch that do not fit a run stay indexed batches. Register loads without
//! enable are merged the same way into block copies.
//!
//! Every operand range of a run lies below its destination range, so
//! [`eval_run`](super::strided::eval_run) splits the
//! value vector into a read-only part and the destination slice and works with safe, bounds
//! checked slices (one check per run, none per element).

use super::program::{Ins, Place, Program};

/// Kinds of batched instructions (runs of one opcode within a level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Batch {
    /// `d = a`.
    Copy,
    /// `d = (a + b) & mask(w)`.
    Add,
    /// `d = (a - b) & mask(w)`.
    Sub,
    /// `d = (a * b) & mask(w)`.
    Mul,
    /// `d = a & b`.
    And,
    /// `d = a | b`.
    Or,
    /// `d = a ^ b`.
    Xor,
    /// `d = a == b`.
    Eq,
    /// `d = a ? b : c`.
    Mux,
    /// `d = (a >> c) & mask(w)`.
    Slice,
    /// `d = !a & mask(w)`.
    Not,
    /// `d = (a * b + c) & mask(w)`.
    MulAdd,
    /// `d = a ^ ((b >> c) & mask(w))`.
    XorSlice,
}

impl Batch {
    /// Number of place operands of an entry `[d, a, b, c]` (`a`; `a, b`; or `a, b, c`).
    pub(crate) fn reads(self) -> usize {
        match self {
            Batch::Copy | Batch::Not | Batch::Slice => 1,
            Batch::Mux | Batch::MulAdd => 3,
            _ => 2,
        }
    }
}

/// Which operands of a [`Run`] advance with the destination (the others stay on one place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every operand advances: element `i` reads `a + i`, `b + i` (and `c + i` for `Mux`).
    Step,
    /// `a` stays (the select of a `Mux`); the others advance.
    FixA,
    /// `b` stays (the right operand of a binary operation); `a` advances.
    FixB,
}

/// `n` instructions of one batch kind over neighbouring places: element `i` writes `d + i` from
/// operands placed as its [`Shape`] says. `c` is the third operand of `Mux` and `MulAdd` (a
/// place, advancing) or the shift of `Slice` and `XorSlice` (the same for every element). Every operand range lies below `d` (checked when
/// the run is formed), so the interpreter can split the value vector into disjoint slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub d: Place,
    pub a: Place,
    pub b: Place,
    pub c: Place,
    pub n: u32,
}

impl Run {
    /// Element `i` as a batch entry `[d, a, b, c]`.
    pub(crate) fn entry(&self, op: Batch, shape: Shape, i: u32) -> [Place; 4] {
        let a = self.a + if shape == Shape::FixA { 0 } else { i };
        let b = self.b + if shape == Shape::FixB { 0 } else { i };
        let c = self.c + if op.reads() == 3 { i } else { 0 };
        [self.d + i, a, b, c]
    }
}

/// Shortest run worth a loop of its own; shorter pieces stay in indexed batches.
const MIN_RUN: usize = 4;

/// True for kinds whose two operands may be swapped.
fn commutative(op: Batch) -> bool {
    matches!(
        op,
        Batch::Add | Batch::Mul | Batch::And | Batch::Or | Batch::Xor | Batch::Eq
    )
}

/// `e` with its two operands swapped when `swap` is set.
fn oriented(e: [Place; 4], swap: bool) -> [Place; 4] {
    if swap {
        [e[0], e[2], e[1], e[3]]
    } else {
        e
    }
}

/// Length of the longest run of `op` with `shape` (operands swapped if `swap`) at the start
/// of `es`, with every operand range below the destination.
fn run_len(op: Batch, shape: Shape, swap: bool, es: &[[Place; 4]]) -> usize {
    let first = oriented(es[0], swap);
    let r = Run {
        d: first[0],
        a: first[1],
        b: first[2],
        c: first[3],
        n: 0,
    };
    let unary = op.reads() == 1;
    let mut n = 0;
    for e in es {
        let want = r.entry(op, shape, n as u32);
        let e = oriented(*e, swap);
        let same =
            e[0] == want[0] && e[1] == want[1] && (unary || e[2] == want[2]) && e[3] == want[3];
        // Highest operand word read by the run so far, exclusive, against its first destination.
        let end = |x: Place, steps: bool| x as u64 + if steps { n as u64 + 1 } else { 1 };
        let below = end(r.a, shape != Shape::FixA) <= r.d as u64
            && (unary || end(r.b, shape != Shape::FixB) <= r.d as u64)
            && (op.reads() < 3 || end(r.c, true) <= r.d as u64);
        if !(same && below) {
            break;
        }
        n += 1;
    }
    n
}

/// The best run at the start of `es`: length, shape, operands swapped.
fn best_run(op: Batch, es: &[[Place; 4]]) -> (usize, Shape, bool) {
    let candidates: &[(Shape, bool)] = match op {
        Batch::Copy | Batch::Not | Batch::Slice | Batch::XorSlice => &[(Shape::Step, false)],
        Batch::Mux => &[(Shape::Step, false), (Shape::FixA, false)],
        _ if commutative(op) || op == Batch::MulAdd => &[
            (Shape::Step, false),
            (Shape::FixB, false),
            (Shape::FixB, true),
        ],
        _ => &[(Shape::Step, false), (Shape::FixB, false)],
    };
    (candidates.iter())
        .map(|&(shape, swap)| (run_len(op, shape, swap, es), shape, swap))
        .max_by_key(|c| c.0)
        .expect("a candidate")
}

/// Replaces the batches of `p.main` by runs and indexed batches, and merges the plain register
/// loads into runs. Expects renumbered places (see [`super::layout`]).
pub(crate) fn form(p: &mut Program) {
    let old = std::mem::take(&mut p.batch);
    let mut out = Vec::with_capacity(p.main.len());
    // Where each old instruction starts in the new program (group boundaries move with them).
    let mut new_start = Vec::with_capacity(p.main.len() + 1);
    for ins in std::mem::take(&mut p.main) {
        new_start.push(out.len() as u32);
        let Ins::Batch { op, w, start, n } = ins else {
            out.push(ins);
            continue;
        };
        let es = &old[start as usize..(start + n) as usize];
        let mut pending = p.batch.len();
        let mut i = 0;
        while i < es.len() {
            let (len, shape, swap) = best_run(op, &es[i..]);
            if len < MIN_RUN {
                p.batch.push(es[i]);
                i += 1;
                continue;
            }
            flush(p, &mut out, op, w, &mut pending);
            let e = oriented(es[i], swap);
            let run = Run {
                d: e[0],
                a: e[1],
                b: e[2],
                c: e[3],
                n: len as u32,
            };
            p.runs.push(run);
            let run = p.runs.len() as u32 - 1;
            out.push(Ins::Run { op, w, shape, run });
            i += len;
        }
        flush(p, &mut out, op, w, &mut pending);
    }
    new_start.push(out.len() as u32);
    p.group_ends
        .iter_mut()
        .for_each(|e| *e = new_start[*e as usize]);
    p.main = out;
    let mut regs = std::mem::take(&mut p.regs_plain);
    regs.sort_unstable();
    for (q, d, n) in regs {
        match p.regs_plain.last_mut() {
            Some(last) if last.0 + last.2 == q && last.1 + last.2 == d => last.2 += n,
            _ => p.regs_plain.push((q, d, n)),
        }
    }
}

/// Emits the batch entries pushed since `pending` as one indexed batch.
fn flush(p: &Program, out: &mut Vec<Ins>, op: Batch, w: u8, pending: &mut usize) {
    let n = p.batch.len() - *pending;
    if n > 0 {
        let start = *pending as u32;
        out.push(Ins::Batch {
            op,
            w,
            start,
            n: n as u32,
        });
    }
    *pending = p.batch.len();
}

/// Asserts that run `r` reads only below its destination and writes inside `len` words.
pub(crate) fn validate(op: Batch, shape: Shape, r: &Run, len: usize) {
    let (d, n) = (r.d as usize, r.n as usize);
    assert!(d + n <= len, "run writes out of range ({len})");
    let last = r.entry(op, shape, r.n - 1);
    for x in &last[1..=op.reads()] {
        assert!(
            (*x as usize) < d,
            "run reads place {x} at or above its destination {d}"
        );
    }
}
