//! The Schlick Fresnel pipeline (D4, MaterialX `mx_fresnel_schlick`): `SCHLICK` pops
//! `F0(rgb) F90(rgb) cos` and pushes `F(rgb)`, `F = F0 + (F90 − F0)·x⁵` with
//! `x = clamp(1 − cos, 0, 1)`, per channel.
//!
//! # Datapath (the golden model `rendergen_sim::models::pbru::shading::schlick` follows it
//! operation for operation)
//! 1. In Q16.16, exactly: `x = clamp(1 − cos, 0, 1)` and `F90 − F0` (33 bits, no wrap).
//! 2. To binary32 ([`q16_to_f32`](crate::fp::q16::q16_to_f32)): `x`, the three differences
//!    `d`, the three `F0`.
//! 3. `x² = x·x`, `x⁴ = x²·x²`, `x⁵ = x⁴·x`, then `F = fma(d, x⁵, F0)` per channel.
//! 4. Back to Q16.16, nearest, saturating ([`f32_to_q16`](crate::fp::q16::f32_to_q16)).
//!
//! # Ports, timing, cost
//! [`schlick_pipe`] is the PBRU pipe (credits, output FIFO); [`pipe_schlick_top`] its
//! stand-alone design. Latency [`schlick_latency`] = 24 (23 stages and the FIFO's cycle),
//! initiation interval 1. Cost (`cargo run --release -p rendergen-gen -- synth pipe_schlick
//! --per-module`, Yosys generic, unflattened, measured): 70,888 cells, 12,417 flip-flops, 40
//! gate levels; six FMA datapaths (47,150 cells), the unit's converters and delay registers
//! (14,780 cells, 8,440 flops), the pipe's 26-entry output FIFO and credits (7,958 cells,
//! 3,977 flops).

use super::shading::{clamp01, Flow};
use super::{pipe_around, word};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Stream};

/// Stages of the Schlick unit (the pipe adds the output FIFO's cycle).
const STAGES: u32 = 2 + 3 * 5 + 5 + 1;

/// Pipe latency of Schlick: its stages and the output FIFO's cycle.
pub fn schlick_latency() -> u32 {
    STAGES + 1
}

/// The Schlick unit: never stalls (`req.ready` is 1; the pipe's credits make room).
#[name_lets]
pub fn schlick_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let mut f = Flow::new(m, valid);
    let cos = word(d.args, 6).sext(33);
    let one = m.lit(0x1_0000, 33);
    let x_fixed = (one - cos).named("x_fixed");
    let x_fixed = x_fixed
        .msb()
        .mux(m.lit(0, 33), x_fixed.sgt(0x1_0000).mux(one, x_fixed));
    let x_fixed = f.value("x_fixed", x_fixed, 0);
    let x = f.from_q16(m, "x", x_fixed);
    let x = f.comb(m, "x_clamped", &[x], |m, s| clamp01(m, s[0]));
    let x2 = f.mul(m, "x2", x, x);
    let x4 = f.mul(m, "x4", x2, x2);
    let x5 = f.mul(m, "x5", x4, x);
    let mut out = Vec::new();
    for (c, ch) in ["r", "g", "b"].iter().enumerate() {
        let f0_word = word(d.args, c as u32);
        let f90_word = word(d.args, 3 + c as u32);
        let diff = f90_word.sext(33) - f0_word.sext(33);
        let diff = f.value(&format!("diff_fixed_{ch}"), diff, 0);
        let f0_fixed = f.value(&format!("f0_fixed_{ch}"), f0_word, 0);
        let diff = f.from_q16(m, &format!("diff_{ch}"), diff);
        let f0 = f.from_q16(m, &format!("f0_{ch}"), f0_fixed);
        let fresnel = f.fma(m, &format!("fresnel_{ch}"), diff, x5, f0);
        out.push(f.to_q16(m, &format!("fresnel_fixed_{ch}"), fresnel));
    }
    let tag = f.value("tag", d.tag, 0);
    let (resp, stages) = f.finish(m, &out, tag);
    assert_eq!(stages, STAGES, "schlick stages");
    resp
}

/// The pipe of Schlick ([`pbru_pipe`](super::pbru_pipe) for a real Schlick), as its own module.
pub fn schlick_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, schlick_latency() + 2, req, |m, r| {
        m.child("schlick_unit", &(), r, |m, _, r| schlick_unit(m, r))
    })
}

/// Stand-alone Schlick pipe (catalogue `pipe_schlick`): stream `req` ([`PipeReq`]) → stream
/// `resp` ([`PipeResp`]), plus `busy`.
///
/// ```
/// use rendergen_rtl::pbru::pipes::schlick::pipe_schlick_top;
/// assert_eq!(pipe_schlick_top().unwrap().top().name, "pipe_schlick");
/// ```
pub fn pipe_schlick_top() -> Result<Design, ElabErrors> {
    super::pipe_top("pipe_schlick", schlick_pipe)
}
