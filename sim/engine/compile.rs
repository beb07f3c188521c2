//! Compiling a flattened netlist into a [`Program`]: liveness, place allocation, aliasing,
//! constant folding, instruction selection (narrow fast path or multi-word), and staging of the
//! operands the clock edge reads.
//!
//! * **Liveness.** Outputs and every state input (register next/enable, memory ports) are the
//!   roots of the main program; named signals that reach none of them go to the observation
//!   program, run only for VCD sampling and `peek_signal`; everything else is dropped.
//! * **Aliases.** Wires, narrow zero extensions, one-part concatenations and muxes with a
//!   constant select share a place with their source; the top words of a wide value from a word
//!   boundary share those words. (Bit shuffles were already folded by
//!   [`simplify`](super::simplify), on the netlist.)
//! * **Folding.** A node whose operands are all constant is evaluated once, here.
//! * **Staging.** An edge operand that is itself state (a register's next value being another
//!   register's `q`) is copied to a fresh place at the end of the main program, so the edge can
//!   update state in any order.

use super::error::SimError;
use super::exec::{eval, Machine};
use super::program::*;
use super::{activity, fuse, layout, runs, schedule};
use rendergen_hdl::bits::words_for;
use rendergen_hdl::ir::NodeId;
use rendergen_hdl::FlatNetlist;
use std::collections::HashMap;

/// Where an instruction goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Sink {
    Const,
    Main,
    Obs,
}

pub(super) struct Builder<'a> {
    pub(super) flat: &'a FlatNetlist,
    pub(super) prog: Program,
    pub(super) m: Machine,
    pub(super) place: Vec<Place>,
    pub(super) is_const: Vec<bool>,
    /// Per place word: true for register and synchronous-read places.
    pub(super) state: Vec<bool>,
    pub(super) staged: HashMap<NodeId, Place>,
}

/// Compiles `flat`; returns the program and the initial machine state. `named` lists the nodes
/// whose values must stay observable (named signals, for `peek_signal` and the VCD).
/// `group_size` > 0 asks for activity-aware evaluation with groups of about that many
/// instructions ([`activity`](super::activity)); 0 for full evaluation.
pub(crate) fn compile(
    flat: &FlatNetlist,
    named: &[NodeId],
    group_size: usize,
) -> Result<(Program, Machine), SimError> {
    let order = flat.comb_order().map_err(|cycle| SimError::CombLoop {
        signals: cycle.iter().map(|id| flat.path_of(*id)).collect(),
    })?;
    let n = flat.nodes.len();
    let (main_live, obs_live) = liveness(flat, &order, named);
    let mut b = Builder {
        flat,
        prog: Program::default(),
        m: Machine {
            v: Vec::new(),
            mem: Vec::new(),
            scratch: vec![0; 2],
        },
        place: vec![NONE; n],
        is_const: vec![false; n],
        state: Vec::new(),
        staged: HashMap::new(),
    };
    for p in &flat.inputs {
        b.place[p.node as usize] = b.alloc(p.width, false);
    }
    for r in &flat.regs {
        b.place[r.node as usize] = b.alloc(flat.nodes[r.node as usize].width, true);
    }
    for mem in &flat.mems {
        for rp in mem.reads.iter().filter(|r| r.sync) {
            b.place[rp.node as usize] = b.alloc(mem.width, true);
        }
    }
    for &id in &order {
        let sink = if main_live[id as usize] {
            Sink::Main
        } else if obs_live[id as usize] {
            Sink::Obs
        } else {
            continue;
        };
        if b.place[id as usize] == NONE {
            b.node(id, sink);
        }
    }
    b.state_elements();
    let mut seen = vec![false; b.m.v.len()];
    let ids = named.iter().chain(flat.outputs.iter().map(|p| &p.node));
    for &s in ids.map(|id| &b.place[*id as usize]).filter(|s| **s != NONE) {
        seen[s as usize] = true;
    }
    let main = std::mem::take(&mut b.prog.main);
    let main = fuse::fuse(&b.prog, main, &seen);
    if group_size > 0 {
        // The node owning each place orders the partition's walk (module instances stay
        // together).
        let mut key = vec![u32::MAX; b.m.v.len()];
        for (id, &s) in b.place.iter().enumerate() {
            if s != NONE && key[s as usize] == u32::MAX {
                key[s as usize] = id as u32;
            }
        }
        let places = b.m.v.len();
        for group in activity::partition(&b.prog, main, &key, places, group_size) {
            let code = schedule::levelise(&mut b.prog, group);
            b.prog.main.extend(code);
            b.prog.group_ends.push(b.prog.main.len() as u32);
        }
    } else {
        b.prog.main = schedule::levelise(&mut b.prog, main);
    }
    b.prog.node_place = b.place;
    layout::renumber(&mut b.prog, &mut b.m);
    // Each plain register is its own watched source: `runs::form` merges neighbouring ones
    // into block copies, and a block watched as one value would wake the readers of every
    // register in it whenever any one of them changed.
    let plain_regs: Vec<(Place, u32)> = b.prog.regs_plain.iter().map(|r| (r.0, r.2)).collect();
    runs::form(&mut b.prog);
    if group_size > 0 {
        let mut sources: Vec<(Place, u32)> = Vec::new();
        for p in &flat.inputs {
            let s = b.prog.node_place[p.node as usize];
            if s != NONE {
                sources.push((s, words_for(p.width) as u32));
            }
        }
        sources.extend(plain_regs);
        sources.extend(b.prog.regs.iter().map(|r| (r.q, r.n)));
        // A register without a next value changes only on reset.
        sources.extend(b.prog.resets.iter().map(|r| (r.q, r.n)));
        for r in &b.prog.sync_reads {
            sources.push((r.data, b.prog.mems[r.mem as usize].words));
        }
        b.prog.activity = activity::analyse(&b.prog, &b.prog.group_ends, &sources, b.m.v.len());
    }
    schedule::validate(&b.prog, &b.prog.main, b.m.v.len());
    schedule::validate(&b.prog, &b.prog.obs, b.m.v.len());
    b.prog.max_words = b.m.scratch.len();
    Ok((b.prog, b.m))
}

/// Main-program and observation-only liveness.
fn liveness(flat: &FlatNetlist, order: &[NodeId], named: &[NodeId]) -> (Vec<bool>, Vec<bool>) {
    let n = flat.nodes.len();
    let mut main = vec![false; n];
    let mut mark = |id: NodeId| main[id as usize] = true;
    flat.outputs.iter().for_each(|p| mark(p.node));
    for r in &flat.regs {
        r.next.into_iter().chain(r.enable).for_each(&mut mark);
    }
    for mem in &flat.mems {
        for w in &mem.writes {
            [w.enable, w.addr, w.data].into_iter().for_each(&mut mark);
        }
        for r in mem.reads.iter().filter(|r| r.sync) {
            std::iter::once(r.addr).chain(r.enable).for_each(&mut mark);
        }
    }
    let propagate = |live: &mut Vec<bool>, skip: &[bool]| {
        for &id in order.iter().rev() {
            if live[id as usize] {
                flat.comb_operands(id, |a| {
                    if !skip[a as usize] {
                        live[a as usize] = true
                    }
                });
            }
        }
    };
    let none = vec![false; n];
    propagate(&mut main, &none);
    let mut obs: Vec<bool> = (0..n)
        .map(|i| !main[i] && (flat.nodes[i].name.is_some() || flat.nodes[i].soft_name.is_some()))
        .collect();
    // Named signals whose name lives elsewhere (a child module's port, a record field) stay
    // observable too, also when simplification left them without readers.
    for &id in named {
        if !main[id as usize] {
            obs[id as usize] = true;
        }
    }
    propagate(&mut obs, &main);
    (main, obs)
}

impl Builder<'_> {
    pub(super) fn alloc(&mut self, width: u32, state: bool) -> Place {
        let s = self.m.v.len();
        let n = words_for(width);
        self.m.v.resize(s + n, 0);
        self.state.resize(s + n, state);
        if n > self.m.scratch.len() {
            self.m.scratch.resize(n, 0);
        }
        s as Place
    }

    pub(super) fn width(&self, id: NodeId) -> u32 {
        self.flat.nodes[id as usize].width
    }

    pub(super) fn emit(&mut self, ins: Ins, sink: Sink) {
        match sink {
            Sink::Const => {
                schedule::validate(&self.prog, &[ins], self.m.v.len());
                eval(&self.prog, &[ins], &mut self.m)
            }
            Sink::Main => self.prog.main.push(ins),
            Sink::Obs => self.prog.obs.push(ins),
        }
    }

    pub(super) fn emit_wide(&mut self, op: WideOp, sink: Sink) {
        self.prog.wide.push(op);
        self.emit(Ins::Wide(self.prog.wide.len() as u32 - 1), sink);
    }

    /// A narrow place holding `id` as an index (saturated to `u64::MAX` if it does not fit).
    pub(super) fn index(&mut self, id: NodeId, sink: Sink) -> Place {
        let w = self.width(id);
        let a = self.place[id as usize];
        if w <= 64 {
            return a;
        }
        let d = self.alloc(64, false);
        let n = words_for(w) as u32;
        self.emit_wide(WideOp::Sat { d, a, n }, sink);
        d
    }

    pub(super) fn alias(&mut self, id: NodeId, to: NodeId) {
        self.place[id as usize] = self.place[to as usize];
        self.is_const[id as usize] = self.is_const[to as usize];
    }
}
