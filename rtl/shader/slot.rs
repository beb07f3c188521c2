//! One warp slot (a child module `warp_<i>` of the core): the warp's registers (running,
//! fetch pc and instruction buffer, landing checks, scoreboard, port wait, counters), the
//! checks that decide whether its current instruction may issue or faults, and its mask stack
//! (child `mask_stack`).
//!
//! * **Timing:** combinational from the fetch return (`fetch`), the issue grant and the
//!   core's shared state (`wb_free`, `seq_free`) to `can_issue`/`fetch_ok`; everything else
//!   from registers.
//! * **Cost (per slot):** the instruction buffer (≈ 190 flip-flops), pc, counters, the
//!   scoreboard (`regs` rounded up to a power of two), the mask stack
//!   `16 × (2 + 2·lanes) + lanes + 5` flip-flops.

use super::control::{expect, resolve, Frame};
use super::decode::Decoded;
use super::ShaderCfg;
use rendergen_hdl::{
    index_select, name_lets, pack, priority_select, select, unpack, Bundle, Io, Module, Sig,
};
use rendergen_shader_isa::{Opcode, WarpError, MAX_DEPTH};

/// The word arriving from the instruction memory for this slot (`fill`) and its decode.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetched<T = Sig> {
    /// The word arrives for this slot this cycle.
    pub fill: T,
    /// The instruction word (64 bits).
    pub word: T,
    /// Its pc (32 bits).
    pub pc: T,
    /// The pc is past the program's end.
    pub oob: T,
    /// Its decode.
    pub dec: Decoded<T>,
}

/// What the core tells one warp slot.
#[derive(Io)]
pub struct SlotIn {
    /// The fetch return.
    pub fetch: Fetched,
    /// A launch takes this slot this cycle.
    pub launch: Sig,
    /// The launch's first pc (32 bits).
    pub launch_pc: Sig,
    /// The launch's helper lanes.
    pub launch_helpers: Sig,
    /// The launch's warp id (32 bits).
    pub launch_warp_id: Sig,
    /// The slot's current instruction issues this cycle.
    pub issue: Sig,
    /// The slot is fetched this cycle.
    pub fetch_go: Sig,
    /// Per unit code (8 bits), its write-back cycle is free for an issue now.
    pub wb_free: Sig,
    /// The port sequencer can take an instruction.
    pub seq_free: Sig,
    /// The slot's control instruction is in the read stage (resolved now).
    pub ctl: Sig,
    /// The slot's port instruction is in the read stage.
    pub port: Sig,
    /// Read stage: opcode (8 bits), pc, immediate (32 bits each).
    pub ex_op: Sig,
    /// Read stage pc.
    pub ex_pc: Sig,
    /// Read stage immediate.
    pub ex_imm: Sig,
    /// Read stage destination (`reg_bits`).
    pub ex_d: Sig,
    /// Read stage active mask.
    pub ex_mask: Sig,
    /// Lanes whose condition register is non-zero.
    pub cond: Sig,
    /// Answers the port instruction in the read stage waits for (one bit per lane or quad).
    pub resp_new: Sig,
    /// The port sequencer is busy with this slot's instruction.
    pub seq_busy: Sig,
    /// A write-back of this slot this cycle clears register `wb_d`'s pending bit.
    pub wb_clear: Sig,
    /// The register written back (`reg_bits`).
    pub wb_d: Sig,
    /// Answers of this slot completed this cycle (bits of `resp_left`).
    pub answered: Sig,
    /// The slot's `done` record is taken this cycle.
    pub done: Sig,
}

/// What one warp slot tells the core.
#[derive(Io)]
pub struct SlotOut {
    /// A warp occupies the slot.
    pub running: Sig,
    /// The current instruction can issue.
    pub can_issue: Sig,
    /// The slot wants its next word fetched.
    pub fetch_ok: Sig,
    /// The warp has ended and nothing of it is outstanding.
    pub finish_ok: Sig,
    /// Current instruction word (64 bits).
    pub word: Sig,
    /// Its pc.
    pub pc: Sig,
    /// Its decode.
    pub dec: Decoded,
    /// Active mask.
    pub mask: Sig,
    /// Helper lanes.
    pub helpers: Sig,
    /// Warp id.
    pub warp_id: Sig,
    /// Fetch pc.
    pub fpc: Sig,
    /// Error code (4 bits).
    pub code: Sig,
    /// Error pc.
    pub err_pc: Sig,
    /// Instructions executed.
    pub executed: Sig,
    /// Destination register of the outstanding port instruction.
    pub port_d: Sig,
    /// Mask of the outstanding port instruction.
    pub port_mask: Sig,
}

/// The warp slot (ports as [`SlotIn`]/[`SlotOut`]; the core instantiates one per warp).
#[name_lets]
pub fn warp_slot(m: &mut Module, cfg: &ShaderCfg, i: SlotIn) -> SlotOut {
    let lanes = cfg.lanes();
    let rw = cfg.reg_bits();
    let tw = i.fetch.dec.touch.width();
    let one = m.lit(1, 1);
    let zero = m.lit(0, 1);
    let all_lanes = m.lit(u64::MAX >> (64 - lanes), lanes);
    let running = m.reg("running", 1).reset(0);
    let ending = m.reg("ending", 1).reset(0);
    let code = m.reg("code", 4).reset(0);
    let err_pc = m.reg("err_pc", 32).reset(0);
    let fpc = m.reg("fpc", 32).reset(0);
    let inflight = m.reg("inflight", 1).reset(0);
    let buf_valid = m.reg("buf_valid", 1).reset(0);
    let buf_word = m.reg("buf_word", 64);
    let buf_pc = m.reg("buf_pc", 32);
    let buf_oob = m.reg("buf_oob", 1);
    let buf_dec = m.reg_bundle("buf", &i.fetch.dec, Some(i.fetch.fill));
    let ctl_wait = m.reg("ctl_wait", 1).reset(0);
    let port_wait = m.reg("port_wait", 1).reset(0);
    let land = m.reg("land", 3).reset(0);
    let land_pc = m.reg("land_pc", 32).reset(0);
    let helpers = m.reg("helpers", lanes).reset(0);
    let warp_id = m.reg("warp_id", 32).reset(0);
    let executed = m.reg("executed", 32).reset(0);
    let pending = m.reg("pending", tw).reset(0);
    let port_d = m.reg("port_d", rw).reset(0);
    let port_mask = m.reg("port_mask", lanes).reset(0);
    let resp_left = m.reg("resp_left", lanes).reset(0);

    // The current instruction: the word arriving from the instruction memory this cycle (it
    // may issue at once), else the buffered one.
    let fill = i.fetch.fill;
    let valid = fill | buf_valid.q();
    let word = fill.mux(i.fetch.word, buf_word.q());
    let pc = fill.mux(i.fetch.pc, buf_pc.q());
    let oob = fill.mux(i.fetch.oob, buf_oob.q());
    let dec: Decoded = unpack(
        &i.fetch.dec.shape(),
        fill.mux(pack(&i.fetch.dec), pack(&buf_dec)),
    );

    // Checks of the current instruction (faults in the interpreter's order).
    let codes: Vec<Sig> = (0..9).map(|v| m.lit(v, 4)).collect();
    let err = |e: WarpError| codes[e.code() as usize];
    let opcode = word.bits(63, 56);
    let live = running.q() & !ending.q() & valid;
    let is_op = |o: Opcode| opcode.eq(o as u64) & dec.fields_ok;
    let matches = select(
        land.q(),
        &[
            one,
            is_op(Opcode::Else) | is_op(Opcode::Endif),
            is_op(Opcode::Endif),
            is_op(Opcode::Endloop),
            is_op(Opcode::Loop),
        ],
        zero,
    );
    let landing = land.q().ne(expect::NONE);
    let land_fail = landing & (oob | !matches);
    let skip = live & land.q().eq(expect::LOOP_SKIP) & !land_fail;
    let wd = executed.q().ge(m.lit(cfg.watchdog, 32));
    let decode_code = priority_select(
        &[
            (!dec.known, err(WarpError::UnknownOpcode)),
            (dec.bad_count, err(WarpError::BadExportCount)),
            (!dec.fields_ok, err(WarpError::ReservedBits)),
            (dec.reg_err, err(WarpError::RegisterOutOfRange)),
        ],
        codes[0],
    );
    let fault_code = priority_select(
        &[
            (
                land_fail,
                oob.mux(err(WarpError::PcOutOfRange), err(WarpError::BadControl)),
            ),
            (wd, err(WarpError::Watchdog)),
            (oob, err(WarpError::PcOutOfRange)),
        ],
        decode_code,
    );
    let fault = live & !skip & fault_code.ne(0);
    let fault_counts = !land_fail & !wd & !oob;
    let fault_pc = land_fail.mux(land_pc.q(), pc);
    let hazard = (dec.touch & pending.q()).any();
    let wb_free: Vec<Sig> = (0..8).map(|u| i.wb_free.bit(u)).collect();
    let can_issue = live
        & !skip
        & fault_code.eq(0)
        & !port_wait.q()
        & !hazard
        & (!dec.is_alu | index_select(dec.unit, &wb_free))
        & (!dec.is_port | i.seq_free);

    // Fetch: the instruction leaves this cycle (or there is none), and no fetch is in flight
    // (or it arrives now).
    let empties = !valid | (i.issue & !dec.is_ctl) | skip;
    let fetch_free = !inflight.q() | fill;
    let fetch_ok = running.q() & !ending.q() & fetch_free & !ctl_wait.q() & empties;
    let finish_ok = running.q() & ending.q() & pending.q().eq(0) & !port_wait.q() & !inflight.q();

    // Control: the mask stack.
    let stack = m.child(
        "mask_stack",
        &(),
        MaskStackIn {
            launch: i.launch,
            ctl: i.ctl,
            op: i.ex_op,
            cond: i.cond,
        },
        mask_stack,
    );

    // Next state.
    let launch = i.launch;
    let ctl = i.ctl;
    helpers.next_when(launch, i.launch_helpers & all_lanes);
    warp_id.next_when(launch, i.launch_warp_id);
    let ctl_end = ctl & (stack.done | stack.error.ne(0));
    running.next(launch | (running.q() & !i.done));
    ending.next(!launch & !i.done & (ending.q() | fault | ctl_end));
    code.next(priority_select(
        &[
            (launch, m.lit(0, 4)),
            (fault, fault_code),
            (ctl, stack.error),
        ],
        code.q(),
    ));
    err_pc.next(priority_select(
        &[(fault, fault_pc), (ctl, i.ex_pc)],
        err_pc.q(),
    ));
    fpc.next(priority_select(
        &[
            (launch, i.launch_pc),
            (ctl & stack.jump, i.ex_imm),
            (i.fetch_go, fpc.q() + 1),
        ],
        fpc.q(),
    ));
    inflight.next(i.fetch_go | (inflight.q() & !fill) & !launch);
    let consumed = i.issue | skip | fault;
    buf_valid.next(!launch & (fill | buf_valid.q()) & !consumed);
    buf_word.next_when(fill, i.fetch.word);
    buf_pc.next_when(fill, i.fetch.pc);
    buf_oob.next_when(fill, i.fetch.oob);
    ctl_wait.next(!launch & ((i.issue & dec.is_ctl) | (ctl_wait.q() & !ctl)));
    let port_done = !i.port & !i.seq_busy & resp_left.q().eq(0);
    port_wait.next(!launch & ((i.issue & dec.is_port) | (port_wait.q() & !port_done)));
    land.next(priority_select(
        &[
            (launch, m.lit(0, 3)),
            (ctl & stack.jump, stack.expect),
            (consumed, m.lit(0, 3)),
        ],
        land.q(),
    ));
    land_pc.next_when(ctl & stack.jump, i.ex_pc);
    let counts = i.issue | (fault & fault_counts);
    executed.next(launch.mux(
        m.lit(0, 32),
        counts.mux(executed.q() + m.lit(1, 32), executed.q()),
    ));
    let set = (i.issue & dec.is_alu).repeat(tw) & m.lit(1, tw).shl(word.bits(55, 48));
    let clear = i.wb_clear.repeat(tw) & m.lit(1, tw).shl(i.wb_d);
    pending.next(launch.mux(m.lit(0, tw), (pending.q() & !clear) | set));
    port_d.next_when(i.port, i.ex_d);
    port_mask.next_when(i.port, i.ex_mask);
    resp_left.next(i.port.mux(i.resp_new, resp_left.q() & !i.answered));
    SlotOut {
        running: running.q(),
        can_issue,
        fetch_ok,
        finish_ok,
        word,
        pc,
        dec,
        mask: stack.mask,
        helpers: helpers.q(),
        warp_id: warp_id.q(),
        fpc: fpc.q(),
        code: code.q(),
        err_pc: err_pc.q(),
        executed: executed.q(),
        port_d: port_d.q(),
        port_mask: port_mask.q(),
    }
}

/// What the mask stack takes.
#[derive(Io)]
pub struct MaskStackIn {
    /// A launch: empty stack, every lane active.
    pub launch: Sig,
    /// Resolve the control instruction in the read stage.
    pub ctl: Sig,
    /// Its opcode (8 bits).
    pub op: Sig,
    /// Lanes whose condition register is non-zero.
    pub cond: Sig,
}

/// What the mask stack gives.
#[derive(Io)]
pub struct MaskStackOut {
    /// The active mask (from a register).
    pub mask: Sig,
    /// The control instruction jumps to its target.
    pub jump: Sig,
    /// What the target must hold (3 bits, [`expect`]).
    pub expect: Sig,
    /// Error code (4 bits).
    pub error: Sig,
    /// `end` at depth 0.
    pub done: Sig,
}

/// A warp's mask stack: [`MAX_DEPTH`] frames of two lane masks in flip-flops, the depth and
/// the active mask; a control instruction is resolved by [`resolve`] in the clock its
/// condition register has been read. Cost: `16 × (2 + 2·lanes) + lanes + 5` flip-flops.
#[name_lets]
pub fn mask_stack(m: &mut Module, _cfg: &(), i: MaskStackIn) -> MaskStackOut {
    let lanes = i.cond.width();
    let all_lanes = m.lit(u64::MAX >> (64 - lanes), lanes);
    let mask = m.reg("mask", lanes).reset(0);
    let depth = m.reg("depth", 5).reset(0);
    let regs: Vec<[rendergen_hdl::Reg; 4]> = (0..MAX_DEPTH)
        .map(|f| {
            [
                m.reg(&format!("frame{f}_is_loop"), 1).reset(0),
                m.reg(&format!("frame{f}_in_else"), 1).reset(0),
                m.reg(&format!("frame{f}_outer"), lanes).reset(0),
                m.reg(&format!("frame{f}_other"), lanes).reset(0),
            ]
        })
        .collect();
    let frames: Vec<Frame> = regs
        .iter()
        .map(|f| Frame {
            is_loop: f[0].q(),
            in_else: f[1].q(),
            outer: f[2].q(),
            other: f[3].q(),
        })
        .collect();
    let r = resolve(m, i.op, mask.q(), i.cond, &frames, depth.q());
    for (f, nf) in regs.iter().zip(&r.frames) {
        f[0].next_when(i.ctl, nf.is_loop);
        f[1].next_when(i.ctl, nf.in_else);
        f[2].next_when(i.ctl, nf.outer);
        f[3].next_when(i.ctl, nf.other);
    }
    depth.next(i.launch.mux(m.lit(0, 5), i.ctl.mux(r.depth, depth.q())));
    mask.next(i.launch.mux(all_lanes, i.ctl.mux(r.mask, mask.q())));
    MaskStackOut {
        mask: mask.q(),
        jump: r.jump,
        expect: r.expect,
        error: r.error,
        done: r.done,
    }
}
