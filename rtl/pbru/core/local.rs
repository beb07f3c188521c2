//! The execute stage's local instructions (`rtl/isa/ISA.md`, Q16.16 arithmetic and stack
//! operations): computed by [`alu`] and written back to the stack RAM in one cycle.

use super::alu::alu;
use super::exec::Instr;
use super::fetch::InstrClass;
use super::stack::{StackRam, WordWrite, IW};
use super::Params;
use rendergen_hdl::name_lets;
use rendergen_hdl::Sig;
use rendergen_isa::Opcode;

/// What [`local_op`] does this cycle.
pub(super) struct Local {
    /// A local instruction executes (and ends).
    pub done: Sig,
    /// The slot's stack depth after it: `sp − pops + pushes`.
    pub next_sp: Sig,
}

/// Executes the held local instruction `x` when `runs` (Execute state, no fault): the results
/// go to `sp − pops` (the first pushed word) and `sp − pops + 1` (DUP, SWAP), or for STORE n to
/// word `n`. `words` are the four words read by [`super::operands::operand_read`] (the indexed
/// word first for LOAD and PICK, otherwise the top of the stack last).
///
/// * **Timing:** one cycle; combinational from the read port to the stack RAM's write port.
/// * **Cost:** the ALU (a 32×32 multiplier, adders, compares) and one two-word write port.
#[name_lets]
pub(super) fn local_op(
    p: &Params,
    ram: StackRam,
    x: &Instr,
    sp: Sig,
    words: [Sig; 4],
    runs: Sig,
) -> Local {
    let w = |v: Sig| v.zext(IW);
    let done = (runs & x.class.is(InstrClass::Local)).named("done");
    let result = alu(
        x.op,
        x.imm,
        [words[3], words[2], words[1], words[0]],
        words[0],
    );
    let store = x.is(Opcode::Store);
    let at = w(sp) - w(x.pops);
    ram.write4(
        x.slot,
        store.mux(w(x.imm8()), at),
        &[
            WordWrite {
                enable: done & (x.pushes.ne(0) | store),
                data: result.r0,
            },
            WordWrite {
                enable: done & (x.is(Opcode::Dup) | x.is(Opcode::Swap)),
                data: result.r1,
            },
        ],
    );
    Local {
        done,
        next_sp: (at + w(x.pushes)).resize(p.sp_w).named("next_sp"),
    }
}
