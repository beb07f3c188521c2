//! Stream combinators for building a pipeline step by step: [`map`] adds combinational logic to
//! a stream, [`pipe_reg`] cuts it with a register stage.

use rendergen_hdl::{name_lets, Bundle, Module, Stream};

/// Applies the combinational function `f` to the payload of `input`.
///
/// * **Protocol:** `valid` and `ready` pass straight through; the stream rules hold if `f` is
///   purely combinational.
/// * **Timing:** latency 0; the output ready wire is `name_ready`.
/// * **Cost:** the logic `f` builds.
#[name_lets]
pub fn map<A: Bundle, B: Bundle>(
    m: &mut Module,
    name: &str,
    input: Stream<A>,
    f: impl FnOnce(&mut Module, &A) -> B,
) -> Stream<B> {
    let (valid, data, ready) = input.split();
    let out_data = f(m, &data);
    let (out, out_ready) = Stream::offer(m, name, valid, out_data);
    ready.drive(out_ready);
    out
}

/// One pipeline register stage that fills bubbles: it loads whenever it is empty or its output
/// moves on.
///
/// * **Protocol:** stream rules on both sides; order kept; nothing dropped. The payload
///   registers load only on a transfer in, so they hold while the output stalls.
/// * **Timing:** latency 1; initiation interval 1; `input.ready = !valid_q | output.ready` is
///   combinational (one gate), so a chain of stages has a ready chain of one gate per stage.
/// * **Cost:** one valid flop (reset to 0) and one payload register (no reset) per field.
#[name_lets]
pub fn pipe_reg<T: Bundle>(m: &mut Module, name: &str, input: Stream<T>) -> Stream<T> {
    let shape = input.shape();
    let (in_valid, in_data, in_ready) = input.split();
    let valid = m.reg(&format!("{name}_valid"), 1).reset(0);
    let mut regs = Vec::new();
    let data = T::from_fields(&shape, &mut |f, w| {
        let r = m.reg(&format!("{name}_{f}"), w);
        regs.push(r);
        r.q()
    });
    let (out, out_ready) = Stream::offer(m, name, valid.q(), data);
    let advance = (!valid.q() | out_ready).named(&format!("{name}_advance"));
    in_ready.drive(advance);
    valid.next_when(advance, in_valid);
    let load = (advance & in_valid).named(&format!("{name}_load"));
    for (r, (_, d)) in regs.iter().zip(in_data.fields()) {
        r.next_when(load, d);
    }
    out
}
