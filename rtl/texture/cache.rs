//! `tex_cache`: four texel banks by (x&1, y&1) behind a direct-mapped cache of 2×2 blocks that
//! hides memory latency (the prefetching texture cache of Igehy, Eldridge and Proudfoot,
//! "Prefetching in a Texture Cache Architecture", 1998), in front of a line-read memory port.
//!
//! ```text
//!  feet ─▶ look-up ──────────▶ queue (in order) ──▶ head: its fills → banks, then read ─▶ data
//!          tags, line_valid     `queue_depth`          ▲                                   (skid)
//!          │ a miss: tag := key at once                │ fill data (in mem_req order)
//!          ▼                                           │
//!        line keys ─▶ mem_req           mem_resp ─▶ fill FIFO (`max_fills`)
//! ```
//! Tags are looked up *and updated* when a footprint arrives; a missing line is requested from
//! memory at once (up to `max_fills` lines outstanding) and the footprint waits in an in-order
//! queue, recording how many fills it started. The data banks are written *in order*, by the
//! footprint at the head of the queue: it pops its own fills from the fill FIFO into the banks,
//! then reads its texels. So a line is never overwritten while an earlier footprint that still
//! needs its old contents is queued (those read before the fill is written), and a later
//! footprint that hits a line whose fill is still outstanding reads it after it was written
//! (the fill belongs to an earlier footprint): no reference counts are needed, and the hit and
//! fill counts equal those of the blocking cache (`rendergen_sim::models::texture::cache`),
//! since the tags see the same look-ups in the same order.

use super::{counter, FootData, FootOp, MemReq, MemResp, TexCfg, TexDescPort};
use crate::stream::fifo::{fifo, FifoCfg};
use crate::stream::skid::skid_buffer;
use rendergen_hdl::{
    cat, cat_lsb_first, clog2, index_select, lowest_index, name_lets, select, Bundle, Io, Module,
    Sig, Stream,
};

/// What [`tex_cache`] takes.
#[derive(Io)]
pub struct CacheIn {
    /// Footprints.
    pub feet: Stream<FootOp>,
    /// The bound texture (for line addresses).
    pub desc: TexDescPort,
    /// Forget every line.
    pub flush: Sig,
    /// Lines from memory.
    pub mem_resp: Stream<MemResp>,
}

/// What [`tex_cache`] gives.
#[derive(Io)]
pub struct CacheOut {
    /// Footprints with their texels.
    pub data: Stream<FootData>,
    /// Line reads.
    pub mem_req: Stream<MemReq>,
    /// Footprints fetched.
    pub footprints: Sig,
    /// Texels read from the banks.
    pub texel_reads: Sig,
    /// Footprints served with no fill.
    pub hits: Sig,
    /// Line fills.
    pub misses: Sig,
}

/// A footprint waiting in the cache's in-order queue for the lines it started to fill.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Waiting<T = Sig> {
    /// The footprint.
    pub foot: FootOp<T>,
    /// Line fills it started (0 ..= 4, 3 bits), written into the banks when it is the head.
    pub fills: T,
}

/// A line requested from memory: its key `(level, block y, block x)`.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LineKey<T = Sig> {
    /// `level ‖ by ‖ bx` (`4 + 2·max_log2` bits).
    pub key: T,
}

/// The line index of a fill (`log2(cache_lines)` bits), kept until its data is written.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LineIndex<T = Sig> {
    /// Line index.
    pub idx: T,
}

/// Word address of texel `(x, y)` of `level` (model: `TexDesc::texel_addr`); `x`, `y` inside
/// the level.
#[name_lets]
pub fn texel_addr(m: &mut Module, d: &TexDescPort, level: Sig, x: Sig, y: Sig, levels: u32) -> Sig {
    let lsize = |log2: Sig, l: Sig| l.ge(log2).mux(0, log2 - l);
    let max2 = |v: Sig| v.lt(2).mux(2, v);
    let mut offsets = vec![m.lit(0, 32)];
    for l in 0..levels {
        let lv = m.lit(l as u64, 4);
        let (lw, lh) = (lsize(d.log2_w, lv), lsize(d.log2_h, lv));
        let lin = (lw + lh).zext(5);
        let til = (max2(lw) + max2(lh)).zext(5);
        let words = m.lit(1, 32).shl(d.tiled.mux(til, lin));
        let prev = *offsets.last().unwrap();
        offsets.push(prev + words);
    }
    let level_off = select(level, &offsets[..levels as usize], offsets[levels as usize]);
    let lw = lsize(d.log2_w, level);
    let (x, y) = (x.zext(32), y.zext(32));
    let linear = x + y.shl(lw);
    let tile_shift = lw.lt(2).mux(0, lw - 2);
    let tile = (y >> 2).shl(tile_shift) + (x >> 2);
    let tiled = (tile << 4) | ((y & 3) << 2) | (x & 3);
    d.base + level_off + d.tiled.mux(tiled, linear)
}

/// Per bank `b = (x&1) | (y&1)<<1` of footprint `f`: the column and row of the texel it holds.
fn bank_texel(f: &FootOp, b: u64) -> (Sig, Sig) {
    let (bx, by) = (b & 1, b >> 1);
    let col = f.x[0].bit(0).eq(bx).mux(f.x[0], f.x[1]);
    let row = f.y[0].bit(0).eq(by).mux(f.y[0], f.y[1]);
    (col, row)
}

/// Line index of the block holding texel `(cx, cy)` of `level` (model: `TexCache::index`).
fn line_index(cfg: &TexCfg, cx: Sig, cy: Sig, level: Sig) -> Sig {
    let ib = clog2(cfg.cache_lines as u64);
    let (hx, hy) = (ib.div_ceil(2), ib / 2);
    let (bx, by) = ((cx >> 1).zext(16), (cy >> 1).zext(16));
    let raw = cat(&[by.bits(hy - 1, 0), bx.bits(hx - 1, 0)]);
    raw ^ level.zext(ib.max(4)).bits(ib - 1, 0).resize(ib)
}

/// The four word addresses of line `key` (texels beyond a 1-wide or 1-high level repeat).
#[name_lets]
fn line_addresses(m: &mut Module, cfg: &TexCfg, desc: &TexDescPort, key: Sig) -> Vec<Sig> {
    let cw = cfg.coord_width();
    let keyw = 4 + 2 * cw;
    let (level, by, bx) = (
        key.bits(keyw - 1, 2 * cw),
        key.bits(2 * cw - 1, cw),
        key.bits(cw - 1, 0),
    );
    let levels = cfg.max_log2 + 1;
    let mask = |m: &mut Module, log2: Sig| {
        (m.lit(1, cw + 1).shl(log2.lt(level).mux(0, log2 - level)) - 1).bits(cw, 0)
    };
    let wmask = mask(m, desc.log2_w);
    let hmask = mask(m, desc.log2_h);
    (0..4u64)
        .map(|b| {
            let x = cat(&[bx, m.lit(b & 1, 1)]);
            let y = cat(&[by, m.lit(b >> 1, 1)]);
            let x = x.gt(wmask).mux(wmask, x);
            let y = y.gt(hmask).mux(hmask, y);
            texel_addr(m, desc, level, x, y, levels)
        })
        .collect()
}

/// The texel cache and banks: tags updated at look-up, several fills outstanding, footprints
/// answered in order (module docs give the design).
///
/// * **Protocol:** stream rules; footprints leave in arrival order through a skid buffer;
///   `mem_resp` answers `mem_req` in order; `mem_resp.ready` is high whenever fewer than
///   `max_fills` lines are outstanding, which is always after a `mem_req` transfer (credits), so
///   memory is never back-pressured by the cache.
/// * **Timing:** a footprint whose texels all hit passes at one per clock (initiation interval
///   1) with latency 2 (queue, skid buffer). A footprint that misses `k` lines spends `k` extra
///   clocks at the look-up (one line requested per clock), then waits in the queue without
///   holding the look-up: later footprints are looked up and their misses requested while its
///   lines are in flight (up to `max_fills` lines, up to `queue_depth` footprints). At the head
///   it spends `k` clocks writing its lines (each as soon as it has arrived) and one reading.
///   Bank reads are combinational from the queue's head; tag reads from the footprint register
///   of `tex_address`; `desc_*` → `mem_req_addr` is combinational.
/// * **Flush** takes effect in the first clock where the look-up is not between two fills of one
///   footprint (at most four clocks later), so a footprint never starts more than four fills.
/// * **Cost:** per bank a `cache_lines × 32` data RAM and a `cache_lines × (4 + 2·max_log2)` tag
///   RAM (four tag copies give four look-ups per clock), one valid bit per line; the queue
///   (`queue_depth` × ~(100 + 4·max_log2) bits), the fill FIFO (`max_fills` × 128 bits), the
///   line-key and line-index FIFOs (`max_fills` entries each); the line address generator
///   (level offsets from the descriptor); four 32-bit counters; four border-colour muxes.
#[name_lets]
pub fn tex_cache(m: &mut Module, cfg: &TexCfg, i: CacheIn) -> CacheOut {
    let lines = cfg.cache_lines;
    let keyw = 4 + 2 * cfg.coord_width();
    let (fv, f, f_ready) = i.feet.split();
    let valid = m.reg("line_valid", lines).reset(0);
    // Look-up: every bank's tag at once.
    let mut misses = Vec::new();
    let mut keys = Vec::new();
    let mut idxs = Vec::new();
    let mut tag_mems = Vec::new();
    for b in 0..4u64 {
        let (col, row) = bank_texel(&f, b);
        let used = (0..4usize)
            .map(|p| {
                f.need.bit(p as u32) & f.x[p & 1].bit(0).eq(b & 1) & f.y[p >> 1].bit(0).eq(b >> 1)
            })
            .reduce(|a, c| a | c)
            .unwrap();
        let key = cat(&[f.level, row >> 1, col >> 1]);
        let idx = line_index(cfg, col, row, f.level);
        let tag_mem = m.memory(&format!("tag{b}"), keyw, lines);
        let tag = tag_mem.read_comb(idx);
        let line_ok = valid.q().shr(idx).bit(0) & tag.eq(key);
        misses.push(used & !line_ok);
        keys.push(key);
        idxs.push(idx);
        tag_mems.push(tag_mem);
    }
    let miss_vec = cat_lsb_first(&misses);
    let any_miss = miss_vec.ne(0);
    // A miss: the lowest missing bank's line is claimed now (tag, valid) and requested.
    let outstanding = m
        .reg("outstanding", clog2(cfg.max_fills as u64 + 1))
        .reset(0);
    let credit = outstanding.q().lt(cfg.max_fills as u64);
    let alloc = fv & any_miss & credit;
    let first = lowest_index(miss_vec);
    let alloc_key = index_select(first, &keys);
    let alloc_idx = index_select(first, &idxs);
    for t in &tag_mems {
        t.write(alloc, alloc_idx, alloc_key);
    }
    let fill_cfg = FifoCfg {
        depth: cfg.max_fills,
    };
    let (line_push, _) = Stream::offer(m, "line", alloc, LineKey { key: alloc_key });
    let line_q = fifo(m, &fill_cfg, line_push);
    let (index_push, _) = Stream::offer(m, "fill_index", alloc, LineIndex { idx: alloc_idx });
    let index_q = fifo(m, &fill_cfg, index_push);
    let (lv, line, line_ready) = line_q.pop.split();
    let addr = line_addresses(m, cfg, &i.desc, line.key);
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", lv, MemReq { addr });
    line_ready.drive(req_ready);
    let fill_q = fifo(m, &fill_cfg, i.mem_resp);
    // Every line hit (or is in flight): the footprint enters the queue.
    let started = m.reg("started", 3).reset(0);
    let waiting = Waiting {
        foot: f.clone(),
        fills: started.q(),
    };
    let (enter, enter_ready) = Stream::offer(m, "enter", fv & !any_miss, waiting);
    let accept = fv & !any_miss & enter_ready;
    f_ready.drive(!any_miss & enter_ready);
    started.next(accept.mux(0, alloc.mux(started.q() + 1, started.q())));
    let queue = fifo(
        m,
        &FifoCfg {
            depth: cfg.queue_depth,
        },
        enter,
    );
    // Flush between footprints (never between the fills of one).
    let flush_pend = m.reg("flush_pending", 1).reset(0);
    let want_flush = i.flush | flush_pend.q();
    let do_flush = want_flush & !alloc & (started.q().eq(0) | accept);
    flush_pend.next(want_flush & !do_flush);
    let set_bit = m.lit(1, lines).shl(alloc_idx);
    valid.next(do_flush.mux(m.lit(0, lines), alloc.mux(valid.q() | set_bit, valid.q())));
    // Head: write its fills into the banks as they arrive, then read.
    let (hv, h, h_ready) = queue.pop.split();
    let queued = !queue.empty;
    let written = m.reg("written", 3).reset(0);
    let (fill_v, fill, fill_ready) = fill_q.pop.split();
    let (_, fill_at, index_ready) = index_q.pop.split();
    let write = queued & written.q().ne(h.fills) & fill_v;
    fill_ready.drive(write);
    index_ready.drive(write);
    let ow = outstanding.q().width();
    outstanding.next(outstanding.q() + alloc.zext(ow) - write.zext(ow));
    let mut datas = Vec::new();
    for b in 0..4u64 {
        let data_mem = m.memory(&format!("bank{b}"), 32, lines);
        data_mem.write(write, fill_at.idx, fill.data[b as usize]);
        let (col, row) = bank_texel(&h.foot, b);
        let idx = line_index(cfg, col, row, h.foot.level);
        datas.push(data_mem.read_comb(idx));
    }
    let hf = &h.foot;
    let texels: Vec<Sig> = (0..4usize)
        .map(|p| {
            let bank = index_select(cat(&[hf.y[p >> 1].bit(0), hf.x[p & 1].bit(0)]), &datas);
            hf.border.bit(p as u32).mux(i.desc.border, bank)
        })
        .collect();
    let out = FootData {
        tag: hf.tag.clone(),
        pos: hf.pos.clone(),
        fx: hf.fx,
        fy: hf.fy,
        texels,
    };
    let complete = written.q().eq(h.fills);
    let (data, out_ready) = Stream::offer(m, "texels", hv & complete, out);
    let leave = hv & complete & out_ready;
    h_ready.drive(complete & out_ready);
    written.next(leave.mux(0, write.mux(written.q() + 1, written.q())));
    let fetch = leave & hf.pos.fetch;
    let reads = hf.need.bit(0).zext(3)
        + hf.need.bit(1).zext(3)
        + hf.need.bit(2).zext(3)
        + hf.need.bit(3).zext(3);
    let footprints = counter(m, "footprints", fetch, 32);
    let read_inc = (!fetch).mux(0, reads);
    let texel_reads = counter(m, "texel_reads", read_inc, 32);
    let hits = counter(m, "hits", accept & f.pos.fetch & started.q().eq(0), 32);
    let misses = counter(m, "misses", alloc, 32);
    CacheOut {
        data: skid_buffer(m, data),
        mem_req,
        footprints,
        texel_reads,
        hits,
        misses,
    }
}
