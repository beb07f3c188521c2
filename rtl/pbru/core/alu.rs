//! The local operations (Q16.16, `rendergen_isa` arithmetic): one result word per instruction
//! (two for DUP and SWAP), from the four words at the top of the stack.

use rendergen_hdl::{name_lets, priority_select, Sig};
use rendergen_isa::Opcode;

/// `op == o`.
#[track_caller]
pub(super) fn is(op: Sig, o: Opcode) -> Sig {
    op.eq(o as u8 as u64)
}

/// The results of a local instruction.
pub(super) struct AluOut {
    /// Written at `sp − pops` (the first pushed word; for STORE the stored word).
    pub r0: Sig,
    /// Written at `sp − pops + 1` (DUP, SWAP).
    pub r1: Sig,
}

/// Results of local opcode `op` with immediate `imm`; `top[k]` is the word `k` below the top
/// (`top[0]` = the top), `indexed` the word a LOAD or PICK addresses.
#[track_caller]
#[name_lets]
pub(super) fn alu(op: Sig, imm: Sig, top: [Sig; 4], indexed: Sig) -> AluOut {
    use Opcode::*;
    let [t0, t1, t2, t3] = top;
    // Binary ops: a = t1, b = t0. LERP/CLAMP: a = t2, b = t1, t = t0. SELLT: a..y = t3..t0.
    let lerp = is(op, Lerp);
    let mul_a = lerp.mux(t1 - t2, t1);
    let product = mul_a.smul_full(t0);
    let rounded = (product + 0x8000u64).bits(47, 16).named("q_mul");
    let min = |a: Sig, b: Sig| a.slt(b).mux(a, b);
    let max = |a: Sig, b: Sig| a.slt(b).mux(b, a);
    let r0 = priority_select(
        &[
            (is(op, Push), imm),
            (is(op, Load) | is(op, Pick), indexed),
            (is(op, Store) | is(op, Dup) | is(op, Swap), t0),
            (is(op, Add), t1 + t0),
            (is(op, Sub), t1 - t0),
            (is(op, Mul), rounded),
            (lerp, t2 + rounded),
            (is(op, Min), min(t1, t0)),
            (is(op, Max), max(t1, t0)),
            (is(op, Clamp), min(max(t2, t1), t0)),
            (is(op, SelLt), t3.slt(t2).mux(t1, t0)),
            (is(op, Neg), -t0),
            (is(op, Abs), t0.msb().mux(-t0, t0)),
        ],
        t0,
    )
    .named("alu_result");
    let r1 = is(op, Swap).mux(t1, t0);
    AluOut { r0, r1 }
}
