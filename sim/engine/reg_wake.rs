//! Registers that wake their readers at the clock edge (the interpreter's activity-aware edge).
//!
//! Under [`Eval::Active`](super::Eval::Active) the shared activity tables
//! ([`Activity::sources`]) watch every register output through a shadow copy compared at the
//! start of each settle, and the edge copies every register. On the PBRU that is 11,852
//! one-word and 1,102 multi-word compares per settle and thousands of short block copies per
//! edge, whatever the activity. The interpreter does both at once and only where something can
//! have changed:
//!
//! * A register's new value depends only on its next value `d` and enable `en`, which are
//!   combinational places written by one group each (inputs and constants are not). If neither
//!   group ran since the last edge, `d` and `en` are what that edge saw, so it left `q == d`
//!   (enable high) or `q` unchanged with the enable still low: the load is a no-op. So the edge
//!   visits only the registers of the groups that ran ([`ActState::ran`]), plus the few whose
//!   `d` or `en` no group writes ([`RegWake::always`]).
//! * A visited register compares its new value with `q`; only on a change does it store and
//!   set its readers' flags. Registers then need no shadow and no compare in the settle.
//! * A reset edge overwrites registers behind this bookkeeping's back: it marks every group
//!   active, so the next settle evaluates (and marks as ran) everything.
//!
//! Inputs and synchronous read data stay watched through shadows (`RegWake::src_runs`,
//! `RegWake::wide_sources`). The compiled backend's activity-aware code prints the same rule
//! from these tables (`sim/codegen/wake.rs`).

use super::activity::{Act, ActState, Activity, Watch};
use super::exec::{select, Machine};
use super::program::{Place, Program, NONE};

/// One register as the active edge sees it: `q = en ? d : q` (`en == NONE`: always), `n`
/// words; `cons` are its readers' flag masks (`Activity::acts[cons.0..cons.1]`, possibly empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RegEntry {
    pub q: Place,
    pub d: Place,
    pub en: Place,
    pub n: u32,
    pub cons: (u32, u32),
}

/// The interpreter's register and source tables of activity-aware evaluation.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegWake {
    /// Registers, grouped by the group that writes their `d` or `en` (a register whose two
    /// operands come from two groups is listed under both): group `g`'s are
    /// `regs[by_group[g]..by_group[g + 1]]`.
    pub regs: Vec<RegEntry>,
    pub by_group: Vec<u32>,
    /// Registers visited at every edge (`d` or `en` written by no group): `regs[always..]`.
    pub always: u32,
    /// The sources that are not registers (inputs, synchronous read data), one-word ones as
    /// runs like [`Activity::src_runs`] (indices into `sources`).
    pub src_runs: Vec<(Place, u32, u32, u32)>,
    pub wide_sources: Vec<u32>,
    /// Register count (for `RENDERGEN_SIM_OPS`).
    pub registers: usize,
}

/// Builds the tables from a program and its activity analysis; `writer[place]` is the group
/// writing each place (`u32::MAX` for none).
pub(crate) fn build(p: &Program, a: &Activity, writer: &[u32]) -> RegWake {
    const NO: u32 = u32::MAX;
    let groups = a.groups.len();
    // Readers of each register output (a source with consumers), by first place.
    let cons_of = |q: Place| -> (u32, u32) {
        match a.sources.binary_search_by_key(&q, |w| w.place) {
            Ok(i) => a.sources[i].cons,
            Err(_) => (0, 0),
        }
    };
    let mut all: Vec<RegEntry> = Vec::new();
    for &(q, d, n) in &p.regs_plain {
        for k in 0..n {
            all.push(RegEntry {
                q: q + k,
                d: d + k,
                en: NONE,
                n: 1,
                cons: cons_of(q + k),
            });
        }
    }
    for r in &p.regs {
        all.push(RegEntry {
            q: r.q,
            d: r.d,
            en: r.en,
            n: r.n,
            cons: cons_of(r.q),
        });
    }
    let registers = all.len();
    let mut per: Vec<Vec<RegEntry>> = vec![Vec::new(); groups];
    let mut always = Vec::new();
    let group_of = |x: Place| -> u32 {
        match x {
            NONE => NONE,
            _ => writer.get(x as usize).copied().unwrap_or(NO),
        }
    };
    for e in all {
        let (gd, ge) = (group_of(e.d), group_of(e.en));
        if gd == NO || (e.en != NONE && ge == NO) {
            always.push(e);
            continue;
        }
        per[gd as usize].push(e);
        if e.en != NONE && ge != gd {
            per[ge as usize].push(e);
        }
    }
    let mut w = RegWake {
        registers,
        ..RegWake::default()
    };
    for list in per {
        w.by_group.push(w.regs.len() as u32);
        w.regs.extend(list);
    }
    w.by_group.push(w.regs.len() as u32);
    w.always = w.regs.len() as u32;
    w.regs.extend(always);
    // Sources that are not register outputs.
    let is_reg = {
        let mut q: Vec<Place> = w.regs.iter().map(|e| e.q).collect();
        q.extend(p.resets.iter().map(|r| r.q));
        q.sort_unstable();
        q.dedup();
        q
    };
    for (i, s) in a.sources.iter().enumerate() {
        if is_reg.binary_search(&s.place).is_ok() {
            continue;
        }
        if s.words != 1 {
            w.wide_sources.push(i as u32);
            continue;
        }
        match w.src_runs.last_mut() {
            Some(r) if r.0 + r.2 == s.place && r.1 + r.2 == s.shadow && r.3 + r.2 == i as u32 => {
                r.2 += 1
            }
            _ => w.src_runs.push((s.place, s.shadow, 1, i as u32)),
        }
    }
    w
}

#[inline(always)]
fn activate(active: &mut [u64], acts: &[Act], (a, b): (u32, u32)) {
    for &(w, m) in &acts[a as usize..b as usize] {
        active[w as usize] |= m;
    }
}

/// `x != y` for short slices without a `memcmp` call.
#[inline(always)]
pub(crate) fn differ(x: &[u64], y: &[u64]) -> bool {
    x.iter().zip(y).fold(0, |d, (a, b)| d | (a ^ b)) != 0
}

/// Loads one register; on a change, sets its readers' flags.
#[inline(always)]
fn load(e: &RegEntry, v: &mut [u64], active: &mut [u64], acts: &[Act]) {
    let (q, d) = (e.q as usize, e.d as usize);
    if e.n == 1 {
        let new = match e.en {
            NONE => v[d],
            en => select(v[en as usize], v[d], v[q]),
        };
        if new != v[q] {
            v[q] = new;
            activate(active, acts, e.cons);
        }
    } else {
        let n = e.n as usize;
        if (e.en == NONE || v[e.en as usize] != 0) && differ(&v[q..q + n], &v[d..d + n]) {
            v.copy_within(d..d + n, q);
            activate(active, acts, e.cons);
        }
    }
}

/// Words of a source run compared at once (one vector compare).
const CHUNK: usize = 8;

/// Compares the non-register sources with their shadows and wakes the readers of those that
/// changed (the start of a settle).
#[inline(always)]
pub(crate) fn sources(w: &RegWake, a: &Activity, v: &[u64], st: &mut ActState) {
    for &(p, s, n, f) in &w.src_runs {
        let (p, s, n, f) = (p as usize, s as usize, n as usize, f as usize);
        let (vals, shadow) = (&v[p..p + n], &mut st.shadow[s..s + n]);
        for (c, (x, y)) in vals.chunks(CHUNK).zip(shadow.chunks_mut(CHUNK)).enumerate() {
            if !differ(x, y) {
                continue;
            }
            for (k, (x, y)) in x.iter().zip(y.iter_mut()).enumerate() {
                if x != y {
                    *y = *x;
                    let src = &a.sources[f + c * CHUNK + k];
                    activate(&mut st.active, &a.acts, src.cons);
                }
            }
        }
    }
    for &i in &w.wide_sources {
        check(&a.sources[i as usize], v, st, &a.acts);
    }
}

/// Compares a watched value with its shadow; on a change, updates the shadow and activates the
/// consumers.
#[inline(always)]
pub(crate) fn check(w: &Watch, v: &[u64], st: &mut ActState, acts: &[Act]) {
    let (p, s) = (w.place as usize, w.shadow as usize);
    if w.words == 1 {
        if v[p] != st.shadow[s] {
            st.shadow[s] = v[p];
            activate(&mut st.active, acts, w.cons);
        }
    } else {
        let n = w.words as usize;
        if differ(&v[p..p + n], &st.shadow[s..s + n]) {
            st.shadow[s..s + n].copy_from_slice(&v[p..p + n]);
            activate(&mut st.active, acts, w.cons);
        }
    }
}

/// The registers' part of a clock edge under activity-aware evaluation (after memory writes
/// and synchronous reads, before resets): loads the registers of the groups that ran since the
/// last edge and those visited always, waking the readers of every register that changed.
/// Clears the record of groups that ran.
pub(crate) fn load_registers(w: &RegWake, a: &Activity, m: &mut Machine, st: &mut ActState) {
    let v = &mut m.v[..];
    let active = &mut st.active[..];
    for fw in 0..st.ran.len() {
        let mut bits = std::mem::take(&mut st.ran[fw]);
        while bits != 0 {
            let g = fw * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (s, e) = (w.by_group[g] as usize, w.by_group[g + 1] as usize);
            for r in &w.regs[s..e] {
                load(r, v, active, &a.acts);
            }
        }
    }
    for r in &w.regs[w.always as usize..] {
        load(r, v, active, &a.acts);
    }
}

/// After a reset edge: every group active (the reset wrote registers without waking their
/// readers; the next settle evaluates everything and so records every group as ran).
pub(crate) fn after_reset(a: &Activity, st: &mut ActState) {
    let n = a.groups.len();
    for (k, w) in st.active.iter_mut().enumerate() {
        *w = match n - 64 * k {
            r if r >= 64 => u64::MAX,
            r => (1u64 << r) - 1,
        };
    }
}
