//! The processing core 430 (`pbru.md` §3, §9.2 `pbru_core`): a bytecode stack machine holding
//! several rays, one per slot, that runs local instructions itself and sends everything else
//! to the core scheduler.
//!
//! Files: `slots` per-slot state, `stack` the stack RAM, `fetch` byte window and decode,
//! `alu` Q16.16 operations, `control` RANDSEL/CASE/ENDCASE skipping and the PRNG, `issue` the
//! decode stage, `exec` the execute stage and its units (`checks` bounds checks, `operands`
//! the operand read, `local` local instructions, `randsel` RANDSEL's choice, `writeback` the
//! slot update), `request` the request register and its load, `response` answers and parking,
//! `intake` and `retire` rays in and out.
//!
//! Deviation from the sketch in `pbru.md` §9.2: the core takes no `core_index` (the scheduler
//! adds the core to the tag) and no RNG seed ports (the PRNG belongs to the ray, ISA.md). A park
//! in the middle of a RANDSEL/ENDCASE skip returns the ray at that RANDSEL (weights pushed
//! back) or ENDCASE, since the skip state is not part of the ray descriptor.

mod alu;
mod checks;
mod control;
mod exec;
mod fetch;
mod intake;
mod issue;
mod local;
mod operands;
mod randsel;
mod request;
mod response;
mod retire;
mod slots;
mod stack;
mod writeback;

use super::ports::{FromCore, PbruCfg, ToCore};
use rendergen_hdl::{cat_lsb_first, name_lets, Design, ElabErrors, Module, Reg, Sig};

/// Sizes derived from [`PbruCfg`] that every part of the core uses.
pub(crate) struct Params {
    slots: u32,
    depth: u32,
    slot_w: u32,
    sp_w: u32,
    miss_thresh: u32,
}

/// One processing core with `cfg.slots` ray slots (`pbru.md` §3; contract `crate::pbru::ports`).
///
/// * **Protocol:** `assign`, `crsp`, `creq` and `done` keep the stream rules; `creq` and `done`
///   are irrevocable (registers). `assign` is taken in one cycle: `assign.ready` (= `open`, from
///   registers) is high while a slot is free and the intake buffer is empty or its copy ends
///   this cycle. The handshake initialises the slot and latches the ray's stack; the words are
///   copied into the stack RAM in the background, four per cycle, and the slot runs once its
///   copy is done. A slot has at most one request outstanding; `crsp` is always ready, and a
///   `crsp` whose slot is not waiting for that kind of answer, or whose `ray_id` or `epoch`
///   differs, is dropped (an answer for a ray that parked meanwhile, even if that ray came back
///   to the same slot: the slot's epoch toggles at each intake and every request carries it). A
///   ray that parks while its IFETCH/TEXREAD is outstanding leaves the slot owing that answer
///   (`slot<i>_owed<e>`); the slot takes no ray that would get the owed epoch until the answer
///   (data or `CRSP_CANCEL`) has arrived, and counts as busy meanwhile, so a one-bit epoch
///   always tells the occupants apart. `CRSP_CANCEL` parks a slot waiting on that fetch. A
///   [`StopCmd`](crate::pbru::ports::StopCmd) marks a slot to park if its epoch matches: at once if it waits on a fetch, at
///   its next instruction boundary otherwise; a stop for a slot still copying its stack in is
///   dropped.
/// * **Execution:** a decode stage and an execute stage. Decode picks a runnable slot
///   round-robin, other than the one in the execute stage, in every cycle in which the execute
///   stage is empty or finishes; so with two or more runnable slots one instruction completes
///   per cycle. A slot runs while the chunk holding its next instruction is present: inline
///   with the ray, or fetched (`CREQ_IFETCH` → `CRSP_CHUNK`). An instruction whose immediate
///   continues past the chunk keeps the chunk's last four bytes, fetches the next chunk and
///   decodes across. At the end of a chunk the next one is fetched. Pipeline opcodes pop
///   `pops()` words (`a[0]` deepest) into `args` and wait for `CRSP_PIPE`, whose words are
///   pushed `r[0]` first, all in the cycle the result arrives; TEX_READ sends the word two below
///   the top as `addr` and waits for `CRSP_TEXREADY`. RANDSEL, CASE, ENDCASE, the PRNG, the
///   bounds checks and the fault positions are those of `rtl/isa/ISA.md`.
/// * **Leaving:** RAYSTOP → reason Done at the RAYSTOP; a fault → its error reason at the
///   faulting instruction; a fetch (IFETCH or TEXREAD) pending for `miss_thresh` cycles, or a
///   stop → Parked at the instruction to re-execute (for an instruction straddling two chunks:
///   its first byte). `inst_addr` is the chunk base, `index` the offset in it.
/// * **Timing (no waiting):** a slot alone: 2 cycles per local instruction, CASE, ENDCASE
///   (decode, execute), 1 per skipped instruction; several runnable slots: 1 per instruction
///   (execute stage). RAYSTOP: then the ray leaves after `2 + ⌈sp/4⌉` cycles (start, copy four
///   words per cycle, offer; back-to-back rays overlap the start with the previous offer); a
///   pipeline op: ⌈pops/4⌉ execute cycles (more while the request register is full), then the
///   scheduler's and the pipeline's latency; TEX_READ: 1 execute cycle plus the scheduler's
///   latency; RANDSEL n: 1 + n + (k + 1) execute cycles for chosen case k; a chunk fetch: 1
///   decode cycle plus the scheduler's latency; intake: 1 cycle (handshake), the slot runs
///   after max(1, ⌈sp/4⌉) cycles, the next ray is taken in the cycle the copy ends.
///   Combinational input → output paths: none; `assign.ready`, `open`, `creq`, `done` and
///   `busy` come from registers.
/// * **Parameters** (from [`PbruCfg`]): `slots` 1..=8, `stack_depth` 4..=64, `miss_thresh`
///   (0 = never park on a timeout).
/// * **Cost:** stack RAM `slots × 2^⌈log2 stack_depth⌉ × 32` bits in four banks, each with two
///   combinational read ports and three write ports (see `stack`); per slot ~ 400 flops
///   (256-bit chunk, 32-bit carry, pc, PRNG …); `stack_depth × 32` flops of output buffer and
///   as many of intake buffer; a 320-bit request register; a 32×32 and a 32×40 multiplier.
/// * **Errors:** a ray whose `sp` exceeds `stack_depth` leaves at once with StackOverflow and
///   an empty stack. Elaboration rejects parameters out of range.
#[name_lets]
pub fn pbru_core(m: &mut Module, cfg: &PbruCfg, input: ToCore) -> FromCore {
    let ToCore { assign, crsp, stop } = input;
    let cfg = &cfg.checked(m);
    let p = Params {
        slots: cfg.slots,
        depth: cfg.stack_depth,
        slot_w: cfg.slot_w(),
        sp_w: cfg.sp_w(),
        miss_thresh: cfg.miss_thresh,
    };
    let mut s = slots::Slots::new(m, p.slots, p.sp_w, response::wait_width(p.miss_thresh));
    let ram = stack::StackRam::new(m, p.slots, p.depth);
    let req = request::ReqReg::new(m, cfg);
    let (wb, answered) = response::responses(m, &p, &mut s, crsp);
    // Per slot and epoch: the slot's occupant of that epoch left owing an IFETCH/TEXREAD
    // answer. A slot takes no ray while the epoch its next ray would get is owed.
    let owed: Vec<[Reg; 2]> = (0..p.slots)
        .map(|i| [0, 1].map(|e| m.reg(&format!("slot{i}_owed{e}"), 1).reset(0)))
        .collect();
    let blocked: Vec<Sig> = owed
        .iter()
        .enumerate()
        .map(|(i, o)| s.epoch.q(i).mux(o[0].q(), o[1].q()))
        .collect();
    let (ld, open) = intake::intake(m, &p, &mut s, assign, &blocked);
    // Write ports: the write-back and the intake copy (always another slot), four words each.
    for w in [&wb, &ld] {
        ram.write4(w.slot, w.base, &w.words);
    }
    let stop_mine = stop.valid & s.epoch.at(stop.slot).eq(stop.epoch);
    s.stop.set_at(stop.slot, stop_mine, m.lit(1, 1));
    let owes = response::park(m, &p, &mut s, &answered);
    for (i, o) in owed.iter().enumerate() {
        for (e, r) in o.iter().enumerate() {
            let epoch_is = if e == 1 { s.epoch.q(i) } else { !s.epoch.q(i) };
            r.next((r.q() & !answered.released[i][e]) | (owes[i] & epoch_is));
        }
    }
    let load = exec::execute(m, &p, &mut s, ram, req.busy());
    let creq = req.finish(m, load);
    let done = retire::retire(m, &p, &mut s, ram);
    let busy = cat_lsb_first(
        &(s.st.all().into_iter().zip(&blocked))
            .map(|(x, b)| !x.is(slots::SlotState::Idle) | *b)
            .collect::<Vec<_>>(),
    )
    .named("busy");
    s.finish();
    FromCore {
        busy,
        open,
        creq,
        done,
    }
}

/// Stand-alone core with ports `assign_*`, `crsp_*`, `stop_valid`, `stop_slot`, `stop_epoch`,
/// `busy`, `open`, `creq_*`, `done_*` (for tests).
///
/// ```
/// use rendergen_rtl::pbru::{core::pbru_core_top, ports::PbruCfg};
/// let design = pbru_core_top(&PbruCfg::default()).unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "done_valid"));
/// ```
#[name_lets]
pub fn pbru_core_top(cfg: &PbruCfg) -> Result<Design, ElabErrors> {
    let params = format!(
        "slots={} stack_depth={} miss_thresh={}",
        cfg.slots, cfg.stack_depth, cfg.miss_thresh
    );
    Design::build_with_params("pbru_core", &params, |m| {
        if !cfg.check(m) {
            return;
        }
        let input = m.io_input::<ToCore>(&cfg.to_core_shape());
        let out = pbru_core(m, cfg, input);
        m.io_output(out);
    })
}
