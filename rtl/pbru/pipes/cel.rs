//! The cel (toon) pipeline (D4, the project's `cel_bsdf`): `CEL` pops `N L` and pushes the
//! value of the band `N·L` falls in, from a table programmable at run time.
//!
//! # Function
//! `NL = N·L` exactly (components clamped to [−2, 2], products and sum in units of 2⁻³², no
//! rounding), band `k = #{ i < 3 : threshold[i] ≤ NL }` (thresholds ascending, Q16.16),
//! result `value[k]` (Q16.16): [`CEL_BANDS`] = 4 bands. Reset table ([`CEL_RESET`]):
//! thresholds 0, 0.3, 0.7 and values 0, 0.3, 0.7, 1.0.
//!
//! # Programming the table (the SM side)
//! A direct SM request to the cel instance with opcode `CEL` and immediate `0x80 | e` writes
//! table entry `e` (0..=2 threshold `e`, 3..=6 value `e − 3`) with argument word 0 and returns
//! that word as result word 0 (an acknowledgement). Cores' `CEL` instructions have no immediate
//! (the request's `imm` is 0), so only the SM writes. A write takes effect for every request
//! behind it in the pipe's order and none before it (table read and write happen in the same
//! stage). Entries `e ≥ 7` are ignored (the word is still returned). The compiler's `cel_bsdf`
//! becomes seven such requests in the SM's material set-up, before rays using it are sent.
//!
//! # Ports, timing, cost
//! [`cel_pipe`] is the PBRU pipe; [`pipe_cel_top`] its stand-alone design. Latency
//! [`cel_latency`] = 4 (three stages and the FIFO's cycle), initiation interval 1. Cost (`cargo
//! run --release -p rendergen-gen -- synth pipe_cel`, Yosys generic, flattened, measured):
//! 12,545 cells, 916 flip-flops, 49 gate levels (three 19 × 19-bit products, the 7 × 32-bit
//! table, the 6-entry output FIFO).

use super::shading::clamp2;
use super::{pipe_around, word};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp, RESULTS_W};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};

/// Bands of the table.
pub const CEL_BANDS: usize = 4;

/// The reset table: three thresholds then four values (Q16.16).
pub const CEL_RESET: [u32; 2 * CEL_BANDS - 1] = [0, 0x4CCD, 0xB333, 0, 0x4CCD, 0xB333, 0x1_0000];

/// Stages of the unit.
const STAGES: u32 = 3;

/// Pipe latency of cel: its stages and the output FIFO's cycle.
pub fn cel_latency() -> u32 {
    STAGES + 1
}

/// The cel unit: never stalls.
#[name_lets]
pub fn cel_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    // Stage 1: clamped components, the three products (38 bits each, units 2^-32).
    let c: Vec<Sig> = (0..6).map(|i| clamp2(m, word(d.args, i))).collect();
    let products: Vec<Sig> = (0..3).map(|i| c[i].smul_full(c[3 + i])).collect();
    let v1 = m.reg("cel_valid_s1", 1).reset(0);
    v1.next(valid);
    let p1: Vec<Sig> = (0..3)
        .map(|i| {
            let r = m.reg(&format!("cel_product_{i}"), 38);
            r.next(products[i]);
            r.q()
        })
        .collect();
    let carry = |m: &mut Module, name: &str, x: Sig| {
        let r = m.reg(name, x.width());
        r.next(x);
        r.q()
    };
    let (imm1, word1, tag1) = (
        carry(m, "cel_imm_s1", d.imm),
        carry(m, "cel_word_s1", word(d.args, 0)),
        carry(m, "cel_tag_s1", d.tag),
    );
    // Stage 2: N·L (40 bits, units 2^-32), exact.
    let nl = p1[0].sext(40) + p1[1].sext(40) + p1[2].sext(40);
    let v2 = m.reg("cel_valid_s2", 1).reset(0);
    v2.next(v1.q());
    let nl2 = carry(m, "cel_nl", nl);
    let (imm2, word2, tag2) = (
        carry(m, "cel_imm_s2", imm1),
        carry(m, "cel_word_s2", word1),
        carry(m, "cel_tag_s2", tag1),
    );
    // Stage 3: the table (read and written here), the band, the value.
    let write = (v2.q() & imm2.bit(7)).named("cel_write");
    let entries: Vec<Sig> = (0..CEL_RESET.len())
        .map(|e| {
            let r = m
                .reg(&format!("cel_table_{e}"), 32)
                .reset(CEL_RESET[e] as u64);
            r.next_when(write & imm2.bits(6, 0).eq(e as u64), word2);
            r.q()
        })
        .collect();
    let above: Vec<Sig> = (0..CEL_BANDS - 1)
        .map(|i| {
            let thr = rendergen_hdl::cat(&[entries[i], m.lit(0, 16)]);
            nl2.sext(48).sge(thr)
        })
        .collect();
    let mut value = entries[CEL_BANDS - 1];
    // Thresholds ascending: the band is the count of thresholds passed; with a table that is
    // not ascending the count still decides (k = number of i with threshold[i] ≤ NL).
    let count = above.iter().fold(m.lit(0, 2), |acc, a| acc + a.zext(2));
    for k in 1..CEL_BANDS {
        value = count.eq(k as u64).mux(entries[CEL_BANDS - 1 + k], value);
    }
    let result = write.mux(word2, value).named("cel_result");
    let v3 = m.reg("cel_valid_s3", 1).reset(0);
    v3.next(v2.q());
    let data = carry(m, "cel_data", result.zext(RESULTS_W));
    let tag = carry(m, "cel_tag_s3", tag2);
    let (out, _always_ready) = Stream::offer(m, "cel_out", v3.q(), PipeResp { data, tag });
    out
}

/// The pipe of cel ([`pbru_pipe`](super::pbru_pipe) for a real unit), as its own module.
pub fn cel_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, cel_latency() + 2, req, |m, r| {
        m.child("cel_unit", &(), r, |m, _, r| cel_unit(m, r))
    })
}

/// Stand-alone cel pipe (catalogue `pipe_cel`): stream `req` ([`PipeReq`]) → stream `resp`
/// ([`PipeResp`]), plus `busy`.
///
/// ```
/// use rendergen_rtl::pbru::pipes::cel::pipe_cel_top;
/// assert_eq!(pipe_cel_top().unwrap().top().name, "pipe_cel");
/// ```
pub fn pipe_cel_top() -> Result<Design, ElabErrors> {
    super::pipe_top("pipe_cel", cel_pipe)
}
