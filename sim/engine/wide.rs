//! Multi-word operations: values wider than 64 bits as little-endian word slices whose bits
//! above the width are zero. Results are computed into scratch space, then stored. The word
//! algorithms are the generated simulators' own helpers ([`crate::codegen::prelude`]), so both
//! backends compute every multi-word operation with the same code.

use super::program::{Program, WideOp};
pub(crate) use crate::codegen::prelude::get_field;
use crate::codegen::prelude::{
    or_field, w_add, w_cmp, w_extend, w_mul, w_neg, w_shift, SHL, SHR, SRA,
};
use rendergen_hdl::bits::{top_mask, words_for};
use rendergen_hdl::ir::{BinOp, UnOp};

/// The value of `n` words at place `s`.
fn at(v: &[u64], s: u32, n: usize) -> &[u64] {
    &v[s as usize..s as usize + n]
}

fn binary(op: BinOp, r: &mut [u64], a: &[u64], b: &[u64], w: u32) {
    match op {
        BinOp::Add | BinOp::Sub => w_add(r, a, b, op == BinOp::Sub),
        BinOp::Mul => w_mul(r, a, b),
        BinOp::And | BinOp::Or | BinOp::Xor => {
            for i in 0..r.len() {
                r[i] = match op {
                    BinOp::And => a[i] & b[i],
                    BinOp::Or => a[i] | b[i],
                    _ => a[i] ^ b[i],
                }
            }
        }
        BinOp::Shl => w_shift(r, a, b[0], w, SHL),
        BinOp::Shr => w_shift(r, a, b[0], w, SHR),
        BinOp::Sra => w_shift(r, a, b[0], w, SRA),
        _ => {
            let signed = matches!(op, BinOp::SLt | BinOp::SLe);
            let o = w_cmp(a, b, signed, w);
            r[0] = match op {
                BinOp::Eq => o.is_eq(),
                BinOp::Ne => o.is_ne(),
                BinOp::Lt | BinOp::SLt => o.is_lt(),
                _ => o.is_le(),
            } as u64;
        }
    }
}

fn unary(op: UnOp, r: &mut [u64], a: &[u64], wa: u32) {
    let n = a.len();
    match op {
        UnOp::Not => (0..n).for_each(|i| r[i] = !a[i]),
        UnOp::Neg => w_neg(r, a),
        UnOp::RedOr => r[0] = a.iter().any(|x| *x != 0) as u64,
        UnOp::RedXor => r[0] = (a.iter().map(|x| x.count_ones()).sum::<u32>() & 1) as u64,
        UnOp::RedAnd => {
            let full = a[..n - 1].iter().all(|x| *x == u64::MAX);
            r[0] = (full && a[n - 1] == top_mask(wa)) as u64
        }
    }
}

/// Evaluates one wide operation.
pub(crate) fn eval(p: &Program, op: &WideOp, v: &mut [u64], mem: &[u64], scratch: &mut [u64]) {
    let (d, w) = match *op {
        WideOp::Copy { d, a, n } => {
            let (d, a, n) = (d as usize, a as usize, n as usize);
            v.copy_within(a..a + n, d);
            return;
        }
        WideOp::Sat { d, a, n } => {
            let x = at(v, a, n as usize);
            v[d as usize] = if x[1..].iter().any(|w| *w != 0) {
                u64::MAX
            } else {
                x[0]
            };
            return;
        }
        WideOp::Mux { d, s, t, f, n } => {
            let src = if v[s as usize] != 0 { t } else { f } as usize;
            v.copy_within(src..src + n as usize, d as usize);
            return;
        }
        WideOp::Un { d, w, .. }
        | WideOp::Bin { d, w, .. }
        | WideOp::Concat { d, w, .. }
        | WideOp::Slice { d, w, .. }
        | WideOp::Extend { d, w, .. } => (d, w),
        WideOp::Select { d, n, .. } | WideOp::Lut { d, n, .. } => (d, n * 64),
        WideOp::MemRd { d, mem: m, .. } => (d, p.mems[m as usize].words * 64),
    };
    let n = words_for(w);
    let r = &mut scratch[..n];
    r.fill(0);
    match op {
        WideOp::Un { op, a, wa, .. } => unary(*op, r, at(v, *a, words_for(*wa)), *wa),
        WideOp::Bin { op, a, b, wa, .. } => {
            let na = words_for(*wa);
            let nb = if op.is_shift() { 1 } else { na };
            binary(*op, r, at(v, *a, na), at(v, *b, nb), *wa)
        }
        WideOp::Concat { parts, .. } => {
            let mut lo = 0;
            for &(s, pw) in parts.iter().rev() {
                if pw <= 64 {
                    // A one-word part (its bits above `pw` are zero).
                    or_field(r, lo, pw, v[s as usize]);
                } else if lo % 64 == 0 {
                    // Word-aligned: the words as they are (`r` is zero there; the top word's
                    // bits above the part are zero).
                    let (at_word, nw) = ((lo / 64) as usize, words_for(pw));
                    r[at_word..at_word + nw].copy_from_slice(at(v, s, nw));
                } else {
                    let src = at(v, s, words_for(pw));
                    let mut done = 0;
                    while done < pw {
                        let k = (pw - done).min(64);
                        or_field(r, lo + done, k, get_field(src, done, k));
                        done += k;
                    }
                }
                lo += pw;
            }
        }
        WideOp::Slice { a, wa, lo, w, .. } => {
            let src = at(v, *a, words_for(*wa));
            for (i, x) in r.iter_mut().enumerate() {
                let k = (*w - i as u32 * 64).min(64);
                *x = get_field(src, lo + i as u32 * 64, k);
            }
        }
        WideOp::Extend { a, wa, signed, .. } => {
            w_extend(r, at(v, *a, words_for(*wa)), *wa, *signed);
        }
        WideOp::Select {
            idx,
            cases,
            default,
            ..
        } => {
            let i = v[*idx as usize];
            let s = cases
                .get(i as usize)
                .copied()
                .filter(|_| i < cases.len() as u64);
            r.copy_from_slice(at(v, s.unwrap_or(*default), n));
        }
        WideOp::Lut {
            idx,
            table,
            entries,
            n: k,
            ..
        } => {
            let i = v[*idx as usize];
            if i < *entries as u64 {
                let s = i as usize * *k as usize;
                r.copy_from_slice(&table[s..s + n]);
            }
        }
        WideOp::MemRd { mem: m, addr, .. } => {
            let info = &p.mems[*m as usize];
            let a = v[*addr as usize];
            if a < info.depth {
                let s = info.base + a as usize * n;
                r.copy_from_slice(&mem[s..s + n]);
            }
        }
        WideOp::Copy { .. } | WideOp::Sat { .. } | WideOp::Mux { .. } => unreachable!(),
    }
    r[n - 1] &= top_mask(w);
    v[d as usize..d as usize + n].copy_from_slice(r);
}
