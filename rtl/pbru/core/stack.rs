//! The stack RAM of a core: `slots × 2^idx_w` words of 32 bits (slot `s`, word `i` at address
//! `{s, i}`), with combinational read ports and synchronous write ports.

use rendergen_hdl::{cat, clog2, Mem, Module, Sig};

/// Width of the index arithmetic (stack positions, pop bases): wide enough for
/// `sp + 255` and negative intermediate values that the bounds checks never let through.
pub(super) const IW: u32 = 10;

/// The stack memory and its address layout.
#[derive(Clone, Copy)]
pub(super) struct StackRam {
    mem: Mem,
    slots: u32,
    idx_w: u32,
}

impl StackRam {
    /// Declares the memory for `slots` slots of `depth` words.
    pub fn new(m: &mut Module, slots: u32, depth: u32) -> StackRam {
        let idx_w = clog2(depth as u64);
        let mem = m.memory("stack", 32, slots << idx_w);
        StackRam { mem, slots, idx_w }
    }

    /// The RAM address of word `idx` (any width ≥ 1, truncated to the index width) of `slot`.
    #[track_caller]
    pub fn addr(&self, slot: Sig, idx: Sig) -> Sig {
        let i = idx.resize(self.idx_w);
        if self.slots == 1 {
            i
        } else {
            cat(&[slot, i])
        }
    }

    /// Word `idx` of `slot`, now (a combinational read port).
    #[track_caller]
    pub fn read(&self, slot: Sig, idx: Sig) -> Sig {
        self.mem.read_comb(self.addr(slot, idx))
    }

    /// A write port: `stack[slot][idx] <= data` at the edge when `enable`.
    #[track_caller]
    pub fn write(&self, enable: Sig, slot: Sig, idx: Sig, data: Sig) {
        self.mem.write(enable, self.addr(slot, idx), data)
    }
}
