//! The core's request register: one `CoreReq` held until the scheduler takes it. Only the
//! execution unit loads it (IFETCH, TEXREAD, pipeline requests), and only while it is free; the
//! argument words are filled over the pop cycles before the request is issued.

use crate::pbru::ports::{CoreReq, PbruCfg};
use rendergen_hdl::{cat_lsb_first, Module, Reg, Sig, Stream};
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
