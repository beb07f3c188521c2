//! The adapter from the generic [`PipeReq`]/[`PipeResp`] words to ASTC_DP (`pbru.md`
//! §5.3–5.4; the ISA's TEX_DP). Request words as the pipe receives them (see
//! [`ports`](crate::pbru::ports), "ASTC_DP pipe requests"): `a[0..4]` the 128-bit block (`a[0]` =
//! block bits 31..0), `a[4]` tx, `a[5]` ty, `a[6]` format; `imm` the profile (0 LDR linear, 1 LDR
//! sRGB, 2 HDR). Results R, G, B, A in Q16.16: a UNORM16 channel `c` becomes `c + (c >> 15)`
//! (0xFFFF is exactly 1.0; sRGB channels are the decoder's 8-bit value × 257), an HDR FP16
//! channel is converted exactly, truncated toward zero and saturated to `[−2^31, 2^31 − 1]`
//! (infinities saturate by their sign, NaN is 0), as the golden model's `fp16_to_q16`.

use super::{pipe_around, word};
use crate::astc::dp::{astc_dp, DpCfg, DpReq, DpResp, LATENCY as DP_LATENCY};
use crate::pbru::ports::{PipeOut, PipeReq, PipeResp, TAG_W};
use crate::stream::pipe::map;
use rendergen_hdl::{cat, cat_lsb_first, name_lets, Module, Sig, Stream};

fn dp_cfg() -> DpCfg {
    DpCfg {
        tag_width: TAG_W + 2,
        ..DpCfg::default()
    }
}

/// Pipe latency of ASTC_DP (its own latency + the output FIFO's cycle).
pub fn astc_dp_latency() -> u32 {
    DP_LATENCY as u32 + 1
}

/// ASTC_DP behind the generic words (see the module documentation). The profile travels in
/// the two bits above the tag, so the result conversion knows it.
#[name_lets]
pub fn astc_dp_unit(m: &mut Module, req: Stream<PipeReq>) -> Stream<PipeResp> {
    let req = map(m, "astc_dp_args", req, |_, d: &PipeReq| {
        let format = word(d.args, 6);
        let profile = d.imm.slice(0, 2);
        DpReq {
            block: d.args.slice(0, 128),
            x: word(d.args, 4).slice(0, 4),
            y: word(d.args, 5).slice(0, 4),
            bw: Some(format.slice(0, 4)),
            bh: Some(format.slice(4, 4)),
            profile: Some(profile),
            tag: cat(&[profile, d.tag]),
        }
    });
    let rsp = m.child("astc_dp", &dp_cfg(), req, astc_dp);
    map(m, "astc_dp_words", rsp, |m, r: &DpResp| {
        let hdr = r.tag.slice(TAG_W, 2).eq(2);
        let words: Vec<Sig> = (0..4)
            .map(|c| {
                let ch = r.rgba.slice(16 * c, 16);
                let unorm = ch.zext(32) + (ch >> 15).zext(32);
                hdr.mux(fp16_to_q16(m, ch), unorm)
            })
            .collect();
        PipeResp {
            data: cat_lsb_first(&words),
            tag: r.tag.slice(0, TAG_W),
        }
    })
}

/// The pipe of ASTC_DP ([`pbru_pipe`](super::pbru_pipe) for a real ASTC_DP), as its own module.
pub fn astc_dp_pipe(m: &mut Module, _cfg: &(), req: Stream<PipeReq>) -> PipeOut {
    pipe_around(m, astc_dp_latency() + 2, req, astc_dp_unit)
}

/// FP16 → Q16.16, truncated toward zero, saturated (see the module documentation).
#[name_lets]
pub fn fp16_to_q16(m: &mut Module, h: Sig) -> Sig {
    let sign = h.bit(15);
    let exp = h.slice(10, 5);
    let mant = h.slice(0, 10);
    let normal = exp.ne(0);
    // Significand with the hidden bit: value = sig · 2^(e − 25) (e = max(exp, 1)), so the
    // Q16.16 magnitude is sig · 2^(e − 9).
    let sig = cat(&[normal, mant]).zext(48);
    let e = normal.mux(exp, m.lit(1, 5));
    let left = sig.shl((e - 9).zext(6) & m.lit(63, 6));
    let right = sig.shr((m.lit(9, 5) - e).zext(6));
    let shifted = e.ge(9).mux(left, right);
    let nan = exp.eq(31) & mant.ne(0);
    let big = exp.eq(31) | shifted.slice(31, 17).any();
    let limit = sign.mux(m.lit(0x8000_0000, 32), m.lit(0x7FFF_FFFF, 32));
    let mag = shifted.slice(0, 32);
    let value = sign.mux(-mag, mag);
    nan.mux(m.lit(0, 32), big.mux(limit, value))
}
