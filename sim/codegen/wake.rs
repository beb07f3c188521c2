//! Registers that wake their readers at the clock edge, in activity-aware generated code.
//!
//! The shared activity tables ([`Activity::sources`]) watch every register output through a
//! shadow copy compared at the start of each settle: on the PBRU, about 12,000 state words
//! scanned per cycle whatever the activity (38 % of the compiled backend's time on the texture
//! workload). Generated code does what the interpreter's edge does
//! (`engine::reg_wake`, whose tables it prints):
//!
//! * A register's new value depends only on its next value `d` and enable `en`, combinational
//!   places written by one group each. If neither group ran since the last edge, that edge
//!   left `q == d` (or `q` held with the enable still low), so loading it again is a no-op.
//!   The settle's dispatcher therefore records the groups it runs (`RAN`, one bit per group,
//!   packed like the activity flags), and the edge (`registers`) calls the register loads of
//!   the groups that ran (`regs_G`, one function per group with registers, dispatched by a
//!   `match` like the groups; `HAS_REGS` masks out the groups without registers), plus those
//!   of the registers whose `d` or `en` is an input, printed straight into `registers`.
//! * A register whose `d` and `en` are constants differs from `d` only before the first edge
//!   and after a reset edge, and the settle before either runs every group: it is loaded with
//!   the registers of its first reader's group (any group would do).
//! * A load compares the new value with `q`; only on a change does it store and set its
//!   readers' flags. Register outputs need no shadow and no compare in the settle, which
//!   compares only the other sources (inputs, synchronous read data).
//! * A reset edge writes registers behind this bookkeeping's back: it sets every group's flag,
//!   so the next settle evaluates, and records as ran, everything.
//!
//! `RAN` lives in shadow words the scheme frees (those of register outputs), so the value
//! array keeps the layout the simulator gives it (`Activity::values_with_state`): its initial
//! contents are not zero, which only makes the first edge load more registers than needed
//! (the first settle runs every group anyway). A design without `flag_words` free shadow words
//! in a row (a few registers and more than 64 groups) keeps the shadow compare of registers
//! ([`ran_words`] is `None`).
//!
//! Cost on the per-cycle path: one OR per flag word the settle visits, and at the edge one
//! test per flag word plus, per register of a group that ran, a load, a compare and a branch.

use super::Gen;
use crate::engine::activity::Activity;
use crate::engine::program::NONE;
use crate::engine::reg_wake::RegEntry;
use std::fmt::Write;

/// Where generated code keeps the record of the groups that ran: the offset in the shadow
/// vector of `flag_words` neighbouring shadow words of register outputs (which no settle
/// compares under this scheme), or `None` if there is no such run.
pub(super) fn ran_words(a: &Activity) -> Option<usize> {
    let n = a.flag_words();
    if n == 0 {
        return Some(0);
    }
    let mut watched = vec![false; a.sources.len()];
    for &(_, _, len, f) in &a.wake.src_runs {
        watched[f as usize..(f + len) as usize].fill(true);
    }
    for &i in &a.wake.wide_sources {
        watched[i as usize] = true;
    }
    let mut free = vec![false; a.shadow_words];
    for (s, _) in a.sources.iter().zip(&watched).filter(|(_, w)| !**w) {
        free[s.shadow as usize..(s.shadow + s.words) as usize].fill(true);
    }
    let mut run = 0;
    for (k, &f) in free.iter().enumerate() {
        run = if f { run + 1 } else { 0 };
        if run == n {
            return Some(k + 1 - n);
        }
    }
    None
}

/// The register part of an activity-aware edge (see the [module docs](self)): the items
/// printed before the edge (`RAN`, `HAS_REGS`, the `regs_G` functions and `registers`); the
/// edge itself calls `registers(v)` after the memories.
///
/// `ran` is the place of the first `RAN` word, `flags` that of the first activity flag word.
pub(super) fn registers(g: &Gen, a: &Activity, ran: usize, flags: usize) -> String {
    let w = &a.wake;
    let activate = |cons: (u32, u32)| -> String {
        (a.acts[cons.0 as usize..cons.1 as usize].iter())
            .map(|&(fw, m)| format!("v[{}] |= {m:#x}; ", flags + fw as usize))
            .collect()
    };
    let ngroups = a.groups.len();
    // A register with a constant next value (and enable) differs from it only before the
    // first edge and after a reset edge, and the settle before either edge runs every group:
    // listed under any one group, it is loaded when needed. Under its first reader's group
    // (the PBRU has 410 of them, which would otherwise be loaded at every edge).
    let constant = |e: &RegEntry| {
        (e.d..e.d + e.n).all(|k| g.konst[k as usize]) && (e.en == NONE || g.konst[e.en as usize])
    };
    let mut extra: Vec<Vec<&RegEntry>> = vec![Vec::new(); ngroups];
    let mut always = Vec::new();
    for r in &w.regs[w.always as usize..] {
        match (constant(r), a.acts.get(r.cons.0 as usize)) {
            (true, Some(&(fw, m))) if r.cons.0 < r.cons.1 => {
                extra[fw as usize * 64 + m.trailing_zeros() as usize].push(r)
            }
            (true, _) if ngroups > 0 => extra[0].push(r),
            _ => always.push(r),
        }
    }
    let mut has = vec![0u64; a.flag_words()];
    let mut out = format!(
        "\n/// First word of the record of groups that ran since the last edge (packed like\n\
         /// the flags; in shadow words of register outputs, which this scheme does not use).\n\
         const RAN: usize = {ran};\n"
    );
    let mut arms = String::new();
    for grp in 0..ngroups {
        let (s, e) = (w.by_group[grp] as usize, w.by_group[grp + 1] as usize);
        if s == e && extra[grp].is_empty() {
            continue;
        }
        has[grp / 64] |= 1 << (grp % 64);
        writeln!(
            out,
            "\n#[inline(never)]\nfn regs_{grp}(v: &mut [u64; PLACES]) {{"
        )
        .unwrap();
        for r in w.regs[s..e].iter().chain(extra[grp].iter().copied()) {
            writeln!(out, "    {}", g.load(r, &activate)).unwrap();
        }
        out.push_str("}\n");
        writeln!(arms, "                {grp} => regs_{grp}(v),").unwrap();
    }
    let has: Vec<String> = has.iter().map(|m| format!("{m:#x}")).collect();
    write!(
        out,
        "\n/// Per flag word, the groups that load registers.\n\
         static HAS_REGS: [u64; FLAG_WORDS] = [{}];\n\
         \n/// The registers' part of the clock edge: loads the registers of the groups that ran\n\
         /// since the last edge and those whose next value or enable no group writes; a\n\
         /// register that changes wakes its readers.\n\
         #[inline(never)]\nfn registers(v: &mut [u64; PLACES]) {{\n\
         \x20   for w in 0..FLAG_WORDS {{\n\
         \x20       let mut bits = v[RAN + w] & HAS_REGS[w];\n\
         \x20       v[RAN + w] = 0;\n\
         \x20       while bits != 0 {{\n\
         \x20           let g = w * 64 + bits.trailing_zeros() as usize;\n\
         \x20           bits &= bits - 1;\n\
         \x20           match g {{\n\
         {arms}\
         \x20               _ => {{}}\n\
         \x20           }}\n\
         \x20       }}\n\
         \x20   }}\n",
        has.join(", ")
    )
    .unwrap();
    for r in always {
        writeln!(out, "    {}", g.load(r, &activate)).unwrap();
    }
    out.push_str("    let _ = v;\n}\n");
    out
}

/// The reset statement of an activity-aware edge that wakes readers: the reset values, then
/// every group's flag (the flags start at place `flags`).
pub(super) fn reset(g: &Gen, a: &Activity, flags: usize) -> String {
    let mut body = String::from("if rst { ");
    body.push_str(&g.reset_values());
    for (k, m) in a.all_active().iter().enumerate() {
        write!(body, "v[{}] = {m:#x}; ", flags + k).unwrap();
    }
    body + "}"
}

impl Gen<'_> {
    /// One register's load: on a change, store and set the readers' flags (`activate`).
    fn load(&self, e: &RegEntry, activate: &dyn Fn((u32, u32)) -> String) -> String {
        let act = activate(e.cons);
        let (q, d) = (e.q, e.d);
        if e.n == 1 {
            let body = format!(
                "let x = {}; if x != v[{q}] {{ v[{q}] = x; {act}}}",
                self.r(d)
            );
            return match e.en {
                NONE => format!("{{ {body} }}"),
                en => format!("if {} != 0 {{ {body} }}", self.r(en)),
            };
        }
        let differ: Vec<String> = (0..e.n)
            .map(|k| format!("{} != v[{}]", self.r(d + k), q + k))
            .collect();
        let copy: String = (0..e.n)
            .map(|k| format!("v[{}] = {}; ", q + k, self.r(d + k)))
            .collect();
        let cond = match e.en {
            NONE => differ.join(" || "),
            en => format!("{} != 0 && ({})", self.r(en), differ.join(" || ")),
        };
        format!("if {cond} {{ {copy}{act}}}")
    }
}
