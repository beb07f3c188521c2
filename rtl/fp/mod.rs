//! IEEE-754 binary32 arithmetic units (D6): the shader core's lanes and the PBRU's shading
//! pipelines are built from them.
//!
//! # Number conventions (every unit, and the golden model `rendergen_sim::models::fp32`)
//! * Round to nearest, ties to even.
//! * Denormals are flushed to zero **on input** (a subnormal operand is a zero of its sign)
//!   and **on output**: the result is the IEEE result of the flushed operands, rounded with
//!   gradual underflow; if that is subnormal it is replaced by the zero of its sign.
//! * One canonical NaN, [`CANONICAL_NAN`] = `0x7FC0_0000`: every NaN result is it, whatever
//!   the NaN operands were.
//! * Integer conversions are Rust's `as` casts: truncation toward zero, saturating at the
//!   integer range, NaN → 0.
//!
//! # Units
//! Each unit is a function `fn(m, &mut Stages, inputs) -> outputs` (cut into pipeline stages
//! with [`Stages::stage`], so a shader-core lane can embed it under its own enable) and a
//! stream wrapper taking [`FpReq`] and giving [`FpResp`] with a tag, one request per clock
//! ([`pipeline`]), with a `*_top` for the catalogue.
//! * [`fma`] — fused multiply-add, multiply, add, subtract;
//! * [`misc`] — min/max, compares, conversions, floor/ceil/trunc/fract/round, abs/neg;
//! * [`recip`] — reciprocal, reciprocal square root, square root;
//! * [`div`] — division, correctly rounded with IEEE subnormals (the one unit that does not
//!   flush: the geometry's perspective divide must equal the host's `f32` division);
//! * [`transc`] — exp2, log2, sine, cosine;
//! * [`pow`] — `x^y` as exp2(y·log2 x) from the units above;
//! * [`q16`] — Q16.16 ↔ binary32 conversions (the PBRU's shading pipelines, issue 11 §2);
//! * [`int_alu`] — the 32-bit integer ALU (add … mul low, shifts, logic, compares, min/max,
//!   `sel`; the operands are integers, the stream shapes are the units').

pub mod div;
pub mod fma;
pub mod int_alu;
pub mod misc;
pub mod pow;
pub mod q16;
pub mod recip;
pub mod transc;

pub use crate::stream::stages::{pipeline, Stages};
use rendergen_hdl::{name_lets, Bundle, Design, ElabErrors, Module, Sig, Stream};
use std::ops::RangeInclusive;

/// The canonical NaN every NaN result is.
pub const CANONICAL_NAN: u32 = 0x7FC0_0000;

/// Legal [`FpCfg::tag_width`].
pub const TAG_WIDTH: RangeInclusive<u64> = 1..=64;

/// Parameters shared by the stream wrappers of the units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FpCfg {
    /// Width of the tag carried from request to response, 1..=64. Default 8.
    pub tag_width: u32,
}

impl Default for FpCfg {
    fn default() -> Self {
        FpCfg { tag_width: 8 }
    }
}

/// A request to a unit: one to three binary32 operands, an operation select for units that do
/// more than one thing, and a tag.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpReq<T = Sig> {
    /// First operand (32 bits).
    pub a: T,
    /// Second operand (32 bits), for two- and three-operand units.
    pub b: Option<T>,
    /// Third operand (32 bits), for three-operand units.
    pub c: Option<T>,
    /// Operation select, for units with more than one operation (width per unit).
    pub op: Option<T>,
    /// Carried to the response unchanged.
    pub tag: T,
}

impl FpReq<u32> {
    /// The shape of a request with `operands` (1..=3) operands, an `op_bits`-bit select (0 for
    /// none) and the tag of `cfg`.
    #[name_lets]
    pub fn shape(cfg: &FpCfg, operands: u32, op_bits: u32) -> FpReq<u32> {
        FpReq {
            a: 32,
            b: (operands >= 2).then_some(32),
            c: (operands >= 3).then_some(32),
            op: (op_bits > 0).then_some(op_bits),
            tag: cfg.tag_width,
        }
    }
}

/// A unit's response: the 32-bit result and the request's tag.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpResp<T = Sig> {
    /// The result (binary32, or a 32-bit integer / 0-1 truth value, as the operation says).
    pub r: T,
    /// The request's tag.
    pub tag: T,
}

/// The stand-alone design of a unit (its catalogue entry): module `name` with input stream
/// `req` (`operands` operands and an `op_bits`-bit select, 0 for none, and the tag of `cfg`)
/// and output stream `resp` from `unit`; elaboration rejects a `tag_width` outside
/// [`TAG_WIDTH`].
pub fn unit_top(
    name: &str,
    cfg: &FpCfg,
    (operands, op_bits): (u32, u32),
    unit: impl FnOnce(&mut Module, Stream<FpReq>) -> Stream<FpResp>,
) -> Result<Design, ElabErrors> {
    Design::build_with_params(name, &format!("{cfg:?}"), |m| {
        if !m.check_param("tag_width", cfg.tag_width.into(), TAG_WIDTH) {
            return;
        }
        let req = m.input_stream::<FpReq>("req", &FpReq::shape(cfg, operands, op_bits));
        let resp = unit(m, req);
        m.output_stream("resp", resp);
    })
}
