//! The interpreter: evaluates a [`Program`]'s combinational instructions in order and applies
//! the clock edge. Nothing here allocates, hashes or dispatches dynamically.

use super::program::{mask, Batch, Ins, MemInfo, Program, NONE};
use super::{strided, wide};

/// The mutable state of a simulation: signal values, memory contents, scratch space.
#[derive(Clone, Debug)]
pub(crate) struct Machine {
    /// Signal values, indexed by place.
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

// Unchecked place access.
//
// SAFETY (for `ld` and `st`): they are only called from `eval` with places taken from the
// instructions of a `Program` (directly or through `Program::batch` / `Program::sel_tab`) and
// `v` the value vector of the `Machine` compiled together with it. `compile` ends by calling
// `schedule::validate`, which asserts (panicking otherwise) that every such place is
// `< v.len()`, and that every batch and select range lies inside its table. The value vector is
// never resized after compilation (the simulator only writes through existing indices), and the
// program is immutable, so the bound proved at construction holds for every call.
#[inline(always)]
fn ld(v: &[u64], i: u32) -> u64 {
    debug_assert!((i as usize) < v.len());
    // SAFETY: see above; `i < v.len()` was validated at compile time.
    unsafe { *v.get_unchecked(i as usize) }
}

#[inline(always)]
fn st(v: &mut [u64], i: u32) -> &mut u64 {
    debug_assert!((i as usize) < v.len());
    // SAFETY: see above; `i < v.len()` was validated at compile time.
    unsafe { v.get_unchecked_mut(i as usize) }
}

/// `s != 0 ? t : f` without a branch: simulated data is random, so a branch would mispredict.
#[inline(always)]
pub(crate) fn select(s: u64, t: u64, f: u64) -> u64 {
    let m = 0u64.wrapping_sub((s != 0) as u64);
    (t & m) | (f & !m)
}

/// Copies `n` words from `src` to `dst` within `v`.
#[inline(always)]
fn copy_words(v: &mut [u64], dst: usize, src: usize, n: usize) {
    if n <= 8 {
        // Short blocks (most merged register blocks): a loop, not a `memmove` call. Sources
        // and destinations never overlap (state places and combinational places are distinct).
        for k in 0..n {
            v[dst + k] = v[src + k];
        }
    } else {
        v.copy_within(src..src + n, dst);
    }
}

/// Runs a batch of one kind of instruction.
#[inline(always)]
fn batch(v: &mut [u64], op: Batch, w: u8, ops: &[[u32; 4]]) {
    let k = mask(w);
    macro_rules! each {
        (|$a:ident, $b:ident, $c:ident| $e:expr) => {
            for &[d, a, b, c] in ops {
                let ($a, $b, $c) = (ld(v, a), ld(v, b), c);
                let _ = (&$b, &$c);
                *st(v, d) = $e;
            }
        };
    }
    match op {
        Batch::Copy => each!(|a, _b, _c| a),
        Batch::Add => each!(|a, b, _c| a.wrapping_add(b) & k),
        Batch::Sub => each!(|a, b, _c| a.wrapping_sub(b) & k),
        Batch::Mul => each!(|a, b, _c| a.wrapping_mul(b) & k),
        Batch::And => each!(|a, b, _c| a & b),
        Batch::Or => each!(|a, b, _c| a | b),
        Batch::Xor => each!(|a, b, _c| a ^ b),
        Batch::Eq => each!(|a, b, _c| (a == b) as u64),
        Batch::Not => each!(|a, _b, _c| !a & k),
        Batch::Slice => each!(|a, _b, c| (a >> c) & k),
        Batch::XorSlice => each!(|a, b, c| a ^ ((b >> c) & k)),
        Batch::MulAdd => {
            for &[d, a, b, c] in ops {
                *st(v, d) = ld(v, a).wrapping_mul(ld(v, b)).wrapping_add(ld(v, c)) & k;
            }
        }
        Batch::Mux => {
            for &[d, s, t, f] in ops {
                *st(v, d) = select(ld(v, s), ld(v, t), ld(v, f));
            }
        }
    }
}

/// Runs `code` (part of `p`) once over the machine.
pub(crate) fn eval(p: &Program, code: &[Ins], m: &mut Machine) {
    let v = &mut m.v[..];
    for ins in code {
        match *ins {
            Ins::Copy { d, a } => *st(v, d) = ld(v, a),
            Ins::Not { d, a, w } => *st(v, d) = !ld(v, a) & mask(w),
            Ins::Neg { d, a, w } => *st(v, d) = ld(v, a).wrapping_neg() & mask(w),
            Ins::RedAnd { d, a, w } => *st(v, d) = (ld(v, a) == mask(w)) as u64,
            Ins::RedOr { d, a } => *st(v, d) = (ld(v, a) != 0) as u64,
            Ins::RedXor { d, a } => *st(v, d) = (ld(v, a).count_ones() & 1) as u64,
            Ins::Add { d, a, b, w } => *st(v, d) = ld(v, a).wrapping_add(ld(v, b)) & mask(w),
            Ins::Sub { d, a, b, w } => *st(v, d) = ld(v, a).wrapping_sub(ld(v, b)) & mask(w),
            Ins::Mul { d, a, b, w } => *st(v, d) = ld(v, a).wrapping_mul(ld(v, b)) & mask(w),
            Ins::MulAdd { d, a, b, c, w } => {
                let p = ld(v, a).wrapping_mul(ld(v, b));
                *st(v, d) = p.wrapping_add(ld(v, c)) & mask(w)
            }
            Ins::XorSlice { d, a, b, lo, w } => *st(v, d) = ld(v, a) ^ ((ld(v, b) >> lo) & mask(w)),
            Ins::And { d, a, b } => *st(v, d) = ld(v, a) & ld(v, b),
            Ins::Or { d, a, b } => *st(v, d) = ld(v, a) | ld(v, b),
            Ins::Xor { d, a, b } => *st(v, d) = ld(v, a) ^ ld(v, b),
            Ins::Shl { d, a, b, w } => {
                let s = ld(v, b);
                *st(v, d) = if s >= w as u64 {
                    0
                } else {
                    (ld(v, a) << s) & mask(w)
                }
            }
            Ins::Shr { d, a, b, w } => {
                let s = ld(v, b);
                *st(v, d) = if s >= w as u64 { 0 } else { ld(v, a) >> s }
            }
            Ins::Sra { d, a, b, w } => {
                let s = ld(v, b).min(63);
                *st(v, d) = (sx(ld(v, a), w) >> s) as u64 & mask(w)
            }
            Ins::Eq { d, a, b } => *st(v, d) = (ld(v, a) == ld(v, b)) as u64,
            Ins::Ne { d, a, b } => *st(v, d) = (ld(v, a) != ld(v, b)) as u64,
            Ins::Lt { d, a, b } => *st(v, d) = (ld(v, a) < ld(v, b)) as u64,
            Ins::Le { d, a, b } => *st(v, d) = (ld(v, a) <= ld(v, b)) as u64,
            Ins::SLt { d, a, b, w } => *st(v, d) = (sx(ld(v, a), w) < sx(ld(v, b), w)) as u64,
            Ins::SLe { d, a, b, w } => *st(v, d) = (sx(ld(v, a), w) <= sx(ld(v, b), w)) as u64,
            Ins::Mux { d, s, t, f } => *st(v, d) = select(ld(v, s), ld(v, t), ld(v, f)),
            Ins::Cat2 { d, hi, lo, sh } => *st(v, d) = (ld(v, hi) << sh) | ld(v, lo),
            Ins::Slice { d, a, lo, w } => *st(v, d) = (ld(v, a) >> lo) & mask(w),
            Ins::Sext { d, a, wa, w } => *st(v, d) = sx(ld(v, a), wa) as u64 & mask(w),
            Ins::Select { d, idx, start, n } => {
                let i = ld(v, idx).min(n as u64) as usize;
                *st(v, d) = ld(v, p.sel_tab[start as usize + i])
            }
            Ins::Lut { d, idx, start, n } => {
                let i = ld(v, idx);
                *st(v, d) = if i < n as u64 {
                    p.lut_tab[start as usize + i as usize]
                } else {
                    0
                }
            }
            Ins::MemRd { d, mem, addr } => {
                let info = &p.mems[mem as usize];
                *st(v, d) = match mem_index(info, ld(v, addr)) {
                    Some(i) => m.mem[i],
                    None => 0,
                }
            }
            Ins::Wide(i) => wide::eval(p, &p.wide[i as usize], v, &m.mem, &mut m.scratch),
            Ins::Batch { op, w, start, n } => {
                let (s, n) = (start as usize, n as usize);
                batch(v, op, w, &p.batch[s..s + n])
            }
            Ins::Run { op, w, shape, run } => {
                strided::eval_run(v, op, w, shape, &p.runs[run as usize])
            }
        }
    }
}

/// Applies a rising clock edge: synchronous reads (read-first), memory writes (later port
/// wins), register loads, then synchronous resets when `rst` is high. Every operand read here is
/// a combinational or input place, which the edge does not modify (the compiler stages state
/// operands), so the order of updates cannot leak into the result.
pub(crate) fn edge(p: &Program, m: &mut Machine, rst: bool) {
    edge_memories(p, m);
    let v = &mut m.v[..];
    for &(q, d, n) in &p.regs_plain {
        copy_words(v, q as usize, d as usize, n as usize);
    }
    for r in &p.regs {
        let on = r.en == NONE || v[r.en as usize] != 0;
        if r.n == 1 {
            // Enables follow random data: a select, not a branch.
            let (q, d) = (r.q as usize, r.d as usize);
            v[q] = select(on as u64, v[d], v[q]);
        } else if on {
            copy_words(v, r.q as usize, r.d as usize, r.n as usize);
        }
    }
    if rst {
        edge_resets(p, m);
    }
}

/// The memory part of a clock edge: synchronous reads (read-first), then writes (later port
/// wins).
pub(crate) fn edge_memories(p: &Program, m: &mut Machine) {
    let v = &mut m.v[..];
    for r in &p.sync_reads {
        if r.en == NONE || v[r.en as usize] != 0 {
            let info = &p.mems[r.mem as usize];
            let n = info.words as usize;
            let d = r.data as usize;
            match (mem_index(info, v[r.addr as usize]), n) {
                (Some(i), 1) => v[d] = m.mem[i],
                (Some(i), _) => v[d..d + n].copy_from_slice(&m.mem[i..i + n]),
                (None, _) => v[d..d + n].fill(0),
            }
        }
    }
    for w in &p.writes {
        let info = &p.mems[w.mem as usize];
        let en = v[w.en as usize];
        if info.words == 1 {
            // One-word memories: a select instead of a branch on the (random) enable.
            if let Some(i) = mem_index(info, v[w.addr as usize]) {
                m.mem[i] = select(en, v[w.data as usize], m.mem[i]);
            }
        } else if en != 0 {
            if let Some(i) = mem_index(info, v[w.addr as usize]) {
                let (n, s) = (info.words as usize, w.data as usize);
                m.mem[i..i + n].copy_from_slice(&v[s..s + n]);
            }
        }
    }
}

/// Synchronous resets (the end of a clock edge with `rst` high).
pub(crate) fn edge_resets(p: &Program, m: &mut Machine) {
    let v = &mut m.v[..];
    for r in &p.resets {
        let (q, s, n) = (r.q as usize, r.value as usize, r.n as usize);
        if n == 1 {
            v[q] = p.reset_values[s];
        } else {
            v[q..q + n].copy_from_slice(&p.reset_values[s..s + n]);
        }
    }
}
