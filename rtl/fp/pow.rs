//! `pow(x, y) = exp2(y · log2 x)` from the unit functions ([`transc`] and [`fma`]), one per
//! clock: the power function of the shading pipelines (issue 11 §1, "pow through exp2/log2").
//!
//! # Semantics
//! Exactly `transc::exp2(fma::mul(transc::log2(x), y))` of the golden model
//! (`rendergen_sim::models::fp32::transc::pow`), so the special cases are those of the three
//! steps: `x < 0` → NaN, `x = ±0` → `exp2(−inf · y)` (+0 for `y > 0`, +inf for `y < 0`, NaN for
//! `y = 0`), `x = 1` → 1, NaN in → NaN. (GLSL leaves `pow` undefined for `x < 0` and for
//! `x = 0, y ≤ 0`.)
//!
//! # Accuracy
//! The error grows with `|y · log2 x|` (log2's absolute error is multiplied by `y` before
//! exp2): over 10⁶ random `x ∈ [2⁻⁸, 2⁸]`, `y ∈ [−4, 4]` (`|y · log2 x| ≤ 32`) the maximum is
//! 13.8 ULP, a relative error of 1.6·10⁻⁶ ≈ 2⁻¹⁹
//! (`cargo test -p rendergen-sim --lib pow_error_table -- --nocapture`, which holds < 16 ULP);
//! the shading pipelines need 2⁻¹⁰.
//!
//! # Hardware
//! log2 (7 stages) → multiply (5 stages of the FMA datapath) → exp2 (7 stages), `y` and the
//! tag carried by [`Stages::delay`]; latency [`LATENCY`], initiation interval 1; its stream
//! unit `fp_pow_top` takes `req_a` = x, `req_b` = y. Cost (`rendergen synth fp_pow`, Yosys
//! generic): 33,003 cells, 1,684 flip-flops, 57 gate levels — each transc datapath shrinks to
//! its one function, its op being a constant.

use super::fma::{fp_fma_stages, FmaOp};
use super::transc::{fp_transc, TranscIn};
use super::{fma, pipeline, transc, FpCfg, FpReq, FpResp, Stages};
use rendergen_hdl::{name_lets, Design, ElabErrors, Module, Sig, Stream};

/// Cycles from a request to its response in [`fp_pow`]: 19 stages and the skid buffer.
pub const LATENCY: u64 = 2 * (transc::LATENCY - 1) + (fma::LATENCY - 1) + 1;

/// `x^y` through `Stages` (19 stages); see the module documentation.
#[name_lets]
pub fn fp_pow_stages(m: &mut Module, st: &mut Stages, x: Sig, y: Sig) -> Sig {
    let first = st.count();
    let log2 = m.lit(1, 2);
    let l = fp_transc(m, st, TranscIn { op: log2, a: x });
    let y_at_log2 = st.delay(m, "y", y, st.count() - first);
    let mul = FpReq {
        a: l,
        b: Some(y_at_log2),
        c: Some(m.lit(0, 32)),
        op: Some(m.lit(FmaOp::Mul as u64, 2)),
        tag: m.lit(0, 1),
    };
    let product = fp_fma_stages(m, st, mul);
    let exp2 = m.lit(0, 2);
    fp_transc(
        m,
        st,
        TranscIn {
            op: exp2,
            a: product.r,
        },
    )
}

/// The stream unit: `a` = x, `b` = y, the tag carried; one request per clock.
#[name_lets]
pub fn fp_pow(m: &mut Module, _cfg: &FpCfg, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "pow", req, |m, st, r| {
        let first = st.count();
        let y = r.b.unwrap_or_else(|| m.lit(0x3F80_0000, 32));
        let result = fp_pow_stages(m, st, r.a, y);
        let tag = st.delay(m, "tag", r.tag, st.count() - first);
        FpResp { r: result, tag }
    })
}

/// Stand-alone `fp_pow`: stream `req` (`a` = x, `b` = y, `tag`) → stream `resp` (`r`, `tag`).
///
/// ```
/// use rendergen_rtl::fp::{pow::fp_pow_top, FpCfg};
/// assert_eq!(fp_pow_top(&FpCfg::default()).unwrap().top().name, "fp_pow");
/// assert!(fp_pow_top(&FpCfg { tag_width: 0 }).is_err());
/// ```
#[name_lets]
pub fn fp_pow_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_pow", cfg, (2, 0), |m, req| fp_pow(m, cfg, req))
}
