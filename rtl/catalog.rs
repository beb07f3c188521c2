//! The catalogue of top-level generators: names, parameters with defaults and legal ranges, and
//! how to build each. The command line (`rendergen list`, `verilog`, `lint`, `bench`, `synth`)
//! and the testbenches use it, so a generator is added in one place.

use crate::astc::a::{astc_a_top, AstcACfg, Pipelining};
use crate::astc::dp::{astc_dp_top, DpCfg};
use crate::mem::ram::{self, ram_1r1w, ram_2p, RamCfg};
use crate::pbru::cfg_check as pbru_lim;
use crate::pbru::top::{catalog_cfg, pbru_top};
use crate::stream::arbiter::{arbiter_top, ArbPolicy};
use crate::stream::credit::{self, credit_counter_top};
use crate::stream::fifo::{self, fifo_top, FifoCfg};
use crate::stream::mux::{stream_demux_top, stream_mux_top};
use crate::stream::skid::skid_buffer_top;
use crate::{astc, fp, stream, synthetic};
use rendergen_hdl::{powers_of_two_in, Design, ElabErrors};
use std::fmt;
use std::ops::RangeInclusive;

/// One parameter of a generator.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Name as given on the command line (`-p name=value`).
    pub name: &'static str,
    /// Default value.
    pub default: u64,
    /// Smallest legal value.
    pub min: u64,
    /// Largest legal value.
    pub max: u64,
    /// Only powers of two in `min..=max` are legal (sizes the generator cannot round).
    pub pow2: bool,
    /// One line of documentation.
    pub doc: &'static str,
}

impl ParamSpec {
    /// True if `value` is legal on its own (other parameters aside).
    pub fn accepts(&self, value: u64) -> bool {
        (self.min..=self.max).contains(&value) && (!self.pow2 || value.is_power_of_two())
    }

    /// The legal values, for messages and listings: `an integer in 1..=8`, or the powers of two.
    pub fn valid(&self) -> String {
        match self.pow2 {
            false => format!("an integer in {}..={}", self.min, self.max),
            true => format!(
                "a power of two in {}",
                powers_of_two_in(&(self.min..=self.max))
            ),
        }
    }
}

/// A check of the values of all parameters (in `params` order): `Err` names the index of the
/// parameter to blame and describes its valid values.
type Constraint = fn(&[u64]) -> Result<(), (usize, String)>;

/// A top-level generator.
pub struct GeneratorSpec {
    /// Name (`rendergen verilog NAME`).
    pub name: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
    /// Parameters in order.
    pub params: &'static [ParamSpec],
    /// Builds the design from values in the order of `params`.
    build: fn(&[u64]) -> Result<Design, ElabErrors>,
    /// A constraint between parameters, checked after each value is in range: `Err` with the
    /// index of the parameter to blame and a description of its valid values.
    constraint: Option<Constraint>,
}

const fn p(name: &'static str, default: u64, min: u64, max: u64, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        default,
        min,
        max,
        pow2: false,
        doc,
    }
}

/// A parameter whose legal range is the generator's own constant.
const fn pr(
    name: &'static str,
    default: u64,
    range: RangeInclusive<u64>,
    doc: &'static str,
) -> ParamSpec {
    p(name, default, *range.start(), *range.end(), doc)
}

/// A size that must be a power of two in `range`.
const fn pow2(
    name: &'static str,
    default: u64,
    range: RangeInclusive<u64>,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec {
        pow2: true,
        ..pr(name, default, range, doc)
    }
}

const WIDTH: ParamSpec = pr("width", 32, stream::WIDTH, "payload width in bits");
const LANES: ParamSpec = pr("n", 4, stream::LANES, "number of lanes");
const RAM_WIDTH: ParamSpec = pr("width", 32, ram::WIDTH, "word width in bits");
const RAM_DEPTH: ParamSpec = pr(
    "depth",
    256,
    ram::DEPTH,
    "words (width × depth ≤ 2^26 bits)",
);

/// `width × depth` of a RAM (values `[RAM_WIDTH, RAM_DEPTH]`) within [`ram::MAX_BITS`].
fn ram_size(v: &[u64]) -> Result<(), (usize, String)> {
    match v[0].saturating_mul(v[1]) <= ram::MAX_BITS {
        true => Ok(()),
        false => Err((
            1,
            format!(
                "at most {} words of {} bits (width × depth ≤ 2^26 bits)",
                ram::MAX_BITS / v[0].max(1),
                v[0]
            ),
        )),
    }
}

/// The RAM configuration from the values of `[RAM_WIDTH, RAM_DEPTH]`.
fn ram_cfg(v: &[u64]) -> RamCfg {
    RamCfg {
        width: v[0] as u32,
        depth: v[1] as u32,
    }
}

/// The widget library among [`GENERATORS`]: the stream and memory widgets every testbench,
/// the demonstration and the cross-engine check cover.
pub const WIDGETS: &[&str] = &[
    "fifo",
    "skid_buffer",
    "rr_arbiter",
    "priority_arbiter",
    "stream_mux",
    "stream_demux",
    "ram_1r1w",
    "ram_2p",
    "credit_counter",
];

/// Every top-level generator.
pub static GENERATORS: &[GeneratorSpec] = &[
    GeneratorSpec {
        name: "fifo",
        doc: "synchronous FIFO with full/empty/count",
        params: &[WIDTH, pr("depth", 16, fifo::DEPTH, "entries (0 = wire)")],
        build: |v| fifo_top(v[0] as u32, &FifoCfg { depth: v[1] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "skid_buffer",
        doc: "register slice for valid/ready at full throughput",
        params: &[WIDTH],
        build: |v| skid_buffer_top(v[0] as u32),
        constraint: None,
    },
    GeneratorSpec {
        name: "rr_arbiter",
        doc: "round-robin stream arbiter",
        params: &[LANES, WIDTH],
        build: |v| {
            arbiter_top(
                "rr_arbiter",
                ArbPolicy::RoundRobin,
                v[0] as u32,
                v[1] as u32,
            )
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "priority_arbiter",
        doc: "fixed-priority stream arbiter (lane 0 first)",
        params: &[LANES, WIDTH],
        build: |v| {
            arbiter_top(
                "priority_arbiter",
                ArbPolicy::Priority,
                v[0] as u32,
                v[1] as u32,
            )
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "stream_mux",
        doc: "stream multiplexer steered by `sel`",
        params: &[LANES, WIDTH],
        build: |v| stream_mux_top(v[0] as u32, v[1] as u32),
        constraint: None,
    },
    GeneratorSpec {
        name: "stream_demux",
        doc: "stream demultiplexer steered by `sel`",
        params: &[LANES, WIDTH],
        build: |v| stream_demux_top(v[0] as u32, v[1] as u32),
        constraint: None,
    },
    GeneratorSpec {
        name: "ram_1r1w",
        doc: "RAM with one write and one synchronous read port",
        params: &[RAM_WIDTH, RAM_DEPTH],
        build: |v| ram_1r1w(&ram_cfg(v)),
        constraint: Some(ram_size),
    },
    GeneratorSpec {
        name: "ram_2p",
        doc: "true dual-port RAM, synchronous read-first ports a and b",
        params: &[RAM_WIDTH, RAM_DEPTH],
        build: |v| ram_2p(&ram_cfg(v)),
        constraint: Some(ram_size),
    },
    GeneratorSpec {
        name: "credit_counter",
        doc: "credit counter for credit-based flow control",
        params: &[pr("max", 8, credit::MAX, "credits after reset")],
        build: |v| credit_counter_top(v[0] as u32),
        constraint: None,
    },
    GeneratorSpec {
        name: "counter",
        doc: "free-running counter with enable (benchmark reference)",
        params: &[pr("width", 32, synthetic::COUNTER_WIDTH, "counter width")],
        build: |v| synthetic::counter(v[0] as u32),
        constraint: None,
    },
    GeneratorSpec {
        name: "mac_mesh",
        doc: "mesh of pipelined 16-bit multiply-add cells (simulator benchmark)",
        params: &[
            pr("lanes", 48, synthetic::MESH_SIZE, "lanes"),
            pr("stages", 48, synthetic::MESH_SIZE, "pipeline stages"),
        ],
        build: |v| synthetic::mac_mesh(v[0] as u32, v[1] as u32),
        constraint: None,
    },
    GeneratorSpec {
        name: "astc_a",
        doc: "ASTC_A texture-address pipeline (pbru §5.2): UV, coverage → block address, texel",
        params: &[
            pr("tag_width", 16, astc::a::TAG_WIDTH, "tag bits carried through"),
            p("shallow", 0, 0, 1, "1: latency 4, 0: latency 8"),
        ],
        build: |v| {
            let pipelining = [Pipelining::Deep, Pipelining::Shallow][v[1] as usize];
            astc_a_top(&AstcACfg {
                tag_width: v[0] as u32,
                pipelining,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "astc_dp",
        doc: "ASTC_DP texel decode pipeline (pbru §5.3): one texel of a 128-bit ASTC block per clock",
        params: &[
            pr("tag_width", 8, astc::dp::TAG_WIDTH, "tag bits carried through"),
            p("footprint", 0, 0, 14, "0 per request, k the k-th of 4x4 5x4 5x5 6x5 6x6 8x5 8x6 8x8 10x5 10x6 10x8 10x10 12x10 12x12"),
            p("profiles", 0, 0, 4, "0 all, 1 LDR only, 2 LDR linear, 3 LDR sRGB, 4 HDR"),
        ],
        build: |v| astc_dp_top(&DpCfg::from_catalog(v[0], v[1], v[2])),
        constraint: None,
    },
    GeneratorSpec {
        name: "pbru",
        doc: "PBRU render engine (pbru §1-5, D2-D3): core scheduler, L0 caches, pipes, cores",
        params: &[
            pr("cores", 4, pbru_lim::CORES, "processing cores"),
            pr("slots", 2, pbru_lim::SLOTS, "ray slots per core"),
            pr("stack_depth", 32, pbru_lim::STACK_DEPTH, "stack words per slot"),
            pow2("icache_chunks", 16, pbru_lim::CACHE_LINES, "L0 instruction-cache lines"),
            pow2("tcache_blocks", 16, pbru_lim::CACHE_LINES, "L0 texture-cache lines"),
            pr("sm_ports", 1, pbru_lim::SM_PORTS, "SM ports for direct pipeline requests"),
            pr("sm_block_cycles", 1, pbru_lim::SM_BLOCK_CYCLES, "cycles a core request waits after an SM request"),
            pr("miss_thresh", 64, pbru_lim::MISS_THRESH, "cycles before a core parks a waiting fetch"),
            p("astc_a_instances", 1, 0, 4, "ASTC_A instances"),
            p("astc_dp_instances", 1, 0, 4, "ASTC_DP instances"),
            p("ggx_instances", 1, 0, 4, "GGX instances"),
            p("oren_nayar_instances", 1, 0, 4, "Oren-Nayar instances"),
            p("schlick_instances", 1, 0, 4, "Schlick instances"),
            p("sheen_instances", 1, 0, 4, "sheen instances"),
            p("subsurface_instances", 1, 0, 4, "subsurface instances"),
            p("cel_instances", 1, 0, 4, "cel instances"),
            pr("test_latency", 4, pbru_lim::TEST_LATENCY, "latency of the test pipelines"),
            p("real_astc", 1, 0, 1, "1: the real units (ASTC and shading), 0: test pipelines"),
        ],
        build: |v| pbru_top(&catalog_cfg(v)),
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_recip",
        doc: "binary32 reciprocal, reciprocal square root and square root, correctly rounded (issue 12)",
        params: &[pr("tag_width", 8, crate::fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| crate::fp::recip::fp_recip_top(&crate::fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_fma",
        doc: "binary32 fused multiply-add unit (D6): fma, mul, add, sub, one per clock",
        params: &[pr("tag_width", 8, fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| fp::fma::fp_fma_top(&fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_misc",
        doc: "binary32 misc unit (D6): min/max, compares, conversions, floor/ceil/trunc/fract/roundEven, abs/neg",
        params: &[pr("tag_width", 8, fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| fp::misc::fp_misc_top(&fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_transc",
        doc: "binary32 exp2, log2, sin, cos (issue 12): table + quadratic, one per clock, latency 8",
        params: &[pr("tag_width", 8, crate::fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| {
            crate::fp::transc::fp_transc_top(&crate::fp::FpCfg {
                tag_width: v[0] as u32,
            })
        },
        constraint: None,
    },    GeneratorSpec {
        name: "int_alu",
        doc: "32-bit integer ALU (issue 12): add/sub/mul/shifts/logic/compares/min/max/sel, one per clock",
        params: &[pr("tag_width", 8, fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| fp::int_alu::int_alu_top(&fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_pow",
        doc: "binary32 x^y = exp2(y·log2 x) from the transc and fma datapaths, one per clock",
        params: &[pr("tag_width", 8, fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| fp::pow::fp_pow_top(&fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "shader_core",
        doc: "SIMT shader core over 2x2 quads (issue 12): warps, mask stack, fp units, ports",
        params: &[
            pr("quads", 1, crate::shader::QUADS, "2x2 quads per warp"),
            pr("warps", 8, crate::shader::WARPS, "warp slots"),
            pr("regs", 64, crate::shader::REGS, "32-bit registers per lane"),
            pow2("imem_depth", 1024, crate::shader::IMEM_DEPTH, "instruction memory words"),
            pr("watchdog", 1_000_000, crate::shader::WATCHDOG, "instructions a warp may execute"),
        ],
        build: |v| {
            crate::shader::shader_core_top(&crate::shader::ShaderCfg {
                quads: v[0] as u32,
                warps: v[1] as u32,
                regs: v[2] as u32,
                imem_depth: v[3] as u32,
                watchdog: v[4],
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_q16",
        doc: "Q16.16 <-> binary32 conversions (nearest even, saturating), the shading pipelines' ports",
        params: &[pr("tag_width", 8, fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| fp::q16::fp_q16_top(&fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "pipe_schlick",
        doc: "PBRU Schlick Fresnel pipe (D4): F0(rgb) F90(rgb) cos -> F(rgb), binary32 inside",
        params: &[],
        build: |_| crate::pbru::pipes::schlick::pipe_schlick_top(),
        constraint: None,
    },
    GeneratorSpec {
        name: "pipe_oren_nayar",
        doc: "PBRU Oren-Nayar pipe (D4): OREN_NAYAR N V L rough -> f, OREN_NAYAR_DIR N xi1 xi2 -> L pdf",
        params: &[],
        build: |_| crate::pbru::pipes::oren_nayar::pipe_oren_nayar_top(),
        constraint: None,
    },
    GeneratorSpec {
        name: "pipe_ggx",
        doc: "PBRU GGX pipe (D4): GGX N V L alpha -> D*G2/(4 NL NV); GGX_DIR N V alpha xi1 xi2 -> L pdf (VNDF)",
        params: &[],
        build: |_| crate::pbru::pipes::ggx::pipe_ggx_top(),
        constraint: None,
    },
    GeneratorSpec {
        name: "pipe_sheen",
        doc: "PBRU sheen pipe (D4, Conty-Kulla): SHEEN N V L rough -> f",
        params: &[],
        build: |_| crate::pbru::pipes::sheen::pipe_sheen_top(),
        constraint: None,
    },
    GeneratorSpec {
        name: "pipe_subsurface",
        doc: "PBRU subsurface pipe (D4, Burley 2012): SUBSURFACE N V L rough -> f",
        params: &[],
        build: |_| crate::pbru::pipes::subsurface::pipe_subsurface_top(),
        constraint: None,
    },
    GeneratorSpec {
        name: "pipe_cel",
        doc: "PBRU cel pipe (D4): CEL N L -> band value, 4-band table written by SM requests",
        params: &[],
        build: |_| crate::pbru::pipes::cel::pipe_cel_top(),
        constraint: None,
    },
    GeneratorSpec {
        name: "texture_unit",
        doc: "texture unit (issue 14 §1): RGBA8 UNORM/sRGB, LOD (sampler clamps, base level), nearest/bilinear/trilinear, repeat/clamp/mirror/border, raw bypass, gather, 4-bank cache (hits counted)",
        params: &[
            pr("slot_width", 3, crate::texture::SLOT_WIDTH, "warp-slot tag bits"),
            pr("quad_width", 1, crate::texture::QUAD_WIDTH, "quad tag bits"),
            pow2("cache_lines", 16, crate::texture::CACHE_LINES, "cache lines (2x2 texel blocks)"),
            pr("max_log2", 10, crate::texture::MAX_LOG2, "log2 of the largest texture side"),
            pr("max_fills", 8, crate::texture::MAX_FILLS, "cache line fills outstanding"),
            pr("queue_depth", 16, crate::texture::QUEUE_DEPTH, "footprints waiting for their lines"),
        ],
        build: |v| {
            crate::texture::texture_unit_top(&crate::texture::TexCfg {
                slot_width: v[0] as u32,
                quad_width: v[1] as u32,
                cache_lines: v[2] as u32,
                max_log2: v[3] as u32,
                max_fills: v[4] as u32,
                queue_depth: v[5] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tile_raster",
        doc: "tile rasteriser (edge functions, top-left rule, 1x/4x MSAA quads) with early depth test against the tile buffer",
        params: TILE_PARAMS,
        build: |v| crate::tile::top::tile_raster_top(&tile_cfg(v)),
        constraint: Some(tile_constraint),
    },
    GeneratorSpec {
        name: "tile_buffer",
        doc: "tile buffer: N render targets + D24 depth, clears, early depth, RGBA8 blending, tile-shader and write-out ports",
        params: TILE_PARAMS,
        build: |v| crate::tile::top::tile_buffer_top(&tile_cfg(v)),
        constraint: Some(tile_constraint),
    },
    GeneratorSpec {
        name: "tile_writeout",
        doc: "tile write-out: static/dynamic suppression per plane, MSAA resolve (mean or sample), pack by format, row bursts to the memory port",
        params: TILE_PARAMS,
        build: |v| crate::tile::top::tile_writeout_top(&tile_cfg(v)),
        constraint: Some(tile_constraint),
    },
    GeneratorSpec {
        name: "tile_cmd",
        doc: "tile command-list processor: fetch, TILE_BEGIN, DRAW, RESOLVE drain barrier and tile-shader launch, END_TILE write-out",
        params: TILE_PARAMS,
        build: |v| crate::tile::top::tile_cmd_top(&tile_cfg(v)),
        constraint: Some(tile_constraint),
    },
    GeneratorSpec {
        name: "tile_backend",
        doc: "tile back end: command processor, rasteriser, early depth, tile buffer, write-out, memory arbiter",
        params: TILE_PARAMS,
        build: |v| crate::tile::top::tile_backend_top(&tile_cfg(v)),
        constraint: Some(tile_constraint),
    },
    GeneratorSpec {
        name: "tex_system",
        doc: "shader core whose tex port is answered by the texture unit (sampler bridge, broadcast fetch; issue 14)",
        params: &[
            pr("quads", 4, crate::shader::QUADS, "2x2 quads per warp"),
            pr("warps", 8, crate::shader::WARPS, "warp slots"),
            pr("regs", 64, crate::shader::REGS, "32-bit registers per lane"),
            pow2("imem_depth", 1024, crate::shader::IMEM_DEPTH, "instruction memory words"),
            pow2("cache_lines", 64, crate::texture::CACHE_LINES, "texture-cache lines (2x2 blocks)"),
            pr("max_log2", 10, crate::texture::MAX_LOG2, "log2 of the largest texture side"),
            pr("order_depth", 32, crate::texture::system::ORDER_DEPTH, "texture requests in flight"),
        ],
        build: |v| {
            crate::texture::system::tex_system_top(&crate::texture::system::TexSysCfg {
                core: crate::shader::ShaderCfg {
                    quads: v[0] as u32,
                    warps: v[1] as u32,
                    regs: v[2] as u32,
                    imem_depth: v[3] as u32,
                    ..crate::shader::ShaderCfg::default()
                },
                tex: crate::texture::TexCfg {
                    cache_lines: v[4] as u32,
                    max_log2: v[5] as u32,
                    ..crate::texture::TexCfg::default()
                },
                order_depth: v[6] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tile_engine",
        doc: "tile engine: back end + shader core running the fragment shaders (prologue for perspective-correct varyings) and the tile shader, one memory port (issue 13)",
        params: TILE_ENGINE_PARAMS,
        build: |v| {
            let mut e = crate::tile::engine::EngineCfg::default();
            e.frag.tile = tile_cfg(v);
            e.frag.core.warps = v[3] as u32;
            e.frag.core.regs = v[4] as u32;
            e.frag.core.imem_depth = v[5] as u32;
            e.frag.entry_log2 = v[6] as u32;
            e.frag.states = v[13] as u32;
            e.uniform_bits = v[7] as u32;
            e.texture = (v[8] > 0).then(|| crate::tile::texture::EngineTexCfg {
                states: v[8] as u32,
                ..Default::default()
            });
            e.geometry = (v[9] > 0).then(|| crate::tile::geometry::frontend::FrontCfg {
                fetch: crate::tile::geometry::fetch::FetchCfg {
                    slots: v[10] as u32,
                    outstanding: 8,
                },
                geom: crate::tile::geometry::GeomCfg {
                    planes: v[1] as u32 + 1,
                    bin_words: v[12] as u32,
                    max_tiles: v[11] as u32,
                    div_steps: 4,
                },
            });
            crate::tile::engine::tile_engine_top(&e)
        },
        constraint: Some(tile_constraint),
    },
    GeneratorSpec {
        name: "texture_unit_astc",
        doc: "texture unit with ASTC textures (issue 14 §1): decode-on-fill (one ASTC_DP, LDR linear/sRGB, fixed footprint) between the texel cache and memory, block cache (fills counted); compare its area with texture_unit's",
        params: &[
            pr("slot_width", 3, crate::texture::SLOT_WIDTH, "warp-slot tag bits"),
            pr("quad_width", 1, crate::texture::QUAD_WIDTH, "quad tag bits"),
            pow2("cache_lines", 16, crate::texture::CACHE_LINES, "texel-cache lines (2x2 texel blocks)"),
            pr("max_log2", 10, crate::texture::MAX_LOG2, "log2 of the largest texture side"),
            p("footprint", 5, 1, 14, "ASTC block footprint: entry of 4x4 5x4 5x5 6x5 6x6 8x5 8x6 8x8 10x5 10x6 10x8 10x10 12x10 12x12 (1-based)"),
            pow2("block_lines", 8, crate::texture::astc::BLOCK_LINES, "block-cache lines (128-bit blocks)"),
        ],
        build: |v| {
            crate::texture::astc::texture_unit_astc_top(&crate::texture::astc::TexAstcCfg {
                unit: crate::texture::TexCfg {
                    slot_width: v[0] as u32,
                    quad_width: v[1] as u32,
                    cache_lines: v[2] as u32,
                    max_log2: v[3] as u32,
                    ..crate::texture::TexCfg::default()
                },
                footprint: crate::astc::dp::Footprint::ALL[(v[4] as usize).clamp(1, 14) - 1],
                block_lines: v[5] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tile_geometry",
        doc: "tile engine geometry front end: triangle setup (guard band, cull, edges, depth plane), tiler, per-tile DRAW lists written to memory",
        params: &[
            p("planes", 5, 1, 9, "planes TILE_BEGIN clears (colour targets + depth)"),
            pow2("bin_words", 512, 32..=65536, "64-bit words of a tile's list bin"),
            pow2("max_tiles", 4096, 1..=65536, "tiles the list writer tracks"),
            p("div_steps", 4, 1, 8, "quotient bits per clock of the depth-plane divider"),
        ],
        build: |v| {
            crate::tile::geometry::tile_geometry_top(&crate::tile::geometry::GeomCfg {
                planes: v[0] as u32,
                bin_words: v[1] as u32,
                max_tiles: v[2] as u32,
                div_steps: v[3] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tex_bridge",
        doc: "the sampler bridge of tex_system alone (request decode, broadcast modes all/selective/shared, answer routing; issue 14)",
        params: &[
            pr("quads", 4, crate::shader::QUADS, "2x2 quads per warp"),
            pr("warps", 8, crate::shader::WARPS, "warp slots"),
            pr("order_depth", 32, crate::texture::system::ORDER_DEPTH, "texture requests in flight"),
        ],
        build: |v| {
            crate::texture::system::tex_bridge_top(&crate::texture::system::TexSysCfg {
                core: crate::shader::ShaderCfg {
                    quads: v[0] as u32,
                    warps: v[1] as u32,
                    ..crate::shader::ShaderCfg::default()
                },
                order_depth: v[2] as u32,
                ..crate::texture::system::TexSysCfg::default()
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "fp_div",
        doc: "binary32 division, correctly rounded, IEEE subnormals kept (issue 13 geometry)",
        params: &[pr("tag_width", 8, fp::TAG_WIDTH, "tag bits carried through")],
        build: |v| fp::div::fp_div_top(&fp::FpCfg { tag_width: v[0] as u32 }),
        constraint: None,
    },
    GeneratorSpec {
        name: "geom_clip",
        doc: "near-plane clipping, perspective divide, viewport transform (issue 13 geometry)",
        params: &[pr(
            "varyings",
            8,
            crate::tile::geometry::clip::VARYINGS,
            "varying words per vertex",
        )],
        build: |v| {
            crate::tile::geometry::clip::geom_clip_top(&crate::tile::geometry::clip::ClipCfg {
                varyings: v[0] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "image_load",
        doc: "tile engine image-load unit: a fragment shader's image loads (the two-pass lighting pass) from surfaces in memory, surface table, per-lane texel latch, narrow reads (issue 13)",
        params: &[
            p("bindings", 9, 1, 16, "entries of the surface table"),
            p("slot_bits", 3, 1, 8, "warp-slot tag bits"),
            p("lane_bits", 2, 1, 6, "lane tag bits"),
        ],
        build: |v| {
            crate::tile::image_load::image_load_top(&crate::tile::image_load::ImageTopCfg {
                image: crate::tile::image_load::ImageCfg {
                    bindings: v[0] as u32,
                },
                slot_bits: v[1] as u32,
                lane_bits: v[2] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tile_vertex",
        doc: "tile engine vertex units: vertex launcher (warps of four vertices, r0 = index) and export sink writing the post-transform vertex buffer with zero fill and the position check (issue 13)",
        params: &[
            p("warps", 8, 2, 16, "warp slots of the core"),
            p("regs", 64, 16, 256, "registers per lane of the core"),
        ],
        build: |v| {
            crate::tile::vertex::tile_vertex_top(&crate::shader::ShaderCfg {
                warps: v[0] as u32,
                regs: v[1] as u32,
                ..crate::shader::ShaderCfg::default()
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "geom_fetch",
        doc: "index fetch and primitive assembly: index buffer and post-transform vertices read through the memory port, index range check (issue 13 geometry)",
        params: &[
            pr("slots", 2, crate::tile::geometry::fetch::SLOTS, "vec4 varying slots per vertex"),
            pr("outstanding", 8, crate::tile::geometry::fetch::OUTSTANDING, "memory reads in flight"),
        ],
        build: |v| {
            crate::tile::geometry::fetch::geom_fetch_top(&crate::tile::geometry::fetch::FetchCfg {
                slots: v[0] as u32,
                outstanding: v[1] as u32,
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tile_frontend",
        doc: "tile engine geometry front end from shaded vertices in memory: index fetch, near-plane clipping, viewport, setup/cull, primitive ids, primitive data, tiler with RESOLVEs, per-tile lists (issue 13 geometry)",
        params: &[
            pr("slots", 2, crate::tile::geometry::fetch::SLOTS, "vec4 varying slots per vertex"),
            pr("outstanding", 8, crate::tile::geometry::fetch::OUTSTANDING, "fetch reads in flight"),
            p("planes", 5, 1, 9, "planes TILE_BEGIN clears (colour targets + depth)"),
            pow2("bin_words", 512, 32..=65536, "64-bit words of a tile's list bin"),
            pow2("max_tiles", 4096, 1..=65536, "tiles the list writer tracks"),
            p("div_steps", 4, 1, 8, "quotient bits per clock of the depth-plane divider"),
        ],
        build: |v| {
            crate::tile::geometry::frontend::tile_frontend_top(&crate::tile::geometry::frontend::FrontCfg {
                fetch: crate::tile::geometry::fetch::FetchCfg {
                    slots: v[0] as u32,
                    outstanding: v[1] as u32,
                },
                geom: crate::tile::geometry::GeomCfg {
                    planes: v[2] as u32,
                    bin_words: v[3] as u32,
                    max_tiles: v[4] as u32,
                    div_steps: v[5] as u32,
                },
            })
        },
        constraint: None,
    },
    GeneratorSpec {
        name: "tex_line_port",
        doc: "the tile engine's texture line port (issue 13): a texture-unit line fill as four narrow reads on the engine's memory port",
        params: &[pr("fills", 8, crate::texture::MAX_FILLS, "lines in flight")],
        build: |v| crate::tile::texture::tex_line_port_top(v[0] as u32),
        constraint: None,
    },
];

/// Parameters of `tile_engine`: the tile tops' then the core's and the program slots.
const TILE_ENGINE_PARAMS: &[ParamSpec] = &[
    p("samples", 4, 1, 4, "samples per pixel: 1 or 4"),
    p("rts", 4, 1, 8, "colour render targets"),
    p(
        "formats",
        0x3210,
        0,
        0xFFFF_FFFF,
        "format of RT i in hex digit i: 0 RGBA8, 1 RGBA16F, 2 R32F, 3 RG16F",
    ),
    p("warps", 8, 1, 16, "warp slots of the core (one quad each)"),
    p(
        "regs",
        64,
        16,
        256,
        "registers per lane (the top 8 are the fragment prologue's)",
    ),
    pow2(
        "imem_depth",
        1024,
        crate::shader::IMEM_DEPTH,
        "instruction words",
    ),
    p(
        "entry_log2",
        8,
        0,
        16,
        "program slot size: 2^entry_log2 words",
    ),
    p(
        "uniform_bits",
        8,
        4,
        16,
        "uniform memory: 2^uniform_bits words",
    ),
    p(
        "tex_states",
        4,
        0,
        16,
        "texture descriptors (draw states that sample); 0: no texture unit",
    ),
    p(
        "geometry",
        0,
        0,
        1,
        "1: the geometry front end (tile_frontend: meshes in, lists made on chip); 0: a `list` input",
    ),
    p(
        "geom_slots",
        2,
        0,
        8,
        "with the front end: varying slots per post-transform vertex",
    ),
    pow2(
        "geom_tiles",
        64,
        1..=65536,
        "with the front end: tiles its list writer tracks",
    ),
    pow2(
        "bin_words",
        512,
        32..=65536,
        "with the front end: 64-bit words of a tile's list bin",
    ),
    p(
        "states",
        4,
        1,
        16,
        "draw states with their own blend state per target and late-depth flag",
    ),
];

/// Parameters of the tile engine's tops: `samples`, `rts`, `formats`.
const TILE_PARAMS: &[ParamSpec] = &[
    p("samples", 4, 1, 4, "samples per pixel: 1 or 4"),
    p("rts", 4, 1, 8, "colour render targets"),
    p(
        "formats",
        0x3210,
        0,
        0xFFFF_FFFF,
        "format of RT i in hex digit i: 0 RGBA8, 1 RGBA16F, 2 R32F, 3 RG16F",
    ),
];

/// The tile configuration of catalogue values `[samples, rts, formats]` (checked by
/// [`tile_constraint`]).
fn tile_cfg(v: &[u64]) -> crate::tile::TileCfg {
    crate::tile::TileCfg {
        samples: v[0] as u32,
        formats: (0..v[1])
            .map(|i| {
                crate::tile::RtFormat::from_code(v[2] >> (4 * i) & 0xF)
                    .unwrap_or(crate::tile::RtFormat::Rgba8)
            })
            .collect(),
    }
}

/// The tile tops' constraints: 1 or 4 samples, a format code 0..=3 for every render target.
fn tile_constraint(v: &[u64]) -> Result<(), (usize, String)> {
    if !matches!(v[0], 1 | 4) {
        return Err((0, "1 or 4".into()));
    }
    match (0..v[1]).all(|i| v[2] >> (4 * i) & 0xF <= 3) {
        true => Ok(()),
        false => Err((
            2,
            format!(
                "hex digits 0..=3 (a format code) for each of the {} render targets",
                v[1]
            ),
        )),
    }
}

/// Parameters `rendergen lint --all` uses instead of the defaults, for generators whose default
/// size only slows synthesis without adding structure: the mesh's 2,304 multipliers take Yosys
/// minutes where 16 exercise the same code; the PBRU is linted with one core and test pipelines
/// (its real ASTC units are linted as `astc_a` and `astc_dp`, its shading units as
/// `pipe_<kind>`); the texture unit with 16×16 textures and 4 cache lines; the tile tops with
/// 1 sample and two render targets, the engine with its geometry front end on 4 tiles of
/// 32-word bins (the default's 188,416 bits of tile storage become
/// flip-flops in Yosys's generic flow).
const LINT_OVERRIDES: &[(&str, &[&str])] = &[
    ("mac_mesh", &["lanes=4", "stages=4"]),
    ("pbru", &["cores=1", "slots=1", "real_astc=0"]),
    ("shader_core", &["warps=1", "regs=8", "imem_depth=16"]),
    (
        "tile_engine",
        &[
            "samples=1",
            "rts=2",
            "formats=0x20",
            "warps=2",
            "regs=16",
            "imem_depth=16",
            "entry_log2=3",
            "uniform_bits=4",
            "tex_states=1",
            "geometry=1",
            "geom_tiles=4",
            "bin_words=32",
        ],
    ),
    ("texture_unit", &["max_log2=4", "cache_lines=4"]),
    (
        "tex_system",
        &[
            "quads=1",
            "warps=1",
            "regs=8",
            "imem_depth=16",
            "cache_lines=4",
            "max_log2=4",
            "order_depth=2",
        ],
    ),
    ("tile_raster", &["samples=1", "rts=2", "formats=0x20"]),
    ("tile_buffer", &["samples=1", "rts=2", "formats=0x20"]),
    ("tile_writeout", &["samples=1", "rts=2", "formats=0x20"]),
    ("tile_backend", &["samples=1", "rts=2", "formats=0x20"]),
];

/// Why a catalogue request failed.
#[derive(Debug)]
pub enum CatalogError {
    /// No generator of that name.
    UnknownGenerator { name: String },
    /// The generator has no such parameter.
    UnknownParam {
        generator: String,
        name: String,
        valid: Vec<String>,
    },
    /// A value that is not a number, is out of range, or breaks a constraint; `valid`
    /// describes the valid values (`an integer in 1..=8`, `a power of two in 1, 2, 4`).
    BadValue {
        generator: String,
        param: String,
        value: String,
        valid: String,
    },
    /// `-p` argument not of the form NAME=VALUE.
    Malformed { arg: String },
    /// The generator rejected its parameters at elaboration.
    Elaboration(ElabErrors),
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::UnknownGenerator { name } => {
                let names: Vec<&str> = GENERATORS.iter().map(|g| g.name).collect();
                write!(
                    f,
                    "unknown generator `{name}`; valid generators: {}",
                    names.join(", ")
                )
            }
            CatalogError::UnknownParam {
                generator,
                name,
                valid,
            } => write!(
                f,
                "generator `{generator}` has no parameter `{name}`; valid parameters: {}",
                if valid.is_empty() {
                    "(none)".to_string()
                } else {
                    valid.join(", ")
                }
            ),
            CatalogError::BadValue {
                generator,
                param,
                value,
                valid,
            } => write!(
                f,
                "invalid value `{value}` for parameter `{param}` of `{generator}`: expected {valid}"
            ),
            CatalogError::Malformed { arg } => {
                write!(f, "parameter `{arg}` is not of the form NAME=VALUE")
            }
            CatalogError::Elaboration(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CatalogError {}

/// The generator called `name`.
pub fn find(name: &str) -> Result<&'static GeneratorSpec, CatalogError> {
    GENERATORS
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| CatalogError::UnknownGenerator {
            name: name.to_string(),
        })
}

impl GeneratorSpec {
    /// Resolves `NAME=VALUE` overrides against the defaults (values in `params` order).
    pub fn resolve(&self, overrides: &[String]) -> Result<Vec<u64>, CatalogError> {
        let mut values: Vec<u64> = self.params.iter().map(|p| p.default).collect();
        for arg in overrides {
            let (k, v) = arg
                .split_once('=')
                .ok_or_else(|| CatalogError::Malformed { arg: arg.clone() })?;
            let Some(i) = self.params.iter().position(|p| p.name == k) else {
                return Err(CatalogError::UnknownParam {
                    generator: self.name.into(),
                    name: k.into(),
                    valid: self.params.iter().map(|p| p.name.to_string()).collect(),
                });
            };
            let spec = &self.params[i];
            values[i] = parse_int(v)
                .filter(|x| spec.accepts(*x))
                .ok_or_else(|| self.bad_value(i, v.into(), spec.valid()))?;
        }
        if let Some(check) = self.constraint {
            check(&values).map_err(|(i, valid)| self.bad_value(i, values[i].to_string(), valid))?;
        }
        Ok(values)
    }

    fn bad_value(&self, param: usize, value: String, valid: String) -> CatalogError {
        CatalogError::BadValue {
            generator: self.name.into(),
            param: self.params[param].name.into(),
            value,
            valid,
        }
    }

    /// Builds the design with `NAME=VALUE` overrides.
    pub fn build(&self, overrides: &[String]) -> Result<Design, CatalogError> {
        let values = self.resolve(overrides)?;
        (self.build)(&values).map_err(CatalogError::Elaboration)
    }

    /// The `NAME=VALUE` overrides used when linting the whole catalogue (usually none).
    pub fn lint_overrides(&self) -> Vec<String> {
        LINT_OVERRIDES
            .iter()
            .filter(|(name, _)| *name == self.name)
            .flat_map(|(_, o)| o.iter().map(|s| s.to_string()))
            .collect()
    }

    /// `name=value` pairs of the defaults, for listings.
    pub fn defaults(&self) -> String {
        let parts: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect();
        parts.join(" ")
    }
}

fn parse_int(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Builds generator `name` with `NAME=VALUE` overrides.
pub fn build(name: &str, overrides: &[String]) -> Result<Design, CatalogError> {
    find(name)?.build(overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generator_elaborates_with_defaults() {
        for g in GENERATORS {
            if let Err(e) = g.build(&[]) {
                panic!("{} failed: {e}", g.name);
            }
        }
    }

    #[test]
    fn bad_requests_name_the_choices() {
        let e = build("fifoo", &[]).unwrap_err().to_string();
        assert!(
            e.contains("unknown generator `fifoo`") && e.contains("rr_arbiter"),
            "{e}"
        );
        let e = build("fifo", &["deep=3".into()]).unwrap_err().to_string();
        assert!(
            e.contains("no parameter `deep`") && e.contains("width, depth"),
            "{e}"
        );
        let e = build("fifo", &["depth=lots".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`lots`") && e.contains("0..=65536"), "{e}");
    }

    /// Builds `g` with `name=value`; `Err` describes a panic or an error that does not name
    /// the parameter.
    fn build_names_param(g: &GeneratorSpec, name: &str, value: &str) -> Result<(), String> {
        let arg = format!("{name}={value}");
        let outcome = std::panic::catch_unwind(|| g.build(std::slice::from_ref(&arg)));
        match outcome {
            Err(_) => Err(format!("{} {arg}: panicked", g.name)),
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => {
                let text = e.to_string();
                match text.contains(&format!("`{name}`")) && text.contains(value) {
                    true => Ok(()),
                    false => Err(format!("{} {arg}: error does not name it: {text}", g.name)),
                }
            }
        }
    }

    /// Every parameter of every generator, one at a time with the others at default, at 0, its
    /// minimum and maximum, maximum + 1, 3 (not a power of two), 2^40 and u64::MAX: each build
    /// succeeds or fails with an error naming the parameter and the value; nothing panics.
    #[test]
    fn every_parameter_sweep_never_panics() {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut failures = Vec::new();
        for g in GENERATORS {
            for p in g.params {
                let values = [
                    0,
                    p.min,
                    p.max,
                    p.max.saturating_add(1),
                    3,
                    1 << 40,
                    u64::MAX,
                ];
                for v in values {
                    if let Err(f) = build_names_param(g, p.name, &v.to_string()) {
                        failures.push(f);
                    }
                }
            }
        }
        std::panic::set_hook(hook);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn out_of_range_values_name_the_valid_values() {
        let e = build("pbru", &["icache_chunks=3".into()])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`icache_chunks`") && e.contains("`3`") && e.contains("1, 2, 4, 8, 16, 32"),
            "{e}"
        );
        let e = build("pbru", &["cores=9".into()]).unwrap_err().to_string();
        assert!(e.contains("`cores`") && e.contains("1..=8"), "{e}");
        let big = ["width=4096".to_string(), "depth=65536".into()];
        let e = build("ram_2p", &big).unwrap_err().to_string();
        assert!(
            e.contains("`depth`") && e.contains("at most 16384 words"),
            "{e}"
        );
    }

    #[test]
    fn pbru_without_any_pipeline_elaborates() {
        let pbru = GENERATORS.iter().find(|g| g.name == "pbru").expect("pbru");
        let none: Vec<String> = (pbru.params.iter())
            .filter(|p| p.name.ends_with("_instances"))
            .map(|p| format!("{}=0", p.name))
            .collect();
        assert_eq!(none.len(), 8);
        if let Err(e) = build("pbru", &none) {
            panic!("{e}");
        }
    }

    #[test]
    fn generators_reject_their_own_bad_parameters() {
        use crate::stream::arbiter::{arbiter_top, ArbPolicy};
        let results = [
            arbiter_top("a", ArbPolicy::RoundRobin, 0, 8),
            arbiter_top("a", ArbPolicy::Priority, 65, 8),
            stream_mux_top(0, 8),
            stream_demux_top(u32::MAX, 8),
            fifo_top(0, &FifoCfg { depth: 1 << 30 }),
            skid_buffer_top(u32::MAX),
            credit_counter_top(0),
            synthetic::counter(0),
            synthetic::mac_mesh(0, u32::MAX),
            ram_2p(&RamCfg {
                width: 4096,
                depth: 1 << 20,
            }),
        ];
        for r in results {
            match r {
                Ok(d) => panic!("{} accepted", d.top().name),
                Err(e) => assert!(e.only_params(), "{e}"),
            }
        }
    }

    #[test]
    fn mac_mesh_is_large() {
        let d = build("mac_mesh", &[]).unwrap();
        assert!(
            d.flat_node_count() >= 10_000,
            "{} nodes",
            d.flat_node_count()
        );
    }

    #[test]
    fn tile_tops_reject_bad_parameters() {
        let e = build("tile_raster", &["samples=2".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`samples`") && e.contains("1 or 4"), "{e}");
        let e = build("tile_buffer", &["rts=2".into(), "formats=0x40".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`formats`") && e.contains("0..=3"), "{e}");
        let e = build("tile_buffer", &["rts=9".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`rts`") && e.contains("1..=8"), "{e}");
    }
}
