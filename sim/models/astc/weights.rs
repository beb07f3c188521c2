//! Weight unquantisation (spec C.2.17) and bilinear grid infill for one texel (C.2.18).

use super::ise::Quant;

/// Unquantises one weight value `v` of range `q` (one of the 12 weight ranges) to 0..=64.
pub fn unquantize_weight(q: Quant, v: u32) -> u32 {
    let n = q.bits();
    let t = if q.trit() && n == 0 {
        [0, 32, 63][v as usize]
    } else if q.quint() && n == 0 {
        [0, 16, 32, 47, 63][v as usize]
    } else if !q.trit() && !q.quint() {
        super::endpoints::replicate(v, n, 6)
    } else {
        let m = v & ((1 << n) - 1);
        let d = v >> n;
        let bit = |i: u32| (m >> i) & 1;
        let a = if bit(0) == 1 { 0x7F } else { 0 };
        let (b, c) = match (q.trit(), n) {
            (true, 1) => (0, 50),
            (false, 1) => (0, 28),
            (true, 2) => (bit(1) * 0x45, 23),
            (false, 2) => (bit(1) * 0x42, 13),
            (true, 3) => (bit(2) * 0x42 + bit(1) * 0x21, 11),
            _ => unreachable!("weight ranges stop at 0..31"),
        };
        let t = (d * c + b) ^ a;
        (a & 0x20) | (t >> 2)
    };
    if t > 32 {
        t + 1
    } else {
        t
    }
}

/// The up-to-four grid points a texel's weight is interpolated from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Infill {
    /// Grid index (row-major, `x + y * grid_w`) of each corner: (0,0), (1,0), (0,1), (1,1).
    pub index: [u32; 4],
    /// Bilinear factor of each corner, summing to 16. A zero factor needs no weight.
    pub factor: [u32; 4],
}

impl Infill {
    /// Infill for texel (`s`, `t`) of a `bw`×`bh` block with a `gw`×`gh` weight grid.
    pub fn new(s: u32, t: u32, bw: u32, bh: u32, gw: u32, gh: u32) -> Infill {
        let ds = (1024 + bw / 2) / (bw - 1);
        let dt = (1024 + bh / 2) / (bh - 1);
        let gs = (ds * s * (gw - 1) + 32) >> 6;
        let gt = (dt * t * (gh - 1) + 32) >> 6;
        let (js, fs) = (gs >> 4, gs & 0xF);
        let (jt, ft) = (gt >> 4, gt & 0xF);
        let w11 = (fs * ft + 8) >> 4;
        let w10 = ft - w11;
        let w01 = fs - w11;
        let w00 = 16 + w11 - fs - ft;
        let v0 = js + jt * gw;
        Infill {
            index: [v0, v0 + 1, v0 + gw, v0 + gw + 1],
            factor: [w00, w01, w10, w11],
        }
    }

    /// Number of grid weights actually needed (non-zero factors), 1..=4.
    pub fn needed(&self) -> u32 {
        self.factor.iter().filter(|&&f| f != 0).count() as u32
    }

    /// Combines the unquantised corner weights `p` (ignored where the factor is 0).
    pub fn combine(&self, p: [u32; 4]) -> u32 {
        let sum: u32 = (0..4).map(|i| p[i] * self.factor[i]).sum();
        (sum + 8) >> 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_unquant_endpoints() {
        for qi in 0..12 {
            let q = Quant::from_index(qi);
            let mut v: Vec<u32> = (0..q.levels()).map(|i| unquantize_weight(q, i)).collect();
            v.sort();
            v.dedup();
            assert_eq!(v.len() as u32, q.levels());
            assert_eq!((v[0], v[v.len() - 1]), (0, 64), "range {}", q.levels());
        }
        assert_eq!(unquantize_weight(Quant::from_index(1), 1), 32);
    }

    #[test]
    fn full_grid_is_identity() {
        for &(bw, bh) in &[(4u32, 4u32), (6, 5), (8, 8), (12, 12), (10, 6)] {
            for t in 0..bh {
                for s in 0..bw {
                    let i = Infill::new(s, t, bw, bh, bw, bh);
                    assert_eq!(i.factor, [16, 0, 0, 0]);
                    assert_eq!(i.index[0], s + t * bw);
                }
            }
        }
    }

    #[test]
    fn factors_sum_to_16() {
        for s in 0..12 {
            for t in 0..10 {
                let i = Infill::new(s, t, 12, 10, 5, 4);
                assert_eq!(i.factor.iter().sum::<u32>(), 16);
            }
        }
    }
}
