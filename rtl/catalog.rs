//! The catalogue of top-level generators: names, parameters with defaults and legal ranges, and
//! how to build each. The command line (`rendergen list`, `verilog`, `lint`, `bench`, `synth`)
//! and the testbenches use it, so a generator is added in one place.

use crate::astc::address::{astc_a_top, AstcACfg, Pipelining};
use crate::astc::dp::{astc_dp_top, DpCfg};
use crate::mem::ram::{ram_1r1w, ram_2p, RamCfg};
use crate::pbru::top::{catalog_cfg, pbru_top};
use crate::stream::arbiter::{arbiter_top, ArbPolicy};
use crate::stream::credit::credit_counter_top;
use crate::stream::fifo::{fifo_top, FifoCfg};
use crate::stream::mux::{stream_demux_top, stream_mux_top};
use crate::stream::skid::skid_buffer_top;
use crate::synthetic;
use rendergen_hdl::{Design, ElabErrors};
use std::fmt;

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
    /// One line of documentation.
    pub doc: &'static str,
}

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
}

const fn p(name: &'static str, default: u64, min: u64, max: u64, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        default,
        min,
        max,
        doc,
    }
}

const WIDTH: ParamSpec = p("width", 32, 1, 4096, "payload width in bits");
const LANES: ParamSpec = p("n", 4, 1, 64, "number of lanes");
const DEPTH: ParamSpec = p("depth", 256, 1, 1 << 20, "words");

/// The RAM configuration from the values of `[WIDTH, DEPTH]`.
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
        params: &[WIDTH, p("depth", 16, 0, 65536, "entries (0 = wire)")],
        build: |v| fifo_top(v[0] as u32, &FifoCfg { depth: v[1] as u32 }),
    },
    GeneratorSpec {
        name: "skid_buffer",
        doc: "register slice for valid/ready at full throughput",
        params: &[WIDTH],
        build: |v| skid_buffer_top(v[0] as u32),
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
    },
    GeneratorSpec {
        name: "stream_mux",
        doc: "stream multiplexer steered by `sel`",
        params: &[LANES, WIDTH],
        build: |v| stream_mux_top(v[0] as u32, v[1] as u32),
    },
    GeneratorSpec {
        name: "stream_demux",
        doc: "stream demultiplexer steered by `sel`",
        params: &[LANES, WIDTH],
        build: |v| stream_demux_top(v[0] as u32, v[1] as u32),
    },
    GeneratorSpec {
        name: "ram_1r1w",
        doc: "RAM with one write and one synchronous read port",
        params: &[WIDTH, DEPTH],
        build: |v| ram_1r1w(&ram_cfg(v)),
    },
    GeneratorSpec {
        name: "ram_2p",
        doc: "true dual-port RAM, synchronous read-first ports a and b",
        params: &[WIDTH, DEPTH],
        build: |v| ram_2p(&ram_cfg(v)),
    },
    GeneratorSpec {
        name: "credit_counter",
        doc: "credit counter for credit-based flow control",
        params: &[p("max", 8, 1, 1 << 31, "credits after reset")],
        build: |v| credit_counter_top(v[0] as u32),
    },
    GeneratorSpec {
        name: "counter",
        doc: "free-running counter with enable (benchmark reference)",
        params: &[p("width", 32, 1, 4096, "counter width")],
        build: |v| synthetic::counter(v[0] as u32),
    },
    GeneratorSpec {
        name: "mac_mesh",
        doc: "mesh of pipelined 16-bit multiply-add cells (simulator benchmark)",
        params: &[
            p("lanes", 48, 1, 256, "lanes"),
            p("stages", 48, 1, 256, "pipeline stages"),
        ],
        build: |v| synthetic::mac_mesh(v[0] as u32, v[1] as u32),
    },
    GeneratorSpec {
        name: "astc_a",
        doc: "ASTC_A texture-address pipeline (pbru §5.2): UV, coverage → block address, texel",
        params: &[
            p("tag_width", 16, 1, 64, "tag bits carried through"),
            p("shallow", 0, 0, 1, "1: latency 4, 0: latency 8"),
        ],
        build: |v| {
            let pipelining = [Pipelining::Deep, Pipelining::Shallow][v[1] as usize];
            astc_a_top(&AstcACfg {
                tag_width: v[0] as u32,
                pipelining,
            })
        },
    },
    GeneratorSpec {
        name: "astc_dp",
        doc: "ASTC_DP texel decode pipeline (pbru §5.3): one texel of a 128-bit ASTC block per clock",
        params: &[
            p("tag_width", 8, 1, 64, "tag bits carried through"),
            p("footprint", 0, 0, 14, "0 per request, k the k-th of 4x4 5x4 5x5 6x5 6x6 8x5 8x6 8x8 10x5 10x6 10x8 10x10 12x10 12x12"),
            p("profiles", 0, 0, 4, "0 all, 1 LDR only, 2 LDR linear, 3 LDR sRGB, 4 HDR"),
        ],
        build: |v| astc_dp_top(&DpCfg::from_catalog(v[0], v[1], v[2])),
    },
    GeneratorSpec {
        name: "pbru",
        doc: "PBRU render engine (pbru §1-5, D2-D3): core scheduler, L0 caches, pipeline slots, cores",
        params: &[
            p("cores", 4, 1, 8, "processing cores"),
            p("slots", 2, 1, 8, "ray slots per core"),
            p("stack_depth", 32, 4, 64, "stack words per slot"),
            p("icache_chunks", 16, 1, 256, "L0 instruction-cache lines (power of two)"),
            p("tcache_blocks", 16, 1, 256, "L0 texture-cache lines (power of two)"),
            p("sm_ports", 1, 1, 4, "SM ports for direct pipeline requests"),
            p("sm_block_cycles", 1, 1, 64, "cycles a core request waits after an SM request"),
            p("miss_thresh", 64, 0, 65535, "cycles before a core parks a waiting fetch"),
            p("astc_a_instances", 1, 0, 4, "ASTC_A instances"),
            p("astc_dp_instances", 1, 0, 4, "ASTC_DP instances"),
            p("ggx_instances", 1, 0, 4, "GGX instances"),
            p("oren_nayar_instances", 1, 0, 4, "Oren-Nayar instances"),
            p("schlick_instances", 1, 0, 4, "Schlick instances"),
            p("sheen_instances", 1, 0, 4, "sheen instances"),
            p("subsurface_instances", 1, 0, 4, "subsurface instances"),
            p("cel_instances", 1, 0, 4, "cel instances"),
            p("test_latency", 4, 1, 64, "latency of the test pipelines"),
            p("real_astc", 1, 0, 1, "1: real ASTC_A/ASTC_DP units, 0: test pipelines"),
        ],
        build: |v| pbru_top(&catalog_cfg(v)),
    },
];

/// Parameters `rendergen lint --all` uses instead of the defaults, for generators whose default
/// size only slows synthesis without adding structure: the mesh's 2,304 multipliers take Yosys
/// minutes where 16 exercise the same code; the PBRU is linted with one core and test pipelines
/// (its real ASTC units are linted as `astc_a` and `astc_dp`).
const LINT_OVERRIDES: &[(&str, &[&str])] = &[
    ("mac_mesh", &["lanes=4", "stages=4"]),
    ("pbru", &["cores=1", "slots=1", "real_astc=0"]),
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
    /// A value that is not a number or is out of range.
    BadValue {
        generator: String,
        param: String,
        value: String,
        min: u64,
        max: u64,
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
                write!(f, "unknown generator `{name}`; valid generators: {}", names.join(", "))
            }
            CatalogError::UnknownParam { generator, name, valid } => write!(
                f,
                "generator `{generator}` has no parameter `{name}`; valid parameters: {}",
                if valid.is_empty() { "(none)".to_string() } else { valid.join(", ") }
            ),
            CatalogError::BadValue { generator, param, value, min, max } => write!(
                f,
                "invalid value `{value}` for parameter `{param}` of `{generator}`: expected an integer in {min}..={max}"
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
            let parsed = parse_int(v).filter(|x| (spec.min..=spec.max).contains(x));
            values[i] = parsed.ok_or_else(|| CatalogError::BadValue {
                generator: self.name.into(),
                param: k.into(),
                value: v.into(),
                min: spec.min,
                max: spec.max,
            })?;
        }
        Ok(values)
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

    #[test]
    fn mac_mesh_is_large() {
        let d = build("mac_mesh", &[]).unwrap();
        assert!(
            d.flat_node_count() >= 10_000,
            "{} nodes",
            d.flat_node_count()
        );
    }
}
