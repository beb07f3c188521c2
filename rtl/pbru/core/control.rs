//! Importance-sampling control (`rtl/isa/ISA.md`, "Random select"): the ray's xorshift32 PRNG,
//! and the skip modes that RANDSEL and ENDCASE start, stepped once per passed-over instruction.

use super::alu::is;
use rendergen_hdl::{name_lets, HwEnum, Module, Sig};
use rendergen_isa::Opcode;

/// Skip modes (`Slots::skip`, 2 bits).
#[derive(HwEnum, Clone, Copy, Debug, PartialEq)]
pub(super) enum SkipMode {
    /// Executing.
    Off,
    /// After RANDSEL: seeking the chosen CASE (`pairs` pairs still to skip whole).
    Seek,
    /// After an executed ENDCASE: skipping the CASE … ENDCASE pairs that follow.
    Exit,
}

/// The PRNG state at assignment: `(ray_id · 0x9E3779B9) | 1` ([`rendergen_isa::prng_seed`]).
#[track_caller]
pub(super) fn prng_seed(m: &mut Module, ray_id: Sig) -> Sig {
    (ray_id.zext(32) * 0x9E37_79B9u64) | m.lit(1, 32)
}

/// One xorshift32 step ([`rendergen_isa::prng_next`]).
#[track_caller]
#[name_lets]
pub(super) fn prng_next(x: Sig) -> Sig {
    let x = x ^ (x << 13);
    let x = x ^ (x >> 17);
    x ^ (x << 5)
}

/// What the skip logic does with the decoded instruction of a slot.
pub(super) struct SkipStep {
    /// The instruction is passed over (not executed); `pc` moves past it.
    pub passed: Sig,
    /// The skip found a bad structure: `BadControl` at this instruction.
    pub fault: Sig,
    /// The slot's skip fields change (with the values below).
    pub update: Sig,
    /// New skip mode.
    pub skip: Sig,
    /// New in-pair flag.
    pub in_pair: Sig,
    /// New pair count.
    pub pairs: Sig,
}

/// Steps the skip state (`skip`, `in_pair`, `pairs`) over opcode `op`:
/// * seeking, outside a pair: the `pairs+1`-th CASE ends the skip (execution resumes after it),
///   an earlier CASE opens a pair, RAYSTOP is `BadControl`, anything else is passed over;
/// * inside a skipped pair: ENDCASE closes it, CASE is `BadControl`, anything else is passed over;
/// * leaving (after an executed ENDCASE), outside a pair: CASE opens a pair to skip, any other
///   instruction ends the skip and executes.
#[track_caller]
#[name_lets]
pub(super) fn skip_step(m: &mut Module, skip: Sig, in_pair: Sig, pairs: Sig, op: Sig) -> SkipStep {
    let case = is(op, Opcode::Case);
    let endcase = is(op, Opcode::EndCase);
    let seek = skip.is(SkipMode::Seek);
    let exit = skip.is(SkipMode::Exit);
    let outside = !in_pair;
    let found = seek & outside & case & pairs.eq(0);
    let open = (seek & outside & case & pairs.ne(0)) | (exit & outside & case);
    let close = in_pair & endcase;
    let fault = (seek & outside & is(op, Opcode::RayStop)) | (in_pair & case);
    let leave = exit & outside & !case;
    let passed = !skip.is(SkipMode::Off) & !leave & !fault;
    let off = m.enum_const(SkipMode::Off);
    SkipStep {
        passed,
        fault,
        update: (passed & (found | open | close)) | leave,
        skip: (found | leave).mux(off, skip),
        in_pair: open.mux(m.lit(1, 1), close.mux(m.lit(0, 1), in_pair)),
        pairs: (open & seek).mux(pairs - 1, pairs),
    }
}
