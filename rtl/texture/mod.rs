//! The texture unit (issue 14 §1, RGBA8 path; `convolution-and-linking.md` Part A; D8): quad
//! requests in, filtered / raw / gathered texels out, one 2×2 footprint per clock.
//!
//! # Block diagram (each box is a child module; records in this file)
//! ```text
//!  req ─▶ tex_lod ─▶ tex_address ─▶ tex_cache ─▶ tex_filter ─▶ tex_answer ─▶ answer
//!  (TexRequest) │ (QuadOp)  │ (FootOp)   │  ▲ (FootData) │ (LaneResult) (TexAnswer)
//!          float→Q16.16,  lanes×levels  4 banks  mem_req/mem_resp   expand (UNORM/sRGB),
//!          derivatives,   one footprint by (x&1,y&1), (MemReq/MemResp)  bilinear, gather,
//!          λ, levels      per clock,    direct-mapped               raw bypass (idle count)
//!                         wrap          2×2-block lines
//! ```
//! * **tex_lod** converts the lanes' binary32 coordinates to Q16.16 texels of level 0, takes
//!   the quad's coarse derivatives, `λ = ½·log2(max(|∂x|², |∂y|²)) + bias` (a 128-entry log2
//!   table), or the explicit LOD, clamps λ to the sampler's `[min_lod, max_lod]`, and chooses
//!   the level(s) (Vulkan's rules) above the base level. 3 stages. Explicit gradients
//!   (`textureGrad`) are not a request form (the request has no room for four more binary32
//!   operands): the shader turns its gradients into an explicit LOD.
//! * **tex_address** expands a quad into footprints (active lanes × 1 or 2 levels; a quad with
//!   no active lane becomes one empty footprint so it is still answered), shifts the
//!   coordinates to the level, takes `floor(u − ½)` and the 8-bit fraction, adds the offsets and
//!   wraps both columns and rows (repeat, clamp to edge, mirrored repeat, clamp to border:
//!   a position outside the level is marked, not read, and becomes the border colour in
//!   `tex_cache`, so the filter blends it like a texel). 2 stages.
//! * **tex_cache**: four banks by (x&1, y&1), so the four texels of any footprint — aligned or
//!   not, wrapped or clamped — sit in four different banks and are read in one cycle. A line is
//!   an aligned 2×2 block (one texel in each bank); the tag (level, block x, block y) is kept
//!   in each bank, so four blocks are looked up at once. Only texels with a non-zero weight are
//!   looked up (a bilinear fetch at a texel centre reads one). The cache hides memory
//!   latency (the prefetching texture cache of Igehy, Eldridge and Proudfoot, 1998): tags are
//!   looked up and claimed when a footprint arrives, a missing line is requested at once (up to
//!   `max_fills` lines in flight), and the footprint waits in an in-order queue
//!   (`queue_depth`) while later footprints are looked up behind it; the footprint at the head
//!   writes its own lines into the banks as they arrive and then reads its texels, so lines
//!   are replaced in request order and never under an earlier footprint that still needs them
//!   (`cache.rs` gives the argument). `mem_req`/`mem_resp` carry four word addresses / texels
//!   per line, laid out linear or 4×4-tiled.
//!   Hit and fill counters (`counters_cache_hits`: footprints that passed with no fill, so the
//!   hit rate is `cache_hits / footprints`; `counters_cache_misses`: line fills) are modelled
//!   exactly by `rendergen_sim::models::texture::cache` (its docs give the organisation).
//! * **tex_filter**: channels expanded to 16 bits (UNORM `c·257`, sRGB colour through a
//!   256-entry table to linear light), bilinear as `a + (((b − a)·f) >> 8)` (exact at zero
//!   fraction: a filtered fetch at a texel centre equals the expanded raw texel), gather picks
//!   one component, raw passes the four RGBA8 texels; it counts active and idle (bypassed)
//!   footprints. 3 stages.
//! * **tex_answer** lerps the two levels of a trilinear fetch (8-bit δ) and gathers the lanes
//!   of a quad into one answer.
//!
//! The golden model is `rendergen_sim::models::texture`; its module docs give the exact
//! semantics (coordinate conversion, LOD, mip choice, wrap, answer layout, counts).
//!
//! # Protocol
//! Stream rules on `req`, `answer`, `mem_req`, `mem_resp`. Answers leave in request order (so
//! in order per warp), one per request, tagged with `slot` and `quad`. `mem_resp` answers
//! `mem_req` in order. The descriptor ports are sampled every cycle: change them only when the
//! unit is idle, and pulse `flush` (the cache forgets every line) when the texture changes.
//!
//! # Timing
//! Initiation interval 1 footprint per clock while the cache hits (a filtered quad takes 4
//! clocks, trilinear 8, a raw or gather quad 4, or fewer lanes with a partial mask).
//! Measured (`cargo test -p rendergen-testbenches --test testbenches texture::latency -- --nocapture`):
//! 6,000 raw footprints over a small patch in 6,067 clocks (0.989 per clock; the 67 are the
//! pipeline fill and 9 line fills of the cold cache), i.e. one footprint per clock once warm; latency 15 clocks from a request's transfer
//! to its answer's with no miss and no stall (lod 4, sequencer 1, address 3, cache 2 (queue
//! and skid buffer), filter 4, answer 1). A footprint that misses `k` lines costs `k` clocks at
//! the cache's look-up and `k` at its head plus whatever of the memory round trip the
//! footprints queued before it do not already cover: misses of successive footprints overlap.
//! Combinational paths from inputs to outputs: only `desc_*` → `mem_req_addr` (the line
//! address is computed from the static descriptor and the registered miss); every `valid` and
//! `ready` leaving the unit comes from registers (`answer.ready` reaches `lanes.ready` inside
//! `tex_answer` only, behind the filter's skid buffer).
//!
//! # Parameters ([`TexCfg`])
//! `slot_width` 1 ..= 8 (3), `quad_width` 1 ..= 4 (1), `cache_lines` power of two 4 ..= 256
//! (16), `max_log2` 1 ..= 10 (10), `max_fills` 4 ..= 32 (8), `queue_depth` 1 ..= 64 (16); the
//! catalogue top is `texture_unit`.
//!
//! # Cost
//! `rendergen synth texture_unit --per-module` (defaults: 16 lines, 8 fills in flight, a
//! 16-deep queue, textures up to 1024², Yosys generic cells; measured 2026-11-24 with the
//! non-blocking cache): **73,961 cells, 10,255 flip-flops**, longest combinational path 125
//! gate levels. Per module: `tex_lod` 22,843 cells / 1,655 flops, `tex_cache` 18,658 / 5,433,
//! `tex_filter` 14,775 / 1,287 plus 12 `srgb_to_linear` tables of 604 cells, `tex_answer`
//! 5,891 / 1,107, `tex_address` 4,546 / 773. The blocking cache it replaced measured 68,827
//! cells and 7,754 flip-flops for the whole unit: the non-blocking cache costs about 5,100
//! cells and 2,500 flip-flops, mostly its queue (16 footprints of ~125 bits) and the fill
//! FIFO (8 lines of 128 bits), all RAMs read combinationally and so built from flip-flops
//! here (as are the 4 × 16 × (32 + 24) bits of banks and tags). The rest are the pipeline
//! registers (the 16-word answer accumulator and answer register alone are 1,024), 8
//! float→fixed shifters, 4 squarers of 21 bits, 16 lerps of 17 × 9 bits and 12 sRGB tables of
//! 256 × 16.
//!
//! # Errors
//! `texture_unit_top` rejects each parameter outside its range, naming it.
//!
//! # Using it from the shader core's `tex` port
//! The core's `TexReq {slot, quad, sampler, coords[8], mask}` maps onto [`TexRequest`]
//! field for field; `sampler` would index a small sampler table (mode, filter, mip, wrap,
//! descriptor) in front of the unit, and offsets / LOD / patch / subop would come from extra
//! operands of new `tex` variants (`tex.raw`, `tex.gather`, `tex.lod`). [`TexAnswer`] carries
//! `slot`, `quad` and 16 words in the core's `TexResp` layout (lane `k`'s word `j` at `4k + j`);
//! filtered words are 16-bit linear UNORM, so the core (or an adapter stage) converts them to
//! binary32 (`v / 65535`, one multiply) before writing `d..d+3`; raw words are RGBA8 texels the
//! convolution shader unpacks itself.
//!
//! # Non-power-of-two sizes (model only)
//! The golden model specifies NPOT textures (`TexDesc::width`/`height`, padded power-of-two
//! storage, level coordinate `floor(S · w_l / width)`, wrap modulo the level size); this unit
//! still takes `desc_log2_*` only. What the RTL needs: the float→fixed converters of
//! `tex_lod` multiply the mantissa by the width (24 × 11 bits) instead of shifting; the level
//! coordinate scales by `w_l / width` (a per-level constant the descriptor could carry);
//! repeat and mirror wrap modulo `w_l` (a conditional subtract when the coordinate is first
//! reduced in the normalised domain; integer coordinates would need a range limit); and an
//! odd level wrapped by repeat puts columns `w_l − 1` and 0 — both even — into one bank, so
//! `tex_cache` needs a second look-up for such a footprint (the cache model refuses it today).
//!
//! # ASTC textures
//! Built as decode-on-fill ([`astc`]: `tex_astc` between `tex_cache` and memory, one ASTC_DP,
//! a block cache; top `texture_unit_astc`): the texel cache holds decoded RGBA8 texels, so
//! every path above (LOD, wrap, bilinear/trilinear, gather, raw) is the RGBA8 one and a warm
//! cache still serves one footprint per clock. [`astc`]'s docs compare it with the two designs
//! below (the plan before it was built) and give its measured area.
//! * (a) **four ASTC_DP instances** (D5: one texel per clock each), one per bank, each fed the
//!   128-bit block of its texel. Measured: `cargo run --release -p rendergen-gen -- synth
//!   astc_dp` gives 57,772 cells and 1,965 flip-flops per instance, so four are 231,088 cells,
//!   3.3× this whole RGBA8 unit (69,323). The four mostly decode the *same* block: with 4×4
//!   blocks an unaligned 2×2 footprint lies in one block 9/16 of the time, two 6/16, four 1/16.
//! * (b) **a shared block decoder**: decode a block's mode, partitions, endpoints and weight
//!   grid once into a decoded-block cache, then four small per-texel stages (weight
//!   interpolation, endpoint lerp, sRGB) read it, one per bank.
//!
//! # Filtering accuracy
//! Against an f64 evaluation of the same formula (bilinear weights `(1−α)(1−β)`, … with the
//! 8-bit fractions, trilinear blend with δ/256, channels expanded as the filter does), the
//! integer filter truncates once per lerp, so a bilinear answer lies in `(ref − 2, ref]` and a
//! trilinear one in `(ref − 3, ref]` 16-bit LSB; it is exact at zero fraction. Measured
//! (`cargo test -p rendergen-testbenches --test testbenches texture_astc:: -- --nocapture`,
//! RTL answers, 1,000 random lanes per texture): RGBA8 UNORM bilinear at most 1.921 LSB below,
//! trilinear 2.593; sRGB 1.898 / 2.790; never above. ASTC textures (texels decoded by the
//! `astcenc` tool, 800 lanes each): 6x6 UNORM 1.820 / 2.451, 5x4 sRGB 1.774 / 2.399. Tests
//! `texture_astc::rgba8_filter_accuracy_against_f64` and
//! `texture_astc::astc_sampling_equals_astcenc_filtered_by_f64` assert the bounds.

pub mod address;
pub mod answer;
pub mod astc;
pub mod cache;
pub mod filter;
pub mod lod;
pub mod system;

use rendergen_hdl::{name_lets, Bundle, Design, ElabErrors, Io, Module, Sig, Stream};
use std::ops::RangeInclusive;

/// Legal [`TexCfg::slot_width`].
pub const SLOT_WIDTH: RangeInclusive<u64> = 1..=8;
/// Legal [`TexCfg::quad_width`].
pub const QUAD_WIDTH: RangeInclusive<u64> = 1..=4;
/// Legal [`TexCfg::cache_lines`] (powers of two).
pub const CACHE_LINES: RangeInclusive<u64> = 4..=256;
/// Legal [`TexCfg::max_log2`].
pub const MAX_LOG2: RangeInclusive<u64> = 1..=10;
/// Legal [`TexCfg::max_fills`] (a footprint may need four lines before it can be queued).
pub const MAX_FILLS: RangeInclusive<u64> = 4..=32;
/// Legal [`TexCfg::queue_depth`].
pub const QUEUE_DEPTH: RangeInclusive<u64> = 1..=64;

/// Parameters of [`texture_unit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexCfg {
    /// Width of the warp-slot tag, 1 ..= 8. Default 3 (the shader core's 8 warps).
    pub slot_width: u32,
    /// Width of the quad tag, 1 ..= 4. Default 1.
    pub quad_width: u32,
    /// Cache lines (2×2 texel blocks), a power of two in 4 ..= 256. Default 16.
    pub cache_lines: u32,
    /// log2 of the largest texture side, 1 ..= 10 (sizes up to 1024). Default 10.
    pub max_log2: u32,
    /// Line fills outstanding at once (requested, data not yet in the banks), 4 ..= 32.
    /// Default 8.
    pub max_fills: u32,
    /// Footprints waiting in the cache's in-order queue for their lines, 1 ..= 64. Default 16
    /// (enough to cover a memory latency of about 16 clocks at one footprint per clock).
    pub queue_depth: u32,
}

impl Default for TexCfg {
    fn default() -> Self {
        TexCfg {
            slot_width: 3,
            quad_width: 1,
            cache_lines: 16,
            max_log2: 10,
            max_fills: 8,
            queue_depth: 16,
        }
    }
}

impl TexCfg {
    /// Width of a texel coordinate inside a level.
    pub fn coord_width(&self) -> u32 {
        self.max_log2
    }
}

/// The texture bound to the unit (ports `desc_*`), as the model's `TexDesc`.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct TexDescPort<T = Sig> {
    /// Word address of level 0's first texel (32 bits).
    pub base: T,
    /// log2 of the width (4 bits, ≤ `max_log2`).
    pub log2_w: T,
    /// log2 of the height (4 bits, ≤ `max_log2`).
    pub log2_h: T,
    /// Levels (4 bits, 1 ..= max(log2_w, log2_h) + 1).
    pub mips: T,
    /// sRGB (else UNORM).
    pub srgb: T,
    /// 4×4-tiled (else linear).
    pub tiled: T,
    /// Wrap of x: 0 repeat, 1 clamp to edge, 2 mirrored repeat, 3 clamp to border (2 bits).
    pub wrap_s: T,
    /// Wrap of y (2 bits).
    pub wrap_t: T,
    /// Border colour of wrap 3: an RGBA8 texel in the texture's format (32 bits).
    pub border: T,
    /// Sampler's smallest λ, signed Q8.8 (16 bits).
    pub min_lod: T,
    /// Sampler's largest λ, signed Q8.8 (16 bits, ≥ `min_lod`).
    pub max_lod: T,
    /// Base level (4 bits; beyond `mips − 1` acts as `mips − 1`).
    pub base_level: T,
}

impl TexDescPort<u32> {
    /// The port widths.
    pub fn shape() -> TexDescPort<u32> {
        TexDescPort {
            base: 32,
            log2_w: 4,
            log2_h: 4,
            mips: 4,
            srgb: 1,
            tiled: 1,
            wrap_s: 2,
            wrap_t: 2,
            border: 32,
            min_lod: 16,
            max_lod: 16,
            base_level: 4,
        }
    }
}

/// A quad request (`req`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct TexRequest<T = Sig> {
    /// Warp slot (tag).
    pub slot: T,
    /// Quad (tag).
    pub quad: T,
    /// Lane `k`'s s (or x) at `2k`, t (or y) at `2k + 1`: binary32, or signed integer texel
    /// coordinates when `int_coords` (8 × 32 bits).
    pub coords: Vec<T>,
    /// Integer texel coordinates of the selected level.
    pub int_coords: T,
    /// Lane `k`'s x offset at `2k`, y offset at `2k + 1`, signed 4 bits each.
    pub offsets: Vec<T>,
    /// LOD bias, or the LOD when `explicit_lod` or `int_coords`: signed Q8.8 (16 bits).
    pub lod: T,
    /// `lod` is the level of detail.
    pub explicit_lod: T,
    /// 0 filtered, 1 raw (filter bypassed), 2 gather (2 bits).
    pub mode: T,
    /// 0 nearest, 1 bilinear.
    pub filter: T,
    /// 0 level 0 only, 1 nearest level, 2 linear between levels (2 bits).
    pub mip: T,
    /// Component to gather (2 bits).
    pub comp: T,
    /// Lanes to answer (4 bits).
    pub mask: T,
    /// Collective-fetch patch code, carried to the answer (2 bits).
    pub patch: T,
    /// Collective-fetch sub-operation, carried to the answer (2 bits).
    pub subop: T,
}

impl TexRequest<u32> {
    /// The port widths for `cfg`.
    pub fn shape(cfg: &TexCfg) -> TexRequest<u32> {
        TexRequest {
            slot: cfg.slot_width,
            quad: cfg.quad_width,
            coords: vec![32; 8],
            int_coords: 1,
            offsets: vec![4; 8],
            lod: 16,
            explicit_lod: 1,
            mode: 2,
            filter: 1,
            mip: 2,
            comp: 2,
            mask: 4,
            patch: 2,
            subop: 2,
        }
    }
}

/// The answer to one quad request (`answer`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct TexAnswer<T = Sig> {
    /// Warp slot of the request.
    pub slot: T,
    /// Quad of the request.
    pub quad: T,
    /// Lanes answered (4 bits).
    pub mask: T,
    /// Mode of the request (2 bits).
    pub mode: T,
    /// Patch code (sideband, 2 bits).
    pub patch: T,
    /// Sub-operation (sideband, 2 bits).
    pub subop: T,
    /// The (first) level read (4 bits).
    pub level: T,
    /// Lane `k`'s word `j` at `4k + j` (16 × 32 bits).
    pub words: Vec<T>,
}

impl TexAnswer<u32> {
    /// The port widths for `cfg`.
    pub fn shape(cfg: &TexCfg) -> TexAnswer<u32> {
        TexAnswer {
            slot: cfg.slot_width,
            quad: cfg.quad_width,
            mask: 4,
            mode: 2,
            patch: 2,
            subop: 2,
            level: 4,
            words: vec![32; 16],
        }
    }
}

/// A line read (`mem_req`): the word addresses of the texels `(2bx, 2by)`, `(2bx + 1, 2by)`,
/// `(2bx, 2by + 1)`, `(2bx + 1, 2by + 1)` of a level (a texel beyond a 1-wide or 1-high level
/// repeats its neighbour's address).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct MemReq<T = Sig> {
    /// Four word addresses (32 bits each).
    pub addr: Vec<T>,
}

/// A line (`mem_resp`), in `mem_req` order.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct MemResp<T = Sig> {
    /// Four RGBA8 texels (32 bits each).
    pub data: Vec<T>,
}

/// Event counters (32 bits each, wrapping).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct TexCounters<T = Sig> {
    /// Footprints fetched (one per lane and level; empty footprints not counted).
    pub footprints: T,
    /// Texels read from the banks (those with a non-zero weight).
    pub texel_reads: T,
    /// Footprints served with no line fill.
    pub cache_hits: T,
    /// Line fills.
    pub cache_misses: T,
    /// Footprints through the bilinear filter.
    pub filter_active: T,
    /// Footprints that bypassed the filter (raw, gather): the filter's idle cycles.
    pub filter_idle: T,
}

/// What a quad becomes after `tex_lod`.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct QuadOp<T = Sig> {
    /// The tags and modes carried to the answer.
    pub tag: Carry<T>,
    /// Gathered component.
    pub comp: T,
    /// Bilinear filter.
    pub filter: T,
    /// Integer coordinates.
    pub int_coords: T,
    /// Lanes' s in Q16.16 level-0 texels (or integers), 4 × 32.
    pub s: Vec<T>,
    /// Lanes' t, 4 × 32.
    pub t: Vec<T>,
    /// Offsets as in the request, 8 × 4.
    pub offsets: Vec<T>,
    /// Trilinear fraction δ (8 bits).
    pub delta: T,
    /// Two levels (`level`, `level + 1`).
    pub two: T,
}

/// Tags and modes that ride from request to answer unchanged.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Carry<T = Sig> {
    /// Warp slot.
    pub slot: T,
    /// Quad.
    pub quad: T,
    /// Lanes.
    pub mask: T,
    /// Mode.
    pub mode: T,
    /// Patch code.
    pub patch: T,
    /// Sub-operation.
    pub subop: T,
    /// First level.
    pub level: T,
}

impl Carry<u32> {
    /// The widths for `cfg`.
    pub fn shape(cfg: &TexCfg) -> Carry<u32> {
        Carry {
            slot: cfg.slot_width,
            quad: cfg.quad_width,
            mask: 4,
            mode: 2,
            patch: 2,
            subop: 2,
            level: 4,
        }
    }
}

/// Where a footprint sits in its quad.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct FootPos<T = Sig> {
    /// Lane (2 bits).
    pub lane: T,
    /// The second (finer → coarser) level of a trilinear lane.
    pub second: T,
    /// Last footprint of the quad.
    pub last: T,
    /// A real footprint (else the empty one of a quad without lanes).
    pub fetch: T,
    /// Trilinear fraction δ (8 bits).
    pub delta: T,
    /// Two levels.
    pub two: T,
    /// Gathered component (2 bits).
    pub comp: T,
}

/// One footprint after `tex_address`.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct FootOp<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position in the quad.
    pub pos: FootPos<T>,
    /// Level read (4 bits).
    pub level: T,
    /// Fractions (8 bits each).
    pub fx: T,
    /// See `fx`.
    pub fy: T,
    /// Columns `i0`, `i1` wrapped into the level.
    pub x: Vec<T>,
    /// Rows `j0`, `j1` wrapped into the level.
    pub y: Vec<T>,
    /// Positions `t00, t10, t01, t11` with a non-zero weight that are not border (4 bits).
    pub need: T,
    /// Positions outside the level in clamp-to-border mode (4 bits): the border colour.
    pub border: T,
}

/// One footprint's texels after `tex_cache`.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct FootData<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position in the quad.
    pub pos: FootPos<T>,
    /// Fractions.
    pub fx: T,
    /// See `fx`.
    pub fy: T,
    /// Texels `t00, t10, t01, t11` (RGBA8; unread ones undefined).
    pub texels: Vec<T>,
}

/// One lane's words for one footprint after `tex_filter`.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LaneResult<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position in the quad.
    pub pos: FootPos<T>,
    /// Four words (filtered channels, raw texels or gathered components).
    pub words: Vec<T>,
}

/// What [`texture_unit`] takes.
#[derive(Io)]
pub struct TexUnitIn {
    /// Quad requests.
    pub req: Stream<TexRequest>,
    /// The bound texture.
    pub desc: TexDescPort,
    /// Invalidate the cache (one cycle).
    pub flush: Sig,
    /// Lines from memory.
    pub mem_resp: Stream<MemResp>,
}

/// What [`texture_unit`] gives.
#[derive(Io)]
pub struct TexUnitOut {
    /// Answers, in request order.
    pub answer: Stream<TexAnswer>,
    /// Line reads.
    pub mem_req: Stream<MemReq>,
    /// Counters.
    pub counters: TexCounters,
}

/// The texture unit: `tex_lod → tex_address → tex_cache → tex_filter → tex_answer`, each a
/// child module (see the module docs for protocol, timing and cost).
#[name_lets]
pub fn texture_unit(m: &mut Module, cfg: &TexCfg, i: TexUnitIn) -> TexUnitOut {
    let quads = m.child(
        "lod",
        cfg,
        lod::LodIn {
            req: i.req,
            desc: i.desc.clone(),
        },
        lod::tex_lod,
    );
    let feet = m.child(
        "address",
        cfg,
        address::AddrIn {
            quads: quads.quads,
            desc: i.desc.clone(),
        },
        address::tex_address,
    );
    let cached = m.child(
        "cache",
        cfg,
        cache::CacheIn {
            feet: feet.feet,
            desc: i.desc.clone(),
            flush: i.flush,
            mem_resp: i.mem_resp,
        },
        cache::tex_cache,
    );
    let filtered = m.child(
        "filter",
        cfg,
        filter::FilterIn {
            data: cached.data,
            srgb: i.desc.srgb,
        },
        filter::tex_filter,
    );
    let answered = m.child(
        "answer",
        cfg,
        answer::AnswerIn {
            lanes: filtered.lanes,
        },
        answer::tex_answer,
    );
    TexUnitOut {
        answer: answered.answer,
        mem_req: cached.mem_req,
        counters: TexCounters {
            footprints: cached.footprints,
            texel_reads: cached.texel_reads,
            cache_hits: cached.hits,
            cache_misses: cached.misses,
            filter_active: filtered.active,
            filter_idle: filtered.idle,
        },
    }
}

/// The stand-alone unit: streams `req`, `answer`, `mem_req`, `mem_resp`; inputs `desc_*`,
/// `flush`; counter outputs `counters_*`. Rejects parameters outside their ranges.
///
/// ```
/// use rendergen_rtl::texture::{texture_unit_top, TexCfg};
/// let design = texture_unit_top(&TexCfg::default()).expect("elaborates");
/// // tex_lod, tex_address, tex_cache, tex_filter, tex_answer, srgb_to_linear, the top
/// assert_eq!(design.modules.len(), 7);
/// assert!(design.top().outputs.iter().any(|p| p.name == "counters_filter_idle"));
/// let bad = texture_unit_top(&TexCfg { cache_lines: 6, ..TexCfg::default() });
/// assert!(bad.unwrap_err().to_string().contains("cache_lines"));
/// ```
#[name_lets]
pub fn texture_unit_top(cfg: &TexCfg) -> Result<Design, ElabErrors> {
    let params = format!(
        "slot_width={} quad_width={} cache_lines={} max_log2={} max_fills={} queue_depth={}",
        cfg.slot_width,
        cfg.quad_width,
        cfg.cache_lines,
        cfg.max_log2,
        cfg.max_fills,
        cfg.queue_depth
    );
    Design::build_with_params("texture_unit", &params, |m| {
        let ok = m.check_param("slot_width", cfg.slot_width.into(), SLOT_WIDTH)
            & m.check_param("quad_width", cfg.quad_width.into(), QUAD_WIDTH)
            & m.check_param_pow2("cache_lines", cfg.cache_lines.into(), CACHE_LINES)
            & m.check_param("max_log2", cfg.max_log2.into(), MAX_LOG2)
            & m.check_param("max_fills", cfg.max_fills.into(), MAX_FILLS)
            & m.check_param("queue_depth", cfg.queue_depth.into(), QUEUE_DEPTH);
        if ok {
            texture_unit_ports(m, cfg);
        }
    })
}

/// The unit with its ports (`req`, `desc_*`, `flush`, `mem_resp`, `answer`, `mem_req`,
/// `counters_*`) on the module under construction: the body of [`texture_unit_top`], also
/// instantiated by [`system::tex_system_top`].
#[name_lets]
pub fn texture_unit_ports(m: &mut Module, cfg: &TexCfg) {
    let req = m.input_stream::<TexRequest>("req", &TexRequest::shape(cfg));
    let desc = m.input_bundle::<TexDescPort>("desc", &TexDescPort::shape());
    let flush = m.input("flush", 1);
    let mem_resp = m.input_stream::<MemResp>("mem_resp", &MemResp { data: vec![32; 4] });
    let out = texture_unit(
        m,
        cfg,
        TexUnitIn {
            req,
            desc,
            flush,
            mem_resp,
        },
    );
    m.output_stream("answer", out.answer);
    m.output_stream("mem_req", out.mem_req);
    m.output_bundle("counters", &out.counters);
}

/// `a + (((b − a)·f) >> 8)` on 16-bit channels with an 8-bit fraction: exact at `f = 0`, and
/// always between `a` and `b`.
#[name_lets]
pub fn lerp16(a: Sig, b: Sig, f: Sig) -> Sig {
    let diff = b.zext(17) - a.zext(17);
    let prod = diff.smul_full(f.zext(9));
    let step = prod.sra_const(8).bits(16, 0);
    (a.zext(17) + step).bits(15, 0)
}

/// A counter of `width` bits that adds `inc` every cycle.
pub fn counter(m: &mut Module, name: &str, inc: Sig, width: u32) -> Sig {
    let c = m.reg(name, width).reset(0);
    c.next(c.q() + inc.zext(width));
    c.q()
}
