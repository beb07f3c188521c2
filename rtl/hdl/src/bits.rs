//! `Bits`: an arbitrary-width bit vector used for constants, reset values, memory contents and
//! for poking and peeking wide signals in the simulator.
//!
//! Storage is little-endian 64-bit words; bits above `width` are always zero.

use std::fmt;

/// An unsigned bit vector of any width (≥ 1), stored in 64-bit words, least significant first.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bits {
    width: u32,
    words: Vec<u64>,
}

/// Number of 64-bit words needed for `width` bits.
#[inline]
pub fn words_for(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

/// Mask selecting the valid bits of the most significant word of a `width`-bit value.
#[inline]
pub fn top_mask(width: u32) -> u64 {
    match width % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// Mask of the low `width` bits, for widths up to 64.
#[inline]
pub fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl Bits {
    /// All-zero value of `width` bits.
    pub fn zero(width: u32) -> Bits {
        Bits {
            width,
            words: vec![0; words_for(width)],
        }
    }

    /// Value of `width` bits holding `value` truncated to the width.
    pub fn from_u64(value: u64, width: u32) -> Bits {
        let mut b = Bits::zero(width);
        b.words[0] = value;
        b.normalize();
        b
    }

    /// Value of `width` bits holding `value` truncated to the width.
    pub fn from_u128(value: u128, width: u32) -> Bits {
        let mut b = Bits::zero(width);
        b.words[0] = value as u64;
        if b.words.len() > 1 {
            b.words[1] = (value >> 64) as u64;
        }
        b.normalize();
        b
    }

    /// Value built from little-endian words, truncated to `width`.
    pub fn from_words(words: &[u64], width: u32) -> Bits {
        let mut b = Bits::zero(width);
        for (dst, src) in b.words.iter_mut().zip(words) {
            *dst = *src;
        }
        b.normalize();
        b
    }

    /// Value built from little-endian bytes, truncated to `width`.
    pub fn from_le_bytes(bytes: &[u8], width: u32) -> Bits {
        let mut b = Bits::zero(width);
        for (i, byte) in bytes.iter().enumerate().take(b.words.len() * 8) {
            b.words[i / 8] |= (*byte as u64) << (8 * (i % 8));
        }
        b.normalize();
        b
    }

    fn normalize(&mut self) {
        let n = self.words.len();
        self.words[n - 1] &= top_mask(self.width);
    }

    /// Width in bits.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The little-endian words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Low 64 bits.
    pub fn to_u64(&self) -> u64 {
        self.words[0]
    }

    /// Low 128 bits.
    pub fn to_u128(&self) -> u128 {
        let hi = self.words.get(1).copied().unwrap_or(0) as u128;
        (hi << 64) | self.words[0] as u128
    }

    /// Bit `i` (false beyond the width).
    pub fn bit(&self, i: u32) -> bool {
        i < self.width && (self.words[(i / 64) as usize] >> (i % 64)) & 1 == 1
    }

    /// True when every bit above 64 is zero, i.e. the value fits `u64`.
    pub fn fits_u64(&self) -> bool {
        self.words[1..].iter().all(|w| *w == 0)
    }

    /// Same value at another width: zero-extended or truncated.
    pub fn resized(&self, width: u32) -> Bits {
        Bits::from_words(&self.words, width)
    }

    /// Least significant bytes, `ceil(width/8)` of them.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let n = (self.width as usize).div_ceil(8);
        (0..n)
            .map(|i| (self.words[i / 8] >> (8 * (i % 8))) as u8)
            .collect()
    }

    /// Verilog literal, e.g. `8'h3f`.
    pub fn to_verilog(&self) -> String {
        format!("{}'h{}", self.width, self.hex())
    }

    /// Hexadecimal digits without prefix, most significant first, no leading zeros.
    pub fn hex(&self) -> String {
        let mut s = String::new();
        for w in self.words.iter().rev() {
            if s.is_empty() {
                if *w != 0 {
                    s = format!("{w:x}");
                }
            } else {
                s.push_str(&format!("{w:016x}"));
            }
        }
        if s.is_empty() {
            s.push('0');
        }
        s
    }

    /// Binary digits, most significant first, exactly `width` of them (VCD form).
    pub fn binary(&self) -> String {
        (0..self.width)
            .rev()
            .map(|i| if self.bit(i) { '1' } else { '0' })
            .collect()
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_verilog())
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_verilog())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_and_formats() {
        assert_eq!(Bits::from_u64(0x1ff, 8).to_u64(), 0xff);
        assert_eq!(
            Bits::from_u128(1u128 << 100, 101).to_verilog(),
            "101'h10000000000000000000000000"
        );
        assert_eq!(Bits::from_u64(5, 4).binary(), "0101");
        assert_eq!(Bits::zero(70).hex(), "0");
        assert!(Bits::from_u128(1u128 << 64, 65).bit(64));
        assert_eq!(Bits::from_le_bytes(&[1, 2, 3], 24).to_u64(), 0x030201);
    }
}
