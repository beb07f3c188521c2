//! The retire engine: sends finished slots out through `done`, one at a time (lowest slot
//! first). It clears the output stack buffer, copies the slot's `sp` words into it four per
//! cycle, offers the ray, and frees the slot when `done` takes it; the next finished slot starts
//! in that same cycle.

use super::slots::{SlotState, Slots};
use super::stack::{StackRam, IW};
use super::Params;
use crate::pbru::ports::RayOut;
use rendergen_hdl::{
    cat, cat_lsb_first, lowest_index, lowest_set, name_lets, HwEnum, Module, Sig, Stream,
};

/// States of the retire engine.
#[derive(HwEnum, Clone, Copy, Debug, PartialEq)]
enum RetirePhase {
    /// No ray leaving.
    Idle,
    /// Copying the slot's stack words into the output buffer, four per cycle.
    Copy,
    /// Offering the ray on `done`.
    Offer,
}

/// Builds the retire engine; returns the `done` stream.
#[name_lets]
pub(super) fn retire(m: &mut Module, p: &Params, s: &mut Slots, ram: StackRam) -> Stream<RayOut> {
    let phase = m.enum_reg("retire_phase", RetirePhase::Idle);
    let slot = m.reg("retire_slot", p.slot_w).reset(0);
    let idx = m.reg("retire_index", IW).reset(0);
    let offering = phase.q().is(RetirePhase::Offer);
    // The slot being handed over this cycle is still OUT: not a candidate.
    let taken = m.wire("retire_taken", 1);
    let outs: Vec<Sig> = s.in_state(SlotState::Out);
    let outs = cat_lsb_first(
        &(outs.iter().enumerate())
            .map(|(i, &o)| {
                let leaving = if p.slots == 1 {
                    taken.sig()
                } else {
                    taken.sig() & slot.q().eq(i as u64)
                };
                o & !leaving
            })
            .collect::<Vec<_>>(),
    )
    .named("finished_slots");
    let pick = if p.slots == 1 {
        m.lit(0, p.slot_w)
    } else {
        lowest_index(lowest_set(outs))
    };
    let start = (phase.q().is(RetirePhase::Idle) | taken.sig()) & outs.any();
    let copying = phase.q().is(RetirePhase::Copy);
    let sp = s.sp.at(slot.q());
    let last = copying & (idx.q() + 4).ge(sp.zext(IW));
    let words = ram.read4(slot.q(), idx.q());
    let buffer: Vec<_> = (0..p.depth)
        .map(|i| {
            let r = m.reg(&format!("done_word{i}"), 32);
            let here = copying & idx.q().eq((i & !3) as u64) & sp.gt(i as u64);
            r.next_when(
                start | here,
                start.mux(m.lit(0, 32), words[(i % 4) as usize]),
            );
            r.q()
        })
        .collect();
    let pc = s.pc.at(slot.q());
    let data = RayOut {
        ray_id: s.ray_id.at(slot.q()),
        inst_addr: cat(&[pc.bits(31, 5), m.lit(0, 5)]),
        index: pc.bits(4, 0).zext(16),
        sp,
        stack: cat_lsb_first(&buffer),
        ret_dst: s.ret_dst.at(slot.q()),
        reason: s.reason.at(slot.q()),
    };
    let (done, ready) = Stream::offer(m, "done", offering, data);
    taken.drive(offering & ready);
    s.st.set_at(slot.q(), taken.sig(), m.enum_const(SlotState::Idle));
    slot.next_when(start, pick);
    idx.next(start.mux(m.lit(0, IW), copying.mux(idx.q() + 4, idx.q())));
    let next = [
        (taken.sig(), RetirePhase::Idle),
        (start, RetirePhase::Copy),
        (last, RetirePhase::Offer),
    ]
    .iter()
    .fold(phase.q(), |acc, &(c, v)| c.mux(m.enum_const(v), acc));
    phase.next(next);
    done
}
