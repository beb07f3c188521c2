//! The decode stage of the execution unit: picks a runnable slot (round-robin), then in the same
//! cycle parks it (a pending stop), sends its IFETCH, notices an instruction that continues in
//! the next chunk, passes over a skipped instruction, or hands the decoded instruction to the
//! execute stage.

use super::control::{skip_step, SkipMode};
use super::fetch::{advance, decode, Decoded};
use super::slots::{SlotState, Slots};
use super::stack::IW;
use super::Params;
use rendergen_hdl::{cat, cat_lsb_first, lowest_index, name_lets, round_robin_pick, Module, Sig};
use rendergen_isa::{RayError, Reason};

/// What the decode stage hands on.
pub(super) struct Issue {
    /// The decoded instruction goes to the execute stage.
    pub start: Sig,
    /// The picked slot.
    pub slot: Sig,
    /// Its instruction.
    pub dec: Decoded,
    /// Send an IFETCH for the picked slot.
    pub ifetch: Sig,
    /// Its chunk address.
    pub fetch_addr: Sig,
    /// The picked slot's ray.
    pub ray_id: Sig,
    /// The picked slot's epoch.
    pub epoch: Sig,
}

/// What the execute stage holds while the decode stage picks the next instruction.
pub(super) struct Hold {
    /// An instruction is in the execute stage.
    pub busy: Sig,
    /// Its slot (not picked while `busy`).
    pub slot: Sig,
    /// It may load the request register this cycle (no IFETCH is sent then).
    pub request: Sig,
}

/// Builds the decode stage; `active` is 1 when the execute stage takes a new instruction at the
/// next edge. Called inside the block `decode` (`decode_go`, `decode_slot`, `decode_start`).
///
/// * **Timing:** the picked slot's decode and skip step are combinational; its fields change,
///   and the instruction enters the execute stage, at the edge.
/// * **Cost:** the round-robin pointer ([`pick`]), a chunk-wide byte window and the opcode
///   table ([`decode`]).
#[name_lets]
pub(super) fn issue(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    creq_busy: Sig,
    active: Sig,
    hold: Hold,
) -> Issue {
    let (go, slot) = pick(m, p, s, creq_busy, active, hold);
    let pc = s.pc.at(slot);
    let straddle = s.straddle.at(slot);
    let stopping = s.stop.at(slot);
    let st_p = s.st.at(slot);
    let dec = decode(m, s.chunk.at(slot), s.carry.at(slot), straddle, pc);
    let skip = skip_step(
        m,
        s.skip.at(slot),
        s.in_pair.at(slot),
        s.pairs.at(slot),
        dec.op,
    );

    let park = (go & stopping).named("park");
    let ifetch = (go & !stopping & st_p.is(SlotState::Fetch)).named("ifetch");
    let run = go & !stopping & st_p.is(SlotState::Run);
    let unknown = run & !dec.known;
    let straddles = run & dec.known & dec.need_next;
    let whole = run & dec.known & !dec.need_next;
    let fault = whole & skip.fault;
    let passed = (whole & skip.passed).named("passed");
    let start = (whole & !skip.fault & !skip.passed).named("start");
    let (next_pc, next_fetch) = advance(pc, straddle, dec.len);

    let out = m.enum_const(SlotState::Out);
    let wfetch = m.enum_const(SlotState::WaitFetch);
    let (fetch, run_st) = (m.enum_const(SlotState::Fetch), m.enum_const(SlotState::Run));
    s.st.set_at(slot, park | unknown | fault, out);
    s.st.set_at(slot, ifetch, wfetch);
    s.st.set_at(slot, straddles, fetch);
    s.st.set_at(slot, passed, next_fetch.mux(fetch, run_st));
    let code = |m: &mut Module, r: Reason| m.lit(r.code() as u64, 3);
    let parked = code(m, Reason::Parked);
    let unknown_code = code(m, Reason::Error(RayError::UnknownOpcode));
    let bad_code = code(m, Reason::Error(RayError::BadControl));
    s.reason.set_at(slot, park, parked);
    s.reason.set_at(slot, unknown, unknown_code);
    s.reason.set_at(slot, fault, bad_code);
    s.pc.set_at(slot, passed, next_pc);
    // A park in the middle of a skip goes back to the RANDSEL/ENDCASE that started it.
    let unwind = park & !s.skip.at(slot).is(SkipMode::Off);
    let sp = s.sp.at(slot);
    let restored = (sp.zext(IW) + s.restore.at(slot).zext(IW)).resize(p.sp_w);
    let origin = s.origin.at(slot);
    s.pc.set_at(slot, unwind, origin);
    s.sp.set_at(slot, unwind, restored);
    let (one, zero) = (m.lit(1, 1), m.lit(0, 1));
    s.straddle.set_at(slot, straddles, one);
    s.straddle.set_at(slot, passed, zero);
    let skip_update = whole & skip.update & !skip.fault;
    s.skip.set_at(slot, skip_update, skip.skip);
    s.in_pair.set_at(slot, skip_update, skip.in_pair);
    s.pairs.set_at(slot, skip_update, skip.pairs);

    let chunk_no = pc.bits(31, 5) + straddle.zext(27);
    Issue {
        start,
        slot,
        dec,
        ifetch,
        fetch_addr: cat(&[chunk_no, m.lit(0, 5)]),
        ray_id: s.ray_id.at(slot),
        epoch: s.epoch.at(slot),
    }
}

/// Picks the slot to decode, round-robin among the runnable ones: Run, or Fetch while the
/// request register is free (or to park it), and not the slot in the execute stage. Returns
/// `go` (a slot is picked while the execute stage can take an instruction) and the slot.
///
/// * **Timing:** combinational from the slot states; the pointer moves at `go`.
/// * **Cost:** a `slots`-bit round-robin pointer (none for one slot).
#[name_lets]
fn pick(
    m: &mut Module,
    p: &Params,
    s: &Slots,
    creq_busy: Sig,
    active: Sig,
    hold: Hold,
) -> (Sig, Sig) {
    let n = p.slots as usize;
    let st = s.st.all();
    let stop = s.stop.all();
    let req_free = !creq_busy & !hold.request;
    let runnable: Vec<Sig> = (0..n)
        .map(|i| {
            let executing = if n == 1 {
                hold.busy
            } else {
                hold.busy & hold.slot.eq(i as u64)
            };
            let fetch = st[i].is(SlotState::Fetch) & (req_free | stop[i]);
            !executing & (st[i].is(SlotState::Run) | fetch)
        })
        .collect();
    let want = cat_lsb_first(&runnable).named("runnable");
    let go = (active & want.any()).named("go");
    let slot = if n == 1 {
        m.lit(0, p.slot_w)
    } else {
        let last = m.reg("rr_last", p.slots).reset(1 << (n - 1));
        let pick = round_robin_pick(want, last.q());
        last.next_when(go, pick);
        lowest_index(pick)
    }
    .named("slot");
    (go, slot)
}
