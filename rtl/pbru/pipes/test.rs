//! The test pipeline of the contract ([`crate::pbru::ports`], "Test pipelines"): a fixed
//! function of the request words at a configurable latency, standing in for the shading units
//! that are not built yet.

use super::pipe_around;
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp, RESULTS_W, TAG_W};
use rendergen_hdl::{cat_lsb_first, lut, name_lets, Module, Sig, Stream};
use rendergen_isa::Opcode;

/// The pipe of a test pipeline of `latency` cycles ([`pbru_pipe`](super::pbru_pipe) with
/// `test_latency`), as its own module.
#[name_lets]
pub fn test_pipe(m: &mut Module, latency: &u32, req: Stream<PipeReq>) -> PipeOut {
    let latency = (*latency).max(1);
    pipe_around(m, latency + 2, req, |m, r| test_unit(m, latency, r))
}

/// The contract's test function, one request per clock, fixed latency `latency` (≥ 1; the
/// output FIFO provides the last cycle): result word `i < op.pushes()` =
/// `Σ_{j < op.pops()} (j + 1)·a[j] + (i + 1)·0x0001_0001 + imm` (wrapping); other words 0.
///
/// * **Timing:** `latency − 1` register stages here; `req.ready` is constant 1 (the pipe's
///   credits keep the FIFO from overflowing).
/// * **Cost:** `(latency − 1) × (1 + 128 + 24)` flops; ten constant multiplies and adds.
#[name_lets]
pub fn test_unit(m: &mut Module, latency: u32, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let result = test_function(m, &d);
    let mut v = valid;
    let mut data = result;
    let mut tag = d.tag;
    for stage in 1..latency {
        let rv = m.reg(&format!("test_valid_s{stage}"), 1).reset(0);
        let rd = m.reg(&format!("test_data_s{stage}"), RESULTS_W);
        let rt = m.reg(&format!("test_tag_s{stage}"), TAG_W);
        rv.next(v);
        rd.next_when(v, data);
        rt.next_when(v, tag);
        (v, data, tag) = (rv.q(), rd.q(), rt.q());
    }
    let (out, _always_ready) = Stream::offer(m, "test_out", v, PipeResp { data, tag });
    out
}

/// The combinational test function of a request (see [`test_unit`]).
#[name_lets]
pub fn test_function(m: &mut Module, d: &PipeReq) -> Sig {
    let pops: Vec<u64> = (0..=255u8)
        .map(|b| Opcode::from_byte(b).map_or(0, |o| o.pops() as u64))
        .collect();
    let pushes: Vec<u64> = (0..=255u8)
        .map(|b| Opcode::from_byte(b).map_or(0, |o| o.pushes() as u64))
        .collect();
    let n_pops = lut(d.op, &pops, 4).named("test_pops");
    let n_pushes = lut(d.op, &pushes, 4).named("test_pushes");
    let mut sum = m.lit(0, 32);
    for j in 0..d.args.width() / 32 {
        let a = d.args.slice(32 * j, 32);
        let used = n_pops.gt(j as u64);
        sum = sum + used.mux(a * (j as u64 + 1), m.lit(0, 32));
    }
    let base = (sum + d.imm.zext(32)).named("test_sum");
    let words: Vec<Sig> = (0..RESULTS_W / 32)
        .map(|i| {
            let w = base + (i as u64 + 1) * 0x0001_0001;
            n_pushes.gt(i as u64).mux(w, m.lit(0, 32))
        })
        .collect();
    cat_lsb_first(&words)
}
