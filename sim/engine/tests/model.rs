//! A deliberately naive bit-list model of every operation (LSB first), independent of the
//! engine's word arithmetic.

use rendergen_hdl::Bits;

pub type B = Vec<bool>;

pub fn of(b: &Bits) -> B {
    (0..b.width()).map(|i| b.bit(i)).collect()
}

pub fn to_bits(x: &B) -> Bits {
    let mut words = vec![0u64; x.len().div_ceil(64)];
    for (i, bit) in x.iter().enumerate() {
        words[i / 64] |= (*bit as u64) << (i % 64);
    }
    Bits::from_words(&words, x.len() as u32)
}

fn bool_b(v: bool) -> B {
    vec![v]
}

pub fn add(a: &B, b: &B) -> B {
    let mut c = false;
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let s = x ^ y ^ c;
            c = (x & y) | (c & (x ^ y));
            s
        })
        .collect()
}

pub fn not(a: &B) -> B {
    a.iter().map(|x| !x).collect()
}

pub fn neg(a: &B) -> B {
    let mut one = vec![false; a.len()];
    one[0] = true;
    add(&not(a), &one)
}

pub fn sub(a: &B, b: &B) -> B {
    add(a, &neg(b))
}

pub fn mul(a: &B, b: &B) -> B {
    let mut acc = vec![false; a.len()];
    for (i, bit) in b.iter().enumerate() {
        if *bit {
            acc = add(&acc, &shl(a, i as u64));
        }
    }
    acc
}

pub fn shl(a: &B, s: u64) -> B {
    (0..a.len())
        .map(|i| (i as u64) >= s && a[(i as u64 - s) as usize])
        .collect()
}

pub fn shr(a: &B, s: u64, arith: bool) -> B {
    let fill = arith && a[a.len() - 1];
    (0..a.len())
        .map(|i| {
            let j = (i as u64).saturating_add(s);
            if j < a.len() as u64 {
                a[j as usize]
            } else {
                fill
            }
        })
        .collect()
}

/// Unsigned comparison: -1, 0, 1.
pub fn cmp(a: &B, b: &B, signed: bool) -> i32 {
    for i in (0..a.len()).rev() {
        let (mut x, mut y) = (a[i], b[i]);
        if signed && i == a.len() - 1 {
            (x, y) = (!x, !y);
        }
        if x != y {
            return if x { 1 } else { -1 };
        }
    }
    0
}

pub fn lt(a: &B, b: &B, signed: bool) -> B {
    bool_b(cmp(a, b, signed) < 0)
}

pub fn le(a: &B, b: &B, signed: bool) -> B {
    bool_b(cmp(a, b, signed) <= 0)
}

pub fn eq(a: &B, b: &B) -> B {
    bool_b(a == b)
}

pub fn reduce(a: &B, op: fn(bool, bool) -> bool) -> B {
    bool_b(a[1..].iter().fold(a[0], |x, y| op(x, *y)))
}

pub fn zip(a: &B, b: &B, op: fn(bool, bool) -> bool) -> B {
    a.iter().zip(b).map(|(x, y)| op(*x, *y)).collect()
}

pub fn extend(a: &B, w: usize, signed: bool) -> B {
    let fill = signed && a[a.len() - 1];
    (0..w)
        .map(|i| if i < a.len() { a[i] } else { fill })
        .collect()
}

/// Index value, saturated to `u64::MAX` when it does not fit.
pub fn index(a: &B) -> u64 {
    if a.iter().skip(64).any(|x| *x) {
        return u64::MAX;
    }
    a.iter()
        .take(64)
        .enumerate()
        .fold(0, |acc, (i, x)| acc | ((*x as u64) << i))
}
