//! Colour endpoints: colour value unquantisation to 0..=255 (ASTC spec C.2.13) and the LDR
//! colour endpoint modes 0, 1, 4, 5, 6, 8, 9, 10, 12, 13 (C.2.14). The HDR modes are in
//! [`super::endpoints_hdr`]; [`decode`] selects among all of them by CEM.

use super::endpoints_hdr;
use super::ise::Range;
use rendergen_hdl::{cat, index_select, lut, name_lets, Module, Sig};

/// Two RGBA endpoints: 12 bits per channel (LDR values 0..=255, HDR 12-bit pseudo-log), plus
/// which channels are HDR (interpolated in the LNS domain).
#[derive(Clone, Copy, Debug)]
pub struct Endpoints {
    /// Endpoint 0 (weight 0), R G B A.
    pub e0: [Sig; 4],
    /// Endpoint 1 (weight 64), R G B A.
    pub e1: [Sig; 4],
    /// Per channel: HDR (4 bits, bit c for channel c).
    pub hdr: Sig,
}

impl Endpoints {
    /// All fields in one signal: e0 R..A, e1 R..A (12 bits each, R of e0 lowest), then `hdr`.
    #[name_lets]
    pub fn pack(&self) -> Sig {
        let mut parts = vec![self.hdr];
        parts.extend(self.e1.iter().rev());
        parts.extend(self.e0.iter().rev());
        cat(&parts)
    }

    /// The inverse of [`Endpoints::pack`].
    pub fn unpack(p: Sig) -> Endpoints {
        Endpoints {
            e0: std::array::from_fn(|c| p.slice(12 * c as u32, 12)),
            e1: std::array::from_fn(|c| p.slice(48 + 12 * c as u32, 12)),
            hdr: p.slice(96, 4),
        }
    }
}

/// Unquantises colour value `v` (8 bits) of range `r` (one of ranges 4..=20) to 0..=255.
#[name_lets]
pub fn unquantize(m: &mut Module, r: &Range, v: Sig) -> Sig {
    let n = r.n;
    let rep: Vec<Sig> = (0..=8u32)
        .map(|k| {
            if k == 0 {
                return m.lit(0, 8);
            }
            let x = v.resize(k);
            let copies = 8u32.div_ceil(k);
            let parts = vec![x; copies as usize];
            (cat(&parts) >> (copies * k - 8)).resize(8)
        })
        .collect();
    let plain = index_select(n, &rep);
    // t = (D·C + B) ^ A; B is a sum of per-range constants selected by the bits of m.
    let idx = cat(&[r.trit, n]); // 5 bits
    let table = |f: &dyn Fn(bool, u32) -> u64| -> Vec<u64> {
        (0..32u32).map(|i| f(i >= 16, i & 15)).collect()
    };
    let c = lut(
        idx,
        &table(&|trit, n| match (trit, n) {
            (true, 1) => 204,
            (true, 2) => 93,
            (true, 3) => 44,
            (true, 4) => 22,
            (true, 5) => 11,
            (true, 6) => 5,
            (false, 1) => 113,
            (false, 2) => 54,
            (false, 3) => 26,
            (false, 4) => 13,
            (false, 5) => 6,
            _ => 0,
        }),
        8,
    );
    // Constant for bit k of m, by (trit, n): trits 0x116>>…, quints 0x10C>>… (table C.2.16).
    let trit_k: [[u64; 7]; 6] = [
        [0; 7],
        [0, 0, 0x116, 0x85, 0x41, 0x20, 0x10],
        [0, 0, 0, 0x10A, 0x82, 0x40, 0x20],
        [0, 0, 0, 0, 0x104, 0x81, 0x40],
        [0, 0, 0, 0, 0, 0x102, 0x80],
        [0, 0, 0, 0, 0, 0, 0x101],
    ];
    let quint_k: [[u64; 7]; 6] = [
        [0; 7],
        [0, 0, 0x10C, 0x82, 0x40, 0x20, 0],
        [0, 0, 0, 0x105, 0x81, 0x40, 0],
        [0, 0, 0, 0, 0x102, 0x80, 0],
        [0, 0, 0, 0, 0, 0x101, 0],
        [0; 7],
    ];
    let mut b = m.lit(0, 10);
    for k in 1..6usize {
        let t = table(&|trit, n| {
            let row = if trit { &trit_k[k] } else { &quint_k[k] };
            row.get(n as usize).copied().unwrap_or(0)
        });
        let kk = lut(idx, &t, 10);
        b = b + v.bit(k as u32).mux(kk, m.lit(0, 10));
    }
    let d = v.shr(n).resize(3);
    let a = v.bit(0).mux(m.lit(0x1FF, 10), m.lit(0, 10));
    let t = (d.zext(10).mul_full(c).resize(10) + b) ^ a;
    let formula = ((a & 0x80u32) | (t >> 2)).resize(8);
    (r.trit | r.quint).mux(formula, plain).named("colour_value")
}

/// `(d, base)` of the spec's `bit_transfer_signed(a, b)`: `d` = a\[6:1\] as a signed 6-bit
/// number, `base` = {a\[7\], b\[7:1\]}.
fn bit_transfer(a: Sig, b: Sig) -> (Sig, Sig) {
    (a.bits(6, 1), cat(&[a.bit(7), b.bits(7, 1)]))
}

/// Clamps a signed 11-bit value to 0..=255 (8 bits).
#[name_lets]
fn clamp8(m: &mut Module, x: Sig) -> Sig {
    let neg = x.msb();
    let big = !neg & x.bits(9, 8).ne(0);
    neg.mux(m.lit(0, 8), big.mux(m.lit(255, 8), x.resize(8)))
}

/// Blue contraction on signed 11-bit channels: R = (R+B)>>1, G = (G+B)>>1.
fn blue_contract(c: [Sig; 4]) -> [Sig; 4] {
    [
        (c[0] + c[2]).sra_const(1),
        (c[1] + c[2]).sra_const(1),
        c[2],
        c[3],
    ]
}

/// Endpoints of an LDR mode from 8-bit RGBA values (`hdr` 0).
fn ldr(m: &mut Module, e0: [Sig; 4], e1: [Sig; 4]) -> Endpoints {
    Endpoints {
        e0: e0.map(|x| x.zext(12)),
        e1: e1.map(|x| x.zext(12)),
        hdr: m.lit(0, 4),
    }
}

/// Decodes the endpoints of mode `cem` (4 bits) from the unquantised values `v` (8 × 8 bits).
/// With `hdr` false the HDR modes are not built (they decode as zero; the caller flags them).
#[name_lets]
pub fn decode(m: &mut Module, cem: Sig, v: &[Sig; 8], hdr: bool) -> Endpoints {
    let ff = m.lit(255, 8);
    let s11 = |x: Sig| x.zext(11);
    // Mode 0, 4: luminance (+ alpha) direct.
    let m0 = ldr(m, [v[0], v[0], v[0], ff], [v[1], v[1], v[1], ff]);
    let m4 = ldr(m, [v[0], v[0], v[0], v[2]], [v[1], v[1], v[1], v[3]]);
    // Mode 1: luminance base + offset.
    let l0 = cat(&[v[1].bits(7, 6), v[0].bits(7, 2)]);
    let l1s = l0.zext(9) + v[1].bits(5, 0).zext(9);
    let l1 = l1s.bit(8).mux(ff, l1s.resize(8));
    let m1 = ldr(m, [l0, l0, l0, ff], [l1, l1, l1, ff]);
    // Modes 5, 9, 13: base + signed offset.
    let bt: Vec<(Sig, Sig)> = (0..4)
        .map(|i| bit_transfer(v[2 * i + 1], v[2 * i]))
        .collect();
    let sum = |m: &mut Module, i: usize| clamp8(m, s11(bt[i].1) + bt[i].0.sext(11));
    let m5 = {
        let (s0, s1) = (sum(m, 0), sum(m, 1));
        ldr(m, [bt[0].1, bt[0].1, bt[0].1, bt[1].1], [s0, s0, s0, s1])
    };
    let rgb_offsets = |m: &mut Module, four: bool| {
        let base: [Sig; 4] =
            std::array::from_fn(|i| if i < 3 || four { s11(bt[i].1) } else { s11(ff) });
        let z11 = m.lit(0, 11);
        let off: [Sig; 4] =
            std::array::from_fn(|i| if i < 3 || four { bt[i].0.sext(11) } else { z11 });
        let total: [Sig; 4] = std::array::from_fn(|i| base[i] + off[i]);
        let dsum = off[0] + off[1] + off[2];
        let forward = !dsum.msb();
        let (a, b) = (blue_contract(total), blue_contract(base));
        let e0: [Sig; 4] = std::array::from_fn(|i| forward.mux(base[i], a[i]));
        let e1: [Sig; 4] = std::array::from_fn(|i| forward.mux(total[i], b[i]));
        let e0 = e0.map(|x| clamp8(m, x));
        let e1 = e1.map(|x| clamp8(m, x));
        ldr(m, e0, e1)
    };
    let m9 = rgb_offsets(m, false);
    let m13 = rgb_offsets(m, true);
    // Modes 6, 10: base + scale.
    let scaled: Vec<Sig> = (0..3)
        .map(|i| (v[i].mul_full(v[3]) >> 8).resize(8))
        .collect();
    let m6 = ldr(
        m,
        [scaled[0], scaled[1], scaled[2], ff],
        [v[0], v[1], v[2], ff],
    );
    let m10 = ldr(
        m,
        [scaled[0], scaled[1], scaled[2], v[4]],
        [v[0], v[1], v[2], v[5]],
    );
    // Modes 8, 12: direct RGB(A) with blue contraction when the sum decreases.
    let rgb_direct = |m: &mut Module, a0: Sig, a1: Sig| {
        let lo = v[0].zext(10) + v[2].zext(10) + v[4].zext(10);
        let hi = v[1].zext(10) + v[3].zext(10) + v[5].zext(10);
        let forward = hi.ge(lo);
        let bc = |r: Sig, g: Sig, b: Sig| {
            [
                ((r.zext(9) + b.zext(9)) >> 1).resize(8),
                ((g.zext(9) + b.zext(9)) >> 1).resize(8),
                b,
            ]
        };
        let c1 = bc(v[1], v[3], v[5]);
        let c0 = bc(v[0], v[2], v[4]);
        let e0 = [
            forward.mux(v[0], c1[0]),
            forward.mux(v[2], c1[1]),
            forward.mux(v[4], c1[2]),
            forward.mux(a0, a1),
        ];
        let e1 = [
            forward.mux(v[1], c0[0]),
            forward.mux(v[3], c0[1]),
            forward.mux(v[5], c0[2]),
            forward.mux(a1, a0),
        ];
        ldr(m, e0, e1)
    };
    let m8 = rgb_direct(m, ff, ff);
    let m12 = rgb_direct(m, v[6], v[7]);
    let z8 = m.lit(0, 8);
    let zero = ldr(m, [z8; 4], [z8; 4]);
    let h = if hdr {
        Some(endpoints_hdr::decode_all(m, v))
    } else {
        None
    };
    let hdr_mode = |i: usize| h.as_ref().map(|h| h[i]).unwrap_or(zero);
    let cases = [
        m0,
        m1,
        hdr_mode(0),
        hdr_mode(1),
        m4,
        m5,
        m6,
        hdr_mode(2),
        m8,
        m9,
        m10,
        hdr_mode(3),
        m12,
        m13,
        hdr_mode(4),
        hdr_mode(5),
    ];
    let packed: Vec<Sig> = cases.iter().map(Endpoints::pack).collect();
    Endpoints::unpack(index_select(cem, &packed).named("endpoints"))
}
