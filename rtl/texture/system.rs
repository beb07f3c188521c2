//! `tex_system`: a shader core whose `tex` port is answered by the texture unit (issue 14
//! §1–§3): `core ─tex_req─▶ tex_bridge ─req─▶ texture_unit ─answer─▶ tex_bridge ─tex_resp─▶ core`,
//! the unit's `mem_req`/`mem_resp` at the top for a memory agent. The golden model is the
//! shader interpreter with `rendergen_sim::models::texture::system::TexEnv` answering `tex`.
//!
//! # Ports
//! Every port of `shader_core` except `tex_req_*` / `tex_resp_*`, with its name (`prog`,
//! `launch`, `ldg_req`, …, `export`, `done`, `issue`); every port of `texture_unit` except
//! `req_*` / `answer_*` (`desc_*`, `flush`, `mem_req`, `mem_resp`, `counters_*`); and the
//! bridge's counters `counters_requests` (requests taken from the core) and
//! `counters_reg_writes` (texel register writes: per request its active lanes, ×4 when raw).
//!
//! # `tex_bridge`
//! Decodes the sampler immediate of the core's request (the table in
//! `rendergen_sim::models::texture::system`: mode, integer coordinates, broadcast and its
//! source lane, patch, sub-operation, filter, mip, explicit LOD, component, LOD; the word the
//! shader compiler emits, `compiler/shader/ABI.md` "Sampled textures") into the unit's
//! request; a broadcast asks the unit for its source lane's footprint only. On the way back it
//! writes the source lane's four words into every lane of a broadcast answer — the "sample
//! pipeline 124" broadcast of the source (§A.3 block 206). A FIFO of `order_depth` entries
//! remembers each request's (broadcast, source) until its answer (the unit answers in order).
//! * **Protocol:** stream rules; answers in request order; nothing dropped: the core's request
//!   waits while the FIFO is full.
//! * **Timing:** combinational in both directions (no added latency); the unit's `req.ready`
//!   reaches the core's `tex_req.ready`, the core's `tex_resp.ready` reaches `answer.ready`.
//! * **Cost:** the FIFO (`order_depth × 3` bits), a 4-way mux of 4 words, the decode.
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
use rendergen_hdl::{name_lets, select, Bundle, Design, ElabErrors, Io, Module, Sig, Stream};
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
    /// Texel register writes of the core's answers (32 bits, wrapping): per request, its
    /// active lanes, times four for a raw request (four texels per lane).
    pub reg_writes: Sig,
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
    let writes = mode_code.eq(1).mux(lanes.zext(5) << 2, lanes.zext(5));
    let zero = m.lit(0, 5);
    let requests = super::counter(m, "requests", taken, 32);
    let reg_writes = super::counter(m, "reg_writes", taken.mux(writes, zero), 32);
    c_ready.drive(unit_ready & !order_full.sig());
    let (push, _push_ready) = Stream::offer(m, "order_push", taken, Order { broadcast, source });
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
    let (core_resp, resp_ready) = Stream::offer(
        m,
        "core_resp",
        av,
        TexResp {
            slot: a.slot.resize(cfg.core.slot_bits()),
            quad: a.quad.resize(cfg.core.quad_bits()),
            texels,
        },
    );
    a_ready.drive(resp_ready);
    o_ready.drive(av & resp_ready);
    BridgeOut {
        req,
        core_resp,
        requests,
        reg_writes,
    }
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
