//! The execute stage's bounds checks (`rtl/isa/ISA.md`, "Faults").

use super::exec::Instr;
use super::fetch::InstrClass;
use super::stack::IW;
use super::Params;
use rendergen_hdl::{name_lets, priority_select, Module, Sig};
use rendergen_isa::{Opcode, RayError, Reason};

/// A fault found by [`bounds_check`].
#[derive(Clone, Copy)]
pub(super) struct Fault {
    /// The instruction faults (it is not executed; the ray leaves).
    pub fault: Sig,
    /// Its reason code (3 bits): BadControl, StackUnderflow or StackOverflow.
    pub code: Sig,
}

/// Checks the held instruction `x` against the slot's stack depth `sp` in its `first` execute
/// cycle: BadControl (RANDSEL 0, a CASE reached by execution), then underflow (fewer words than
/// it reads: LOAD/PICK n need n + 1, STORE n + 2, TEX_READ 3, RANDSEL n), then overflow
/// (`sp − pops + pushes > stack_depth`), in the priority of ISA.md.
///
/// * **Timing:** combinational, from the instruction register and the slot's `sp`.
/// * **Cost:** no state; two 10-bit compares and a few adders.
#[name_lets]
pub(super) fn bounds_check(m: &mut Module, p: &Params, x: &Instr, sp: Sig, first: Sig) -> Fault {
    use Opcode::*;
    let w = |v: Sig| v.zext(IW);
    let n = x.imm8();
    let randsel = x.is(RandSel);
    let need = priority_select(
        &[
            (x.is(Load) | x.is(Pick), w(n) + 1),
            (x.is(Store), w(n) + 2),
            (x.class.is(InstrClass::TexRead), m.lit(3, IW)),
            (randsel, w(n)),
        ],
        w(x.pops),
    )
    .named("need");
    let bad = (randsel & n.eq(0)) | x.is(Case);
    let under = w(sp).lt(need);
    let over = (w(sp) + w(x.pushes)).gt(w(x.pops) + p.depth as u64);
    let fault = (first & (bad | under | over)).named("fault");
    let code = |m: &mut Module, e: RayError| m.lit(Reason::Error(e).code() as u64, 3);
    let (bad_code, under_code) = (
        code(m, RayError::BadControl),
        code(m, RayError::StackUnderflow),
    );
    let code = bad.mux(
        bad_code,
        under.mux(under_code, code(m, RayError::StackOverflow)),
    );
    Fault {
        fault,
        code: code.named("fault_code"),
    }
}
