//! Multi-word operations: values wider than 64 bits as little-endian word slices whose bits
//! above the width are zero. Results are computed into scratch space, then stored.

use super::program::{Program, WideOp};
use rendergen_hdl::bits::{top_mask, words_for};
use rendergen_hdl::ir::{BinOp, UnOp};
use std::cmp::Ordering;

/// `w` bits (≤ 64) of `src` from bit `lo`; bits beyond `src` read as zero.
pub(crate) fn get_field(src: &[u64], lo: u32, w: u32) -> u64 {
    let i = (lo / 64) as usize;
    let off = lo % 64;
    let mut x = src.get(i).copied().unwrap_or(0) >> off;
    if off != 0 {
        x |= src.get(i + 1).copied().unwrap_or(0) << (64 - off);
    }
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

/// Stores the `w`-bit (≤ 64) `val` into `dst` at bit `lo` (bits of `dst` there must be zero).
fn or_field(dst: &mut [u64], lo: u32, w: u32, val: u64) {
    let i = (lo / 64) as usize;
    let off = lo % 64;
    dst[i] |= val << off;
    if off != 0 && off + w > 64 {
        dst[i + 1] |= val >> (64 - off);
    }
}

/// The value of `n` words at slot `s`.
fn at(v: &[u64], s: u32, n: usize) -> &[u64] {
    &v[s as usize..s as usize + n]
}

fn compare(a: &[u64], b: &[u64], signed: bool, w: u32) -> Ordering {
    if signed {
        let sb = |x: &[u64]| get_field(x, w - 1, 1);
        match (sb(a), sb(b)) {
            (1, 0) => return Ordering::Less,
            (0, 1) => return Ordering::Greater,
            _ => {}
        }
    }
    a.iter().rev().cmp(b.iter().rev())
}

/// Shifts `a` (width `w`) by `s` into `r` (all bits of `r` zeroed first).
fn shift(r: &mut [u64], a: &[u64], s: u64, w: u32, op: BinOp) {
    r.fill(0);
    let sign = op == BinOp::Sra && get_field(a, w - 1, 1) == 1;
    if s >= w as u64 {
        if sign {
            r.fill(u64::MAX);
        }
        return;
    }
    let s = s as u32;
    for (i, word) in r.iter_mut().enumerate() {
        let p = i as u32 * 64;
        *word = match op {
            BinOp::Shl if p + 64 <= s => 0,
            BinOp::Shl if p < s => get_field(a, 0, 64 - (s - p)) << (s - p),
            BinOp::Shl => get_field(a, p - s, 64),
            _ => get_field(a, p + s, 64),
        };
    }
    if sign && s > 0 {
        // Bits from w - s upward become copies of the sign.
        let from = w - s;
        let first = (from / 64) as usize;
        r[first] |= u64::MAX << (from % 64);
        r[first + 1..].fill(u64::MAX);
    }
}

fn binary(op: BinOp, r: &mut [u64], a: &[u64], b: &[u64], w: u32) {
    match op {
        BinOp::Add | BinOp::Sub => {
            let sub = op == BinOp::Sub;
            let mut carry = sub as u128;
            for i in 0..r.len() {
                let y = if sub { !b[i] } else { b[i] };
                let s = a[i] as u128 + y as u128 + carry;
                r[i] = s as u64;
                carry = s >> 64;
            }
        }
        BinOp::Mul => {
            r.fill(0);
            for i in 0..r.len() {
                let mut carry = 0u128;
                for j in 0..r.len() - i {
                    let t = r[i + j] as u128 + a[i] as u128 * b[j] as u128 + carry;
                    r[i + j] = t as u64;
                    carry = t >> 64;
                }
            }
        }
        BinOp::And | BinOp::Or | BinOp::Xor => {
            for i in 0..r.len() {
                r[i] = match op {
                    BinOp::And => a[i] & b[i],
                    BinOp::Or => a[i] | b[i],
                    _ => a[i] ^ b[i],
                }
            }
        }
        BinOp::Shl | BinOp::Shr | BinOp::Sra => shift(r, a, b[0], w, op),
        _ => {
            let signed = matches!(op, BinOp::SLt | BinOp::SLe);
            let o = compare(a, b, signed, w);
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
        UnOp::Neg => {
            let mut carry = 1u128;
            for i in 0..n {
                let s = (!a[i]) as u128 + carry;
                r[i] = s as u64;
                carry = s >> 64;
            }
        }
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
                let src = at(v, s, words_for(pw));
                let mut done = 0;
                while done < pw {
                    let k = (pw - done).min(64);
                    or_field(r, lo + done, k, get_field(src, done, k));
                    done += k;
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
            let src = at(v, *a, words_for(*wa));
            r[..src.len()].copy_from_slice(src);
            if *signed && get_field(src, wa - 1, 1) == 1 {
                let first = (wa / 64) as usize;
                if wa % 64 != 0 {
                    r[first] |= u64::MAX << (wa % 64);
                }
                let from = first + (wa % 64 != 0) as usize;
                r[from..].fill(u64::MAX);
            }
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
