//! ASTC_DP, the texel datapath pipeline (`pbru.md` §5.3, D5): decodes the one requested texel
//! of a 128-bit ASTC block per clock, bit-exact with ARM's astcenc.
//!
//! The folder mirrors the decode: [`header`] (block mode, void extent, CEMs, colour range),
//! [`partition`] (hash and selection), [`ise`] (random access into the integer sequences),
//! [`endpoints`] and [`endpoints_hdr`] (colour unquantisation and endpoint modes), [`weights`]
//! (infill, unquantisation, weighted sum), [`interp`] (interpolation) and [`convert`] (FP16 and
//! 8-bit output). [`front`], [`middle`] and [`back`] are the pipeline stages built from them.

pub mod back;
pub mod convert;
pub mod endpoints;
pub mod endpoints_hdr;
pub mod front;
pub mod header;
pub mod interp;
pub mod ise;
pub mod middle;
pub mod partition;
mod pipe;
mod types;
pub mod weights;

pub use types::{DpReq, DpResp, Footprint, Profile, Profiles};

use crate::stream::skid::skid_buffer;
use pipe::Pipe;
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Stream};
use std::ops::RangeInclusive;

/// Legal [`DpCfg::tag_width`].
pub const TAG_WIDTH: RangeInclusive<u64> = 1..=64;

/// Parameters of [`astc_dp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpCfg {
    /// Width of the tag carried from request to response, 1..=64. Default 8.
    pub tag_width: u32,
    /// A fixed block footprint (no `bw`/`bh` request fields), or `None` for any of the 14
    /// given per request. Default `None`.
    pub footprint: Option<Footprint>,
    /// The decode profiles built: all three, LDR only (no HDR endpoint logic), or one fixed
    /// profile (no `profile` request field). Default [`Profiles::All`].
    pub profiles: Profiles,
}

impl Default for DpCfg {
    fn default() -> Self {
        DpCfg {
            tag_width: 8,
            footprint: None,
            profiles: Profiles::All,
        }
    }
}

impl DpCfg {
    /// The configuration from the catalogue's numeric parameters: `footprint` 0 (per request)
    /// or 1..=14 (an entry of [`Footprint::ALL`]); `profiles` 0 all, 1 LDR, 2 LDR linear,
    /// 3 LDR sRGB, 4 HDR.
    #[name_lets]
    pub fn from_catalog(tag_width: u64, footprint: u64, profiles: u64) -> DpCfg {
        let footprint = (footprint as usize)
            .checked_sub(1)
            .and_then(|i| Footprint::ALL.get(i).copied());
        let profiles = match profiles {
            1 => Profiles::Ldr,
            2 => Profiles::Only(Profile::LdrLinear),
            3 => Profiles::Only(Profile::LdrSrgb),
            4 => Profiles::Only(Profile::Hdr),
            _ => Profiles::All,
        };
        DpCfg {
            tag_width: tag_width as u32,
            footprint,
            profiles,
        }
    }
}

/// Pipeline latency in cycles from a request transfer to its response being offered (with no
/// back-pressure): seven stage registers (A–G) and the output skid buffer's register.
pub const LATENCY: u64 = 8;

/// Decodes the requested texel of each request's ASTC block, one request per clock
/// (`pbru.md` §5.3 steps 1120–1132, D5), extracting only that texel's partition endpoints and
/// the up-to-four grid weights (per plane) it needs.
///
/// * **Protocol:** `req` and the returned stream keep the rendergen stream rules; responses
///   leave in request order with the request's tag; nothing is dropped (back-pressure stalls
///   the whole pipeline). The output is a skid buffer, so it is irrevocable.
/// * **Timing:** latency [`LATENCY`] = 8 cycles, initiation interval 1. Stages: A block mode,
///   void extent, partition hash, infill; B CEMs, colour range, partition, streams; C value
///   locations; D sequence extraction; E unquantisation; F endpoint modes and weight sums;
///   G interpolation; then conversion to FP16/8-bit into the output skid buffer. `req.ready`
///   and every stage enable come from registers only (`!skid_full | !last_valid`): there is
///   no combinational path from any input to any output.
/// * **Parameters:** [`DpCfg`]: `tag_width` 1..=64 (8), `footprint` fixed or per request
///   (`None`), `profiles` All / Ldr / Only(p) (All).
/// * **Cost:** 1,850 flops in the stage registers (block 128 b in A; streams 87 + 96 b in B
///   and C; 8 colour + 8 weight values in D and E; 100 b of endpoints in F; 4 × 16 b in G)
///   plus 2 × (98 + `tag_width`) in the skid buffer; no RAM.
///   Sixteen sequence extractors (8 colour, 8 weight), one endpoint decoder, four lerps.
///   Yosys generic synthesis (`synth -flatten`): about 57,300 cells and 2,040 flip-flops with
///   all profiles and per-request footprints, 50,700 cells for a fixed 6x6 LDR-linear build;
///   67 gate levels on the longest register-to-register path.
/// * **Errors:** reserved and illegal encodings give astcenc's error colour with `error` set
///   (also HDR data in an LDR profile, and HDR requests to an LDR-only build). A footprint
///   that is not one of the 14 and texel positions outside the block are not checked
///   (undefined result). Elaboration rejects `tag_width` 0.
///
/// ```
/// use rendergen_hdl::Design;
/// use rendergen_rtl::astc::dp::{astc_dp, DpCfg, DpReq};
/// let cfg = DpCfg::default();
/// let design = Design::build("dp", |m| {
///     let req = m.input_stream::<DpReq>("req", &DpReq::shape(&cfg));
///     let resp = astc_dp(m, &cfg, req);
///     m.output_stream("resp", resp);
/// })
/// .unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "resp_rgba8"));
/// ```
#[name_lets]
pub fn astc_dp(m: &mut Module, cfg: &DpCfg, req: Stream<DpReq>) -> Stream<DpResp> {
    let advance = m.wire("advance", 1);
    let en = advance.sig();
    let (valid, data, ready) = req.split();
    ready.drive(en);
    let p = |stage| Pipe { en, stage };
    // Each stage's logic is its own module (`stage_a` … `stage_g`, `output`); the stage
    // registers between them live here.
    let a = m.child("stage_a", cfg, data, |m, cfg, d| front::stage_a(m, cfg, &d));
    let (a, va) = (p("a").regs(m, &a), p("a").valid(m, valid));
    let b = m.child("stage_b", &(), a, |m, _, a| front::stage_b(m, &a));
    let (b, vb) = (p("b").regs(m, &b), p("b").valid(m, va));
    let c = m.child("stage_c", &(), b, |m, _, b| middle::stage_c(m, &b));
    let (c, vc) = (p("c").regs(m, &c), p("c").valid(m, vb));
    let d = m.child("stage_d", &(), c, |m, _, c| middle::stage_d(m, &c));
    let (d, vd) = (p("d").regs(m, &d), p("d").valid(m, vc));
    let e = m.child("stage_e", &(), d, |m, _, d| middle::stage_e(m, &d));
    let (e, ve) = (p("e").regs(m, &e), p("e").valid(m, vd));
    let f = m.child("stage_f", cfg, e, |m, cfg, e| back::stage_f(m, cfg, &e));
    let (f, vf) = (p("f").regs(m, &f), p("f").valid(m, ve));
    let g = m.child("stage_g", cfg, f, |m, cfg, f| back::stage_g(m, cfg, &f));
    let (g, vg) = (p("g").regs(m, &g), p("g").valid(m, vf));
    let resp = m.child("output", cfg, g, |m, cfg, g| back::output(m, cfg, &g));
    let (decoded, skid_ready) = Stream::offer(m, "decoded", vg, resp);
    advance.drive(skid_ready | !vg);
    skid_buffer(m, decoded)
}

/// Stand-alone ASTC_DP with input stream `req` and output stream `resp`.
#[name_lets]
pub fn astc_dp_top(cfg: &DpCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("astc_dp", &format!("{cfg:?}"), |m| {
        if !m.check_param("tag_width", cfg.tag_width.into(), TAG_WIDTH) {
            return;
        }
        let req = m.input_stream::<DpReq>("req", &DpReq::shape(cfg));
        let resp = astc_dp(m, cfg, req);
        m.output_stream("resp", resp);
    })
}
