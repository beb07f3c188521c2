//! The misc unit `fp_misc` (D6, issue 12): min/max, compares, integer conversions, rounding
//! to integers, `fract`, abs/neg of binary32 values under the conventions of [`super`].
//!
//! # Datapath
//! Stage 1 computes every result that needs no normalisation directly: compares on the
//! sign-magnitude encodings mapped to an ordered integer key (−0 below +0 for min/max),
//! truncating conversions by one right shift of the significand, and floor, ceil, trunc and
//! roundEven by masking the fraction bits of the encoding and adding one integer unit to it
//! (the encoding is monotonic, so a carry into the exponent is the right result). The rest
//! (i2f, u2f, and `fract` of values with fraction bits) becomes a 51-bit magnitude: the integer,
//! or the fraction of `|a|` in 50 fraction bits (`F`, exact when `|a| ≥ 2^-26`), or `1 − F` for
//! negative `a` (GLSL `fract` is `a − floor(a)`). Stage 2 counts leading zeros and shifts;
//! stage 3 rounds to nearest even and selects.

use super::fma::{leading_zeros, operand, unpack};
use super::{pipeline, FpCfg, FpReq, FpResp, Stages, CANONICAL_NAN};
use rendergen_hdl::{
    cat, name_lets, select, Bundle, Design, ElabErrors, HwEnum, Module, Sig, Stream,
};

/// Width of the `op` select.
pub const OP_BITS: u32 = 5;

/// Latency in cycles from a request transfer to its response being offered (no back-pressure):
/// three stage registers and the output skid buffer.
pub const LATENCY: u64 = 4;

/// Operation select of [`fp_misc`] (`req_op`, 5 bits); `a` and `b` are binary32 unless the
/// table says integer; codes 19..=31 give 0.
///
/// | code | op          | result                                                       |
/// |------|-------------|--------------------------------------------------------------|
/// | 0    | `Min`       | minimumNumber(a, b): one NaN → the other, −0 < +0            |
/// | 1    | `Max`       | maximumNumber(a, b)                                          |
/// | 2    | `Eq`        | a == b as 1/0 (NaN: 0; −0 == +0)                             |
/// | 3    | `Ne`        | a != b (NaN: 1)                                              |
/// | 4    | `Lt`        | a < b (NaN: 0)                                               |
/// | 5    | `Le`        | a <= b                                                       |
/// | 6    | `Gt`        | a > b                                                        |
/// | 7    | `Ge`        | a >= b                                                       |
/// | 8    | `F2i`       | i32 bits of `a as i32` (toward zero, saturating, NaN → 0)    |
/// | 9    | `F2u`       | `a as u32`                                                   |
/// | 10   | `I2f`       | `a` (i32 bits) as binary32, nearest even                     |
/// | 11   | `U2f`       | `a` (u32) as binary32, nearest even                          |
/// | 12   | `Floor`     | floor(a)                                                     |
/// | 13   | `Ceil`      | ceil(a)                                                      |
/// | 14   | `Trunc`     | trunc(a)                                                     |
/// | 15   | `Fract`     | a − floor(a), one rounding (GLSL)                            |
/// | 16   | `RoundEven` | nearest integer, ties to even (GLSL roundEven)               |
/// | 17   | `Abs`       | \|a\| (flushed, NaN canonical)                               |
/// | 18   | `Neg`       | −a (flushed, NaN canonical)                                  |
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MiscOp {
    /// minimumNumber.
    Min,
    /// maximumNumber.
    Max,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// f32 → i32.
    F2i,
    /// f32 → u32.
    F2u,
    /// i32 → f32.
    I2f,
    /// u32 → f32.
    U2f,
    /// Round toward −∞.
    Floor,
    /// Round toward +∞.
    Ceil,
    /// Round toward 0.
    Trunc,
    /// `a − floor(a)`.
    Fract,
    /// Round to nearest, ties to even.
    RoundEven,
    /// Absolute value.
    Abs,
    /// Negation.
    Neg,
}

/// Width of the magnitude that stages 2 and 3 normalise and round.
const NORM_W: u32 = 51;

/// Stage 1 → 2: a direct result, or a magnitude to normalise.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Decoded<T = Sig> {
    direct: T,
    use_norm: T,
    mag: T,
    fraction: T,
    sign: T,
    tag: T,
}

/// Stage 2 → 3: the normalised magnitude.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Shifted<T = Sig> {
    direct: T,
    use_norm: T,
    mant: T,
    round: T,
    sticky: T,
    exp: T,
    zero: T,
    sign: T,
    tag: T,
}

/// A 32-bit 1/0 from a 1-bit truth value.
fn truth(x: Sig) -> Sig {
    x.zext(32)
}

/// The key that orders non-NaN encodings (−0 just below +0) as unsigned integers.
fn order_key(x: Sig) -> Sig {
    x.msb().mux(!x, x ^ (1u64 << 31))
}

/// Min, max and the six compares of flushed `a`, `b` (in [`MiscOp`] order).
#[name_lets]
fn compares(m: &mut Module, a: Sig, b: Sig) -> Vec<Sig> {
    let (ua, ub) = (unpack(a), unpack(b));
    let fa = ua.zero.mux(cat(&[ua.sign, m.lit(0, 31)]), a);
    let fb = ub.zero.mux(cat(&[ub.sign, m.lit(0, 31)]), b);
    let nan = m.lit(CANONICAL_NAN as u64, 32);
    let (ka, kb) = (order_key(fa), order_key(fb));
    let b_below = kb.lt(ka);
    let pick = |b_wins: Sig| {
        let ordered = b_wins.mux(fb, fa);
        let one_nan = ua.nan.mux(fb, ordered);
        (ua.nan & ub.nan).mux(nan, ub.nan.mux(fa, one_nan))
    };
    let min = pick(b_below);
    let max = pick(ka.lt(kb));
    let unordered = ua.nan | ub.nan;
    let both_zero = ua.zero & ub.zero;
    let eq = !unordered & (fa.eq(fb) | both_zero);
    let lt = !unordered & !both_zero & ka.lt(kb);
    let gt = !unordered & !both_zero & b_below;
    vec![
        min,
        max,
        truth(eq),
        truth(!eq),
        truth(lt),
        truth(lt | eq),
        truth(gt),
        truth(gt | eq),
    ]
}

/// `a as i32` and `a as u32` (Rust semantics) of flushed `a`.
#[name_lets]
fn to_int(m: &mut Module, a: Sig) -> [Sig; 2] {
    let ua = unpack(a);
    let small = ua.exp.lt(127);
    // 181 − e mod 64 from the low exponent bits alone (a 6-bit subtraction).
    let shift = small.mux(m.lit(63, 6), m.lit(181 % 64, 6) - ua.exp.bits(5, 0));
    let placed = cat(&[ua.mant, m.lit(0, 31)]).zext(64);
    let mag = placed.shr(shift).bits(31, 0);
    let int_min = m.lit(0x8000_0000, 32);
    let saturated = ua.sign.mux(int_min, m.lit(0x7FFF_FFFF, 32));
    let signed = ua.exp.ge(158).mux(saturated, ua.sign.mux(-mag, mag));
    let unsigned_sat = ua.exp.ge(159).mux(m.lit(0xFFFF_FFFF, 32), mag);
    let zero = m.lit(0, 32);
    [
        ua.nan.mux(zero, signed),
        (ua.nan | ua.sign).mux(zero, unsigned_sat),
    ]
}

/// floor, ceil, trunc and roundEven of flushed `a` (NaN canonical).
#[name_lets]
fn to_integral(m: &mut Module, a: Sig) -> [Sig; 4] {
    let ua = unpack(a);
    let fa = ua.zero.mux(cat(&[ua.sign, m.lit(0, 31)]), a);
    // 150 − e (1..=23 where it is used) mod 32 from the low exponent bits alone.
    let fraction_bits = m.lit(150 % 32, 5) - ua.exp.bits(4, 0);
    // Masks from shifts of constants (no subtractions): the fraction bits, the bits below
    // the first fraction bit, the integer unit and the first fraction bit.
    let mask = !m.lit(0xFFFF_FFFF, 32).shl(fraction_bits);
    let below_half = mask >> 1;
    let unit = m.lit(1, 32).shl(fraction_bits);
    let half = unit >> 1;
    let trunc_bits = fa & !mask;
    let inexact = (fa & mask).ne(0);
    let odd = (fa & unit).ne(0);
    let half_bit = (fa & half).ne(0);
    let beyond_half = (fa & below_half).ne(0);
    // One incrementer shared by floor, ceil and roundEven, beside the rounding decisions.
    let bumped = trunc_bits + unit;
    let bump = |up: Sig| up.mux(bumped, trunc_bits);
    let floor_mid = bump(ua.sign & inexact);
    let ceil_mid = bump(!ua.sign & inexact);
    let even_mid = bump(half_bit & (beyond_half | odd));
    let signed_zero = cat(&[ua.sign, m.lit(0, 31)]);
    let one = |m: &mut Module, s: Sig| cat(&[s, m.lit(0x3F80_0000, 31)]);
    let nonzero = !ua.zero;
    let floor_small = (ua.sign & nonzero).mux(one(m, ua.sign), signed_zero);
    let ceil_small = (!ua.sign & nonzero).mux(one(m, ua.sign), signed_zero);
    let even_small = (ua.exp.eq(126) & ua.mant.bits(22, 0).ne(0)).mux(one(m, ua.sign), signed_zero);
    let small = ua.exp.lt(127);
    let integral = ua.exp.ge(150);
    let whole = ua.nan.mux(m.lit(CANONICAL_NAN as u64, 32), fa);
    let pick = |small_r: Sig, mid_r: Sig| integral.mux(whole, small.mux(small_r, mid_r));
    [
        pick(floor_small, floor_mid),
        pick(ceil_small, ceil_mid),
        pick(signed_zero, trunc_bits),
        pick(even_small, even_mid),
    ]
}

/// `fract(a)` as (the result is direct, the direct result, the 51-bit magnitude to normalise
/// otherwise, 2^-50 per unit).
#[name_lets]
fn fract_parts(m: &mut Module, a: Sig) -> (Sig, Sig, Sig) {
    let ua = unpack(a);
    // e − 100 (1..=49 where it is used) mod 64 from the low exponent bits alone.
    let shift = ua.exp.bits(5, 0) - (100 % 64);
    let fraction = ua.mant.zext(24 + 49).shl(shift).bits(49, 0);
    let negative = ua.sign & fraction.ne(0);
    let complement = m.lit(1u64 << 50, NORM_W) - fraction.zext(NORM_W);
    let mag = negative.mux(complement, fraction.zext(NORM_W));
    let tiny = ua.exp.lt(101) & !ua.zero;
    let tiny_r = ua.sign.mux(m.lit(0x3F80_0000, 32), a);
    let direct_r = (ua.nan | ua.inf).mux(
        m.lit(CANONICAL_NAN as u64, 32),
        tiny.mux(tiny_r, m.lit(0, 32)),
    );
    let direct = ua.nan | ua.inf | tiny | ua.zero | ua.exp.ge(150);
    (direct, direct_r, mag)
}

/// Stage 1: every direct result, and the magnitude, scale and sign of the normalised ones.
#[name_lets]
fn decode(m: &mut Module, req: &FpReq) -> Decoded {
    let a = req.a;
    let b = operand(m, req.b, "req.b", 32);
    let op = operand(m, req.op, "req.op", OP_BITS as u64);
    let ua = unpack(a);
    let fa = ua.zero.mux(cat(&[ua.sign, m.lit(0, 31)]), a);
    let nan = m.lit(CANONICAL_NAN as u64, 32);
    let abs = ua.nan.mux(nan, fa & 0x7FFF_FFFF);
    let neg = ua.nan.mux(nan, fa ^ (1u64 << 31));
    let [f2i, f2u] = to_int(m, a);
    let [floor, ceil, trunc, round_even] = to_integral(m, a);
    let (fract_direct, fract_r, fract_mag) = fract_parts(m, a);
    let zero = m.lit(0, 32);
    let mut cases = compares(m, a, b);
    cases.extend([
        f2i, f2u, zero, zero, floor, ceil, trunc, fract_r, round_even, abs, neg,
    ]);
    let direct = select(op, &cases, zero);

    let int_negative = a.msb() & op.is(MiscOp::I2f);
    let int_mag = int_negative.mux(-a, a).zext(NORM_W);
    let is_fract = op.is(MiscOp::Fract);
    let use_norm = op.is(MiscOp::I2f) | op.is(MiscOp::U2f) | (is_fract & !fract_direct);
    Decoded {
        direct,
        use_norm,
        mag: is_fract.mux(fract_mag, int_mag),
        fraction: is_fract,
        sign: int_negative,
        tag: req.tag,
    }
}

/// Stage 2: leading-zero count, shift and exponent of the magnitude.
#[name_lets]
fn shift(m: &mut Module, s: &Decoded) -> Shifted {
    let zeros = leading_zeros(m, s.mag);
    let shifted = s.mag.shl(zeros);
    // Bit k set alone means 2^k (integers: exponent 127 + k) or 2^(k − 50) (fract: 77 + k).
    let base = s.fraction.mux(m.lit(77 + 50, 9), m.lit(127 + 50, 9));
    Shifted {
        direct: s.direct,
        use_norm: s.use_norm,
        mant: shifted.bits(NORM_W - 1, NORM_W - 24),
        round: shifted.bit(NORM_W - 25),
        sticky: shifted.bits(NORM_W - 26, 0).any(),
        exp: base - zeros.zext(9),
        zero: s.mag.eq(0),
        sign: s.sign,
        tag: s.tag,
    }
}

/// Stage 3: round to nearest even and choose the result.
#[name_lets]
fn finish(m: &mut Module, s: &Shifted) -> FpResp {
    let up = s.round & (s.sticky | s.mant.bit(0));
    let rounded = s.mant.add_full(up);
    let exp = s.exp + rounded.bit(24).zext(9);
    let float = cat(&[s.sign, exp.bits(7, 0), rounded.bits(22, 0)]);
    let normalised = s.zero.mux(m.lit(0, 32), float);
    FpResp {
        r: s.use_norm.mux(normalised, s.direct),
        tag: s.tag,
    }
}

/// The misc datapath cut into three stages of `st`: `req.a`, `req.b`, `req.op` ([`MiscOp`], 5
/// bits) and `req.tag` (any width, carried) in; the result and the tag three stage registers
/// later (for a pipeline with its own enable; [`fp_misc`] is the stream unit). Stages: 1 every
/// direct result and the magnitude to normalise; 2 leading zeros and shift; 3 rounding and
/// selection. Missing `b` or `op` fields are elaboration errors.
#[name_lets]
pub fn fp_misc_stages(m: &mut Module, st: &mut Stages, req: FpReq) -> FpResp {
    // Each stage's logic is a child module; the stage registers live here.
    let s1 = m.child("decode", &(), req, |m, _, r| decode(m, &r));
    let s1 = st.stage(m, "decode", &s1);
    let s2 = m.child("shift", &(), s1, |m, _, s| shift(m, &s));
    let s2 = st.stage(m, "shift", &s2);
    let s3 = m.child("finish", &(), s2, |m, _, s| finish(m, &s));
    st.stage(m, "finish", &s3)
}

/// Misc unit: min/max, compares, f32↔i32/u32 conversions, floor/ceil/trunc/fract/roundEven,
/// abs/neg (by `op`, table at [`MiscOp`]) with the conventions of [`super`] — D6, issue 12.
///
/// * **Ports:** `req` ([`FpReq`] with `a`, `b`, a 5-bit `op`, a `tag`), `resp` ([`FpResp`]:
///   `r`, `tag`); one-operand ops ignore `b`.
/// * **Protocol:** stream rules on both sides ([`pipeline`]): responses in request order with
///   their tags, nothing dropped; back-pressure stalls the whole pipeline; skid-buffer output.
/// * **Timing:** latency [`LATENCY`] = 4 (three stages and the skid buffer), initiation
///   interval 1; `req.ready` from registers only.
/// * **Parameters:** [`FpCfg::tag_width`] 1..=64 (8).
/// * **Cost:** `rendergen synth fp_misc` (Yosys generic `synth -flatten`, tag width 8,
///   measured): 4,841 cells, 296 flip-flops, 32 gate levels on the longest path (stage 1 is
///   the longest). A 64-bit right shifter (to integer), 32-bit masks and one incrementer
///   (rounding to integers), a 73-bit shifter and a 51-bit subtractor (`fract`), a 64-bit
///   leading-zero count and a 51-bit normalising shift shared by i2f, u2f and `fract`.
/// * **Accuracy:** exact (every result is correctly rounded or exact): bit-exact with the
///   model `rendergen_sim::models::fp32::basic` on every test (`cargo test -p
///   rendergen-testbenches --test testbenches fp::misc`).
/// * **Errors:** elaboration fails if `req` lacks `b` or `op`.
///
/// ```
/// use rendergen_hdl::Design;
/// use rendergen_rtl::fp::{misc::{fp_misc, OP_BITS}, FpCfg, FpReq};
/// let cfg = FpCfg::default();
/// let design = Design::build("misc", |m| {
///     let req = m.input_stream::<FpReq>("req", &FpReq::shape(&cfg, 2, OP_BITS));
///     let resp = fp_misc(m, &cfg, req);
///     m.output_stream("resp", resp);
/// })
/// .unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "resp_r"));
/// ```
#[name_lets]
pub fn fp_misc(m: &mut Module, _cfg: &FpCfg, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "misc", req, fp_misc_stages)
}

/// Stand-alone [`fp_misc`] with input stream `req` and output stream `resp` (catalogue
/// `fp_misc`); elaboration rejects a `tag_width` outside [`TAG_WIDTH`](super::TAG_WIDTH).
#[name_lets]
pub fn fp_misc_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_misc", cfg, (2, OP_BITS), |m, req| fp_misc(m, cfg, req))
}
