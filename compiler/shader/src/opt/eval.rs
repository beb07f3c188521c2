//! The host evaluation of ALU operations the folder may fold: the hardware's result bit for
//! bit (D6: binary32, round to nearest even, subnormals flushed on input and output keeping
//! the sign, NaN canonical `0x7FC00000`). Operations whose hardware result is not the
//! correctly rounded one (rcp, sqrt, transcendentals) or whose exact definition lives in
//! the units (rounding to integers, f2i/f2u saturation) are not folded: `None`.
//! A test checks every folded operation against `rendergen_sim::models::fp32` on random and
//! special operands.

use rendergen_shader_isa::Opcode;

const CANONICAL_NAN: u32 = 0x7FC0_0000;

fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

/// Subnormal → zero of its sign.
fn daz(x: u32) -> u32 {
    if x & 0x7F80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The result convention: subnormal → signed zero, NaN → canonical.
fn out(x: f32) -> u32 {
    let b = x.to_bits();
    if is_nan(b) {
        CANONICAL_NAN
    } else {
        daz(b)
    }
}

fn f(x: u32) -> f32 {
    f32::from_bits(daz(x))
}

/// minimumNumber / maximumNumber on flushed operands, −0 below +0.
fn min_max(a: u32, b: u32, max: bool) -> u32 {
    let (a, b) = (daz(a), daz(b));
    match (is_nan(a), is_nan(b)) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ => {
            let key = |x: u32| {
                if x >> 31 == 1 {
                    -((x & 0x7FFF_FFFF) as i64) - 1
                } else {
                    x as i64
                }
            };
            let b_smaller = key(b) < key(a);
            if b_smaller != max {
                b
            } else {
                a
            }
        }
    }
}

/// The value of `op` on constant operands `a` (in field order), if it may be folded.
pub fn eval(op: Opcode, a: &[u32]) -> Option<u32> {
    use Opcode as O;
    let x = |i: usize| a[i];
    Some(match op {
        O::Fadd => out(f(x(0)) + f(x(1))),
        O::Fsub => out(f(x(0)) - f(x(1))),
        O::Fmul => out(f(x(0)) * f(x(1))),
        O::Ffma => out(f(x(0)).mul_add(f(x(1)), f(x(2)))),
        O::Fmin => min_max(x(0), x(1), false),
        O::Fmax => min_max(x(0), x(1), true),
        O::Feq => (f(x(0)) == f(x(1))) as u32,
        O::Fne => (f(x(0)) != f(x(1))) as u32,
        O::Flt => (f(x(0)) < f(x(1))) as u32,
        O::Fle => (f(x(0)) <= f(x(1))) as u32,
        O::Fgt => (f(x(0)) > f(x(1))) as u32,
        O::Fge => (f(x(0)) >= f(x(1))) as u32,
        O::I2f => out(x(0) as i32 as f32),
        O::U2f => out(x(0) as f32),
        O::Iadd => x(0).wrapping_add(x(1)),
        O::Isub => x(0).wrapping_sub(x(1)),
        O::Imul => x(0).wrapping_mul(x(1)),
        O::Shl => x(0) << (x(1) & 31),
        O::Shr => x(0) >> (x(1) & 31),
        O::Sar => ((x(0) as i32) >> (x(1) & 31)) as u32,
        O::And => x(0) & x(1),
        O::Or => x(0) | x(1),
        O::Xor => x(0) ^ x(1),
        O::Not => !x(0),
        O::Ieq => (x(0) == x(1)) as u32,
        O::Ine => (x(0) != x(1)) as u32,
        O::Ilt => ((x(0) as i32) < (x(1) as i32)) as u32,
        O::Ile => ((x(0) as i32) <= (x(1) as i32)) as u32,
        O::Ult => (x(0) < x(1)) as u32,
        O::Ule => (x(0) <= x(1)) as u32,
        O::Sel => {
            if x(0) != 0 {
                x(1)
            } else {
                x(2)
            }
        }
        O::Mov => x(0),
        _ => return None,
    })
}
