//! The ASTC_DP bench: the RTL in the Rust simulator driven by the kit's stream source (random
//! gaps) and sink (random back-pressure), every response checked in order against the
//! reference model's `decode_texel`.

use rendergen_hdl::{Bits, Design};
use rendergen_rtl::astc::dp::{astc_dp_top, DpCfg, Profiles};
use rendergen_sim::kit::{StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::astc::{decode_texel, Footprint, Profile};
use rendergen_sim::{Eval, Simulator};
use std::collections::VecDeque;

/// One texel request with what the model says it decodes to.
#[derive(Clone, Copy, Debug)]
pub struct Vector {
    /// The block as a `u128` (bit 0 = bit 0 of byte 0).
    pub block: u128,
    /// Footprint.
    pub fp: Footprint,
    /// Profile.
    pub profile: Profile,
    /// Texel column.
    pub x: u32,
    /// Texel row.
    pub y: u32,
}

/// The response fields the scoreboard compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texel {
    /// R, G, B, A × 16 bits, R lowest.
    pub rgba: u64,
    /// R, G, B, A × 8 bits, R lowest.
    pub rgba8: u32,
    /// Error colour.
    pub error: bool,
}

impl Vector {
    /// The model's answer; a build without HDR answers HDR requests with the HDR error texel.
    pub fn expected(&self, cfg: &DpCfg) -> Texel {
        let t = if cfg.profiles == Profiles::Ldr && self.profile == Profile::Hdr {
            rendergen_sim::models::astc::Texel::error(Profile::Hdr)
        } else {
            let block = self.block.to_le_bytes();
            decode_texel(&block, self.fp, self.profile, self.x, self.y)
        };
        let rgba = (0..4).fold(0u64, |a, c| a | (t.rgba[c] as u64) << (16 * c));
        let b = t.to_rgba8();
        Texel {
            rgba,
            rgba8: u32::from_le_bytes(b),
            error: t.error,
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} {} block {:032X} texel ({},{})",
            self.fp, self.profile, self.block, self.x, self.y
        )
    }
}

/// The configuration for the model's footprint/profile types.
pub fn profile_code(p: Profile) -> u64 {
    match p {
        Profile::LdrLinear => 0,
        Profile::LdrSrgb => 1,
        Profile::Hdr => 2,
    }
}

/// Traffic shape.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability of an idle request cycle.
    pub gap: f64,
    /// Probability of holding the response ready low.
    pub stall: f64,
}

/// A built design and its simulator.
pub struct Bench {
    /// The elaborated design (for co-simulation).
    pub design: Design,
    /// The simulator.
    pub sim: Simulator,
    cfg: DpCfg,
}

impl Bench {
    /// Elaborates ASTC_DP with `cfg`. The testbenches' configuration
    /// ([`rendergen_compiled::astc_dp_tb_cfg`]) runs as generated Rust compiled with the crate
    /// (unless `RENDERGEN_TB_ENGINE=interpreter`, [`rendergen_testbenches::TB_ENGINE_ENV`]);
    /// any other is interpreted.
    pub fn new(cfg: DpCfg) -> Bench {
        let design = astc_dp_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
        let compiled = rendergen_testbenches::compiled_from_env();
        let sim = if compiled && cfg == rendergen_compiled::astc_dp_tb_cfg() {
            let code = rendergen_compiled::astc_dp_tb_full::code();
            Simulator::with_compiled(&design, Eval::Full, code)
        } else {
            Simulator::new(&design)
        }
        .unwrap_or_else(|e| panic!("{e}"));
        Bench { design, sim, cfg }
    }
}

/// The request's port values in the source's field order.
fn request(v: &Vector, tag: u64, tag_width: u32, fields: &[&str]) -> Vec<Bits> {
    fields
        .iter()
        .map(|f| match *f {
            "req_block" => Bits::from_u128(v.block, 128),
            "req_x" => Bits::from_u64(v.x as u64, 4),
            "req_y" => Bits::from_u64(v.y as u64, 4),
            "req_bw" => Bits::from_u64(v.fp.w() as u64, 4),
            "req_bh" => Bits::from_u64(v.fp.h() as u64, 4),
            "req_profile" => Bits::from_u64(profile_code(v.profile), 2),
            "req_tag" => Bits::from_u64(tag, tag_width),
            other => panic!("unknown request field {other}"),
        })
        .collect()
}

impl Bench {
    /// Runs `vectors` through the pipeline with `traffic`; checks every response in order
    /// (value, tag, nothing lost or duplicated). Returns the cycles taken. Panics with the
    /// seed, the failing vector and both values on the first mismatch.
    pub fn run(&mut self, name: &str, seed: u64, vectors: &[Vector], traffic: Traffic) -> u64 {
        let run = TestRun::start(&mut self.sim, name, seed);
        let result = self.drive(seed, vectors, traffic);
        run.check(&mut self.sim, result)
    }

    fn drive(&mut self, seed: u64, vectors: &[Vector], traffic: Traffic) -> Result<u64, TbError> {
        let cfg = self.cfg;
        let tag_width = cfg.tag_width;
        let sim = &mut self.sim;
        sim.reset(2);
        let mut src = StreamSource::new(sim, "req", seed ^ 1)?.gap_prob(traffic.gap);
        let mut sink = StreamSink::new(sim, "resp", seed ^ 2)?.stall_prob(traffic.stall);
        let fields: Vec<String> = src.fields().iter().map(|s| s.to_string()).collect();
        let names: Vec<&str> = fields.iter().map(String::as_str).collect();
        let resp_fields: Vec<String> = sink.fields().iter().map(|s| s.to_string()).collect();
        let idx = |n: &str| resp_fields.iter().position(|f| f == n).expect("resp field");
        let (i_rgba, i_rgba8, i_err, i_tag) = (
            idx("resp_rgba"),
            idx("resp_rgba8"),
            idx("resp_error"),
            idx("resp_tag"),
        );
        let mask = if tag_width >= 64 {
            u64::MAX
        } else {
            (1 << tag_width) - 1
        };
        let mut pending: VecDeque<(usize, Texel)> = VecDeque::new();
        let mut next = 0usize;
        let mut received = 0usize;
        let start = sim.cycle();
        let watchdog = Watchdog::new(vectors.len() as u64 * 8 + 1000, seed);
        watchdog.run_until(sim, "all responses", |sim| {
            // Keep a few requests queued in the source.
            while next < vectors.len() && src.pending() < 4 {
                let v = &vectors[next];
                let tag = next as u64 & mask;
                src.send_bits(request(v, tag, tag_width, &names))?;
                pending.push_back((next, v.expected(&cfg)));
                next += 1;
            }
            src.drive(sim);
            sink.drive(sim);
            src.sample(sim);
            sink.sample(sim);
            sink.protocol_result()?;
            for item in sink.take_items() {
                let Some((i, want)) = pending.pop_front() else {
                    return Err(TbError::new(format!("unexpected response {item:?}: nothing outstanding")));
                };
                let got = Texel {
                    rgba: item[i_rgba].to_u64(),
                    rgba8: item[i_rgba8].to_u64() as u32,
                    error: item[i_err].to_u64() != 0,
                };
                let tag = item[i_tag].to_u64();
                if tag != i as u64 & mask {
                    return Err(TbError::new(format!(
                        "response #{received} has tag {tag:#x}, expected {:#x} (lost, duplicated or reordered) — {}",
                        i as u64 & mask,
                        vectors[i].describe()
                    )));
                }
                if got != want {
                    return Err(TbError::new(format!(
                        "mismatch on {}: RTL rgba {:016X} rgba8 {:08X} error {} — model rgba {:016X} rgba8 {:08X} error {}",
                        vectors[i].describe(),
                        got.rgba, got.rgba8, got.error, want.rgba, want.rgba8, want.error
                    )));
                }
                received += 1;
            }
            Ok(received == vectors.len())
        })?;
        Ok(sim.cycle() - start)
    }
}
