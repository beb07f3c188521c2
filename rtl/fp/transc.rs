//! `fp_transc`: exp2, log2, sine and cosine of binary32 (issue 12 §1), one operation per clock,
//! in the style of a GPU special-function unit: the reduced argument's leading bits select a
//! segment of a table, a quadratic in fixed point evaluates it, and the exponent is handled
//! apart. The tables are `rendergen_isa::fp_tables::transc`; the golden model
//! `rendergen_sim::models::fp32::transc` computes the same bits on its own.
//!
//! # Algorithm and widths
//! * **Decode** (stage 1): operands flushed; special cases decided and their results chosen.
//!   exp2: `x` to a 39-bit two's-complement fixed-point number with 30 fraction bits (the
//!   magnitude shifted and truncated, then negated): `n = ⌊x⌋` (9 bits) is the result's
//!   exponent, `f` (30 bits) the argument. log2: `x = 2^e·m`, `m ∈ [0.75, 1.5)`, so that
//!   `r = m − 1` is exact in 25 bits (24 fraction bits). sin/cos: the 56-bit window of `1/(2π)`
//!   for the operand's exponent (a 140-entry constant table).
//! * **Reduce** (2): sin/cos multiply the 24-bit mantissa by the window (24 × 56 bits); the low
//!   56 bits of the product are the fraction of a turn, exact but for the window's truncation
//!   (`< 2^-32` turn, for every finite `x`: a Payne–Hanek reduction, no range limit). Top two
//!   bits: quadrant (+1 for cos); next 33: position `u`, reflected (`1/4 − u`) in odd
//!   quadrants. Each op then makes a segment index (exp2 6 bits of `f`, log2 7 bits of
//!   `r + 1/4`, sin 8 bits of `u`, 0..=128) and a 24-bit position `d` in the segment.
//! * **Lookup** (3): `c0` (34 bits), `c1` (28), `c2` (20), signed, units `2^-32`, from tables of
//!   64 (exp2), 96 (log2's `g(r) = log2(1+r)/r`) and 129 (`sin 2πu`) segments.
//! * **Horner** (4, 5): `t = c1 + (c2·d >> 24)` (20 × 25-bit product), `p = c0 + (t·d >> 24)`
//!   (29 × 25), arithmetic shifts; `p` is 35 bits in units of `2^-32`.
//! * **Post** (6): log2 `e·2^56 + r·p` (25 × 35-bit product, 66-bit sum, exact): relative
//!   precision near `x = 1`, `log2(2^n) = n` exactly. exp2 `p` and `n`; sin/cos `p` clamped at
//!   0 with the quadrant's sign (and the operand's, for sin). A 64-bit magnitude in units of
//!   `2^-56`, a sign and an exponent adjustment.
//! * **Pack** (7): normalisation (six-level shifter giving the leading-zero count), rounding to
//!   nearest even, overflow to ±inf, results below `2^-126` to the zero of their sign; the
//!   special result where stage 1 decided one.
//!
//! Why it meets the targets: the quadratics' interpolation error is below `2^-25.5` (exp2,
//! relative), `2^-26` (g, relative) and `2^-29` (sin, absolute) (table docs); truncating `x` to
//! 30 fraction bits costs `< 2^-30.5` relative for exp2; the Horner truncations `< 2^-31`; the
//! reduction `< 2^-29.6` absolute for sin/cos. Add the final rounding (½ ULP): measured maxima
//! in [`ACCURACY`](#accuracy).
//!
//! # Special cases (operands flushed first)
//! exp2: NaN → NaN, −inf → +0, +inf and `x ≥ 128` → +inf (also results rounding to `2^128`),
//! `x < −126` → +0, `exp2(±0) = 1`, `exp2(n) = 2^n` exactly. log2: NaN and negatives (−inf
//! included) → NaN, ±0 → −inf, +inf → +inf, `log2(1) = +0`, `log2(2^n) = n`. sin/cos: NaN and
//! ±inf → NaN; `|x| < 2^-12` gives `sin x = x` (so `sin(±0) = ±0`) and `cos x = 1`;
//! `sin(−x) = −sin x` bit for bit; every NaN is [`CANONICAL_NAN`].
//!
//! # Accuracy
//! Measured on the golden model (bit-exact with this unit) against `f64` of the f32 input over
//! all 2^32 inputs (`cargo test --release -p rendergen-sim --lib
//! fp32::transc::tests::exhaustive_error_table -- --ignored --nocapture`):
//! exp2 at most 0.678 ULP and log2 at most 0.610 ULP over every input (targets ≤ 2); sin at
//! most 3.94e-8 and cos 3.90e-8 absolute on [−π, π] (target 2^-20 = 9.5e-7), 3.99e-8 / 3.97e-8
//! on [−1000, 1000] and 4.01e-8 / 4.00e-8 over every finite input (the reduction is exact to
//! `2^-32` turn at any magnitude); no special result differs from the f64 reference.
//! sin/cos are built to an absolute bound: results near a zero of the function (small `|x|`
//! above the `2^-12` bypass, `x` near `kπ`) carry about `2^-31` absolute error, so their
//! relative error is large (448 ULP for `sin(2^-12)`, measured on the model).
//! The table is `rendergen_sim::models::fp32::transc::ACCURACY`; `cargo test -p rendergen-sim
//! --lib fp32::transc` runs a million-point version of the same measurement (0.4 s).

use super::{pipeline, FpCfg, FpReq, FpResp, Stages, CANONICAL_NAN};
use rendergen_hdl::{
    cat, index_select, lut, name_lets, Bundle, Design, ElabErrors, Module, Sig, Stream,
};
use rendergen_isa::fp_tables::transc::{EXP2, INV_2PI, LOG2, SIN};

/// Cycles from a request's transfer to its response being offered (no back-pressure): seven
/// stage registers and the output skid buffer.
pub const LATENCY: u64 = 8;

/// Stage registers of [`fp_transc`] (the skid buffer of the stream wrapper excluded).
pub const STAGES: u32 = 7;

/// Operation codes of the `op` field.
pub mod op {
    /// `2^x`.
    pub const EXP2: u64 = 0;
    /// `log2 x`.
    pub const LOG2: u64 = 1;
    /// `sin x` (radians).
    pub const SIN: u64 = 2;
    /// `cos x` (radians).
    pub const COS: u64 = 3;
}

const POS_INF: u64 = 0x7F80_0000;
const NEG_INF: u64 = 0xFF80_0000;
const ONE: u64 = 0x3F80_0000;
/// `|x| < 2^-12` (biased exponent below 115): sin x = x, cos x = 1.
const TRIG_TINY_EXP: u64 = 115;
/// Bits of `1/(2π)` the reduction multiplies by.
const WINDOW: u32 = 56;

/// The operation and operand entering the unit.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct TranscIn<T = Sig> {
    /// 0 exp2, 1 log2, 2 sin, 3 cos (2 bits).
    pub op: T,
    /// The operand (binary32).
    pub a: T,
}

/// After stage 1: special result, exponent part and argument per op.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
struct Decoded<T = Sig> {
    op: T,
    special: T,
    special_val: T,
    sign: T,
    /// exp2 `⌊x⌋`, log2 `e` (9 bits, signed).
    ea: T,
    /// exp2 `f` (30 bits), log2 `r` (25 bits, sign-extended), sin/cos the mantissa (24 bits).
    arg: T,
    window: T,
}

/// After stage 2: segment index and position.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
struct Reduced<T = Sig> {
    op: T,
    special: T,
    special_val: T,
    /// sin/cos: negate the result.
    neg: T,
    ea: T,
    r: T,
    idx: T,
    d: T,
}

/// After stage 3: the segment's coefficients.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
struct Coefs<T = Sig> {
    op: T,
    special: T,
    special_val: T,
    neg: T,
    ea: T,
    r: T,
    d: T,
    c0: T,
    c1: T,
    c2: T,
}

/// After stage 4: the inner Horner step.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
struct Linear<T = Sig> {
    op: T,
    special: T,
    special_val: T,
    neg: T,
    ea: T,
    r: T,
    d: T,
    c0: T,
    t: T,
}

/// After stage 5: the polynomial's value.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
struct Value<T = Sig> {
    op: T,
    special: T,
    special_val: T,
    neg: T,
    ea: T,
    r: T,
    p: T,
}

/// After stage 6: sign, magnitude (units `2^-56`) and exponent adjustment of the result.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
struct Unpacked<T = Sig> {
    special: T,
    special_val: T,
    sign: T,
    ea: T,
    mag: T,
}

/// exp2, log2, sin or cos of `i.a` as `i.op` says, cut into [`STAGES`] stages of `st`; returns
/// the binary32 result after the last stage.
///
/// * **Timing:** [`STAGES`] = 7 register stages, initiation interval 1 (every stage loads on
///   `st.en()`); no combinational path from input to output.
/// * **Cost:** see [`fp_transc_top`].
/// * **Errors:** none at elaboration beyond width mismatches of `i` (`op` 2 bits, `a` 32).
///
/// Inside a larger pipeline (a shader-core lane) that owns the enable:
/// ```
/// use rendergen_hdl::Design;
/// use rendergen_rtl::fp::transc::{fp_transc, TranscIn, STAGES};
/// use rendergen_rtl::fp::Stages;
/// let design = Design::build("lane", |m| {
///     let (en, valid) = (m.input("en", 1), m.input("valid", 1));
///     let i = TranscIn { op: m.input("op", 2), a: m.input("a", 32) };
///     let mut st = Stages::new(en, valid);
///     let r = fp_transc(m, &mut st, i);
///     assert_eq!(st.count(), STAGES);
///     m.output("r", r);
///     m.output("r_valid", st.valid());
/// })
/// .unwrap();
/// assert!(design.modules.iter().any(|d| d.name == "reduce"));
/// ```
#[name_lets]
pub fn fp_transc(m: &mut Module, st: &mut Stages, i: TranscIn) -> Sig {
    let decoded = m.child("decode", &(), i, decode);
    let decoded = st.stage(m, "decoded", &decoded);
    let reduced = m.child("reduce", &(), decoded, reduce);
    let reduced = st.stage(m, "reduced", &reduced);
    let coefs = m.child("lookup", &(), reduced, lookup);
    let c = st.stage(m, "coefs", &coefs);
    let c2_d = c.c2.smul_full(c.d.zext(25)).sra_const(24);
    let linear = Linear {
        op: c.op,
        special: c.special,
        special_val: c.special_val,
        neg: c.neg,
        ea: c.ea,
        r: c.r,
        d: c.d,
        c0: c.c0,
        t: c.c1.sext(29) + c2_d.bits(28, 0),
    };
    let l = st.stage(m, "linear", &linear);
    let t_d = l.t.smul_full(l.d.zext(25)).sra_const(24);
    let value = Value {
        op: l.op,
        special: l.special,
        special_val: l.special_val,
        neg: l.neg,
        ea: l.ea,
        r: l.r,
        p: l.c0.sext(35) + t_d.bits(34, 0),
    };
    let value = st.stage(m, "value", &value);
    let unpacked = m.child("post", &(), value, post);
    let unpacked = st.stage(m, "unpacked", &unpacked);
    let result = m.child("pack", &(), unpacked, pack);
    st.stage(m, "result", &result)
}

/// Stage 1: flush, special cases, exp2's fixed point, log2's `e` and `r`, the reduction window.
#[name_lets]
fn decode(m: &mut Module, _: &(), i: TranscIn) -> Decoded {
    let TranscIn { op, a } = i;
    let sign = a.bit(31);
    let bexp = a.bits(30, 23);
    let zero = bexp.eq(0);
    let frac = zero.mux(0, a.bits(22, 0));
    let max_exp = bexp.eq(255);
    let nan = max_exp & frac.ne(0);
    let mant = cat(&[!zero, frac]);
    let flushed = cat(&[sign, bexp, frac]);
    let canonical_nan = m.lit(CANONICAL_NAN as u64, 32);

    // exp2: x·2^30, truncated, as a 39-bit two's-complement number
    let wide = mant.zext(39);
    let magnitude = bexp
        .ge(120)
        .mux(wide.shl(bexp - 120), wide.shr(m.lit(120, 8) - bexp));
    let fixed = sign.mux(-magnitude, magnitude);
    let n = fixed.bits(38, 30);
    let overflow = bexp.ge(134);
    let exp2_special = nan | overflow | n.slt(-126);
    let exp2_big = sign.mux(0, m.lit(POS_INF, 32));
    let exp2_val = nan.mux(canonical_nan, overflow.mux(exp2_big, m.lit(0, 32)));

    // log2: x = 2^e·(1 + r), 1 + r in [0.75, 1.5)
    let halve = frac.bit(22);
    let e = halve.mux(bexp.zext(9) - 126, bexp.zext(9) - 127);
    let r = halve.mux(
        frac.zext(25) - (1u32 << 23),
        cat(&[m.lit(0, 1), frac, m.lit(0, 1)]),
    );
    let log2_special = max_exp | zero | sign;
    let log2_val = (nan | !zero & sign).mux(
        canonical_nan,
        zero.mux(m.lit(NEG_INF, 32), m.lit(POS_INF, 32)),
    );

    // sin/cos: the window of 1/(2π) for this exponent
    let tiny = bexp.lt(TRIG_TINY_EXP);
    let trig_special = max_exp | tiny;
    let tiny_val = op.bit(0).mux(m.lit(ONE, 32), flushed);
    let trig_val = max_exp.mux(canonical_nan, tiny_val);
    let window = lut(bexp - TRIG_TINY_EXP, &windows(), WINDOW);

    let zero9 = m.lit(0, 9);
    Decoded {
        op,
        special: index_select(
            op,
            &[exp2_special, log2_special, trig_special, trig_special],
        ),
        special_val: index_select(op, &[exp2_val, log2_val, trig_val, trig_val]),
        sign,
        ea: index_select(op, &[n, e, zero9, zero9]),
        arg: index_select(
            op,
            &[fixed.bits(29, 0), r.sext(30), mant.zext(30), mant.zext(30)],
        ),
        window,
    }
}

/// The windows of `1/(2π)`: entry `s` holds the bits of weights `2^-(s-34)` … `2^-(s+21)`
/// (those of weight `2^0` and above are zero), for biased exponents `115 + s`, `s < 140`.
fn windows() -> Vec<u64> {
    let bit = |j: i64| -> u64 {
        match j {
            1..=192 => (INV_2PI[((j - 1) / 64) as usize] >> (63 - (j - 1) % 64)) & 1,
            _ => 0,
        }
    };
    (0..140i64)
        .map(|s| (s - 34..s + 22).fold(0u64, |w, j| w << 1 | bit(j)))
        .collect()
}

/// Stage 2: the turns reduction (sin/cos) and every op's segment index and position.
#[name_lets]
fn reduce(m: &mut Module, _: &(), i: Decoded) -> Reduced {
    let is_cos = i.op.eq(op::COS);
    // exp2
    let exp2_idx = i.arg.bits(29, 24).zext(8);
    let exp2_d = i.arg.bits(23, 0);
    // log2: segments of 1/128 from r = -1/4
    let r = i.arg.bits(24, 0);
    let u = r + (1u32 << 22);
    let log2_idx = u.bits(23, 17).zext(8);
    let log2_d = cat(&[u.bits(16, 0), m.lit(0, 7)]);
    // sin/cos: fraction of a turn, quadrant, reflection
    let turn = i.arg.bits(23, 0).mul_full(i.window).bits(55, 0);
    let quadrant = turn.bits(55, 54) + is_cos.zext(2);
    let v = turn.bits(53, 21).zext(34);
    let u_trig = quadrant.bit(0).mux(m.lit(1 << 33, 34) - v, v);
    let trig_idx = u_trig.bits(33, 26);
    let trig_d = u_trig.bits(25, 2);
    Reduced {
        op: i.op,
        special: i.special,
        special_val: i.special_val,
        neg: quadrant.bit(1) ^ (i.sign & !is_cos),
        ea: i.ea,
        r,
        idx: index_select(i.op, &[exp2_idx, log2_idx, trig_idx, trig_idx]),
        d: index_select(i.op, &[exp2_d, log2_d, trig_d, trig_d]),
    }
}

/// Column `k` of `table`, `width`-bit two's complement.
fn column(table: &[[i64; 3]], k: usize, width: u32) -> Vec<u64> {
    table
        .iter()
        .map(|c| c[k] as u64 & ((1 << width) - 1))
        .collect()
}

/// Stage 3: the coefficients of the segment.
#[name_lets]
fn lookup(_m: &mut Module, _: &(), i: Reduced) -> Coefs {
    let coef = |k: usize, width: u32| {
        let exp2 = lut(i.idx, &column(&EXP2, k, width), width);
        let log2 = lut(i.idx, &column(&LOG2, k, width), width);
        let sin = lut(i.idx, &column(&SIN, k, width), width);
        index_select(i.op, &[exp2, log2, sin, sin])
    };
    Coefs {
        op: i.op,
        special: i.special,
        special_val: i.special_val,
        neg: i.neg,
        ea: i.ea,
        r: i.r,
        d: i.d,
        c0: coef(0, 34),
        c1: coef(1, 28),
        c2: coef(2, 20),
    }
}

/// Stage 6: the result as sign, magnitude in units of `2^-56` and exponent adjustment.
#[name_lets]
fn post(m: &mut Module, _: &(), i: Value) -> Unpacked {
    let is_log2 = i.op.eq(op::LOG2);
    let total = cat(&[i.ea, m.lit(0, 56)]).sext(66) + i.r.smul_full(i.p).sext(66);
    let total_neg = total.bit(65);
    let log2_mag = total_neg.mux(-total, total).bits(63, 0);
    let clamped = i.p.bit(34).mux(0, i.p).bits(33, 0);
    let poly_mag = cat(&[m.lit(0, 6), clamped, m.lit(0, 24)]);
    Unpacked {
        special: i.special,
        special_val: i.special_val,
        sign: is_log2.mux(total_neg, i.op.bit(1) & i.neg),
        ea: i.op.eq(op::EXP2).mux(i.ea, m.lit(0, 9)),
        mag: is_log2.mux(log2_mag, poly_mag),
    }
}

/// Stage 7: normalise, round to nearest even, range, special cases.
#[name_lets]
fn pack(m: &mut Module, _: &(), i: Unpacked) -> Sig {
    let mut norm = i.mag;
    let mut lz_bits = Vec::new();
    for k in [32, 16, 8, 4, 2, 1] {
        let top_zero = !norm.bits(63, 64 - k).any();
        norm = top_zero.mux(norm << k, norm);
        lz_bits.push(top_zero);
    }
    let lz = cat(&lz_bits);
    let exp = m.lit(134, 11) + i.ea.sext(11) - lz.zext(11);
    let mant = norm.bits(63, 40).zext(25);
    let round_up = norm.bit(39) & (norm.bits(38, 0).any() | norm.bit(40));
    let rounded = mant + round_up.zext(25);
    let exp_final = exp + rounded.bit(24).zext(11);
    let sign_zero = cat(&[i.sign, m.lit(0, 31)]);
    let normal = cat(&[i.sign, exp_final.bits(7, 0), rounded.bits(22, 0)]);
    let infinite = cat(&[i.sign, m.lit(0xFF, 8), m.lit(0, 23)]);
    let packed = exp_final.sge(255).mux(infinite, normal);
    let ranged = (i.mag.eq(0) | exp_final.sle(0)).mux(sign_zero, packed);
    i.special.mux(i.special_val, ranged)
}

/// [`fp_transc`] behind a stream: requests `FpReq` with `a` and a 2-bit `op`, responses
/// `FpResp` with the result and the request's tag.
///
/// * **Protocol:** stream rules on both sides; responses in request order, nothing dropped;
///   back-pressure holds the whole pipeline; the output is a skid buffer (irrevocable).
/// * **Timing:** latency [`LATENCY`] = 8, initiation interval 1; `req.ready` comes from
///   registers only.
/// * **Cost:** see [`fp_transc_top`].
/// * **Errors:** `req` without an `op` field is treated as op 0 (exp2).
#[name_lets]
pub fn fp_transc_stream(m: &mut Module, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "transc", req, |m, st, r| {
        let op = r.op.unwrap_or_else(|| m.lit(op::EXP2, 2));
        let result = fp_transc(m, st, TranscIn { op, a: r.a });
        let tag = st.delay(m, "tag", r.tag, st.count());
        FpResp { r: result, tag }
    })
}

/// Stand-alone `fp_transc`: input stream `req` (`a`, `op` 2 bits, `tag`), output stream
/// `resp` (`r`, `tag`).
///
/// * **Ports:** `req_valid/ready`, `req_a` (32), `req_op` (2: 0 exp2, 1 log2, 2 sin, 3 cos),
///   `req_tag` (`tag_width`); `resp_valid/ready`, `resp_r` (32), `resp_tag`.
/// * **Timing:** latency [`LATENCY`] = 8, initiation interval 1.
/// * **Parameters:** [`FpCfg::tag_width`] 1..=64, default 8.
/// * **Cost:** `rendergen synth fp_transc` (Yosys generic, flattened, default `tag_width` 8):
///   30,188 cells, 1,191 flip-flops, no RAM, 55 gate levels on the longest path. The RTL
///   declares 955 register bits (stages 817, tag delay 56, skid buffer 82), which is what the
///   unflattened run counts. The flattened netlist's extra flops are named after the
///   `lookup` tables' ROMs: Yosys apparently moves the `coefs` stage register into the ROMs'
///   read ports, ahead of the per-op multiplexer, one copy per table. By module
///   (`rendergen synth fp_transc --per-module`): `post` 7,854 cells (log2's 25 × 35-bit
///   multiplier, the 66-bit sum and its negation), `reduce` 6,464 (the 24 × 56-bit reduction
///   multiplier), `lookup` 3,462 (the 289 table rows as logic), `decode` 2,076 (the window
///   table, exp2's shifter), `pack` 846, and the top's own 9,356 (the Horner multipliers,
///   20 × 25 and 29 × 25 bits, and the stage registers). The 32-bit special result rides
///   through six stages (192 flops) rather than being re-derived at the end.
/// * **Errors:** elaboration rejects `tag_width` outside 1..=64.
///
/// ```
/// use rendergen_rtl::fp::{transc::fp_transc_top, FpCfg};
/// let design = fp_transc_top(&FpCfg::default()).unwrap();
/// assert_eq!(design.top().name, "fp_transc");
/// assert!(fp_transc_top(&FpCfg { tag_width: 0 }).is_err());
/// ```
#[name_lets]
pub fn fp_transc_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_transc", cfg, (1, 2), fp_transc_stream)
}
