//! Compiling the state elements: registers (enable, synchronous reset) and memories (initial
//! contents, write ports, synchronous read ports), with their edge operands staged.

use super::compile::{Builder, Sink};
use super::program::*;
use rendergen_hdl::bits::words_for;
use rendergen_hdl::ir::NodeId;

impl Builder<'_> {
    /// A place the clock edge may read for `id`: its own place, or a copy made at the end of the
    /// main program if `id` lives in a state place (which the edge overwrites).
    fn edge_operand(&mut self, id: NodeId) -> Place {
        let s = self.place[id as usize];
        if !self.state[s as usize] {
            return s;
        }
        if let Some(t) = self.staged.get(&id) {
            return *t;
        }
        let w = self.width(id);
        let d = self.alloc(w, false);
        let n = words_for(w) as u32;
        if n == 1 {
            self.emit(Ins::Copy { d, a: s }, Sink::Main);
        } else {
            self.emit_wide(WideOp::Copy { d, a: s, n }, Sink::Main);
        }
        self.staged.insert(id, d);
        d
    }

    /// An edge operand used as an address (narrow, saturated).
    fn edge_index(&mut self, id: NodeId) -> Place {
        if self.width(id) > 64 {
            self.index(id, Sink::Main)
        } else {
            self.edge_operand(id)
        }
    }

    /// Constant value of a 1-bit enable, if it is constant.
    fn const_enable(&self, id: NodeId) -> Option<bool> {
        self.is_const[id as usize].then(|| self.m.v[self.place[id as usize] as usize] != 0)
    }

    /// Registers and memories.
    pub(super) fn state_elements(&mut self) {
        let flat = self.flat;
        for r in &flat.regs {
            let q = self.place[r.node as usize];
            let w = self.width(r.node);
            let n = words_for(w) as u32;
            if let Some(rv) = &r.reset {
                let value = self.prog.reset_values.len() as u32;
                self.prog.reset_values.extend(rv.resized(w).words());
                self.prog.resets.push(RegReset { q, value, n });
            }
            let Some(next) = r.next else { continue };
            let en = match r.enable {
                None => NONE,
                Some(e) => match self.const_enable(e) {
                    Some(true) => NONE,
                    Some(false) => continue,
                    None => self.edge_operand(e),
                },
            };
            let d = self.edge_operand(next);
            if n == 1 && en == NONE {
                self.prog.regs_plain.push((q, d, 1));
            } else {
                self.prog.regs.push(RegUpdate { q, d, en, n });
            }
        }
        for (i, mem) in flat.mems.iter().enumerate() {
            let words = words_for(mem.width);
            let base = self.m.mem.len();
            self.m.mem.resize(base + words * mem.depth as usize, 0);
            for (k, value) in mem.init.iter().flatten().enumerate() {
                let value = value.resized(mem.width);
                let at = base + k * words;
                self.m.mem[at..at + words].copy_from_slice(value.words());
            }
            self.prog.mems.push(MemInfo {
                base,
                depth: mem.depth as u64,
                words: words as u32,
            });
            let mem_index = i as u32;
            for rp in mem.reads.iter().filter(|r| r.sync) {
                let en = match rp.enable {
                    None => NONE,
                    Some(e) => match self.const_enable(e) {
                        Some(true) => NONE,
                        Some(false) => continue,
                        None => self.edge_operand(e),
                    },
                };
                let addr = self.edge_index(rp.addr);
                let data = self.place[rp.node as usize];
                self.prog.sync_reads.push(SyncRead {
                    mem: mem_index,
                    addr,
                    en,
                    data,
                });
            }
            for wp in &mem.writes {
                if self.const_enable(wp.enable) == Some(false) {
                    continue;
                }
                let en = self.edge_operand(wp.enable);
                let addr = self.edge_index(wp.addr);
                let data = self.edge_operand(wp.data);
                self.prog.writes.push(MemWrite {
                    mem: mem_index,
                    en,
                    addr,
                    data,
                });
            }
        }
    }
}
