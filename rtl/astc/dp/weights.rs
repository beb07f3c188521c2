//! Weights: bilinear infill of the weight grid for one texel (ASTC spec C.2.18), weight
//! unquantisation to 0..=64 (C.2.17) and the weighted sum of the up-to-four grid weights.

use super::ise::Range;
use rendergen_hdl::{index_select, lut, name_lets, Module, Sig};

/// The up-to-four grid points a texel's weight is interpolated from.
#[derive(Clone, Copy, Debug)]
pub struct Infill {
    /// Grid index of the corners (0,0), (1,0), (0,1), (1,1), row-major (4 × 8 bits).
    pub index: [Sig; 4],
    /// Bilinear factor of each corner, summing to 16 (4 × 5 bits).
    pub factor: [Sig; 4],
}

/// `(1024 + b/2) / (b − 1)` for block dimension `b` (4 bits, 4..=12), 9 bits.
#[name_lets]
fn step(b: Sig) -> Sig {
    let table: Vec<u64> = (0..16u64)
        .map(|b| if b >= 2 { (1024 + b / 2) / (b - 1) } else { 0 })
        .collect();
    lut(b, &table, 11)
}

/// Infill of texel (`s`, `t`) of a `bw`×`bh` block with a `gw`×`gh` grid (all 4 bits).
#[name_lets]
pub fn infill(s: Sig, t: Sig, bw: Sig, bh: Sig, gw: Sig, gh: Sig) -> Infill {
    let axis = |pos: Sig, b: Sig, g: Sig| {
        let cs = step(b).mul_full(pos).resize(13);
        let gs = (cs.mul_full(g - 1).resize(17) + 32) >> 6;
        (gs.bits(7, 4), gs.bits(3, 0))
    };
    let (js, fs) = axis(s, bw, gw);
    let (jt, ft) = axis(t, bh, gh);
    let w11 = ((fs.mul_full(ft) + 8) >> 4).resize(5);
    let (fs, ft) = (fs.zext(5), ft.zext(5));
    let w10 = ft - w11;
    let w01 = fs - w11;
    let w00 = (w11 + 16) - fs - ft;
    let v0 = js.zext(8) + jt.mul_full(gw);
    let gw8 = gw.zext(8);
    Infill {
        index: [v0, v0 + 1, v0 + gw8, v0 + gw8 + 1],
        factor: [w00, w01, w10, w11],
    }
}

/// Unquantises the raw weight `v` (5 bits) of range `r` (one of the 12 weight ranges) to
/// 0..=64 (7 bits).
#[name_lets]
pub fn unquantize(m: &mut Module, r: &Range, v: Sig) -> Sig {
    let n = r.n;
    // Plain bits: replicate the n-bit value to 6 bits.
    let rep: Vec<Sig> = (0..=5u32)
        .map(|k| {
            if k == 0 {
                return m.lit(0, 6);
            }
            let x = v.resize(k);
            let mut parts = Vec::new();
            let mut have = 0;
            while have < 6 {
                parts.push(x);
                have += k;
            }
            (rendergen_hdl::cat(&parts) >> (have - 6)).resize(6)
        })
        .collect();
    let plain = index_select(n, &rep);
    // Trit/quint with no bits: fixed tables.
    let trit0 = lut(v, &[0, 32, 63], 6);
    let quint0 = lut(v, &[0, 16, 32, 47, 63], 6);
    // Trit/quint with bits: t = (D·C + B) ^ A, result (A & 0x20) | (t >> 2) (spec C.2.17).
    let bit = |i: u32| v.bit(i);
    let k7 = |m: &mut Module, x: u64| m.lit(x, 7);
    let c = r
        .trit
        .mux(lut(n, &[0, 50, 23, 11], 7), lut(n, &[0, 28, 13, 0], 7));
    let d = v.shr(n).resize(3);
    let n2 = n.eq(2);
    let n3 = n.eq(3);
    let (z, x45, x42, x21) = (k7(m, 0), k7(m, 0x45), k7(m, 0x42), k7(m, 0x21));
    let b_trit = n2.mux(
        bit(1).mux(x45, z),
        n3.mux(bit(2).mux(x42, z) + bit(1).mux(x21, z), z),
    );
    let b_quint = n2.mux(bit(1).mux(x42, z), z);
    let b = r.trit.mux(b_trit, b_quint);
    let a = bit(0).mux(k7(m, 0x7F), z);
    let t = (d.zext(7).mul_full(c).resize(7) + b) ^ a;
    let formula = (a & 0x20u32) | (t >> 2);
    let formula = formula.resize(6);
    let no_bits = n.eq(0);
    let raw = r.trit.mux(
        no_bits.mux(trit0, formula),
        r.quint.mux(no_bits.mux(quint0, formula), plain),
    );
    let up = raw.zext(7);
    up.gt(32).mux(up + 1, up)
}

/// The weight of one plane: `(Σ p_i·f_i + 8) >> 4` over the four corners (7 bits).
#[name_lets]
pub fn combine(p: &[Sig; 4], f: &[Sig; 4]) -> Sig {
    let terms: Vec<Sig> = (0..4).map(|i| p[i].mul_full(f[i]).resize(11)).collect();
    let sum = terms[0] + terms[1] + terms[2] + terms[3];
    ((sum + 8) >> 4).resize(7)
}
