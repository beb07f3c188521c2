//! Partition selection (ASTC spec C.2.21): which of 1..=4 partitions texel (x, y) belongs to,
//! from the 10-bit partition seed. [`hash`] depends only on the block and runs one stage ahead
//! of [`select`], which needs the texel position.

use rendergen_hdl::{cat, name_lets, Module, Sig};

/// The spec's `hash52` of the 12-bit `seed + 1024·(count − 1)` (32 bits, modulo 2^32).
#[name_lets]
pub fn hash(m: &mut Module, seed: Sig, parts_m1: Sig) -> Sig {
    let mut p = cat(&[m.lit(0, 20), parts_m1, seed]);
    p = p ^ (p >> 15);
    p = p - (p << 17);
    p = p + (p << 7);
    p = p + (p << 4);
    p = p ^ (p >> 5);
    p = p + (p << 16);
    p = p ^ (p >> 7);
    p = p ^ (p >> 3);
    p = p ^ (p << 6);
    p = p ^ (p >> 17);
    p.named("partition_hash")
}

/// Partition (2 bits) of texel (`x`, `y`) (4 bits each) for the hash `rnum` of `seed`.
/// `parts_m1` is the partition count minus one; `small` is set for footprints of fewer than 31
/// texels, whose coordinates are doubled.
#[name_lets]
pub fn select(
    m: &mut Module,
    rnum: Sig,
    seed: Sig,
    parts_m1: Sig,
    x: Sig,
    y: Sig,
    small: Sig,
) -> Sig {
    let x = small.mux(x << 1, x).zext(6);
    let y = small.mux(y << 1, y).zext(6);
    let three = parts_m1.eq(2);
    let odd = seed.bit(0);
    let (k4, k5, k6) = (m.lit(4, 3), m.lit(5, 3), m.lit(6, 3));
    let by_bit1 = seed.bit(1).mux(k4, k5);
    let by_count = three.mux(k6, k5);
    let sh1 = odd.mux(by_bit1, by_count);
    let sh2 = odd.mux(by_count, by_bit1);
    // seed1..seed8: squared nibbles, even ones shifted by sh1, odd ones by sh2 (6 bits kept).
    let s: Vec<Sig> = (0..8)
        .map(|i| {
            let nib = rnum.slice(4 * i, 4);
            let sq = nib.mul_full(nib);
            sq.shr(if i % 2 == 0 { sh1 } else { sh2 }).resize(6)
        })
        .collect();
    let line = |i: usize, shift: u32| {
        let sum = s[2 * i].mul_full(x).resize(6) + s[2 * i + 1].mul_full(y).resize(6);
        sum + (rnum >> shift).resize(6)
    };
    let a = line(0, 14);
    let b = line(1, 10);
    let c = parts_m1.ge(2).mux(line(2, 6), m.lit(0, 6));
    let d = parts_m1.eq(3).mux(line(3, 2), m.lit(0, 6));
    let is0 = a.ge(b) & a.ge(c) & a.ge(d);
    let is1 = b.ge(c) & b.ge(d);
    let is2 = c.ge(d);
    let p = is0.mux(
        m.lit(0, 2),
        is1.mux(m.lit(1, 2), is2.mux(m.lit(2, 2), m.lit(3, 2))),
    );
    parts_m1.eq(0).mux(m.lit(0, 2), p).named("partition")
}
