//! The fused multiply-add unit `fp_fma` (D6, issue 12): `a·b + c`, `a·b`, `a + b`, `a − b` in
//! one datapath, correctly rounded (one rounding), under the conventions of [`super`].
//!
//! # Datapath
//! Multiply and add are one fused `a·b + c`: `mul` is `a·b + (−0)` and `add` is `a·1 + b`.
//! The 48-bit product `P` of the 24-bit significands sits in a 77-bit frame (bit 0 a sticky
//! bit, two guard bits, `P` at bits 3..51, two spare bits, and `c`'s significand at bits
//! 53..77 before alignment). `c` is shifted right by `ea + eb − 127 − ec + 27` (in parallel
//! with the multiply); bit 0 is the OR of the bits shifted below frame bit 1, found from `c`'s
//! trailing zeros beside the shifter. When `c` is so large that the shift is negative, the
//! product is at most a sticky bit below `c`: the frame is then `c`'s and the product becomes
//! bit 0. Either way the frame holds the exact sum up to a sticky bit that lies below the
//! round bit, so one add (or subtract, both ways), a leading-zero count, a left shift and a
//! round to nearest even give the correctly rounded result.
//!
//! Output flushing follows the IEEE result with gradual underflow: a result whose leading bit
//! is at 2^-127 rounds (on the 2^-149 grid) to 2^-126 exactly when its top 24 bits are all
//! ones, and is otherwise subnormal, hence ±0; anything smaller is ±0.

use super::{pipeline, FpCfg, FpReq, FpResp, Stages, CANONICAL_NAN};
use rendergen_hdl::{cat, name_lets, Bundle, Design, ElabErrors, HwEnum, Module, Sig, Stream};

/// Width of the `op` select.
pub const OP_BITS: u32 = 2;

/// Latency in cycles from a request transfer to its response being offered (no back-pressure):
/// five stage registers and the output skid buffer.
pub const LATENCY: u64 = 6;

/// Operation select of [`fp_fma`] (`req_op`).
///
/// | code | op    | result        |
/// |------|-------|---------------|
/// | 0    | `Fma` | `a·b + c`     |
/// | 1    | `Mul` | `a·b`         |
/// | 2    | `Add` | `a + b`       |
/// | 3    | `Sub` | `a − b`       |
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmaOp {
    /// `a·b + c`, one rounding.
    Fma,
    /// `a·b`.
    Mul,
    /// `a + b`.
    Add,
    /// `a − b`.
    Sub,
}

/// Width of the signed exponent arithmetic (biased exponents of the product and the frame,
/// −512..511).
const EXP_W: u32 = 11;
/// Width of the alignment frame (sticky, two guard bits, 48-bit product, two spare bits, `c`).
const FRAME_W: u32 = 77;
/// The 24×24 multiply is four 24×6 partial products in stage 1, summed in stage 2.
const PARTIALS: usize = 4;
/// Bits of `b`'s significand per partial product.
const PARTIAL_BITS: u32 = 6;
/// Width of the sum (the frame and a carry).
const SUM_W: u32 = FRAME_W + 1;

/// Stage 1 → 2: partial products, aligned `c`, signs, exponent, special result.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Aligned<T = Sig> {
    partials: [T; PARTIALS],
    c_frame: T,
    c_dominates: T,
    sub: T,
    sign_p: T,
    sign_c: T,
    base: T,
    special: T,
    special_r: T,
    tag: T,
}

/// Stage 2 → 3: the product in the frame.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Framed<T = Sig> {
    p_frame: T,
    c_frame: T,
    sub: T,
    sign_p: T,
    sign_c: T,
    base: T,
    special: T,
    special_r: T,
    tag: T,
}

/// Stage 3 → 4: magnitude and sign of the exact (up to sticky) sum.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Summed<T = Sig> {
    mag: T,
    sign: T,
    base: T,
    special: T,
    special_r: T,
    tag: T,
}

/// Stage 4 → 5: normalised significand with round and sticky bits, biased exponent.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Normalised<T = Sig> {
    mant: T,
    round: T,
    sticky: T,
    exp: T,
    zero: T,
    sign: T,
    special: T,
    special_r: T,
    tag: T,
}

/// A binary32 operand as the unit sees it (subnormals flushed).
pub struct Unpacked {
    /// Sign bit.
    pub sign: Sig,
    /// Biased exponent (8 bits; 0 for zero and flushed subnormals).
    pub exp: Sig,
    /// Significand with its leading one (24 bits; 0 for a zero).
    pub mant: Sig,
    /// Zero (or subnormal, flushed).
    pub zero: Sig,
    /// ±∞.
    pub inf: Sig,
    /// Any NaN.
    pub nan: Sig,
}

/// Splits a binary32 encoding into fields and classes, subnormals counting as zeros.
#[name_lets]
pub fn unpack(x: Sig) -> Unpacked {
    let exp = x.bits(30, 23);
    let frac = x.bits(22, 0);
    let zero = exp.eq(0);
    let ones = exp.all();
    let normal = !zero;
    Unpacked {
        sign: x.bit(31),
        exp,
        mant: zero.mux(0, cat(&[normal, frac])),
        zero,
        inf: ones & frac.eq(0),
        nan: ones & frac.ne(0),
    }
}

/// Leading zeros of `x` (`clog2` of the width rounded up to a power of two, in bits) by a
/// tree of halves; meaningless for `x == 0`.
#[name_lets]
pub fn leading_zeros(m: &mut Module, x: Sig) -> Sig {
    let w = x.width().next_power_of_two().max(2);
    let padded = match w - x.width() {
        0 => x,
        pad => cat(&[x, m.lit(0, pad)]),
    };
    lzc_tree(padded).1
}

/// (all zero, leading zeros) of a power-of-two-wide `x`.
fn lzc_tree(x: Sig) -> (Sig, Sig) {
    let w = x.width();
    if w == 2 {
        return (!x.any(), !x.bit(1));
    }
    let (hi_zero, hi_count) = lzc_tree(x.bits(w - 1, w / 2));
    let (lo_zero, lo_count) = lzc_tree(x.bits(w / 2 - 1, 0));
    let count = hi_zero.mux(cat(&[hi_zero, lo_count]), cat(&[hi_zero, hi_count]));
    (hi_zero & lo_zero, count)
}

/// An operand a unit needs: reports a missing one as an elaboration error (0 in its place).
pub(crate) fn operand(m: &mut Module, x: Option<Sig>, name: &str, width: u64) -> Sig {
    match x {
        Some(x) => x,
        None => {
            m.param_error(
                name,
                0,
                format!("a {width}-bit request field (it is missing)"),
            );
            m.lit(0, width as u32)
        }
    }
}

/// Stage 1: operation remap, classes, special results, product exponent, alignment of `c`,
/// and the four 24×6 partial products.
#[name_lets]
fn align(m: &mut Module, req: &FpReq) -> Aligned {
    let a = req.a;
    let b_in = operand(m, req.b, "req.b", 32);
    let c_in = operand(m, req.c, "req.c", 32);
    let op = operand(m, req.op, "req.op", OP_BITS as u64);
    // mul is a·b + (−0), add a·1 + b, sub a·1 + (−b).
    let is_mul = op.is(FmaOp::Mul);
    let is_sub = op.is(FmaOp::Sub);
    let add_like = op.is(FmaOp::Add) | is_sub;
    let one = m.lit(0x3F80_0000, 32);
    let neg_zero = m.lit(0x8000_0000, 32);
    let b_op = add_like.mux(one, b_in);
    let b_signed = b_in ^ cat(&[is_sub, m.lit(0, 31)]);
    let c_op = add_like.mux(b_signed, is_mul.mux(neg_zero, c_in));
    let (ua, ub, uc) = (unpack(a), unpack(b_op), unpack(c_op));

    let sign_p = ua.sign ^ ub.sign;
    let sign_c = uc.sign;
    let sub = sign_p ^ sign_c;
    let exp_sum = ua.exp.zext(EXP_W) + ub.exp.zext(EXP_W);
    let prod_exp = exp_sum - 127;
    // ea + eb − 127 − ec + 27, as two adds deep.
    let shift = exp_sum - (uc.exp.zext(EXP_W) + 100);
    let shift_neg = shift.slt(0);
    let c_dominates = shift_neg & !uc.zero;
    let shift_max = shift.sgt(127) | uc.zero;
    let shift_amount = shift_max.mux(127, shift_neg.mux(0, shift.bits(6, 0)));
    let base = c_dominates.mux(uc.exp.zext(EXP_W) - 76, prod_exp - 49);

    // c's significand at frame bits 53..77 (bits 52..76 of `c_top`, which starts at frame
    // bit 1), shifted right. Its bit i falls below frame bit 1 when i < shift − 52, so the
    // sticky bit is "trailing zeros + 52 < shift", found beside the shifter, not after it.
    let c_top = cat(&[uc.mant, m.lit(0, 52)]);
    let c_aligned = c_top.shr(shift_amount);
    let c_reversed = cat(&(0..24).map(|i| uc.mant.bit(i)).collect::<Vec<_>>());
    let c_trailing = leading_zeros(m, c_reversed);
    let c_sticky = !uc.zero & (c_trailing.zext(8) + 52).lt(shift_amount.zext(8));
    let c_frame = cat(&[c_aligned, c_sticky]);

    let partials = std::array::from_fn(|i| {
        let digit = ub.mant.slice(i as u32 * PARTIAL_BITS, PARTIAL_BITS);
        ua.mant.mul_full(digit)
    });

    let p_inf = ua.inf | ub.inf;
    let p_zero = ua.zero | ub.zero;
    let invalid = (ua.inf & ub.zero) | (ua.zero & ub.inf) | (p_inf & uc.inf & sub);
    let nan = ua.nan | ub.nan | uc.nan | invalid;
    let inf_bits = m.lit(0x7F80_0000, 31);
    let zero_sum = cat(&[sign_p & sign_c, m.lit(0, 31)]);
    let special_r = nan.mux(
        m.lit(CANONICAL_NAN as u64, 32),
        p_inf.mux(
            cat(&[sign_p, inf_bits]),
            uc.inf
                .mux(cat(&[sign_c, inf_bits]), uc.zero.mux(zero_sum, c_op)),
        ),
    );
    Aligned {
        partials,
        c_frame,
        c_dominates,
        sub,
        sign_p,
        sign_c,
        base,
        special: nan | p_inf | uc.inf | p_zero,
        special_r,
        tag: req.tag,
    }
}

/// Stage 2: the product from its partial products, placed in the frame (or reduced to a
/// sticky bit when `c` dominates).
#[name_lets]
fn frame(m: &mut Module, s: &Aligned) -> Framed {
    let [p0, p1, p2, p3] = s.partials.map(|p| p.zext(48));
    let product =
        (p0 + (p1 << PARTIAL_BITS)) + ((p2 << (2 * PARTIAL_BITS)) + (p3 << (3 * PARTIAL_BITS)));
    let p_placed = cat(&[product, m.lit(0, 3)]).zext(FRAME_W);
    let p_sticky = product.any().zext(FRAME_W);
    Framed {
        p_frame: s.c_dominates.mux(p_sticky, p_placed),
        c_frame: s.c_frame,
        sub: s.sub,
        sign_p: s.sign_p,
        sign_c: s.sign_c,
        base: s.base,
        special: s.special,
        special_r: s.special_r,
        tag: s.tag,
    }
}

/// Stage 3: effective addition or subtraction, negated when `c` was the larger.
#[name_lets]
fn sum(s: &Framed) -> Summed {
    let w = SUM_W + 1;
    let x = s.p_frame.zext(w);
    let y = s.c_frame.zext(w);
    // Sum, difference and reverse difference side by side: one carry chain deep.
    let total = x + y;
    let difference = x - y;
    let reverse = y - x;
    let negative = s.sub & difference.msb();
    let mag = s
        .sub
        .mux(negative.mux(reverse, difference), total)
        .bits(SUM_W - 1, 0);
    Summed {
        mag,
        sign: negative.mux(s.sign_c, s.sign_p),
        base: s.base,
        special: s.special,
        special_r: s.special_r,
        tag: s.tag,
    }
}

/// Stage 4: leading-zero count and normalising shift.
#[name_lets]
fn normalise(m: &mut Module, s: &Summed) -> Normalised {
    let zeros = leading_zeros(m, s.mag);
    let shifted = s.mag.shl(zeros);
    let exp = s.base + (SUM_W - 1) - zeros.zext(EXP_W);
    Normalised {
        mant: shifted.bits(SUM_W - 1, SUM_W - 24),
        round: shifted.bit(SUM_W - 25),
        sticky: shifted.bits(SUM_W - 26, 0).any(),
        exp,
        zero: s.mag.eq(0),
        sign: s.sign,
        special: s.special,
        special_r: s.special_r,
        tag: s.tag,
    }
}

/// Stage 5: round to nearest even, overflow to ∞, the flush rule, special results.
#[name_lets]
fn round(m: &mut Module, s: &Normalised) -> FpResp {
    let up = s.round & (s.sticky | s.mant.bit(0));
    let rounded = s.mant.add_full(up);
    let carry = rounded.bit(24);
    let exp = s.exp + carry.zext(EXP_W);
    let overflow = exp.sge(255);
    let below_normal = s.exp.slt(1);
    let to_min_normal = s.exp.eq(0) & s.mant.all();
    let signed_zero = cat(&[s.sign, m.lit(0, 31)]);
    let min_normal = cat(&[s.sign, m.lit(0x0080_0000, 31)]);
    let infinity = cat(&[s.sign, m.lit(0x7F80_0000, 31)]);
    let normal = cat(&[s.sign, exp.bits(7, 0), rounded.bits(22, 0)]);
    let finite = below_normal.mux(to_min_normal.mux(min_normal, signed_zero), normal);
    let r = s.special.mux(
        s.special_r,
        s.zero.mux(m.lit(0, 32), overflow.mux(infinity, finite)),
    );
    FpResp { r, tag: s.tag }
}

/// The FMA datapath cut into five stages of `st`: `req.a`, `req.b`, `req.c` (binary32),
/// `req.op` ([`FmaOp`], 2 bits) and `req.tag` (any width, carried) in; the result and the tag
/// five stage registers later. For embedding in a pipeline with its own enable (a shader-core
/// lane); [`fp_fma`] is the stand-alone stream unit.
///
/// Stages: 1 remap, classes, exponents, alignment shift of `c`, four 24×6 partial products;
/// 2 product sum; 3 78-bit add or subtract (both directions side by side); 4 leading-zero count and normalising
/// shift; 5 rounding, packing, special values. Missing `b`, `c` or `op` fields are
/// elaboration errors.
#[name_lets]
pub fn fp_fma_stages(m: &mut Module, st: &mut Stages, req: FpReq) -> FpResp {
    // Each stage's logic is a child module (`align` … `round`); the stage registers live here.
    let s1 = m.child("align", &(), req, |m, _, r| align(m, &r));
    let s1 = st.stage(m, "align", &s1);
    let s2 = m.child("frame", &(), s1, |m, _, s| frame(m, &s));
    let s2 = st.stage(m, "frame", &s2);
    let s3 = m.child("sum", &(), s2, |_, _, s| sum(&s));
    let s3 = st.stage(m, "sum", &s3);
    let s4 = m.child("normalise", &(), s3, |m, _, s| normalise(m, &s));
    let s4 = st.stage(m, "norm", &s4);
    let s5 = m.child("round", &(), s4, |m, _, s| round(m, &s));
    st.stage(m, "round", &s5)
}

/// Fused multiply-add unit: `a·b + c`, `a·b`, `a + b` or `a − b` (by `op`, see [`FmaOp`]) of
/// binary32 operands, correctly rounded to nearest even, with the conventions of [`super`]
/// (subnormals flushed on input and output, canonical NaN) — D6, issue 12.
///
/// * **Ports:** `req` ([`FpReq`] with `a`, `b`, `c`, a 2-bit `op`, a `tag`), `resp`
///   ([`FpResp`]: `r`, `tag`). `c` is ignored by mul, add and sub.
/// * **Protocol:** stream rules on both sides ([`pipeline`]): responses in request order with
///   their tags, nothing dropped; back-pressure stalls the whole pipeline; the output is a skid
///   buffer (irrevocable).
/// * **Timing:** latency [`LATENCY`] = 6 (five stages, see [`fp_fma_stages`], and the skid
///   buffer), initiation interval 1. `req.ready` comes from registers only.
/// * **Parameters:** [`FpCfg::tag_width`] 1..=64 (8).
/// * **Cost:** `rendergen synth fp_fma` (Yosys generic `synth -flatten`, tag width 8,
///   measured): 8,303 cells, 769 flip-flops, 37 gate levels on the longest path (per stage,
///   synthesised alone: 34, 28, 24, 20, 22). One 24×24 multiplier (four 24×6 partial products
///   and their sum), a 76-bit alignment shifter with a trailing-zero sticky, a 79-bit adder
///   and two subtractors side by side, a 78-bit leading-zero count and normalising shift.
/// * **Accuracy:** correctly rounded (0 ulp): bit-exact with the model
///   `rendergen_sim::models::fp32::basic` on every test (`cargo test -p
///   rendergen-testbenches --test testbenches fp::fma`); the model is checked against an
///   exact computation on 10^6 operands per operation.
/// * **Errors:** elaboration fails if `req` lacks `b`, `c` or `op`, or widths differ.
///
/// ```
/// use rendergen_hdl::Design;
/// use rendergen_rtl::fp::{fma::{fp_fma, OP_BITS}, FpCfg, FpReq};
/// let cfg = FpCfg::default();
/// let design = Design::build("fma", |m| {
///     let req = m.input_stream::<FpReq>("req", &FpReq::shape(&cfg, 3, OP_BITS));
///     let resp = fp_fma(m, &cfg, req);
///     m.output_stream("resp", resp);
/// })
/// .unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "resp_r"));
/// ```
#[name_lets]
pub fn fp_fma(m: &mut Module, _cfg: &FpCfg, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "fma", req, fp_fma_stages)
}

/// Stand-alone [`fp_fma`] with input stream `req` and output stream `resp` (catalogue
/// `fp_fma`); elaboration rejects a `tag_width` outside [`TAG_WIDTH`](super::TAG_WIDTH).
#[name_lets]
pub fn fp_fma_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("fp_fma", cfg, (3, OP_BITS), |m, req| fp_fma(m, cfg, req))
}
