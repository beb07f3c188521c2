//! The integer ALU `int_alu` (issue 12 §1): the shader core's 32-bit integer operations —
//! add, sub, low 32 bits of the product, shifts, bitwise logic, compares, signed and unsigned
//! min/max and `sel` — fully pipelined, one operation per clock, beside the binary32 units of
//! [`super`] and with their request/response shapes ([`FpReq`] with `a`, `b`, `c`, a 5-bit
//! `op`; [`FpResp`]).
//!
//! # Datapath
//! Stage 1 computes every result except the product directly (an adder, a subtractor, one
//! equality and two less-than compares that min/max reuse, one barrel shifter per shift kind,
//! the bitwise operations) and selects it by `op`, plus the four partial products of the low 32
//! bits of `a · b` (`a` times each byte of `b`, each cut to the bits that reach the low 32);
//! stage 2 adds the partial products and picks the product for `Mul`.

use super::fma::operand;
use super::{pipeline, FpCfg, FpReq, FpResp, Stages};
use rendergen_hdl::{
    cat, name_lets, select, Bundle, Design, ElabErrors, HwEnum, Module, Sig, Stream,
};

/// Width of the `op` select.
pub const OP_BITS: u32 = 5;

/// Latency in cycles from a request transfer to its response being offered (no back-pressure):
/// two stage registers and the output skid buffer.
pub const LATENCY: u64 = 3;

/// Operation select of [`int_alu`] (`req_op`, 5 bits); `a`, `b`, `c` are 32-bit integers
/// (two's complement where the table says signed); codes 21..=31 give 0. Shift amounts are
/// `b & 31` (a shift by 32 is a shift by 0). Compares give 1 or 0.
///
/// | code | op     | result                                        |
/// |------|--------|-----------------------------------------------|
/// | 0    | `Add`  | a + b (wrapping)                              |
/// | 1    | `Sub`  | a − b (wrapping)                              |
/// | 2    | `Mul`  | low 32 bits of a · b (signed or unsigned)     |
/// | 3    | `Shl`  | a << (b & 31)                                 |
/// | 4    | `Shr`  | a >> (b & 31), logical                        |
/// | 5    | `Sar`  | a >> (b & 31), arithmetic (a signed)          |
/// | 6    | `And`  | a & b                                         |
/// | 7    | `Or`   | a \| b                                        |
/// | 8    | `Xor`  | a ^ b                                         |
/// | 9    | `Not`  | !a                                            |
/// | 10   | `Eq`   | a == b                                        |
/// | 11   | `Ne`   | a != b                                        |
/// | 12   | `Slt`  | a < b, signed                                 |
/// | 13   | `Sle`  | a <= b, signed                                |
/// | 14   | `Ult`  | a < b, unsigned                               |
/// | 15   | `Ule`  | a <= b, unsigned                              |
/// | 16   | `Min`  | min(a, b), signed                             |
/// | 17   | `Max`  | max(a, b), signed                             |
/// | 18   | `Minu` | min(a, b), unsigned                           |
/// | 19   | `Maxu` | max(a, b), unsigned                           |
/// | 20   | `Sel`  | c ≠ 0 ? a : b                                 |
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `a + b`.
    Add,
    /// `a − b`.
    Sub,
    /// Low 32 bits of `a · b`.
    Mul,
    /// Shift left.
    Shl,
    /// Logical shift right.
    Shr,
    /// Arithmetic shift right.
    Sar,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Bitwise not of `a`.
    Not,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// Signed `a < b`.
    Slt,
    /// Signed `a <= b`.
    Sle,
    /// Unsigned `a < b`.
    Ult,
    /// Unsigned `a <= b`.
    Ule,
    /// Signed minimum.
    Min,
    /// Signed maximum.
    Max,
    /// Unsigned minimum.
    Minu,
    /// Unsigned maximum.
    Maxu,
    /// `c ≠ 0 ? a : b`.
    Sel,
}

/// Bits of `b` per partial product of the multiplier.
const DIGIT_BITS: u32 = 8;

/// Stage 1 → 2: every result but the product, and the product's partial products.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
struct Decoded<T = Sig> {
    direct: T,
    is_mul: T,
    partials: [T; 4],
    tag: T,
}

/// A 32-bit 1/0 from a 1-bit truth value.
fn truth(x: Sig) -> Sig {
    x.zext(32)
}

/// The partial products of the low 32 bits of `a · b`: `a` times byte `i` of `b`, kept to the
/// `32 − 8i` bits that land in the low word once shifted left by `8i`.
fn partial_products(a: Sig, b: Sig) -> [Sig; 4] {
    std::array::from_fn(|i| {
        let lo = i as u32 * DIGIT_BITS;
        let keep = 32 - lo;
        let digit = b.slice(lo, DIGIT_BITS);
        a.bits(keep - 1, 0).mul_full(digit).bits(keep - 1, 0)
    })
}

/// Stage 1: every result except the product, selected by `op`, and the partial products.
#[name_lets]
fn decode(m: &mut Module, req: &FpReq) -> Decoded {
    let (a, b) = (req.a, operand(m, req.b, "req.b", 32));
    let c = operand(m, req.c, "req.c", 32);
    let op = operand(m, req.op, "req.op", OP_BITS as u64);
    let amount = b.bits(4, 0);
    let eq = a.eq(b);
    let slt = a.slt(b);
    let ult = a.lt(b);
    let zero = m.lit(0, 32);
    let cases = [
        a + b,
        a - b,
        zero,
        a.shl(amount),
        a.shr(amount),
        a.sra(amount),
        a & b,
        a | b,
        a ^ b,
        !a,
        truth(eq),
        truth(!eq),
        truth(slt),
        truth(slt | eq),
        truth(ult),
        truth(ult | eq),
        slt.mux(a, b),
        slt.mux(b, a),
        ult.mux(a, b),
        ult.mux(b, a),
        c.ne(0).mux(a, b),
    ];
    Decoded {
        direct: select(op, &cases, zero),
        is_mul: op.is(IntOp::Mul),
        partials: partial_products(a, b),
        tag: req.tag,
    }
}

/// Stage 2: the product from its partial products, and the result.
#[name_lets]
fn finish(m: &mut Module, s: &Decoded) -> FpResp {
    let [p0, p1, p2, p3] = s.partials;
    let place = |m: &mut Module, p: Sig, i: u32| match i {
        0 => p,
        _ => cat(&[p, m.lit(0, i * DIGIT_BITS)]),
    };
    let (q1, q2, q3) = (place(m, p1, 1), place(m, p2, 2), place(m, p3, 3));
    let product = (p0 + q1) + (q2 + q3);
    FpResp {
        r: s.is_mul.mux(product, s.direct),
        tag: s.tag,
    }
}

/// The integer ALU cut into two stages of `st`: `req.a`, `req.b`, `req.c`, `req.op`
/// ([`IntOp`], 5 bits) and `req.tag` (any width, carried) in; the result and the tag two stage
/// registers later (for a pipeline with its own enable; [`int_alu`] is the stream unit).
/// Stages: 1 every result but the product, and the partial products; 2 the product's sum and
/// the selection. Missing `b`, `c` or `op` fields are elaboration errors.
#[name_lets]
pub fn int_alu_stages(m: &mut Module, st: &mut Stages, req: FpReq) -> FpResp {
    // Each stage's logic is a child module; the stage registers live here.
    let s1 = m.child("decode", &(), req, |m, _, r| decode(m, &r));
    let s1 = st.stage(m, "decode", &s1);
    let s2 = m.child("finish", &(), s1, |m, _, s| finish(m, &s));
    st.stage(m, "finish", &s2)
}

/// Integer ALU: add, sub, mul (low 32), shl/shr/sar, and/or/xor/not, eq/ne/slt/sle/ult/ule,
/// signed and unsigned min/max, `sel` (by `op`, table at [`IntOp`]) on 32-bit integers —
/// issue 12 §1.
///
/// * **Ports:** `req` ([`FpReq`] with `a`, `b`, `c`, a 5-bit `op`, a `tag`), `resp`
///   ([`FpResp`]: `r`, `tag`); operations ignore the operands they do not use (`c` is for
///   `Sel` only).
/// * **Protocol:** stream rules on both sides ([`pipeline`]): responses in request order with
///   their tags, nothing dropped; back-pressure stalls the whole pipeline; skid-buffer output.
/// * **Timing:** latency [`LATENCY`] = 3 (two stages and the skid buffer), initiation
///   interval 1; `req.ready` from registers only.
/// * **Parameters:** [`FpCfg::tag_width`] 1..=64 (8).
/// * **Cost:** `rendergen synth int_alu` (Yosys generic `synth -flatten`, tag width 8,
///   measured): 5,514 cells, 245 flip-flops, 30 gate levels on the longest path (not broken
///   down per stage). Stage 1: an adder, a subtractor, equality and signed and unsigned
///   less-than compares (min/max reuse them), three 32-bit barrel shifters, four partial
///   products (32×8, 24×8, 16×8, 8×8 bits, each cut to the bits below 2^32) and a 21-way
///   select; stage 2: three 32-bit adders. Flops: stage 1 121 (result, 80 partial-product
///   bits, mul flag, tag), stage 2 40, two valid flags, the skid buffer.
/// * **Accuracy:** exact: bit-exact with the model `rendergen_sim::models::fp32::int` on
///   every test (`cargo test -p rendergen-testbenches --test testbenches fp::int_alu`).
/// * **Errors:** elaboration fails if `req` lacks `b`, `c` or `op`.
///
/// ```
/// use rendergen_hdl::Design;
/// use rendergen_rtl::fp::{int_alu::{int_alu, OP_BITS}, FpCfg, FpReq};
/// let cfg = FpCfg::default();
/// let design = Design::build("ialu", |m| {
///     let req = m.input_stream::<FpReq>("req", &FpReq::shape(&cfg, 3, OP_BITS));
///     let resp = int_alu(m, &cfg, req);
///     m.output_stream("resp", resp);
/// })
/// .unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "resp_r"));
/// ```
#[name_lets]
pub fn int_alu(m: &mut Module, _cfg: &FpCfg, req: Stream<FpReq>) -> Stream<FpResp> {
    pipeline(m, "ialu", req, int_alu_stages)
}

/// Stand-alone [`int_alu`] with input stream `req` and output stream `resp` (catalogue
/// `int_alu`); elaboration rejects a `tag_width` outside [`TAG_WIDTH`](super::TAG_WIDTH).
#[name_lets]
pub fn int_alu_top(cfg: &FpCfg) -> Result<Design, ElabErrors> {
    super::unit_top("int_alu", cfg, (3, OP_BITS), |m, req| int_alu(m, cfg, req))
}
