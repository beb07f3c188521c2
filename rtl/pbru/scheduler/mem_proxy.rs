//! The memory proxy (`pbru.md` §4.3, §5.4, §9.2 `mem_proxy`): instruction chunks and texture
//! blocks through the L0 caches and the SM's L1, and the ray stop on the SM's miss notice (¶75).

use super::entries::{Entry, EntryCtl};
use crate::pbru::ports::{
    CacheAnswer, CacheFill, CacheIn, CoreResp, L1Req, L1Resp, PbruCfg, StopCmd, ADDR_W, BLOCK_W,
    CHUNK_W, CREQ_IFETCH, CREQ_PIPE, CREQ_TEXREAD,
};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{
    cat, cat_lsb_first, index_select, lowest_index, name_lets, onehot_mux, round_robin_pick, Io,
    Module, Sig, Stream,
};

rendergen_hdl::bundle! {
    /// The intake's use of the instruction cache: the inline chunk arriving with a ray, to be
    /// written (`valid`, `key` = chunk number, i.e. byte address >> 5, 27 bits, `data`), and the
    /// chunk number looked up for the ray being offered (`lookup`, a second read port).
    pub struct InlineChunk { pub valid, pub key, pub data, pub lookup }
}

/// The caches' answers to the proxy's lookups (see [`ProxyOut::icache`], [`ProxyOut::tcache`]).
#[derive(Io)]
pub struct CacheAnswers {
    /// Instruction cache: the IFETCH lookup, then the intake's lookup.
    pub icache: [CacheAnswer; 2],
    /// Texture cache: the TEXREAD lookup, then the TEX_DP block lookup.
    pub tcache: [CacheAnswer; 2],
}

impl CacheAnswers {
    /// The shape of the answers for `cfg`'s caches.
    #[name_lets]
    pub fn shape() -> CacheAnswersShape {
        let answer = |w| CacheAnswer { hit: 1, data: w };
        CacheAnswersShape {
            icache: vec![answer(CHUNK_W); 2],
            tcache: vec![answer(BLOCK_W); 2],
        }
    }
}

/// What [`mem_proxy`] returns.
pub struct ProxyOut {
    /// The instruction cache's answer to [`InlineChunk::lookup`].
    pub intake_chunk: CacheAnswer,
    /// Lookups and fill of the instruction cache.
    pub icache: CacheIn,
    /// Lookups and fill of the texture cache.
    pub tcache: CacheIn,
    /// Requests to the SM's L1.
    pub l1_req: Stream<L1Req>,
    /// Per core: answers (chunks, texture-ready notices).
    pub answers: Vec<Stream<CoreResp>>,
    /// Per core: the one-cycle stop command (registered).
    pub stops: Vec<StopCmd>,
}

/// The TEX_DP words the ASTC_DP pipe takes: block, then tx, ty, format (args words 1..=3).
#[name_lets]
fn dp_args(m: &mut Module, args: Sig, block: Sig) -> Sig {
    let w = |i: u32| args.slice(32 * i, 32);
    let used = cat_lsb_first(&[block, w(1), w(2), w(3)]);
    cat(&[m.lit(0, args.width() - used.width()), used])
}

/// One-hot round-robin choice among the set bits of `mask` (after the last one chosen, held in
/// register `name`).
#[name_lets]
fn round_robin(m: &mut Module, name: &str, mask: Sig) -> Sig {
    let last = m.reg(name, mask.width()).reset(1 << (mask.width() - 1));
    let pick = round_robin_pick(mask, last.q());
    last.next_when(mask.any(), pick);
    pick
}

/// Serves the entries waiting on memory (an instruction or texture fetch and a TEX_DP block
/// read per cycle, each in round-robin order) and the L1 answers. See [`crate::pbru::scheduler`] for timing.
#[name_lets]
pub fn mem_proxy(
    m: &mut Module,
    cfg: &PbruCfg,
    entries: &[Entry],
    ctl: &mut EntryCtl,
    l1_resp: Stream<L1Resp>,
    inline: InlineChunk,
    caches: CacheAnswers,
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
    let l_epoch = by_id(&|e| e.epoch);
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

    // Three picks per cycle, each round-robin over its entries: `ip` an IFETCH (instruction
    // cache), `tp` a TEXREAD (texture cache port 0), both only for a core whose answer register
    // is free and not taken by the other; `dp` the block read of a TEX_DP (texture cache port
    // 1). Misses go to the L1 one per cycle (IFETCH, then TEXREAD, then TEX_DP); a pick whose
    // miss cannot go waits for the next cycle.
    let kind_is = |k: u64| entries.iter().map(move |e| e.is_new() & e.kind.eq(k));
    let answer_free: Vec<Sig> = entries
        .iter()
        .map(|e| !ans_valid[e.core as usize].q() & !l1_claims[e.core as usize])
        .collect();
    let ip_mask = cat_lsb_first(
        &kind_is(CREQ_IFETCH)
            .zip(&answer_free)
            .map(|(n, &f)| n & f)
            .collect::<Vec<_>>(),
    )
    .named("proxy_ifetch_candidates");
    let ip = round_robin(m, "proxy_ifetch_rr", ip_mask).named("proxy_ifetch_pick");
    let ip_valid = ip_mask.any();
    let ip_core = onehot_mux(ip, &core_consts);
    let tp_mask = cat_lsb_first(
        &kind_is(CREQ_TEXREAD)
            .zip(entries.iter().zip(&answer_free))
            .map(|(n, (e, &f))| n & f & !(ip_valid & ip_core.eq(e.core as u64)))
            .collect::<Vec<_>>(),
    )
    .named("proxy_texread_candidates");
    let tp = round_robin(m, "proxy_texread_rr", tp_mask).named("proxy_texread_pick");
    let dp_mask =
        cat_lsb_first(&kind_is(CREQ_PIPE).collect::<Vec<_>>()).named("proxy_dp_candidates");
    let dp = round_robin(m, "proxy_dp_rr", dp_mask).named("proxy_dp_pick");
    let sel = |pick: Sig, f: &dyn Fn(&Entry) -> Sig| {
        onehot_mux(pick, &entries.iter().map(f).collect::<Vec<_>>())
    };
    let i_addr = sel(ip, &|e| e.addr);
    let t_addr = sel(tp, &|e| e.addr);
    let d_key = sel(dp, &|e| e.args.slice(0, 32));

    // The caches are siblings of the scheduler (the top builds them): lookups and fills leave
    // through `ProxyOut`, answers arrive in `caches`.
    let ifill_valid = inline.valid | (l_fire & l_ifill);
    let ifill_key = inline.valid.mux(inline.key, l_addr.slice(5, ADDR_W - 5));
    let ifill_data = inline.valid.mux(inline.data, ld.data);
    let icache = CacheIn {
        lookup: vec![i_addr.slice(5, ADDR_W - 5), inline.lookup],
        fill: CacheFill {
            valid: ifill_valid,
            key: ifill_key,
            data: ifill_data,
        },
    };
    let [ilook, intake_chunk] = caches.icache;
    let l_tkey = l_kind.eq(CREQ_TEXREAD).mux(l_addr, l_args.slice(0, 32));
    let tfill_valid = l_fire & !ld.miss & l_kind.ne(CREQ_IFETCH);
    let tcache = CacheIn {
        lookup: vec![t_addr, d_key],
        fill: CacheFill {
            valid: tfill_valid,
            key: l_tkey,
            data: ld.data.slice(0, BLOCK_W),
        },
    };
    let [tlook, dlook] = caches.tcache;
    let (tp_valid, dp_valid) = (tp_mask.any(), dp_mask.any());
    let i_answer = (ip_valid & ilook.hit).named("proxy_ifetch_hit");
    let t_answer = (tp_valid & tlook.hit).named("proxy_texread_hit");
    let d_hit = dp_valid & dlook.hit;
    let i_miss = ip_valid & !ilook.hit;
    let t_miss = (tp_valid & !tlook.hit & !i_miss).named("proxy_texread_miss");
    let d_miss =
        (dp_valid & !dlook.hit & !i_miss & !(tp_valid & !tlook.hit)).named("proxy_dp_miss");

    // L1 requests: at most one per entry is outstanding, so a FIFO of E entries never fills.
    let miss_pick = i_miss.mux(ip, t_miss.mux(tp, dp));
    let l1_addr = i_miss.mux(i_addr, t_miss.mux(t_addr, d_key) << 4);
    let l1_entry = cat_lsb_first(&[l1_addr, !i_miss, lowest_index(miss_pick).resize(8)]);
    let (push, _never_full) = Stream::offer(m, "l1_push", i_miss | t_miss | d_miss, l1_entry);
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
        let bit = |pick: Sig| pick.bit(e as u32);
        let by_l1 = l_fire & ld.id.eq(e as u64);
        let is_dp = entry.kind.eq(CREQ_PIPE);
        ctl.free(e, (bit(ip) & i_answer) | (bit(tp) & t_answer));
        ctl.free(e, by_l1 & (ld.miss | !is_dp));
        ctl.to_wait(
            e,
            (bit(ip) & i_miss) | (bit(tp) & t_miss) | (bit(dp) & d_miss),
        );
        ctl.to_ready(e, bit(dp) & d_hit, dp_args(m, entry.args, dlook.data));
        ctl.to_ready(
            e,
            by_l1 & !ld.miss & is_dp,
            dp_args(m, entry.args, ld.data.slice(0, BLOCK_W)),
        );
    }

    // What the proxy answers this cycle (at most one of `ip`, `tp` per core).
    let tp_core = onehot_mux(tp, &core_consts);
    let (i_kind, t_kind) = (m.lit(CREQ_IFETCH, 2), m.lit(CREQ_TEXREAD, 2));
    let (i_slot, t_slot) = (onehot_mux(ip, &slot_consts), onehot_mux(tp, &slot_consts));
    let (i_ray, t_ray) = (sel(ip, &|e| e.ray_id), sel(tp, &|e| e.ray_id));
    let (i_epoch, t_epoch) = (sel(ip, &|e| e.epoch), sel(tp, &|e| e.epoch));

    let mut answers = Vec::new();
    let mut stops = Vec::new();
    for (c, valid) in ans_valid.into_iter().enumerate() {
        let from_l1 = l_fire & l_answer & l_core.eq(c as u64);
        let from_i = i_answer & ip_core.eq(c as u64);
        let from_t = t_answer & tp_core.eq(c as u64);
        let load = from_l1 | from_i | from_t;
        let reg = |m: &mut Module, f: &str, v: Sig| {
            let r = m.reg(&format!("answer{c}_{f}"), v.width());
            r.next_when(load, v);
            r.q()
        };
        let chunk = from_l1.mux(ld.data, ilook.data);
        let data = reg(m, "data", chunk);
        let pick3 = |l: Sig, i: Sig, t: Sig| from_l1.mux(l, from_i.mux(i, t));
        let kind = reg(m, "kind", pick3(l_kind, i_kind, t_kind));
        let slot = reg(m, "slot", pick3(l_slot, i_slot, t_slot));
        let ray_id = reg(m, "ray_id", pick3(l_ray, i_ray, t_ray));
        let epoch = reg(m, "epoch", pick3(l_epoch, i_epoch, t_epoch));
        let (s, ready) = Stream::offer(
            m,
            &format!("answer{c}"),
            valid.q(),
            CoreResp {
                kind,
                slot,
                epoch,
                ray_id,
                data,
            },
        );
        valid.next(load | (valid.q() & !ready));
        answers.push(s);
        let stop_v = m.reg(&format!("stop{c}_valid"), 1).reset(0);
        let stop_s = m.reg(&format!("stop{c}_slot"), shape.slot);
        let stop_e = m.reg(&format!("stop{c}_epoch"), 1);
        let stop_now = l_fire & ld.miss & l_core.eq(c as u64);
        stop_v.next(stop_now);
        stop_s.next_when(stop_now, l_slot);
        stop_e.next_when(stop_now, l_epoch);
        stops.push(StopCmd {
            valid: stop_v.q(),
            slot: stop_s.q(),
            epoch: stop_e.q(),
        });
    }
    ProxyOut {
        intake_chunk,
        icache,
        tcache,
        l1_req,
        answers,
        stops,
    }
}
