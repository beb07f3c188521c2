//! Conversions between shader values (binary32) and render-target formats, in fixed function:
//! the RTL side of `sim/models/tile/pack.rs` (whose module docs define them), used by the
//! export collector ([`super::exports`]) to pack a fragment's colour for the tile buffer.
//! All combinational.
use super::RtFormat;
use rendergen_hdl::{cat, Module, Sig};

/// A binary32 value stored in an 8-bit UNORM channel: `⌊clamp(v, 0, 1)·255 + 0.5⌋`, NaN → 0
/// (subnormals are below 1/510 and give 0). 8 bits.
pub fn unorm8_from_f32(m: &mut Module, v: Sig) -> Sig {
    let sign = v.bit(31);
    let exp = v.bits(30, 23);
    let man = v.bits(22, 0);
    let nan = exp.eq(0xFF) & man.any();
    // 0 < v < 1 with exponent field 118 ..= 126: u = (M·255 + 2^(s−1)) >> s, s = 150 − exp.
    let sig = cat(&[m.lit(1, 1), man]); // 24 bits
    let product = sig.mul_full(m.lit(255, 8)).zext(33); // < 2^32
    let shift = (m.lit(150, 8) - exp).resize(6);
    let half = m.lit(1, 33).shl(shift - 1);
    let scaled = (product + half).shr(shift).resize(8);
    let small = exp.lt(118);
    let below_one = exp.lt(127);
    let zero = nan | sign | small;
    zero.mux(m.lit(0, 8), below_one.mux(scaled, m.lit(255, 8)))
}

/// binary32 → binary16 bits (round to nearest even, overflow to ±∞, NaN → 0x7E00, binary16
/// subnormals kept, a binary32 subnormal flushed to a signed zero first). 16 bits.
pub fn f32_to_f16(m: &mut Module, x: Sig) -> Sig {
    let sign = x.bit(31);
    let exp = x.bits(30, 23);
    let man = x.bits(22, 0);
    let signed = |m: &mut Module, v: u64| cat(&[sign, m.lit(v, 15)]);
    let nan = exp.eq(0xFF) & man.any();
    let inf = exp.eq(0xFF) & !man.any();
    // e = exp − 112 (the binary16 biased exponent); overflow when e ≥ 31, i.e. exp ≥ 143.
    let overflow = exp.ge(143);
    let normal = exp.ge(113); // e ≥ 1
                              // shift = 13 for a normal result, 14 − e = 126 − exp for a subnormal one (≤ 24 kept).
    let sub_shift = m.lit(126, 8) - exp;
    let shift = normal.mux(m.lit(13, 8), sub_shift);
    let too_small = !normal & exp.lt(102); // shift > 24
    let sig = cat(&[m.lit(1, 1), man]); // 24 bits
    let sh = shift.resize(5);
    let kept = sig.shr(sh);
    let rest_mask = m.lit(1, 24).shl(sh) - 1;
    let rest = sig & rest_mask;
    let half = m.lit(1, 24).shl(sh - 1);
    let round = rest.gt(half) | (rest.eq(half) & kept.bit(0));
    let e = (exp - 112).resize(5);
    let normal_bits = cat(&[e, kept.bits(9, 0)]) + round.zext(15);
    let sub_bits = kept.resize(15) + round.zext(15);
    let value = normal.mux(normal_bits, sub_bits);
    let zero = exp.eq(0) | too_small;
    nan.mux(
        m.lit(0x7E00, 16),
        (inf | overflow).mux(
            signed(m, 0x7C00),
            zero.mux(signed(m, 0), cat(&[sign, value])),
        ),
    )
}

/// A binary32 RGBA value packed into format `f` (`pack::pack`): RGBA8 four UNORM8 bytes,
/// RGBA16F four and RG16F two binary16 halves (channel 0 in the low bits), R32F the red
/// word. [`RtFormat::bits`] wide.
pub fn pack_rgba(m: &mut Module, f: RtFormat, rgba: &[Sig; 4]) -> Sig {
    match f {
        RtFormat::Rgba8 => {
            let c: Vec<Sig> = rgba.iter().rev().map(|&v| unorm8_from_f32(m, v)).collect();
            cat(&c)
        }
        RtFormat::Rgba16f => {
            let c: Vec<Sig> = rgba.iter().rev().map(|&v| f32_to_f16(m, v)).collect();
            cat(&c)
        }
        RtFormat::Rg16f => {
            let c: Vec<Sig> = rgba[..2].iter().rev().map(|&v| f32_to_f16(m, v)).collect();
            cat(&c)
        }
        RtFormat::R32f => rgba[0],
    }
}

/// binary16 bits → binary32 bits, exact (a subnormal half becomes a normal binary32, a NaN the
/// canonical 0x7FC00000).
pub fn f16_to_f32(m: &mut Module, h: Sig) -> Sig {
    let sign = h.bit(15);
    let exp = h.bits(14, 10);
    let man = h.bits(9, 0);
    let lz = crate::fp::fma::leading_zeros(m, man).resize(4); // 0 ..= 9 when man ≠ 0
                                                              // A subnormal: top bit at 9 − lz; exponent 103 + (9 − lz) = 112 − lz; the fraction is
                                                              // man shifted so the top bit leaves.
    let sub_man = man.zext(23).shl(lz.zext(5) + 14).resize(23);
    let sub = cat(&[sign, m.lit(112, 8) - lz.zext(8), sub_man]);
    let normal = cat(&[sign, exp.zext(8) + 112, man, m.lit(0, 13)]);
    let inf = cat(&[sign, m.lit(0xFF, 8), m.lit(0, 23)]);
    let zero = cat(&[sign, m.lit(0, 31)]);
    let is_max = exp.eq(31);
    let is_zero_exp = exp.eq(0);
    is_max.mux(
        man.any().mux(m.lit(0x7FC0_0000, 32), inf),
        is_zero_exp.mux(man.any().mux(sub, zero), normal),
    )
}

/// An 8-bit UNORM channel as binary32, `u/255` correctly rounded (a 256-entry table).
pub fn unorm8_to_f32(m: &mut Module, u: Sig) -> Sig {
    let table: Vec<Sig> = (0..256u32)
        .map(|k| m.lit((k as f32 / 255.0).to_bits() as u64, 32))
        .collect();
    rendergen_hdl::index_select(u.resize(8), &table)
}

/// Channel `c` (2 bits) of a stored value of format `f` as binary32 (`pack::load_channel`):
/// missing channels read 0, alpha 1.0.
pub fn load_channel(m: &mut Module, f: RtFormat, stored: Sig, c: Sig) -> Sig {
    let one = m.lit(0x3F80_0000, 32);
    let zero = m.lit(0, 32);
    let per: Vec<Sig> = (0..4u32)
        .map(|k| match (f, k) {
            (RtFormat::Rgba8, k) => unorm8_to_f32(m, stored.bits(8 * k + 7, 8 * k)),
            (RtFormat::Rgba16f, k) | (RtFormat::Rg16f, k @ 0..=1) => {
                f16_to_f32(m, stored.bits(16 * k + 15, 16 * k))
            }
            (RtFormat::R32f, 0) => stored.bits(31, 0),
            (_, 3) => one,
            _ => zero,
        })
        .collect();
    rendergen_hdl::index_select(c, &per)
}

/// `stored` with channel `c` replaced by binary32 `v` converted to format `f`
/// (`pack::store_channel`; a channel the format lacks leaves it unchanged).
pub fn store_channel(m: &mut Module, f: RtFormat, stored: Sig, c: Sig, v: Sig) -> Sig {
    let w = stored.width();
    let per: Vec<Sig> = (0..4u32)
        .map(|k| {
            let (bits, val) = match (f, k) {
                (RtFormat::Rgba8, _) => (8, unorm8_from_f32(m, v)),
                (RtFormat::Rgba16f, _) | (RtFormat::Rg16f, 0..=1) => (16, f32_to_f16(m, v)),
                (RtFormat::R32f, 0) => (32, v),
                _ => return stored,
            };
            let lo = bits * k;
            let mut parts = Vec::new();
            if lo + bits < w {
                parts.push(stored.bits(w - 1, lo + bits));
            }
            parts.push(val);
            if lo > 0 {
                parts.push(stored.bits(lo - 1, 0));
            }
            cat(&parts)
        })
        .collect();
    rendergen_hdl::index_select(c, &per)
}
