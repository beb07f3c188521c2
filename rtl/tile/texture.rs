//! The tile engine's texture path (issue 13 §1, with issue 14's unit): the core's `tex` port
//! answered by a `texture_unit` on the engine's one memory port.
//!
//! ```text
//!  core.tex_req ─► tex_binder ─► tex_bridge ─► texture_unit ─ mem_req (lines) ─► tex_line_port ─► engine memory merge
//!  core.tex_resp ◄─ tex_binder ◄─ tex_bridge ◄─ answer           mem_resp ◄─ tex_line_port ◄─┘
//!                     ▲ desc, flush ─► texture_unit
//!                     └ draw-state table (`tex_desc_<k>_*`), slot → draw state (from the fragment launches)
//! ```
//!
//! # Descriptors: a table indexed by the warp's draw state
//! The driver writes one descriptor per draw state (mesh) `k < states` on the ports
//! `tex_desc_<k>_*` ([`TexDescPort`]: base word address, log2 size, levels, sRGB, layout,
//! wrap, border, LOD clamp, base level), `tex_linear` (bit `k`: the binding's sampler filter
//! is bilinear; it replaces the filter bit of a filtered request with normalised
//! coordinates, as a Vulkan sampler's filter does and as the frame model's `PassEnv` does)
//! and `tex_enable` (bit `k`: draw state `k` has a texture). A table, not one register set
//! per mesh, because the draws of a tile interleave: several meshes' fragment warps are in
//! flight at once. `tex_binder` remembers each warp slot's draw state at its fragment
//! launch; the unit has one bound descriptor (its cache's tags have no texture id), so when
//! a request's draw state differs from the bound one the binder holds it until every
//! earlier request is answered, binds the new state, and flushes the cache (`switches`
//! counts these). Meshes sharing one texture still switch: the driver may give them one
//! state's table entry only if they share the program too.
//!
//! # Memory: `tex_line_port`
//! The unit reads a line (an aligned 2×2 block) as four word addresses; the port issues one
//! narrow single-beat read per word (`strobe` marks its 4 bytes, so the memory counts 16
//! bytes per line fill) and assembles the four words in order. The textures region's read
//! bytes are therefore 16 per line fill, not the frame model's 4 per texel read (the model
//! has no cache).
//!
//! # Errors (sticky, `tex_error`, with `tex_error_slot`, `tex_error_state`)
//! 1: a fragment warp of a draw state without a texture (`tex_enable` clear, or `k ≥
//! states`) sampled; 2: a tile-shader warp sampled. The request is still answered (from the
//! bound texture), so nothing hangs; the driver reports the error.
//!
//! # Cost
//! See `engine.rs` (the unit dominates: `rendergen synth texture_unit`, 73,961 cells).
use super::mem_port::{MemReq, MemResp, MEM_BEATS_BITS};
use super::STATE_BITS;
use crate::shader::{TexReq, TexResp};
use crate::stream::fifo::{fifo, FifoCfg};
use crate::texture::{MemReq as LineReq, MemResp as LineResp, TexDescPort};
use rendergen_hdl::{
    cat, cat_lsb_first, clog2, index_select, name_lets, pack, unpack, Bundle, Io, Module, Sig,
    Stream,
};
use std::ops::RangeInclusive;

/// Legal [`EngineTexCfg::states`].
pub const TEX_STATES: RangeInclusive<u64> = 1..=16;

/// Parameters of the engine's texture path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineTexCfg {
    /// Descriptor-table entries (draw states that may sample), 1 ..= 16. Default 4.
    pub states: u32,
    /// The unit's cache lines (power of two 4 ..= 256). Default 16.
    pub cache_lines: u32,
    /// The unit's line fills in flight, 4 ..= 32. Default 8.
    pub max_fills: u32,
    /// The unit's footprint queue, 1 ..= 64. Default 16.
    pub queue_depth: u32,
    /// Requests in flight the bridge remembers, 1 ..= 64. Default 16.
    pub order_depth: u32,
}

impl Default for EngineTexCfg {
    fn default() -> Self {
        EngineTexCfg {
            states: 4,
            cache_lines: 16,
            max_fills: 8,
            queue_depth: 16,
            order_depth: 16,
        }
    }
}

impl EngineTexCfg {
    /// Bits of a table index.
    pub fn index_bits(&self) -> u32 {
        clog2(self.states as u64).max(1)
    }

    /// Checks every parameter (elaboration errors name them); true when all are legal.
    pub fn check(&self, m: &mut Module) -> bool {
        m.check_param("texture.states", self.states.into(), TEX_STATES)
            & m.check_param_pow2(
                "texture.cache_lines",
                self.cache_lines.into(),
                crate::texture::CACHE_LINES,
            )
            & m.check_param(
                "texture.max_fills",
                self.max_fills.into(),
                crate::texture::MAX_FILLS,
            )
            & m.check_param(
                "texture.queue_depth",
                self.queue_depth.into(),
                crate::texture::QUEUE_DEPTH,
            )
            & m.check_param(
                "texture.order_depth",
                self.order_depth.into(),
                crate::texture::system::ORDER_DEPTH,
            )
    }
}

/// What [`tex_binder`] takes.
#[derive(Io)]
pub struct BinderIn {
    /// The core's texture requests.
    pub core_req: Stream<TexReq>,
    /// The bridge's answers.
    pub resp: Stream<TexResp>,
    /// A fragment warp launched this clock (its slot and draw state below).
    pub launched: Sig,
    /// Its warp slot.
    pub launched_slot: Sig,
    /// Its draw state ([`STATE_BITS`]).
    pub launched_state: Sig,
    /// Tile-shader warps are running (a RESOLVE).
    pub tile_shader: Sig,
    /// The descriptor table, one entry per draw state.
    pub table: Vec<TexDescPort>,
    /// Per entry: the sampler filter is bilinear.
    pub linear: Sig,
    /// Per entry: the draw state has a texture.
    pub enable: Sig,
}

/// What [`tex_binder`] gives.
#[derive(Io)]
pub struct BinderOut {
    /// Requests to the bridge (sampler filter bit replaced by the binding's).
    pub req: Stream<TexReq>,
    /// Answers to the core.
    pub core_resp: Stream<TexResp>,
    /// The bound descriptor.
    pub desc: TexDescPort,
    /// Forget the cache (one clock, at a switch).
    pub flush: Sig,
    /// Sticky error code (2 bits; module docs).
    pub error: Sig,
    /// The warp slot of the first error.
    pub error_slot: Sig,
    /// The draw state of the first error.
    pub error_state: Sig,
    /// Descriptor switches (32 bits, wrapping).
    pub switches: Sig,
}

/// Binds the requesting warp's descriptor to the unit (module docs).
///
/// * **Protocol:** stream rules; requests and answers in order; a request whose draw state is
///   not the bound one waits until nothing is in flight, then the state is bound (one clock,
///   `flush` high) and the request passes the next clock.
/// * **Timing:** `core_req → req` and `resp → core_resp` combinational; the table look-up is
///   from registers (the bound index).
/// * **Cost:** `2^slot_bits × 8` flip-flops of slot states, the bound index, an 8-bit
///   in-flight counter, a `states`-way mux of 128-bit descriptors.
#[name_lets]
pub fn tex_binder(m: &mut Module, cfg: &EngineTexCfg, i: BinderIn) -> BinderOut {
    let slot_bits = i.launched_slot.width();
    let ib = cfg.index_bits();
    let slot_states: Vec<Sig> = (0..1u64 << slot_bits)
        .map(|s| {
            let r = m.reg(&format!("slot_state_{s}"), STATE_BITS).reset(0);
            r.next_when(i.launched & i.launched_slot.eq(s), i.launched_state);
            r.q()
        })
        .collect();
    let bound_index = m.reg("bound_index", ib).reset(0);
    let bound = m.reg("bound", 1).reset(0);
    let in_flight = m.reg("in_flight", 8).reset(0);
    let (cv, c, c_ready) = i.core_req.split();
    let state = index_select(c.slot, &slot_states);
    let known = state.lt(cfg.states as u64) & i.enable.shr(state.resize(ib)).bit(0);
    let wanted = state.resize(ib);
    let usable = !known | i.tile_shader | (bound.q() & bound_index.q().eq(wanted));
    let switch = cv & !usable & in_flight.q().eq(0);
    bound_index.next_when(switch, wanted);
    bound.next(bound.q() | switch);

    // Errors.
    let error = m.reg("error", 2).reset(0);
    let error_slot = m.reg("error_slot", slot_bits).reset(0);
    let error_state = m.reg("error_state", STATE_BITS).reset(0);
    let (two, one) = (m.lit(2, 2), m.lit(1, 2));
    let code = i.tile_shader.mux(two, one);
    let bad = cv & (i.tile_shader | !known) & error.q().eq(0);
    error.next_when(bad, code);
    error_slot.next_when(bad, c.slot);
    error_state.next_when(bad, state);

    // The binding's filter replaces the word's for filtered requests with normalised
    // coordinates (mode 0, int_coords 0).
    let linear = i.linear.shr(bound_index.q()).bit(0);
    let s = c.sampler;
    let filtered = s.bits(1, 0).eq(0) & !s.bit(2);
    let filter = filtered.mux(linear, s.bit(10));
    let sampler = cat(&[s.bits(31, 11), filter, s.bits(9, 0)]);
    let (req, req_ready) = Stream::offer(
        m,
        "req",
        cv & usable,
        TexReq {
            sampler,
            ..c.clone()
        },
    );
    c_ready.drive(usable & req_ready);
    let sent = cv & usable & req_ready;

    let (rv, r, r_ready) = i.resp.split();
    let (core_resp, resp_ready) = Stream::offer(m, "core_resp", rv, r);
    r_ready.drive(resp_ready);
    let answered = rv & resp_ready;
    in_flight.next(in_flight.q() + sent.zext(8) - answered.zext(8));

    let shape = TexDescPort::shape();
    let packed: Vec<Sig> = i.table.iter().map(pack).collect();
    let desc: TexDescPort = unpack(&shape, index_select(bound_index.q(), &packed));
    let switches = crate::texture::counter(m, "switches", switch, 32);
    BinderOut {
        req,
        core_resp,
        desc,
        flush: switch,
        error: error.q(),
        error_slot: error_slot.q(),
        error_state: error_state.q(),
        switches,
    }
}

/// Which half of its beat each of a line's four words is (bit `k`: word `k` is bytes 7:4).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LineHalves<T = Sig> {
    /// Four bits.
    pub halves: T,
}

/// What [`tex_line_port`] takes.
#[derive(Io)]
pub struct LinePortIn {
    /// The unit's line reads (four word addresses).
    pub line_req: Stream<LineReq>,
    /// The memory port's answers (one beat per read, in order).
    pub mem_resp: Stream<MemResp>,
}

/// What [`tex_line_port`] gives.
#[derive(Io)]
pub struct LinePortOut {
    /// Narrow single-beat reads on the engine's memory port.
    pub mem_req: Stream<MemReq>,
    /// Lines (four texels) to the unit, in order.
    pub line_resp: Stream<LineResp>,
}

/// The texture unit's line reads on the engine's memory port (module docs).
///
/// * **Protocol:** stream rules; a line is four consecutive narrow reads (word `k` of the
///   line `k`-th), answered in order; `fills` lines may be in flight (a FIFO of their
///   4-bit half selectors; a line's first read waits while it is full).
/// * **Timing:** 4 clocks per line at the request side; the answer is offered with the
///   fourth beat (`mem_resp → line_resp` combinational).
/// * **Cost:** the FIFO (`fills × 4` bits), a 2-bit counter each side, 3 × 32-bit word
///   registers.
#[name_lets]
pub fn tex_line_port(m: &mut Module, fills: &u32, i: LinePortIn) -> LinePortOut {
    let (lv, l, l_ready) = i.line_req.split();
    let issue = m.reg("issue", 2).reset(0);
    let word = index_select(issue.q(), &l.addr);
    let byte = (word << 2).resize(32);
    let halves = cat_lsb_first(&l.addr.iter().map(|a| a.bit(0)).collect::<Vec<_>>());
    let order_full = m.wire("order_full", 1);
    let first = issue.q().eq(0);
    let valid = lv & (!first | !order_full.sig());
    let read = MemReq {
        write: m.lit(0, 1),
        addr: cat(&[byte.bits(31, 3), m.lit(0, 3)]),
        beats: m.lit(0, MEM_BEATS_BITS),
        data: m.lit(0, 64),
        strobe: byte.bit(2).mux(m.lit(0xF0, 8), m.lit(0x0F, 8)),
        last: m.lit(0, 1),
    };
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", valid, read);
    let fire = valid & req_ready;
    issue.next_when(fire, issue.q() + 1);
    l_ready.drive(fire & issue.q().eq(3));
    let (push, _push_ready) = Stream::offer(m, "order_push", fire & first, LineHalves { halves });
    let order = fifo(m, &FifoCfg { depth: *fills }, push);
    order_full.drive(order.full);

    let (rv, r, r_ready) = i.mem_resp.split();
    let (_ov, o, o_ready) = order.pop.split();
    let beat = m.reg("beat", 2).reset(0);
    let half = o.halves.shr(beat.q()).bit(0);
    let got = half.mux(r.data.bits(63, 32), r.data.bits(31, 0));
    let kept: Vec<Sig> = (0..3u64)
        .map(|k| {
            let w = m.reg(&format!("word_{k}"), 32);
            w.next_when(rv & beat.q().eq(k), got);
            w.q()
        })
        .collect();
    let fourth = beat.q().eq(3);
    let (line_resp, line_ready) = Stream::offer(
        m,
        "line_resp",
        rv & fourth,
        LineResp {
            data: vec![kept[0], kept[1], kept[2], got],
        },
    );
    let one = m.lit(1, 1);
    let take = fourth.mux(line_ready, one);
    r_ready.drive(take);
    beat.next_when(rv & take, beat.q() + 1);
    o_ready.drive(rv & fourth & line_ready);
    LinePortOut { mem_req, line_resp }
}

/// [`tex_line_port`] alone as a top (catalogue `tex_line_port`): streams `line_req` (four
/// word addresses) and `mem_resp` in, `mem_req` and `line_resp` out.
///
/// ```
/// use rendergen_rtl::tile::texture::tex_line_port_top;
/// let d = tex_line_port_top(8).expect("elaborates");
/// assert!(d.top().outputs.iter().any(|p| p.name == "line_resp_data_3"));
/// assert!(tex_line_port_top(0).unwrap_err().to_string().contains("fills"));
/// ```
pub fn tex_line_port_top(fills: u32) -> Result<rendergen_hdl::Design, rendergen_hdl::ElabErrors> {
    rendergen_hdl::Design::build_with_params("tex_line_port_top", &format!("fills={fills}"), |m| {
        if !m.check_param("fills", fills.into(), crate::texture::MAX_FILLS) {
            return;
        }
        let line_req = m.input_stream::<LineReq>("line_req", &LineReq { addr: vec![32; 4] });
        let mem_resp = m.input_stream::<MemResp>("mem_resp", &MemResp::SHAPE);
        let o = m.child(
            "port",
            &fills,
            LinePortIn { line_req, mem_resp },
            tex_line_port,
        );
        m.output_stream("mem_req", o.mem_req);
        m.output_stream("line_resp", o.line_resp);
    })
}
