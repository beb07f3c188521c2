//! Random select and the flat case skipping of `rtl/isa/ISA.md` ("Random select").

use super::exec::{decode, fault, Machine, Stop};
use super::memory::Memory;
use rendergen_isa::{Opcode, RayError};

/// The case chosen by weights `w` (`w[0]` deepest) for a PRNG draw `x`: with `S` the sum of the
/// weights (negative ones as 0) and `r = (x · S) >> 32`, `#{ i < n−1 : w0 + … + wᵢ ≤ r }`.
pub fn choose(w: &[u32], x: u32) -> u32 {
    let w: Vec<u64> = w.iter().map(|v| (*v as i32).max(0) as u64).collect();
    let total: u64 = w.iter().sum();
    let r = (x as u64 * total) >> 32;
    let mut prefix = 0;
    let mut k = 0;
    for wi in &w[..w.len() - 1] {
        prefix += wi;
        k += (prefix <= r) as u32;
    }
    k
}

/// From `pc` (just after a `RANDSEL`), passes over instructions outside cases and `k` whole
/// `CASE … ENDCASE` pairs; returns the address after the next `CASE`.
pub fn seek(m: &mut Machine, mem: &Memory, mut pc: u32, mut k: u32) -> Result<u32, Stop> {
    loop {
        m.tick(pc)?;
        let (op, _) = decode(mem, pc)?;
        pc = match op {
            Opcode::Case if k == 0 => return Ok(pc.wrapping_add(1)),
            Opcode::Case => {
                k -= 1;
                skip_case(m, mem, pc.wrapping_add(1))?
            }
            Opcode::RayStop => return Err(fault(RayError::BadControl, pc)),
            _ => pc.wrapping_add(1 + op.imm_bytes()),
        };
    }
}

/// From `pc` (just after an executed `ENDCASE`), skips the `CASE … ENDCASE` pairs that follow;
/// returns the address of the first instruction that is not a `CASE`.
pub fn exit(m: &mut Machine, mem: &Memory, mut pc: u32) -> Result<u32, Stop> {
    loop {
        m.tick(pc)?;
        match decode(mem, pc)?.0 {
            Opcode::Case => pc = skip_case(m, mem, pc.wrapping_add(1))?,
            _ => return Ok(pc),
        }
    }
}

/// From `pc` (inside a skipped case), returns the address after its `ENDCASE`.
fn skip_case(m: &mut Machine, mem: &Memory, mut pc: u32) -> Result<u32, Stop> {
    loop {
        m.tick(pc)?;
        let (op, _) = decode(mem, pc)?;
        match op {
            Opcode::EndCase => return Ok(pc.wrapping_add(1)),
            Opcode::Case => return Err(fault(RayError::BadControl, pc)),
            _ => pc = pc.wrapping_add(1 + op.imm_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: u32 = 0x1_0000;

    #[test]
    fn choose_splits_the_range_by_weight() {
        // Weights 1, 3: S = 4.0; r < 1.0 → case 0, else case 1.
        let w = [ONE, 3 * ONE];
        assert_eq!(choose(&w, 0), 0);
        assert_eq!(choose(&w, (1 << 30) - 1), 0); // r = 0.99998
        assert_eq!(choose(&w, 1 << 30), 1); // r = 1.0 exactly
        assert_eq!(choose(&w, u32::MAX), 1);
        // Zero and negative weights are never chosen (except as the last case of S = 0).
        assert_eq!(choose(&[0, ONE, (-5i32) as u32], u32::MAX), 1);
        assert_eq!(choose(&[0, 0, 0], 12345), 2);
        assert_eq!(choose(&[ONE], 777), 0);
    }
}
