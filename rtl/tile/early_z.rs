//! The early depth test beside the rasteriser: each covered quad is sent to the tile buffer's
//! depth port and waits in a FIFO for the answer; lanes that fail are cleared and quads left
//! with no coverage are dropped.
use super::raster::CoveredQuad;
use super::{QuadFrag, TileCfg, ZReq, ZResp};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{cat, Io, Module, Stream};

/// Quads in flight between the depth request and its answer: enough for one quad per clock
/// through the tile buffer's 2-cycle latency, the answer FIFO and the registered credit
/// return.
pub const IN_FLIGHT: u32 = 4;

/// What [`early_z`] takes.
#[derive(Io)]
pub struct EarlyZIn {
    /// Covered quads from the rasteriser's front.
    pub quads: Stream<CoveredQuad>,
    /// Depth-test answers, in request order.
    pub z_resp: Stream<ZResp>,
}

/// What [`early_z`] gives.
#[derive(Io)]
pub struct EarlyZOut {
    /// Quads with the lanes that passed.
    pub quad: Stream<QuadFrag>,
    /// Depth tests for the tile buffer.
    pub z_req: Stream<ZReq>,
}

/// Splits `quads` into depth requests (`z_req`) and a FIFO of waiting quads, and joins the
/// answers (`z_resp`, in order) into the output.
///
/// * **Protocol:** stream rules; order kept; a quad is dropped only when no lane passed. At
///   most [`IN_FLIGHT`] quads wait (a credit counter), so the FIFO never fills.
/// * **Timing:** the output is combinational from the two FIFOs' heads; `z_resp` is always
///   ready (its FIFO has a place for every quad in flight), so the tile buffer never waits
///   for the fragment side. A quad's answer joins it one clock after it arrives.
/// * **Cost:** a FIFO of [`IN_FLIGHT`] quads, a FIFO of [`IN_FLIGHT`] answers, a 3-bit credit
///   counter.
pub fn early_z(m: &mut Module, _cfg: &TileCfg, i: EarlyZIn) -> EarlyZOut {
    let EarlyZIn { quads, z_resp } = i;
    let (valid, q, ready) = quads.split();
    let take = m.wire("credit_take", 1);
    let give = m.wire("credit_give", 1);
    let credits = credit_counter(m, IN_FLIGHT, take.sig(), give.sig());
    let req = ZReq {
        addr: cat(&[q.frag.qy, q.frag.qx]),
        mask: q.frag.coverage,
        depth: q.frag.depth.clone(),
        op: q.depth_op,
        write: q.depth_write,
    };
    let (z_req, z_ready) = Stream::offer(m, "z_req", valid & credits.available, req);
    let sent = valid & credits.available & z_ready;
    take.drive(sent);
    ready.drive(credits.available & z_ready);
    // The credits keep the FIFO from filling, so its push is never refused.
    let (waiting_in, _never_full) = Stream::offer(m, "waiting", sent, q.frag);
    let waiting = fifo(m, &FifoCfg { depth: IN_FLIGHT }, waiting_in);
    let (head_valid, head, head_ready) = waiting.pop.split();
    // The answers wait in their own FIFO, so `z_resp` is always taken: were its `ready` to
    // depend on the output's, a full fragment side (waiting for its pixel writes) would hold
    // the tile buffer's answer stage, and with it the pixel writes that would free it — a
    // deadlock of the engine (`tile_engine`). The credits bound the answers as the quads.
    let answers = fifo(m, &FifoCfg { depth: IN_FLIGHT }, z_resp);
    let (resp_valid, resp, resp_ready) = answers.pop.split();
    let both = head_valid & resp_valid;
    let coverage = head.coverage & resp.pass;
    let live = coverage.any();
    let frag = QuadFrag { coverage, ..head };
    let (out, out_ready) = Stream::offer(m, "quad", both & live, frag);
    let consume = both & (out_ready | !live);
    head_ready.drive(consume);
    resp_ready.drive(consume);
    give.drive(consume);
    EarlyZOut { quad: out, z_req }
}
