//! Ray intake: takes an assigned ray into the lowest free slot, copying its stack into the stack
//! RAM one word per cycle while `assign` is held (its payload is stable until the transfer), and
//! initialises the slot in the cycle of the transfer.

use super::control::prng_seed;
use super::response::StackWrite;
use super::slots::{state, Slots};
use super::Params;
use crate::pbru::ports::RayIn;
use rendergen_hdl::{cat_lsb_first, index_select, lowest_index, lowest_set, Module, Sig, Stream};
use rendergen_isa::{RayError, Reason};

/// Builds the intake; `port_busy` is 1 when the shared stack write port is taken this cycle.
/// Returns the intake's stack write.
pub(super) fn intake(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    assign: Stream<RayIn>,
    port_busy: Sig,
) -> StackWrite {
    let (valid, ray, ready) = assign.split();
    let active = m.reg("intake_active", 1).reset(0);
    let held_slot = m.reg("intake_slot", p.slot_w);
    let held_idx = m.reg("intake_index", p.sp_w).reset(0);
    let free = cat_lsb_first(&s.in_state(state::IDLE)).named("free_slots");
    let pick = if p.slots == 1 {
        m.lit(0, p.slot_w)
    } else {
        lowest_index(lowest_set(free))
    };
    let bad = ray.sp.gt(p.depth as u64);
    let count = bad.mux(m.lit(0, p.sp_w), ray.sp);
    let start = valid & !active.q() & free.any();
    let busy = start | active.q();
    let slot = active.q().mux(held_slot.q(), pick);
    let idx = active.q().mux(held_idx.q(), m.lit(0, p.sp_w));
    let need = idx.lt(count);
    let progress = busy & (!need | !port_busy);
    let last = (progress & (idx + 1).ge(count)).named("intake_last");
    ready.drive(last);
    active.next_when(progress, !last);
    held_slot.next_when(start, pick);
    held_idx.next_when(progress, idx + 1);

    let words: Vec<Sig> = (0..p.depth).map(|i| ray.stack.slice(32 * i, 32)).collect();
    let st_init = bad.mux(
        m.lit(state::OUT, 3),
        ray.has_chunk
            .mux(m.lit(state::RUN, 3), m.lit(state::FETCH, 3)),
    );
    let reason = bad.mux(
        m.lit(Reason::Error(RayError::StackOverflow).code() as u64, 3),
        m.lit(Reason::Done.code() as u64, 3),
    );
    s.st.set_at(slot, start & progress & !last, m.lit(state::LOAD, 3));
    s.st.set_at(slot, last, st_init);
    s.reason.set_at(slot, last, reason);
    s.pc.set_at(slot, last, ray.inst_addr + ray.index.zext(32));
    s.sp.set_at(slot, last, count);
    s.ray_id.set_at(slot, last, ray.ray_id);
    s.ret_dst.set_at(slot, last, ray.ret_dst);
    s.chunk.set_at(slot, last, ray.chunk);
    let zero = m.lit(0, 1);
    s.straddle.set_at(slot, last, zero);
    s.skip.set_at(slot, last, m.lit(0, 2));
    s.in_pair.set_at(slot, last, zero);
    s.pairs.set_at(slot, last, m.lit(0, 8));
    let seed = prng_seed(m, ray.ray_id);
    s.prng.set_at(slot, last, seed);
    s.stop.set_at(slot, last, zero);
    StackWrite {
        enable: progress & need,
        slot,
        idx,
        data: index_select(idx, &words),
    }
}
