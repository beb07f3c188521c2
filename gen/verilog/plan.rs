//! Analysis of one module before printing: which nodes are live (reach an output, an instance
//! input, or the state feeding them), how often each is used, and which bits of each are read
//! (Verilator's `UNUSEDSIGNAL` is per bit, so partially read signals need a scoped waiver).

use rendergen_hdl::ir::{comb_operands_of, ModuleDef, NodeId, Op};

/// Liveness, use counts and used-bit masks of one module.
pub(crate) struct Plan {
    /// Node reaches something observable.
    pub live: Vec<bool>,
    /// Memory has a live read port.
    pub mem_live: Vec<bool>,
    /// Register is read by live logic.
    pub reg_live: Vec<bool>,
    /// Number of live consumers of each node (operands, register and memory ports, outputs,
    /// instance inputs).
    pub uses: Vec<u32>,
    /// Bits of each node that some live consumer reads (little-endian words).
    pub used_bits: Vec<Vec<u64>>,
}

fn words(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

fn set_range(mask: &mut [u64], lo: u32, width: u32) {
    for b in lo..lo + width {
        mask[(b / 64) as usize] |= 1 << (b % 64);
    }
}

/// True when every bit of a `width`-bit mask is set.
pub(crate) fn all_set(mask: &[u64], width: u32) -> bool {
    (0..width).all(|b| mask[(b / 64) as usize] >> (b % 64) & 1 == 1)
}

/// Describes the unset bits of a mask as Verilog ranges, e.g. `[7:4], [1]`.
pub(crate) fn unset_ranges(mask: &[u64], width: u32) -> String {
    let bit = |b: u32| mask[(b / 64) as usize] >> (b % 64) & 1 == 1;
    let mut ranges = Vec::new();
    let mut b = 0;
    while b < width {
        if bit(b) {
            b += 1;
            continue;
        }
        let lo = b;
        while b < width && !bit(b) {
            b += 1;
        }
        ranges.push(if b - 1 == lo {
            format!("[{lo}]")
        } else {
            format!("[{}:{lo}]", b - 1)
        });
    }
    ranges.reverse();
    ranges.join(", ")
}

/// Every node id that `op` reads, including the sequential inputs of registers and memories
/// (used for liveness, not for evaluation order).
fn visit_all(def: &ModuleDef, id: NodeId, f: &mut impl FnMut(NodeId)) {
    match &def.node(id).op {
        Op::Reg(r) => {
            let reg = &def.regs[*r as usize];
            reg.next.into_iter().chain(reg.enable).for_each(&mut *f);
        }
        Op::MemRead { mem, port } => {
            let m = &def.mems[*mem as usize];
            let rp = &m.reads[*port as usize];
            f(rp.addr);
            rp.enable.into_iter().for_each(&mut *f);
            for w in &m.writes {
                f(w.enable);
                f(w.addr);
                f(w.data);
            }
        }
        op => comb_operands_of(op, &def.mems, f),
    }
}

impl Plan {
    /// Analyses `def`.
    pub fn new(def: &ModuleDef) -> Plan {
        let n = def.nodes.len();
        let mut live = vec![false; n];
        let mut stack: Vec<NodeId> = def.outputs.iter().map(|p| p.node).collect();
        for inst in &def.insts {
            stack.extend(inst.inputs.iter().flatten().copied());
        }
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut live[id as usize], true) {
                continue;
            }
            visit_all(def, id, &mut |o| {
                if !live[o as usize] {
                    stack.push(o)
                }
            });
        }
        let reg_live: Vec<bool> = def.regs.iter().map(|r| live[r.node as usize]).collect();
        let mem_live: Vec<bool> = def
            .mems
            .iter()
            .map(|m| m.reads.iter().any(|r| live[r.node as usize]))
            .collect();
        let mut plan = Plan {
            live,
            mem_live,
            reg_live,
            uses: vec![0; n],
            used_bits: def
                .nodes
                .iter()
                .map(|nd| vec![0; words(nd.width)])
                .collect(),
        };
        plan.count_uses(def);
        plan
    }

    fn use_all(&mut self, def: &ModuleDef, id: NodeId) {
        self.uses[id as usize] += 1;
        set_range(&mut self.used_bits[id as usize], 0, def.node(id).width);
    }

    fn count_uses(&mut self, def: &ModuleDef) {
        for id in 0..def.nodes.len() as NodeId {
            if !self.live[id as usize] {
                continue;
            }
            match &def.node(id).op {
                Op::Slice { a, lo } => {
                    self.uses[*a as usize] += 1;
                    set_range(&mut self.used_bits[*a as usize], *lo, def.node(id).width);
                }
                Op::Reg(_) | Op::MemRead { .. } => {}
                op => comb_operands_of(op, &def.mems, |o| self.use_all(def, o)),
            }
        }
        for (r, reg) in def.regs.iter().enumerate() {
            if self.reg_live[r] {
                for o in reg.next.into_iter().chain(reg.enable) {
                    self.use_all(def, o);
                }
            }
        }
        for (m, mem) in def.mems.iter().enumerate() {
            if !self.mem_live[m] {
                continue;
            }
            for w in &mem.writes {
                for o in [w.enable, w.addr, w.data] {
                    self.use_all(def, o);
                }
            }
            for rp in &mem.reads {
                if !self.live[rp.node as usize] {
                    continue;
                }
                for o in std::iter::once(rp.addr).chain(rp.enable) {
                    self.use_all(def, o);
                }
            }
        }
        for p in &def.outputs {
            self.use_all(def, p.node);
        }
        for inst in &def.insts {
            for d in inst.inputs.iter().flatten() {
                self.use_all(def, *d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_unused_bits() {
        let mut m = vec![0u64; 2];
        set_range(&mut m, 2, 3);
        assert_eq!(unset_ranges(&m, 8), "[7:5], [1:0]");
        set_range(&mut m, 0, 1);
        assert_eq!(unset_ranges(&m, 8), "[7:5], [1]");
        set_range(&mut m, 0, 70);
        assert!(all_set(&m, 70));
    }
}
