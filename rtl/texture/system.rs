//! `tex_system`: a shader core whose `tex` port is answered by the texture unit (issue 14
//! §1–§3): `core ─tex_req─▶ tex_bridge ─req─▶ texture_unit ─answer─▶ tex_bridge ─tex_resp─▶ core`,
//! the unit's `mem_req`/`mem_resp` at the top for a memory agent. The golden model is the
//! shader interpreter with `rendergen_sim::models::texture::system::TexEnv` answering `tex`.
//!
//! # Ports
//! Every port of `shader_core` except `tex_req_*` / `tex_resp_*`, with its name (`prog`,
//! `launch`, `ldg_req`, …, `export`, `done`, `issue`); every port of `texture_unit` except
//! `req_*` / `answer_*` (`desc_*`, `flush`, `mem_req`, `mem_resp`, `counters_*`); and the
//! bridge's counters `counters_requests` (requests taken from the core),
//! `counters_reg_writes` (texel register writes: per filtered or gather request its active
//! lanes; per raw request the words written to its active lanes, 16 per lane-set of four
//! lanes for *all*, fewer for *selective* and *shared* broadcasts and for duplicates) and
//! `counters_dup_dropped` (words a raw broadcast's mode would write but drops as duplicates
//! of an earlier sub-operation).
//!
//! # `tex_bridge`
//! Decodes the sampler immediate of the core's request (the table in
//! `rendergen_sim::models::texture::system`: mode, integer coordinates, broadcast and its
//! source lane, patch, sub-operation, filter, mip, explicit LOD, component, LOD; the word the
//! shader compiler emits, `compiler/shader/ABI.md` "Sampled textures") into the unit's
//! request; a broadcast asks the unit for its source lane's footprint only. On the way back it
//! puts the source lane's four words in every lane of a broadcast answer — the "sample
//! pipeline 124" broadcast of the source (§A.3 block 206) — with the answer's `skip` mask,
//! which words the core does not write, by the broadcast mode (bits 15:14 of a raw broadcast,
//! `compiler/shader/ABI.md` "Sampled textures"): none for *all* (64 texel register writes
//! for a 3×3 on a quad), the words outside each lane's kernel window for *selective* (a
//! 64-entry table of the sideband's patch geometry, [`selective_keep`]; 36 writes), all but
//! the source lane's for *shared* (16 writes: the quad-shared register set the lanes read
//! with `qget`). In every mode the answer also skips the **duplicates of overlapping
//! sub-operations** (§A.7, ¶81; [`duplicate_words`], a second 64-entry table): the strips of a
//! 19×1 (patch 3, sub-operations 1 ..= 3) overlap in columns 7 and 14, so lane 0's footprint
//! of strips 2 and 3 writes only its right column, and a program reads those texels from the
//! earlier strip's registers. The rule is static — sub-operations are issued in order, so
//! what sub-operation `k` repeats is a function of (patch, sub-operation, source) — and needs
//! no state per request. A 19×1 on a quad (11 broadcasts) writes 160 / 76 / 40 texel
//! registers in the modes all / selective / shared and drops 16 / 8 / 4 (the frame model's
//! `rendergen_sim::models::texture::collective::broadcast`); a 3×3 64 / 36 / 16, nothing
//! dropped. A kernel without a sideband code (5×5: patch 0, "method not used", §A.8's four
//! codes are all taken) has no mapping, so *selective* writes every word, as *all* (9
//! footprints, 144 writes per quad; *shared* 36). A FIFO of `order_depth` entries remembers
//! each request's (broadcast, source, mode, patch, sub-operation) until its answer (the unit
//! answers in order).
//! * **Protocol:** stream rules; answers in request order; nothing dropped: the core's request
//!   waits while the FIFO is full.
//! * **Timing:** combinational in both directions (no added latency); the unit's `req.ready`
//!   reaches the core's `tex_req.ready`, the core's `tex_resp.ready` reaches `answer.ready`.
//! * **Cost:** the FIFO (`order_depth × 9` bits), a 4-way mux of 4 words, the decode, two
//!   copies each of the 64 × 16-bit skip and duplicate tables (request side for the
//!   counters, answer side), two 16-bit population counts.
//!   Measured alone (`rendergen synth tex_bridge -p quads=1`, i.e. `TexSysCfg::default()`;
//!   `cargo test -p rendergen-testbenches --test testbenches texture::system::bridge_area --
//!   --ignored --nocapture`, 45 s; the CLI 10 s): 2,828 Yosys generic cells, 405 flip-flops
//!   (288 of them the 32-entry order FIFO, 32 the `dup_dropped` counter), longest path 41
//!   cells. Without the duplicate rule it was 2,635 cells, 373 flip-flops, 40 levels; before
//!   the broadcast modes 1,928 cells and 181 flip-flops (measured inside `tex_system`, below).
//!
//! # Cost
//! `rendergen synth tex_system -p quads=1 -p warps=2 -p regs=32 -p imem_depth=64 -p
//! cache_lines=16 --per-module` (Yosys generic cells, about 10 min here): 421,337 cells,
//! 31,724 flip-flops in all; `tex_bridge` 1,928 cells and 181 flip-flops (its order FIFO of 32
//! entries is most of them); the texture unit 68,600 cells; the core the rest (350,809 with its
//! lanes).
//!
//! # Parameters ([`TexSysCfg`])
//! `core` as `shader_core` (its slot and quad widths set the unit's tags), `tex` as
//! `texture_unit` (its `slot_width` and `quad_width` are taken from the core), `order_depth`
//! 1 ..= 64 (default 32).
//!
//! # Errors
//! Every parameter of the core and the unit outside its range, `order_depth` outside
//! [`ORDER_DEPTH`], all named.

use super::{texture_unit_ports, TexAnswer, TexCfg, TexRequest};
use crate::shader::{shader_core, shader_core_top, ShaderCfg, TexReq, TexResp};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{
    cat, cat_lsb_first, index_select, name_lets, select, Bundle, Design, ElabErrors, Io, Module,
    Sig, Stream,
};
use std::ops::RangeInclusive;

/// Legal [`TexSysCfg::order_depth`].
pub const ORDER_DEPTH: RangeInclusive<u64> = 1..=64;

/// Parameters of [`tex_system_top`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexSysCfg {
    /// The shader core.
    pub core: ShaderCfg,
    /// The texture unit (`slot_width`, `quad_width` are replaced by the core's).
    pub tex: TexCfg,
    /// Requests in flight the bridge remembers, 1 ..= 64. Default 32.
    pub order_depth: u32,
}

impl Default for TexSysCfg {
    fn default() -> Self {
        TexSysCfg {
            core: ShaderCfg::default(),
            tex: TexCfg::default(),
            order_depth: 32,
        }
    }
}

impl TexSysCfg {
    /// The unit's configuration with the core's tag widths.
    pub fn unit(&self) -> TexCfg {
        TexCfg {
            slot_width: self.core.slot_bits(),
            quad_width: self.core.quad_bits(),
            ..self.tex.clone()
        }
    }
}

/// A request's broadcast choice, remembered until its answer.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Order<T = Sig> {
    /// A broadcast.
    pub broadcast: T,
    /// Its source lane (2 bits).
    pub source: T,
    /// Its broadcast mode (2 bits, [`BCAST_ALL`], [`BCAST_SELECTIVE`], [`BCAST_SHARED`]).
    pub kind: T,
    /// Its patch code (2 bits; 0 unless a raw broadcast).
    pub patch: T,
    /// Its sub-operation (2 bits).
    pub subop: T,
}

/// Broadcast mode *all*: every active lane receives the source lane's four texels.
pub const BCAST_ALL: u64 = 0;
/// Broadcast mode *selective*: a lane receives only the texels of its own kernel window.
pub const BCAST_SELECTIVE: u64 = 1;
/// Broadcast mode *shared*: the four texels are written once, into the source lane.
pub const BCAST_SHARED: u64 = 2;

/// Origin in the group's patch of the raw footprint fetched by lane `source` under the
/// collective sideband `(patch, subop)` (§A.8: 1 = 4×4, 2 = 2×8, 3 = 8×2; with code 3,
/// sub-operation 0 is the 7×1 layout and 1 ..= 3 are the strips of a 19×1 kernel), and the
/// kernel the patch serves; `None` for patch code 0 (no mapping).
pub fn sideband_geometry(patch: u32, subop: u32, source: u32) -> Option<((u32, u32), (u32, u32))> {
    match (patch, subop) {
        (1, _) => Some(((2 * (source & 1), 2 * (source >> 1)), (3, 3))),
        (2, _) => Some(((0, [2, 0, 4, 6][source as usize]), (1, 7))),
        (3, 0) => Some((([2, 4, 0, 6][source as usize], 0), (7, 1))),
        (3, s) => Some(((7 * (s - 1) + 2 * source, 0), (19, 1))),
        _ => None,
    }
}

/// The words a selective broadcast writes (bit `4·lane + k`, texel `k` of the footprint): a
/// lane at `(lane & 1, lane >> 1)` of the quad keeps texel `k` when it lies in its kernel
/// window; every word without a sideband mapping (patch code 0).
pub fn selective_keep(patch: u32, subop: u32, source: u32) -> u16 {
    let Some(((ox, oy), (kw, kh))) = sideband_geometry(patch, subop, source) else {
        return 0xFFFF;
    };
    let mut keep = 0u16;
    for lane in 0..4u32 {
        let (lx, ly) = (lane & 1, lane >> 1);
        for k in 0..4u32 {
            let (x, y) = (ox + (k & 1), oy + (k >> 1));
            if x >= lx && x - lx < kw && y >= ly && y - ly < kh {
                keep |= 1 << (4 * lane + k);
            }
        }
    }
    keep
}

/// Whether texel `k` (`t00, t10, t01, t11`) of lane `source`'s raw footprint under the
/// sideband `(patch, subop)` was already delivered by an earlier sub-operation of the same
/// collective request: a static rule, because sub-operations are issued in order (§A.7,
/// ¶81: "duplicate data is discarded"). Only the 19×1 strips (code 3, sub-operations
/// 1 ..= 3) form a sequence; they overlap in one column each (strip `s` starts at column
/// `7·(s − 1)`, so source 0 of strips 2 and 3 fetches columns 7 and 14 again). The codes 1, 2
/// and (3, 0) are single-sub-operation layouts whose `subop` field is not a position: no
/// duplicates.
pub fn delivered_before(patch: u32, subop: u32, source: u32, k: u32) -> bool {
    let Some(((ox, oy), (19, 1))) = sideband_geometry(patch, subop, source) else {
        return false;
    };
    let (x, y) = (ox + (k & 1), oy + (k >> 1));
    (1..subop).any(|s| {
        (0..4u32).any(|l| {
            let Some(((ex, ey), _)) = sideband_geometry(patch, s, l) else {
                return false;
            };
            (ex..ex + 2).contains(&x) && (ey..ey + 2).contains(&y)
        })
    })
}

/// The words of a broadcast answer to `(patch, subop, source)` that no lane writes because an
/// earlier sub-operation delivered their texel ([`delivered_before`]), in every lane (bit
/// `4·lane + k`), in every broadcast mode.
pub fn duplicate_words(patch: u32, subop: u32, source: u32) -> u16 {
    (0..4u32)
        .filter(|&k| delivered_before(patch, subop, source, k))
        .fold(0, |acc, k| acc | 0x1111 << k)
}

/// The 16-bit masks of a broadcast answer (lane `l`'s word `k` at bit `4l + k`) from the
/// order's `kind`, `patch`, `subop` and `source`: the words its mode skips (none for *all*;
/// for *selective* the complement of [`selective_keep`], a 64-entry table; for *shared*
/// every lane's but the source's), and the duplicates of earlier sub-operations
/// ([`duplicate_words`], a 64-entry table), skipped as well.
fn broadcast_skip(m: &mut Module, o: &Order) -> (Sig, Sig) {
    let index = cat(&[o.patch, o.subop, o.source]);
    let table = |m: &mut Module, f: &dyn Fn(u32, u32, u32) -> u16| -> Vec<Sig> {
        (0..64u32)
            .map(|i| m.lit(f(i >> 4, (i >> 2) & 3, i & 3) as u64, 16))
            .collect()
    };
    let skip_table = table(m, &|p, s, l| !selective_keep(p, s, l));
    let selective = index_select(index, &skip_table);
    let shared = !m.lit(0xF, 16).shl(cat(&[o.source, m.lit(0, 2)]));
    let none = m.lit(0, 16);
    let by_mode = select(o.kind, &[none, selective, shared], none);
    let dup_table = table(m, &duplicate_words);
    (by_mode, index_select(index, &dup_table))
}

/// What [`tex_bridge`] takes.
#[derive(Io)]
pub struct BridgeIn {
    /// The core's texture requests.
    pub core_req: Stream<TexReq>,
    /// The unit's answers.
    pub answer: Stream<TexAnswer>,
}

/// What [`tex_bridge`] gives.
#[derive(Io)]
pub struct BridgeOut {
    /// Requests to the unit.
    pub req: Stream<TexRequest>,
    /// Answers to the core.
    pub core_resp: Stream<TexResp>,
    /// Requests taken from the core (32 bits, wrapping).
    pub requests: Sig,
    /// Texel register writes of the core's answers (32 bits, wrapping): per filtered or
    /// gather request its active lanes; per raw request the words its broadcast mode writes
    /// to the active lanes (four per lane unless selective or shared), duplicates of earlier
    /// sub-operations not counted.
    pub reg_writes: Sig,
    /// Texel register writes a raw broadcast's mode would make but skips because an earlier
    /// sub-operation of the collective request delivered the texel ([`duplicate_words`]; 32
    /// bits, wrapping): the model's `dup_dropped`.
    pub dup_dropped: Sig,
}

/// The sampler bridge between the core's `tex` port and the unit (see the module docs).
#[name_lets]
pub fn tex_bridge(m: &mut Module, cfg: &TexSysCfg, i: BridgeIn) -> BridgeOut {
    let ucfg = cfg.unit();
    let (cv, c, c_ready) = i.core_req.split();
    let s = c.sampler;
    let mode_code = s.bits(1, 0);
    let mode = mode_code.eq(3).mux(m.lit(0, 2), mode_code);
    let mip_code = s.bits(12, 11);
    let mip = mip_code.eq(3).mux(m.lit(0, 2), mip_code);
    let broadcast = s.bits(3, 3);
    let source = s.bits(5, 4);
    // Bits 15:14 are the broadcast mode of a raw broadcast (3 reads as all), else `comp`.
    let raw_broadcast = broadcast & mode_code.eq(1);
    let kind = (raw_broadcast & !s.bits(15, 14).eq(3)).mux(s.bits(15, 14), m.lit(0, 2));
    let one_hot = select(
        source,
        &[m.lit(1, 4), m.lit(2, 4), m.lit(4, 4), m.lit(8, 4)],
        m.lit(0, 4),
    );
    let order_full = m.wire("order_full", 1);
    let offsets: Vec<Sig> = (0..8).map(|_| m.lit(0, 4)).collect();
    let (req, unit_ready) = Stream::offer(
        m,
        "req",
        cv & !order_full.sig(),
        TexRequest {
            slot: c.slot.resize(ucfg.slot_width),
            quad: c.quad.resize(ucfg.quad_width),
            coords: c.coords.clone(),
            int_coords: s.bits(2, 2),
            offsets,
            lod: s.bits(31, 16),
            explicit_lod: s.bits(13, 13),
            mode,
            filter: s.bits(10, 10),
            mip,
            comp: s.bits(15, 14),
            mask: broadcast.mux(one_hot, c.mask),
            patch: s.bits(7, 6),
            subop: s.bits(9, 8),
        },
    );
    let taken = (cv & !order_full.sig() & unit_ready).named("taken");
    let lanes = (0..4).fold(m.lit(0, 3), |acc, k| acc + c.mask.bits(k, k).zext(3));
    // The sideband's layout matters only to a raw broadcast (selective and duplicate tables).
    let this = Order {
        broadcast,
        source,
        kind,
        patch: raw_broadcast.mux(s.bits(7, 6), m.lit(0, 2)),
        subop: s.bits(9, 8),
    };
    let (mode_skip, dup) = broadcast_skip(m, &this);
    let active_words = cat_lsb_first(&(0..4).map(|l| c.mask.bit(l).repeat(4)).collect::<Vec<_>>());
    let wanted = active_words & !mode_skip;
    let kept = wanted & !dup;
    let dropped = wanted & dup;
    let popcount =
        |m: &mut Module, v: Sig| (0..16).fold(m.lit(0, 5), |acc, b| acc + v.bit(b).zext(5));
    let raw_words = popcount(m, kept);
    let dup_words = popcount(m, dropped);
    let writes = mode_code.eq(1).mux(raw_words, lanes.zext(5));
    let zero = m.lit(0, 5);
    let duplicates = taken.mux(dup_words, zero);
    let requests = super::counter(m, "requests", taken, 32);
    let reg_writes = super::counter(m, "reg_writes", taken.mux(writes, zero), 32);
    let dup_dropped = super::counter(m, "dup_dropped", duplicates, 32);
    c_ready.drive(unit_ready & !order_full.sig());
    let (push, _push_ready) = Stream::offer(m, "order_push", taken, this);
    let order = fifo(
        m,
        &FifoCfg {
            depth: cfg.order_depth,
        },
        push,
    );
    order_full.drive(order.full);
    let (av, a, a_ready) = i.answer.split();
    let (_ov, o, o_ready) = order.pop.split();
    let texels: Vec<Sig> = (0..16)
        .map(|k| {
            let j = k % 4;
            let from_source = select(
                o.source,
                &[a.words[j], a.words[4 + j], a.words[8 + j], a.words[12 + j]],
                a.words[j],
            );
            o.broadcast.mux(from_source, a.words[k])
        })
        .collect();
    let (mode_skip, dup) = broadcast_skip(m, &o);
    let skip = o.broadcast.mux(mode_skip | dup, m.lit(0, 16));
    let (core_resp, resp_ready) = Stream::offer(
        m,
        "core_resp",
        av,
        TexResp {
            slot: a.slot.resize(cfg.core.slot_bits()),
            quad: a.quad.resize(cfg.core.quad_bits()),
            texels,
            skip,
        },
    );
    a_ready.drive(resp_ready);
    o_ready.drive(av & resp_ready);
    BridgeOut {
        req,
        core_resp,
        requests,
        reg_writes,
        dup_dropped,
    }
}

/// The sampler bridge alone as a top (catalogue `tex_bridge`), for its lint and area: ports
/// `core_req_*`, `answer_*` in, `req_*`, `core_resp_*`, `counters_requests`,
/// `counters_reg_writes` out.
///
/// ```
/// use rendergen_rtl::texture::system::{tex_bridge_top, TexSysCfg};
/// let d = tex_bridge_top(&TexSysCfg::default()).expect("elaborates");
/// assert!(d.top().outputs.iter().any(|p| p.name == "core_resp_skip"));
/// ```
pub fn tex_bridge_top(cfg: &TexSysCfg) -> Result<Design, ElabErrors> {
    let ucfg = cfg.unit();
    Design::build_with_params("tex_bridge_top", &format!("{cfg:?}"), |m| {
        let ok = m.check_param("order_depth", cfg.order_depth.into(), ORDER_DEPTH)
            & m.check_param(
                "core.quads (quad tag)",
                ucfg.quad_width.into(),
                super::QUAD_WIDTH,
            );
        if !ok {
            return;
        }
        let core_req = m.input_stream::<TexReq>(
            "core_req",
            &TexReq {
                slot: cfg.core.slot_bits(),
                quad: cfg.core.quad_bits(),
                sampler: 32,
                coords: vec![32; 8],
                mask: 4,
            },
        );
        let answer = m.input_stream::<TexAnswer>("answer", &TexAnswer::shape(&ucfg));
        let b = m.child("bridge", cfg, BridgeIn { core_req, answer }, tex_bridge);
        m.output_stream("req", b.req);
        m.output_stream("core_resp", b.core_resp);
        m.output("counters_requests", b.requests);
        m.output("counters_reg_writes", b.reg_writes);
        m.output("counters_dup_dropped", b.dup_dropped);
    })
}

/// The core ⇄ texture unit top (catalogue `tex_system`; ports in the module docs).
///
/// ```
/// use rendergen_rtl::texture::system::{tex_system_top, TexSysCfg};
/// let d = tex_system_top(&TexSysCfg::default()).expect("elaborates");
/// assert!(d.top().outputs.iter().any(|p| p.name == "mem_req_valid"));
/// assert!(!d.top().outputs.iter().any(|p| p.name == "tex_req_valid"));
/// let bad = tex_system_top(&TexSysCfg { order_depth: 0, ..TexSysCfg::default() });
/// assert!(bad.unwrap_err().to_string().contains("order_depth"));
/// ```
pub fn tex_system_top(cfg: &TexSysCfg) -> Result<Design, ElabErrors> {
    // The core's ports, from the stand-alone core (its own parameter errors surface here).
    let core_ports = shader_core_top(&cfg.core)?;
    let ucfg = cfg.unit();
    let unit_ports = super::texture_unit_top(&ucfg)?;
    Design::build_with_params("tex_system", &format!("{cfg:?}"), |m| {
        let ok = m.check_param("order_depth", cfg.order_depth.into(), ORDER_DEPTH)
            & m.check_param(
                "tex.cache_lines",
                ucfg.cache_lines.into(),
                super::CACHE_LINES,
            )
            & m.check_param("tex.max_log2", ucfg.max_log2.into(), super::MAX_LOG2)
            & m.check_param(
                "core.quads (quad tag)",
                ucfg.quad_width.into(),
                super::QUAD_WIDTH,
            );
        if !ok {
            return;
        }
        let core = m.instance("core", "shader_core", &cfg.core, |c| {
            shader_core(c, &cfg.core);
        });
        let tex = m.instance("texture", "texture_unit", &ucfg, |c| {
            texture_unit_ports(c, &ucfg)
        });
        let top = core_ports.top();
        for p in &top.inputs {
            if !p.name.starts_with("tex_resp_") && p.name != "tex_req_ready" {
                let s = m.input(&p.name, p.width);
                core.connect(&p.name, s);
            }
        }
        for p in &top.outputs {
            if !p.name.starts_with("tex_req_") && p.name != "tex_resp_ready" {
                m.output(&p.name, core.output(&p.name));
            }
        }
        let core_req = core.output_stream::<TexReq>(
            m,
            "tex_req",
            &TexReq {
                slot: cfg.core.slot_bits(),
                quad: cfg.core.quad_bits(),
                sampler: 32,
                coords: vec![32; 8],
                mask: 4,
            },
        );
        let answer = tex.output_stream::<TexAnswer>(m, "answer", &TexAnswer::shape(&ucfg));
        let bridge = m.child("bridge", cfg, BridgeIn { core_req, answer }, tex_bridge);
        tex.connect_stream("req", bridge.req);
        core.connect_stream("tex_resp", bridge.core_resp);
        m.output("counters_requests", bridge.requests);
        m.output("counters_reg_writes", bridge.reg_writes);
        m.output("counters_dup_dropped", bridge.dup_dropped);
        for p in &unit_ports.top().inputs {
            if p.name.starts_with("desc_") || p.name == "flush" {
                let s = m.input(&p.name, p.width);
                tex.connect(&p.name, s);
            }
        }
        let mem_req =
            tex.output_stream::<super::MemReq>(m, "mem_req", &super::MemReq { addr: vec![32; 4] });
        m.output_stream("mem_req", mem_req);
        let mem_resp =
            m.input_stream::<super::MemResp>("mem_resp", &super::MemResp { data: vec![32; 4] });
        tex.connect_stream("mem_resp", mem_resp);
        for name in [
            "footprints",
            "texel_reads",
            "cache_hits",
            "cache_misses",
            "filter_active",
            "filter_idle",
        ] {
            let n = format!("counters_{name}");
            m.output(&n, tex.output(&n));
        }
    })
}
