//! Weight application (ASTC spec C.2.19 as astcenc computes it): one channel interpolated
//! between its endpoints, per profile.

use rendergen_hdl::{cat, name_lets, Sig};

/// `(a·(64 − w) + b·w + 32) >> 6` on 16-bit `a`, `b` with weight `w` 0..=64 (7 bits).
#[name_lets]
pub fn lerp(a: Sig, b: Sig, w: Sig) -> Sig {
    let wa = -w + 64u32;
    let sum = a.mul_full(wa) + b.mul_full(w);
    ((sum + 32) >> 6).resize(16)
}

/// One channel: endpoints `e0`, `e1` (12 bits), weight `w`. `lns`: the channel is HDR
/// (interpolated as `e << 4`, to be converted from LNS); `srgb`: LDR sRGB (interpolated at 8
/// bits, then ×257); otherwise LDR UNORM16 (`e × 257`). Returns 16 bits.
#[name_lets]
pub fn channel(e0: Sig, e1: Sig, w: Sig, lns: Sig, srgb: Sig) -> Sig {
    let widen = |e: Sig| {
        let byte = e.resize(8);
        lns.mux(e << 4, srgb.mux(byte.zext(16), cat(&[byte, byte])))
    };
    let v = lerp(widen(e0.zext(16)), widen(e1.zext(16)), w);
    let byte = v.resize(8);
    srgb.mux(cat(&[byte, byte]), v)
}
