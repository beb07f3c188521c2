//! Skid buffer: a register slice for valid/ready streams at full throughput.

use rendergen_hdl::{name_lets, Bundle, Design, ElabErrors, Module, Sig, Stream};

/// Registers both directions of a stream (valid/data forward, ready backward) and still moves
/// one item per cycle.
///
/// * **Protocol:** stream rules on both sides; order preserved; nothing dropped.
/// * **Timing:** latency 1; initiation interval 1; no combinational path from input to output in
///   either direction (`in.ready` is a register, `out.valid` is a register).
/// * **Cost:** two payload registers (main and skid) and two valid flags.
#[name_lets]
pub fn skid_buffer<T: Bundle>(m: &mut Module, input: Stream<T>) -> Stream<T> {
    let shape = input.shape();
    let (in_valid, in_data, in_ready) = input.split();
    let out_valid = m.reg("out_valid", 1).reset(0);
    let skid_valid = m.reg("skid_valid", 1).reset(0);
    in_ready.drive(!skid_valid.q());
    let in_fire = (in_valid & !skid_valid.q()).named("in_fire");

    let mut main_regs = Vec::new();
    let mut skid_regs = Vec::new();
    let out_data = T::from_fields(&shape, &mut |f, w| {
        let main = m.reg(&format!("main_{f}"), w);
        main_regs.push(main);
        skid_regs.push(m.reg(&format!("skid_{f}"), w));
        main.q()
    });
    let (out, out_ready) = Stream::offer(m, "out", out_valid.q(), out_data);
    let main_free = (!out_valid.q() | out_ready).named("main_free");
    let load_main = main_free & (skid_valid.q() | in_fire);
    let load_skid = !main_free & in_fire;
    for ((main, skid), (_, d)) in main_regs.iter().zip(&skid_regs).zip(in_data.fields()) {
        main.next_when(load_main, skid_valid.q().mux(skid.q(), d));
        skid.next_when(load_skid, d);
    }
    out_valid.next(!main_free | skid_valid.q() | in_fire);
    skid_valid.next(!main_free & (skid_valid.q() | in_fire));
    out
}

/// Stand-alone skid buffer of `width`-bit words with streams `in` and `out`.
#[name_lets]
pub fn skid_buffer_top(width: u32) -> Result<Design, ElabErrors> {
    Design::build_with_params("skid_buffer", &format!("width={width}"), |m| {
        if !m.check_param("width", width.into(), super::WIDTH) {
            return;
        }
        let input = m.input_stream::<Sig>("in", &width);
        let out = skid_buffer(m, input);
        m.output_stream("out", out);
    })
}
