//! The port sequencer (a child module `port_seq` of the core): takes a port instruction's
//! operands of every lane one clock after its issue and sends its requests one per clock —
//! per active lane for `ldg`/`spec`, per active non-helper lane for `stg`/`export`, per quad
//! with an active lane for `tex`, one for `ldu` — tagged with the warp slot and lane or quad.
//!
//! * **Protocol:** stream rules on every request stream; requests leave in lane (quad) order.
//! * **Timing:** the first request in the clock after `start`; one per clock while the
//!   consumer is ready; `busy` from registers.
//! * **Cost:** `4 · 32 · lanes` operand flip-flops, the lane set, slot, kind, mask, helpers,
//!   immediate and count.

use super::decode::port;
use super::*;
use rendergen_hdl::{
    cat_lsb_first, lowest_index, lowest_set, name_lets, onehot_mux, priority_select, select, Io,
    Module, Sig, Stream,
};

/// What the port sequencer takes.
#[derive(Io)]
pub struct PortSeqIn {
    /// A port instruction is in the read stage (its operands are `operands`).
    pub start: Sig,
    /// Its warp slot.
    pub slot: Sig,
    /// Its port kind (3 bits, [`port`]).
    pub kind: Sig,
    /// Its active mask.
    pub mask: Sig,
    /// The warp's helper lanes.
    pub helpers: Sig,
    /// Its immediate (offset, uniform index, sampler, function, location).
    pub imm: Sig,
    /// Its export count (3 bits).
    pub count: Sig,
    /// Per lane the four registers read (`a`, `a + 1` or `b`, …).
    pub operands: Vec<Vec<Sig>>,
}

/// What the port sequencer gives.
#[derive(Io)]
pub struct PortSeqOut {
    /// Global loads.
    pub ldg_req: Stream<LoadReq>,
    /// Global stores.
    pub stg_req: Stream<StoreReq>,
    /// Uniform reads.
    pub ldu_req: Stream<UniformReq>,
    /// Texture requests.
    pub tex_req: Stream<TexReq>,
    /// Special-port requests.
    pub spec_req: Stream<SpecReq>,
    /// Exports.
    pub export: Stream<ExportRec>,
    /// Requests are left to send.
    pub busy: Sig,
    /// The warp slot of the instruction being sent.
    pub busy_slot: Sig,
}

/// The port sequencer (ports as [`PortSeqIn`]/[`PortSeqOut`]).
#[name_lets]
pub fn port_seq(m: &mut Module, cfg: &ShaderCfg, i: PortSeqIn) -> PortSeqOut {
    let lanes = cfg.lanes();
    let (sw, lw, qw) = (cfg.slot_bits(), cfg.lane_bits(), cfg.quad_bits());
    let zero = m.lit(0, 1);
    let kind_is = |k: u64| i.kind.eq(k);
    let quad_any = cat_lsb_first(
        &(0..cfg.quads)
            .map(|q| i.mask.slice(4 * q, 4).any())
            .collect::<Vec<_>>(),
    )
    .resize(lanes);
    let ldu_bit = i.mask.any().zext(lanes);
    let todo_new = priority_select(
        &[
            (kind_is(port::LDU), ldu_bit),
            (kind_is(port::TEX), quad_any),
            (
                kind_is(port::STG) | kind_is(port::EXPORT),
                i.mask & !i.helpers,
            ),
        ],
        i.mask,
    );
    let seq_valid = m.reg("seq_valid", 1).reset(0);
    let seq_todo = m.reg("seq_todo", lanes).reset(0);
    let seq_slot = m.reg("seq_slot", sw);
    let seq_kind = m.reg("seq_kind", 3);
    let seq_mask = m.reg("seq_mask", lanes);
    let seq_helpers = m.reg("seq_helpers", lanes);
    let seq_imm = m.reg("seq_imm", 32);
    let seq_count = m.reg("seq_count", 3);
    let seq_ops: Vec<[rendergen_hdl::Reg; 4]> = (0..lanes)
        .map(|l| std::array::from_fn(|j| m.reg(&format!("seq_lane{l}_op{j}"), 32)))
        .collect();
    for (l, ops) in seq_ops.iter().enumerate() {
        for (j, op) in ops.iter().enumerate() {
            op.next_when(i.start, i.operands[l][j]);
        }
    }
    seq_slot.next_when(i.start, i.slot);
    seq_kind.next_when(i.start, i.kind);
    seq_mask.next_when(i.start, i.mask);
    seq_helpers.next_when(i.start, i.helpers);
    seq_imm.next_when(i.start, i.imm);
    seq_count.next_when(i.start, i.count);
    let cur = lowest_set(seq_todo.q()).named("seq_cur");
    let cur_lane = lowest_index(seq_todo.q()).resize(lw);
    let lane_op = |j: usize| onehot_mux(cur, &seq_ops.iter().map(|o| o[j].q()).collect::<Vec<_>>());
    let (op_a, op_b, op_c, op_d) = (lane_op(0), lane_op(1), lane_op(2), lane_op(3));
    let sq = seq_slot.q();
    let kind = seq_kind.q();
    let want = |k: u64| seq_valid.q() & kind.eq(k);
    let (ldg_req, ldg_ready) = Stream::offer(
        m,
        "ldg_req",
        want(port::LDG),
        LoadReq {
            slot: sq,
            lane: cur_lane,
            addr: op_a + seq_imm.q(),
        },
    );
    let (stg_req, stg_ready) = Stream::offer(
        m,
        "stg_req",
        want(port::STG),
        StoreReq {
            slot: sq,
            lane: cur_lane,
            addr: op_a + seq_imm.q(),
            data: op_b,
        },
    );
    let (ldu_req, ldu_ready) = Stream::offer(
        m,
        "ldu_req",
        want(port::LDU),
        UniformReq {
            slot: sq,
            index: seq_imm.q(),
        },
    );
    let cur_quad = cur.bits(cfg.quads - 1, 0);
    let coords: Vec<Sig> = (0..8)
        .map(|c| {
            let (k, j) = (c / 2, c % 2);
            onehot_mux(
                cur_quad,
                &(0..cfg.quads as usize)
                    .map(|q| seq_ops[4 * q + k][j].q())
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let quad_mask = onehot_mux(
        cur_quad,
        &(0..cfg.quads)
            .map(|q| seq_mask.q().slice(4 * q, 4))
            .collect::<Vec<_>>(),
    );
    let (tex_req, tex_ready) = Stream::offer(
        m,
        "tex_req",
        want(port::TEX),
        TexReq {
            slot: sq,
            quad: lowest_index(seq_todo.q().bits(cfg.quads - 1, 0)).resize(qw),
            sampler: seq_imm.q(),
            coords,
            mask: quad_mask,
        },
    );
    let (spec_req, spec_ready) = Stream::offer(
        m,
        "spec_req",
        want(port::SPEC),
        SpecReq {
            slot: sq,
            lane: cur_lane,
            func: seq_imm.q(),
            a: op_a,
            b: op_b,
            helper: (cur & seq_helpers.q()).any(),
        },
    );
    let (export, export_ready) = Stream::offer(
        m,
        "export",
        want(port::EXPORT),
        ExportRec {
            slot: sq,
            lane: cur_lane,
            loc: seq_imm.q(),
            count: seq_count.q(),
            data: vec![op_a, op_b, op_c, op_d],
        },
    );
    let sent = select(
        kind,
        &[
            ldg_ready,
            stg_ready,
            ldu_ready,
            tex_ready,
            spec_ready,
            export_ready,
        ],
        zero,
    ) & seq_valid.q();
    let todo_after = seq_todo.q() & !cur;
    seq_todo.next(i.start.mux(todo_new, sent.mux(todo_after, seq_todo.q())));
    seq_valid.next(
        i.start
            .mux(todo_new.any(), sent.mux(todo_after.any(), seq_valid.q())),
    );
    PortSeqOut {
        ldg_req,
        stg_req,
        ldu_req,
        tex_req,
        spec_req,
        export,
        busy: seq_valid.q(),
        busy_slot: sq,
    }
}
