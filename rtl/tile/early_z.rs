//! The early depth test beside the rasteriser: each covered quad is sent to the tile buffer's
//! depth port and waits in a FIFO for the answer; lanes that fail are cleared and quads left
//! with no coverage are dropped. A quad of a draw state whose fragment shader writes depth
//! (late depth, the `late` configuration) is tested with `ALWAYS` and no write instead: every
//! covered lane passes and the depth plane is left alone, as the frame model's `run_pass`
//! does; its own test runs later, in the tile buffer at the pixel write.
use super::cmd::FENCE_PRIM;
use super::raster::CoveredQuad;
use super::{QuadFrag, TileCfg, ZReq, ZResp};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{cat, select, Io, Module, Sig, Stream};

/// Quads in flight between the depth request and its answer: enough for one quad per clock
/// through the tile buffer's 2-cycle latency, the answer FIFO and the registered credit
/// return.
pub const IN_FLIGHT: u32 = 4;

/// Bits of the count of late quads in flight (sent, not yet late-tested): more than the
/// quads the engine holds between `early_z` and the tile buffer.
const LATE_BITS: u32 = 8;

/// Width of the `late_depth` input of the catalogue tops `tile_raster` and `tile_backend`
/// (draw states 0..16).
pub const TOP_STATES: u32 = 16;

/// What [`early_z`] takes.
#[derive(Io)]
pub struct EarlyZIn {
    /// Covered quads from the rasteriser's front.
    pub quads: Stream<CoveredQuad>,
    /// Depth-test answers, in request order.
    pub z_resp: Stream<ZResp>,
    /// Configuration: bit `s` set when draw state `s`'s fragment shader writes depth (late
    /// depth); draw states beyond its width are early-tested.
    pub late: Sig,
    /// The tile buffer did a late depth test this clock.
    pub late_done: Sig,
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
/// * **Late depth:** a quad whose draw state has its `late` bit goes out with
///   [`QuadFrag::late`] set and its depth op and write flag (from the triangle), having been
///   tested with `ALWAYS` (7) without write. Each must come back as one late depth test
///   (`late_done`, from the tile buffer); until every late quad sent has, a quad of another
///   state waits before its early test (so it sees their depth writes, as in the frame
///   model, which finishes each quad before testing the next): draws after a depth-writing
///   draw wait for its quads to be shaded.
/// * **Cost:** a FIFO of [`IN_FLIGHT`] quads, a FIFO of [`IN_FLIGHT`] answers, a 3-bit credit
///   counter; the `late` lookup (a `late`-bit wide one-bit multiplexer).
pub fn early_z(m: &mut Module, _cfg: &TileCfg, i: EarlyZIn) -> EarlyZOut {
    let EarlyZIn {
        quads,
        z_resp,
        late,
        late_done,
    } = i;
    let (valid, q, ready) = quads.split();
    let bits: Vec<Sig> = (0..late.width()).map(|s| late.bit(s)).collect();
    let no = m.lit(0, 1);
    // The drain fence (never shaded, so never late-tested) is not late whatever its state.
    let fence = q.frag.prim.eq(FENCE_PRIM);
    let is_late = (select(q.frag.state, &bits, no) & !fence).named("late_quad");
    // Late quads sent and not yet late-tested: a quad tested early waits for them, so it sees
    // their depth writes as the model's quad-by-quad order does.
    let late_out = m.reg("late_outstanding", LATE_BITS).reset(0);
    let late_wait = !is_late & late_out.q().ne(0);
    let always = m.lit(7, 3);
    let take = m.wire("credit_take", 1);
    let give = m.wire("credit_give", 1);
    let credits = credit_counter(m, IN_FLIGHT, take.sig(), give.sig());
    let req = ZReq {
        addr: cat(&[q.frag.qy, q.frag.qx]),
        mask: q.frag.coverage,
        depth: q.frag.depth.clone(),
        op: is_late.mux(always, q.depth_op),
        write: !is_late & q.depth_write,
    };
    let go = credits.available & !late_wait;
    let (z_req, z_ready) = Stream::offer(m, "z_req", valid & go, req);
    let sent = valid & go & z_ready;
    take.drive(sent);
    ready.drive(go & z_ready);
    let up = (sent & is_late).zext(LATE_BITS);
    late_out.next(late_out.q() + up - late_done.zext(LATE_BITS));
    // The credits keep the FIFO from filling, so its push is never refused.
    let frag = QuadFrag {
        depth_op: q.depth_op,
        depth_write: q.depth_write,
        late: is_late,
        ..q.frag
    };
    let (waiting_in, _never_full) = Stream::offer(m, "waiting", sent, frag);
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
