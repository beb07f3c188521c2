//! Ray intake: takes an assigned ray into the lowest free slot in one cycle. The handshake
//! initialises the slot and latches the ray's stack into the intake buffer; the stack words are
//! then copied into the stack RAM four per cycle in the background (words 0..3 already in the
//! cycle of the handshake when no copy runs), and the slot becomes runnable when its copy is
//! done. A second ray is taken while a copy runs only in the cycle that copy ends (the buffer is
//! single); it can go to any other free slot.

use super::control::{prng_seed, SkipMode};
use super::response::StackWrite;
use super::slots::{SlotState, Slots};
use super::stack::{WordWrite, IW};
use super::Params;
use crate::pbru::ports::RayIn;
use rendergen_hdl::{
    cat_lsb_first, index_select, lowest_index, lowest_set, name_lets, HwEnum, Module, Sig, Stream,
};
use rendergen_isa::{RayError, Reason};

/// Builds the intake; returns its stack write (a write port of its own) and `assign.ready`.
#[name_lets]
pub(super) fn intake(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    assign: Stream<RayIn>,
    blocked: &[Sig],
) -> (StackWrite, Sig) {
    let (valid, ray, ready) = assign.split();
    // The background copy: `active` while words `index..count` of the buffer are still to be
    // written into slot `slot`, which then becomes `init`.
    let active = m.reg("intake_active", 1).reset(0);
    let held_slot = m.reg("intake_slot", p.slot_w);
    let held_idx = m.reg("intake_index", p.sp_w).reset(0);
    let held_count = m.reg("intake_count", p.sp_w);
    let held_init = m.reg("intake_init", SlotState::width());
    let buf = m.reg("intake_stack", 32 * p.depth);

    let idle = s.in_state(SlotState::Idle);
    let free: Vec<Sig> = idle.iter().zip(blocked).map(|(i, b)| *i & !*b).collect();
    let free = cat_lsb_first(&free).named("free_slots");
    let pick = if p.slots == 1 {
        m.lit(0, p.slot_w)
    } else {
        lowest_index(lowest_set(free))
    };
    let bad = ray.sp.gt(p.depth as u64);
    let count = bad.mux(m.lit(0, p.sp_w), ray.sp);
    let st_init = bad.mux(
        m.enum_const(SlotState::Out),
        ray.has_chunk
            .mux(m.enum_const(SlotState::Run), m.enum_const(SlotState::Fetch)),
    );

    // Background copy of the held ray, four words per cycle.
    let bg_write = active.q();
    let bg_last =
        (bg_write & (held_idx.q().zext(IW) + 4).ge(held_count.q().zext(IW))).named("intake_last");
    let open = ((!active.q() | bg_last) & free.any()).named("intake_open");
    ready.drive(open);
    let start = (valid & open).named("intake_start");
    // Words 0..3 of a new ray go straight into the RAM when the background copy does not use
    // the port.
    let direct = start & !active.q() & count.ne(0);
    let first = m.lit(0, p.sp_w);
    let now_done = start & (count.eq(0) | (direct & count.le(4)));
    let start_idx = direct.mux(m.lit(4, IW).resize(p.sp_w), first);
    active.next(start.mux(!now_done, active.q() & !bg_last));
    held_idx.next(start.mux(
        start_idx,
        bg_write.mux((held_idx.q().zext(IW) + 4).resize(p.sp_w), held_idx.q()),
    ));
    held_slot.next_when(start, pick);
    held_count.next_when(start, count);
    held_init.next_when(start, st_init);
    buf.next_when(start, ray.stack);

    let reason = bad.mux(
        m.lit(Reason::Error(RayError::StackOverflow).code() as u64, 3),
        m.lit(Reason::Done.code() as u64, 3),
    );
    let zero = m.lit(0, 1);
    s.st.set_at(
        pick,
        start,
        now_done.mux(st_init, m.enum_const(SlotState::Load)),
    );
    s.reason.set_at(pick, start, reason);
    s.pc.set_at(pick, start, ray.inst_addr + ray.index.zext(32));
    s.sp.set_at(pick, start, count);
    s.ray_id.set_at(pick, start, ray.ray_id);
    let epoch = s.epoch.at(pick);
    s.epoch.set_at(pick, start, !epoch);
    s.ret_dst.set_at(pick, start, ray.ret_dst);
    s.chunk.set_at(pick, start, ray.chunk);
    s.straddle.set_at(pick, start, zero);
    s.skip.set_at(pick, start, m.enum_const(SkipMode::Off));
    s.in_pair.set_at(pick, start, zero);
    s.pairs.set_at(pick, start, m.lit(0, 8));
    let seed = prng_seed(m, ray.ray_id);
    s.prng.set_at(pick, start, seed);
    s.stop.set_at(pick, start, zero);
    // The end of a background copy (another slot than `pick`, which is idle).
    s.st.set_at(held_slot.q(), bg_last, held_init.q());
    s.stop.set_at(held_slot.q(), bg_last, zero);

    let words: Vec<Sig> = (0..p.depth).map(|i| buf.q().slice(32 * i, 32)).collect();
    let idx = active.q().mux(held_idx.q(), first);
    let count_now = active.q().mux(held_count.q(), count);
    let write = StackWrite {
        slot: active.q().mux(held_slot.q(), pick),
        base: idx,
        words: (0..4u32)
            .map(|j| {
                let held = index_select((idx.zext(IW) + j as u64).resize(idx.width()), &words);
                let new = if j < p.depth {
                    ray.stack.slice(32 * j, 32)
                } else {
                    m.lit(0, 32)
                };
                WordWrite {
                    enable: (bg_write | direct) & (idx.zext(IW) + j as u64).lt(count_now.zext(IW)),
                    data: active.q().mux(held, new),
                }
            })
            .collect(),
    };
    (write, open)
}
