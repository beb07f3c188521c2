//! The memory proxy (`pbru.md` §4.3, §5.4, §9.2 `mem_proxy`): instruction chunks and texture
//! blocks through the L0 caches and the SM's L1, and the ray stop on the SM's miss notice (¶75).

use super::entries::{Entry, EntryCtl};
use crate::pbru::ports::{
    CacheAnswer, CacheFill, CacheIn, CoreResp, L1Req, L1Resp, PbruCfg, StopCmd, ADDR_W, BLOCK_W,
    CHUNK_W, CREQ_IFETCH, CREQ_PIPE, CREQ_TEXREAD, CRSP_CANCEL,
};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{
    cat, cat_lsb_first, index_select, lowest_index, name_lets, onehot_mux, round_robin_pick, Io,
    Module, Reg, Sig, Stream,
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

/// Per entry, its owner as constants: its core and its ray slot.
struct EntryConsts {
    core: Vec<Sig>,
    slot: Vec<Sig>,
}

/// The L1 answer of this cycle, seen through the entry it answers (selected by its id).
struct L1Answer {
    /// The answer is taken this cycle.
    fire: Sig,
    /// Anything but a TEX_DP block: the entry's core gets an answer (`CRSP_CANCEL` on a miss).
    answer: Sig,
    /// A hit for an IFETCH: the chunk fills the instruction cache.
    ifill: Sig,
    /// The entry's core, ray slot, request kind, address, args, ray and epoch.
    core: Sig,
    slot: Sig,
    kind: Sig,
    addr: Sig,
    args: Sig,
    ray: Sig,
    epoch: Sig,
    /// The L1's data, miss notice and entry id.
    data: Sig,
    miss: Sig,
    id: Sig,
}

/// Takes the L1's answer when its core's answer register is free (or it needs none) and the
/// instruction cache's fill port is not the arriving ray's (`inline_valid`).
#[name_lets]
fn l1_answer(
    entries: &[Entry],
    consts: &EntryConsts,
    l1_resp: Stream<L1Resp>,
    free_now: &[Sig],
    inline_valid: Sig,
) -> L1Answer {
    let (lv, ld, l1_ready) = l1_resp.split();
    let by_id = |v: &[Sig]| {
        if v.len() == 1 {
            v[0]
        } else {
            index_select(ld.id, v)
        }
    };
    let field = |f: &dyn Fn(&Entry) -> Sig| by_id(&entries.iter().map(f).collect::<Vec<_>>());
    let core = by_id(&consts.core);
    let slot = by_id(&consts.slot);
    let kind = field(&|e| e.kind);
    // A miss is answered too (`CRSP_CANCEL`): the core's slot may be owing the answer.
    let answer = (lv & kind.ne(CREQ_PIPE)).named("answers");
    let ifill = lv & !ld.miss & kind.eq(CREQ_IFETCH);
    let core_free = if free_now.len() == 1 {
        free_now[0]
    } else {
        index_select(core, free_now)
    };
    let take = lv & (!answer | core_free) & !(ifill & inline_valid);
    l1_ready.drive(take);
    L1Answer {
        fire: take,
        answer,
        ifill,
        core,
        slot,
        kind,
        addr: field(&|e| e.addr),
        args: field(&|e| e.args),
        ray: field(&|e| e.ray_id),
        epoch: field(&|e| e.epoch),
        data: ld.data,
        miss: ld.miss,
        id: ld.id,
    }
}

/// This cycle's three picks (one-hot over the entries) and what the picked entries carry.
struct Picks {
    /// An IFETCH (instruction cache), a TEXREAD (texture cache port 0), a TEX_DP block read
    /// (texture cache port 1).
    ip: Sig,
    tp: Sig,
    dp: Sig,
    ip_valid: Sig,
    tp_valid: Sig,
    dp_valid: Sig,
    /// The cores of the IFETCH and TEXREAD picks.
    ip_core: Sig,
    tp_core: Sig,
    /// The addresses looked up.
    i_addr: Sig,
    t_addr: Sig,
    d_key: Sig,
}

/// Three picks per cycle, each round-robin over its entries: an IFETCH and a TEXREAD, both only
/// for a core whose answer register is free (`answer_free`) and not taken by the other, and
/// the block read of a TEX_DP.
#[name_lets]
fn picks(m: &mut Module, entries: &[Entry], consts: &EntryConsts, answer_free: &[Sig]) -> Picks {
    let kind_is = |k: u64| entries.iter().map(move |e| e.is_new() & e.kind.eq(k));
    let ip_mask = cat_lsb_first(
        &kind_is(CREQ_IFETCH)
            .zip(answer_free)
            .map(|(n, &f)| n & f)
            .collect::<Vec<_>>(),
    )
    .named("ifetch_candidates");
    let ip = round_robin(m, "ifetch_rr", ip_mask).named("ifetch_pick");
    let ip_valid = ip_mask.any();
    let ip_core = onehot_mux(ip, &consts.core);
    let tp_mask = cat_lsb_first(
        &kind_is(CREQ_TEXREAD)
            .zip(entries.iter().zip(answer_free))
            .map(|(n, (e, &f))| n & f & !(ip_valid & ip_core.eq(e.core as u64)))
            .collect::<Vec<_>>(),
    )
    .named("texread_candidates");
    let tp = round_robin(m, "texread_rr", tp_mask).named("texread_pick");
    let dp_mask = cat_lsb_first(&kind_is(CREQ_PIPE).collect::<Vec<_>>()).named("dp_candidates");
    let dp = round_robin(m, "dp_rr", dp_mask).named("dp_pick");
    let sel = |pick: Sig, f: &dyn Fn(&Entry) -> Sig| {
        onehot_mux(pick, &entries.iter().map(f).collect::<Vec<_>>())
    };
    Picks {
        ip,
        tp,
        dp,
        ip_valid,
        tp_valid: tp_mask.any(),
        dp_valid: dp_mask.any(),
        ip_core,
        tp_core: onehot_mux(tp, &consts.core),
        i_addr: sel(ip, &|e| e.addr),
        t_addr: sel(tp, &|e| e.addr),
        d_key: sel(dp, &|e| e.args.slice(0, 32)),
    }
}

/// What the cache lookups of the picks found.
struct Hits {
    /// The IFETCH and TEXREAD picks are answered from the caches.
    i_answer: Sig,
    t_answer: Sig,
    /// The TEX_DP block is in the texture cache.
    d_hit: Sig,
    /// Misses, one to the L1 per cycle: IFETCH first, then TEXREAD, then TEX_DP.
    i_miss: Sig,
    t_miss: Sig,
    d_miss: Sig,
    /// The instruction chunk and the TEX_DP block read.
    i_data: Sig,
    d_data: Sig,
}

/// The caches are siblings of the scheduler (the top builds them): lookups and fills of both
/// leave here, their answers arrive in `caches`. Returns (instruction cache, texture cache,
/// the intake's chunk, what the lookups found).
#[name_lets]
fn cache_ports(
    l1: &L1Answer,
    p: &Picks,
    inline: InlineChunk,
    caches: CacheAnswers,
) -> (CacheIn, CacheIn, CacheAnswer, Hits) {
    let icache = CacheIn {
        lookup: vec![p.i_addr.slice(5, ADDR_W - 5), inline.lookup],
        fill: CacheFill {
            valid: inline.valid | (l1.fire & l1.ifill),
            key: inline.valid.mux(inline.key, l1.addr.slice(5, ADDR_W - 5)),
            data: inline.valid.mux(inline.data, l1.data),
        },
    };
    let [ilook, intake_chunk] = caches.icache;
    let tcache = CacheIn {
        lookup: vec![p.t_addr, p.d_key],
        fill: CacheFill {
            valid: l1.fire & !l1.miss & l1.kind.ne(CREQ_IFETCH),
            key: l1.kind.eq(CREQ_TEXREAD).mux(l1.addr, l1.args.slice(0, 32)),
            data: l1.data.slice(0, BLOCK_W),
        },
    };
    let [tlook, dlook] = caches.tcache;
    let i_miss = p.ip_valid & !ilook.hit;
    let t_miss = (p.tp_valid & !tlook.hit & !i_miss).named("texread_miss");
    let d_miss = (p.dp_valid & !dlook.hit & !i_miss & !(p.tp_valid & !tlook.hit)).named("dp_miss");
    let hits = Hits {
        i_answer: (p.ip_valid & ilook.hit).named("ifetch_hit"),
        t_answer: (p.tp_valid & tlook.hit).named("texread_hit"),
        d_hit: p.dp_valid & dlook.hit,
        i_miss,
        t_miss,
        d_miss,
        i_data: ilook.data,
        d_data: dlook.data,
    };
    (icache, tcache, intake_chunk, hits)
}

/// The L1 request queue: one miss per cycle in, requests out. At most one request per entry
/// is outstanding, so a FIFO as deep as the entry table never fills.
#[name_lets]
fn l1_requests(m: &mut Module, entries: u32, p: &Picks, h: &Hits) -> Stream<L1Req> {
    let miss_pick = h.i_miss.mux(p.ip, h.t_miss.mux(p.tp, p.dp));
    let l1_addr = h.i_miss.mux(p.i_addr, h.t_miss.mux(p.t_addr, p.d_key) << 4);
    let l1_entry = cat_lsb_first(&[l1_addr, !h.i_miss, lowest_index(miss_pick).resize(8)]);
    let (push, _never_full) = Stream::offer(m, "l1_push", h.i_miss | h.t_miss | h.d_miss, l1_entry);
    let q = fifo(m, &FifoCfg { depth: entries }, push);
    let (qv, qd, qr) = q.pop.split();
    let l1_req_data = L1Req {
        addr: qd.slice(0, 32),
        kind: qd.slice(32, 1),
        id: qd.slice(33, 8),
    };
    let (l1_req, l1_req_ready) = Stream::offer(m, "l1_req_q", qv, l1_req_data);
    qr.drive(l1_req_ready);
    l1_req
}

/// Moves each entry on: freed when answered (from a cache or the L1), waiting when its miss
/// went to the L1, ready with its block when a TEX_DP block arrived.
#[name_lets]
fn update_entries(
    m: &mut Module,
    entries: &[Entry],
    ctl: &mut EntryCtl,
    l1: &L1Answer,
    p: &Picks,
    h: &Hits,
) {
    for (e, entry) in entries.iter().enumerate() {
        let bit = |pick: Sig| pick.bit(e as u32);
        let by_l1 = l1.fire & l1.id.eq(e as u64);
        let is_dp = entry.kind.eq(CREQ_PIPE);
        ctl.free(e, (bit(p.ip) & h.i_answer) | (bit(p.tp) & h.t_answer));
        ctl.free(e, by_l1 & (l1.miss | !is_dp));
        ctl.to_wait(
            e,
            (bit(p.ip) & h.i_miss) | (bit(p.tp) & h.t_miss) | (bit(p.dp) & h.d_miss),
        );
        ctl.to_ready(e, bit(p.dp) & h.d_hit, dp_args(m, entry.args, h.d_data));
        ctl.to_ready(
            e,
            by_l1 & !l1.miss & is_dp,
            dp_args(m, entry.args, l1.data.slice(0, BLOCK_W)),
        );
    }
}

/// What the proxy decided this cycle, for the per-core answer registers.
struct Decided<'a> {
    entries: &'a [Entry],
    consts: &'a EntryConsts,
    l1: &'a L1Answer,
    p: &'a Picks,
    h: &'a Hits,
}

/// Core `c`'s answer register (loaded from the L1 answer, else the IFETCH pick, else the
/// TEXREAD pick) and its one-cycle stop command (on the L1's miss notice for one of its rays).
#[name_lets]
fn core_answer(m: &mut Module, c: usize, valid: Reg, d: &Decided) -> (Stream<CoreResp>, StopCmd) {
    let Decided {
        entries,
        consts,
        l1,
        p,
        h,
    } = *d;
    let from_l1 = l1.fire & l1.answer & l1.core.eq(c as u64);
    let from_i = h.i_answer & p.ip_core.eq(c as u64);
    let from_t = h.t_answer & p.tp_core.eq(c as u64);
    let load = from_l1 | from_i | from_t;
    let reg = |m: &mut Module, f: &str, v: Sig| {
        let r = m.reg(&format!("answer{c}_{f}"), v.width());
        r.next_when(load, v);
        r.q()
    };
    let sel = |pick: Sig, f: &dyn Fn(&Entry) -> Sig| {
        onehot_mux(pick, &entries.iter().map(f).collect::<Vec<_>>())
    };
    let pick3 = |l: Sig, i: Sig, t: Sig| from_l1.mux(l, from_i.mux(i, t));
    let (i_kind, t_kind) = (m.lit(CREQ_IFETCH, 2), m.lit(CREQ_TEXREAD, 2));
    let l1_kind = l1.miss.mux(m.lit(CRSP_CANCEL, 2), l1.kind);
    let kind_next = pick3(l1_kind, i_kind, t_kind);
    let slot_next = pick3(
        l1.slot,
        onehot_mux(p.ip, &consts.slot),
        onehot_mux(p.tp, &consts.slot),
    );
    let ray_next = pick3(l1.ray, sel(p.ip, &|e| e.ray_id), sel(p.tp, &|e| e.ray_id));
    let epoch_next = pick3(l1.epoch, sel(p.ip, &|e| e.epoch), sel(p.tp, &|e| e.epoch));
    let data = reg(m, "data", from_l1.mux(l1.data, h.i_data));
    let kind = reg(m, "kind", kind_next);
    let slot = reg(m, "slot", slot_next);
    let ray_id = reg(m, "ray_id", ray_next);
    let epoch = reg(m, "epoch", epoch_next);
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
    let stop_v = m.reg(&format!("stop{c}_valid"), 1).reset(0);
    let stop_s = m.reg(&format!("stop{c}_slot"), slot.width());
    let stop_e = m.reg(&format!("stop{c}_epoch"), 1);
    let stop_now = l1.fire & l1.miss & l1.core.eq(c as u64);
    stop_v.next(stop_now);
    stop_s.next_when(stop_now, l1.slot);
    stop_e.next_when(stop_now, l1.epoch);
    let stop = StopCmd {
        valid: stop_v.q(),
        slot: stop_s.q(),
        epoch: stop_e.q(),
    };
    (s, stop)
}

/// Serves the entries waiting on memory (an instruction or texture fetch and a TEX_DP block
/// read per cycle, each in round-robin order) and the L1 answers, as named units: `l1` (the
/// answer of the cycle), `pick`, `cache` (lookups, fills, hits), `l1_queue`, `entries` and
/// one answer register and stop command per core. See [`crate::pbru::scheduler`] for timing.
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
    let shape = cfg.core_resp_shape();
    let consts = EntryConsts {
        core: entries.iter().map(|e| m.lit(e.core as u64, 3)).collect(),
        slot: entries
            .iter()
            .map(|e| m.lit(e.slot as u64, shape.slot))
            .collect(),
    };
    let ans_valid: Vec<_> = (0..cfg.cores)
        .map(|c| m.reg(&format!("answer{c}_valid"), 1).reset(0))
        .collect();
    let free_now: Vec<Sig> = ans_valid.iter().map(|r| !r.q()).collect();
    let l1 = m.block("l1", |_| {
        l1_answer(entries, &consts, l1_resp, &free_now, inline.valid)
    });
    let l1_claims: Vec<Sig> = (0..cfg.cores as u64)
        .map(|c| l1.answer & l1.core.eq(c))
        .collect();
    let answer_free: Vec<Sig> = entries
        .iter()
        .map(|e| free_now[e.core as usize] & !l1_claims[e.core as usize])
        .collect();
    let p = m.block("pick", |m| picks(m, entries, &consts, &answer_free));
    let (icache, tcache, intake_chunk, h) =
        m.block("cache", |_| cache_ports(&l1, &p, inline, caches));
    let l1_req = m.block("l1_queue", |m| l1_requests(m, entries.len() as u32, &p, &h));
    m.block("entries", |m| update_entries(m, entries, ctl, &l1, &p, &h));
    let decided = Decided {
        entries,
        consts: &consts,
        l1: &l1,
        p: &p,
        h: &h,
    };
    let (answers, stops): (Vec<_>, Vec<_>) = ans_valid
        .into_iter()
        .enumerate()
        .map(|(c, valid)| core_answer(m, c, valid, &decided))
        .unzip();
    ProxyOut {
        intake_chunk,
        icache,
        tcache,
        l1_req,
        answers,
        stops,
    }
}
