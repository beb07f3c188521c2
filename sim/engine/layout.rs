//! Place renumbering. After scheduling, the places are renumbered so that values the program does
//! not compute (inputs, state, constants, observation-only values) come first, in their
//! original order, followed by the computed values in the order the main program first writes
//! them. A batch of one operation then writes neighbouring words, and when its operands were
//! themselves written by one batch (or are neighbouring registers or inputs) they are
//! neighbours too, which lets [`runs`](super::runs) turn batches into strided loops the
//! optimiser vectorises. Multi-word values stay contiguous.
//!
//! The compiled backend ([`crate::codegen`]) prints the program with this numbering as is.

use super::exec::Machine;
use super::place_visit::{ins_places, wide_places};
use super::program::{Ins, Place, Program, WideOp, NONE};
use super::schedule;
use rendergen_hdl::bits::words_for;

/// Calls `f(place, words)` for every destination `ins` writes.
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

/// Destination place and word count of a multi-word operation.
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

/// The new index of every place of a value vector of `n` words (see the [module docs](self)).
fn numbering(p: &Program, n: usize) -> Vec<Place> {
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

/// Renumbers every place of `p` and permutes the value vector of `m` accordingly. Must run
/// before batches become runs (runs are not renumbered).
pub(crate) fn renumber(p: &mut Program, m: &mut Machine) {
    let map = numbering(p, m.v.len());
    let f = |s: Place| if s == NONE { NONE } else { map[s as usize] };
    let mut v = vec![0; m.v.len()];
    for (old, new) in map.iter().enumerate() {
        v[*new as usize] = m.v[old];
    }
    m.v = v;
    let mut main = std::mem::take(&mut p.main);
    let mut obs = std::mem::take(&mut p.obs);
    main.iter_mut().chain(&mut obs).for_each(|i| map_ins(i, f));
    (p.main, p.obs) = (main, obs);
    // A batch knows its kind only from its instruction; entry `c` is a place for some kinds.
    let mut c_place = vec![false; p.batch.len()];
    for ins in &p.main {
        if let Ins::Batch { op, start, n, .. } = *ins {
            c_place[start as usize..(start + n) as usize].fill(op.reads() == 3);
        }
    }
    for (e, c_place) in p.batch.iter_mut().zip(c_place) {
        let c = if c_place { f(e[3]) } else { e[3] };
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
    p.node_place.iter_mut().for_each(|s| *s = f(*s));
}

/// Applies `f` to every place of a narrow instruction (batch tables are handled by the caller).
fn map_ins(ins: &mut Ins, f: impl Fn(Place) -> Place) {
    assert!(
        !matches!(ins, Ins::Run { .. }),
        "runs are formed after renumbering"
    );
    ins_places(ins, &mut |s| *s = f(*s));
}

/// Applies `f` to every place of a multi-word operation.
fn map_wide(op: &mut WideOp, f: impl Fn(Place) -> Place) {
    wide_places(op, &mut |s| *s = f(*s));
}
