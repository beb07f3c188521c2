//! The SM's ray side: sends rays on `sm_ray_in` (program by address, or the first chunk
//! inline), receives rays on `sm_ray_out`, and runs call-outs (§3.7, the convention of
//! [`callout`](crate::models::pbru::callout)): a `Done` ray stopped at `RAYSTOP` + marker gets the
//! function's result pushed, its index advanced past the marker, and is sent again.

use super::{RaySink, RaySource, Returned};
use crate::engine::Simulator;
use crate::kit::TbError;
use crate::models::pbru::callout::{callout_of, resume_after_callout};
use crate::models::pbru::{Memory, Ray};

/// How a ray names its program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayMode {
    /// Only the address; the engine fetches the chunks.
    Address,
    /// The chunk holding the first instruction travels with the ray.
    Inline,
}

/// The SM ray agent.
pub struct SmRays {
    /// Sends rays.
    pub input: RaySource,
    /// Receives rays.
    pub output: RaySink,
    /// Call-outs run so far.
    pub callouts: u64,
}

impl SmRays {
    /// The agent on `sm_ray_in`/`sm_ray_out`, with a gap probability between rays sent and a
    /// stall probability on the rays received.
    pub fn new(sim: &Simulator, seed: u64, gap: f64, stall: f64) -> Result<SmRays, TbError> {
        Ok(SmRays {
            input: RaySource::new(sim, "sm_ray_in", seed, gap)?,
            output: RaySink::new(sim, "sm_ray_out", seed ^ 0x55, stall)?,
            callouts: 0,
        })
    }

    /// Queues `ray` returning to `ret_dst` (0 SM, 1 TTU).
    pub fn send(
        &mut self,
        mem: &Memory,
        ray: &Ray,
        mode: RayMode,
        ret_dst: u32,
    ) -> Result<(), TbError> {
        let chunk = (mode == RayMode::Inline).then(|| mem.chunk(ray.pc()));
        self.input.send(ray, ret_dst, chunk)
    }

    /// If `r` is a call-out, runs it and queues the ray again (returns the ray queued).
    pub fn callout(&mut self, mem: &Memory, r: &Returned) -> Result<Option<Ray>, TbError> {
        let Some(f) = callout_of(mem, &r.ray) else {
            return Ok(None);
        };
        let depth = self.input.stack_depth();
        let ray = resume_after_callout(f, &r.ray, depth).map_err(TbError::new)?;
        self.callouts += 1;
        self.send(mem, &ray, RayMode::Address, r.ret_dst)?;
        Ok(Some(ray))
    }

    /// Phase 1.
    pub fn drive(&mut self, sim: &mut Simulator) {
        self.input.drive(sim);
        self.output.drive(sim);
    }

    /// Phase 2: the rays received this cycle.
    pub fn sample(&mut self, sim: &mut Simulator) -> Result<Vec<Returned>, TbError> {
        self.input.sample(sim);
        self.output.sample(sim);
        self.output.take()
    }
}
