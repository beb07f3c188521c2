//! Conversions between shader values (binary32 words) and render-target formats, and the
//! write-out's multisample resolve. One definition serves the pixel pipeline (fragment exports
//! into the tile buffer), the tile shader's image access and the write-out.
//!
//! * RGBA8 UNORM: store `u = ⌊clamp(v, 0, 1)·255 + 0.5⌋` (NaN stores 0); load `u/255`
//!   correctly rounded to binary32.
//! * RGBA16F, RG16F: binary16 per channel, round to nearest even, overflow to ±∞, NaN to the
//!   canonical half NaN 0x7E00, binary16 subnormals kept (a binary32 subnormal input is
//!   flushed to zero first, D6); loads are exact (a half subnormal becomes a normal binary32).
//! * R32F: the word itself.
//! * Channels a format does not have load as 0 (colour) and 1.0 (alpha) and ignore stores.
//! * Depth (D24): channel 0 is the raw integer; other channels load as 0 and 1 (alpha).
//!
//! Resolve by average (the write-out's rule, `rtl/tile/resolve.rs`): RGBA8 per channel
//! `(Σ + n/2) / n` in integers; D24 likewise; RGBA16F and RG16F per channel the **exact**
//! mean of the binary16 samples rounded once to nearest even (binary16 subnormals kept; a NaN
//! sample, or +∞ together with −∞, gives `0x7E00`; otherwise an infinity gives itself; an
//! exact zero mean is +0); R32F the pairwise sum `((s0 + s1) + (s2 + s3)) · (1/n)` in the
//! shader core's binary32 (`fp32::basic`: D6 rounding, flushing and canonical NaN) — what a
//! tile shader computing the mean gets.
use super::buffer::Format;
use crate::models::fp32::basic;

/// binary32 bits → binary16 bits (see the module documentation).
pub fn f32_to_f16(x: u32) -> u16 {
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xFF) as i32;
    let man = x & 0x7F_FFFF;
    if exp == 0xFF {
        return if man != 0 { 0x7E00 } else { sign | 0x7C00 };
    }
    if exp == 0 {
        return sign; // zero or a flushed binary32 subnormal
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7C00;
    }
    // 24-bit significand with the hidden bit; shift to the half's 11 bits (more if subnormal).
    let sig = man | 0x80_0000;
    let shift = if e <= 0 { 13 + 1 - e } else { 13 } as u32;
    if shift > 24 {
        return sign;
    }
    let kept = sig >> shift;
    let rest = sig & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let round = (rest > half || (rest == half && kept & 1 == 1)) as u32;
    let v = if e <= 0 {
        kept + round // subnormal (a carry into the exponent field is right)
    } else {
        (((e as u32) << 10) | (kept & 0x3FF)) + round
    };
    sign | v as u16
}

/// binary16 bits → binary32 bits (exact).
pub fn f16_to_f32(h: u16) -> u32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1F) as u32;
    let man = (h & 0x3FF) as u32;
    match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            let lead = 31 - m.leading_zeros(); // position of the top bit, 0..=9
            let e = 127 - 15 - (10 - lead) + 1;
            sign | (e << 23) | ((m << (23 - lead)) & 0x7F_FFFF)
        }
        (31, 0) => sign | 0x7F80_0000,
        (31, _) => 0x7FC0_0000,
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    }
}

/// A binary32 value stored in an 8-bit UNORM channel.
pub fn unorm8_from_f32(v: u32) -> u32 {
    let f = f32::from_bits(v);
    if f.is_nan() {
        return 0;
    }
    (f.clamp(0.0, 1.0) as f64 * 255.0 + 0.5).floor() as u32
}

/// An 8-bit UNORM channel as binary32 (`u/255` correctly rounded).
pub fn unorm8_to_f32(u: u32) -> u32 {
    ((u & 0xFF) as f32 / 255.0).to_bits()
}

/// Channels of a colour format.
pub fn channels(f: Format) -> usize {
    match f {
        Format::Rgba8 | Format::Rgba16f => 4,
        Format::Rg16f => 2,
        Format::R32f => 1,
    }
}

/// Channel `c` of a stored colour value as binary32 (or the missing-channel default).
pub fn load_channel(f: Format, stored: u64, c: usize) -> u32 {
    if c >= channels(f) {
        return if c == 3 { 1f32.to_bits() } else { 0 };
    }
    match f {
        Format::Rgba8 => unorm8_to_f32((stored >> (8 * c)) as u32),
        Format::Rgba16f | Format::Rg16f => f16_to_f32((stored >> (16 * c)) as u16),
        Format::R32f => stored as u32,
    }
}

/// `stored` with channel `c` replaced by binary32 `v` converted to the format.
pub fn store_channel(f: Format, stored: u64, c: usize, v: u32) -> u64 {
    if c >= channels(f) {
        return stored;
    }
    let (bits, val) = match f {
        Format::Rgba8 => (8, unorm8_from_f32(v) as u64),
        Format::Rgba16f | Format::Rg16f => (16, f32_to_f16(v) as u64),
        Format::R32f => (32, v as u64),
    };
    let mask = ((1u64 << bits) - 1) << (bits * c);
    (stored & !mask) | (val << (bits * c))
}

/// A whole binary32 RGBA value packed into the format.
pub fn pack(f: Format, rgba: [u32; 4]) -> u64 {
    (0..4).fold(0, |acc, c| store_channel(f, acc, c, rgba[c]))
}

/// Bytes one sample of a colour format (or of depth, `None`) occupies in memory.
pub fn bytes_per_sample(f: Option<Format>) -> usize {
    f.map_or(4, |f| f.bits() as usize / 8)
}

/// The average of `samples` of a colour format (`Some`) or of D24 (`None`) (module docs).
pub fn average(f: Option<Format>, samples: &[u64]) -> u64 {
    let n = samples.len() as u64;
    let Some(f) = f else {
        return (samples.iter().sum::<u64>() + n / 2) / n;
    };
    match f {
        Format::Rgba8 => (0..4).fold(0, |acc, c| {
            let s: u64 = samples.iter().map(|v| (v >> (8 * c)) & 0xFF).sum();
            acc | (((s + n / 2) / n) << (8 * c))
        }),
        Format::Rgba16f | Format::Rg16f => (0..channels(f)).fold(0, |acc, c| {
            let halves: Vec<u16> = samples.iter().map(|&v| (v >> (16 * c)) as u16).collect();
            acc | (half_mean(&halves) as u64) << (16 * c)
        }),
        Format::R32f => {
            let words: Vec<u32> = samples.iter().map(|&v| v as u32).collect();
            basic::mul(pairwise_sum(&words), (1.0f32 / n as f32).to_bits()) as u64
        }
    }
}

/// `((s0 + s1) + (s2 + s3))`, halves summed recursively, in the core's binary32.
fn pairwise_sum(words: &[u32]) -> u32 {
    match words {
        [] => 0,
        [w] => basic::add(*w, 0),
        _ => {
            let (a, b) = words.split_at(words.len() / 2);
            basic::add(pairwise_sum(a), pairwise_sum(b))
        }
    }
}

/// The exact mean of binary16 values rounded once to nearest even (module docs).
fn half_mean(h: &[u16]) -> u16 {
    let v: Vec<f64> = h
        .iter()
        .map(|&x| f32::from_bits(f16_to_f32(x)) as f64)
        .collect();
    let pos = v.contains(&f64::INFINITY);
    let neg = v.contains(&f64::NEG_INFINITY);
    if v.iter().any(|x| x.is_nan()) || (pos && neg) {
        return 0x7E00;
    }
    if pos || neg {
        return if pos { 0x7C00 } else { 0xFC00 };
    }
    // Binary16 values span 2^-24 ..= 2^16 in magnitude: their sum is exact in a binary64,
    // and so is the division by a power of two.
    half_of_f64(v.iter().sum::<f64>() / h.len() as f64)
}

/// A finite binary64 rounded to binary16, nearest even, subnormals kept, overflow to ±∞,
/// zero as +0.
fn half_of_f64(x: f64) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let sign = if x < 0.0 { 0x8000u16 } else { 0 };
    let a = x.abs();
    // The binary16 exponent of `a` (−14 for subnormals) and the value of its last place.
    let e = (((a.to_bits() >> 52) & 0x7FF) as i32 - 1023).max(-14);
    let ulp = 2f64.powi(e - 10);
    let q = (a / ulp).round_ties_even() as u32; // exact scaling, one rounding
    let (e, q) = if q == 2048 { (e + 1, 1024) } else { (e, q) };
    if e > 15 {
        return sign | 0x7C00;
    }
    if q < 1024 {
        return sign | q as u16; // subnormal (e = −14)
    }
    sign | (((e + 15) as u16) << 10) | (q - 1024) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_mean_is_the_exact_mean_rounded_once() {
        let h = |v: f32| f32_to_f16(v.to_bits());
        // 1024, 0.5, 2^-24, 0: the exact mean 256.125 + 2^-26 rounds up to 256.25; a binary32
        // left-to-right sum would lose the 2^-24 and tie to 256.0.
        let s = [h(1024.0), h(0.5), 0x0001, 0];
        assert_eq!(half_mean(&s), h(256.25));
        assert_eq!(half_mean(&[0x0001, 0, 0, 0]), 0, "2^-26 rounds to +0");
        assert_eq!(half_mean(&[0x0002, 0, 0, 0]), 0, "2^-25 ties to even +0");
        assert_eq!(
            half_mean(&[0x0003, 0x0003, 0, 0]),
            0x0002,
            "1.5 ulp ties up to 2"
        );
        assert_eq!(
            half_mean(&[0x8000, 0x8000, 0x8000, 0x8000]),
            0,
            "an exact zero is +0"
        );
        assert_eq!(
            half_mean(&[0x7BFF; 4]),
            0x7BFF,
            "the largest half stays finite"
        );
        assert_eq!(half_mean(&[0x7C00, 0xFC00, 0, 0]), 0x7E00);
        assert_eq!(half_mean(&[0xFC00, 0x3C00, 0, 0]), 0xFC00);
        assert_eq!(half_mean(&[0x7E01, 0x3C00, 0, 0]), 0x7E00);
        // The smallest normal from four subnormals.
        assert_eq!(half_mean(&[0x0400; 4]), 0x0400);
        assert_eq!(half_mean(&[0x03FF, 0x0401, 0x03FF, 0x0401]), 0x0400);
    }

    #[test]
    fn r32f_mean_sums_in_pairs() {
        let w = |v: f32| v.to_bits() as u64;
        // 2^24, 1, 1, 1: pairwise (2^24 + 1) + (1 + 1) = 2^24 + 2; left to right each + 1
        // ties back to 2^24.
        let s = [w(16_777_216.0), w(1.0), w(1.0), w(1.0)];
        assert_eq!(average(Some(Format::R32f), &s), w(4_194_304.5));
    }

    #[test]
    fn half_round_trip_and_rounding() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if (h >> 10) & 0x1F == 31 && h & 0x3FF != 0 {
                assert_eq!(f, 0x7FC0_0000);
                continue;
            }
            assert_eq!(f32_to_f16(f), h, "half {h:04x}");
        }
        // Ties to even between 1.0 and the next half (2^-10 apart).
        let one = 1f32.to_bits();
        assert_eq!(f32_to_f16(one + (1 << 12)), 0x3C00, "tie rounds to even");
        assert_eq!(
            f32_to_f16(one + (3 << 12)),
            0x3C02,
            "tie rounds to even (up)"
        );
        assert_eq!(f32_to_f16(70000f32.to_bits()), 0x7C00);
        assert_eq!(f32_to_f16(f32::NAN.to_bits()), 0x7E00);
    }

    #[test]
    fn unorm_and_average() {
        for u in 0..256 {
            assert_eq!(unorm8_from_f32(unorm8_to_f32(u)), u);
        }
        assert_eq!(unorm8_from_f32((-1f32).to_bits()), 0);
        assert_eq!(unorm8_from_f32(2f32.to_bits()), 255);
        assert_eq!(unorm8_from_f32((0.5f32 / 255.0).to_bits()), 1);
        let s = [0x0000_00FF, 0x0000_0000, 0x0000_0001, 0x0000_0002];
        assert_eq!(average(Some(Format::Rgba8), &s), 65); // (255+0+1+2+2)/4
        assert_eq!(average(None, &[1, 2, 2, 2]), 2);
        let p = pack(Format::Rg16f, [1f32.to_bits(), 2f32.to_bits(), 0, 0]);
        assert_eq!(p, 0x4000_3C00);
        assert_eq!(load_channel(Format::Rg16f, p, 3), 1f32.to_bits());
        let q = [p, pack(Format::Rg16f, [3f32.to_bits(), 0, 0, 0])];
        assert_eq!(
            load_channel(Format::Rg16f, average(Some(Format::Rg16f), &q), 0),
            2f32.to_bits()
        );
    }
}
