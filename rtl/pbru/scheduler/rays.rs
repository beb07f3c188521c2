//! Rays in and out (`pbru.md` §4.2, §4.7, §9.2 `ray_dispatch`, `ray_out_mux`; ¶76, ¶107).

use super::mem_proxy::InlineChunk;
use crate::pbru::ports::CacheAnswer;
use crate::pbru::ports::{PbruCfg, RayIn, RayOut};
use crate::stream::arbiter::{arbiter, ArbPolicy};
use rendergen_hdl::{name_lets, or_all, Io, Module, Sig, Stream};

#[name_lets]
fn popcount(m: &mut Module, bits: Sig) -> Sig {
    let w = rendergen_hdl::clog2(bits.width() as u64 + 1);
    (0..bits.width()).fold(m.lit(0, w), |acc, i| acc + bits.bit(i).zext(w))
}

/// Takes one ray per clock from the SM and TTU inputs (round-robin) and offers it to one core
/// among those that take a ray this cycle (`open`) and have a free slot (`busy`): a core with no
/// ray, else the one with the fewest (popcount of `busy`), ties to the lowest index. A core
/// whose intake is still copying the previous ray's stack is passed over, not waited for. The
/// choice is held while an offer waits (a core that was open and did not take it). A ray that
/// names its program by address and whose chunk is in the instruction cache (`cached`, the
/// answer to the returned [`InlineChunk::lookup`]) leaves with that chunk, as if inline, and
/// needs no IFETCH. Returns the per-core `assign` streams and the instruction-cache traffic.
#[name_lets]
pub fn intake(m: &mut Module, cfg: &PbruCfg, i: IntakeIn) -> IntakeOut {
    let IntakeIn {
        sm_ray_in,
        ttu_ray_in,
        busy,
        open,
        cached,
    } = i;
    let (busy, open) = (&busy[..], &open[..]);
    let g = arbiter(m, ArbPolicy::RoundRobin, vec![sm_ray_in, ttu_ray_in]);
    let (v, arrived, ready) = g.out.split();
    let pc = arrived.inst_addr + arrived.index.zext(32);
    let attach = (!arrived.has_chunk & cached.hit).named("intake_chunk_from_icache");
    let ray = RayIn {
        has_chunk: arrived.has_chunk | attach,
        chunk: attach.mux(cached.data, arrived.chunk),
        ..arrived
    };
    let cw = rendergen_hdl::clog2(cfg.cores as u64);
    let counts: Vec<Sig> = busy.iter().map(|b| popcount(m, *b)).collect();
    let free: Vec<Sig> = counts
        .iter()
        .zip(open)
        .map(|(n, &o)| o & n.lt(cfg.slots as u64))
        .collect();
    let (mut best, mut best_n, mut best_free) = (m.lit(0, cw), counts[0], free[0]);
    for c in 1..cfg.cores as usize {
        let better = free[c] & (!best_free | counts[c].lt(best_n));
        best = better.mux(m.lit(c as u64, cw), best);
        best_n = better.mux(counts[c], best_n);
        best_free = better | best_free;
    }
    let locked = m.reg("assign_locked", 1).reset(0);
    let held = m.reg("assign_core", cw).reset(0);
    let chosen = locked.q().mux(held.q(), best).named("assign_choice");
    let go = (v & (locked.q() | best_free)).named("assign_offer");
    let mut readies = Vec::new();
    let mut assigns = Vec::new();
    for c in 0..cfg.cores as usize {
        let (s, r) = Stream::offer(m, &format!("assign{c}"), go & chosen.eq(c as u64), ray);
        readies.push(r & chosen.eq(c as u64));
        assigns.push(s);
    }
    let taken = or_all(readies) & go;
    ready.drive(taken);
    locked.next(go & !taken);
    held.next(chosen);
    let inline = InlineChunk {
        valid: taken & arrived.has_chunk,
        key: pc.slice(5, 27),
        data: arrived.chunk,
        lookup: pc.slice(5, 27),
    };
    IntakeOut {
        assign: assigns,
        inline,
    }
}

/// Finished rays from the cores (round-robin) to `(sm_ray_out, ttu_ray_out)`: parked rays
/// (reason 1) to the TTU (¶76), others by `ret_dst` (0 SM, 1 TTU).
#[name_lets]
pub fn ray_out(m: &mut Module, _cfg: &(), done: Vec<Stream<RayOut>>) -> RaysOut {
    let g = arbiter(m, ArbPolicy::RoundRobin, done);
    let (v, ray, ready) = g.out.split();
    let to_ttu = (ray.reason.eq(1) | ray.ret_dst.eq(1)).named("ray_out_to_ttu");
    let (sm, sm_ready) = Stream::offer(m, "sm_ray_out", v & !to_ttu, ray);
    let (ttu, ttu_ready) = Stream::offer(m, "ttu_ray_out", v & to_ttu, ray);
    ready.drive(to_ttu.mux(ttu_ready, sm_ready));
    RaysOut { sm, ttu }
}

/// What [`intake`] takes.
#[derive(Io)]
pub struct IntakeIn {
    /// Rays from the SM.
    pub sm_ray_in: Stream<RayIn>,
    /// Rays from the TTU.
    pub ttu_ray_in: Stream<RayIn>,
    /// Per core: occupied slots.
    pub busy: Vec<Sig>,
    /// Per core: takes a ray this cycle.
    pub open: Vec<Sig>,
    /// The instruction cache's answer to [`IntakeOut::inline`]'s lookup.
    pub cached: CacheAnswer,
}

/// What [`intake`] gives.
#[derive(Io)]
pub struct IntakeOut {
    /// Per core: rays to start.
    pub assign: Vec<Stream<RayIn>>,
    /// The instruction-cache traffic of the intake.
    pub inline: InlineChunk,
}

/// What [`ray_out`] gives: rays to the SM and to the TTU.
#[derive(Io)]
pub struct RaysOut {
    /// Rays to the SM.
    pub sm: Stream<RayOut>,
    /// Rays to the TTU (parked ones included).
    pub ttu: Stream<RayOut>,
}
