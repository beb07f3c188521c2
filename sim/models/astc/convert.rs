//! Number conversions at the end of the pipeline: UNORM16 → FP16, LNS → FP16 (spec C.2.19),
//! FP16 → f32, and the 8-bit value `astcenc` writes for LDR output.

/// FP16 bit pattern of 1.0.
pub const FP16_ONE: u16 = 0x3C00;

/// UNORM16 `c` to FP16: 0xFFFF gives 1.0, otherwise `c / 65536` rounded toward zero.
pub fn unorm16_to_fp16(c: u16) -> u16 {
    if c == 0xFFFF {
        return FP16_ONE;
    }
    if c < 4 {
        // Subnormal: c·2^-16 = (c·256)·2^-24.
        return c << 8;
    }
    let e = 15 - c.leading_zeros() as u16; // position of the leading one, 2..=15
    let mant = if e >= 10 {
        (c >> (e - 10)) & 0x3FF
    } else {
        (c << (10 - e)) & 0x3FF
    };
    ((e - 1) << 10) | mant
}

/// Interpolated 16-bit LNS value `c` to FP16 (spec C.2.19); Inf/NaN results become 0x7BFF.
pub fn lns_to_fp16(c: u16) -> u16 {
    let e = (c >> 11) as u32;
    let m = (c & 0x7FF) as u32;
    let mt = if m < 512 {
        3 * m
    } else if m >= 1536 {
        5 * m - 2048
    } else {
        4 * m - 512
    };
    let r = (e << 10) + (mt >> 3);
    r.min(0x7BFF) as u16
}

/// FP16 bit pattern to `f32` (exact).
pub fn fp16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1F) as i32;
    let m = (h & 0x3FF) as f32;
    match e {
        0 => sign * m * (2.0f32).powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + m / 1024.0) * (2.0f32).powi(e - 15),
    }
}

/// The 8-bit value `astcenc` stores for a decoded value `f`: clamp to 0..=1, ×255, round to
/// nearest (ties to even; the only tie, 127.5, rounds to 128 either way). NaN maps to `None`
/// (astcenc writes the error colour for NaN texels).
pub fn f32_to_unorm8(f: f32) -> Option<u8> {
    if f.is_nan() {
        return None;
    }
    Some((f.clamp(0.0, 1.0) * 255.0).round_ties_even() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unorm16() {
        assert_eq!(unorm16_to_fp16(0), 0);
        assert_eq!(unorm16_to_fp16(0xFFFF), 0x3C00);
        assert_eq!(unorm16_to_fp16(0x8000), 0x3800); // 0.5
        assert_eq!(unorm16_to_fp16(0xFF00), (14 << 10) | 0x3F8);
        assert_eq!(unorm16_to_fp16(4), 1 << 10); // 2^-14, smallest normal
        for c in 1..=0xFFFEu16 {
            let f = fp16_to_f32(unorm16_to_fp16(c)) as f64;
            let exact = c as f64 / 65536.0;
            assert!(f <= exact && exact - f < exact / 1000.0, "{c}");
        }
    }

    #[test]
    fn lns() {
        assert_eq!(lns_to_fp16(0x7800), 0x3C00);
        assert_eq!(lns_to_fp16(0xFFFF), 0x7BFF);
        assert_eq!(lns_to_fp16(0), 0);
    }

    #[test]
    fn to_unorm8() {
        assert_eq!(f32_to_unorm8(0.5), Some(128));
        assert_eq!(f32_to_unorm8(1.0), Some(255));
        assert_eq!(f32_to_unorm8(f32::NAN), None);
    }
}
