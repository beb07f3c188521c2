//! HDR colour endpoint modes 2, 3, 7, 11, 14, 15 (ASTC spec C.2.15): 12-bit pseudo-log
//! endpoints (0x780 is 1.0). Arithmetic is two's complement on 18 bits, clamped to 0..=0xFFF.

use super::endpoints::Endpoints;
use rendergen_hdl::{cat, index_select, lut, name_lets, Module, Sig};

/// Width of the signed intermediate values.
const W: u32 = 18;

/// Clamps a signed `W`-bit value to 0..=0xFFF (12 bits).
#[name_lets]
fn clamp12(m: &mut Module, x: Sig) -> Sig {
    let neg = x.msb();
    let big = !neg & x.bits(W - 2, 12).any();
    neg.mux(m.lit(0, 12), big.mux(m.lit(0xFFF, 12), x.resize(12)))
}

/// `(mask >> mode) & 1` for a small one-hot mode number (the spec's `ohm & mask`).
#[name_lets]
fn on(mode: Sig, mask: u64) -> Sig {
    let table: Vec<u64> = (0..8).map(|i| (mask >> i) & 1).collect();
    lut(mode, &table, 1)
}

/// `bit` placed at `pos` of a `W`-bit value when `cond`.
fn put(m: &mut Module, cond: Sig, bit: Sig, pos: u32) -> Sig {
    (cond & bit).zext(W).shl(m.lit(pos as u64, 5))
}

#[name_lets]
fn rgb(m: &mut Module, e0: [Sig; 3], e1: [Sig; 3], alpha: Option<(Sig, Sig, Sig)>) -> Endpoints {
    let one = m.lit(0x780, 12);
    let (a0, a1, hdr_alpha) = alpha.unwrap_or((one, one, m.lit(1, 1)));
    Endpoints {
        e0: [e0[0], e0[1], e0[2], a0],
        e1: [e1[0], e1[1], e1[2], a1],
        hdr: cat(&[hdr_alpha, m.lit(7, 3)]),
    }
}

/// Swaps channel 0 with channel `majcomp` (0: none, 1: green, 2: blue).
#[name_lets]
fn major(c: [Sig; 3], majcomp: Sig) -> [Sig; 3] {
    let g = majcomp.eq(1);
    let b = majcomp.eq(2);
    [
        g.mux(c[1], b.mux(c[2], c[0])),
        g.mux(c[0], c[1]),
        b.mux(c[0], c[2]),
    ]
}

/// Mode 2: HDR luminance, large range.
#[name_lets]
fn mode2(m: &mut Module, v: &[Sig; 8]) -> Endpoints {
    let (a, b) = (v[0].zext(12) << 4, v[1].zext(12) << 4);
    let up = v[1].ge(v[0]);
    let y0 = up.mux(a, b + 8);
    let y1 = up.mux(b, a - 8);
    rgb(m, [y0; 3], [y1; 3], None)
}

/// Mode 3: HDR luminance, small range.
#[name_lets]
fn mode3(m: &mut Module, v: &[Sig; 8]) -> Endpoints {
    let wide = v[0].bit(7);
    let y0w = cat(&[v[1].bits(7, 5), v[0].bits(6, 0), m.lit(0, 2)]);
    let y0n = cat(&[v[1].bits(7, 4), v[0].bits(6, 0), m.lit(0, 1)]);
    let dw = cat(&[v[1].bits(4, 0), m.lit(0, 2)]).zext(13);
    let dn = cat(&[v[1].bits(3, 0), m.lit(0, 1)]).zext(13);
    let y0 = wide.mux(y0w, y0n);
    let sum = y0.zext(13) + wide.mux(dw, dn);
    let y1 = sum.bit(12).mux(m.lit(0xFFF, 12), sum.resize(12));
    rgb(m, [y0; 3], [y1; 3], None)
}

/// Mode 7: HDR RGB, base + scale.
#[name_lets]
fn mode7(m: &mut Module, v: &[Sig; 8]) -> Endpoints {
    let modeval = cat(&[v[2].bit(7), v[1].bit(7), v[0].bits(7, 6)]);
    let top = modeval.bits(3, 2).eq(3);
    let all = modeval.eq(15);
    let majcomp = top.mux(all.mux(m.lit(0, 2), modeval.bits(1, 0)), modeval.bits(3, 2));
    let mode = top.mux(
        all.mux(m.lit(5, 3), m.lit(4, 3)),
        modeval.bits(1, 0).zext(3),
    );
    let x = |i: usize, b: u32| v[i].bit(b);
    let (x0, x1, x2, x3) = (x(1, 6), x(1, 5), x(2, 6), x(2, 5));
    let (x4, x5, x6) = (x(3, 7), x(3, 6), x(3, 5));
    let w = |s: Sig| s.zext(W);
    let mut red = w(v[0].bits(5, 0));
    let mut green = w(v[1].bits(4, 0));
    let mut blue = w(v[2].bits(4, 0));
    let mut scale = w(v[3].bits(4, 0));
    let o = |mask| on(mode, mask);
    green = green | put(m, o(0x30), x0, 6) | put(m, o(0x3A), x1, 5);
    blue = blue | put(m, o(0x30), x2, 6) | put(m, o(0x3A), x3, 5);
    scale = scale | put(m, o(0x3D), x6, 5) | put(m, o(0x2D), x5, 6) | put(m, o(0x04), x4, 7);
    red = red | put(m, o(0x04), x3, 6) | put(m, o(0x3B), x4, 6) | put(m, o(0x10), x5, 7);
    red = red | put(m, o(0x0F), x2, 7) | put(m, o(0x05), x1, 8) | put(m, o(0x05), x0, 9);
    red = red | put(m, o(0x0A), x0, 8) | put(m, o(0x02), x6, 9) | put(m, o(0x02), x5, 10);
    red = red | put(m, o(0x01), x3, 10);
    let shamt = lut(mode, &[1, 1, 2, 3, 4, 5], 3);
    let (red, green, blue, scale) = (
        red.shl(shamt),
        green.shl(shamt),
        blue.shl(shamt),
        scale.shl(shamt),
    );
    let five = mode.eq(5);
    let c = major(
        [
            red,
            five.mux(green, red - green),
            five.mux(blue, red - blue),
        ],
        majcomp,
    );
    let e1 = c.map(|x| clamp12(m, x));
    let e0 = c.map(|x| clamp12(m, x - scale));
    rgb(m, e0, e1, None)
}

/// Sign extension of the low `bits` bits of `x` to `W` bits.
fn sext_low(x: Sig, bits: u32) -> Sig {
    x.resize(bits).sext(W)
}

/// Mode 11: HDR RGB, direct (the RGB part of modes 14 and 15 too).
#[name_lets]
fn mode11(m: &mut Module, v: &[Sig; 8]) -> Endpoints {
    let majcomp = cat(&[v[5].bit(7), v[4].bit(7)]);
    let w = |s: Sig| s.zext(W);
    // majcomp == 3: direct 8-bit (blue 7-bit) values.
    let direct0 = [
        v[0].zext(12) << 4,
        v[2].zext(12) << 4,
        v[4].bits(6, 0).zext(12) << 5,
    ];
    let direct1 = [
        v[1].zext(12) << 4,
        v[3].zext(12) << 4,
        v[5].bits(6, 0).zext(12) << 5,
    ];
    let mode = cat(&[v[3].bit(7), v[2].bit(7), v[1].bit(7)]);
    let x = |i: usize, b: u32| v[i].bit(b);
    let (x0, x1, x2, x3, x4, x5) = (x(2, 6), x(3, 6), x(4, 6), x(5, 6), x(4, 5), x(5, 5));
    let o = |mask| on(mode, mask);
    let mut va = w(cat(&[v[1].bit(6), v[0]]));
    let mut vb0 = w(v[2].bits(5, 0));
    let mut vb1 = w(v[3].bits(5, 0));
    let mut vc = w(v[1].bits(5, 0));
    va = va | put(m, o(0xA4), x0, 9) | put(m, o(0x08), x2, 9) | put(m, o(0x50), x4, 9);
    va = va | put(m, o(0x50), x5, 10) | put(m, o(0xA0), x1, 10) | put(m, o(0xC0), x2, 11);
    vc = vc | put(m, o(0x04), x1, 6) | put(m, o(0xE8), x3, 6) | put(m, o(0x20), x2, 7);
    vb0 = vb0 | put(m, o(0x5B), x0, 6) | put(m, o(0x12), x2, 7);
    vb1 = vb1 | put(m, o(0x5B), x1, 6) | put(m, o(0x12), x3, 7);
    // dbits = 7, 6, 7, 6, 5, 6, 5, 6 by mode.
    let dbits = lut(mode, &[0, 1, 0, 1, 2, 1, 2, 1], 2);
    let vd = |val: Sig| {
        index_select(
            dbits,
            &[sext_low(val, 7), sext_low(val, 6), sext_low(val, 5)],
        )
    };
    let (vd0, vd1) = (vd(v[4]), vd(v[5]));
    let shamt = lut(mode, &[3, 3, 2, 2, 1, 1, 0, 0], 2);
    let [va, vb0, vb1, vc, vd0, vd1] = [va, vb0, vb1, vc, vd0, vd1].map(|s| s.shl(shamt));
    let e1 = major([va, va - vb0, va - vb1], majcomp).map(|s| clamp12(m, s));
    let e0 =
        major([va - vc, va - vb0 - vc - vd0, va - vb1 - vc - vd1], majcomp).map(|s| clamp12(m, s));
    let d = majcomp.eq(3);
    let e0: [Sig; 3] = std::array::from_fn(|i| d.mux(direct0[i], e0[i]));
    let e1: [Sig; 3] = std::array::from_fn(|i| d.mux(direct1[i], e1[i]));
    rgb(m, e0, e1, None)
}

/// Mode 15's HDR alpha from `v6`, `v7`: (a0, a1).
#[name_lets]
fn alpha15(m: &mut Module, v6: Sig, v7: Sig) -> (Sig, Sig) {
    let mode = cat(&[v7.bit(7), v6.bit(7)]);
    let a = v6.bits(6, 0);
    let b = v7.bits(6, 0);
    let direct = (a.zext(12) << 5, b.zext(12) << 5);
    let per_mode: Vec<(Sig, Sig)> = (0..3u32)
        .map(|k| {
            // a |= (b << (k+1)) & 0x780; b = sign-extended low 6-k bits; both << (4-k).
            let high = (b.zext(12) << (k + 1)) & 0x780u32;
            let ak = (a.zext(12) | high) << (4 - k);
            let bk = b.resize(6 - k).sext(W).shl(m.lit((4 - k) as u64, 3));
            (ak, clamp12(m, bk + ak.zext(W)))
        })
        .collect();
    let a0 = index_select(
        mode,
        &[per_mode[0].0, per_mode[1].0, per_mode[2].0, direct.0],
    );
    let a1 = index_select(
        mode,
        &[per_mode[0].1, per_mode[1].1, per_mode[2].1, direct.1],
    );
    (a0, a1)
}

/// The endpoints of the six HDR modes (2, 3, 7, 11, 14, 15, in that order) from the
/// unquantised values `v`.
#[name_lets]
pub fn decode_all(m: &mut Module, v: &[Sig; 8]) -> [Endpoints; 6] {
    let m11 = mode11(m, v);
    let mut m14 = m11;
    m14.e0[3] = v[6].zext(12);
    m14.e1[3] = v[7].zext(12);
    m14.hdr = m.lit(7, 4);
    let mut m15 = m11;
    let (a0, a1) = alpha15(m, v[6], v[7]);
    m15.e0[3] = a0;
    m15.e1[3] = a1;
    [mode2(m, v), mode3(m, v), mode7(m, v), m11, m14, m15]
}
