//! ASTC_A, the texture-address pipeline 442 (`pbru.md` §5.2, decision D5).
//!
//! The folder mirrors the pipeline: [`astc_a`] here (ports, configuration, pipeline registers),
//! its eight combinational steps in `steps`, and the integer kernels they use in [`arith`].

pub mod arith;
mod steps;

use crate::stream::pipe::{map, pipe_reg};
use crate::stream::skid::skid_buffer;
use rendergen_hdl::{bundle, name_lets, Bundle, Design, ElabErrors, Module, Stream};
use std::ops::RangeInclusive;
use steps::{step1, step2, step3, step4, step5, step6, step7, step8};

/// Legal [`AstcACfg::tag_width`].
pub const TAG_WIDTH: RangeInclusive<u64> = 1..=64;

bundle! {
    /// Address request (message 1010): coordinates, coverage, texture descriptor, tag.
    pub struct AddrReq {
        /// Texture coordinate u, Q16.16 (32 bits); wraps (repeat).
        pub u,
        /// Texture coordinate v, Q16.16 (32 bits); wraps (repeat).
        pub v,
        /// Square root of the UV-coverage fraction, Q16.16 (32 bits); negative counts as 0.
        pub sqrt_coverage,
        /// Index of the texture's first block, in block units (32 bits).
        pub base,
        /// Level-0 width in texels (15 bits; contract 1..=16384).
        pub width,
        /// Level-0 height in texels (15 bits; contract 1..=16384).
        pub height,
        /// Block footprint width (4 bits; contract: the 14 ASTC 2D footprints; 0 reads as 1).
        pub bw,
        /// Block footprint height (4 bits).
        pub bh,
        /// Number of mip levels stored (4 bits; contract 1..=15; 0 reads as 1).
        pub mips,
        /// Request tag, returned unchanged (`tag_width` bits).
        pub tag,
    }
}

bundle! {
    /// Address response (message 1020): the block and the texel inside it.
    pub struct AddrRsp {
        /// Address of the target block, in block units (32 bits).
        pub block_address,
        /// Texel column inside the block (4 bits).
        pub texel_x,
        /// Texel row inside the block (4 bits).
        pub texel_y,
        /// Mip level chosen (4 bits).
        pub mip,
        /// The request's tag.
        pub tag,
    }
}

/// Where [`astc_a`] places its pipeline registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pipelining {
    /// Latency 8: a register after each of the eight steps (about one multiplier of logic per
    /// cycle, at most 49 generic gate levels).
    #[default]
    Deep,
    /// Latency 4 (the proposal of `pbru.md` §5.11): registers after steps 2, 4, 6 and 8, about
    /// twice the logic per cycle (94 levels), less than half the flops.
    Shallow,
}

/// Parameters of [`astc_a`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AstcACfg {
    /// Width of the tag carried through, 1..=64 bits. Default 16.
    pub tag_width: u32,
    /// Register placement. Default [`Pipelining::Deep`].
    pub pipelining: Pipelining,
}

impl Default for AstcACfg {
    fn default() -> Self {
        AstcACfg {
            tag_width: 16,
            pipelining: Pipelining::Deep,
        }
    }
}

impl AstcACfg {
    /// Cycles from a request's transfer to its response's first valid cycle.
    pub fn latency(&self) -> u32 {
        1 + (1..=7).filter(|&step| self.registered(step)).count() as u32
    }

    /// Is there a pipeline register after step `step` (1..=7)? Step 8's register is the output
    /// skid buffer.
    fn registered(&self, step: u32) -> bool {
        self.pipelining == Pipelining::Deep || matches!(step, 2 | 4 | 6)
    }

    /// Field widths of the request.
    pub fn request_shape(&self) -> AddrReq<u32> {
        AddrReq {
            u: 32,
            v: 32,
            sqrt_coverage: 32,
            base: 32,
            width: 15,
            height: 15,
            bw: 4,
            bh: 4,
            mips: 4,
            tag: self.tag_width,
        }
    }

    /// Field widths of the response.
    pub fn response_shape(&self) -> AddrRsp<u32> {
        AddrRsp {
            block_address: 32,
            texel_x: 4,
            texel_y: 4,
            mip: 4,
            tag: self.tag_width,
        }
    }
}

/// Registers `s` after step `step` if the configuration places a register there.
#[name_lets]
fn boundary<T: Bundle>(m: &mut Module, cfg: &AstcACfg, step: u32, s: Stream<T>) -> Stream<T> {
    if cfg.registered(step) {
        pipe_reg(m, &format!("s{step}"), s)
    } else {
        s
    }
}

/// Texture-address pipeline 442: from UV, √coverage and a texture descriptor to the address of
/// the ASTC block holding the texel and the texel's position in it (`pbru.md` §5.2, Fig. 11a;
/// exact semantics in `rendergen_sim::models::texture_address`, which it matches bit for bit).
///
/// Eight steps: (1) wrap u, v; clamp the coverage; W·H; (2–4) `isqrt(W·H)` digit by digit
/// (7 + 4 + 4 root bits) while W is divided by `bw` and H by `bh` in long division (4 + 4 + 4 +
/// 3 quotient bits over steps 1–4); (5) footprint width `(√coverage · isqrt(W·H)) >> 16` and
/// `mip = min(floor(log2 width), mips − 1)`, and in parallel the block count of each level
/// 0..14; (6) the mip's size, `modified_u/v`, its blocks per row and `base +
/// mip_block_offset(mip)` (the counts of the levels below `mip` summed); (7) `modified_u/v`
/// divided by the block size (block and texel) by reciprocal multiplication; (8) the block
/// address. The long division consumes the dividend from the top, so the step that consumes
/// bit `l` of W leaves the quotient and remainder of `W >> l`: one division gives
/// `ceil(max(1, W>>l)/bw)` for every level.
///
/// * **Protocol:** `req` and `rsp` keep the stream rules (`rendergen_hdl::stream`); `rsp` is
///   irrevocable. One response per request, in request order, tag unchanged; back-pressure
///   stalls the pipeline and never drops.
/// * **Timing:** latency [`AstcACfg::latency`] (8 deep, 4 shallow) from the cycle of the `req`
///   transfer to the first cycle `rsp_valid` is high; initiation interval 1. The stages fill
///   bubbles: each advances when it is empty or the next one advances, and the last step
///   feeds a skid buffer ([`skid_buffer`]) whose input ready is a register, so `req_ready` is
///   a function of registers only (a chain of one gate per stage) and there is no
///   combinational path from any input port to any output port. Logic depth (Yosys generic
///   gates, `ltp`): 49 levels deep (step 5), 94 shallow.
/// * **Parameters:** [`AstcACfg`]: `tag_width` 1..=64 (default 16); `pipelining` (default
///   [`Pipelining::Deep`]).
/// * **Cost** (tag 16): deep, 1632 flops (1510 in the seven stage registers with their valid
///   flags, of which 238 hold the per-level block counts; 122 in the skid buffer); shallow,
///   684 (562 + 122). Yosys generic: about 27 k cells deep, 26 k shallow. Arithmetic:
///   multipliers 15×15 (W·H, by·count), 31×15 (footprint), 2 × 16×15 (u, v), 2 × 15×20
///   (reciprocal division), 14 products of `(15−l)×(15−l)` bits and a 15-input adder tree
///   (mip offset); 2 long divisions of 15 five-bit steps; 15 square-root iterations.
/// * **Errors:** elaboration reports a `req` whose fields differ from
///   [`AstcACfg::request_shape`], listing every field (a tag width of 0 is one); every input
///   value that fits the ports has a defined result.
///
/// ```
/// use rendergen_hdl::Design;
/// use rendergen_rtl::astc::a::{astc_a, AstcACfg};
/// let cfg = AstcACfg::default();
/// let design = Design::build("astc_a", |m| {
///     let req = m.input_stream("req", &cfg.request_shape());
///     let rsp = astc_a(m, &cfg, req);
///     m.output_stream("rsp", rsp);
/// })
/// .unwrap();
/// assert!(design.top().inputs.iter().any(|p| p.name == "req_sqrt_coverage"));
/// ```
#[name_lets]
pub fn astc_a(m: &mut Module, cfg: &AstcACfg, req: Stream<AddrReq>) -> Stream<AddrRsp> {
    let req = checked_shape(m, cfg, req);
    let s = map(m, "step1", req, step1);
    let s = boundary(m, cfg, 1, s);
    let s = map(m, "step2", s, step2);
    let s = boundary(m, cfg, 2, s);
    let s = map(m, "step3", s, step3);
    let s = boundary(m, cfg, 3, s);
    let s = map(m, "step4", s, step4);
    let s = boundary(m, cfg, 4, s);
    let s = map(m, "step5", s, step5);
    let s = boundary(m, cfg, 5, s);
    let s = map(m, "step6", s, step6);
    let s = boundary(m, cfg, 6, s);
    let s = map(m, "step7", s, step7);
    let s = boundary(m, cfg, 7, s);
    let s = map(m, "step8", s, step8);
    skid_buffer(m, s)
}

/// Passes `req` through a bundle of wires of the configured shape, so a stream of another
/// shape is an elaboration error listing every field that differs.
#[name_lets]
fn checked_shape(m: &mut Module, cfg: &AstcACfg, req: Stream<AddrReq>) -> Stream<AddrReq> {
    let (valid, data, ready) = req.split();
    let (wires, driver) = m.wire_bundle::<AddrReq>("req_checked", &cfg.request_shape());
    driver.drive(&data);
    let (out, out_ready) = Stream::offer(m, "req_checked", valid, wires);
    ready.drive(out_ready);
    out
}

/// Stand-alone ASTC_A with streams `req` ([`AddrReq`]) and `rsp` ([`AddrRsp`]).
#[name_lets]
pub fn astc_a_top(cfg: &AstcACfg) -> Result<Design, ElabErrors> {
    let params = format!(
        "tag_width={} pipelining={:?}",
        cfg.tag_width, cfg.pipelining
    );
    Design::build_with_params("astc_a", &params, |m| {
        if !m.check_param("tag_width", cfg.tag_width.into(), TAG_WIDTH) {
            return;
        }
        let req = m.input_stream("req", &cfg.request_shape());
        let rsp = astc_a(m, cfg, req);
        m.output_stream("rsp", rsp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg_bits(d: &Design) -> u32 {
        let top = d.top();
        top.regs.iter().map(|r| top.node(r.node).width).sum()
    }

    #[test]
    fn elaborates_with_every_setting() {
        for pipelining in [Pipelining::Deep, Pipelining::Shallow] {
            for tag_width in [1, 16, 64] {
                let cfg = AstcACfg {
                    tag_width,
                    pipelining,
                };
                let d = astc_a_top(&cfg).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
                let names: Vec<_> = d.top().outputs.iter().map(|p| p.name.clone()).collect();
                assert!(
                    names.contains(&"rsp_block_address".to_string()),
                    "{names:?}"
                );
                assert!(names.contains(&"req_ready".to_string()), "{names:?}");
            }
        }
    }

    #[test]
    fn flop_count_matches_the_doc() {
        let deep = reg_bits(&astc_a_top(&AstcACfg::default()).unwrap());
        assert_eq!(deep, 1632);
        let shallow = AstcACfg {
            pipelining: Pipelining::Shallow,
            ..AstcACfg::default()
        };
        assert_eq!(reg_bits(&astc_a_top(&shallow).unwrap()), 684);
    }

    #[test]
    fn wrong_request_shape_is_reported() {
        let cfg = AstcACfg::default();
        let mut shape = cfg.request_shape();
        shape.width = 14;
        shape.tag = 8;
        let e = Design::build("bad", |m| {
            let req = m.input_stream("req", &shape);
            let rsp = astc_a(m, &cfg, req);
            m.output_stream("rsp", rsp);
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("req_checked.width") && e.contains("req_checked.tag"),
            "{e}"
        );
    }
}
