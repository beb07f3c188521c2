//! Dispatch to the pipeline instances (`pbru.md` §4.4–4.5, §9.2 `pipe_issue`, `sm_pipe_arb`;
//! D3): per instance at most one request per clock; the SM side first; round-robin among the
//! cores; lowest free instance of a type first.

use super::entries::{Entry, EntryCtl};
use crate::pbru::ports::{PbruCfg, PerfCounters, PipeReq, SmReq};
use crate::stream::arbiter::{arbiter, ArbPolicy};
use rendergen_hdl::{
    cat, cat_lsb_first, clog2, name_lets, onehot_mux, pack, round_robin_pick, unpack, Io, Module,
    Sig, Stream,
};
use rendergen_isa::PipeKind;

/// The SM request stream of each instance: every SM port demultiplexed by `pipe`, then a
/// round-robin arbiter per instance over the ports (the SM-side arbiter, ¶133).
/// The SM side's request to one instance, and the port it came from.
#[derive(Io)]
pub struct SmLane {
    /// The request.
    pub req: Stream<SmReq>,
    /// One-hot: the SM port granted.
    pub port: Sig,
}

/// The SM-side arbiter (own module `sm_arbiter`): see the function above.
#[name_lets]
pub fn sm_lanes(m: &mut Module, cfg: &PbruCfg, sm_reqs: Vec<Stream<SmReq>>) -> Vec<SmLane> {
    let n = cfg.pipes.len();
    let mut per_pipe: Vec<Vec<Stream<SmReq>>> = (0..n).map(|_| Vec::new()).collect();
    for (k, port) in sm_reqs.into_iter().enumerate() {
        let (v, d, ready) = port.split();
        let mut readies = Vec::new();
        for (p, lanes) in per_pipe.iter_mut().enumerate() {
            let hit = v & d.pipe.eq(p as u64);
            let (lane, r) = Stream::offer(m, &format!("sm{k}_to_p{p}"), hit, d);
            lanes.push(lane);
            // Only the selected lane's ready counts: another instance's credit must not
            // acknowledge a request it does not take (a one-lane arbiter is a wire, so `r` is
            // that instance's credit flag whatever the request's `pipe`).
            readies.push(hit & r);
        }
        ready.drive_any(readies);
    }
    per_pipe
        .into_iter()
        .map(|lanes| {
            let g = arbiter(m, ArbPolicy::RoundRobin, lanes);
            SmLane {
                req: g.out,
                port: g.grant,
            }
        })
        .collect()
}

/// The issue logic of every pipeline instance: returns each instance's request stream (to its
/// pipe, a sibling module) and counters; `pipe_busy` is each pipe's busy flag.
#[name_lets]
pub fn dispatch(
    m: &mut Module,
    cfg: &PbruCfg,
    sm_reqs: Vec<Stream<SmReq>>,
    entries: &[Entry],
    ctl: &mut EntryCtl,
    pipe_busy: &[Sig],
) -> (Vec<Stream<PipeReq>>, Vec<PerfCounters>) {
    let e_n = entries.len() as u32;
    let entry_reqs: Vec<Sig> = entries
        .iter()
        .map(|e| {
            let tag = cat(&[
                m.lit(0, 1),
                m.lit(e.core as u64, 3),
                m.lit(e.slot as u64, 3),
                e.epoch,
                e.ray_id,
            ]);
            pack(&PipeReq {
                op: e.op,
                imm: e.imm,
                args: e.args,
                tag,
            })
        })
        .collect();
    // Round-robin order: slot-major, so consecutive picks go to different cores.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&e| (entries[e].slot, entries[e].core));
    let entry_reqs: Vec<Sig> = order.iter().map(|&e| entry_reqs[e]).collect();
    let sm = m.child("sm_arbiter", cfg, sm_reqs, sm_lanes);
    // Per type: the round-robin pointer and the entries not yet granted this cycle.
    let mut remaining: Vec<Option<Sig>> = vec![None; 8];
    let mut last_ptr = Vec::new();
    let mut new_last: Vec<Option<Sig>> = vec![None; 8];
    for t in PipeKind::ALL {
        let r = m
            .reg(&format!("rr_last_{}", t.name()), e_n)
            .reset(1 << (e_n - 1));
        last_ptr.push(r);
    }
    let mut pipes = Vec::new();
    let mut perf = Vec::new();
    let names = cfg.pipe_names();
    for (i, (lane, inst)) in sm.into_iter().zip(&cfg.pipes).enumerate() {
        let (sm_req, sm_port) = (lane.req, lane.port);
        let t = inst.kind.index() as usize;
        let name = &names[i];
        let (sv, sd, sready) = sm_req.split();
        let sm_valid = sv.named(&format!("{name}_sm_valid"));
        let blocked = sm_block(m, cfg, name, sm_valid);
        let mask = *remaining[t].get_or_insert_with(|| {
            cat_lsb_first(
                &order
                    .iter()
                    .map(|&e| entries[e].ready_for(inst.kind))
                    .collect::<Vec<_>>(),
            )
        });
        let pick = round_robin_pick(mask, last_ptr[t].q());
        let (req_wire, accept_ok) = {
            let shape = PipeReq::SHAPE;
            let (w, drv) = m.wire_bundle::<PipeReq>(&format!("{name}_in"), &shape);
            let valid = m.wire(&format!("{name}_in_valid"), 1);
            let (s, ready) = Stream::offer(m, &format!("{name}_in"), valid.sig(), w);
            ((s, drv, valid), ready)
        };
        let core_grant = (!blocked & accept_ok & mask.any()).named(&format!("{name}_core_grant"));
        let onehot = core_grant.mux(pick, m.lit(0, e_n));
        remaining[t] = Some(mask & !onehot);
        new_last[t] = Some(core_grant.mux(pick, new_last[t].unwrap_or(last_ptr[t].q())));
        for (i, &e) in order.iter().enumerate() {
            ctl.free(e, onehot.bit(i as u32));
        }
        let core_req: PipeReq = unpack(&PipeReq::SHAPE, onehot_mux(onehot, &entry_reqs));
        let sm_tag = cat(&[m.lit(0b100000, 6), sm_port.resize(2), sd.tag]);
        let sm_as_pipe = PipeReq {
            op: sd.op,
            imm: sd.imm,
            args: sd.args,
            tag: sm_tag,
        };
        let (stream, drv, valid) = req_wire;
        valid.drive(sm_valid | core_grant);
        drv.drive(&unpack(
            &PipeReq::SHAPE,
            sm_valid.mux(pack(&sm_as_pipe), pack(&core_req)),
        ));
        sready.drive(accept_ok);
        let count = |m: &mut Module, what: &str, inc: Sig| {
            let r = m.reg(&format!("perf_{name}_{what}"), 32).reset(0);
            r.next_when(inc, r.q() + 1);
            r.q()
        };
        perf.push(PerfCounters {
            sm_grants: count(m, "sm_grants", sm_valid & accept_ok),
            core_grants: count(m, "core_grants", core_grant),
            busy: count(m, "busy", pipe_busy[i]),
        });
        pipes.push(stream);
    }
    for (t, r) in last_ptr.into_iter().enumerate() {
        r.next(new_last[t].unwrap_or(r.q()));
    }
    debug_assert!(clog2(e_n as u64) >= 1);
    (pipes, perf)
}

/// Core issue to an instance is blocked in a cycle with an SM request to it and the
/// `sm_block_cycles − 1` cycles after it (claim 1; D3).
#[name_lets]
fn sm_block(m: &mut Module, cfg: &PbruCfg, name: &str, sm_valid: Sig) -> Sig {
    let extra = cfg.sm_block_cycles.max(1) - 1;
    if extra == 0 {
        return sm_valid;
    }
    let left = m
        .reg(&format!("{name}_sm_block_left"), clog2(extra as u64 + 1))
        .reset(0);
    let down = left.q().ne(0).mux(left.q() - 1, left.q());
    left.next(sm_valid.mux(m.lit(extra as u64, left.q().width()), down));
    (sm_valid | left.q().ne(0)).named(&format!("{name}_core_blocked"))
}
