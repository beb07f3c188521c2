//! The register file (a child module `reg_file` of the core): per lane one RAM of
//! `warps × regs` 32-bit words (both counts rounded up to powers of two), four synchronous
//! read ports (read-first) addressed at issue, one write port with a per-lane enable.
//!
//! * **Unwritten registers read 0** (the interpreter's launch state) without a clock per
//!   register: one `written` flip-flop per (warp slot, register); `clear` resets every one of
//!   the slot being written (the first transfer of a launch); a read of a register whose bit is
//!   clear gives 0 in every lane; the first write to such a register writes 0 into the lanes
//!   it does not enable, so the bit is per register, not per lane.
//! * **Timing:** read data one clock after the addresses; a write is visible to reads of the
//!   next clock.
//! * **Cost:** `4 × lanes × 32 × 2^slot_bits × 2^reg_bits` RAM bits (four copies, one per read
//!   port, where the target has two-port RAMs); `warps × 2^reg_bits` `written` flip-flops.

use super::ShaderCfg;
use rendergen_hdl::{cat, cat_lsb_first, name_lets, Io, Module, Reg, Sig};

/// What the register file takes.
#[derive(Io)]
pub struct RegFileIn {
    /// Clear the `written` bits of slot `clear_slot` (a write in the same clock still
    /// counts).
    pub clear: Sig,
    /// The slot cleared (`slot_bits`).
    pub clear_slot: Sig,
    /// The warp slot read (`slot_bits`).
    pub read_slot: Sig,
    /// The four registers read (`reg_bits` each).
    pub read_reg: Vec<Sig>,
    /// Lanes written.
    pub write_en: Sig,
    /// Warp slot written.
    pub write_slot: Sig,
    /// Register written.
    pub write_reg: Sig,
    /// The word of each lane.
    pub write_data: Vec<Sig>,
}

/// What the register file gives: per lane the four words read.
#[derive(Io)]
pub struct RegFileOut {
    /// `data[lane][port]`.
    pub data: Vec<Vec<Sig>>,
}

/// The register file (ports as [`RegFileIn`]/[`RegFileOut`]).
#[name_lets]
pub fn reg_file(m: &mut Module, cfg: &ShaderCfg, i: RegFileIn) -> RegFileOut {
    let (sw, rw) = (cfg.slot_bits(), cfg.reg_bits());
    let warps = cfg.warps as u64;
    let waddr = cat(&[i.write_slot, i.write_reg]);
    // Per slot one register of `2^reg_bits` written bits (bits at or beyond `regs` are
    // never written or read: such register indices fault before they issue).
    let n = 1u32 << rw;
    let any_write = i.write_en.any();
    let onehot = m.lit(1, n).shl(i.write_reg);
    let written: Vec<Reg> = (0..warps)
        .map(|s| {
            let w = m.reg(&format!("written_w{s}"), n).reset(0);
            let set = (any_write & i.write_slot.eq(s)).repeat(n) & onehot;
            let clear = (i.clear & i.clear_slot.eq(s)).repeat(n);
            w.next(set | (w.q() & !clear));
            w
        })
        .collect();
    let mut slices: Vec<Sig> = written.iter().map(|w| w.q()).collect();
    slices.resize((1usize << sw).max(slices.len()), m.lit(0, n));
    let all_bits = cat_lsb_first(&slices);
    let is_written = |addr: Sig| all_bits.shr(addr).bit(0);
    let write_written = is_written(waddr);
    let write_en = write_written.mux(i.write_en, any_write.repeat(cfg.lanes()));
    let read_ok: Vec<Sig> = i
        .read_reg
        .iter()
        .enumerate()
        .map(|(p, &r)| {
            let ok = m.reg(&format!("read{p}_written"), 1).reset(0);
            ok.next(is_written(cat(&[i.read_slot, r])));
            ok.q()
        })
        .collect();
    let data: Vec<Vec<Sig>> = (0..cfg.lanes())
        .map(|l| {
            let rf = m.memory(&format!("rf{l}"), 32, (1u32 << sw) << rw);
            let keep = write_written | i.write_en.bit(l);
            rf.write(
                write_en.bit(l),
                waddr,
                keep.mux(i.write_data[l as usize], m.lit(0, 32)),
            );
            i.read_reg
                .iter()
                .zip(&read_ok)
                .map(|(&r, &ok)| {
                    let word = rf.read_sync(cat(&[i.read_slot, r]), None);
                    word & ok.repeat(32)
                })
                .collect()
        })
        .collect();
    RegFileOut { data }
}
