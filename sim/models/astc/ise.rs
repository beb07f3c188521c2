//! Bounded integer sequence encoding (spec C.2.12) with random access to value `i`.
//!
//! A range is `2^n` (plain bits), `3·2^n` (one trit + n bits) or `5·2^n` (one quint + n bits).
//! Trits are packed five to a group of `8 + 5n` bits, quints three to a group of `7 + 3n` bits,
//! so value `i` is found from `i / 5` (or `i / 3`) without decoding the values before it.

/// One of the 21 ASTC value ranges, `0..levels()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quant(u8);

/// (trits, quints, bits) for the 21 ranges in increasing order: 2, 3, 4, 5, 6, 8, 10, 12, 16,
/// 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256.
const RANGES: [(u8, u8, u8); 21] = [
    (0, 0, 1),
    (1, 0, 0),
    (0, 0, 2),
    (0, 1, 0),
    (1, 0, 1),
    (0, 0, 3),
    (0, 1, 1),
    (1, 0, 2),
    (0, 0, 4),
    (0, 1, 2),
    (1, 0, 3),
    (0, 0, 5),
    (0, 1, 3),
    (1, 0, 4),
    (0, 0, 6),
    (0, 1, 4),
    (1, 0, 5),
    (0, 0, 7),
    (0, 1, 5),
    (1, 0, 6),
    (0, 0, 8),
];

impl Quant {
    /// Number of ranges.
    pub const COUNT: usize = 21;

    /// Range number `i` (0 = 0..1, 20 = 0..255). Panics if `i >= 21`.
    pub fn from_index(i: usize) -> Quant {
        assert!(i < Self::COUNT, "quant index {i} out of range");
        Quant(i as u8)
    }

    /// Index 0..=20 of this range.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// True if values carry a trit.
    pub fn trit(self) -> bool {
        RANGES[self.index()].0 == 1
    }

    /// True if values carry a quint.
    pub fn quint(self) -> bool {
        RANGES[self.index()].1 == 1
    }

    /// Plain bits per value (`n`).
    pub fn bits(self) -> u32 {
        RANGES[self.index()].2 as u32
    }

    /// Number of representable values (3·2^n, 5·2^n or 2^n).
    pub fn levels(self) -> u32 {
        let m = if self.trit() {
            3
        } else if self.quint() {
            5
        } else {
            1
        };
        m << self.bits()
    }

    /// Bits used by a sequence of `count` values.
    pub fn sequence_bits(self, count: u32) -> u32 {
        let n = self.bits();
        let mut total = count * n;
        if self.trit() {
            total += (8 * count).div_ceil(5);
        } else if self.quint() {
            total += (7 * count).div_ceil(3);
        }
        total
    }
}

/// A bit stream: `len` bits of `data` starting at bit `start`; bits at or beyond `len` read as 0
/// (spec: missing high bits of a final partial trit/quint group are zero).
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    data: u128,
    start: u32,
    len: u32,
}

impl Stream {
    /// The stream of `len` bits of `data` from bit `start` upwards.
    pub fn new(data: u128, start: u32, len: u32) -> Stream {
        Stream { data, start, len }
    }

    fn bit(&self, pos: u32) -> u32 {
        if pos >= self.len {
            0
        } else {
            super::bits(self.data, self.start + pos, 1)
        }
    }

    fn read(&self, pos: u32, n: u32) -> u32 {
        (0..n).fold(0, |acc, k| acc | (self.bit(pos + k) << k))
    }
}

/// The five trits packed in the 8-bit value `t` (spec C.2.12).
pub fn unpack_trits(t: u32) -> [u32; 5] {
    let b = |i: u32| (t >> i) & 1;
    let (c, t3, t4);
    if (t >> 2) & 7 == 7 {
        c = ((t >> 5) << 2) | (t & 3);
        (t3, t4) = (2, 2);
    } else {
        c = t & 0x1F;
        if (t >> 5) & 3 == 3 {
            (t3, t4) = (b(7), 2);
        } else {
            (t3, t4) = ((t >> 5) & 3, b(7));
        }
    }
    let cb = |i: u32| (c >> i) & 1;
    let (t0, t1, t2);
    if c & 3 == 3 {
        t2 = 2;
        t1 = cb(4);
        t0 = (cb(3) << 1) | (cb(2) & !cb(3) & 1);
    } else if (c >> 2) & 3 == 3 {
        t2 = 2;
        t1 = 2;
        t0 = c & 3;
    } else {
        t2 = cb(4);
        t1 = (c >> 2) & 3;
        t0 = (cb(1) << 1) | (cb(0) & !cb(1) & 1);
    }
    [t0, t1, t2, t3, t4]
}

/// The three quints packed in the 7-bit value `q` (spec C.2.12).
pub fn unpack_quints(q: u32) -> [u32; 3] {
    let b = |i: u32| (q >> i) & 1;
    if (q >> 1) & 3 == 3 && (q >> 5) & 3 == 0 {
        let nb0 = !b(0) & 1;
        let q2 = (b(0) << 2) | ((b(4) & nb0) << 1) | (b(3) & nb0);
        return [4, 4, q2];
    }
    let (q2, c);
    if (q >> 1) & 3 == 3 {
        q2 = 4;
        c = (((q >> 3) & 3) << 3) | ((!(q >> 5) & 3) << 1) | b(0);
    } else {
        q2 = (q >> 5) & 3;
        c = q & 0x1F;
    }
    if c & 7 == 5 {
        [c >> 3, 4, q2]
    } else {
        [c & 7, (c >> 3) & 3, q2]
    }
}

/// Trit group layout: bit offset of m_j, and (offset, width) of the T bits stored after m_j.
const TRIT_M: [(u32, u32); 5] = [(0, 0), (1, 2), (2, 4), (3, 5), (4, 7)];
const TRIT_T: [(u32, u32, u32); 5] = [(1, 0, 2), (2, 2, 2), (3, 4, 1), (4, 5, 2), (5, 7, 1)];
/// Quint group layout, same convention.
const QUINT_M: [(u32, u32); 3] = [(0, 0), (1, 3), (2, 5)];
const QUINT_T: [(u32, u32, u32); 3] = [(1, 0, 3), (2, 3, 2), (3, 5, 2)];

/// Raw (still quantised) value number `i` of a sequence in range `q` stored in `s`.
pub fn decode_value(s: &Stream, q: Quant, i: u32) -> u32 {
    let n = q.bits();
    if q.trit() {
        let base = (i / 5) * (8 + 5 * n);
        let j = (i % 5) as usize;
        let m = s.read(base + TRIT_M[j].0 * n + TRIT_M[j].1, n);
        let t = gather(s, base, n, &TRIT_T);
        (unpack_trits(t)[j] << n) | m
    } else if q.quint() {
        let base = (i / 3) * (7 + 3 * n);
        let j = (i % 3) as usize;
        let m = s.read(base + QUINT_M[j].0 * n + QUINT_M[j].1, n);
        let t = gather(s, base, n, &QUINT_T);
        (unpack_quints(t)[j] << n) | m
    } else {
        s.read(i * n, n)
    }
}

/// Collects the packed trit/quint bits of a group starting at `base`.
fn gather(s: &Stream, base: u32, n: u32, layout: &[(u32, u32, u32)]) -> u32 {
    let mut value = 0;
    let mut shift = 0;
    for &(mult, add, width) in layout {
        value |= s.read(base + mult * n + add, width) << shift;
        shift += width;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trits_cover_all_combinations() {
        let mut seen = std::collections::HashSet::new();
        for t in 0..256 {
            let v = unpack_trits(t);
            assert!(v.iter().all(|&x| x < 3));
            seen.insert(v);
        }
        assert_eq!(seen.len(), 243);
    }

    #[test]
    fn quints_cover_all_combinations() {
        let mut seen = std::collections::HashSet::new();
        for q in 0..128 {
            let v = unpack_quints(q);
            assert!(v.iter().all(|&x| x < 5));
            seen.insert(v);
        }
        assert_eq!(seen.len(), 125);
    }

    #[test]
    fn sequence_bits() {
        assert_eq!(Quant::from_index(1).sequence_bits(5), 8);
        assert_eq!(Quant::from_index(3).sequence_bits(3), 7);
        assert_eq!(Quant::from_index(4).sequence_bits(2), 2 + 4);
        assert_eq!(Quant::from_index(20).sequence_bits(4), 32);
        assert_eq!(Quant::from_index(6).levels(), 10);
    }

    #[test]
    fn plain_bits() {
        let s = Stream::new(0b1011_0110, 0, 8);
        assert_eq!(decode_value(&s, Quant::from_index(2), 0), 0b10);
        assert_eq!(decode_value(&s, Quant::from_index(2), 1), 0b01);
        assert_eq!(decode_value(&s, Quant::from_index(2), 3), 0b10);
        assert_eq!(decode_value(&s, Quant::from_index(2), 4), 0); // beyond len
    }
}
