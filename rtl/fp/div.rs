//! The binary32 divider `fp_div` (issue 13, geometry's perspective divide): `a / b` correctly
//! rounded to nearest even with **full IEEE-754 semantics** — subnormal operands and results
//! are kept, not flushed — so it equals the host CPU's `f32` division bit for bit (the frame
//! model's `x / w`). This is the one unit that departs from the flush rule of [`super`]; NaN
//! results are still the canonical NaN.
//!
//! # Algorithm
//! Restoring radix-2 digit recurrence, unrolled: both significands are normalised (a
//! subnormal's leading zeros counted and shifted out, its exponent lowered), the dividend is
//! doubled when its significand is the smaller so the quotient lies in `[1, 2)`, and
//! [`QUOTIENT_BITS`] = 25 quotient bits (24 significand bits and a round bit) are produced,
//! [`BITS_PER_STAGE`] = 5 per pipeline stage; the final remainder gives the sticky bit. The
//! rounding stage shifts the unrounded quotient right (collecting a sticky bit) when the result
//! is subnormal, then rounds once, so there is no double rounding. A digit recurrence was
//! chosen over Newton–Raphson on [`super::recip`] because that needs a 24×24 multiply for the
//! quotient plus another for the exact remainder correction, and recip flushes subnormals
//! (the reciprocal of a large divisor is subnormal although the quotient need not be); the
//! recurrence is 25 subtract-and-select steps of 25 bits, exact by construction.
//!
//! # Special cases
//! | `a` \ `b` | NaN | ±0 | ±∞ | finite ≠ 0 |
//! |---|---|---|---|---|
//! | NaN | NaN | NaN | NaN | NaN |
//! | ±0 | NaN | NaN | ±0 | ±0 |
//! | ±∞ | NaN | ±∞ | NaN | ±∞ |
//! | finite ≠ 0 | NaN | ±∞ | ±0 | `a / b`, overflow to ±∞ |
//!
//! Signs are `sign(a) ⊕ sign(b)`; NaN is [`CANONICAL_NAN`].
//!
//! # Hardware
//! * Ports of [`fp_div_top`]: stream `req` ([`FpReq`] with `a`, `b`) and stream `resp`
//!   ([`FpResp`]), the tag carried unchanged.
//! * Protocol: [`pipeline`]'s: stream rules on both sides, responses in request order, the
//!   whole pipeline holds when `resp` stalls; the output is a skid buffer.
//! * Timing: [`LATENCY`] = 8 cycles (stages `decode`, five `steps`, `round`, then the skid
//!   buffer), initiation interval 1; no combinational path from input to output.
//! * Cost (`rendergen synth fp_div`, Yosys generic synthesis, `synth -flatten`, `tag_width`
//!   8; also `cargo test -p rendergen-testbenches --test testbenches fp::div::yosys_area --
//!   --ignored --nocapture`): 9,439 cells, 601 flip-flops, no RAM, longest path 69 gate
//!   levels (five chained 25-bit compare-subtract-select steps per stage). Flip-flops: the
//!   remainder, divisor, quotient and control of six stage registers, and the skid buffer.
//!
//! # Accuracy
//! Bit-identical with the host's `f32` division (NaN as the canonical NaN) on every test:
//! all pairs of the shared special values, subnormal operands and results, exact ties on the
//! subnormal grid, quotients near rounding midpoints, overflow and underflow boundaries and
//! random operands (`cargo test -p rendergen-testbenches --test testbenches fp::div`), and
//! 400,000 more pairs in `fp::div::long_sweep_matches_host` (ignored; 12 s).

use super::fma::{leading_zeros, operand};
use super::{pipeline, FpCfg, FpReq, FpResp, Stages, CANONICAL_NAN};
use rendergen_hdl::{cat, name_lets, select, Bundle, Design, ElabErrors, Module, Sig, Stream};

/// Quotient bits produced: 24 significand bits and a round bit.
pub const QUOTIENT_BITS: u32 = 25;
/// Quotient bits per recurrence stage.
pub const BITS_PER_STAGE: u32 = 5;
/// Recurrence stages (`QUOTIENT_BITS / BITS_PER_STAGE`).
pub const STEP_STAGES: u32 = QUOTIENT_BITS / BITS_PER_STAGE;
/// Cycles from a request to its response in [`fp_div_top`] and [`div_stream`] (decode, the
/// recurrence stages, round, then the skid buffer); [`div`] itself adds `LATENCY - 1` stages.
pub const LATENCY: u32 = STEP_STAGES + 3;

/// What the result is, decided at decode.
const KIND_VALUE: u64 = 0;
const KIND_NAN: u64 = 1;
const KIND_INF: u64 = 2;
const KIND_ZERO: u64 = 3;
/// Width of the signed biased exponent arithmetic (−151 ..= 403 fits).
const EXP_W: u32 = 11;

/// What travels with a division through the stages.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivCtl<T = Sig> {
    /// Sign of the result.
    pub sign: T,
    /// `KIND_*` (2 bits): computed value, NaN, ∞ or zero.
    pub kind: T,
    /// Biased exponent of a quotient in `[1, 2)` (11 bits, two's complement; ≤ 0 when the
    /// result is subnormal).
    pub exp: T,
    /// The caller's passenger (a tag).
    pub pass: T,
}

/// The recurrence's state between stages.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivState<T = Sig> {
    /// Partial remainder (25 bits, below twice the divisor).
    pub rem: T,
    /// Normalised divisor significand (24 bits, leading one at bit 23).
    pub den: T,
    /// Quotient bits so far, shifted in at the bottom (25 bits).
    pub quot: T,
    /// Control.
    pub ctl: DivCtl<T>,
}

/// A request of [`div`].
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivIn<T = Sig> {
    /// Dividend (binary32).
    pub a: T,
    /// Divisor (binary32).
    pub b: T,
    /// Passenger.
    pub pass: T,
}

/// The result and the passenger.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivOut<T = Sig> {
    /// The binary32 quotient.
    pub r: T,
    /// The caller's passenger.
    pub pass: T,
}

/// An operand normalised: class flags, significand with its leading one at bit 23, and the
/// exponent that goes with it (11-bit signed, below 1 for a subnormal).
struct Operand {
    sign: Sig,
    zero: Sig,
    inf: Sig,
    nan: Sig,
    mant: Sig,
    exp: Sig,
}

/// Classifies `x` and normalises a subnormal's significand (IEEE: subnormals kept).
#[name_lets]
fn normalise(m: &mut Module, x: Sig) -> Operand {
    let e = x.bits(30, 23);
    let f = x.bits(22, 0);
    let e_zero = e.eq(0);
    let e_ones = e.all();
    let raw = cat(&[!e_zero, f]);
    let zeros = leading_zeros(m, raw);
    let mant = raw.shl(zeros);
    let e_eff = e_zero.mux(m.lit(1, EXP_W), e.zext(EXP_W));
    Operand {
        sign: x.bit(31),
        zero: e_zero & f.eq(0),
        inf: e_ones & f.eq(0),
        nan: e_ones & f.ne(0),
        mant,
        exp: e_eff - zeros.zext(EXP_W),
    }
}

/// Stage 1: classes, special results, normalised significands, result exponent; the dividend
/// doubled when its significand is below the divisor's.
#[name_lets]
pub fn div_decode(m: &mut Module, _: &(), r: DivIn) -> DivState {
    let a = normalise(m, r.a);
    let b = normalise(m, r.b);
    let nan = a.nan | b.nan | (a.zero & b.zero) | (a.inf & b.inf);
    let inf = a.inf | b.zero;
    let zero = a.zero | b.inf;
    let (k_nan, k_inf, k_zero) = (m.lit(KIND_NAN, 2), m.lit(KIND_INF, 2), m.lit(KIND_ZERO, 2));
    let kind = nan.mux(
        k_nan,
        inf.mux(k_inf, zero.mux(k_zero, m.lit(KIND_VALUE, 2))),
    );
    let below = a.mant.lt(b.mant);
    let rem = below.mux(cat(&[a.mant, m.lit(0, 1)]), a.mant.zext(25));
    let exp = a.exp - b.exp + 127u64 - below.zext(EXP_W);
    DivState {
        rem,
        den: b.mant,
        quot: m.lit(0, QUOTIENT_BITS),
        ctl: DivCtl {
            sign: a.sign ^ b.sign,
            kind,
            exp,
            pass: r.pass,
        },
    }
}

/// `bits` restoring steps (a recurrence stage): compare the remainder with the divisor,
/// subtract where it fits, shift in the quotient bit, double the remainder.
#[name_lets]
pub fn div_steps(_: &mut Module, bits: &u32, s: DivState) -> DivState {
    let den = s.den.zext(25);
    let (mut rem, mut quot) = (s.rem, s.quot);
    for _ in 0..*bits {
        let fits = rem.ge(den);
        let left = fits.mux(rem - den, rem);
        rem = left << 1;
        quot = cat(&[quot.bits(QUOTIENT_BITS - 2, 0), fits]);
    }
    DivState { rem, quot, ..s }
}

/// Last stage: denormalising shift for subnormal results (with sticky), round to nearest
/// even, overflow to ∞, special results.
#[name_lets]
pub fn div_round(m: &mut Module, _: &(), s: DivState) -> DivOut {
    let c = &s.ctl;
    let normal = c.exp.sgt(0);
    // Extra right shift of a subnormal result: 1 − exp, at most 26 (everything is sticky).
    let deficit = m.lit(1, EXP_W) - c.exp;
    let extra = normal.mux(
        m.lit(0, 5),
        deficit.sgt(26).mux(m.lit(26, 5), deficit.bits(4, 0)),
    );
    let shifted = s.quot.shr(extra);
    let lost = shifted.shl(extra).ne(s.quot);
    let sticky = s.rem.any() | lost;
    let sig = shifted.bits(QUOTIENT_BITS - 1, 1);
    let up = shifted.bit(0) & (sticky | sig.bit(0));
    let base = normal.mux(c.exp - 1u64, m.lit(0, EXP_W));
    let overflow = c.exp.sge(255);
    let magnitude = (base.bits(7, 0).zext(31) << 23) + sig.zext(31) + up.zext(31);
    let signed_zero = cat(&[c.sign, m.lit(0, 31)]);
    let signed_inf = cat(&[c.sign, m.lit(0x7F80_0000, 31)]);
    let value = overflow.mux(signed_inf, cat(&[c.sign, magnitude]));
    let r = select(
        c.kind,
        &[
            value,
            m.lit(CANONICAL_NAN as u64, 32),
            signed_inf,
            signed_zero,
        ],
        signed_zero,
    );
    DivOut { r, pass: c.pass }
}

/// The divider inside a caller's pipeline: `a / b` (binary32), `pass` (any width) carried
/// beside it; adds `LATENCY - 1` = 7 stages to `st` (`decode`, `steps_0` … `steps_4`,
/// `round`, each stage's logic a child module).
#[name_lets]
pub fn div(m: &mut Module, st: &mut Stages, a: Sig, b: Sig, pass: Sig) -> DivOut {
    let decoded = m.child("decode", &(), DivIn { a, b, pass }, div_decode);
    let mut state = st.stage(m, "decode", &decoded);
    for i in 0..STEP_STAGES {
        let next = m.child(&format!("steps[{i}]"), &BITS_PER_STAGE, state, div_steps);
        state = st.stage(m, &format!("steps_{i}"), &next);
    }
    let out = m.child("round", &(), state, div_round);
    st.stage(m, "round", &out)
}

/// [`div`] behind a stream: `req.a / req.b`, the tag carried to the response. Latency
/// [`LATENCY`], initiation interval 1. A request without `b` is an elaboration error.
#[name_lets]
pub fn div_stream(m: &mut Module, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "div", req, |m, st, r| {
        let b = operand(m, r.b, "req.b", 32);
        let out = div(m, st, r.a, b, r.tag);
        FpResp {
            r: out.r,
            tag: out.pass,
        }
    })
}

/// The stand-alone unit `fp_div`: streams `req` ([`FpReq::shape`]`(cfg, 2, 0)`) → `resp`.
///
/// * Cost: 9,439 cells, 601 flip-flops, 69 gate levels in Yosys generic synthesis
///   (`rendergen synth fp_div`, `tag_width` 8; the [module documentation](self) has more).
/// * Errors: `tag_width` outside [`TAG_WIDTH`](super::TAG_WIDTH) is an elaboration error.
///
/// ```
/// use rendergen_rtl::fp::{div::fp_div_top, FpCfg};
/// let design = fp_div_top(&FpCfg::default()).unwrap();
/// assert_eq!(design.top().name, "fp_div");
/// assert!(fp_div_top(&FpCfg { tag_width: 0 }).is_err());
/// ```
pub fn fp_div_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_div", cfg, (2, 0), div_stream)
}
