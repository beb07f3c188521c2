//! The execute stage: it holds one decoded instruction and runs it in named units, each in its
//! own block (`exec_<unit>_…` in the Verilog and the VCD):
//! * `check` ([`bounds_check`]): BadControl, underflow and overflow, in the first cycle;
//! * `read` ([`operand_read`]): four stack words per cycle from a base set by the instruction;
//! * `local` ([`local_op`]): the local instructions, one cycle;
//! * `randsel` ([`randsel`]): a sum pass and a scan pass over the weights, one word per cycle;
//! * `request` ([`request_load`]): TEX_READ and pipeline requests (arguments popped four words
//!   per cycle) and the decode stage's IFETCH, into the request register;
//! * [`write_back`]: the slot's state, pc, sp and skip fields when the instruction ends;
//! * [`sequence`]: the stage's state machine ([`ExecState`]) and step counter.

use super::checks::bounds_check;
use super::fetch::InstrClass;
use super::issue::{issue, Hold, Issue};
use super::local::local_op;
use super::operands::{operand_read, Phase};
use super::randsel::{randsel, RandselIn};
use super::request::{request_load, ReqLoad, RequestIn};
use super::slots::Slots;
use super::stack::StackRam;
use super::writeback::{write_back, Outcome};
use super::Params;
use rendergen_hdl::{name_lets, priority_select, HwEnum, Module, Reg, Sig};
use rendergen_isa::Opcode;

/// States of the execute stage.
#[derive(HwEnum, Clone, Copy, Debug, PartialEq)]
pub(super) enum ExecState {
    /// No instruction held: the stage takes the next decoded one.
    Empty,
    /// Running the held instruction (one cycle, or ⌈pops/4⌉ for a pipeline op).
    Execute,
    /// RANDSEL: summing the weights, one per cycle.
    Sum,
    /// RANDSEL: scanning the prefix sums for the chosen case, one weight per cycle.
    Scan,
}

/// The instruction held by the execute stage.
#[derive(Clone, Copy)]
pub(super) struct Instr {
    /// Its slot.
    pub slot: Sig,
    /// [`InstrClass`].
    pub class: Sig,
    /// Opcode byte.
    pub op: Sig,
    /// Immediate (32 bits).
    pub imm: Sig,
    /// Length in bytes (3 bits).
    pub len: Sig,
    /// Words popped (4 bits; 0 for RANDSEL).
    pub pops: Sig,
    /// Words pushed (3 bits).
    pub pushes: Sig,
    /// Words popped by a pipeline op or read by RANDSEL (8 bits): `pops`, or the immediate.
    pub pop_count: Sig,
}

impl Instr {
    /// The opcode is `o`.
    #[track_caller]
    pub fn is(&self, o: Opcode) -> Sig {
        self.op.eq(o as u8 as u64)
    }

    /// The low byte of the immediate (RANDSEL's count, LOAD/PICK/STORE's index, a pipeline
    /// op's immediate).
    pub fn imm8(&self) -> Sig {
        self.imm.bits(7, 0)
    }
}

/// The instruction register: declared before the decode stage (which reads its slot and
/// class), loaded when the decode stage hands over an instruction.
struct InstrReg {
    regs: [Reg; 7],
    instr: Instr,
}

impl InstrReg {
    /// Declares the registers `slot`, `class`, `op`, `imm`, `len`, `pops`, `pushes`.
    #[name_lets]
    fn new(m: &mut Module, p: &Params) -> InstrReg {
        let regs = [
            ("slot", p.slot_w),
            ("class", InstrClass::width()),
            ("op", 8),
            ("imm", 32),
            ("len", 3),
            ("pops", 4),
            ("pushes", 3),
        ]
        .map(|(name, w)| m.reg(name, w));
        let [slot, class, op, imm, len, pops, pushes] = regs.map(|r| r.q());
        let is_pipe = class.is(InstrClass::Pipe);
        let instr = Instr {
            slot,
            class,
            op,
            imm,
            len,
            pops,
            pushes,
            pop_count: is_pipe.mux(pops.zext(8), imm.bits(7, 0)).named("pop_count"),
        };
        InstrReg { regs, instr }
    }

    /// Loads the decode stage's instruction when it starts one.
    #[name_lets]
    fn load(&self, iss: &Issue) {
        let d = &iss.dec;
        let next = [iss.slot, d.class, d.op, d.imm, d.len, d.pops, d.pushes];
        for (r, v) in self.regs.iter().zip(next) {
            r.next_when(iss.start, v);
        }
    }
}

/// Builds the execute stage and, inside it, the decode stage; returns what it loads into the
/// request register.
///
/// * **Timing:** decode overlaps execute: it runs in a cycle where the execute stage is empty
///   or finishes its instruction, on another slot than the executing one (whose state changes
///   at the edge), and sends no IFETCH while a TEX_READ or pipeline op may load the request
///   register. An instruction stays 1 cycle (local, control, TEX_READ), ⌈pops/4⌉ cycles
///   (pipeline op, more while the request register is full) or 1 + n + (k + 1) cycles (RANDSEL
///   n choosing case k) in the stage.
/// * **Cost:** the instruction register (52 bits and the slot), an 8-bit step counter, a 2-bit state,
///   and the units' own (RANDSEL 112 flops, a 32×40 multiplier; the ALU's 32×32 multiplier).
#[name_lets]
pub(super) fn execute(
    m: &mut Module,
    p: &Params,
    s: &mut Slots,
    ram: StackRam,
    creq_busy: Sig,
) -> ReqLoad {
    let (state, held, step, finishing) = m.block("exec", |m| {
        let state = m.enum_reg("state", ExecState::Empty);
        let held = InstrReg::new(m, p);
        (
            state,
            held,
            m.reg("step", 8).reset(0),
            m.wire("finishing", 1),
        )
    });
    let x = held.instr;
    let executing = !state.q().is(ExecState::Empty);
    let (is_pipe, is_tex) = (
        x.class.is(InstrClass::Pipe),
        x.class.is(InstrClass::TexRead),
    );
    let hold = Hold {
        busy: executing,
        slot: x.slot,
        request: executing & (is_pipe | is_tex),
    };
    let active = !executing | finishing.sig();
    let iss = m.block("decode", |m| issue(m, p, s, creq_busy, active, hold));
    held.load(&iss);

    m.block("exec", |m| {
        let phase = Phase {
            execute: state.q().is(ExecState::Execute),
            sum: state.q().is(ExecState::Sum),
            scan: state.q().is(ExecState::Scan),
            step: step.q(),
        };
        let sp = s.sp.at(x.slot).named("sp");
        let first = phase.execute & phase.step.eq(0);
        let fault = m.block("check", |m| bounds_check(m, p, &x, sp, first));
        let runs = phase.execute & !fault.fault;
        let words = m.block("read", |_| operand_read(ram, &x, &phase, sp));
        let local = m.block("local", |_| local_op(p, ram, &x, sp, words, runs));
        let randsel_go = (runs & x.is(Opcode::RandSel)).named("randsel_go");
        let rs = m.block("randsel", |m| {
            let prng = s.prng.at(x.slot);
            let i = RandselIn {
                start: randsel_go,
                phase,
                count: x.pop_count,
                weight: words[0],
                prng,
            };
            randsel(m, i)
        });
        let ray = (s.ray_id.at(x.slot), s.epoch.at(x.slot));
        let (load, sent) = m.block("request", |m| {
            let i = RequestIn {
                x,
                ray_id: ray.0,
                epoch: ray.1,
                runs,
                creq_busy,
                phase,
                words,
            };
            request_load(m, &iss, i)
        });
        let outcome = Outcome {
            fault,
            raystop: phase.execute & x.is(Opcode::RayStop),
            local: local.done,
            local_sp: local.next_sp,
            endcase: runs & x.is(Opcode::EndCase),
            randsel_go,
            drawn: rs.drawn,
            found: rs.found,
            tex_go: sent.tex,
            pipe_last: sent.pipe_last,
        };
        let done = write_back(m, p, s, &x, &phase, sp, &outcome);
        let events = Events {
            start: iss.start,
            randsel_go,
            sum_done: rs.sum_done,
            done,
            found: rs.found,
            pipe_last: sent.pipe_last,
            pipe_cycle: sent.pipe_cycle,
        };
        finishing.drive(sequence(m, state, step, &phase, &events));
        load
    })
}

/// What moves the execute stage's state machine.
struct Events {
    /// The decode stage hands over an instruction.
    start: Sig,
    /// A RANDSEL passed its checks.
    randsel_go: Sig,
    /// The sum pass reads its last weight.
    sum_done: Sig,
    /// The instruction ends (but a RANDSEL's scan).
    done: Sig,
    /// The RANDSEL scan found the chosen case.
    found: Sig,
    /// A pipeline op pops its last words.
    pipe_last: Sig,
    /// A pipeline op pops four words.
    pipe_cycle: Sig,
}

/// The execute stage's state machine and step counter (the word group of a pipeline op, the
/// weight of a RANDSEL pass); returns `finishing`, high in the last cycle of an instruction.
///
/// * **Timing:** Empty → Execute at a start; Execute → Sum at a RANDSEL, Sum → Scan after its
///   last weight, → Empty when the instruction ends (the same edge may start the next one).
/// * **Cost:** none beyond the 2-bit state and the 8-bit step declared by [`execute`].
#[name_lets]
fn sequence(m: &mut Module, state: Reg, step: Reg, phase: &Phase, ev: &Events) -> Sig {
    let ends = (ev.done | ev.found).named("ends");
    let next = priority_select(
        &[
            (ev.start, m.enum_const(ExecState::Execute)),
            (ev.randsel_go, m.enum_const(ExecState::Sum)),
            (ev.sum_done, m.enum_const(ExecState::Scan)),
            (ends, m.enum_const(ExecState::Empty)),
        ],
        state.q(),
    );
    state.next(next);
    let zero = m.lit(0, 8);
    let step_next = priority_select(
        &[
            (ev.start | ev.randsel_go | ev.pipe_last | ev.found, zero),
            (ev.sum_done, zero),
            (ev.pipe_cycle | phase.sum | phase.scan, step.q() + 1),
        ],
        step.q(),
    );
    step.next(step_next);
    ends
}
