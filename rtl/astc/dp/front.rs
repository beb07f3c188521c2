//! Pipeline stages A and B: everything decided per block plus the texel's partition and
//! weight-grid position.

use super::header::{cem_fields, mode_fields, void_extent};
use super::types::DpReq;
use super::weights::infill;
use super::{partition, DpCfg};
use rendergen_hdl::{cat, index_select, name_lets, Bundle, Module, Sig};

/// Bits of the colour stream kept (the longest possible colour sequence, from bit 17).
pub const COLOUR_BITS: u32 = 87;
/// Bits of the weight stream kept (the longest legal weight sequence).
pub const WEIGHT_BITS: u32 = 96;

/// After stage A: block mode, void extent, partition hash and weight-grid position.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct StageA<T = Sig> {
    block: T,
    x: T,
    y: T,
    small: T,
    rnum: T,
    dual: T,
    weight_quant: T,
    weight_bits: T,
    index: [T; 4],
    factor: [T; 4],
    is_void: T,
    illegal: T,
    profile: Option<T>,
    tag: T,
}

/// Stage A: decodes the block mode and void extent of the request, hashes the partition seed
/// and finds the texel's four weight-grid corners and their factors.
#[name_lets]
pub fn stage_a(m: &mut Module, cfg: &DpCfg, req: &DpReq) -> StageA {
    let (bw, bh) = match cfg.footprint {
        Some(f) => (m.lit(f.w as u64, 4), m.lit(f.h as u64, 4)),
        None => (req.bw.expect("bw"), req.bh.expect("bh")),
    };
    let block = req.block;
    let mode = mode_fields(m, block, bw, bh);
    let void = void_extent(block);
    let parts_m1 = block.bits(12, 11);
    let illegal_normal = mode.illegal | parts_m1.eq(3) & mode.dual;
    let rnum = partition::hash(m, block.bits(22, 13), parts_m1);
    let small = bw.mul_full(bh).lt(31);
    let fill = infill(req.x, req.y, bw, bh, mode.grid_w, mode.grid_h);
    StageA {
        block,
        x: req.x,
        y: req.y,
        small,
        rnum,
        dual: mode.dual,
        weight_quant: mode.weight_quant,
        weight_bits: mode.weight_bits,
        index: fill.index,
        factor: fill.factor,
        is_void: void.is_void,
        illegal: void.is_void.mux(void.illegal, illegal_normal),
        profile: req.profile,
        tag: req.tag,
    }
}

/// After stage B: the two integer sequences, the ranges, the texel's partition's CEM and first
/// colour value, and the sequence indices of the needed weights.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct StageB<T = Sig> {
    pub(crate) colour: T,
    pub(crate) weights: T,
    pub(crate) void_rgba: T,
    pub(crate) void_hdr: T,
    pub(crate) colour_quant: T,
    pub(crate) colour_len: T,
    pub(crate) cem: T,
    pub(crate) offset: T,
    pub(crate) dual: T,
    pub(crate) ccs: T,
    pub(crate) weight_quant: T,
    pub(crate) weight_len: T,
    pub(crate) weight_index: [T; 8],
    pub(crate) factor: [T; 4],
    pub(crate) is_void: T,
    pub(crate) illegal: T,
    pub(crate) profile: Option<T>,
    pub(crate) tag: T,
}

/// Stage B: CEMs and colour range from the header, the texel's partition, the colour and
/// (bit-reversed) weight streams, and the sequence index of each corner weight per plane
/// (corner `c`, plane `pl` at `2c + pl`).
#[name_lets]
pub fn stage_b(m: &mut Module, a: &StageA) -> StageB {
    let block = a.block;
    let cem = cem_fields(m, block, a.weight_bits, a.dual);
    let p = partition::select(
        m,
        a.rnum,
        block.bits(22, 13),
        cem.parts_m1,
        a.x,
        a.y,
        a.small,
    );
    let single = cem.parts_m1.eq(0);
    let colour = single.mux(block >> 17, block >> 29).resize(COLOUR_BITS);
    let reversed: Vec<Sig> = (0..128).map(|i| block.bit(i)).collect();
    let weights = cat(&reversed).resize(WEIGHT_BITS);
    let weight_index: [Sig; 8] = std::array::from_fn(|k| {
        let i = a.index[k / 2];
        a.dual.mux(cat(&[i.resize(7), m.lit((k % 2) as u64, 1)]), i)
    });
    StageB {
        colour,
        weights,
        void_rgba: block.bits(127, 64),
        void_hdr: block.bit(9),
        colour_quant: cem.colour_quant,
        colour_len: cem.colour_bits,
        cem: index_select(p, &cem.cem),
        offset: index_select(p, &cem.offset),
        dual: a.dual,
        ccs: cem.ccs,
        weight_quant: a.weight_quant,
        weight_len: a.weight_bits.resize(7),
        weight_index,
        factor: a.factor,
        is_void: a.is_void,
        illegal: a.illegal | !a.is_void & cem.illegal,
        profile: a.profile,
        tag: a.tag,
    }
}
