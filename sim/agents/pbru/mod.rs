//! Transaction-level agents that drive a simulated `pbru` top through its ports (`pbru.md`
//! §9.3): the SM ([`SmRays`] for rays and call-outs, [`SmPipes`] for direct pipeline requests),
//! the TTU ([`Ttu`], the temporary ray array of parked rays), the SM's L1 ([`L1`], backed by a
//! [`Memory`](crate::models::pbru::Memory) with scripted misses), and [`System`], which wires
//! them to one simulator, routes returned rays, and checks every finished ray against the
//! golden model (`crate::models::pbru`).
//!
//! Ports are the top's (`rtl/pbru/ports.rs`), found by name once: `sm_ray_in`, `ttu_ray_in`,
//! `sm_ray_out`, `ttu_ray_out`, `l1_req`, `l1_resp`, `sm{k}_req`, `sm{k}_resp`, and the
//! `perf_<kind><i>_{sm_grants,core_grants,busy}` counters. Every agent follows the kit's two
//! phases: `drive` (inputs for this cycle), then `sample` (settled outputs, transfers).

pub mod l1;
pub mod run;
pub mod sm;
pub mod sm_pipes;
pub mod ttu;

pub use l1::{L1Cfg, L1};
pub use run::{default_watchdog, PipeStats, Report, System, SystemCfg};
pub use sm::{RayMode, SmRays};
pub use sm_pipes::{SmLoad, SmPipes};
pub use ttu::Ttu;

use crate::engine::Simulator;
use crate::kit::{StreamSink, StreamSource, TbError};
use crate::models::pbru::{FinalRay, Ray};
use rendergen_hdl::Bits;
use rendergen_isa::{Reason, CHUNK_BYTES};

/// A ray leaving the engine, as an agent receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Returned {
    /// The ray (position, stack, reason).
    pub ray: FinalRay,
    /// Where it was sent (0 SM, 1 TTU).
    pub ret_dst: u32,
}

/// Finds payload field `name` of a stream whose ports are `prefix_<field>`.
fn field_index(names: &[&str], prefix: &str, name: &str) -> Result<usize, TbError> {
    let want = format!("{prefix}_{name}");
    (names.iter().position(|n| *n == want))
        .ok_or_else(|| TbError::new(format!("stream `{prefix}` has no field `{name}`")))
}

/// The fields both ray streams carry, first in [`RaySource`]'s and [`RaySink`]'s positions.
const RAY_FIELDS: [&str; 6] = ["ray_id", "inst_addr", "index", "sp", "stack", "ret_dst"];

/// Positions of the fields [`RAY_FIELDS`] then `more` among a ray stream's field names.
fn field_positions(names: &[&str], prefix: &str, more: &[&str]) -> Result<Vec<usize>, TbError> {
    (RAY_FIELDS.iter().chain(more))
        .map(|name| field_index(names, prefix, name))
        .collect()
}

/// Sends rays on an input stream of `RayIn` (`sm_ray_in`, `ttu_ray_in`).
pub struct RaySource {
    src: StreamSource,
    widths: Vec<u32>,
    /// Field positions: [`RAY_FIELDS`], has_chunk, chunk.
    at: Vec<usize>,
}

impl RaySource {
    /// The source for stream `prefix`, with a gap probability.
    pub fn new(sim: &Simulator, prefix: &str, seed: u64, gap: f64) -> Result<RaySource, TbError> {
        let src = StreamSource::new(sim, prefix, seed)?.gap_prob(gap);
        let names = src.fields();
        let at = field_positions(&names, prefix, &["has_chunk", "chunk"])?;
        let widths = (names.iter())
            .map(|n| (sim.inputs().iter().find(|p| p.name == *n)).map_or(0, |p| p.width))
            .collect();
        Ok(RaySource { src, widths, at })
    }

    /// Stack words the port carries.
    pub fn stack_depth(&self) -> u32 {
        self.widths[self.at[4]] / 32
    }

    /// Queues `ray` for `ret_dst`, with the 32-byte chunk holding its first instruction inline if
    /// `chunk` is given.
    pub fn send(
        &mut self,
        ray: &Ray,
        ret_dst: u32,
        chunk: Option<[u8; 32]>,
    ) -> Result<(), TbError> {
        let mut item = vec![Bits::zero(1); self.widths.len()];
        let w = |i: usize| self.widths[self.at[i]];
        let words: Vec<u64> = (ray.stack.chunks(2))
            .map(|p| p[0] as u64 | (p.get(1).copied().unwrap_or(0) as u64) << 32)
            .collect();
        let vals = [
            Bits::from_u64(ray.ray_id as u64, w(0)),
            Bits::from_u64(ray.inst_addr as u64, w(1)),
            Bits::from_u64(ray.index as u64, w(2)),
            Bits::from_u64(ray.stack.len() as u64, w(3)),
            Bits::from_words(&words, w(4)),
            Bits::from_u64(ret_dst as u64, w(5)),
            Bits::from_u64(chunk.is_some() as u64, w(6)),
            Bits::from_le_bytes(&chunk.unwrap_or([0; 32]), w(7)),
        ];
        for (i, v) in vals.into_iter().enumerate() {
            item[self.at[i]] = v;
        }
        self.src.send_bits(item)
    }

    /// Rays still to transfer.
    pub fn pending(&self) -> usize {
        self.src.pending()
    }

    /// Rays transferred.
    pub fn sent(&self) -> u64 {
        self.src.sent()
    }

    /// Phase 1.
    pub fn drive(&mut self, sim: &mut Simulator) {
        self.src.drive(sim)
    }

    /// Phase 2.
    pub fn sample(&mut self, sim: &mut Simulator) {
        self.src.sample(sim)
    }
}

/// Receives rays from an output stream of `RayOut` (`sm_ray_out`, `ttu_ray_out`).
pub struct RaySink {
    sink: StreamSink,
    /// Field positions: [`RAY_FIELDS`], reason.
    at: Vec<usize>,
}

impl RaySink {
    /// The sink for stream `prefix`, with a stall probability.
    pub fn new(sim: &Simulator, prefix: &str, seed: u64, stall: f64) -> Result<RaySink, TbError> {
        let sink = StreamSink::new(sim, prefix, seed)?.stall_prob(stall);
        let names = sink.fields();
        let at = field_positions(&names, prefix, &["reason"])?;
        Ok(RaySink { sink, at })
    }

    /// Phase 1.
    pub fn drive(&mut self, sim: &mut Simulator) {
        self.sink.drive(sim)
    }

    /// Phase 2.
    pub fn sample(&mut self, sim: &mut Simulator) {
        self.sink.sample(sim)
    }

    /// The first protocol violation seen.
    pub fn protocol_result(&self) -> Result<(), TbError> {
        self.sink.protocol_result()
    }

    /// Takes the rays received since the last call.
    pub fn take(&mut self) -> Result<Vec<Returned>, TbError> {
        let at = &self.at;
        (self.sink.take_items().into_iter())
            .map(|item| {
                let g = |i: usize| item[at[i]].to_u64() as u32;
                let sp = g(3) as usize;
                let words = item[at[4]].words();
                let stack = (0..sp)
                    .map(|k| (words.get(k / 2).copied().unwrap_or(0) >> (32 * (k % 2))) as u32)
                    .collect();
                let reason = Reason::from_code(g(6)).ok_or_else(|| {
                    TbError::new(format!("ray {} with reason code {}", g(0), g(6)))
                })?;
                Ok(Returned {
                    ray: FinalRay {
                        ray_id: g(0),
                        inst_addr: g(1),
                        index: g(2),
                        stack,
                        reason,
                    },
                    ret_dst: g(5),
                })
            })
            .collect()
    }
}

/// The 32-byte-aligned chunk base of `addr`.
pub fn chunk_base(addr: u32) -> u32 {
    addr & !(CHUNK_BYTES - 1)
}
