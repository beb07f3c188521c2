//! Request collection (`pbru.md` §9.2 `req_collect`, §4.8): one pending-request register per
//! (core, slot), filled from the core's `creq` stream. A slot has at most one request
//! outstanding (contract), so an entry never overflows; `creq.ready` is low while the entry of
//! the request's slot is still held.

use crate::pbru::ports::{CoreReq, PbruCfg, CREQ_PIPE};
use rendergen_hdl::{index_select, lut, name_lets, or_all, Module, Sig, Stream};
use rendergen_isa::{Class, Opcode, PipeKind};

/// Entry state: waiting for the memory proxy (IFETCH, TEXREAD, a TEX_DP needing its block).
pub const ST_NEW: u64 = 0;
/// Entry state: an L1 request is outstanding for it.
pub const ST_WAIT: u64 = 1;
/// Entry state: a pipeline request ready to issue.
pub const ST_READY: u64 = 2;

/// One pending request (register outputs).
#[derive(Clone, Copy)]
pub struct Entry {
    /// Core and slot of the entry.
    pub core: u32,
    /// Slot index.
    pub slot: u32,
    /// Held.
    pub valid: Sig,
    /// `ST_*`.
    pub state: Sig,
    /// `CREQ_*`.
    pub kind: Sig,
    /// Pipeline type index ([`PipeKind::index`]; 7 for a byte that is no pipeline opcode).
    pub ptype: Sig,
    /// The request's fields.
    pub op: Sig,
    /// Immediate.
    pub imm: Sig,
    /// Arguments (rewritten for TEX_DP once the block is read).
    pub args: Sig,
    /// Ray id of the requesting slot.
    pub ray_id: Sig,
    /// Epoch of the requesting slot.
    pub epoch: Sig,
    /// Address (IFETCH, TEXREAD).
    pub addr: Sig,
}

impl Entry {
    /// Is a pipeline request of type `t` ready to issue?
    pub fn ready_for(&self, t: PipeKind) -> Sig {
        self.valid & self.state.eq(ST_READY) & self.ptype.eq(t.index() as u64)
    }

    /// Waits for the memory proxy.
    pub fn is_new(&self) -> Sig {
        self.valid & self.state.eq(ST_NEW)
    }
}

/// Updates to the entries, gathered from the proxy, the issue logic and the L1 path, then
/// driven once by [`EntryCtl::finish`].
pub struct EntryCtl {
    free: Vec<Vec<Sig>>,
    to_wait: Vec<Vec<Sig>>,
    to_ready: Vec<Vec<(Sig, Sig)>>,
    wires: Vec<[rendergen_hdl::Wire; 4]>,
}

impl EntryCtl {
    /// Entry `e` is done this cycle (issued, answered, or parked by a miss notice).
    pub fn free(&mut self, e: usize, when: Sig) {
        self.free[e].push(when);
    }

    /// Entry `e` now waits for the L1.
    pub fn to_wait(&mut self, e: usize, when: Sig) {
        self.to_wait[e].push(when);
    }

    /// Entry `e` becomes a ready pipeline request with arguments `args`.
    pub fn to_ready(&mut self, e: usize, when: Sig, args: Sig) {
        self.to_ready[e].push((when, args));
    }

    /// Drives every update wire.
    #[name_lets]
    pub fn finish(self, m: &mut Module) {
        for (e, [free, wait, ready, args]) in self.wires.iter().enumerate() {
            free.drive(or_all(self.free[e].iter().copied()));
            wait.drive(or_all(self.to_wait[e].iter().copied()));
            ready.drive(or_all(self.to_ready[e].iter().map(|p| p.0)));
            let mut a = m.lit(0, args.sig().width());
            for (w, v) in &self.to_ready[e] {
                a = w.mux(*v, a);
            }
            args.drive(a);
        }
    }
}

fn type_table() -> Vec<u64> {
    (0..=255u8)
        .map(|b| match Opcode::from_byte(b).map(Opcode::class) {
            Some(Class::Pipeline { kind, .. }) => kind.index() as u64,
            _ => 7,
        })
        .collect()
}

/// Builds the entries for `creqs` (one stream per core). `dp_rewrite`: TEX_DP requests first
/// need their block (state `ST_NEW`); without it they are ready at once.
#[name_lets]
pub fn collect(
    m: &mut Module,
    cfg: &PbruCfg,
    creqs: Vec<Stream<CoreReq>>,
    dp_rewrite: bool,
) -> (Vec<Entry>, EntryCtl) {
    let shape = cfg.core_req_shape();
    let mut entries = Vec::new();
    let mut ctl = EntryCtl {
        free: Vec::new(),
        to_wait: Vec::new(),
        to_ready: Vec::new(),
        wires: Vec::new(),
    };
    for (c, creq) in creqs.into_iter().enumerate() {
        let (cv, d, ready) = creq.split();
        let ptype = lut(d.op, &type_table(), 3);
        let is_dp = d.kind.eq(CREQ_PIPE) & ptype.eq(PipeKind::AstcDp.index() as u64);
        let needs_mem = d.kind.ne(CREQ_PIPE) | (is_dp & m.lit(dp_rewrite as u64, 1));
        let first_state = needs_mem.mux(m.lit(ST_NEW, 2), m.lit(ST_READY, 2));
        let mut held = Vec::new();
        for s in 0..cfg.slots {
            let n = format!("entry_c{c}_s{s}");
            let w = [
                m.wire(&format!("{n}_free"), 1),
                m.wire(&format!("{n}_to_wait"), 1),
                m.wire(&format!("{n}_to_ready"), 1),
                m.wire(&format!("{n}_new_args"), shape.args),
            ];
            let valid = m.reg(&format!("{n}_valid"), 1).reset(0);
            let capture = cv & !valid.q() & d.slot.eq(s as u64);
            let reg = |m: &mut Module, f: &str, width: u32, v: Sig| {
                let r = m.reg(&format!("{n}_{f}"), width);
                r.next_when(capture, v);
                r.q()
            };
            let kind = reg(m, "kind", 2, d.kind);
            let ptype_q = reg(m, "ptype", 3, ptype);
            let op = reg(m, "op", 8, d.op);
            let imm = reg(m, "imm", 8, d.imm);
            let ray_id = reg(m, "ray_id", shape.ray_id, d.ray_id);
            let epoch = reg(m, "epoch", shape.epoch, d.epoch);
            let addr = reg(m, "addr", shape.addr, d.addr);
            let args = m.reg(&format!("{n}_args"), shape.args);
            args.next_when(capture | w[2].sig(), capture.mux(d.args, w[3].sig()));
            let state = m.reg(&format!("{n}_state"), 2).reset(ST_NEW);
            let st_next = capture.mux(
                first_state,
                w[2].sig().mux(
                    m.lit(ST_READY, 2),
                    w[1].sig().mux(m.lit(ST_WAIT, 2), state.q()),
                ),
            );
            state.next(st_next);
            valid.next(capture | (valid.q() & !w[0].sig()));
            held.push(valid.q());
            entries.push(Entry {
                core: c as u32,
                slot: s,
                valid: valid.q(),
                state: state.q(),
                kind,
                ptype: ptype_q,
                op,
                imm,
                args: args.q(),
                ray_id,
                epoch,
                addr,
            });
            ctl.free.push(Vec::new());
            ctl.to_wait.push(Vec::new());
            ctl.to_ready.push(Vec::new());
            ctl.wires.push(w);
        }
        let slot_held = if held.len() == 1 {
            held[0]
        } else {
            index_select(d.slot, &held)
        };
        ready.drive(!slot_held);
    }
    (entries, ctl)
}
