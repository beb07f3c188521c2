//! Bounded integer sequence decoding with random access to one value (ASTC spec C.2.12): the
//! range descriptor, the length of a sequence, where value `i` lives ([`locate`]) and its
//! extraction ([`extract`]) including trit and quint unpacking.
//!
//! Trits are packed five to a group of `8 + 5n` bits and quints three to a group of `7 + 3n`
//! bits, so value `i` is found from `i / 5` (or `i / 3`) without touching the values before it.
//! Bits of the stream beyond the sequence must already be zero (the caller masks the stream).

use rendergen_hdl::{cat, index_select, lut, name_lets, Module, Sig};

/// (trit, quint, bits) of the 21 ranges 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64,
/// 80, 96, 128, 160, 192, 256 (index 0..=20; weights use 0..=11, colours 4..=20).
pub const RANGES: [(bool, bool, u32); 21] = [
    (false, false, 1),
    (true, false, 0),
    (false, false, 2),
    (false, true, 0),
    (true, false, 1),
    (false, false, 3),
    (false, true, 1),
    (true, false, 2),
    (false, false, 4),
    (false, true, 2),
    (true, false, 3),
    (false, false, 5),
    (false, true, 3),
    (true, false, 4),
    (false, false, 6),
    (false, true, 4),
    (true, false, 5),
    (false, false, 7),
    (false, true, 5),
    (true, false, 6),
    (false, false, 8),
];

/// Bits of a sequence of `count` values of range `index` (elaboration-time arithmetic).
#[name_lets]
pub fn sequence_bits_const(index: usize, count: u32) -> u32 {
    let (t, q, n) = RANGES[index];
    let extra = if t {
        (8 * count).div_ceil(5)
    } else if q {
        (7 * count).div_ceil(3)
    } else {
        0
    };
    count * n + extra
}

/// A range as signals: one trit per value, one quint per value, `n` plain bits (4 bits).
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// Values carry a trit.
    pub trit: Sig,
    /// Values carry a quint.
    pub quint: Sig,
    /// Plain bits per value, 0..=8 (4 bits).
    pub n: Sig,
}

/// The range descriptor of range number `index` (0..=20).
#[name_lets]
pub fn range_of(index: Sig) -> Range {
    let table: Vec<u64> = RANGES
        .iter()
        .map(|&(t, q, n)| ((t as u64) << 5) | ((q as u64) << 4) | n as u64)
        .collect();
    let d = lut(index, &table, 6);
    Range {
        trit: d.bit(5),
        quint: d.bit(4),
        n: d.bits(3, 0),
    }
}

/// `floor(x · k / 2^s)` truncated to the width of `x` (exact division for the callers' ranges).
#[name_lets]
fn mul_shift(x: Sig, k: u32, s: u32) -> Sig {
    let w = x.width();
    let kw = 32 - k.leading_zeros();
    let xk = x.zext(w.max(kw)).mul_full(k);
    (xk >> s).resize(w)
}

/// `x / 5` for `x < 1024`.
pub fn div5(x: Sig) -> Sig {
    mul_shift(x, 205, 10)
}

/// `x / 3` for `x < 512`.
pub fn div3(x: Sig) -> Sig {
    mul_shift(x, 171, 9)
}

/// Bits of a sequence of `count` values of range `r`, `width` bits wide (count ≤ 127).
#[name_lets]
pub fn sequence_bits(m: &mut Module, r: &Range, count: Sig, width: u32) -> Sig {
    let c = count.resize(width);
    let plain = c.mul_full(r.n).resize(width);
    let trit = div5((c << 3) + 4);
    let quint = div3((c << 3) - c + 2);
    let extra = r.trit.mux(trit, r.quint.mux(quint, m.lit(0, width)));
    plain + extra
}

/// Where value `i` of a sequence lives: the first bit of its group and its place in the group.
#[derive(Clone, Copy, Debug)]
pub struct Loc {
    /// First bit of the value's trit/quint group (of the value itself for plain bits).
    pub base: Sig,
    /// Index of the value inside its group, 0..=4 (3 bits).
    pub j: Sig,
}

/// Locates value `index` (≤ 8 bits) of a sequence in range `r`; `base` is `base_width` bits.
#[name_lets]
pub fn locate(m: &mut Module, r: &Range, index: Sig, base_width: u32) -> Loc {
    let i = index.zext(index.width().max(8));
    let g5 = div5(i);
    let g3 = div3(i);
    let g = r.trit.mux(g5, r.quint.mux(g3, i));
    let j5 = (i - g5.mul_full(5u32).resize(i.width())).resize(3);
    let j3 = (i - g3.mul_full(3u32).resize(i.width())).resize(3);
    let j = r.trit.mux(j5, r.quint.mux(j3, m.lit(0, 3)));
    let n6 = r.n.zext(6);
    let gsize = r.trit.mux(
        n6.mul_full(5u32).resize(6) + 8,
        r.quint.mux((n6 << 1) + n6 + 7, n6),
    );
    let base = g.mul_full(gsize).resize(base_width);
    Loc { base, j }
}

/// The five trits of the packed 8-bit value `t`, two bits each.
#[name_lets]
pub fn unpack_trits(m: &mut Module, t: Sig) -> [Sig; 5] {
    let b = |i: u32| t.bit(i);
    let two = m.lit(2, 2);
    let high7 = t.bits(4, 2).eq(7);
    let c = high7.mux(cat(&[t.bits(7, 5), t.bits(1, 0)]), t.bits(4, 0));
    let t65_3 = t.bits(6, 5).eq(3);
    let t4 = high7.mux(two, t65_3.mux(two, b(7).zext(2)));
    let t3 = high7.mux(two, t65_3.mux(b(7).zext(2), t.bits(6, 5)));
    let cb = |i: u32| c.bit(i);
    let c10 = c.bits(1, 0).eq(3);
    let c32 = c.bits(3, 2).eq(3);
    let t2 = (c10 | c32).mux(two, cb(4).zext(2));
    let t1 = c10.mux(cb(4).zext(2), c32.mux(two, c.bits(3, 2)));
    let t0 = c10.mux(
        cat(&[cb(3), cb(2) & !cb(3)]),
        c32.mux(c.bits(1, 0), cat(&[cb(1), cb(0) & !cb(1)])),
    );
    [t0, t1, t2, t3, t4]
}

/// The three quints of the packed 7-bit value `q`, three bits each.
#[name_lets]
pub fn unpack_quints(m: &mut Module, q: Sig) -> [Sig; 3] {
    let b = |i: u32| q.bit(i);
    let four = m.lit(4, 3);
    let q21 = q.bits(2, 1).eq(3);
    let special = q21 & q.bits(6, 5).eq(0);
    let nb0 = !b(0);
    let sq2 = cat(&[b(0), b(4) & nb0, b(3) & nb0]);
    let c = q21.mux(cat(&[q.bits(4, 3), !q.bits(6, 5), b(0)]), q.bits(4, 0));
    let q2 = q21.mux(four, q.bits(6, 5).zext(3));
    let c5 = c.bits(2, 0).eq(5);
    let q0 = c5.mux(c.bits(4, 3).zext(3), c.bits(2, 0));
    let q1 = c5.mux(four, c.bits(4, 3).zext(3));
    [
        special.mux(four, q0),
        special.mux(four, q1),
        special.mux(sq2, q2),
    ]
}

/// Extracts the raw (still quantised) value at `loc` of range `r` from `stream`.
///
/// `group_width` bounds the group size of the ranges in use (38 for colours, 23 for weights)
/// and `out_width` the value width (8 for colours, 5 for weights).
#[name_lets]
pub fn extract(
    m: &mut Module,
    stream: Sig,
    r: &Range,
    loc: &Loc,
    group_width: u32,
    out_width: u32,
) -> Sig {
    let group = stream.shr(loc.base).resize(group_width);
    let zero = m.lit(0, 1);
    let z = |i: u32| if i < group_width { group.bit(i) } else { zero };
    // Trit bits: T1:0 at n, T3:2 at 2n+2, T4 at 3n+4, T6:5 at 4n+5, T7 at 5n+7.
    let trit_bits: Vec<Sig> = (0..=8)
        .map(|n| {
            let at = [
                5 * n + 7,
                4 * n + 6,
                4 * n + 5,
                3 * n + 4,
                2 * n + 3,
                2 * n + 2,
                n + 1,
                n,
            ];
            cat(&at.map(z))
        })
        .collect();
    // Quint bits: Q2:0 at n, Q4:3 at 2n+3, Q6:5 at 3n+5.
    let quint_bits: Vec<Sig> = (0..=8)
        .map(|n| {
            let at = [3 * n + 6, 3 * n + 5, 2 * n + 4, 2 * n + 3, n + 2, n + 1, n];
            cat(&at.map(z))
        })
        .collect();
    let n = r.n;
    let trits = unpack_trits(m, index_select(n, &trit_bits));
    let quints = unpack_quints(m, index_select(n, &quint_bits));
    let trit = index_select(loc.j, &trits).zext(3);
    let quint = index_select(loc.j, &quints);
    // Offset of m_j in the group: trits 0, n+2, 2n+4, 3n+5, 4n+7; quints 0, n+3, 2n+5.
    let jn = loc.j.mul_full(n).resize(6);
    let trit_add = lut(loc.j, &[0, 2, 4, 5, 7], 6);
    let quint_add = lut(loc.j, &[0, 3, 5], 6);
    let moff = r.trit.mux(jn + trit_add, r.quint.mux(jn + quint_add, jn));
    let ones = m.lit((1 << out_width) - 1, out_width);
    let mask = !ones.shl(n);
    let low = group.shr(moff).resize(out_width) & mask;
    let tq = r.trit.mux(trit, r.quint.mux(quint, m.lit(0, 3)));
    let high = tq.zext(out_width.max(3)).shl(n).resize(out_width);
    (high | low).named("ise_value")
}
