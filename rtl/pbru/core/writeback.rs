//! The execute stage's write-back into the per-slot state when an instruction ends.

use super::checks::Fault;
use super::control::SkipMode;
use super::exec::Instr;
use super::fetch::advance;
use super::operands::Phase;
use super::slots::{SlotState, Slots};
use super::stack::IW;
use super::Params;
use rendergen_hdl::{name_lets, Module, Sig};
use rendergen_isa::Reason;

/// How the held instruction ends this cycle (at most one of these, but a fault at a RAYSTOP).
pub(super) struct Outcome {
    /// The bounds checks failed.
    pub fault: Fault,
    /// A RAYSTOP.
    pub raystop: Sig,
    /// A local instruction executed.
    pub local: Sig,
    /// Its new stack depth.
    pub local_sp: Sig,
    /// An ENDCASE executed (skip the CASE … ENDCASE pairs that follow).
    pub endcase: Sig,
    /// A RANDSEL draws (the PRNG state changes).
    pub randsel_go: Sig,
    /// The new PRNG state.
    pub drawn: Sig,
    /// A RANDSEL found its case (pop the weights, seek the chosen CASE).
    pub found: Sig,
    /// A TEX_READ sent its request.
    pub tex_go: Sig,
    /// A pipeline op sent its request.
    pub pipe_last: Sig,
}

/// Writes the held instruction's outcome into its slot (`x.slot`): a fault or RAYSTOP sends the
/// ray out with its reason; a local instruction, ENDCASE or RANDSEL's choice moves `pc` on (to
/// Fetch at the end of the chunk); RANDSEL pops its weights and starts seeking case `step`
/// (keeping its origin and weight count for a park), ENDCASE starts leaving; TEX_READ and
/// pipeline ops wait for their answer. Returns `done`, the instruction ends this cycle (but a
/// RANDSEL's scan: `found`).
///
/// * **Timing:** the slot's registers change at the edge.
/// * **Cost:** no state; the slot fields' write enables and values.
#[name_lets]
pub(super) fn write_back(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    x: &Instr,
    phase: &Phase,
    sp: Sig,
    o: &Outcome,
) -> Sig {
    let c = x.slot;
    let (err, found) = (o.fault.fault, o.found);
    let pc = s.pc.at(c);
    let (next_pc, next_fetch) = advance(pc, s.straddle.at(c), x.len);
    let moves_on = (o.local | o.endcase | found).named("moves_on");
    let out = m.enum_const(SlotState::Out);
    let (fetch, run) = (m.enum_const(SlotState::Fetch), m.enum_const(SlotState::Run));
    s.st.set_at(c, err | o.raystop, out);
    s.st.set_at(c, moves_on, next_fetch.mux(fetch, run));
    s.st.set_at(c, o.tex_go, m.enum_const(SlotState::WaitTex));
    s.st.set_at(c, o.pipe_last, m.enum_const(SlotState::WaitPipe));
    s.reason.set_at(c, err, o.fault.code);
    s.reason
        .set_at(c, o.raystop, m.lit(Reason::Done.code() as u64, 3));
    s.pc.set_at(c, moves_on, next_pc);
    s.straddle.set_at(c, moves_on, m.lit(0, 1));
    let popped = (sp.zext(IW) - x.pop_count.zext(IW)).resize(p.sp_w);
    s.sp.set_at(c, o.local, o.local_sp);
    s.sp.set_at(c, found | o.pipe_last, popped);
    s.skip.set_at(c, o.endcase, m.enum_const(SkipMode::Exit));
    s.skip.set_at(c, found, m.enum_const(SkipMode::Seek));
    let skips = o.endcase | found;
    s.in_pair.set_at(c, skips, m.lit(0, 1));
    s.pairs.set_at(c, found, phase.step);
    s.origin.set_at(c, skips, pc);
    s.restore
        .set_at(c, skips, found.mux(x.pop_count, m.lit(0, 8)));
    s.prng.set_at(c, o.randsel_go, o.drawn);
    s.npush.set_at(c, o.pipe_last, x.pushes);
    s.wlen.set_at(c, o.tex_go | o.pipe_last, x.len);
    (err | o.local | o.raystop | o.endcase | o.tex_go | o.pipe_last).named("done")
}
