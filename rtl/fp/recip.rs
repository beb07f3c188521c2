//! Reciprocal, reciprocal square root and square root of binary32 (issue 12 §1), correctly
//! rounded, one operation per clock: the special-function unit `fp_recip`.
//!
//! # Algorithm
//! A quadratic on one of 128 segments per function (and exponent parity) approximates
//! `z = 2/v`, `2/√v` or `√v` in `[1, 2]` to within `2^-24.8`, less than half a unit in the
//! last place (the table and its error budget: [`rendergen_isa::fp_tables::recip`]). Truncated
//! to 24 bits (`k`), the approximation leaves one rounding boundary in reach, the midpoint
//! `M = k + ½`; the sign of the remainder `v·M − 2`, `M² − v` or `v·M² − 4`, computed exactly
//! in its low 30 or 54 bits, says whether `z` is above `M` (round up to `k + 1`) or below
//! (`k`); `z = M` cannot happen. So every result is the correctly rounded one. A table and one
//! remainder step was chosen over Newton–Raphson iterations (two dependent multiplies each, and
//! still a final correction) and over a digit recurrence (24+ stages for II 1): three
//! multipliers in parallel for the quadratic, then one shared `26 × 26` remainder multiplier,
//! plus a `25 × 52` (low 54 bits) one for the rsqrt remainder.
//!
//! # Operations and special cases (inputs flushed first: a subnormal is a zero of its sign)
//! | `op` | result | NaN | ±0 | +inf | −inf | negative | other |
//! |---|---|---|---|---|---|---|---|
//! | 0 | `1/x` | NaN | ±inf | +0 | −0 | `1/x` | ±0 when `\|x\| > 2^126` (subnormal, flushed) |
//! | 1 | `1/√x` | NaN | ±inf | +0 | NaN | NaN | always normal |
//! | 2 | `√x` | NaN | ±0 | +inf | NaN | NaN | always normal |
//! | 3 | reserved | NaN | NaN | NaN | NaN | NaN | canonical NaN |
//!
//! NaN results are [`CANONICAL_NAN`]. `1/x` for `|x| > 2^126` is below `2^-126`: IEEE rounding
//! with gradual underflow gives a subnormal (never `2^-126`), which the output flush makes the
//! zero of `x`'s sign; `1/2^126 = 2^-126` is the smallest result kept.
//!
//! # Measured accuracy
//! Every input (2^32, each function): 0 results not correctly rounded, 0 differences from the
//! host's `1.0 / x` and `x.sqrt()` under `host::op1`, maximum error 0.5 ulp against f64
//! (`cargo test --release -p rendergen-sim --lib fp32::recip::tests::exhaustive -- --ignored
//! --nocapture`). The RTL equals the model `rendergen_sim::models::fp32::recip` bit for bit
//! (`cargo test -p rendergen-testbenches --test testbenches fp::recip`).
//!
//! # Hardware
//! * Ports of [`fp_recip_top`]: stream `req` ([`FpReq`] with `a` and a 2-bit `op`) and stream
//!   `resp` ([`FpResp`]), the tag carried unchanged.
//! * Protocol: [`pipeline`]'s: stream rules on both sides, responses in request order,
//!   the whole pipeline holds when `resp` stalls.
//! * Timing: [`LATENCY`] = 5 cycles (four stages `decode`, `poly`, `square`, `round`, then
//!   the skid buffer), initiation interval 1; no combinational path from input to output.
//! * Cost (`rendergen synth fp_recip`, Yosys 0.23 generic synthesis, `tag_width` 8):
//!   22,675 cells, 506 flip-flops, no RAM, longest path 61 gate levels. By stage
//!   (`rendergen synth fp_recip --per-module`, unflattened, 22,690 cells): `recip_decode`
//!   6,658 (the 1024 × 75-bit coefficient ROM as logic, `dx²`), `recip_poly` 4,879
//!   (`25 × 17` and `18 × 17` products, three-input sum), `recip_square` 4,333 (the shared
//!   `26 × 26` multiplier), `recip_round` 6,244 (almost all the rsqrt remainder's `25 × 52`
//!   low-54-bit product: the price of a correctly rounded rsqrt; without it rsqrt would be
//!   faithful, within 0.6 ulp), stage registers 576.

use super::{pipeline, FpCfg, FpReq, FpResp, Stages, CANONICAL_NAN};
use rendergen_hdl::{cat, lut, name_lets, select, Bundle, Design, ElabErrors, Module, Sig, Stream};
use rendergen_isa::fp_tables::recip as tab;

/// Cycles from a request to its response in [`fp_recip_top`] and [`recip_stream`] (stages plus
/// the skid buffer); [`recip`] itself adds `LATENCY - 1` stages.
pub const LATENCY: u32 = 5;

/// What the result is, decided at decode: the computed value or a special one.
const KIND_VALUE: u64 = 0;
const KIND_NAN: u64 = 1;
const KIND_INF: u64 = 2;
const KIND_ZERO: u64 = 3;

/// What travels with an operation through the stages.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecipCtl<T = Sig> {
    /// Operation (2 bits).
    pub op: T,
    /// Sign of the flushed operand.
    pub sign: T,
    /// `KIND_*` (2 bits).
    pub kind: T,
    /// Biased exponent of the result before the rounding carry (10 bits, two's complement).
    pub exp: T,
    /// The caller's passenger (a tag).
    pub pass: T,
}

/// After `decode`: the segment's coefficients and the position in it.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded<T = Sig> {
    /// `C0` (32 bits, unsigned).
    pub c0: T,
    /// `C1` (25 bits, signed).
    pub c1: T,
    /// `C2` (18 bits, signed).
    pub c2: T,
    /// Position in the segment (16 bits).
    pub dx: T,
    /// `dx² >> 16` (16 bits).
    pub sq: T,
    /// `v` in units of `2^-23`: `1.f`, doubled for an odd exponent (sqrt, rsqrt) (25 bits).
    pub v: T,
    /// The operand `1.f` (24 bits).
    pub m: T,
    /// Control.
    pub ctl: RecipCtl<T>,
}

/// After `poly`: the approximation truncated to 24 bits.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Approx<T = Sig> {
    /// `k`, the truncated approximation in units of `2^-23` (25 bits: `2^24` for `z = 2`).
    pub k: T,
    /// `v` (25 bits).
    pub v: T,
    /// `1.f` (24 bits).
    pub m: T,
    /// Control.
    pub ctl: RecipCtl<T>,
}

/// After `square`: the shared product `M·1.f` (rcp) or `M²`.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Product<T = Sig> {
    /// The product (52 bits).
    pub p: T,
    /// `k` (25 bits).
    pub k: T,
    /// `v` (25 bits).
    pub v: T,
    /// Control.
    pub ctl: RecipCtl<T>,
}

/// The result and the passenger.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecipOut<T = Sig> {
    /// The binary32 result.
    pub r: T,
    /// The caller's passenger.
    pub pass: T,
}

/// The unit inside a caller's pipeline: `op` (2 bits) of `a` (32 bits), `pass` (any width)
/// carried beside it; adds `LATENCY - 1` = 4 stages to `st` (`decode`, `poly`, `square`,
/// `round`, each a child module).
#[name_lets]
pub fn recip(m: &mut Module, st: &mut Stages, a: Sig, op: Sig, pass: Sig) -> RecipOut {
    let req = RecipIn { a, op, pass };
    let decoded = m.child("decode", &(), req, recip_decode);
    let decoded = st.stage(m, "decode", &decoded);
    let approx = m.child("poly", &(), decoded, recip_poly);
    let approx = st.stage(m, "poly", &approx);
    let product = m.child("square", &(), approx, recip_square);
    let product = st.stage(m, "square", &product);
    let out = m.child("round", &(), product, recip_round);
    st.stage(m, "round", &out)
}

/// A request of [`recip`].
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecipIn<T = Sig> {
    /// Operand (32 bits).
    pub a: T,
    /// Operation (2 bits).
    pub op: T,
    /// Passenger.
    pub pass: T,
}

/// Stage 1: unpack and flush, classify, pick the segment (ROM) and square the position.
#[name_lets]
pub fn recip_decode(m: &mut Module, _: &(), r: RecipIn) -> Decoded {
    let (a, op) = (r.a, r.op);
    let sign = a.bit(31);
    let e = a.bits(30, 23);
    let f = a.bits(22, 0);
    let zero = e.eq(0);
    let top = e.eq(255);
    let frac_nz = f.any();
    let is_rcp = op.eq(0);
    let is_sqrt = op.eq(2);
    let nan = op.eq(3) | (top & frac_nz) | (sign & !zero & !is_rcp);
    let inf = (zero & !is_sqrt) | (top & is_sqrt);
    let computed = m.lit(KIND_VALUE, 2);
    let kind = priority_kind(m, nan, inf, zero | top, computed);
    let odd = !e.bit(0) & !is_rcp;
    let e10 = e.zext(10);
    let half = (e10 + 1u64) >> 1;
    let exp = select(
        op,
        &[m.lit(253, 10) - e10, m.lit(190, 10) - half, half + 63u64],
        m.lit(0, 10),
    );
    let segment = cat(&[op, odd, f.bits(22, 16)]);
    let table = tab::table();
    let word = |f: fn(&tab::Coeffs) -> i64, bits: u32| -> Vec<u64> {
        (table.iter())
            .map(|c| (f(c) as u64) & ((1u64 << bits) - 1))
            .collect()
    };
    let c0 = lut(segment, &word(|c| c.c0, tab::C0_BITS), tab::C0_BITS);
    let c1 = lut(segment, &word(|c| c.c1, tab::C1_BITS), tab::C1_BITS);
    let c2 = lut(segment, &word(|c| c.c2, tab::C2_BITS), tab::C2_BITS);
    let dx = f.bits(15, 0);
    let sq = dx.mul_full(dx).bits(31, 16);
    let mant = cat(&[m.lit(1, 1), f]);
    let v = odd.mux(cat(&[mant, m.lit(0, 1)]), mant.zext(25));
    Decoded {
        c0,
        c1,
        c2,
        dx,
        sq,
        v,
        m: mant,
        ctl: RecipCtl {
            op,
            sign,
            kind,
            exp,
            pass: r.pass,
        },
    }
}

/// `KIND_NAN` over `KIND_INF` over `KIND_ZERO` over the computed value.
fn priority_kind(m: &mut Module, nan: Sig, inf: Sig, zero: Sig, value: Sig) -> Sig {
    let (k_nan, k_inf, k_zero) = (m.lit(KIND_NAN, 2), m.lit(KIND_INF, 2), m.lit(KIND_ZERO, 2));
    nan.mux(k_nan, inf.mux(k_inf, zero.mux(k_zero, value)))
}

/// Stage 2: the quadratic `y = C0 + (C1·dx >> 15) + (C2·sq >> 15)` (units `2^-30`),
/// truncated to `k = y >> 7`.
#[name_lets]
pub fn recip_poly(_: &mut Module, _: &(), d: Decoded) -> Approx {
    let linear =
        d.c1.smul_full(d.dx.zext(17))
            .sra_const(tab::PRODUCT_SHIFT)
            .bits(33, 0);
    let square =
        d.c2.smul_full(d.sq.zext(17))
            .sra_const(tab::PRODUCT_SHIFT)
            .bits(33, 0);
    let y = d.c0.zext(34) + linear + square;
    Approx {
        k: y.bits(31, 7),
        v: d.v,
        m: d.m,
        ctl: d.ctl,
    }
}

/// Stage 3: the shared multiplier, `M = 2k + 1` (units `2^-24`) times `1.f` (rcp) or itself.
#[name_lets]
pub fn recip_square(m: &mut Module, _: &(), a: Approx) -> Product {
    let mid = cat(&[a.k, m.lit(1, 1)]);
    let other = a.ctl.op.eq(0).mux(a.m.zext(26), mid);
    Product {
        p: mid.mul_full(other),
        k: a.k,
        v: a.v,
        ctl: a.ctl,
    }
}

/// Stage 4: the remainder's sign rounds `k` up or not; exponent, flush and special values.
#[name_lets]
pub fn recip_round(m: &mut Module, _: &(), p: Product) -> RecipOut {
    let c = &p.ctl;
    // rcp: m·M − 2 in units of 2^-47, low 30 bits (2^48 ≡ 0).
    let up_rcp = p.p.bit(29);
    // sqrt: M² − v in units of 2^-48, low 30 bits.
    let rem_sqrt = p.p.bits(29, 0) - cat(&[p.v.bits(4, 0), m.lit(0, 25)]);
    // rsqrt: v·M² − 4 in units of 2^-71, low 54 bits (2^73 ≡ 0).
    let rem_rsqrt = p.v.zext(54) * p.p.zext(54);
    let up = select(
        c.op,
        &[up_rcp, rem_rsqrt.bit(53), rem_sqrt.bit(29)],
        m.lit(0, 1),
    );
    let sig = p.k + up.zext(25);
    let exp = c.exp + sig.bit(24).zext(10);
    let underflow = exp.msb() | exp.eq(0);
    let value = cat(&[c.sign, exp.bits(7, 0), sig.bits(22, 0)]);
    let signed_zero = cat(&[c.sign, m.lit(0, 31)]);
    let signed_inf = cat(&[c.sign, m.lit(0xFF, 8), m.lit(0, 23)]);
    let r = select(
        c.kind,
        &[
            underflow.mux(signed_zero, value),
            m.lit(CANONICAL_NAN as u64, 32),
            signed_inf,
            signed_zero,
        ],
        signed_zero,
    );
    RecipOut { r, pass: c.pass }
}

/// [`recip`] behind a stream: `req.op` selects the operation (rcp when the request has no
/// `op`), the tag is carried to the response. Latency [`LATENCY`], initiation interval 1.
#[name_lets]
pub fn recip_stream(m: &mut Module, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "recip", req, |m, st, r| {
        let op = match r.op {
            Some(op) => op,
            None => m.lit(0, 2),
        };
        let out = recip(m, st, r.a, op, r.tag);
        FpResp {
            r: out.r,
            tag: out.pass,
        }
    })
}

/// The stand-alone unit `fp_recip`: streams `req` ([`FpReq::shape`]`(cfg, 1, 2)`) → `resp`.
///
/// * Cost: 22,675 cells and 506 flip-flops in Yosys generic synthesis (`rendergen synth
///   fp_recip`; the breakdown is in the [module documentation](self)).
/// * Errors: `tag_width` outside [`TAG_WIDTH`](super::TAG_WIDTH) is an elaboration error.
///
/// ```
/// use rendergen_rtl::fp::{recip::fp_recip_top, FpCfg};
/// let design = fp_recip_top(&FpCfg::default()).unwrap();
/// assert_eq!(design.top().name, "fp_recip");
/// assert!(fp_recip_top(&FpCfg { tag_width: 0 }).is_err());
/// ```
pub fn fp_recip_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_recip", cfg, (1, 2), recip_stream)
}
