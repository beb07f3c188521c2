//! Answers from the scheduler (`crsp`): a chunk is stored in its slot, a texture-ready notice
//! moves the slot past its TEX_READ, a pipeline result is pushed whole (a four-word write) in the
//! cycle it arrives. Answers that match no waiting request (wrong state, ray id or epoch) are
//! dropped.
//! Also the per-slot wait counters and the parking of slots whose fetch takes too long or that
//! the scheduler stopped.

use super::control::SkipMode;
use super::fetch::advance;
use super::slots::{SlotState, Slots};
use super::stack::{WordWrite, IW};
use super::Params;
use crate::pbru::ports::{CoreResp, CRSP_CANCEL, CRSP_CHUNK, CRSP_PIPE, CRSP_TEXREADY};
use rendergen_hdl::{clog2, name_lets, Module, Sig, Stream};
use rendergen_isa::Reason;

/// Up to four consecutive stack words to write (see [`super::stack::StackRam::write4`]).
pub(super) struct StackWrite {
    /// Slot.
    pub slot: Sig,
    /// Index of the first word.
    pub base: Sig,
    /// The words, each with its enable.
    pub words: Vec<WordWrite>,
}

/// What [`responses`] tells the rest of the core, per slot.
pub(super) struct Answered {
    /// The slot's fetch (IFETCH or TEXREAD) is answered with data this cycle.
    pub answered: Vec<Sig>,
    /// The slot's fetch is answered with `CRSP_CANCEL` this cycle: it parks.
    pub cancelled: Vec<Sig>,
    /// `[epoch 0, epoch 1]`: an answer to an IFETCH or TEXREAD of the slot's occupant of that
    /// epoch arrives (for the current occupant or one that left owing it).
    pub released: Vec<[Sig; 2]>,
}

/// Handles `crsp` (always ready); returns the write-back's stack write (a pipeline result is
/// pushed whole in the cycle it arrives) and, per slot, what was answered ([`Answered`]).
#[name_lets]
pub(super) fn responses(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    crsp: Stream<CoreResp>,
) -> (StackWrite, Answered) {
    let (take, d, ready) = crsp.split();
    ready.drive(m.lit(1, 1));
    let st = s.st.at(d.slot);
    let mine = take & s.ray_id.at(d.slot).eq(d.ray_id) & s.epoch.at(d.slot).eq(d.epoch);
    let chunk =
        (mine & d.kind.eq(CRSP_CHUNK) & st.is(SlotState::WaitFetch)).named("crsp_chunk_hit");
    let tex = (mine & d.kind.eq(CRSP_TEXREADY) & st.is(SlotState::WaitTex)).named("crsp_tex_hit");
    let pipe = (mine & d.kind.eq(CRSP_PIPE) & st.is(SlotState::WaitPipe)).named("crsp_pipe_hit");
    let waits = st.is(SlotState::WaitFetch) | st.is(SlotState::WaitTex);
    let cancel = (mine & d.kind.eq(CRSP_CANCEL) & waits).named("crsp_cancel_hit");
    let fetch_answer = (take & d.kind.ne(CRSP_PIPE)).named("crsp_fetch_answer");
    let (run, fetch) = (m.enum_const(SlotState::Run), m.enum_const(SlotState::Fetch));

    let old = s.chunk.at(d.slot);
    s.chunk.set_at(d.slot, chunk, d.data);
    s.carry.set_at(d.slot, chunk, old.bits(255, 224));
    s.st.set_at(d.slot, chunk, run);
    // TEX_READ answered, or a pipeline result pushed: the slot moves past its instruction.
    let moves_on = tex | pipe;
    let (next_pc, next_fetch) = advance(s.pc.at(d.slot), s.straddle.at(d.slot), s.wlen.at(d.slot));
    s.st.set_at(d.slot, moves_on, next_fetch.mux(fetch, run));
    s.pc.set_at(d.slot, moves_on, next_pc);
    s.straddle.set_at(d.slot, moves_on, m.lit(0, 1));

    // Write-back of a pipeline result: word i at sp + i (i < n), then sp += n.
    let sp = s.sp.at(d.slot);
    let n = s.npush.at(d.slot);
    s.sp.set_at(d.slot, pipe, sp + n.resize(p.sp_w));
    let writes = StackWrite {
        slot: d.slot,
        base: sp,
        words: (0..4u64)
            .map(|i| WordWrite {
                enable: pipe & n.gt(i),
                data: d.data.slice(32 * i as u32, 32),
            })
            .collect(),
    };
    let to = |i: u32, x: Sig| {
        if p.slots == 1 {
            x
        } else {
            x & d.slot.eq(i as u64)
        }
    };
    let answered = Answered {
        answered: (0..p.slots).map(|i| to(i, chunk | tex)).collect(),
        cancelled: (0..p.slots).map(|i| to(i, cancel)).collect(),
        released: (0..p.slots)
            .map(|i| {
                [
                    to(i, fetch_answer & !d.epoch),
                    to(i, fetch_answer & d.epoch),
                ]
            })
            .collect(),
    };
    (writes, answered)
}

/// Width of a slot's wait counter for `miss_thresh`.
pub(super) fn wait_width(miss_thresh: u32) -> u32 {
    clog2(miss_thresh as u64 + 1)
}

/// Counts the cycles each slot waits on a fetch and parks it after `miss_thresh` cycles (never
/// when 0), when the scheduler asked (`stop`) or cancelled the fetch, unless its fetch is
/// answered this cycle. Returns, per slot, whether it leaves owing its fetch's answer (parked
/// while the request is outstanding and not cancelled).
#[name_lets]
pub(super) fn park(m: &mut Module, p: &Params, s: &mut Slots, a: &Answered) -> Vec<Sig> {
    let parked = m.lit(Reason::Parked.code() as u64, 3);
    let out = m.enum_const(SlotState::Out);
    let mut owes = Vec::new();
    for (i, (answer, cancel)) in a.answered.iter().zip(&a.cancelled).enumerate() {
        let st = s.st.q(i);
        let waiting = st.is(SlotState::WaitFetch) | st.is(SlotState::WaitTex);
        let wait = s.wait.q(i);
        let timeout = if p.miss_thresh == 0 {
            m.lit(0, 1)
        } else {
            wait.eq(p.miss_thresh as u64 - 1)
        };
        let now = (waiting & !*answer & (s.stop.q(i) | timeout | *cancel))
            .named(&format!("slot{i}_park"));
        owes.push(now & !*cancel);
        s.st.set(i, now, out);
        let unwind = now & !s.skip.q(i).is(SkipMode::Off);
        let restored = (s.sp.q(i).zext(IW) + s.restore.q(i).zext(IW)).resize(p.sp_w);
        let origin = s.origin.q(i);
        s.pc.set(i, unwind, origin);
        s.sp.set(i, unwind, restored);
        s.reason.set(i, now, parked);
        let one = m.lit(1, 1);
        s.wait
            .set(i, one, waiting.mux(wait + 1, m.lit(0, wait.width())));
    }
    owes
}
