//! The core's request register: one `CoreReq` held until the scheduler takes it. Only the
//! execution unit loads it (IFETCH, TEXREAD, pipeline requests), and only while it is free; the
//! argument words are filled over the pop cycles before the request is issued.

use super::exec::Instr;
use super::fetch::InstrClass;
use super::issue::Issue;
use super::operands::Phase;
use super::stack::IW;
use crate::pbru::ports::{CoreReq, PbruCfg, CREQ_IFETCH, CREQ_PIPE, CREQ_TEXREAD};
use rendergen_hdl::{cat_lsb_first, name_lets, Module, Reg, Sig, Stream};
use rendergen_isa::MAX_PIPE_ARGS;

/// What the execution unit writes into the request register this cycle.
pub(super) struct ReqLoad {
    /// Issue the request (valid from the next cycle); loads every field but `args`.
    pub issue: Sig,
    /// `CREQ_*`.
    pub kind: Sig,
    /// The requesting slot.
    pub slot: Sig,
    /// Its ray.
    pub ray_id: Sig,
    /// The slot's epoch.
    pub epoch: Sig,
    /// Opcode of a pipeline request.
    pub op: Sig,
    /// Immediate of a pipeline request (8 bits).
    pub imm: Sig,
    /// Chunk or block address.
    pub addr: Sig,
    /// Per argument word: (load it, value).
    pub args: Vec<(Sig, Sig)>,
}

/// What the execute stage's requests read.
pub(super) struct RequestIn {
    /// The held instruction.
    pub x: Instr,
    /// Its slot's ray.
    pub ray_id: Sig,
    /// Its slot's epoch.
    pub epoch: Sig,
    /// The instruction runs (Execute state, no fault).
    pub runs: Sig,
    /// The request register is full.
    pub creq_busy: Sig,
    /// The execute stage's phase.
    pub phase: Phase,
    /// The four words read this cycle (a pipeline op's arguments `4·step …`, TEX_READ's address
    /// in the second).
    pub words: [Sig; 4],
}

/// The execute stage's requests this cycle.
pub(super) struct Sent {
    /// A TEX_READ sends its request (and ends).
    pub tex: Sig,
    /// A pipeline op pops four argument words into the register.
    pub pipe_cycle: Sig,
    /// … and they are its last: it sends its request (and ends).
    pub pipe_last: Sig,
}

/// Forms the request register's load: the decode stage's IFETCH (`iss`), or the held
/// instruction's TEX_READ (the word two below the top as `addr`) or pipeline request (its
/// `pop_count` arguments, `a[0]` deepest, four per cycle from step 0; words past the count are
/// zero).
///
/// * **Timing:** a TEX_READ, and the first group of a pipeline op, wait while the register is
///   full; later groups find it free (the decode stage sends no IFETCH meanwhile). The request
///   is issued with the last group. Combinational from the instruction register, the step and
///   the read port to the register's inputs.
/// * **Cost:** no state; the argument steering (`MAX_PIPE_ARGS` 32-bit 2:1 muxes) and the
///   field muxes.
#[name_lets]
pub(super) fn request_load(m: &mut Module, iss: &Issue, i: RequestIn) -> (ReqLoad, Sent) {
    let (x, step) = (&i.x, i.phase.step);
    let tex = (i.runs & x.class.is(InstrClass::TexRead) & !i.creq_busy).named("tex");
    let first_ready = step.ne(0) | !i.creq_busy;
    let pipe_cycle = (i.runs & x.class.is(InstrClass::Pipe) & first_ready).named("pipe_cycle");
    let group_end = (step.zext(IW) << 2) + 4;
    let pipe_last = (pipe_cycle & group_end.ge(x.pop_count.zext(IW))).named("pipe_last");
    let args: Vec<_> = (0..MAX_PIPE_ARGS)
        .map(|a| {
            let mine = step.eq((a / 4) as u64);
            let en = pipe_cycle & (mine | (step.eq(0) & m.lit((a >= 4) as u64, 1)));
            let live = mine & m.lit(a as u64, 8).lt(x.pop_count);
            (en, live.mux(i.words[(a % 4) as usize], m.lit(0, 32)))
        })
        .collect();
    let kind = |m: &mut Module, k: u64| m.lit(k, 2);
    let ifetch = iss.ifetch;
    let load = ReqLoad {
        issue: ifetch | tex | pipe_last,
        kind: ifetch.mux(
            kind(m, CREQ_IFETCH),
            tex.mux(kind(m, CREQ_TEXREAD), kind(m, CREQ_PIPE)),
        ),
        slot: ifetch.mux(iss.slot, x.slot),
        ray_id: ifetch.mux(iss.ray_id, i.ray_id),
        epoch: ifetch.mux(iss.epoch, i.epoch),
        op: x.op,
        imm: x.imm8(),
        addr: ifetch.mux(iss.fetch_addr, i.words[1]),
        args,
    };
    let sent = Sent {
        tex,
        pipe_cycle,
        pipe_last,
    };
    (load, sent)
}

/// The request register.
pub(super) struct ReqReg {
    valid: Reg,
    kind: Reg,
    slot: Reg,
    epoch: Reg,
    ray_id: Reg,
    op: Reg,
    imm: Reg,
    addr: Reg,
    args: Vec<Reg>,
}

impl ReqReg {
    /// Declares the register.
    #[name_lets]
    pub fn new(m: &mut Module, cfg: &PbruCfg) -> ReqReg {
        let s = cfg.core_req_shape();
        let mut r = |name: &str, w: u32| m.reg(&format!("creq_{name}"), w);
        ReqReg {
            kind: r("kind", s.kind),
            slot: r("slot", s.slot),
            epoch: r("epoch", s.epoch),
            ray_id: r("ray_id", s.ray_id),
            op: r("op", s.op),
            imm: r("imm", s.imm),
            addr: r("addr", s.addr),
            args: (0..MAX_PIPE_ARGS)
                .map(|i| r(&format!("arg{i}"), 32))
                .collect(),
            valid: m.reg("creq_valid", 1).reset(0),
        }
    }

    /// A request is held (the register may not be loaded).
    pub fn busy(&self) -> Sig {
        self.valid.q()
    }

    /// Drives the register from `load` and returns the `creq` stream.
    #[name_lets]
    pub fn finish(self, m: &mut Module, load: ReqLoad) -> Stream<CoreReq> {
        let data = CoreReq {
            kind: self.kind.q(),
            slot: self.slot.q(),
            epoch: self.epoch.q(),
            ray_id: self.ray_id.q(),
            op: self.op.q(),
            imm: self.imm.q(),
            args: cat_lsb_first(&self.args.iter().map(|r| r.q()).collect::<Vec<_>>()),
            addr: self.addr.q(),
        };
        let (out, ready) = Stream::offer(m, "creq", self.valid.q(), data);
        let taken = self.valid.q() & ready;
        self.valid.next(load.issue | (self.valid.q() & !taken));
        for (r, v) in [
            (self.kind, load.kind),
            (self.slot, load.slot),
            (self.epoch, load.epoch),
            (self.ray_id, load.ray_id),
            (self.op, load.op),
            (self.imm, load.imm),
            (self.addr, load.addr),
        ] {
            r.next_when(load.issue, v);
        }
        for (r, (en, v)) in self.args.iter().zip(load.args) {
            r.next_when(en, v);
        }
        out
    }
}
