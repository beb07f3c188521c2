//! Partition pattern generation (spec C.2.21): which partition a texel belongs to.

/// The 32-bit seed expansion `hash52` of the spec (all arithmetic modulo 2^32).
pub fn hash52(seed: u32) -> u32 {
    let mut p = seed;
    p ^= p >> 15;
    p = p.wrapping_sub(p << 17);
    p = p.wrapping_add(p << 7);
    p = p.wrapping_add(p << 4);
    p ^= p >> 5;
    p = p.wrapping_add(p << 16);
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    p
}

/// Partition (0..count) of texel (x, y) for the 10-bit partition index `seed`.
///
/// `small_block` is true when the footprint has fewer than 31 texels (4x4, 5x4, 5x5); the
/// coordinates are then doubled before hashing. `count` is 1..=4 (1 always gives 0).
pub fn select(seed: u32, x: u32, y: u32, count: u32, small_block: bool) -> u32 {
    if count <= 1 {
        return 0;
    }
    let (x, y) = if small_block {
        (x << 1, y << 1)
    } else {
        (x, y)
    };
    let seed = seed + (count - 1) * 1024;
    let rnum = hash52(seed);
    let nib = |shift: u32| {
        let v = rnum.rotate_right(shift) & 0xF;
        v * v
    };
    // seed1..seed8 are nibbles 0..7; seed9..seed12 start at bits 18, 22, 26, 30 (the last wraps).
    let mut s = [
        nib(0),
        nib(4),
        nib(8),
        nib(12),
        nib(16),
        nib(20),
        nib(24),
        nib(28),
        nib(18),
        nib(22),
        nib(26),
        nib(30),
    ];
    let (sh1, sh2) = if seed & 1 == 1 {
        (
            if seed & 2 != 0 { 4 } else { 5 },
            if count == 3 { 6 } else { 5 },
        )
    } else {
        (
            if count == 3 { 6 } else { 5 },
            if seed & 2 != 0 { 4 } else { 5 },
        )
    };
    let sh3 = if seed & 0x10 != 0 { sh1 } else { sh2 };
    for (i, v) in s.iter_mut().enumerate() {
        *v >>= match i {
            0..=7 if i % 2 == 0 => sh1,
            0..=7 => sh2,
            _ => sh3,
        };
    }
    // z = 0 for 2D blocks, so seed9..seed12 only matter through their shifts (they do not).
    let a = (s[0] * x + s[1] * y + (rnum >> 14)) & 0x3F;
    let b = (s[2] * x + s[3] * y + (rnum >> 10)) & 0x3F;
    let mut c = (s[4] * x + s[5] * y + (rnum >> 6)) & 0x3F;
    let mut d = (s[6] * x + s[7] * y + (rnum >> 2)) & 0x3F;
    if count < 4 {
        d = 0;
    }
    if count < 3 {
        c = 0;
    }
    if a >= b && a >= c && a >= d {
        0
    } else if b >= c && b >= d {
        1
    } else if c >= d {
        2
    } else {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_partition_is_zero() {
        assert_eq!(select(123, 3, 2, 1, false), 0);
    }

    #[test]
    fn results_in_range_and_varied() {
        for count in 2..=4 {
            let mut used = [false; 4];
            for seed in 0..1024 {
                for y in 0..6 {
                    for x in 0..6 {
                        let p = select(seed, x, y, count, false);
                        assert!(p < count);
                        used[p as usize] = true;
                    }
                }
            }
            assert!(used[..count as usize].iter().all(|&u| u));
        }
    }
}
