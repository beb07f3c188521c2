//! Number conversions at the end of the pipeline (ASTC spec C.2.19 and astcenc's output
//! path): UNORM16 → FP16, LNS → FP16, quieting FP16 NaNs, and FP16 → the 8-bit value astcenc
//! writes for LDR images.

use rendergen_hdl::{cat, name_lets, priority_select, Module, Sig};

/// UNORM16 `c` to FP16: 0xFFFF is 1.0, otherwise `c / 65536` truncated to 11 significant bits.
#[name_lets]
pub fn unorm16_to_fp16(m: &mut Module, c: Sig) -> Sig {
    let lead: Vec<(Sig, Sig)> = (2..16u32)
        .rev()
        .map(|i| (c.bit(i), m.lit(i as u64, 4)))
        .collect();
    let e = priority_select(&lead, m.lit(2, 4)); // position of the leading one (c ≥ 4)
    let normal = c.shl(m.lit(15, 4) - e);
    let h = cat(&[m.lit(0, 1), (e - 1).zext(5), normal.bits(14, 5)]);
    let sub = c.bits(1, 0).zext(16) << 8;
    let small = c.bits(15, 2).eq(0);
    let one = m.lit(0x3C00, 16);
    c.all().mux(one, small.mux(sub, h))
}

/// Interpolated 16-bit LNS value `c` to FP16 (spec C.2.19); Inf/NaN results become 0x7BFF.
#[name_lets]
pub fn lns_to_fp16(m: &mut Module, c: Sig) -> Sig {
    let e = c.bits(15, 11);
    let mant = c.bits(10, 0).zext(13);
    let three = (mant << 1) + mant;
    let four = mant << 2;
    let five = four + mant;
    let mt = mant
        .lt(512)
        .mux(three, mant.ge(1536).mux(five - 2048, four - 512));
    let r = (e.zext(16) << 10) + (mt >> 3).zext(16);
    r.gt(0x7BFF).mux(m.lit(0x7BFF, 16), r)
}

/// Sets the quiet bit of an FP16 NaN (as a round trip through `f32` does).
#[name_lets]
pub fn quiet_nan(h: Sig) -> Sig {
    let nan = h.bits(14, 10).all() & h.bits(9, 0).any();
    nan.mux(h | 0x200u32, h)
}

/// True if FP16 `h` is a NaN.
pub fn is_nan(h: Sig) -> Sig {
    h.bits(14, 10).all() & h.bits(9, 0).any()
}

/// FP16 `h` to the 8-bit value astcenc stores: clamp to 0..=1, ×255, round to nearest even
/// (8 bits; a NaN gives 0 here and is handled by the caller).
#[name_lets]
pub fn fp16_to_unorm8(m: &mut Module, h: Sig) -> Sig {
    let sign = h.bit(15);
    let e = h.bits(14, 10);
    let p = cat(&[m.lit(1, 1), h.bits(9, 0)])
        .mul_full(m.lit(255, 8))
        .zext(32); // 19 bits used
    let s = m.lit(25, 5) - e; // 11..=24 for 1 ≤ e ≤ 14
    let q = p.shr(s).resize(8);
    let half = p.shr(s - 1).bit(0);
    let sticky_mask = m.lit(0xFFFF_FFFF, 32).shr(m.lit(33, 6) - s.zext(6));
    let sticky = (p & sticky_mask).any();
    let rounded = q + (half & (sticky | q.bit(0))).zext(8);
    let zero = m.lit(0, 8);
    let full = m.lit(255, 8);
    let nan = is_nan(h);
    priority_select(
        &[(sign | nan, zero), (e.ge(15), full), (e.eq(0), zero)],
        rounded,
    )
}
