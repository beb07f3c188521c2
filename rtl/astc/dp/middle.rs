//! Pipeline stages C, D and E: locate, extract and unquantise the texel's partition's colour
//! values (8) and its corner weights (4 per plane).

use super::endpoints;
use super::front::{StageB, COLOUR_BITS, WEIGHT_BITS};
use super::ise::{extract, locate, range_of, Loc};
use super::weights;
use rendergen_hdl::{name_lets, Bundle, Module, Sig};

/// Colour values read per texel (the most any endpoint mode needs).
pub const COLOUR_VALUES: usize = 8;

/// The shared fields carried through C, D, E.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct Carry<T = Sig> {
    pub(crate) cem: T,
    pub(crate) dual: T,
    pub(crate) ccs: T,
    pub(crate) factor: [T; 4],
    pub(crate) void_rgba: T,
    pub(crate) void_hdr: T,
    pub(crate) is_void: T,
    pub(crate) illegal: T,
    pub(crate) profile: Option<T>,
    pub(crate) tag: T,
}

impl Carry {
    fn of(b: &StageB) -> Carry {
        Carry {
            cem: b.cem,
            dual: b.dual,
            ccs: b.ccs,
            factor: b.factor,
            void_rgba: b.void_rgba,
            void_hdr: b.void_hdr,
            is_void: b.is_void,
            illegal: b.illegal,
            profile: b.profile,
            tag: b.tag,
        }
    }
}

/// After stage C: masked streams and the location of every needed value.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct StageC<T = Sig> {
    colour: T,
    weights: T,
    colour_quant: T,
    weight_quant: T,
    colour_base: [T; COLOUR_VALUES],
    colour_j: [T; COLOUR_VALUES],
    weight_base: [T; 8],
    weight_j: [T; 8],
    carry: Carry<T>,
}

/// Keeps the low `len` bits of `stream` (bits beyond a sequence read as zero).
#[name_lets]
fn keep_low(m: &mut Module, stream: Sig, len: Sig) -> Sig {
    let w = stream.width();
    let ones = m.constant(rendergen_hdl::Bits::from_u128(u128::MAX, w));
    stream & ones.shr(m.lit(w as u64, 8) - len.zext(8))
}

/// Stage C: masks both streams to their sequence lengths and locates the colour values
/// `offset..offset+8` and the eight corner weights.
#[name_lets]
pub fn stage_c(m: &mut Module, b: &StageB) -> StageC {
    let cr = range_of(b.colour_quant);
    let wr = range_of(b.weight_quant);
    let colour_locs: Vec<Loc> = (0..COLOUR_VALUES)
        .map(|k| locate(m, &cr, b.offset.zext(8) + k as u64, 8))
        .collect();
    let weight_locs: Vec<Loc> = b
        .weight_index
        .iter()
        .map(|&i| locate(m, &wr, i, 8))
        .collect();
    StageC {
        colour: keep_low(m, b.colour, b.colour_len),
        weights: keep_low(m, b.weights, b.weight_len),
        colour_quant: b.colour_quant,
        weight_quant: b.weight_quant,
        colour_base: std::array::from_fn(|k| colour_locs[k].base),
        colour_j: std::array::from_fn(|k| colour_locs[k].j),
        weight_base: std::array::from_fn(|k| weight_locs[k].base),
        weight_j: std::array::from_fn(|k| weight_locs[k].j),
        carry: Carry::of(b),
    }
}

/// After stage D or E: colour values and corner weights (raw in D, unquantised in E).
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct StageDE<T = Sig> {
    pub(crate) colour_quant: Option<T>,
    pub(crate) weight_quant: Option<T>,
    pub(crate) colour: [T; COLOUR_VALUES],
    pub(crate) weight: [T; 8],
    pub(crate) carry: Carry<T>,
}

/// Stage D: extracts the located values from the streams (colour 8 bits, weights 5 bits).
#[name_lets]
pub fn stage_d(m: &mut Module, c: &StageC) -> StageDE {
    let cr = range_of(c.colour_quant);
    let wr = range_of(c.weight_quant);
    let colour = std::array::from_fn(|k| {
        let loc = Loc {
            base: c.colour_base[k],
            j: c.colour_j[k],
        };
        extract(m, c.colour, &cr, &loc, 38, 8)
    });
    let weight = std::array::from_fn(|k| {
        let loc = Loc {
            base: c.weight_base[k],
            j: c.weight_j[k],
        };
        extract(m, c.weights, &wr, &loc, 23, 5)
    });
    let _ = (COLOUR_BITS, WEIGHT_BITS);
    StageDE {
        colour_quant: Some(c.colour_quant),
        weight_quant: Some(c.weight_quant),
        colour,
        weight,
        carry: c.carry,
    }
}

/// Stage E: unquantises the colour values (0..=255) and weights (0..=64).
#[name_lets]
pub fn stage_e(m: &mut Module, d: &StageDE) -> StageDE {
    let cr = range_of(d.colour_quant.expect("range after D"));
    let wr = range_of(d.weight_quant.expect("range after D"));
    StageDE {
        colour_quant: None,
        weight_quant: None,
        colour: d.colour.map(|v| endpoints::unquantize(m, &cr, v)),
        weight: d.weight.map(|v| weights::unquantize(m, &wr, v)),
        carry: d.carry,
    }
}
