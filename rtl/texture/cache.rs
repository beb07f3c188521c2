//! `tex_cache`: four texel banks by (x&1, y&1) behind a direct-mapped cache of 2×2 blocks, in
//! front of a line-read memory port.

use super::{counter, FootData, FootOp, MemReq, MemResp, TexCfg, TexDescPort};
use crate::stream::skid::skid_buffer;
use rendergen_hdl::{
    cat, cat_lsb_first, clog2, index_select, lowest_index, name_lets, select, Io, Module, Sig,
    Stream,
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

/// The texel cache and banks.
///
/// * **Protocol:** stream rules; footprints leave in order through a skid buffer; `mem_resp`
///   answers `mem_req` in order, one line at a time (a miss blocks the head footprint until
///   its lines are in).
/// * **Timing:** a footprint whose needed texels all hit passes in the clock it arrives
///   (initiation interval 1, latency 1 through the skid buffer); each missing line costs a
///   `mem_req` → `mem_resp` round trip plus two clocks. Bank reads are combinational from the
///   footprint register of `tex_address`.
/// * **Cost:** four 32-bit border-colour muxes; per bank a `cache_lines × 32` data RAM and a `cache_lines × (4 + 2·max_log2)`
///   tag RAM (four tag copies give four lookups per clock), one valid bit per line, the line
///   address generator (level offsets from the descriptor), four 32-bit counters.
#[name_lets]
pub fn tex_cache(m: &mut Module, cfg: &TexCfg, i: CacheIn) -> CacheOut {
    let lines = cfg.cache_lines;
    let ib = clog2(lines as u64);
    let cw = cfg.coord_width();
    let keyw = 4 + 2 * cw;
    let (hx, hy) = (ib.div_ceil(2), ib / 2);
    let (fv, f, f_ready) = i.feet.split();
    let state_reg = m.reg("state", 2).reset(0); // 0 look up, 1 request, 2 wait
    let state = state_reg.q();
    let valid = m.reg("line_valid", lines).reset(0);
    let block = |c: Sig| (c >> 1).zext(16);
    let index_of = |cx: Sig, cy: Sig, level: Sig| {
        let (bx, by) = (block(cx), block(cy));
        let raw = cat(&[by.bits(hy - 1, 0), bx.bits(hx - 1, 0)]);
        raw ^ level.zext(ib.max(4)).bits(ib - 1, 0).resize(ib)
    };
    let mut hits = Vec::new();
    let mut misses = Vec::new();
    let mut datas = Vec::new();
    let mut keys = Vec::new();
    let mut idxs = Vec::new();
    let mut tag_mems = Vec::new();
    let mut data_mems = Vec::new();
    for b in 0..4u64 {
        let (bx, by) = (b & 1, b >> 1);
        let col = f.x[0].bit(0).eq(bx).mux(f.x[0], f.x[1]);
        let row = f.y[0].bit(0).eq(by).mux(f.y[0], f.y[1]);
        let used = (0..4usize)
            .map(|p| f.need.bit(p as u32) & f.x[p & 1].bit(0).eq(bx) & f.y[p >> 1].bit(0).eq(by))
            .reduce(|a, c| a | c)
            .unwrap();
        let key = cat(&[f.level, row >> 1, col >> 1]);
        let idx = index_of(col, row, f.level);
        let tag_mem = m.memory(&format!("tag{b}"), keyw, lines);
        let data_mem = m.memory(&format!("bank{b}"), 32, lines);
        let tag = tag_mem.read_comb(idx);
        let line_ok = valid.q().shr(idx).bit(0) & tag.eq(key);
        hits.push(!used | line_ok);
        misses.push(used & !line_ok);
        datas.push(data_mem.read_comb(idx));
        keys.push(key);
        idxs.push(idx);
        tag_mems.push(tag_mem);
        data_mems.push(data_mem);
    }
    let all_hit = hits[0] & hits[1] & hits[2] & hits[3];
    let looking = state.eq(0);
    // Miss: latch the first missing bank's line, read it, fill all four banks.
    let miss_vec = cat_lsb_first(&misses);
    let first = lowest_index(miss_vec);
    let start_fill = fv & looking & !all_hit;
    let fill_key = m.reg("fill_key", keyw);
    fill_key.next_when(start_fill, index_select(first, &keys));
    let fill_idx = m.reg("fill_idx", ib);
    fill_idx.next_when(start_fill, index_select(first, &idxs));
    let fk = fill_key.q();
    let (f_level, f_by, f_bx) = (
        fk.bits(keyw - 1, 2 * cw),
        fk.bits(2 * cw - 1, cw),
        fk.bits(cw - 1, 0),
    );
    let levels = cfg.max_log2 + 1;
    let addr: Vec<Sig> = (0..4u64)
        .map(|b| {
            let wmask = (m
                .lit(1, cw + 1)
                .shl(i.desc.log2_w.lt(f_level).mux(0, i.desc.log2_w - f_level))
                - 1)
            .bits(cw, 0);
            let hmask = (m
                .lit(1, cw + 1)
                .shl(i.desc.log2_h.lt(f_level).mux(0, i.desc.log2_h - f_level))
                - 1)
            .bits(cw, 0);
            let x = cat(&[f_bx, m.lit(b & 1, 1)]);
            let y = cat(&[f_by, m.lit(b >> 1, 1)]);
            let x = x.gt(wmask).mux(wmask, x);
            let y = y.gt(hmask).mux(hmask, y);
            texel_addr(m, &i.desc, f_level, x, y, levels)
        })
        .collect();
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", state.eq(1), MemReq { addr });
    let (rv, resp, resp_ready) = i.mem_resp.split();
    let waiting = state.eq(2);
    resp_ready.drive(waiting);
    let filled = waiting & rv;
    for b in 0..4 {
        data_mems[b].write(filled, fill_idx.q(), resp.data[b]);
        tag_mems[b].write(filled, fill_idx.q(), fk);
    }
    let set_bit = m.lit(1, lines).shl(fill_idx.q());
    valid.next(
        i.flush
            .mux(m.lit(0, lines), filled.mux(valid.q() | set_bit, valid.q())),
    );
    state_reg.next(start_fill.mux(
        m.lit(1, 2),
        (state.eq(1) & req_ready).mux(m.lit(2, 2), filled.mux(m.lit(0, 2), state)),
    ));
    // Hit: the footprint passes.
    let texels: Vec<Sig> = (0..4usize)
        .map(|p| {
            let bank = index_select(cat(&[f.y[p >> 1].bit(0), f.x[p & 1].bit(0)]), &datas);
            f.border.bit(p as u32).mux(i.desc.border, bank)
        })
        .collect();
    let out = FootData {
        tag: f.tag.clone(),
        pos: f.pos.clone(),
        fx: f.fx,
        fy: f.fy,
        texels,
    };
    let (data, out_ready) = Stream::offer(m, "hit", fv & looking & all_hit, out);
    let accept = fv & looking & all_hit & out_ready;
    f_ready.drive(looking & all_hit & out_ready);
    let missed = m.reg("head_missed", 1).reset(0);
    missed.next(accept.mux(0, filled.mux(1, missed.q())));
    let fetch = accept & f.pos.fetch;
    let reads = f.need.bit(0).zext(3)
        + f.need.bit(1).zext(3)
        + f.need.bit(2).zext(3)
        + f.need.bit(3).zext(3);
    let footprints = counter(m, "footprints", fetch, 32);
    let read_inc = (!fetch).mux(0, reads);
    let texel_reads = counter(m, "texel_reads", read_inc, 32);
    let hits = counter(m, "hits", fetch & !missed.q(), 32);
    let misses = counter(m, "misses", filled, 32);
    CacheOut {
        data: skid_buffer(m, data),
        mem_req,
        footprints,
        texel_reads,
        hits,
        misses,
    }
}
