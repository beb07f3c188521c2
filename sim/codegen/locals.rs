//! Values kept in local variables of the generated functions instead of the value array.
//!
//! Printed as `v[p] = …;`, every operation is a load, the operation and a store, and the
//! optimiser must keep every store (the array outlives the function). A value that is written
//! and read only inside one generated function (a chunk of the full `settle`, or one group of
//! the activity-aware one) and that nothing outside the program looks at is printed as
//! `let xP = …;` instead: the optimiser then keeps it in a register, drops the store, and sees
//! whole expression trees, which it folds (a slice of a concatenation becomes the part, a
//! concatenation of slices of one word a mask and a shift, as Verilator's expression printing
//! gets from its C++ compiler).
//!
//! A value stays in the array (is *pinned*) when it is an input or output, a named signal
//! (`peek_signal`, VCD), read by the observation program or the clock edge (register, memory
//! and reset inputs), watched by activity-aware evaluation, written or read by a loop over
//! places (a run or a table-driven batch), written by a multi-word operation, written by two
//! functions, or read in another function than the one that writes it. (A place one function
//! writes several times, a concatenation chain built in place, can be a local.)

use crate::engine::layout::wide_dest;
use crate::engine::place_visit::wide_places;
use crate::engine::program::{Batch, Ins, Place, Program, NONE};
use crate::engine::schedule;

/// How the printer prints the instruction kinds that decide which values can be locals.
#[derive(Clone, Copy, Debug)]
pub(super) struct Printing {
    /// Shortest indexed batch printed as a loop over a table.
    pub batch_loop: usize,
    /// Runs are printed one statement per element (not as a loop over places).
    pub unroll_runs: bool,
    /// Most statements in one function of a full evaluation.
    pub chunk: usize,
}

/// One printed statement (or loop): an instruction of the main program, or one entry of a
/// batch or run printed as its own statement.
#[derive(Clone, Copy, Debug)]
pub(super) enum Item {
    /// `Program::main[i]`, printed whole.
    Ins(u32),
    /// One entry `[d, a, b, c]` of a batch or run of kind `op` (width `w`).
    Entry { op: Batch, w: u8, e: [Place; 4] },
}

/// The items of `p.main[range]` as `pr` prints them.
pub(super) fn items(p: &Program, range: std::ops::Range<usize>, pr: Printing) -> Vec<Item> {
    let mut out = Vec::new();
    for i in range {
        match p.main[i] {
            Ins::Batch { op, w, start, n } if (n as usize) < pr.batch_loop => {
                (p.batch[start as usize..(start + n) as usize].iter())
                    .for_each(|&e| out.push(Item::Entry { op, w, e }));
            }
            Ins::Run { op, w, shape, run } if pr.unroll_runs => {
                let r = p.runs[run as usize];
                (0..r.n).for_each(|k| {
                    out.push(Item::Entry {
                        op,
                        w,
                        e: r.entry(op, shape, k),
                    })
                });
            }
            _ => out.push(Item::Ins(i as u32)),
        }
    }
    out
}

/// Calls `read(place, indexed)` for every place `item` reads and `write(place, indexed)` for
/// every place it writes (`indexed`: accessed through a loop over places or as a multi-word
/// array, so the place must stay in the value array). A multi-word operation's operands are
/// reported as every word up to the longest value's (`Program::max_words`) from each operand's
/// first word: more than it reads, which only keeps more values in the array.
pub(super) fn access(
    p: &Program,
    item: &Item,
    read: &mut dyn FnMut(Place, bool),
    write: &mut dyn FnMut(Place, bool),
) {
    let entry = |op: Batch, e: [Place; 4], indexed: bool, read: &mut dyn FnMut(Place, bool)| {
        e[1..=op.reads().min(2)]
            .iter()
            .for_each(|s| read(*s, indexed));
        if op.reads() == 3 {
            read(e[3], indexed);
        }
    };
    let i = match *item {
        Item::Entry { op, e, .. } => {
            entry(op, e, false, read);
            return write(e[0], false);
        }
        Item::Ins(i) => i as usize,
    };
    match p.main[i] {
        Ins::Wide(k) => {
            let op = &p.wide[k as usize];
            let mut first = true;
            wide_places(&mut op.clone(), &mut |s| {
                if !std::mem::take(&mut first) {
                    (0..p.max_words.max(1) as u32).for_each(|k| read(*s + k, true));
                }
            });
            let (d, words) = wide_dest(p, op);
            (0..words as u32).for_each(|k| write(d + k, true));
        }
        Ins::Batch { op, start, n, .. } => {
            for e in &p.batch[start as usize..(start + n) as usize] {
                entry(op, *e, true, read);
                write(e[0], true);
            }
        }
        Ins::Run { op, shape, run, .. } => {
            let r = p.runs[run as usize];
            for k in 0..r.n {
                let e = r.entry(op, shape, k);
                entry(op, e, true, read);
                write(e[0], true);
            }
        }
        ref ins => {
            let d = schedule::operands(p, ins, |s| read(s, false));
            write(d, false);
        }
    }
}

/// `items` reordered so that each value is computed just before its first reader (a
/// depth-first walk from the items whose results leave the function): printed in the
/// program's level order, every value of a level stays live until the next levels read it,
/// and a large function spills most of them to the stack; in this order most values die
/// within a few statements. Any order in which each item follows the writers of what it
/// reads computes the same values; a dependency is only followed to an earlier item, so the
/// over-approximated operands of `access` cannot create a cycle.
pub(super) fn depth_first(p: &Program, items: &[Item], places: usize) -> Vec<Item> {
    const NO: u32 = u32::MAX;
    let mut writer = vec![NO; places];
    let mut deps: Vec<Vec<u32>> = Vec::with_capacity(items.len());
    let mut read_by_later = vec![false; items.len()];
    for (k, it) in items.iter().enumerate() {
        let mut d = Vec::new();
        access(
            p,
            it,
            &mut |s, _| {
                if let Some(&w) = writer.get(s as usize) {
                    if w != NO {
                        d.push(w);
                    }
                }
            },
            &mut |_, _| {},
        );
        d.iter().for_each(|&w| read_by_later[w as usize] = true);
        d.sort_unstable();
        d.dedup();
        deps.push(d);
        access(p, it, &mut |_, _| {}, &mut |s, _| {
            writer[s as usize] = k as u32
        });
    }
    let mut done = vec![false; items.len()];
    let mut order = Vec::with_capacity(items.len());
    // An explicit stack: (item, next dependency to look at).
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let roots = (0..items.len()).filter(|k| !read_by_later[*k]);
    for root in roots.chain(0..items.len()) {
        if done[root] {
            continue;
        }
        stack.push((root as u32, 0));
        done[root] = true;
        while let Some(&mut (k, ref mut next)) = stack.last_mut() {
            let ds = &deps[k as usize];
            if let Some(&dep) = ds.get(*next) {
                *next += 1;
                if !done[dep as usize] {
                    done[dep as usize] = true;
                    stack.push((dep, 0));
                }
            } else {
                order.push(items[k as usize]);
                stack.pop();
            }
        }
    }
    order
}

/// Where the printer keeps the values of the value array.
pub(super) struct Locals {
    /// Per place: its index in the local array `t` of the function that writes it, or `NONE`
    /// (kept in the value array).
    pub slot: Vec<u32>,
    /// Per generated function: the length of its local array.
    pub len: Vec<u32>,
}

/// The places of the value array the printer keeps in locals: `fns[f]` are the items printed
/// in generated function `f`; `pinned` holds the places that must stay in the array whatever
/// the program does (ports, named signals).
///
/// The locals of a function are one array `t` (constant indices, which the optimiser turns
/// into registers), not one `let` each: every `let` opens a scope nested in the previous
/// one, and thousands of them overflow `rustc`'s stack when it writes debug information.
pub(super) fn locals(p: &Program, fns: &[Vec<Item>], mut pinned: Vec<bool>) -> Locals {
    let n = pinned.len();
    let mut pin = |s: Place, words: u32| {
        if s != NONE {
            let s = s as usize;
            (pinned[s..(s + words as usize).min(n)].iter_mut()).for_each(|x| *x = true);
        }
    };
    // Everything the clock edge and the observation program read.
    for &(_, d, w) in &p.regs_plain {
        pin(d, w);
    }
    for r in &p.regs {
        pin(r.d, r.n);
        pin(r.en, 1);
    }
    for r in &p.sync_reads {
        pin(r.addr, 1);
        pin(r.en, 1);
    }
    for w in &p.writes {
        pin(w.en, 1);
        pin(w.addr, 1);
        pin(w.data, p.mems[w.mem as usize].words);
    }
    if let Some(a) = &p.activity {
        for w in a.watches.iter().chain(&a.sources) {
            pin(w.place, w.words);
        }
        for &(en, _) in &a.mem_writes {
            pin(en, 1);
        }
    }
    for i in 0..p.obs.len() {
        // The observation program is not printed: treat its instructions as indexed.
        let mut visit_obs = |ins: &Ins| match *ins {
            Ins::Wide(k) => {
                let mut first = true;
                wide_places(&mut p.wide[k as usize].clone(), &mut |s| {
                    if !std::mem::take(&mut first) {
                        pin(*s, p.max_words.max(1) as u32);
                    }
                });
            }
            Ins::Batch { op, start, n, .. } => {
                for e in &p.batch[start as usize..(start + n) as usize] {
                    e[1..=op.reads().min(2)].iter().for_each(|s| pin(*s, 1));
                    if op.reads() == 3 {
                        pin(e[3], 1);
                    }
                }
            }
            Ins::Run { op, shape, run, .. } => {
                let r = p.runs[run as usize];
                for k in 0..r.n {
                    let e = r.entry(op, shape, k);
                    e[1..=op.reads().min(2)].iter().for_each(|s| pin(*s, 1));
                    if op.reads() == 3 {
                        pin(e[3], 1);
                    }
                }
            }
            ref ins => {
                schedule::operands(p, ins, |s| pin(s, 1));
            }
        };
        visit_obs(&p.obs[i]);
    }
    // Writers and readers in the printed functions.
    const NO: u32 = u32::MAX;
    let mut def = vec![NO; n];
    let mut uses: Vec<(Place, u32, bool)> = Vec::new();
    let mut writes: Vec<(Place, u32, bool)> = Vec::new();
    for (f, items) in fns.iter().enumerate() {
        let f = f as u32;
        for it in items {
            access(
                p,
                it,
                &mut |s, indexed| uses.push((s, f, indexed)),
                &mut |d, indexed| writes.push((d, f, indexed)),
            );
        }
    }
    for (d, f, indexed) in writes {
        let d = d as usize;
        // A place written several times by one function (a concatenation chain built in
        // place) is a local like any other: the writes stay in program order, and the
        // optimiser makes each one a new SSA value instead of a store and a reload.
        if indexed || (def[d] != NO && def[d] != f) {
            pinned[d] = true;
        }
        def[d] = f;
    }
    for (s, f, indexed) in uses {
        if let Some(x) = pinned.get_mut(s as usize) {
            if indexed || def[s as usize] != f {
                *x = true;
            }
        }
    }
    let mut len = vec![0u32; fns.len()];
    let slot = (0..n)
        .map(|s| {
            if def[s] == NO || pinned[s] {
                return NONE;
            }
            let k = &mut len[def[s] as usize];
            *k += 1;
            *k - 1
        })
        .collect();
    Locals { slot, len }
}
