//! The core scheduler 420 (`pbru.md` §4, §9.2 `core_scheduler`; D2–D3). Its siblings in the
//! PBRU top are the pipes ([`crate::pbru::pipes`]), the L0 caches
//! ([`crate::pbru::cache`]) and the cores: it sends them requests and takes their answers
//! through [`SchedOut`] and [`SchedIn`].
//!
//! Sub-blocks, one file each: [`rays`] (intake, assignment, ray out), [`entries`] (request
//! collection), [`issue`] (SM-side arbiter, SM priority, round-robin dispatch, counters),
//! [`mem_proxy`] (L0 caches, L1 traffic, stop on a miss notice), [`route`] (results by tag).

pub mod entries;
pub mod issue;
pub mod mem_proxy;
pub mod rays;
pub mod route;

pub use mem_proxy::{CacheAnswers, CacheAnswersShape};

use crate::pbru::ports::{
    CacheIn, FromCore, L1Req, L1Resp, PbruCfg, PerfCounters, PipeOut, PipeReq, RayIn, RayOut,
    SmReq, SmResp, ToCore,
};
use rendergen_hdl::{name_lets, Io, Module, Stream};
use rendergen_isa::PipeKind;

/// The scheduler's inputs: the outside streams, and what its sibling units (cores, pipes,
/// caches) give it.
#[derive(Io)]
pub struct SchedIn {
    /// Rays from the SM.
    pub sm_ray_in: Stream<RayIn>,
    /// Rays from the TTU (new, or parked rays coming back).
    pub ttu_ray_in: Stream<RayIn>,
    /// The L1's answers.
    pub l1_resp: Stream<L1Resp>,
    /// Direct pipeline requests, one stream per SM port.
    pub sm_req: Vec<Stream<SmReq>>,
    /// Per core.
    pub cores: Vec<FromCore>,
    /// Per pipeline instance, in `cfg.pipes` order: results and busy flag of its pipe. (The
    /// field keeps its old name so that the scheduler's Verilog ports `slots_<i>_*` stay.)
    pub slots: Vec<PipeOut>,
    /// The L0 caches' answers.
    pub caches: CacheAnswers,
}

/// The scheduler's outputs: the outside streams, and what it gives its siblings.
#[derive(Io)]
pub struct SchedOut {
    /// Rays to the SM.
    pub sm_ray_out: Stream<RayOut>,
    /// Rays to the TTU (including parked rays).
    pub ttu_ray_out: Stream<RayOut>,
    /// Requests to the L1.
    pub l1_req: Stream<L1Req>,
    /// Results, one stream per SM port.
    pub sm_resp: Vec<Stream<SmResp>>,
    /// Per core.
    pub cores: Vec<ToCore>,
    /// Per pipeline instance, in `cfg.pipes` order: requests to its pipe.
    pub pipe_req: Vec<Stream<PipeReq>>,
    /// Lookups and fill of the L0 instruction cache.
    pub icache: CacheIn,
    /// Lookups and fill of the L0 texture cache.
    pub tcache: CacheIn,
    /// Per pipeline instance, in `cfg.pipes` order.
    pub perf: Vec<PerfCounters>,
}

/// Core scheduler 420: ray intake and assignment, request collection, dispatch with SM
/// priority, memory proxy, result routing, ray out.
///
/// * **Protocol:** every stream keeps the rendergen rules; nothing is dropped. Per pipeline
///   instance at most one request per clock. A cycle in which an SM port presents a valid
///   request to instance `p` (after the SM-side round-robin arbiter over the ports), and the
///   `sm_block_cycles − 1` cycles after it, issue no core request to `p`; other instances are
///   not affected. Among ready core requests of one type: round-robin over the (core, slot)
///   entries in slot-major order (slot 0 of every core, then slot 1, …), which is round-robin
///   among the cores; the instances of a type take them
///   lowest free instance first. Results go back by tag. Rays leave one per clock; parked
///   rays to the TTU, others by `ret_dst`.
/// * **Timing:** a core request is registered in its (core, slot) entry the cycle it
///   transfers; a pipeline request issues from the entry at the earliest the next cycle, so
///   the core-to-result latency is `1 + pipe latency` plus routing (0 cycles: the pipe's FIFO
///   head goes combinationally through the round-robin arbiter to `crsp`). An SM request
///   enters its instance the cycle it is presented (if the pipe has a credit): SM-to-result
///   latency = the pipe latency. The memory proxy serves up to three entries per cycle (an
///   IFETCH, a TEXREAD and a TEX_DP block read, each round-robin); IFETCH/TEXREAD L0 hits are
///   answered from a per-core answer register: `crsp` valid 2 cycles after the `creq` transfer
///   (entry, proxy lookup). A TEX_DP reads its block in the cycle after its entry is filled
///   and issues the cycle after that. A ray named by address whose chunk is in the
///   instruction cache gets the chunk at intake (no IFETCH).
///   L1 requests leave through a FIFO (≥ 1 cycle). Stop commands follow a miss notice by one
///   cycle. Ray intake to `assign` is combinational (arbiter, instruction-cache
///   lookup, choice among the cores whose `open` is high, valid).
/// * **Parameters:** [`PbruCfg`] (cores 1..=8, slots 1..=8, sm_ports 1..=4, sm_block_cycles
///   ≥ 1, caches powers of two, up to 32 instances;
///   checked by [`PbruCfg::check`]).
/// * **Cost:** per (core, slot) entry about 390 flops; per core an answer register (~290
///   flops); per type a round-robin pointer; per instance three 32-bit counters (its pipe is a
///   sibling); the two caches.
/// * **Errors:** a pipeline request whose type has no instance waits forever (the core's
///   MISS_THRESH does not apply to it); an SM request naming an instance that does not exist
///   is never accepted.
#[name_lets]
pub fn core_scheduler(m: &mut Module, cfg: &PbruCfg, input: SchedIn) -> SchedOut {
    let cfg = &cfg.checked(m);
    let mut busy = Vec::new();
    let mut open = Vec::new();
    let mut creqs = Vec::new();
    let mut dones = Vec::new();
    for c in input.cores {
        busy.push(c.busy);
        open.push(c.open);
        creqs.push(c.creq);
        dones.push(c.done);
    }
    let dp_rewrite = cfg
        .pipes
        .iter()
        .any(|p| p.kind == PipeKind::AstcDp && p.test_latency.is_none());
    // The intake's instruction-cache lookup is the cache's second port.
    let intake_answer = input.caches.icache[1];
    let intake_in = rays::IntakeIn {
        sm_ray_in: input.sm_ray_in,
        ttu_ray_in: input.ttu_ray_in,
        busy,
        open,
        cached: intake_answer,
    };
    let rays::IntakeOut {
        assign: assigns,
        inline,
    } = m.child("intake", cfg, intake_in, rays::intake);
    let (entries, mut ctl) = entries::collect(m, cfg, creqs, dp_rewrite);
    let mut pipe_busy = Vec::new();
    let mut results = Vec::new();
    for p in input.slots {
        pipe_busy.push(p.busy);
        results.push(p.resp);
    }
    let (pipe_req, perf) = issue::dispatch(m, cfg, input.sm_req, &entries, &mut ctl, &pipe_busy);
    let proxy = m.block("proxy", |m| {
        mem_proxy::mem_proxy(
            m,
            cfg,
            &entries,
            &mut ctl,
            input.l1_resp,
            inline,
            input.caches,
        )
    });
    ctl.finish(m);
    let routed = m.child(
        "route",
        cfg,
        route::RouteIn {
            results,
            answers: proxy.answers,
        },
        route::route,
    );
    let (crsps, sm_resp) = (routed.crsp, routed.sm_resp);
    let rays_out = m.child("ray_out", &(), dones, rays::ray_out);
    let (sm_ray_out, ttu_ray_out) = (rays_out.sm, rays_out.ttu);
    let cores: Vec<_> = assigns
        .into_iter()
        .zip(crsps)
        .zip(proxy.stops)
        .map(|((assign, crsp), stop)| ToCore { assign, crsp, stop })
        .collect();
    SchedOut {
        sm_ray_out,
        ttu_ray_out,
        l1_req: proxy.l1_req,
        sm_resp,
        cores,
        pipe_req,
        icache: proxy.icache,
        tcache: proxy.tcache,
        perf,
    }
}
