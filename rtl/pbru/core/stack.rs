//! The stack RAM of a core: `slots × 2^idx_w` words of 32 bits in four banks interleaved by
//! word index (word `i` of slot `s` in bank `i mod 4`, row `{s, i / 4}`), so that any four
//! consecutive words of a slot are read, or written, in one cycle with one port per bank.
//!
//! Ports per bank: two combinational reads ([`StackRam::read4`] by the execute stage and by the
//! retire engine) and three synchronous writes ([`StackRam::write4`] by the execute stage, the
//! write-back and the intake). A four-word access costs a 4:1 rotation of the words on top of
//! the banks' own decoders.

use rendergen_hdl::{cat, clog2, index_select, name_lets, or_all, Mem, Module, Sig};

/// Width of the index arithmetic (stack positions, pop bases): wide enough for
/// `sp + 255` and negative intermediate values that the bounds checks never let through.
pub(super) const IW: u32 = 10;

/// Words per access, and banks.
const BANKS: u32 = 4;

/// The stack memory and its address layout.
#[derive(Clone, Copy)]
pub(super) struct StackRam {
    banks: [Mem; BANKS as usize],
    slots: u32,
    row_w: u32,
}

/// One word of a [`StackRam::write4`]: written when `enable`.
#[derive(Clone, Copy)]
pub(super) struct WordWrite {
    /// Write this word.
    pub enable: Sig,
    /// Its value.
    pub data: Sig,
}

impl StackRam {
    /// Declares the memory for `slots` slots of `depth` (≥ 4) words.
    #[name_lets]
    pub fn new(m: &mut Module, slots: u32, depth: u32) -> StackRam {
        let row_w = clog2(depth as u64).max(2) - 2;
        // At least two rows, addressed by the index (one slot of four words uses row 0 only):
        // Yosys turns a memory with constant addresses into registers, with a warning.
        let rows = (slots << row_w).max(2);
        let banks = [0, 1, 2, 3].map(|b| m.memory(&format!("stack_bank{b}"), 32, rows));
        StackRam {
            banks,
            slots,
            row_w,
        }
    }

    /// The bank row of `row` (truncated to the row width) of `slot`.
    #[track_caller]
    fn row_addr(&self, slot: Sig, row: Sig) -> Sig {
        match (self.slots, self.row_w) {
            (1, 0) => row.resize(1),
            (1, w) => row.resize(w),
            (_, 0) => slot,
            (_, w) => cat(&[slot, row.resize(w)]),
        }
    }

    /// For each bank `b`: the row holding word `base + ((b − base) mod 4)` of `slot`, and the
    /// position `j` of that word in the group `base .. base + 3`.
    #[track_caller]
    #[name_lets]
    fn group(&self, slot: Sig, base: Sig) -> Vec<(Sig, Sig)> {
        let lo = base.resize(2);
        let row = base.resize(IW) >> 2;
        (0..BANKS as u64)
            .map(|b| {
                // Banks below `base mod 4` hold the group's words of the next row.
                let r = if b == 3 { row } else { row + lo.gt(b).zext(IW) };
                let j = !lo + ((b + 1) % 4);
                (self.row_addr(slot, r), j)
            })
            .collect()
    }

    /// Words `base`, `base + 1`, `base + 2`, `base + 3` of `slot`, now (one combinational read
    /// port of every bank). `base` may have any width; positions wrap at the stack size.
    #[track_caller]
    #[name_lets]
    pub fn read4(&self, slot: Sig, base: Sig) -> [Sig; 4] {
        let outs: Vec<Sig> = self
            .group(slot, base)
            .into_iter()
            .zip(self.banks)
            .map(|((row, _), bank)| bank.read_comb(row))
            .collect();
        let lo = base.resize(2);
        [0u64, 1, 2, 3].map(|j| index_select(lo + j, &outs))
    }

    /// Writes `words[j]` to word `base + j` of `slot` at the edge, for each `j < words.len()`
    /// (≤ 4) whose `enable` is high (one write port of every bank).
    #[track_caller]
    #[name_lets]
    pub fn write4(&self, slot: Sig, base: Sig, words: &[WordWrite]) {
        assert!(
            !words.is_empty() && words.len() <= BANKS as usize,
            "1 to 4 words"
        );
        for ((row, j), bank) in self.group(slot, base).into_iter().zip(self.banks) {
            let enable = or_all((words.iter().enumerate()).map(|(k, w)| j.eq(k as u64) & w.enable));
            let data: Vec<Sig> = words.iter().map(|w| w.data).collect();
            let data = if data.len() == 1 {
                data[0]
            } else {
                index_select(j.resize(clog2(data.len() as u64)), &data)
            };
            bank.write(enable, row, data);
        }
    }
}
