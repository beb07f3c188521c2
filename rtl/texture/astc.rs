//! ASTC textures in the texture unit (issue 14 §1, D5, D8): `tex_astc`, a decode-on-fill stage
//! between the unit's texel cache and memory, and [`texture_unit_astc_top`], the unit with it.
//!
//! # Design: decode on fill
//! ```text
//!  req ─▶ tex_lod ─▶ tex_address ─▶ tex_cache ─▶ tex_filter ─▶ tex_answer ─▶ answer
//!                                    │  ▲ mem_req / mem_resp: four RGBA8 texels of a 2×2 line
//!                                    ▼  │
//!                                   tex_astc: address → (level, x, y) → block, texel in block;
//!                                   block cache (128-bit blocks) ─▶ astc_dp (one texel/clock)
//!                                    │  ▲ blk_req / blk_resp: one 128-bit block
//!                                    ▼  │
//!                                   memory (ASTC blocks)
//! ```
//! The unit's texel cache (`tex_cache`, four banks by (x&1, y&1)) holds *decoded* RGBA8 texels,
//! so a footprint whose lines are in the cache passes at one per clock exactly as an RGBA8
//! texture's does: LOD, address, cache, bilinear/trilinear filter, gather and raw bypass are
//! the RGBA8 path unchanged, and the filter sees the UNORM8 (or 8-bit sRGB) texels astcenc
//! writes (`-dl` / `-ds`). The unit addresses an ASTC texture as an RGBA8 texture laid out
//! linearly from word 0 (a *virtual* address); `tex_astc` turns each virtual texel address of
//! a line fill back into (level, x, y), then into the block (levels packed level 0 first in
//! block units, blocks row-major, `⌈w_l / bw⌉` per row, four little-endian words per block,
//! from word `desc_base`) and the texel inside it, looks the block up in a small direct-mapped
//! block cache (fills counted), and decodes the four texels of the line through one ASTC_DP
//! (`rtl/astc/dp`, bit-exact with astcenc) back to back.
//!
//! # The trade-off (issue 14 §1: four decoders per clock or a shared-block decoder)
//! Both designs of the issue put the decoder *after* the cache (the cache holds blocks) so
//! that every footprint is decoded, which costs four texel decodes per clock. Here the decoder
//! sits *before* the cache (the cache holds texels) and decodes only on a line fill, i.e. at
//! the miss rate: the warm-cache footprint rate is the RGBA8 unit's (one per clock), and one
//! ASTC_DP serves the fills (4 decodes per 2×2 line back to back, latency 8, so a line fill
//! costs about 14 clocks plus the block fetch when the block misses; the RGBA8 line fill waits
//! for memory anyway). Measured (Yosys generic `synth -flatten`, commands in the cost section
//! of [`texture_unit_astc_top`]): one ASTC_DP (LDR, fixed 6x6) is the bulk of the increase,
//! while four ASTC_DP (design (a)) would be 4 × that; a shared-block decoder (design (b)) needs
//! the endpoint/partition logic of one ASTC_DP plus four per-texel weight/interpolation stages
//! and a decoded-block cache (≈ 4 × 256 bits of endpoints + 144 weights × 8 bits per line),
//! estimated at 1.5–2 ASTC_DP. The price of decode-on-fill is the cache's capacity: a decoded
//! texel takes 32 bits of texel cache where the block took 8 (6x6: 3.6) bits, so a texel cache
//! of the same area holds 4× (14×) fewer texels than a block cache; the small block cache
//! behind it (`block_lines`) keeps neighbouring line fills from refetching a block.
//!
//! HDR blocks: the decoder is built LDR-only (`Profiles::Ldr`), so an HDR block decodes to
//! astcenc's LDR error colour (magenta), as `astcenc -dl` / `-ds` write it; 16-bit or HDR
//! filtering is not built.

use super::{counter, texture_unit, MemReq, MemResp, TexCfg, TexDescPort, TexRequest, TexUnitIn};
use crate::astc::dp::{astc_dp, DpCfg, DpReq, Footprint, Profiles};
use rendergen_hdl::{
    cat, clog2, index_select, lut, name_lets, select, Bundle, Design, ElabErrors, Io, Module, Sig,
    Stream,
};
use std::ops::RangeInclusive;

/// Legal [`TexAstcCfg::block_lines`] (powers of two).
pub const BLOCK_LINES: RangeInclusive<u64> = 2..=64;

/// Parameters of [`texture_unit_astc_top`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexAstcCfg {
    /// The texture unit's parameters ([`TexCfg`]).
    pub unit: TexCfg,
    /// The block footprint (one of the 14 2D footprints). Default 6x6.
    pub footprint: Footprint,
    /// Lines of the block cache (128-bit blocks), a power of two in 2 ..= 64. Default 8.
    pub block_lines: u32,
}

impl Default for TexAstcCfg {
    fn default() -> Self {
        TexAstcCfg {
            unit: TexCfg::default(),
            footprint: Footprint { w: 6, h: 6 },
            block_lines: 8,
        }
    }
}

/// A block read (`blk_req`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct BlockReq<T = Sig> {
    /// Word address of the block's first word (32 bits); the block is 4 consecutive words.
    pub addr: T,
}

/// A block (`blk_resp`), answering `blk_req` in order.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct BlockResp<T = Sig> {
    /// The block's four words, word 0 = bits 31..0 of the block (little-endian bytes).
    pub data: Vec<T>,
}

/// What [`tex_astc`] takes.
#[derive(Io)]
pub struct AstcIn {
    /// Line reads of the texel cache (virtual RGBA8 addresses: linear, from word 0).
    pub line_req: Stream<MemReq>,
    /// The bound texture (`log2_w`, `log2_h`, `srgb`, and `base`: the first block's word).
    pub desc: TexDescPort,
    /// Forget every block.
    pub flush: Sig,
    /// Blocks from memory.
    pub blk_resp: Stream<BlockResp>,
}

/// What [`tex_astc`] gives.
#[derive(Io)]
pub struct AstcOut {
    /// Decoded lines for the texel cache.
    pub line_resp: Stream<MemResp>,
    /// Block reads.
    pub blk_req: Stream<BlockReq>,
    /// Texels decoded (4 per line fill).
    pub decodes: Sig,
    /// Blocks fetched from memory (block-cache misses).
    pub block_fills: Sig,
}

/// `⌊x / d⌋` for `x < 2^11` by a multiply with `⌈2^20 / d⌉` (exact: see the unit test).
pub fn div_const(m: &mut Module, x: Sig, d: u32) -> Sig {
    let magic = (1u64 << 20).div_ceil(d as u64);
    (x.zext(11).mul_full(m.lit(magic, 21)) >> 20).bits(10, 0)
}

/// Sequencer states of [`tex_astc`].
const IDLE: u64 = 0;
const LOCATE: u64 = 1;
const LOOKUP: u64 = 2;
const REQUEST: u64 = 3;
const WAIT: u64 = 4;
const COLLECT: u64 = 5;

/// Width of a block number (blocks of all levels of a 1024² texture at 4x4: < 2^17).
const BLOCK_NUM_WIDTH: u32 = 20;

/// Where the texel at a virtual address lives: (block number, x and y inside the block).
#[name_lets]
fn locate(
    m: &mut Module,
    cfg: &TexAstcCfg,
    d: &TexDescPort,
    level: Sig,
    addr: Sig,
    offsets: &[Sig],
    block_offsets: &[Sig],
) -> (Sig, Sig, Sig) {
    let fp = cfg.footprint;
    let lsize = |log2: Sig, l: Sig| l.ge(log2).mux(0, log2 - l);
    let levels = offsets.len() - 1;
    let off = select(level, &offsets[..levels], offsets[levels]);
    let lw = lsize(d.log2_w, level);
    let rel = addr - off;
    let mask = (m.lit(1, 32).shl(lw) - 1).bits(31, 0);
    let x = (rel & mask).bits(10, 0);
    let y = rel.shr(lw).bits(10, 0);
    let bx = div_const(m, x, fp.w);
    let by = div_const(m, y, fp.h);
    let tx = (x - bx.mul_full(m.lit(fp.w as u64, 4)).bits(10, 0)).bits(3, 0);
    let ty = (y - by.mul_full(m.lit(fp.h as u64, 4)).bits(10, 0)).bits(3, 0);
    let per_row = blocks_across(lw, fp.w);
    let row_start = by.bits(9, 0).mul_full(per_row).bits(BLOCK_NUM_WIDTH - 1, 0);
    let level_start = select(level, &block_offsets[..levels], block_offsets[levels]);
    let number = level_start + row_start + bx.zext(BLOCK_NUM_WIDTH);
    (number, tx, ty)
}

/// `⌈2^log2 / b⌉` (10 bits) for `log2` in 0 ..= 10: blocks across a level side.
fn blocks_across(log2: Sig, b: u32) -> Sig {
    let table: Vec<u64> = (0..16u64)
        .map(|k| (1u64 << k.min(10)).div_ceil(b as u64))
        .collect();
    lut(log2.bits(3, 0), &table, 10)
}

/// Decode-on-fill: answers each line read of the texel cache with the four texels decoded
/// from their ASTC blocks (module docs give the design and its trade-off).
///
/// * **Protocol:** stream rules on every port; one line in flight (`line_req` is taken only when
///   the previous line was answered: the texel cache's outstanding fills wait in its line-key
///   FIFO, so behind this stage they do not overlap, while hits still pass under them); `line_resp` answers `line_req` in order; `blk_resp`
///   answers `blk_req` in order, one block at a time.
/// * **Timing:** a line whose blocks are in the block cache is answered 14 clocks after it is
///   taken (1 locate, 4 decode issues, ASTC_DP latency 8, 1 answer); each missing block adds
///   the `blk_req` → `blk_resp` round trip plus two clocks. No combinational path from an
///   input to an output except `desc_*` → `blk_req_addr`.
/// * **Cost:** one ASTC_DP (LDR, fixed footprint); a `block_lines × 128` data RAM and a
///   `block_lines × 20` tag RAM read combinationally; four 32-bit address and four location
///   registers; the address inverter (11 level comparators, two constant dividers and three
///   small multipliers per texel); two 32-bit counters.
#[name_lets]
pub fn tex_astc(m: &mut Module, cfg: &TexAstcCfg, i: AstcIn) -> AstcOut {
    let lines_n = cfg.block_lines;
    let ib = clog2(lines_n as u64);
    let d = &i.desc;
    let state_reg = m.reg("state", 3).reset(IDLE);
    let state = state_reg.q();
    // Line request: latch the four virtual addresses.
    let (lv, line, line_ready) = i.line_req.split();
    let idle = state.eq(IDLE);
    line_ready.drive(idle);
    let take = lv & idle;
    let addr: Vec<Sig> = (0..4)
        .map(|k| {
            let r = m.reg(&format!("line_addr[{k}]"), 32);
            r.next_when(take, line.addr[k]);
            r.q()
        })
        .collect();
    // Level offsets of the virtual RGBA8 layout and of the block layout.
    let levels = cfg.unit.max_log2 + 1;
    let lsize = |log2: Sig, l: Sig| l.ge(log2).mux(0, log2 - l);
    let mut offsets = vec![m.lit(0, 32)];
    let mut block_offsets = vec![m.lit(0, BLOCK_NUM_WIDTH)];
    for l in 0..levels {
        let lv = m.lit(l as u64, 4);
        let (lw, lh) = (lsize(d.log2_w, lv), lsize(d.log2_h, lv));
        let words = m.lit(1, 32).shl((lw + lh).zext(5));
        offsets.push(*offsets.last().unwrap() + words);
        let blocks = blocks_across(lw, cfg.footprint.w)
            .mul_full(blocks_across(lh, cfg.footprint.h))
            .bits(BLOCK_NUM_WIDTH - 1, 0);
        block_offsets.push(*block_offsets.last().unwrap() + blocks);
    }
    // All four texels of a line lie in one level: count the level starts at or below addr 0.
    let level = (1..levels as usize)
        .map(|l| addr[0].ge(offsets[l]).zext(4))
        .reduce(|a, b| a + b)
        .unwrap_or_else(|| m.lit(0, 4));
    let locating = state.eq(LOCATE);
    let mut number = Vec::new();
    let mut tx = Vec::new();
    let mut ty = Vec::new();
    for (k, &a) in addr.iter().enumerate() {
        let (n, x, y) = locate(m, cfg, d, level, a, &offsets, &block_offsets);
        let rn = m.reg(&format!("block_number[{k}]"), BLOCK_NUM_WIDTH);
        rn.next_when(locating, n);
        let rx = m.reg(&format!("texel_x[{k}]"), 4);
        rx.next_when(locating, x);
        let ry = m.reg(&format!("texel_y[{k}]"), 4);
        ry.next_when(locating, y);
        number.push(rn.q());
        tx.push(rx.q());
        ty.push(ry.q());
    }
    // Block cache look-up of texel `k`.
    let k_reg = m.reg("texel", 2).reset(0);
    let k = k_reg.q();
    let cur = index_select(k, &number);
    let idx = cur.bits(ib - 1, 0);
    let valid = m.reg("block_valid", lines_n).reset(0);
    let tag_mem = m.memory("block_tag", BLOCK_NUM_WIDTH, lines_n);
    let data_mem = m.memory("block_data", 128, lines_n);
    let hit = valid.q().shr(idx).bit(0) & tag_mem.read_comb(idx).eq(cur);
    let block = data_mem.read_comb(idx);
    let looking = state.eq(LOOKUP);
    let dp_cfg = DpCfg {
        tag_width: 2,
        footprint: Some(cfg.footprint),
        profiles: Profiles::Ldr,
    };
    let dp_req = DpReq {
        block,
        x: index_select(k, &tx),
        y: index_select(k, &ty),
        bw: None,
        bh: None,
        profile: Some(d.srgb.zext(2)),
        tag: k,
    };
    let (dp_in, dp_ready) = Stream::offer(m, "decode", looking & hit, dp_req);
    let issued = looking & hit & dp_ready;
    k_reg.next(locating.mux(m.lit(0, 2), issued.mux(k + 1, k)));
    // Block fill.
    let blk_addr = d.base + cat(&[cur.zext(30), m.lit(0, 2)]);
    let (blk_req, req_ready) =
        Stream::offer(m, "blk_req", state.eq(REQUEST), BlockReq { addr: blk_addr });
    let (rv, resp, resp_ready) = i.blk_resp.split();
    let waiting = state.eq(WAIT);
    resp_ready.drive(waiting);
    let filled = waiting & rv;
    let words = cat(&[resp.data[3], resp.data[2], resp.data[1], resp.data[0]]);
    data_mem.write(filled, idx, words);
    tag_mem.write(filled, idx, cur);
    let set_bit = m.lit(1, lines_n).shl(idx);
    valid.next(i.flush.mux(
        m.lit(0, lines_n),
        filled.mux(valid.q() | set_bit, valid.q()),
    ));
    // Decoded texels, collected by tag.
    let decoded = m.child("decoder", &dp_cfg, dp_in, astc_dp);
    let (dv, texel, dp_out_ready) = decoded.split();
    dp_out_ready.drive(m.lit(1, 1));
    let got_reg = m.reg("decoded", 3).reset(0);
    let got = got_reg.q();
    got_reg.next(locating.mux(m.lit(0, 3), dv.mux(got + 1, got)));
    let texels: Vec<Sig> = (0..4u64)
        .map(|j| {
            let r = m.reg(&format!("texel_rgba8[{j}]"), 32);
            r.next_when(dv & texel.tag.eq(j), texel.rgba8);
            r.q()
        })
        .collect();
    let all_in = got.eq(4);
    let collecting = state.eq(COLLECT);
    let (out, out_ready) = Stream::offer(m, "line", collecting & all_in, MemResp { data: texels });
    let answered = collecting & all_in & out_ready;
    let last_issue = issued & k.eq(3);
    let next = select(
        state,
        &[
            take.mux(m.lit(LOCATE, 3), state),
            m.lit(LOOKUP, 3),
            last_issue.mux(m.lit(COLLECT, 3), (!hit).mux(m.lit(REQUEST, 3), state)),
            req_ready.mux(m.lit(WAIT, 3), state),
            filled.mux(m.lit(LOOKUP, 3), state),
            answered.mux(m.lit(IDLE, 3), state),
        ],
        state,
    );
    state_reg.next(next);
    AstcOut {
        line_resp: out,
        blk_req,
        decodes: counter(m, "decodes", issued, 32),
        block_fills: counter(m, "block_fills", filled, 32),
    }
}

/// The texture unit with ASTC textures ([`tex_astc`] as the child `astc` between the unit's
/// texel cache and memory). Ports: `req`, `answer`, `desc_*` (as [`TexDescPort`]: `desc_base`
/// is the word address of the texture's first block, `desc_tiled` is ignored, `desc_srgb`
/// selects the LDR sRGB profile, `desc_border` is an RGBA8 texel as for RGBA8 textures),
/// `flush` (texel and block caches), `blk_req`/`blk_resp` (one 128-bit block per read),
/// counters `counters_*` of the unit plus `counters_astc_decodes` and
/// `counters_astc_block_fills`.
///
/// * **Timing:** as the RGBA8 unit (one footprint per clock while the texel cache hits, 15
///   clocks latency); a texel-cache line fill takes [`tex_astc`]'s 14 clocks plus block fetches.
/// * **Cost** (`rendergen synth texture_unit[_astc] --per-module`, defaults, Yosys generic,
///   measured 2026-11-24 with the non-blocking texel cache): without ASTC 73,961 cells, 10,255
///   flip-flops, 125 gate levels; with ASTC (6×6, 8 block lines; or the ignored test
///   `texture_astc::astc_unit_area`) **148,610 cells, 13,881 flip-flops, 175 gate levels** —
///   `tex_astc` 74,805 with its children: 19,964 of its own (1,617 flip-flops: block cache,
///   address inverter) and the one ASTC_DP 54,841 (2,009 flip-flops); `tex_cache` 18,671.
///   (With the blocking cache: 68,827 without, 143,520 with ASTC.) Four decoders behind the
///   cache would cost about four times the ASTC_DP instead.
/// * **Errors:** every [`TexCfg`] range as [`super::texture_unit_top`], a footprint that is
///   not one of the 14 (`footprint`), `block_lines` not a power of two in 2 ..= 64.
///
/// ```
/// use rendergen_rtl::texture::astc::{texture_unit_astc_top, TexAstcCfg};
/// let design = texture_unit_astc_top(&TexAstcCfg::default()).expect("elaborates");
/// assert!(design.top().outputs.iter().any(|p| p.name == "blk_req_addr"));
/// let bad = texture_unit_astc_top(&TexAstcCfg { block_lines: 3, ..TexAstcCfg::default() });
/// assert!(bad.unwrap_err().to_string().contains("block_lines"));
/// ```
#[name_lets]
pub fn texture_unit_astc_top(cfg: &TexAstcCfg) -> Result<Design, ElabErrors> {
    let u = &cfg.unit;
    let params = format!(
        "slot_width={} quad_width={} cache_lines={} max_log2={} footprint={}x{} block_lines={}",
        u.slot_width,
        u.quad_width,
        u.cache_lines,
        u.max_log2,
        cfg.footprint.w,
        cfg.footprint.h,
        cfg.block_lines
    );
    Design::build_with_params("texture_unit_astc", &params, |m| {
        let mut ok = m.check_param("slot_width", u.slot_width.into(), super::SLOT_WIDTH)
            & m.check_param("quad_width", u.quad_width.into(), super::QUAD_WIDTH)
            & m.check_param_pow2("cache_lines", u.cache_lines.into(), super::CACHE_LINES)
            & m.check_param("max_log2", u.max_log2.into(), super::MAX_LOG2)
            & m.check_param("max_fills", u.max_fills.into(), super::MAX_FILLS)
            & m.check_param("queue_depth", u.queue_depth.into(), super::QUEUE_DEPTH)
            & m.check_param_pow2("block_lines", cfg.block_lines.into(), BLOCK_LINES);
        if Footprint::new(cfg.footprint.w, cfg.footprint.h).is_none() {
            ok &= m.param_error(
                "footprint",
                (cfg.footprint.w * 100 + cfg.footprint.h).into(),
                "one of 4x4 5x4 5x5 6x5 6x6 8x5 8x6 8x8 10x5 10x6 10x8 10x10 12x10 12x12 (w*100+h)",
            );
        }
        if ok {
            ports(m, cfg);
        }
    })
}

#[name_lets]
fn ports(m: &mut Module, cfg: &TexAstcCfg) {
    let req = m.input_stream::<TexRequest>("req", &TexRequest::shape(&cfg.unit));
    let desc = m.input_bundle::<TexDescPort>("desc", &TexDescPort::shape());
    let flush = m.input("flush", 1);
    let blk_resp = m.input_stream::<BlockResp>("blk_resp", &BlockResp { data: vec![32; 4] });
    // The unit sees a linear RGBA8 texture from word 0 (the virtual addresses).
    let unit_desc = TexDescPort {
        base: m.lit(0, 32),
        tiled: m.lit(0, 1),
        ..desc.clone()
    };
    let (mem_resp, plug) = m.io_loop::<Stream<MemResp>>("mem_resp", &MemResp { data: vec![32; 4] });
    let unit = texture_unit(
        m,
        &cfg.unit,
        TexUnitIn {
            req,
            desc: unit_desc,
            flush,
            mem_resp,
        },
    );
    let astc = m.child(
        "astc",
        cfg,
        AstcIn {
            line_req: unit.mem_req,
            desc,
            flush,
            blk_resp,
        },
        tex_astc,
    );
    plug.connect(astc.line_resp);
    m.output_stream("answer", unit.answer);
    m.output_stream("blk_req", astc.blk_req);
    m.output_bundle("counters", &unit.counters);
    m.output("counters_astc_decodes", astc.decodes);
    m.output("counters_astc_block_fills", astc.block_fills);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constant divider is exact for every 11-bit dividend and every block side.
    #[test]
    fn div_const_is_exact() {
        for d in [4u64, 5, 6, 8, 10, 12] {
            let magic = (1u64 << 20).div_ceil(d);
            for x in 0..2048u64 {
                assert_eq!((x * magic) >> 20, x / d, "x {x} d {d}");
            }
        }
    }

    /// Every footprint elaborates; bad parameters are errors naming the parameter.
    #[test]
    fn elaborates_and_rejects_bad_parameters() {
        for fp in Footprint::ALL {
            let cfg = TexAstcCfg {
                unit: TexCfg {
                    max_log2: 6,
                    ..TexCfg::default()
                },
                footprint: fp,
                block_lines: 4,
            };
            texture_unit_astc_top(&cfg).unwrap_or_else(|e| panic!("{fp:?}: {e}"));
        }
        let bad = |cfg: TexAstcCfg, name: &str| {
            let e = texture_unit_astc_top(&cfg).unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        };
        let base = TexAstcCfg::default();
        bad(
            TexAstcCfg {
                footprint: Footprint { w: 7, h: 7 },
                ..base.clone()
            },
            "footprint",
        );
        bad(
            TexAstcCfg {
                block_lines: 128,
                ..base.clone()
            },
            "block_lines",
        );
        bad(
            TexAstcCfg {
                unit: TexCfg {
                    max_log2: 11,
                    ..TexCfg::default()
                },
                ..base
            },
            "max_log2",
        );
    }
}
