//! The latency table the scheduler and the cycle estimate use (issue 12: fma 6, misc 4,
//! recip 5, transc 8, int 3, plus the core's pipeline). One place: change it here.

use rendergen_shader_isa::{Opcode, Unit};

/// Cycles of the core's pipeline around every unit (fetch, decode, operand read, write-back).
pub const PIPELINE: u32 = 2;

/// Cycles from issue until a dependent instruction can issue.
pub fn latency(op: Opcode) -> u32 {
    let unit = match op.unit() {
        Unit::Fma => 6,
        Unit::FpMisc => 4,
        Unit::Recip => 5,
        Unit::Transc => 8,
        Unit::Int => 3,
        // Uniform reads and texture fetches: a round trip through a port (texture: a guess
        // until the texture unit is measured).
        Unit::Port if op == Opcode::Tex => 20,
        Unit::Port => 4,
        Unit::Control => return 1,
    };
    unit + PIPELINE
}
