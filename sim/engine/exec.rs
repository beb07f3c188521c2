//! The interpreter: evaluates a [`Program`]'s combinational instructions in order and applies
//! the clock edge. Nothing here allocates, hashes or dispatches dynamically.

use super::program::{mask, Ins, MemInfo, Program, NONE};
use super::wide;

/// The mutable state of a simulation: signal values, memory contents, scratch space.
#[derive(Clone, Debug)]
pub(crate) struct Machine {
    /// Signal values, indexed by slot.
    pub v: Vec<u64>,
    /// Memory contents of all memories.
    pub mem: Vec<u64>,
    /// Scratch for multi-word operations.
    pub scratch: Vec<u64>,
}

#[inline(always)]
fn sx(x: u64, w: u8) -> i64 {
    let s = 64 - w as u32;
    ((x << s) as i64) >> s
}

#[inline(always)]
fn mem_index(m: &MemInfo, addr: u64) -> Option<usize> {
    (addr < m.depth).then(|| m.base + addr as usize * m.words as usize)
}

/// Runs `code` (part of `p`) once over the machine.
pub(crate) fn eval(p: &Program, code: &[Ins], m: &mut Machine) {
    let v = &mut m.v[..];
    for ins in code {
        match *ins {
            Ins::Copy { d, a } => v[d as usize] = v[a as usize],
            Ins::Not { d, a, w } => v[d as usize] = !v[a as usize] & mask(w),
            Ins::Neg { d, a, w } => v[d as usize] = v[a as usize].wrapping_neg() & mask(w),
            Ins::RedAnd { d, a, w } => v[d as usize] = (v[a as usize] == mask(w)) as u64,
            Ins::RedOr { d, a } => v[d as usize] = (v[a as usize] != 0) as u64,
            Ins::RedXor { d, a } => v[d as usize] = (v[a as usize].count_ones() & 1) as u64,
            Ins::Add { d, a, b, w } => {
                v[d as usize] = v[a as usize].wrapping_add(v[b as usize]) & mask(w)
            }
            Ins::Sub { d, a, b, w } => {
                v[d as usize] = v[a as usize].wrapping_sub(v[b as usize]) & mask(w)
            }
            Ins::Mul { d, a, b, w } => {
                v[d as usize] = v[a as usize].wrapping_mul(v[b as usize]) & mask(w)
            }
            Ins::And { d, a, b } => v[d as usize] = v[a as usize] & v[b as usize],
            Ins::Or { d, a, b } => v[d as usize] = v[a as usize] | v[b as usize],
            Ins::Xor { d, a, b } => v[d as usize] = v[a as usize] ^ v[b as usize],
            Ins::Shl { d, a, b, w } => {
                let s = v[b as usize];
                v[d as usize] = if s >= w as u64 {
                    0
                } else {
                    (v[a as usize] << s) & mask(w)
                }
            }
            Ins::Shr { d, a, b, w } => {
                let s = v[b as usize];
                v[d as usize] = if s >= w as u64 { 0 } else { v[a as usize] >> s }
            }
            Ins::Sra { d, a, b, w } => {
                let s = v[b as usize].min(63);
                v[d as usize] = (sx(v[a as usize], w) >> s) as u64 & mask(w)
            }
            Ins::Eq { d, a, b } => v[d as usize] = (v[a as usize] == v[b as usize]) as u64,
            Ins::Ne { d, a, b } => v[d as usize] = (v[a as usize] != v[b as usize]) as u64,
            Ins::Lt { d, a, b } => v[d as usize] = (v[a as usize] < v[b as usize]) as u64,
            Ins::Le { d, a, b } => v[d as usize] = (v[a as usize] <= v[b as usize]) as u64,
            Ins::SLt { d, a, b, w } => {
                v[d as usize] = (sx(v[a as usize], w) < sx(v[b as usize], w)) as u64
            }
            Ins::SLe { d, a, b, w } => {
                v[d as usize] = (sx(v[a as usize], w) <= sx(v[b as usize], w)) as u64
            }
            Ins::Mux { d, s, t, f } => {
                v[d as usize] = if v[s as usize] != 0 {
                    v[t as usize]
                } else {
                    v[f as usize]
                }
            }
            Ins::Cat2 { d, hi, lo, sh } => v[d as usize] = (v[hi as usize] << sh) | v[lo as usize],
            Ins::Slice { d, a, lo, w } => v[d as usize] = (v[a as usize] >> lo) & mask(w),
            Ins::Sext { d, a, wa, w } => v[d as usize] = sx(v[a as usize], wa) as u64 & mask(w),
            Ins::Select { d, idx, start, n } => {
                let i = v[idx as usize].min(n as u64) as usize;
                v[d as usize] = v[p.sel_tab[start as usize + i] as usize]
            }
            Ins::Lut { d, idx, start, n } => {
                let i = v[idx as usize];
                v[d as usize] = if i < n as u64 {
                    p.lut_tab[start as usize + i as usize]
                } else {
                    0
                }
            }
            Ins::MemRd { d, mem, addr } => {
                let info = &p.mems[mem as usize];
                v[d as usize] = match mem_index(info, v[addr as usize]) {
                    Some(i) => m.mem[i],
                    None => 0,
                }
            }
            Ins::Wide(i) => wide::eval(p, &p.wide[i as usize], v, &m.mem, &mut m.scratch),
        }
    }
}

/// Applies a rising clock edge: synchronous reads (read-first), memory writes (later port
/// wins), register loads, then synchronous resets when `rst` is high. Every operand read here is
/// a combinational or input slot, which the edge does not modify (the compiler stages state
/// operands), so the order of updates cannot leak into the result.
pub(crate) fn edge(p: &Program, m: &mut Machine, rst: bool) {
    let v = &mut m.v[..];
    for r in &p.sync_reads {
        if r.en == NONE || v[r.en as usize] != 0 {
            let info = &p.mems[r.mem as usize];
            let n = info.words as usize;
            let d = r.data as usize;
            match mem_index(info, v[r.addr as usize]) {
                Some(i) => v[d..d + n].copy_from_slice(&m.mem[i..i + n]),
                None => v[d..d + n].fill(0),
            }
        }
    }
    for w in &p.writes {
        if v[w.en as usize] != 0 {
            let info = &p.mems[w.mem as usize];
            if let Some(i) = mem_index(info, v[w.addr as usize]) {
                let n = info.words as usize;
                let s = w.data as usize;
                m.mem[i..i + n].copy_from_slice(&v[s..s + n]);
            }
        }
    }
    for &(q, d) in &p.regs_plain {
        v[q as usize] = v[d as usize];
    }
    for r in &p.regs {
        if r.en == NONE || v[r.en as usize] != 0 {
            let (q, d, n) = (r.q as usize, r.d as usize, r.n as usize);
            v.copy_within(d..d + n, q);
        }
    }
    if rst {
        for r in &p.resets {
            let (q, s, n) = (r.q as usize, r.value as usize, r.n as usize);
            v[q..q + n].copy_from_slice(&p.reset_values[s..s + n]);
        }
    }
}
