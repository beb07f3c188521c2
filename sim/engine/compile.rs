//! Compiling a flattened netlist into a [`Program`]: liveness, slot allocation, aliasing,
//! constant folding, instruction selection (narrow fast path or multi-word), and staging of the
//! operands the clock edge reads.
//!
//! * **Liveness.** Outputs and every state input (register next/enable, memory ports) are the
//!   roots of the main program; named signals that reach none of them go to the observation
//!   program, run only for VCD sampling and `peek_signal`; everything else is dropped.
//! * **Aliases.** Wires, narrow zero extensions, one-part concatenations and muxes with a
//!   constant select share a slot with their source.
//! * **Folding.** A node whose operands are all constant is evaluated once, here.
//! * **Staging.** An edge operand that is itself state (a register's next value being another
//!   register's `q`) is copied to a fresh slot at the end of the main program, so the edge can
//!   update state in any order.

use super::error::SimError;
use super::exec::{eval, Machine};
use super::program::*;
use super::schedule;
use rendergen_hdl::bits::words_for;
use rendergen_hdl::ir::{BinOp, NodeId, Op, UnOp};
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
    pub(super) slot: Vec<Slot>,
    pub(super) is_const: Vec<bool>,
    /// Per slot word: true for register and synchronous-read slots.
    pub(super) state: Vec<bool>,
    pub(super) staged: HashMap<NodeId, Slot>,
}

/// Compiles `flat`; returns the program and the initial machine state.
pub(crate) fn compile(flat: &FlatNetlist) -> Result<(Program, Machine), SimError> {
    let order = flat.comb_order().map_err(|cycle| SimError::CombLoop {
        signals: cycle.iter().map(|id| flat.path_of(*id)).collect(),
    })?;
    let n = flat.nodes.len();
    let (main_live, obs_live) = liveness(flat, &order);
    let mut b = Builder {
        flat,
        prog: Program::default(),
        m: Machine {
            v: Vec::new(),
            mem: Vec::new(),
            scratch: vec![0; 2],
        },
        slot: vec![NONE; n],
        is_const: vec![false; n],
        state: Vec::new(),
        staged: HashMap::new(),
    };
    for p in &flat.inputs {
        b.slot[p.node as usize] = b.alloc(p.width, false);
    }
    for r in &flat.regs {
        b.slot[r.node as usize] = b.alloc(flat.nodes[r.node as usize].width, true);
    }
    for mem in &flat.mems {
        for rp in mem.reads.iter().filter(|r| r.sync) {
            b.slot[rp.node as usize] = b.alloc(mem.width, true);
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
        if b.slot[id as usize] == NONE {
            b.node(id, sink);
        }
    }
    b.state_elements();
    let main = std::mem::take(&mut b.prog.main);
    b.prog.main = schedule::levelise(&mut b.prog, main);
    schedule::validate(&b.prog, &b.prog.main, b.m.v.len());
    schedule::validate(&b.prog, &b.prog.obs, b.m.v.len());
    b.prog.node_slot = b.slot;
    b.prog.max_words = b.m.scratch.len();
    Ok((b.prog, b.m))
}

/// Main-program and observation-only liveness.
fn liveness(flat: &FlatNetlist, order: &[NodeId]) -> (Vec<bool>, Vec<bool>) {
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
        .map(|i| !main[i] && flat.nodes[i].name.is_some())
        .collect();
    propagate(&mut obs, &main);
    (main, obs)
}

impl Builder<'_> {
    pub(super) fn alloc(&mut self, width: u32, state: bool) -> Slot {
        let s = self.m.v.len();
        let n = words_for(width);
        self.m.v.resize(s + n, 0);
        self.state.resize(s + n, state);
        if n > self.m.scratch.len() {
            self.m.scratch.resize(n, 0);
        }
        s as Slot
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

    /// A narrow slot holding `id` as an index (saturated to `u64::MAX` if it does not fit).
    pub(super) fn index(&mut self, id: NodeId, sink: Sink) -> Slot {
        let w = self.width(id);
        let a = self.slot[id as usize];
        if w <= 64 {
            return a;
        }
        let d = self.alloc(64, false);
        let n = words_for(w) as u32;
        self.emit_wide(WideOp::Sat { d, a, n }, sink);
        d
    }

    fn alias(&mut self, id: NodeId, to: NodeId) {
        self.slot[id as usize] = self.slot[to as usize];
        self.is_const[id as usize] = self.is_const[to as usize];
    }

    /// Compiles one live node that has no slot yet.
    fn node(&mut self, id: NodeId, sink: Sink) {
        let node = &self.flat.nodes[id as usize];
        let w = node.width;
        let mut all_const = true;
        let mut widest = 0;
        self.flat.comb_operands(id, |a| {
            all_const &= self.is_const[a as usize];
            widest = widest.max(self.flat.nodes[a as usize].width);
        });
        let pure = !matches!(node.op, Op::MemRead { .. });
        let sink = if all_const && pure { Sink::Const } else { sink };
        let sl = |b: &Self, x: NodeId| b.slot[x as usize];
        match &node.op {
            Op::Const(bits) => {
                let d = self.alloc(w, false);
                let words = bits.resized(w);
                let n = words.words().len();
                self.m.v[d as usize..d as usize + n].copy_from_slice(words.words());
                self.slot[id as usize] = d;
                self.is_const[id as usize] = true;
                return;
            }
            Op::Wire(Some(src)) => return self.alias(id, *src),
            Op::Concat(parts) if parts.len() == 1 => return self.alias(id, parts[0]),
            Op::Extend { a, signed } if w == self.width(*a) || (!signed && w <= 64) => {
                return self.alias(id, *a)
            }
            Op::Slice { a, lo: 0 } if w == self.width(*a) => return self.alias(id, *a),
            Op::Mux {
                sel,
                on_true,
                on_false,
            } if self.is_const[*sel as usize] => {
                let s = self.m.v[sl(self, *sel) as usize];
                return self.alias(id, if s != 0 { *on_true } else { *on_false });
            }
            _ => {}
        }
        let d = self.alloc(w, false);
        self.slot[id as usize] = d;
        self.is_const[id as usize] = sink == Sink::Const;
        let narrow = w <= 64 && widest <= 64;
        let wb = w as u8;
        match node.op.clone() {
            Op::Wire(_) | Op::Const(_) | Op::Input(_) | Op::Reg(_) | Op::InstOut { .. } => {
                // Undriven (rejected by elaboration) or already allocated: stays zero.
            }
            Op::MemRead { mem, .. } => {
                let rp = self.flat.mems[mem as usize]
                    .reads
                    .iter()
                    .find(|r| r.node == id)
                    .expect("read port of its node")
                    .clone();
                let addr = self.index(rp.addr, sink);
                if words_for(w) == 1 {
                    self.emit(Ins::MemRd { d, mem, addr }, sink)
                } else {
                    self.emit_wide(WideOp::MemRd { d, mem, addr }, sink)
                }
            }
            Op::Unary(op, a) => {
                let wa = self.width(a);
                let a = sl(self, a);
                let ins = match op {
                    _ if !narrow => None,
                    UnOp::Not => Some(Ins::Not { d, a, w: wb }),
                    UnOp::Neg => Some(Ins::Neg { d, a, w: wb }),
                    UnOp::RedAnd => Some(Ins::RedAnd { d, a, w: wa as u8 }),
                    UnOp::RedOr => Some(Ins::RedOr { d, a }),
                    UnOp::RedXor => Some(Ins::RedXor { d, a }),
                };
                match ins {
                    Some(ins) => self.emit(ins, sink),
                    None => self.emit_wide(WideOp::Un { op, d, a, w, wa }, sink),
                }
            }
            Op::Binary(op, a, b) => {
                let wa = self.width(a);
                let narrow = w <= 64 && wa <= 64 && (op.is_shift() || self.width(b) <= 64);
                let a = sl(self, a);
                let b = if op.is_shift() {
                    self.index(b, sink)
                } else {
                    sl(self, b)
                };
                if narrow {
                    self.emit(binary(op, d, a, b, wa as u8), sink)
                } else {
                    self.emit_wide(WideOp::Bin { op, d, a, b, w, wa }, sink)
                }
            }
            Op::Mux {
                sel,
                on_true,
                on_false,
            } => {
                let (s, t, f) = (sl(self, sel), sl(self, on_true), sl(self, on_false));
                if narrow {
                    self.emit(Ins::Mux { d, s, t, f }, sink)
                } else {
                    let n = words_for(w) as u32;
                    self.emit_wide(WideOp::Mux { d, s, t, f, n }, sink)
                }
            }
            Op::Concat(parts) => {
                if narrow {
                    let mut hi = sl(self, parts[0]);
                    for &p in &parts[1..] {
                        let (lo, sh) = (sl(self, p), self.width(p) as u8);
                        self.emit(Ins::Cat2 { d, hi, lo, sh }, sink);
                        hi = d;
                    }
                } else {
                    let parts = parts.iter().map(|p| (sl(self, *p), self.width(*p)));
                    let parts = parts.collect();
                    self.emit_wide(WideOp::Concat { d, w, parts }, sink)
                }
            }
            Op::Slice { a, lo } => {
                let wa = self.width(a);
                let a = sl(self, a);
                if narrow {
                    self.emit(
                        Ins::Slice {
                            d,
                            a,
                            lo: lo as u8,
                            w: wb,
                        },
                        sink,
                    )
                } else {
                    self.emit_wide(WideOp::Slice { d, a, wa, lo, w }, sink)
                }
            }
            Op::Extend { a, signed } => {
                let wa = self.width(a);
                let a = sl(self, a);
                if narrow {
                    self.emit(
                        Ins::Sext {
                            d,
                            a,
                            wa: wa as u8,
                            w: wb,
                        },
                        sink,
                    )
                } else {
                    self.emit_wide(
                        WideOp::Extend {
                            d,
                            a,
                            wa,
                            w,
                            signed,
                        },
                        sink,
                    )
                }
            }
            Op::Select {
                index,
                cases,
                default,
            } => {
                let idx = self.index(index, sink);
                let mut slots: Vec<Slot> = cases.iter().map(|c| sl(self, *c)).collect();
                let default = sl(self, default);
                let n = cases.len() as u32;
                if w <= 64 {
                    let start = self.prog.sel_tab.len() as u32;
                    slots.push(default);
                    self.prog.sel_tab.extend(slots);
                    self.emit(Ins::Select { d, idx, start, n }, sink)
                } else {
                    let (cases, n) = (slots, words_for(w) as u32);
                    let op = WideOp::Select {
                        d,
                        idx,
                        cases,
                        default,
                        n,
                    };
                    self.emit_wide(op, sink)
                }
            }
            Op::Lut { index, table } => {
                let idx = self.index(index, sink);
                let entries = table.len() as u32;
                if w <= 64 {
                    let start = self.prog.lut_tab.len() as u32;
                    let vals = table.iter().map(|b| b.resized(w).to_u64());
                    self.prog.lut_tab.extend(vals);
                    self.emit(
                        Ins::Lut {
                            d,
                            idx,
                            start,
                            n: entries,
                        },
                        sink,
                    )
                } else {
                    let n = words_for(w) as u32;
                    let t = table.iter().flat_map(|b| b.resized(w).words().to_vec());
                    let table = t.collect();
                    let op = WideOp::Lut {
                        d,
                        idx,
                        table,
                        entries,
                        n,
                    };
                    self.emit_wide(op, sink)
                }
            }
        }
    }
}

/// The narrow instruction for a binary operation (`w` is the operand width).
fn binary(op: BinOp, d: Slot, a: Slot, b: Slot, w: u8) -> Ins {
    match op {
        BinOp::Add => Ins::Add { d, a, b, w },
        BinOp::Sub => Ins::Sub { d, a, b, w },
        BinOp::Mul => Ins::Mul { d, a, b, w },
        BinOp::And => Ins::And { d, a, b },
        BinOp::Or => Ins::Or { d, a, b },
        BinOp::Xor => Ins::Xor { d, a, b },
        BinOp::Shl => Ins::Shl { d, a, b, w },
        BinOp::Shr => Ins::Shr { d, a, b, w },
        BinOp::Sra => Ins::Sra { d, a, b, w },
        BinOp::Eq => Ins::Eq { d, a, b },
        BinOp::Ne => Ins::Ne { d, a, b },
        BinOp::Lt => Ins::Lt { d, a, b },
        BinOp::Le => Ins::Le { d, a, b },
        BinOp::SLt => Ins::SLt { d, a, b, w },
        BinOp::SLe => Ins::SLe { d, a, b, w },
    }
}
