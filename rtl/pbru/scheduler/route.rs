//! Result routing by tag (`pbru.md` §4.6, §9.2 `rsp_router`; D3): each instance's output head
//! goes to the core and slot in its tag, or to the SM port in its tag; SM results never reach a
//! core and core results never reach an SM port. Round-robin per destination.

use crate::pbru::ports::{CoreResp, PbruCfg, PipeResp, SmResp, CHUNK_W, CRSP_PIPE};
use crate::stream::arbiter::{arbiter, ArbPolicy};
use rendergen_hdl::{name_lets, Io, Module, Stream};

/// What [`route`] takes.
#[derive(Io)]
pub struct RouteIn {
    /// Per pipeline instance: its results (index = `SmResp::pipe`).
    pub results: Vec<Stream<PipeResp>>,
    /// Per core: the memory proxy's answers.
    pub answers: Vec<Stream<CoreResp>>,
}

/// What [`route`] gives.
#[derive(Io)]
pub struct RouteOut {
    /// Per core: answers and results.
    pub crsp: Vec<Stream<CoreResp>>,
    /// Per SM port: results.
    pub sm_resp: Vec<Stream<SmResp>>,
}

/// Routes `results` (one per instance, index = `SmResp::pipe`) and the proxy's `answers` (one
/// per core) to the cores' `crsp` and the SM ports.
#[name_lets]
pub fn route(m: &mut Module, cfg: &PbruCfg, i: RouteIn) -> RouteOut {
    let RouteIn { results, answers } = i;
    let slot_w = cfg.slot_w();
    let mut to_core: Vec<Vec<Stream<CoreResp>>> = answers.into_iter().map(|a| vec![a]).collect();
    let mut to_sm: Vec<Vec<Stream<SmResp>>> = (0..cfg.sm_ports).map(|_| Vec::new()).collect();
    for (p, res) in results.into_iter().enumerate() {
        let (v, d, ready) = res.split();
        let from_sm = d.tag.bit(23);
        let core = d.tag.slice(20, 3);
        let mut readies = Vec::new();
        for (c, lanes) in to_core.iter_mut().enumerate() {
            // The lane's holding register: a result the core's arbiter cannot take at once
            // waits here instead of stalling the pipe's output (and so the pipe) for every
            // other core. Empty, the result passes straight through (no added latency).
            let held = m.reg(&format!("p{p}_to_core{c}_held"), 1).reset(0);
            let held_data = m.reg(&format!("p{p}_to_core{c}_held_data"), d.data.width());
            let held_tag = m.reg(&format!("p{p}_to_core{c}_held_tag"), 17 + slot_w);
            let hit = v & !from_sm & core.eq(c as u64);
            let tag = held.q().mux(held_tag.q(), d.tag.slice(0, 17 + slot_w));
            let rsp = CoreResp {
                kind: m.lit(CRSP_PIPE, 2),
                slot: tag.slice(17, slot_w),
                epoch: tag.bit(16),
                ray_id: tag.slice(0, 16),
                data: held.q().mux(held_data.q(), d.data).zext(CHUNK_W),
            };
            let (lane, r) = Stream::offer(m, &format!("p{p}_to_core{c}"), held.q() | hit, rsp);
            lanes.push(lane);
            let take = hit & !held.q();
            let park = take & !r;
            held.next(held.q() & !r | park);
            held_data.next_when(park, d.data);
            held_tag.next_when(park, d.tag.slice(0, 17 + slot_w));
            readies.push(take);
        }
        for (k, lanes) in to_sm.iter_mut().enumerate() {
            let rsp = SmResp {
                pipe: m.lit(p as u64, 5),
                data: d.data,
                tag: d.tag.slice(0, 16),
            };
            let hit = v & from_sm & d.tag.slice(16, 2).eq(k as u64);
            let (lane, r) = Stream::offer(m, &format!("p{p}_to_sm{k}"), hit, rsp);
            lanes.push(lane);
            readies.push(hit & r);
        }
        ready.drive_any(readies);
    }
    let crsp: Vec<_> = to_core
        .into_iter()
        .map(|lanes| arbiter(m, ArbPolicy::RoundRobin, lanes).out)
        .collect();
    let sm: Vec<_> = to_sm
        .into_iter()
        .enumerate()
        .map(|(k, lanes)| match lanes.is_empty() {
            // No pipeline instance: the port never has a result.
            true => Stream::idle(m, &format!("no_pipe_to_sm{k}"), &SmResp::SHAPE),
            false => arbiter(m, ArbPolicy::RoundRobin, lanes).out,
        })
        .collect();
    RouteOut { crsp, sm_resp: sm }
}
