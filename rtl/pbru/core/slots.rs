//! Per-slot state of the core: one register per slot and field. Several parts of the core write
//! a field (the execution unit, the response handler, the intake, the retire engine), but never
//! two parts the same slot in one cycle (each part owns the slots in its states); the writes are
//! collected and turned into one `next_when` per register at the end of elaboration.

use super::control::SkipMode;
use rendergen_hdl::{index_select, name_lets, or_all, priority_select, HwEnum, Module, Reg, Sig};

/// Slot states (`st`, 3 bits).
#[derive(HwEnum, Clone, Copy, Debug, PartialEq)]
pub(super) enum SlotState {
    /// No ray.
    Idle,
    /// The intake is copying the ray's stack into the stack RAM.
    Load,
    /// Runnable: the chunk holding the next instruction is present.
    Run,
    /// Runnable: an IFETCH must be sent (for `pc`'s chunk, or the next one when straddling).
    Fetch,
    /// Waiting for `CRSP_CHUNK`.
    WaitFetch,
    /// Waiting for `CRSP_PIPE` (and then for its words to be pushed).
    WaitPipe,
    /// Waiting for `CRSP_TEXREADY`.
    WaitTex,
    /// Finished; waiting for the retire engine to send it out through `done`.
    Out,
}

/// One field of the per-slot state: a register per slot plus the writes collected so far.
pub(super) struct SlotField {
    regs: Vec<Reg>,
    writes: Vec<Vec<(Sig, Sig)>>,
}

impl SlotField {
    /// Registers `slot<i>_<name>` of `width` bits, reset to `reset` when given.
    #[track_caller]
    #[name_lets]
    pub fn new(m: &mut Module, name: &str, slots: u32, width: u32, reset: Option<u64>) -> Self {
        let regs: Vec<_> = (0..slots)
            .map(|i| {
                let r = m.reg(&format!("slot{i}_{name}"), width);
                match reset {
                    Some(v) => r.reset(v),
                    None => r,
                }
            })
            .collect();
        SlotField {
            regs,
            writes: vec![Vec::new(); slots as usize],
        }
    }

    /// The value of slot `i`.
    pub fn q(&self, i: usize) -> Sig {
        self.regs[i].q()
    }

    /// All slots' values, slot 0 first.
    pub fn all(&self) -> Vec<Sig> {
        self.regs.iter().map(|r| r.q()).collect()
    }

    /// The value of the slot numbered by `slot`.
    #[track_caller]
    pub fn at(&self, slot: Sig) -> Sig {
        if self.regs.len() == 1 {
            return self.regs[0].q();
        }
        index_select(slot, &self.all())
    }

    /// Writes `value` into slot `i` at the edge when `enable`; earlier writes win.
    pub fn set(&mut self, i: usize, enable: Sig, value: Sig) {
        self.writes[i].push((enable, value));
    }

    /// Writes `value` into the slot numbered by `slot` when `enable`.
    #[track_caller]
    #[name_lets]
    pub fn set_at(&mut self, slot: Sig, enable: Sig, value: Sig) {
        for i in 0..self.regs.len() {
            let hit = if self.regs.len() == 1 {
                enable
            } else {
                enable & slot.eq(i as u64)
            };
            self.writes[i].push((hit, value));
        }
    }

    /// Drives every register: the first enabled write, else hold.
    #[track_caller]
    #[name_lets]
    pub fn finish(self) {
        for (r, w) in self.regs.into_iter().zip(self.writes) {
            if w.is_empty() {
                r.next(r.q());
                continue;
            }
            let any = or_all(w.iter().map(|(e, _)| *e));
            r.next_when(any, priority_select(&w, r.q()));
        }
    }
}

/// The per-slot state of [`super::pbru_core`].
pub(super) struct Slots {
    /// Slot state ([`SlotState`]).
    pub st: SlotField,
    /// Byte address of the next instruction (its opcode).
    pub pc: SlotField,
    /// Stack depth in words.
    pub sp: SlotField,
    /// The ray's id.
    pub ray_id: SlotField,
    /// Toggles at each intake: requests carry it, answers and stops for an earlier occupant
    /// (whose epoch differs) are dropped.
    pub epoch: SlotField,
    /// Where the ray returns (0 SM, 1 TTU).
    pub ret_dst: SlotField,
    /// The chunk held: `pc`'s chunk, or the next one when `straddle`.
    pub chunk: SlotField,
    /// Bytes 28..31 of `pc`'s chunk while `straddle` (the instruction's first bytes).
    pub carry: SlotField,
    /// The instruction at `pc` continues in the next chunk, which is the one held (once fetched).
    pub straddle: SlotField,
    /// Skip mode ([`SkipMode`]).
    pub skip: SlotField,
    /// While skipping: inside a CASE … ENDCASE pair that is skipped whole.
    pub in_pair: SlotField,
    /// While seeking: pairs still to skip before the chosen CASE.
    pub pairs: SlotField,
    /// While skipping: the RANDSEL or ENDCASE that started the skip (a park goes back to it).
    pub origin: SlotField,
    /// While skipping after RANDSEL: its weights, to push back on a park.
    pub restore: SlotField,
    /// The ray's xorshift32 PRNG state.
    pub prng: SlotField,
    /// The scheduler asked to park the ray (served at the next instruction boundary).
    pub stop: SlotField,
    /// Reason code sent out with the ray.
    pub reason: SlotField,
    /// Cycles spent waiting on a pending fetch (WFETCH, WTEX).
    pub wait: SlotField,
    /// Words the awaited pipeline result pushes.
    pub npush: SlotField,
    /// Length in bytes of the instruction that waits (TEX_READ, pipeline ops).
    pub wlen: SlotField,
}

impl Slots {
    /// Declares the registers of `slots` slots with a stack-pointer width `sp_w` and a wait
    /// counter of `wait_w` bits.
    #[name_lets]
    pub fn new(m: &mut Module, slots: u32, sp_w: u32, wait_w: u32) -> Slots {
        let f = |m: &mut Module, name: &str, w: u32, reset: Option<u64>| {
            SlotField::new(m, name, slots, w, reset)
        };
        Slots {
            st: f(
                m,
                "state",
                SlotState::width(),
                Some(SlotState::Idle.index() as u64),
            ),
            pc: f(m, "pc", 32, None),
            sp: f(m, "sp", sp_w, Some(0)),
            ray_id: f(m, "ray_id", 16, None),
            epoch: f(m, "epoch", 1, Some(0)),
            ret_dst: f(m, "ret_dst", 1, None),
            chunk: f(m, "chunk", 256, None),
            carry: f(m, "carry", 32, None),
            straddle: f(m, "straddle", 1, Some(0)),
            skip: f(
                m,
                "skip",
                SkipMode::width(),
                Some(SkipMode::Off.index() as u64),
            ),
            in_pair: f(m, "in_pair", 1, Some(0)),
            pairs: f(m, "pairs", 8, Some(0)),
            origin: f(m, "origin", 32, None),
            restore: f(m, "restore", 8, None),
            prng: f(m, "prng", 32, None),
            stop: f(m, "stop", 1, Some(0)),
            reason: f(m, "reason", 3, Some(0)),
            wait: f(m, "wait", wait_w, Some(0)),
            npush: f(m, "npush", 3, None),
            wlen: f(m, "wlen", 3, None),
        }
    }

    /// One bit per slot (slot 0 in bit 0): the slot's state is `s`.
    pub fn in_state(&self, s: SlotState) -> Vec<Sig> {
        self.st.all().into_iter().map(|x| x.is(s)).collect()
    }

    /// Drives every register.
    pub fn finish(self) {
        for f in [
            self.st,
            self.pc,
            self.sp,
            self.ray_id,
            self.epoch,
            self.ret_dst,
            self.chunk,
            self.carry,
            self.straddle,
            self.skip,
            self.in_pair,
            self.pairs,
            self.origin,
            self.restore,
            self.prng,
            self.stop,
            self.reason,
            self.wait,
            self.npush,
            self.wlen,
        ] {
            f.finish();
        }
    }
}
