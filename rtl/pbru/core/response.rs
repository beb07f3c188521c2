//! Answers from the scheduler (`crsp`): a chunk is stored in its slot, a texture-ready notice
//! moves the slot past its TEX_READ, a pipeline result is pushed one word per cycle through the
//! write-back port. Answers that match no waiting request (wrong state or ray id) are dropped.
//! Also the per-slot wait counters and the parking of slots whose fetch takes too long or that
//! the scheduler stopped.

use super::fetch::advance;
use super::slots::{state, Slots};
use super::stack::IW;
use super::Params;
use crate::pbru::ports::{CoreResp, CRSP_CHUNK, CRSP_PIPE, CRSP_TEXREADY};
use rendergen_hdl::{clog2, index_select, Module, Sig, Stream};
use rendergen_isa::Reason;

/// A stack write requested by the write-back.
pub(super) struct StackWrite {
    /// Write this cycle.
    pub enable: Sig,
    /// Slot.
    pub slot: Sig,
    /// Word index.
    pub idx: Sig,
    /// Data.
    pub data: Sig,
}

/// Handles `crsp`; returns the write-back's stack write (its `enable` is also "the write port
/// is taken") and, per slot, whether its fetch is answered this cycle.
pub(super) fn responses(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    crsp: Stream<CoreResp>,
) -> (StackWrite, Vec<Sig>) {
    let (valid, d, ready) = crsp.split();
    let wb_active = m.reg("wb_active", 1).reset(0);
    let pipe_kind = d.kind.eq(CRSP_PIPE);
    let take = valid & (!pipe_kind | !wb_active.q());
    ready.drive(!pipe_kind | !wb_active.q());
    let st = s.st.at(d.slot);
    let mine = take & s.ray_id.at(d.slot).eq(d.ray_id);
    let chunk = (mine & d.kind.eq(CRSP_CHUNK) & st.eq(state::WFETCH)).named("crsp_chunk_hit");
    let tex = (mine & d.kind.eq(CRSP_TEXREADY) & st.eq(state::WTEX)).named("crsp_tex_hit");
    let pipe = (mine & pipe_kind & st.eq(state::WPIPE)).named("crsp_pipe_hit");
    let (run, fetch) = (m.lit(state::RUN, 3), m.lit(state::FETCH, 3));

    let old = s.chunk.at(d.slot);
    s.chunk.set_at(d.slot, chunk, d.data);
    s.carry.set_at(d.slot, chunk, old.bits(255, 224));
    s.st.set_at(d.slot, chunk, run);
    let (tex_pc, tex_fetch) = advance(s.pc.at(d.slot), s.straddle.at(d.slot), s.wlen.at(d.slot));
    s.st.set_at(d.slot, tex, tex_fetch.mux(fetch, run));
    s.pc.set_at(d.slot, tex, tex_pc);
    s.straddle.set_at(d.slot, tex, m.lit(0, 1));

    // Write-back of a pipeline result: word i at sp + i, then sp += n and the slot moves on.
    let wb_slot = m.reg("wb_slot", p.slot_w);
    let wb_data = m.reg("wb_data", 128);
    let wb_i = m.reg("wb_index", 3).reset(0);
    let wb_n = m.reg("wb_count", 3);
    wb_slot.next_when(pipe, d.slot);
    wb_data.next_when(pipe, d.data.bits(127, 0));
    wb_n.next_when(pipe, s.npush.at(d.slot));
    let ws = wb_slot.q();
    let last = (wb_active.q() & (wb_i.q() + 1).eq(wb_n.q())).named("wb_last");
    wb_active.next(pipe | (wb_active.q() & !last));
    wb_i.next(pipe.mux(m.lit(0, 3), wb_active.q().mux(wb_i.q() + 1, wb_i.q())));
    let sp = s.sp.at(ws);
    let (wb_pc, wb_fetch) = advance(s.pc.at(ws), s.straddle.at(ws), s.wlen.at(ws));
    s.sp.set_at(ws, last, sp + wb_n.q().resize(p.sp_w));
    s.st.set_at(ws, last, wb_fetch.mux(fetch, run));
    s.pc.set_at(ws, last, wb_pc);
    s.straddle.set_at(ws, last, m.lit(0, 1));
    let words: Vec<Sig> = (0..4).map(|i| wb_data.q().slice(32 * i, 32)).collect();
    let answered = (0..p.slots)
        .map(|i| {
            if p.slots == 1 {
                chunk | tex
            } else {
                (chunk | tex) & d.slot.eq(i as u64)
            }
        })
        .collect();
    let write = StackWrite {
        enable: wb_active.q(),
        slot: ws,
        idx: sp.zext(IW) + wb_i.q().zext(IW),
        data: index_select(wb_i.q().bits(1, 0), &words),
    };
    (write, answered)
}

/// Width of a slot's wait counter for `miss_thresh`.
pub(super) fn wait_width(miss_thresh: u32) -> u32 {
    clog2(miss_thresh as u64 + 1)
}

/// Counts the cycles each slot waits on a fetch and parks it after `miss_thresh` cycles (never
/// when 0) or when the scheduler asked (`stop`), unless its fetch is `answered` this cycle.
pub(super) fn park(m: &mut Module, p: &Params, s: &mut Slots, answered: &[Sig]) {
    let parked = m.lit(Reason::Parked.code() as u64, 3);
    let out = m.lit(state::OUT, 3);
    for (i, answer) in answered.iter().enumerate() {
        let st = s.st.q(i);
        let waiting = st.eq(state::WFETCH) | st.eq(state::WTEX);
        let wait = s.wait.q(i);
        let timeout = if p.miss_thresh == 0 {
            m.lit(0, 1)
        } else {
            wait.eq(p.miss_thresh as u64 - 1)
        };
        let now = (waiting & !*answer & (s.stop.q(i) | timeout)).named(&format!("slot{i}_park"));
        s.st.set(i, now, out);
        let unwind = now & s.skip.q(i).ne(0);
        let restored = (s.sp.q(i).zext(IW) + s.restore.q(i).zext(IW)).resize(p.sp_w);
        let origin = s.origin.q(i);
        s.pc.set(i, unwind, origin);
        s.sp.set(i, unwind, restored);
        s.reason.set(i, now, parked);
        let one = m.lit(1, 1);
        s.wait
            .set(i, one, waiting.mux(wait + 1, m.lit(0, wait.width())));
    }
}
