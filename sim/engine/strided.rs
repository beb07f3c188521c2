//! Executing a strided [`Run`]: one slice loop per run, which the optimiser vectorises.
//!
//! Every operand range of a run lies below its destination (checked when the run is formed,
//! see [`runs::validate`](super::runs::validate)), so the value vector splits into a read-only
//! part and the destination slice; all access is safe, bounds checked once per run.

use super::exec::select;
use super::program::{mask, Batch, Run, Shape};

/// The low `w ≤ 32` bits of a product depend only on the low 32 bits of its operands; a
/// 32 × 32 → 64-bit product is one vector instruction where a 64-bit one is three.
#[inline(always)]
fn mul32(x: u64, y: u64) -> u64 {
    (x as u32 as u64) * (y as u32 as u64)
}

/// Runs one strided run over `v` (see [`Run`]).
#[inline(always)]
pub(crate) fn eval_run(v: &mut [u64], op: Batch, w: u8, shape: Shape, r: &Run) {
    let n = r.n as usize;
    let (src, dst) = v.split_at_mut(r.d as usize);
    let dst = &mut dst[..n];
    let (a, b, c) = (r.a as usize, r.b as usize, r.c as usize);
    let k = mask(w);
    // `|x| e` over `a + i`; `|x, y| e` over `a + i` and `b + i` (or the fixed `b`);
    // `|x, y, z| e` adds `c + i`.
    macro_rules! each {
        (|$x:ident| $e:expr) => {
            for (d, &$x) in dst.iter_mut().zip(&src[a..a + n]) {
                *d = $e;
            }
        };
        (|$x:ident, $y:ident| $e:expr) => {
            if shape == Shape::FixB {
                let $y = src[b];
                each!(|$x| $e)
            } else {
                let ys = &src[b..b + n];
                for ((d, &$x), &$y) in dst.iter_mut().zip(&src[a..a + n]).zip(ys) {
                    *d = $e;
                }
            }
        };
        (|$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let zs = &src[c..c + n];
            if shape == Shape::FixB {
                let $y = src[b];
                for ((d, &$x), &$z) in dst.iter_mut().zip(&src[a..a + n]).zip(zs) {
                    *d = $e;
                }
            } else {
                let ys = &src[b..b + n];
                let xs = src[a..a + n].iter().zip(ys).zip(zs);
                for (d, ((&$x, &$y), &$z)) in dst.iter_mut().zip(xs) {
                    *d = $e;
                }
            }
        }};
    }
    match op {
        Batch::Copy => dst.copy_from_slice(&src[a..a + n]),
        Batch::Not => each!(|x| !x & k),
        Batch::Slice => {
            let sh = c as u32;
            each!(|x| (x >> sh) & k)
        }
        Batch::XorSlice => {
            let sh = c as u32;
            each!(|x, y| x ^ ((y >> sh) & k))
        }
        Batch::Add => each!(|x, y| x.wrapping_add(y) & k),
        Batch::Sub => each!(|x, y| x.wrapping_sub(y) & k),
        Batch::Mul if w <= 32 => each!(|x, y| mul32(x, y) & k),
        Batch::Mul => each!(|x, y| x.wrapping_mul(y) & k),
        Batch::MulAdd if w <= 32 => each!(|x, y, z| mul32(x, y).wrapping_add(z) & k),
        Batch::MulAdd => each!(|x, y, z| x.wrapping_mul(y).wrapping_add(z) & k),
        Batch::And => each!(|x, y| x & y),
        Batch::Or => each!(|x, y| x | y),
        Batch::Xor => each!(|x, y| x ^ y),
        Batch::Eq => each!(|x, y| (x == y) as u64),
        Batch::Mux if shape == Shape::FixA => {
            let from = if src[a] != 0 { b } else { c };
            dst.copy_from_slice(&src[from..from + n])
        }
        Batch::Mux => {
            let (ss, ts, fs) = (&src[a..a + n], &src[b..b + n], &src[c..c + n]);
            for (((d, &s), &t), &f) in dst.iter_mut().zip(ss).zip(ts).zip(fs) {
                *d = select(s, t, f);
            }
        }
    }
}
