//! Strided runs: after [`renumbering`](super::layout), a batch whose destinations are
//! neighbouring words and whose operands advance with them (or stay on one slot) becomes an
//! [`Ins::Run`], executed as a slice loop the optimiser vectorises
//! (`for i in 0..n { v[d + i] = f(v[a + i], v[b + i]) }`) instead of one indexed load per
//! operand. Parts of a batch that do not fit a run stay indexed batches. Register loads without
//! enable are merged the same way into block copies.
//!
//! Every operand range of a run lies below its destination range, so [`eval_run`] splits the
//! value vector into a read-only part and the destination slice and works with safe, bounds
//! checked slices (one check per run, none per element).

use super::exec::select;
use super::program::{mask, Batch, Ins, Program, Run, Shape, Slot};

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
fn oriented(e: [Slot; 4], swap: bool) -> [Slot; 4] {
    if swap {
        [e[0], e[2], e[1], e[3]]
    } else {
        e
    }
}

/// Length of the longest run of `op` with `shape` (operands swapped if `swap`) at the start
/// of `es`, with every operand range below the destination.
fn run_len(op: Batch, shape: Shape, swap: bool, es: &[[Slot; 4]]) -> usize {
    let first = oriented(es[0], swap);
    let r = Run {
        d: first[0],
        a: first[1],
        b: first[2],
        c: first[3],
        n: 0,
    };
    let unary = matches!(op, Batch::Copy | Batch::Not | Batch::Slice);
    let mut n = 0;
    for e in es {
        let want = r.entry(op, shape, n as u32);
        let e = oriented(*e, swap);
        let same = e[0] == want[0]
            && e[1] == want[1]
            && (unary || e[2] == want[2])
            && (op == Batch::Copy || op == Batch::Not || e[3] == want[3]);
        // Highest operand word read by the run so far, exclusive, against its first destination.
        let end = |x: Slot, steps: bool| x as u64 + if steps { n as u64 + 1 } else { 1 };
        let below = end(r.a, shape != Shape::FixA) <= r.d as u64
            && (unary || end(r.b, shape != Shape::FixB) <= r.d as u64)
            && (op != Batch::Mux || end(r.c, true) <= r.d as u64);
        if !(same && below) {
            break;
        }
        n += 1;
    }
    n
}

/// The best run at the start of `es`: length, shape, operands swapped.
fn best_run(op: Batch, es: &[[Slot; 4]]) -> (usize, Shape, bool) {
    let candidates: &[(Shape, bool)] = match op {
        Batch::Copy | Batch::Not | Batch::Slice => &[(Shape::Step, false)],
        Batch::Mux => &[(Shape::Step, false), (Shape::FixA, false)],
        _ if commutative(op) => &[
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
/// loads into runs. Expects renumbered slots (see [`super::layout`]).
pub(crate) fn form(p: &mut Program) {
    let old = std::mem::take(&mut p.batch);
    let mut out = Vec::with_capacity(p.main.len());
    for ins in std::mem::take(&mut p.main) {
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
    let reads = match op {
        Batch::Copy | Batch::Not | Batch::Slice => 1,
        Batch::Mux => 3,
        _ => 2,
    };
    for x in &last[1..=reads] {
        assert!(
            (*x as usize) < d,
            "run reads slot {x} at or above its destination {d}"
        );
    }
}

/// Runs one strided run over `v` (see [`Run`]; the layout was checked by [`validate`]).
#[inline(always)]
pub(crate) fn eval_run(v: &mut [u64], op: Batch, w: u8, shape: Shape, r: &Run) {
    let n = r.n as usize;
    let (src, dst) = v.split_at_mut(r.d as usize);
    let dst = &mut dst[..n];
    let (a, b, c) = (r.a as usize, r.b as usize, r.c as usize);
    let k = mask(w);
    macro_rules! un {
        (|$x:ident| $e:expr) => {
            for (d, &$x) in dst.iter_mut().zip(&src[a..a + n]) {
                *d = $e;
            }
        };
    }
    macro_rules! bin {
        (|$x:ident, $y:ident| $e:expr) => {
            if shape == Shape::FixB {
                let $y = src[b];
                un!(|$x| $e)
            } else {
                let ys = &src[b..b + n];
                for ((d, &$x), &$y) in dst.iter_mut().zip(&src[a..a + n]).zip(ys) {
                    *d = $e;
                }
            }
        };
    }
    match op {
        Batch::Copy => dst.copy_from_slice(&src[a..a + n]),
        Batch::Not => un!(|x| !x & k),
        Batch::Slice => {
            let sh = c as u32;
            un!(|x| (x >> sh) & k)
        }
        Batch::Add => bin!(|x, y| x.wrapping_add(y) & k),
        Batch::Sub => bin!(|x, y| x.wrapping_sub(y) & k),
        // The low `w ≤ 32` bits of a product depend only on the low 32 bits of its operands;
        // a 32 × 32 → 64-bit product is one vector instruction where a 64-bit one is three.
        Batch::Mul if w <= 32 => bin!(|x, y| ((x as u32 as u64) * (y as u32 as u64)) & k),
        Batch::Mul => bin!(|x, y| x.wrapping_mul(y) & k),
        Batch::And => bin!(|x, y| x & y),
        Batch::Or => bin!(|x, y| x | y),
        Batch::Xor => bin!(|x, y| x ^ y),
        Batch::Eq => bin!(|x, y| (x == y) as u64),
        Batch::Mux if shape == Shape::FixA => {
            let from = if src[a] != 0 { b } else { c };
            dst.copy_from_slice(&src[from..from + n])
        }
        Batch::Mux => {
            let (ss, ts, fs) = (&src[a..a + n], &src[b..b + n], &src[c..c + n]);
            for (((d, &s), &t), &f) in dst.iter_mut().zip(ss).zip(ts).zip(fs) {
                *d = select(s, t, f);
            }
        }
    }
}
