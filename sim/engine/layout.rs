//! Slot renumbering. After scheduling, the slots are renumbered so that values the program does
//! not compute (inputs, state, constants, observation-only values) come first, in their
//! original order, followed by the computed values in the order the main program first writes
//! them. A batch of one operation then writes neighbouring words, and when its operands were
//! themselves written by one batch (or are neighbouring registers or inputs) they are
//! neighbours too, which lets [`runs`](super::runs) turn batches into strided loops the
//! optimiser vectorises. Multi-word values stay contiguous.
//!
//! The compiled backend ([`crate::codegen`]) prints the program with this numbering as is.

use super::exec::Machine;
use super::program::{Ins, Program, Slot, WideOp, NONE};
use super::schedule;
use rendergen_hdl::bits::words_for;

/// Calls `f(slot, words)` for every destination `ins` writes.
pub(crate) fn dests(p: &Program, ins: &Ins, f: &mut impl FnMut(usize, usize)) {
    match *ins {
        Ins::Wide(i) => {
            let (d, n) = wide_dest(p, &p.wide[i as usize]);
            f(d as usize, n)
        }
        Ins::Batch { start, n, .. } => {
            for ops in &p.batch[start as usize..(start + n) as usize] {
                f(ops[0] as usize, 1)
            }
        }
        Ins::Run { run, .. } => {
            let r = p.runs[run as usize];
            f(r.d as usize, r.n as usize)
        }
        _ => f(schedule::operands(p, ins, |_| {}) as usize, 1),
    }
}

/// Destination slot and word count of a multi-word operation.
pub(crate) fn wide_dest(p: &Program, op: &WideOp) -> (u32, usize) {
    match *op {
        WideOp::Copy { d, n, .. } | WideOp::Mux { d, n, .. } => (d, n as usize),
        WideOp::Sat { d, .. } => (d, 1),
        WideOp::Un { d, w, .. }
        | WideOp::Bin { d, w, .. }
        | WideOp::Concat { d, w, .. }
        | WideOp::Slice { d, w, .. }
        | WideOp::Extend { d, w, .. } => (d, words_for(w)),
        WideOp::Select { d, n, .. } | WideOp::Lut { d, n, .. } => (d, n as usize),
        WideOp::MemRd { d, mem, .. } => (d, p.mems[mem as usize].words as usize),
    }
}

/// The new index of every slot of a value vector of `n` words (see the [module docs](self)).
fn numbering(p: &Program, n: usize) -> Vec<Slot> {
    let mut computed = vec![false; n];
    let mut order = Vec::new();
    for ins in &p.main {
        dests(p, ins, &mut |s, w| {
            if !computed[s] {
                computed[s..s + w].iter_mut().for_each(|x| *x = true);
                order.push((s, w));
            }
        });
    }
    let mut map = vec![0; n];
    let mut next = 0;
    let fixed = (0..n).filter(|s| !computed[*s]).map(|s| (s, 1));
    for (s, w) in fixed.chain(order) {
        for i in 0..w {
            map[s + i] = next;
            next += 1;
        }
    }
    map
}

/// Renumbers every slot of `p` and permutes the value vector of `m` accordingly. Must run
/// before batches become runs (runs are not renumbered).
pub(crate) fn renumber(p: &mut Program, m: &mut Machine) {
    let map = numbering(p, m.v.len());
    let f = |s: Slot| if s == NONE { NONE } else { map[s as usize] };
    let mut v = vec![0; m.v.len()];
    for (old, new) in map.iter().enumerate() {
        v[*new as usize] = m.v[old];
    }
    m.v = v;
    let mut main = std::mem::take(&mut p.main);
    let mut obs = std::mem::take(&mut p.obs);
    main.iter_mut().chain(&mut obs).for_each(|i| map_ins(i, f));
    (p.main, p.obs) = (main, obs);
    // A batch knows its kind only from its instruction; entry `c` is a slot for some kinds.
    let mut c_slot = vec![false; p.batch.len()];
    for ins in &p.main {
        if let Ins::Batch { op, start, n, .. } = *ins {
            c_slot[start as usize..(start + n) as usize].fill(op.reads() == 3);
        }
    }
    for (e, c_slot) in p.batch.iter_mut().zip(c_slot) {
        let c = if c_slot { f(e[3]) } else { e[3] };
        *e = [f(e[0]), f(e[1]), f(e[2]), c];
    }
    p.wide.iter_mut().for_each(|op| map_wide(op, f));
    p.sel_tab.iter_mut().for_each(|s| *s = f(*s));
    for r in &mut p.regs_plain {
        (r.0, r.1) = (f(r.0), f(r.1));
    }
    for r in &mut p.regs {
        (r.q, r.d, r.en) = (f(r.q), f(r.d), f(r.en));
    }
    p.resets.iter_mut().for_each(|r| r.q = f(r.q));
    for r in &mut p.sync_reads {
        (r.addr, r.en, r.data) = (f(r.addr), f(r.en), f(r.data));
    }
    for w in &mut p.writes {
        (w.en, w.addr, w.data) = (f(w.en), f(w.addr), f(w.data));
    }
    p.node_slot.iter_mut().for_each(|s| *s = f(*s));
}

/// Applies `f` to every slot of a narrow instruction (batch tables are handled by the caller).
fn map_ins(ins: &mut Ins, f: impl Fn(Slot) -> Slot) {
    match ins {
        Ins::Copy { d, a }
        | Ins::Not { d, a, .. }
        | Ins::Neg { d, a, .. }
        | Ins::RedAnd { d, a, .. }
        | Ins::RedOr { d, a }
        | Ins::RedXor { d, a }
        | Ins::Slice { d, a, .. }
        | Ins::Sext { d, a, .. }
        | Ins::Lut { d, idx: a, .. }
        | Ins::Select { d, idx: a, .. }
        | Ins::MemRd { d, addr: a, .. } => (*d, *a) = (f(*d), f(*a)),
        Ins::Add { d, a, b, .. }
        | Ins::Sub { d, a, b, .. }
        | Ins::Mul { d, a, b, .. }
        | Ins::And { d, a, b }
        | Ins::Or { d, a, b }
        | Ins::Xor { d, a, b }
        | Ins::Shl { d, a, b, .. }
        | Ins::Shr { d, a, b, .. }
        | Ins::Sra { d, a, b, .. }
        | Ins::Eq { d, a, b }
        | Ins::Ne { d, a, b }
        | Ins::Lt { d, a, b }
        | Ins::Le { d, a, b }
        | Ins::SLt { d, a, b, .. }
        | Ins::SLe { d, a, b, .. }
        | Ins::XorSlice { d, a, b, .. }
        | Ins::Cat2 {
            d, hi: a, lo: b, ..
        } => (*d, *a, *b) = (f(*d), f(*a), f(*b)),
        Ins::Mux { d, s, t, f: e }
        | Ins::MulAdd {
            d,
            a: s,
            b: t,
            c: e,
            ..
        } => (*d, *s, *t, *e) = (f(*d), f(*s), f(*t), f(*e)),
        Ins::Wide(_) | Ins::Batch { .. } => {}
        Ins::Run { .. } => unreachable!("runs are formed after renumbering"),
    }
}

/// Applies `f` to every slot of a multi-word operation.
fn map_wide(op: &mut WideOp, f: impl Fn(Slot) -> Slot) {
    match op {
        WideOp::Copy { d, a, .. }
        | WideOp::Sat { d, a, .. }
        | WideOp::Un { d, a, .. }
        | WideOp::Slice { d, a, .. }
        | WideOp::Extend { d, a, .. }
        | WideOp::Lut { d, idx: a, .. }
        | WideOp::MemRd { d, addr: a, .. } => (*d, *a) = (f(*d), f(*a)),
        WideOp::Bin { d, a, b, .. } => (*d, *a, *b) = (f(*d), f(*a), f(*b)),
        WideOp::Mux { d, s, t, f: e, .. } => (*d, *s, *t, *e) = (f(*d), f(*s), f(*t), f(*e)),
        WideOp::Concat { d, parts, .. } => {
            *d = f(*d);
            parts.iter_mut().for_each(|(s, _)| *s = f(*s));
        }
        WideOp::Select {
            d,
            idx,
            cases,
            default,
            ..
        } => {
            (*d, *idx, *default) = (f(*d), f(*idx), f(*default));
            cases.iter_mut().for_each(|c| *c = f(*c));
        }
    }
}
