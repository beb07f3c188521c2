//! Colour endpoint unquantisation (spec C.2.13) and the 16 colour endpoint modes (C.2.14–C.2.15).

use super::ise::Quant;

/// Two RGBA endpoints of one partition.
///
/// LDR channels hold 0..=255; HDR channels (`hdr[c]`) hold 12-bit pseudo-log values 0..=0xFFF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    /// Endpoint 0 (weight 0).
    pub e0: [i32; 4],
    /// Endpoint 1 (weight 64).
    pub e1: [i32; 4],
    /// Per channel: true if the channel is HDR (interpolated in the LNS domain).
    pub hdr: [bool; 4],
}

/// Unquantises one colour value `v` of range `q` to 0..=255.
pub fn unquantize_colour(q: Quant, v: u32) -> i32 {
    let n = q.bits();
    if !q.trit() && !q.quint() {
        return replicate(v, n, 8) as i32;
    }
    let m = v & ((1 << n) - 1);
    let d = v >> n;
    let bit = |i: u32| (m >> i) & 1;
    let a = if bit(0) == 1 { 0x1FF } else { 0 };
    // (B, C) from table C.2.16; B is a pattern of the bits b..f (bits 1.. of m).
    let (b, c) = match (q.trit(), n) {
        (true, 1) => (0, 204),
        (false, 1) => (0, 113),
        (true, 2) => (bit(1) * 0x116, 93),
        (false, 2) => (bit(1) * 0x10C, 54),
        (true, 3) => (bit(2) * 0x10A + bit(1) * 0x85, 44),
        (false, 3) => (bit(2) * 0x105 + bit(1) * 0x82, 26),
        (true, 4) => (bit(3) * 0x104 + bit(2) * 0x82 + bit(1) * 0x41, 22),
        (false, 4) => (bit(3) * 0x102 + bit(2) * 0x81 + bit(1) * 0x40, 13),
        (true, 5) => (
            bit(4) * 0x102 + bit(3) * 0x81 + bit(2) * 0x40 + bit(1) * 0x20,
            11,
        ),
        (false, 5) => (
            bit(4) * 0x101 + bit(3) * 0x80 + bit(2) * 0x40 + bit(1) * 0x20,
            6,
        ),
        (true, 6) => {
            let b = bit(5) * 0x101 + bit(4) * 0x80 + bit(3) * 0x40 + bit(2) * 0x20 + bit(1) * 0x10;
            (b, 5)
        }
        _ => unreachable!("colour ranges start at 0..5"),
    };
    let t = (d * c + b) ^ a;
    ((a & 0x80) | (t >> 2)) as i32
}

/// Replicates the `n`-bit value `v` to `to` bits (MSB first).
pub fn replicate(v: u32, n: u32, to: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let mut out = 0;
    let mut have = 0;
    while have < to {
        out = (out << n) | v;
        have += n;
    }
    out >> (have - to)
}

fn bit_transfer_signed(a: i32, b: i32) -> (i32, i32) {
    let b = (b >> 1) | (a & 0x80);
    let mut a = (a >> 1) & 0x3F;
    if a & 0x20 != 0 {
        a -= 0x40;
    }
    (a, b)
}

fn blue_contract(c: [i32; 4]) -> [i32; 4] {
    [(c[0] + c[2]) >> 1, (c[1] + c[2]) >> 1, c[2], c[3]]
}

fn clamp8(c: [i32; 4]) -> [i32; 4] {
    c.map(|x| x.clamp(0, 255))
}

fn ldr(e0: [i32; 4], e1: [i32; 4]) -> Endpoints {
    Endpoints {
        e0,
        e1,
        hdr: [false; 4],
    }
}

/// Decodes the endpoints of mode `cem` from its unquantised values `v` (2..=8 of them).
pub fn decode(cem: u32, v: &[i32]) -> Endpoints {
    match cem {
        0 => ldr([v[0], v[0], v[0], 255], [v[1], v[1], v[1], 255]),
        1 => {
            let l0 = (v[0] >> 2) | (v[1] & 0xC0);
            let l1 = (l0 + (v[1] & 0x3F)).min(255);
            ldr([l0, l0, l0, 255], [l1, l1, l1, 255])
        }
        4 => ldr([v[0], v[0], v[0], v[2]], [v[1], v[1], v[1], v[3]]),
        5 => {
            let (d0, b0) = bit_transfer_signed(v[1], v[0]);
            let (d1, b1) = bit_transfer_signed(v[3], v[2]);
            let e0 = [b0, b0, b0, b1];
            let e1 = [b0 + d0, b0 + d0, b0 + d0, b1 + d1];
            ldr(clamp8(e0), clamp8(e1))
        }
        6 => ldr(
            [
                (v[0] * v[3]) >> 8,
                (v[1] * v[3]) >> 8,
                (v[2] * v[3]) >> 8,
                255,
            ],
            [v[0], v[1], v[2], 255],
        ),
        8 | 12 => {
            let (a0, a1) = if cem == 12 { (v[6], v[7]) } else { (255, 255) };
            if v[1] + v[3] + v[5] >= v[0] + v[2] + v[4] {
                ldr([v[0], v[2], v[4], a0], [v[1], v[3], v[5], a1])
            } else {
                ldr(
                    blue_contract([v[1], v[3], v[5], a1]),
                    blue_contract([v[0], v[2], v[4], a0]),
                )
            }
        }
        9 | 13 => {
            let (d0, b0) = bit_transfer_signed(v[1], v[0]);
            let (d1, b1) = bit_transfer_signed(v[3], v[2]);
            let (d2, b2) = bit_transfer_signed(v[5], v[4]);
            let (d3, b3) = if cem == 13 {
                bit_transfer_signed(v[7], v[6])
            } else {
                (0, 255)
            };
            let base = [b0, b1, b2, b3];
            let sum = [b0 + d0, b1 + d1, b2 + d2, b3 + d3];
            if d0 + d1 + d2 >= 0 {
                ldr(clamp8(base), clamp8(sum))
            } else {
                ldr(clamp8(blue_contract(sum)), clamp8(blue_contract(base)))
            }
        }
        10 => ldr(
            [
                (v[0] * v[3]) >> 8,
                (v[1] * v[3]) >> 8,
                (v[2] * v[3]) >> 8,
                v[4],
            ],
            [v[0], v[1], v[2], v[5]],
        ),
        _ => super::endpoints_hdr::decode(cem, v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquantize_endpoints_of_ranges() {
        for qi in 4..Quant::COUNT {
            let q = Quant::from_index(qi);
            let mut vals: Vec<i32> = (0..q.levels()).map(|v| unquantize_colour(q, v)).collect();
            assert!(
                vals.contains(&0) && vals.contains(&255),
                "range {}",
                q.levels()
            );
            vals.sort();
            vals.dedup();
            assert_eq!(vals.len() as u32, q.levels(), "range {}", q.levels());
        }
    }

    #[test]
    fn replicate_bits() {
        assert_eq!(replicate(1, 1, 8), 255);
        assert_eq!(replicate(0b101, 3, 8), 0b1011_0110);
        assert_eq!(replicate(0b10, 2, 6), 0b101010);
    }

    #[test]
    fn luminance_base_offset_clamps() {
        let e = decode(1, &[255, 0xFF]);
        assert_eq!(e.e1[0], 255);
    }
}
