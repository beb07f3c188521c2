//! Activity-aware evaluation (issue 10): the main program is cut into *groups* of a few dozen
//! instructions, and a settle evaluates only the groups one of whose inputs changed since the
//! group last ran. In a render engine most units are idle in most cycles, so most groups are
//! skipped.
//!
//! # How
//! * **Partition** ([`partition`], at compile time, before levelising). Instructions that write
//!   the same place (a concatenation chain) form one unit that is never split. Units are ordered
//!   by a depth-first walk of their operands from the netlist's node order, which keeps each
//!   cone of logic (and so each module instance) together, and the walk's post-order is cut into
//!   groups of about [`GROUP_SIZE`] instructions. Every operand of a group is written by an
//!   earlier group (or is an input, state or a constant), so one pass in order settles
//!   everything. Each group is then levelised and batched on its own.
//! * **Watches** ([`analyse`], after the last compiler pass). Every value a group writes and
//!   another group reads is *watched*: after the group runs, the value is compared with a
//!   shadow copy, and if it changed, its consumer groups are marked active. Inputs and state
//!   (register outputs, synchronous read data) are watched the same way at the start of each
//!   settle — but for registers: the interpreter loads only the registers whose next value
//!   or enable was recomputed, at the edge, and wakes the readers of those that changed
//!   ([`reg_wake`](super::reg_wake)); the generated code does the same from the same tables
//!   (`sim/codegen/wake.rs`), so only inputs and synchronous read data keep shadows. A group that reads a memory combinationally is activated
//!   when a write port of that memory was enabled at the last edge.
//! * **Flags** are bits, 64 groups per word (GSIM): a settle tests 64 idle groups at once and
//!   finds the next active one with `trailing_zeros`; a consumer list is stored as one mask
//!   per flag word it touches.
//! * **Cost on the per-cycle path**: a compare per state word (eight neighbouring one-word
//!   sources at a time, `src_runs`; the interpreter: per register of a group that ran), a test
//!   per 64 groups, a compare per watched value of each group that ran — no allocation,
//!   hashing or dynamic dispatch.
//!
//! Reset needs no special case (reset values reach registers, which are watched); the
//! observation program and the VCD read the values, which skipping never leaves stale: a value
//! is recomputed whenever an input of its group changed. Full evaluation (`Eval::Full`) stays
//! the reference; the fuzzer checks that both agree on random designs.

use super::exec::{eval, Machine};
use super::layout::{dests, wide_dest};
use super::place_visit::wide_places;
use super::program::{Ins, Place, Program, WideOp, NONE};
use super::reg_wake::{self, RegWake};
use super::schedule;

/// Instructions per group: GSIM found 20–50 nodes per group a good balance between the cost of
/// the activity checks and the precision of skipping.
pub(crate) const GROUP_SIZE: usize = 32;

/// A value written by one group and read by others.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Watch {
    /// First word and word count.
    pub place: Place,
    pub words: u32,
    /// First word of its copy in the shadow vector.
    pub shadow: u32,
    /// Consumer groups as flag masks: `Activity::acts[cons.0..cons.1]`.
    pub cons: (u32, u32),
}

/// Setting the flags of a consumer list: flag word and mask (group `g` is bit `g % 64` of word
/// `g / 64`; a list sets one mask per word it touches).
pub(crate) type Act = (u32, u64);

/// The activity metadata of a compiled program.
#[derive(Clone, Debug, Default)]
pub(crate) struct Activity {
    /// Per group: its instructions `main[start..end]` and its watches `watches[w0..w1]`.
    pub groups: Vec<(u32, u32, u32, u32)>,
    /// Watched values written by groups.
    pub watches: Vec<Watch>,
    /// Watched inputs and state values, in place order.
    pub sources: Vec<Watch>,
    /// Runs of one-word sources whose places and shadows both advance by one: (first place,
    /// first shadow, words, first source in `sources`). Compared several words at a time.
    pub src_runs: Vec<(Place, u32, u32, u32)>,
    /// The sources of more than one word (indices into `sources`).
    pub wide_sources: Vec<u32>,
    /// Per memory write port whose memory some group reads combinationally: its enable place
    /// and the consumers.
    pub mem_writes: Vec<(Place, (u32, u32))>,
    /// Consumer lists, as flag masks.
    pub acts: Vec<Act>,
    /// Words of the shadow vector.
    pub shadow_words: usize,
    /// The interpreter's registers and non-register sources ([`reg_wake`](super::reg_wake):
    /// registers wake their readers at the edge instead of through shadows).
    pub wake: RegWake,
}

/// The run-time state: which groups must run (packed flags), the shadow copies, and counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct ActState {
    pub active: Vec<u64>,
    /// Groups evaluated since the last edge (packed like `active`): the edge loads only
    /// their registers ([`reg_wake`](super::reg_wake)).
    pub ran: Vec<u64>,
    pub shadow: Vec<u64>,
    /// Settles done and groups evaluated (for [`crate::engine::Simulator::activity`]).
    pub settles: u64,
    pub evaluated: u64,
}

impl Activity {
    /// A fresh run-time state: every group active (the first settle evaluates everything).
    pub(crate) fn state(&self, m: &Machine) -> ActState {
        let mut shadow = vec![0; self.shadow_words];
        for w in self.watches.iter().chain(&self.sources) {
            let (s, p, n) = (w.shadow as usize, w.place as usize, w.words as usize);
            shadow[s..s + n].copy_from_slice(&m.v[p..p + n]);
        }
        ActState {
            active: self.all_active(),
            ran: vec![0; self.flag_words()],
            shadow,
            settles: 0,
            evaluated: 0,
        }
    }
}

impl Activity {
    /// Words of the packed activity flags of generated code: 64 groups per word, group `g`
    /// is bit `g % 64` of word `g / 64`.
    pub(crate) fn flag_words(&self) -> usize {
        self.groups.len().div_ceil(64)
    }

    /// Packed flags with every group active.
    pub(crate) fn all_active(&self) -> Vec<u64> {
        let n = self.groups.len();
        (0..self.flag_words())
            .map(|w| match n - 64 * w {
                k if k >= 64 => u64::MAX,
                k => (1u64 << k) - 1,
            })
            .collect()
    }

    /// The value vector of generated code (`codegen`), which keeps the activity state after
    /// the design's places: `v`, then the packed flags ([`flag_words`](Self::flag_words), every
    /// group active), the shadows, and one counter of the groups evaluated.
    pub(crate) fn values_with_state(&self, m: &Machine) -> Vec<u64> {
        let st = self.state(m);
        let mut v = m.v.clone();
        v.extend(&st.active);
        v.extend(&st.shadow);
        v.push(0);
        v
    }
}

#[inline(always)]
fn activate(active: &mut [u64], acts: &[Act], (a, b): (u32, u32)) {
    for &(w, m) in &acts[a as usize..b as usize] {
        active[w as usize] |= m;
    }
}

/// Settles the main program, evaluating only the active groups (lowest first; a group only
/// activates later groups, so re-reading its flag word after each group sees them).
pub(crate) fn settle(p: &Program, a: &Activity, m: &mut Machine, st: &mut ActState) {
    st.settles += 1;
    reg_wake::sources(&a.wake, a, &m.v, st);
    for fw in 0..st.active.len() {
        loop {
            let bits = st.active[fw];
            if bits == 0 {
                break;
            }
            let low = bits & bits.wrapping_neg();
            st.active[fw] = bits ^ low;
            st.ran[fw] |= low;
            let g = fw * 64 + bits.trailing_zeros() as usize;
            let (start, end, w0, w1) = a.groups[g];
            st.evaluated += 1;
            eval(p, &p.main[start as usize..end as usize], m);
            for w in &a.watches[w0 as usize..w1 as usize] {
                reg_wake::check(w, &m.v, st, &a.acts);
            }
        }
    }
}

/// Before a clock edge (values settled): activates the readers of every memory a write port is
/// about to write. (After the edge the enable's place may already hold a new register value.)
pub(crate) fn before_edge(a: &Activity, m: &Machine, st: &mut ActState) {
    for &(en, cons) in &a.mem_writes {
        if m.v[en as usize] != 0 {
            activate(&mut st.active, &a.acts, cons);
        }
    }
}

/// Cuts `code` (a topological order, not yet levelised) into groups of about `size`
/// instructions, each a topological order, the groups in dependency order. `key[place]` orders
/// the walk (the netlist node that owns the place); `places` is the value vector's length.
pub(crate) fn partition(
    p: &Program,
    code: Vec<Ins>,
    key: &[u32],
    places: usize,
    size: usize,
) -> Vec<Vec<Ins>> {
    let n = code.len();
    let mut last = vec![usize::MAX; places];
    let mut unit = vec![0usize; n];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut dest_of = vec![0 as Place; n];
    for (i, ins) in code.iter().enumerate() {
        let mut reads = Vec::new();
        let d = schedule::operands(p, ins, |s| reads.push(s));
        for s in reads {
            if s != NONE && last[s as usize] != usize::MAX {
                preds[i].push(last[s as usize]);
            }
        }
        let words = match ins {
            Ins::Wide(w) => wide_dest(p, &p.wide[*w as usize]).1,
            _ => 1,
        };
        let prev = last[d as usize];
        unit[i] = if prev == usize::MAX { i } else { unit[prev] };
        for k in 0..words {
            last[d as usize + k] = i;
        }
        dest_of[i] = d;
    }
    // Units: members in program order; predecessors as units.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        members[unit[i]].push(i);
    }
    let mut upreds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        let u = unit[i];
        for &q in &preds[i] {
            let v = unit[q];
            if v != u {
                upreds[u].push(v);
            }
        }
    }
    let ukey = |u: usize| key.get(dest_of[u] as usize).copied().unwrap_or(u32::MAX);
    for l in &mut upreds {
        l.sort_unstable_by_key(|&u| (ukey(u), u));
        l.dedup();
    }
    let mut roots: Vec<usize> = (0..n).filter(|&i| unit[i] == i).collect();
    roots.sort_by_key(|&u| (ukey(u), u));
    // Iterative depth-first post-order.
    let mut done = vec![false; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for r in roots {
        if done[r] {
            continue;
        }
        done[r] = true;
        stack.push((r, 0));
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if let Some(&v) = upreds[u].get(*next) {
                *next += 1;
                if !done[v] {
                    done[v] = true;
                    stack.push((v, 0));
                }
            } else {
                order.push(u);
                stack.pop();
            }
        }
    }
    let mut groups = Vec::new();
    let mut cur: Vec<Ins> = Vec::new();
    for u in order {
        if !cur.is_empty() && cur.len() + members[u].len() > size {
            groups.push(std::mem::take(&mut cur));
        }
        cur.extend(members[u].iter().map(|&i| code[i]));
    }
    if !cur.is_empty() {
        groups.push(cur);
    }
    groups
}

/// The places an instruction of the final program reads (`f`), and the memory it reads
/// combinationally, if any.
fn reads(p: &Program, ins: &Ins, mut f: impl FnMut(Place)) -> Option<u32> {
    match *ins {
        Ins::Batch { op, start, n, .. } => {
            for e in &p.batch[start as usize..(start + n) as usize] {
                e[1..=op.reads()].iter().for_each(|x| f(*x));
            }
            None
        }
        Ins::Run { op, shape, run, .. } => {
            let r = p.runs[run as usize];
            for i in 0..r.n {
                let e = r.entry(op, shape, i);
                e[1..=op.reads()].iter().for_each(|x| f(*x));
            }
            None
        }
        Ins::Wide(i) => {
            let mut op = p.wide[i as usize].clone();
            let mem = match op {
                WideOp::MemRd { mem, .. } => Some(mem),
                _ => None,
            };
            let mut first = true;
            wide_places(&mut op, &mut |s| {
                if !std::mem::take(&mut first) {
                    f(*s)
                }
            });
            mem
        }
        Ins::MemRd { mem, .. } => {
            schedule::operands(p, ins, f);
            Some(mem)
        }
        _ => {
            schedule::operands(p, ins, f);
            None
        }
    }
}

/// Builds the watches of a program whose main is cut at `ends` (the end of each group), with
/// `sources` the (first word, words) of every input and state value. `None` if a place is
/// written by two groups (the partition never does that; full evaluation is then used).
pub(crate) fn analyse(
    p: &Program,
    ends: &[u32],
    sources: &[(Place, u32)],
    places: usize,
) -> Option<Activity> {
    const NO: u32 = u32::MAX;
    let mut writer = vec![NO; places];
    let mut watch_of = vec![NO; places];
    let mut source_of = vec![NO; places];
    let mut watches: Vec<(Place, u32, u32)> = Vec::new(); // place, words, group
    let mut starts = Vec::with_capacity(ends.len());
    let mut start = 0;
    for (g, &end) in ends.iter().enumerate() {
        starts.push(start);
        for ins in &p.main[start as usize..end as usize] {
            let mut clash = false;
            dests(p, ins, &mut |d, n| {
                for x in &mut writer[d..d + n] {
                    clash |= *x != NO && *x != g as u32;
                    *x = g as u32;
                }
                if watch_of[d] == NO {
                    let w = watches.len() as u32;
                    watches.push((d as Place, n as u32, g as u32));
                    watch_of[d..d + n].iter_mut().for_each(|x| *x = w);
                }
            });
            if clash {
                return None;
            }
        }
        start = end;
    }
    // Sources are whole values (a reader names a value's first word and reads all of it).
    // In place order, so that neighbouring state words have neighbouring shadows (generated
    // code compares runs of them several words at a time).
    let mut sources = sources.to_vec();
    sources.sort_unstable();
    let mut srcs: Vec<(Place, u32)> = Vec::new();
    for &(s, n) in &sources {
        let words = s as usize..(s + n) as usize;
        if words.clone().any(|k| writer[k] != NO || source_of[k] != NO) {
            continue;
        }
        source_of[words]
            .iter_mut()
            .for_each(|x| *x = srcs.len() as u32);
        srcs.push((s, n));
    }
    let mut wcons: Vec<Vec<u32>> = vec![Vec::new(); watches.len()];
    let mut scons: Vec<Vec<u32>> = vec![Vec::new(); srcs.len()];
    let mut mcons: Vec<Vec<u32>> = vec![Vec::new(); p.mems.len()];
    for (g, &end) in ends.iter().enumerate() {
        let g = g as u32;
        for ins in &p.main[starts[g as usize] as usize..end as usize] {
            let mem = reads(p, ins, |s| {
                let s = s as usize;
                if s >= places {
                    return;
                }
                if writer[s] != NO {
                    if writer[s] != g {
                        wcons[watch_of[s] as usize].push(g);
                    }
                } else if source_of[s] != NO {
                    scons[source_of[s] as usize].push(g);
                }
            });
            if let Some(mem) = mem {
                mcons[mem as usize].push(g);
            }
        }
    }
    let mut acts: Vec<Act> = Vec::new();
    let mut list = |l: &mut Vec<u32>| {
        l.sort_unstable();
        l.dedup();
        let a = acts.len() as u32;
        for &g in l.iter() {
            let (w, bit) = (g / 64, 1u64 << (g % 64));
            let n = acts.len();
            if n as u32 > a && acts[n - 1].0 == w {
                acts[n - 1].1 |= bit;
            } else {
                acts.push((w, bit));
            }
        }
        (a, acts.len() as u32)
    };
    let mut shadow = 0u32;
    let mut out = Activity::default();
    let mut by_group: Vec<Vec<Watch>> = vec![Vec::new(); ends.len()];
    for (i, &(place, words, g)) in watches.iter().enumerate() {
        if wcons[i].is_empty() {
            continue;
        }
        let w = Watch {
            place,
            words,
            shadow,
            cons: list(&mut wcons[i]),
        };
        shadow += words;
        by_group[g as usize].push(w);
    }
    for (g, ws) in by_group.into_iter().enumerate() {
        let w0 = out.watches.len() as u32;
        out.watches.extend(ws);
        out.groups
            .push((starts[g], ends[g], w0, out.watches.len() as u32));
    }
    for (i, &(place, words)) in srcs.iter().enumerate() {
        if scons[i].is_empty() {
            continue;
        }
        out.sources.push(Watch {
            place,
            words,
            shadow,
            cons: list(&mut scons[i]),
        });
        shadow += words;
    }
    for w in &p.writes {
        if !mcons[w.mem as usize].is_empty() {
            let c = list(&mut mcons[w.mem as usize].clone());
            out.mem_writes.push((w.en, c));
        }
    }
    out.acts = acts;
    out.shadow_words = shadow as usize;
    for (i, w) in out.sources.iter().enumerate() {
        if w.words != 1 {
            out.wide_sources.push(i as u32);
            continue;
        }
        match out.src_runs.last_mut() {
            Some(r) if r.0 + r.2 == w.place && r.1 + r.2 == w.shadow && r.3 + r.2 == i as u32 => {
                r.2 += 1
            }
            _ => out.src_runs.push((w.place, w.shadow, 1, i as u32)),
        }
    }
    out.wake = reg_wake::build(p, &out, &writer);
    Some(out)
}
