// Runtime helpers of generated simulators (rendergen-sim `codegen`). This file is pasted
// verbatim into every generated design, and compiled into rendergen-sim itself, so it must be
// self-contained (std only). Every helper is `#[inline(always)]` and called with constant
// widths and constant-length arrays, so the optimiser specialises it at each call site. The
// interpreter (`sim/engine/wide.rs`) calls the same multi-word helpers, so both backends share
// one implementation of each algorithm.

use std::cmp::Ordering;

/// Sign-extends the low `w` bits of `x` (1 ≤ w ≤ 64).
#[inline(always)]
pub fn sx(x: u64, w: u32) -> i64 {
    let s = 64 - w;
    ((x << s) as i64) >> s
}

/// All ones when `s != 0`, else zero.
#[inline(always)]
pub fn lane(s: u64) -> u64 {
    0u64.wrapping_sub((s != 0) as u64)
}

/// `s != 0 ? t : f` without a branch.
#[inline(always)]
pub fn sel(s: u64, t: u64, f: u64) -> u64 {
    let m = lane(s);
    (t & m) | (f & !m)
}

/// `w` bits (≤ 64) of `src` from bit `lo`; bits beyond `src` read as zero.
#[inline(always)]
pub fn get_field(src: &[u64], lo: u32, w: u32) -> u64 {
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

/// Ors the `w`-bit (≤ 64) `val` into `dst` at bit `lo`.
#[inline(always)]
pub fn or_field(dst: &mut [u64], lo: u32, w: u32, val: u64) {
    let i = (lo / 64) as usize;
    let off = lo % 64;
    dst[i] |= val << off;
    if off != 0 && off + w > 64 {
        dst[i + 1] |= val >> (64 - off);
    }
}

/// Multi-word compare at operand width `w`.
#[inline(always)]
pub fn w_cmp(a: &[u64], b: &[u64], signed: bool, w: u32) -> Ordering {
    if signed {
        match (get_field(a, w - 1, 1), get_field(b, w - 1, 1)) {
            (1, 0) => return Ordering::Less,
            (0, 1) => return Ordering::Greater,
            _ => {}
        }
    }
    a.iter().rev().cmp(b.iter().rev())
}

/// Shift kinds of [`w_shift`].
pub const SHL: u8 = 0;
/// Logical shift right.
pub const SHR: u8 = 1;
/// Arithmetic shift right.
pub const SRA: u8 = 2;

/// Shifts `a` (width `w`) by `s` into `r`.
#[inline(always)]
pub fn w_shift(r: &mut [u64], a: &[u64], s: u64, w: u32, kind: u8) {
    r.fill(0);
    let sign = kind == SRA && get_field(a, w - 1, 1) == 1;
    if s >= w as u64 {
        if sign {
            r.fill(u64::MAX);
        }
        return;
    }
    let s = s as u32;
    for (i, word) in r.iter_mut().enumerate() {
        let p = i as u32 * 64;
        *word = if kind != SHL {
            get_field(a, p + s, 64)
        } else if p + 64 <= s {
            0
        } else if p < s {
            get_field(a, 0, 64 - (s - p)) << (s - p)
        } else {
            get_field(a, p - s, 64)
        };
    }
    if sign && s > 0 {
        let from = w - s;
        let first = (from / 64) as usize;
        r[first] |= u64::MAX << (from % 64);
        r[first + 1..].fill(u64::MAX);
    }
}

/// `r = a + b` (or `a - b` when `sub`), over `r.len()` words.
#[inline(always)]
pub fn w_add(r: &mut [u64], a: &[u64], b: &[u64], sub: bool) {
    let mut carry = sub as u128;
    for i in 0..r.len() {
        let y = if sub { !b[i] } else { b[i] };
        let s = a[i] as u128 + y as u128 + carry;
        r[i] = s as u64;
        carry = s >> 64;
    }
}

/// `r = a * b` truncated to `r.len()` words.
#[inline(always)]
pub fn w_mul(r: &mut [u64], a: &[u64], b: &[u64]) {
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

/// `r = -a` over `a.len()` words.
#[inline(always)]
pub fn w_neg(r: &mut [u64], a: &[u64]) {
    let mut carry = 1u128;
    for i in 0..a.len() {
        let s = (!a[i]) as u128 + carry;
        r[i] = s as u64;
        carry = s >> 64;
    }
}

/// Sign or zero extension of the `wa`-bit `a` into `r` (which is zero).
#[inline(always)]
pub fn w_extend(r: &mut [u64], a: &[u64], wa: u32, signed: bool) {
    r[..a.len()].copy_from_slice(a);
    if signed && get_field(a, wa - 1, 1) == 1 {
        let first = (wa / 64) as usize;
        if wa % 64 != 0 {
            r[first] |= u64::MAX << (wa % 64);
        }
        let from = first + (wa % 64 != 0) as usize;
        r[from..].fill(u64::MAX);
    }
}
