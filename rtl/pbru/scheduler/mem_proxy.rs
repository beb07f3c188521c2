//! The memory proxy (`pbru.md` §4.3, §5.4, §9.2 `mem_proxy`): instruction chunks and texture
//! blocks through the L0 caches and the SM's L1, and the ray stop on the SM's miss notice (¶75).

use super::entries::{Entry, EntryCtl};
use crate::pbru::cache::{l0_cache, CacheCfg};
use crate::pbru::ports::{
    CoreResp, L1Req, L1Resp, PbruCfg, ADDR_W, BLOCK_W, CHUNK_W, CREQ_IFETCH, CREQ_PIPE,
    CREQ_TEXREAD,
};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{cat, cat_lsb_first, index_select, onehot_mux, Module, Sig, Stream};

/// An inline chunk arriving with a ray, to be written into the instruction cache.
pub struct InlineChunk {
    /// Write this cycle.
    pub valid: Sig,
    /// Chunk number (byte address >> 5), 27 bits.
    pub key: Sig,
    /// The chunk.
    pub data: Sig,
}

/// What [`mem_proxy`] returns.
pub struct ProxyOut {
    /// Requests to the SM's L1.
    pub l1_req: Stream<L1Req>,
    /// Per core: answers (chunks, texture-ready notices).
    pub answers: Vec<Stream<CoreResp>>,
    /// Per core: the one-cycle stop command and its slot (registered).
    pub stops: Vec<(Sig, Sig)>,
}

/// The TEX_DP words the ASTC_DP slot takes: block, then tx, ty, format (args words 1..=3).
fn dp_args(m: &mut Module, args: Sig, block: Sig) -> Sig {
    let w = |i: u32| args.slice(32 * i, 32);
    let used = cat_lsb_first(&[block, w(1), w(2), w(3)]);
    cat(&[m.lit(0, args.width() - used.width()), used])
}

/// Serves the entries waiting on memory, one per cycle in round-robin order, and the L1
/// answers. See [`crate::pbru::scheduler`] for timing.
pub fn mem_proxy(
    m: &mut Module,
    cfg: &PbruCfg,
    entries: &[Entry],
    ctl: &mut EntryCtl,
    l1_resp: Stream<L1Resp>,
    inline: InlineChunk,
) -> ProxyOut {
    let e_n = entries.len() as u32;
    let cores = cfg.cores as usize;
    let shape = cfg.core_resp_shape();
    let (lv, ld, l1_ready) = l1_resp.split();
    let by_id = |f: &dyn Fn(&Entry) -> Sig| {
        let v: Vec<Sig> = entries.iter().map(f).collect();
        if v.len() == 1 {
            v[0]
        } else {
            index_select(ld.id, &v)
        }
    };
    let mut lits = |w: u32, f: &dyn Fn(&Entry) -> u64| {
        let v: Vec<Sig> = entries.iter().map(|e| m.lit(f(e), w)).collect();
        v
    };
    let core_consts = lits(3, &|e| e.core as u64);
    let slot_consts = lits(shape.slot, &|e| e.slot as u64);
    let pick_const = |v: &Vec<Sig>| {
        if v.len() == 1 {
            v[0]
        } else {
            index_select(ld.id, v)
        }
    };
    let l_core = pick_const(&core_consts);
    let l_slot = pick_const(&slot_consts);
    let l_kind = by_id(&|e| e.kind);
    let l_addr = by_id(&|e| e.addr);
    let l_args = by_id(&|e| e.args);
    let l_ray = by_id(&|e| e.ray_id);
    let l_answer = (lv & !ld.miss & l_kind.ne(CREQ_PIPE)).named("l1_answers");
    let l_ifill = lv & !ld.miss & l_kind.eq(CREQ_IFETCH);

    // Answer registers, one per core.
    let ans_valid: Vec<_> = (0..cores)
        .map(|c| m.reg(&format!("answer{c}_valid"), 1).reset(0))
        .collect();
    let l1_claims: Vec<Sig> = (0..cores).map(|c| l_answer & l_core.eq(c as u64)).collect();
    let free_now: Vec<Sig> = ans_valid.iter().map(|r| !r.q()).collect();
    // One core: no select (a select of no cases is a degenerate Verilog case).
    let l_core_free = if cores == 1 {
        free_now[0]
    } else {
        index_select(l_core, &free_now)
    };
    // The inline chunk of an arriving ray has the instruction-cache port first.
    let l1_take = lv & (!l_answer | l_core_free) & !(l_ifill & inline.valid);
    l1_ready.drive(l1_take);
    let l_fire = l1_take;

    // The proxy's pick: a new entry whose core's answer register is free.
    let cand: Vec<Sig> = entries
        .iter()
        .map(|e| e.is_new() & !ans_valid[e.core as usize].q() & !l1_claims[e.core as usize])
        .collect();
    let mask = cat_lsb_first(&cand).named("proxy_candidates");
    let last = m.reg("proxy_rr_last", e_n).reset(1 << (e_n - 1));
    let above = mask & !((last.q() << 1) - 1);
    let pick = above
        .any()
        .mux(
            rendergen_hdl::lowest_set(above),
            rendergen_hdl::lowest_set(mask),
        )
        .named("proxy_pick");
    last.next_when(mask.any(), pick);
    let sel =
        |f: &dyn Fn(&Entry) -> Sig| onehot_mux(pick, &entries.iter().map(f).collect::<Vec<_>>());
    let p_kind = sel(&|e| e.kind);
    let p_addr = sel(&|e| e.addr);
    let p_args = sel(&|e| e.args);
    let p_ray = sel(&|e| e.ray_id);
    let p_core = onehot_mux(pick, &core_consts);
    let p_slot = onehot_mux(pick, &slot_consts);
    let p_tkey = p_kind.eq(CREQ_TEXREAD).mux(p_addr, p_args.slice(0, 32));

    let ic = CacheCfg {
        lines: cfg.icache_chunks,
        key_w: ADDR_W - 5,
        data_w: CHUNK_W,
    };
    let tc = CacheCfg {
        lines: cfg.tcache_blocks,
        key_w: 32,
        data_w: BLOCK_W,
    };
    let ifill_valid = inline.valid | (l_fire & l_ifill);
    let ifill_key = inline.valid.mux(inline.key, l_addr.slice(5, ADDR_W - 5));
    let ifill_data = inline.valid.mux(inline.data, ld.data);
    let ilook = l0_cache(
        m,
        "icache",
        &ic,
        p_addr.slice(5, ADDR_W - 5),
        ifill_valid,
        ifill_key,
        ifill_data,
    );
    let l_tkey = l_kind.eq(CREQ_TEXREAD).mux(l_addr, l_args.slice(0, 32));
    let tfill_valid = l_fire & !ld.miss & l_kind.ne(CREQ_IFETCH);
    let tlook = l0_cache(
        m,
        "tcache",
        &tc,
        p_tkey,
        tfill_valid,
        l_tkey,
        ld.data.slice(0, BLOCK_W),
    );
    let p_valid = mask.any();
    let p_hit = p_kind
        .eq(CREQ_IFETCH)
        .mux(ilook.hit, tlook.hit)
        .named("proxy_hit");
    let p_answer = p_valid & p_hit & p_kind.ne(CREQ_PIPE);
    let p_miss = p_valid & !p_hit;

    // L1 requests: at most one per entry is outstanding, so a FIFO of E entries never fills.
    let l1_addr = p_kind.eq(CREQ_IFETCH).mux(p_addr, p_tkey << 4);
    let l1_entry = cat_lsb_first(&[
        l1_addr,
        p_kind.ne(CREQ_IFETCH),
        rendergen_hdl::lowest_index(pick).resize(8),
    ]);
    let (push, _never_full) = Stream::offer(m, "l1_push", p_miss, l1_entry);
    let q = fifo(m, &FifoCfg { depth: e_n }, push);
    let (qv, qd, qr) = q.pop.split();
    let l1_req_data = L1Req {
        addr: qd.slice(0, 32),
        kind: qd.slice(32, 1),
        id: qd.slice(33, 8),
    };
    let (l1_req, l1_req_ready) = Stream::offer(m, "l1_req_q", qv, l1_req_data);
    qr.drive(l1_req_ready);

    for (e, entry) in entries.iter().enumerate() {
        let mine = pick.bit(e as u32);
        let by_l1 = l_fire & ld.id.eq(e as u64);
        let is_dp = entry.kind.eq(CREQ_PIPE);
        ctl.free(e, mine & p_answer);
        ctl.free(e, by_l1 & (ld.miss | !is_dp));
        ctl.to_wait(e, mine & p_miss);
        ctl.to_ready(
            e,
            mine & p_valid & p_hit & is_dp,
            dp_args(m, entry.args, tlook.data),
        );
        ctl.to_ready(
            e,
            by_l1 & !ld.miss & is_dp,
            dp_args(m, entry.args, ld.data.slice(0, BLOCK_W)),
        );
    }

    let mut answers = Vec::new();
    let mut stops = Vec::new();
    for (c, valid) in ans_valid.into_iter().enumerate() {
        let from_l1 = l_fire & l_answer & l_core.eq(c as u64);
        let from_proxy = p_answer & p_core.eq(c as u64);
        let load = from_l1 | from_proxy;
        let reg = |m: &mut Module, f: &str, v: Sig| {
            let r = m.reg(&format!("answer{c}_{f}"), v.width());
            r.next_when(load, v);
            r.q()
        };
        let chunk = from_l1.mux(ld.data, ilook.data);
        let data = reg(m, "data", chunk);
        let kind = reg(m, "kind", from_l1.mux(l_kind, p_kind));
        let slot = reg(m, "slot", from_l1.mux(l_slot, p_slot));
        let ray_id = reg(m, "ray_id", from_l1.mux(l_ray, p_ray));
        let (s, ready) = Stream::offer(
            m,
            &format!("answer{c}"),
            valid.q(),
            CoreResp {
                kind,
                slot,
                ray_id,
                data,
            },
        );
        valid.next(load | (valid.q() & !ready));
        answers.push(s);
        let stop_v = m.reg(&format!("stop{c}_valid"), 1).reset(0);
        let stop_s = m.reg(&format!("stop{c}_slot"), shape.slot);
        let stop_now = l_fire & ld.miss & l_core.eq(c as u64);
        stop_v.next(stop_now);
        stop_s.next_when(stop_now, l_slot);
        stops.push((stop_v.q(), stop_s.q()));
    }
    ProxyOut {
        l1_req,
        answers,
        stops,
    }
}
