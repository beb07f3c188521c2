//! The execute stage's operand read: four consecutive stack words per cycle.

use super::exec::Instr;
use super::fetch::InstrClass;
use super::stack::{StackRam, IW};
use rendergen_hdl::{name_lets, priority_select, Sig};
use rendergen_isa::Opcode;

/// Where the execute stage is in its instruction ([`super::exec::ExecState`]).
#[derive(Clone, Copy)]
pub(super) struct Phase {
    /// State Execute.
    pub execute: Sig,
    /// State Sum (RANDSEL's first pass).
    pub sum: Sig,
    /// State Scan (RANDSEL's second pass).
    pub scan: Sig,
    /// The step counter (8 bits): the word group of a pipeline op, the weight of a pass.
    pub step: Sig,
}

/// Reads words `base … base + 3` of the held instruction's slot, `base` being:
/// * LOAD n: `n`; PICK n: `sp − 1 − n` (the indexed word comes out first);
/// * a pipeline op: `sp − pop_count + 4·step` (its arguments, deepest first);
/// * RANDSEL's passes: `sp − n + step` (the current weight comes out first);
/// * otherwise `sp − 4` (the top of the stack comes out last).
///
/// * **Timing:** combinational from the instruction register, the step and `sp` through the
///   stack RAM's read port.
/// * **Cost:** one four-word read port of the stack RAM; a 10-bit base adder and mux.
#[name_lets]
pub(super) fn operand_read(ram: StackRam, x: &Instr, phase: &Phase, sp: Sig) -> [Sig; 4] {
    let w = |v: Sig| v.zext(IW);
    let n = w(x.imm8());
    let first_arg = w(sp) - w(x.pop_count);
    let base = priority_select(
        &[
            (phase.execute & x.is(Opcode::Load), n),
            (phase.execute & x.is(Opcode::Pick), w(sp) - 1 - n),
            (
                phase.execute & x.class.is(InstrClass::Pipe),
                first_arg + (w(phase.step) << 2),
            ),
            (phase.sum | phase.scan, first_arg + w(phase.step)),
        ],
        w(sp) - 4,
    )
    .named("base");
    ram.read4(x.slot, base)
}
