//! Stream multiplexer and demultiplexer steered by a select signal.

use super::{Lanes, LANES, WIDTH};
use rendergen_hdl::{
    clog2, index_select, name_lets, unpack, Bundle, Design, ElabErrors, Module, Sig, Stream,
};

/// Passes the stream `lanes[sel]` to the output; the other lanes see `ready = 0`.
///
/// * **Protocol:** stream rules hold if `sel` changes only when the output is not stalled
///   (`!out.valid || out.ready`); the caller guarantees that.
/// * **Timing:** latency 0; `sel`, `lane.valid → out.valid` and `out.ready → lane.ready` are
///   combinational.
/// * **Cost:** an `n`-way mux of the payload. One lane is a wire.
#[name_lets]
pub fn stream_mux<T: Bundle>(m: &mut Module, sel: Sig, lanes: Vec<Stream<T>>) -> Stream<T> {
    if lanes.len() == 1 {
        return lanes.into_iter().next().expect("one lane");
    }
    let Lanes {
        shape,
        valids,
        datas,
        readies,
    } = Lanes::split(lanes);
    let valid = index_select(sel, &valids);
    let data: T = unpack(&shape, index_select(sel, &datas));
    let (out, out_ready) = Stream::offer(m, "out", valid, data);
    for (i, r) in readies.into_iter().enumerate() {
        r.drive(sel.eq(i as u64) & out_ready);
    }
    out
}

/// Routes `input` to output `sel` of `n`; the others stay invalid.
///
/// * **Protocol:** as [`stream_mux`], `sel` must be stable while the input is stalled.
/// * **Timing:** latency 0, combinational in both directions. One output is a wire.
#[name_lets]
pub fn stream_demux<T: Bundle + Clone>(
    m: &mut Module,
    sel: Sig,
    n: usize,
    input: Stream<T>,
) -> Vec<Stream<T>> {
    if n == 1 {
        return vec![input];
    }
    let (valid, data, ready) = input.split();
    let mut outs = Vec::new();
    let mut readies = Vec::new();
    for i in 0..n {
        let hit = sel.eq(i as u64);
        let (s, r) = Stream::offer(m, &format!("out{i}"), valid & hit, data.clone());
        outs.push(s);
        readies.push(r);
    }
    ready.drive(index_select(sel, &readies));
    outs
}

/// Stand-alone mux of `n` lanes of `width` bits: input `sel`, streams `lane<i>`, `out`.
#[name_lets]
pub fn stream_mux_top(n: u32, width: u32) -> Result<Design, ElabErrors> {
    Design::build_with_params("stream_mux", &format!("n={n} width={width}"), |m| {
        if !(m.check_param("n", n.into(), LANES) & m.check_param("width", width.into(), WIDTH)) {
            return;
        }
        let sel = m.input("sel", clog2(n as u64));
        let lanes: Vec<_> = (0..n)
            .map(|i| m.input_stream::<Sig>(&format!("lane{i}"), &width))
            .collect();
        let out = stream_mux(m, sel, lanes);
        m.output_stream("out", out);
    })
}

/// Stand-alone demux to `n` outputs of `width` bits: input `sel`, streams `in`, `out<i>`.
#[name_lets]
pub fn stream_demux_top(n: u32, width: u32) -> Result<Design, ElabErrors> {
    Design::build_with_params("stream_demux", &format!("n={n} width={width}"), |m| {
        if !(m.check_param("n", n.into(), LANES) & m.check_param("width", width.into(), WIDTH)) {
            return;
        }
        let sel = m.input("sel", clog2(n as u64));
        let input = m.input_stream::<Sig>("in", &width);
        for (i, s) in stream_demux(m, sel, n as usize, input)
            .into_iter()
            .enumerate()
        {
            m.output_stream(&format!("out{i}"), s);
        }
    })
}
