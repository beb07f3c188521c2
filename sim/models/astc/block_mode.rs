//! Block mode field (block bits 10..0): weight grid size, weight range, dual plane (spec C.2.10).

use super::ise::Quant;

/// A decoded (not yet validated against the footprint) block mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockMode {
    /// Weight grid width (2..=12).
    pub grid_w: u32,
    /// Weight grid height (2..=12).
    pub grid_h: u32,
    /// Two weight planes.
    pub dual_plane: bool,
    /// Weight range (one of the 12 weight ranges 0..1 … 0..31).
    pub weight_quant: Quant,
}

impl BlockMode {
    /// Number of stored weights (both planes).
    pub fn weight_count(&self) -> u32 {
        self.grid_w * self.grid_h * if self.dual_plane { 2 } else { 1 }
    }

    /// Bits of the weight integer sequence.
    pub fn weight_bits(&self) -> u32 {
        self.weight_quant.sequence_bits(self.weight_count())
    }
}

/// True if bits 8..0 mark a void-extent block.
pub fn is_void_extent(mode: u32) -> bool {
    mode & 0x1FF == 0x1FC
}

/// Decodes the 11-bit block mode per table C.2.8. `None` for reserved encodings
/// (void-extent must be tested first with [`is_void_extent`]).
pub fn decode(mode: u32) -> Option<BlockMode> {
    let bit = |i: u32| (mode >> i) & 1;
    let a = (mode >> 5) & 3;
    let b = (mode >> 7) & 3;
    let mut dual = bit(10) == 1;
    let mut high = bit(9);
    let (r, w, h);
    if mode & 3 != 0 {
        // Rows 1-5: R = {bit1, bit0, bit4}.
        r = (bit(1) << 2) | (bit(0) << 1) | bit(4);
        (w, h) = match (mode >> 2) & 3 {
            0 => (b + 4, a + 2),
            1 => (b + 8, a + 2),
            2 => (a + 2, b + 8),
            _ if bit(8) == 0 => (a + 2, bit(7) + 6),
            _ => (bit(7) + 2, a + 2),
        };
    } else {
        // Rows 6-10: R = {bit3, bit2, bit4}; R2=R1=0 is reserved.
        r = (bit(3) << 2) | (bit(2) << 1) | bit(4);
        if r & 6 == 0 {
            return None;
        }
        (w, h) = match b {
            0 => (12, a + 2),
            1 => (a + 2, 12),
            2 => {
                // Wide grid row: bits 10..9 are B, and D = H = 0.
                dual = false;
                high = 0;
                (a + 6, ((mode >> 9) & 3) + 6)
            }
            _ => match a {
                0 => (6, 10),
                1 => (10, 6),
                _ => return None,
            },
        };
    }
    let weight_quant = Quant::from_index((r - 2 + 6 * high) as usize);
    Some(BlockMode {
        grid_w: w,
        grid_h: h,
        dual_plane: dual,
        weight_quant,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_and_void() {
        assert!(is_void_extent(0x1FC));
        assert!(is_void_extent(0x7FC));
        assert_eq!(decode(0), None);
        assert_eq!(decode(0b111_1100_0000), None); // bits 8..6 = 111 with bits 1..0 = 00
    }

    #[test]
    fn simple_modes() {
        // 4x4 grid, range 0..7 (R=111, H=0), single plane: row 1 with B=0, A=2.
        let m = decode((2 << 5) | (1 << 4) | 0b11).unwrap();
        assert_eq!((m.grid_w, m.grid_h, m.dual_plane), (4, 4, false));
        assert_eq!(m.weight_quant.levels(), 8);
        // 12 x (A+2) with bits 1..0 == 00.
        let m = decode((1 << 5) | (1 << 3)).unwrap();
        assert_eq!((m.grid_w, m.grid_h), (12, 3));
        assert_eq!(m.weight_quant.levels(), 4);
    }
}
