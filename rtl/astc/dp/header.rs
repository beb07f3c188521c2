//! Block header decode (ASTC spec C.2.9–C.2.11, C.2.24): block mode, void extent, partition
//! count and colour endpoint modes, colour range, and the checks that make a block illegal.
//!
//! Split in two pipeline steps: [`mode_fields`] needs only the low 29 bits and the footprint;
//! [`cem_fields`] also reads the bits just below the weights, whose position depends on the
//! weight sequence length.

use super::ise::{range_of, sequence_bits, sequence_bits_const};
use rendergen_hdl::{cat, index_select, lut, name_lets, or_all, priority_select, Module, Sig};

/// The block mode field (bits 10..0) decoded (spec table C.2.8).
#[derive(Clone, Copy, Debug)]
pub struct ModeFields {
    /// Weight grid width, 2..=12 (4 bits).
    pub grid_w: Sig,
    /// Weight grid height, 2..=12 (4 bits).
    pub grid_h: Sig,
    /// Two weight planes.
    pub dual: Sig,
    /// Weight range number 0..=11 (5 bits, for [`range_of`]).
    pub weight_quant: Sig,
    /// Length of the weight sequence in bits (10 bits; meaningful when `illegal` is 0).
    pub weight_bits: Sig,
    /// Reserved encoding, or a grid the footprint or the weight limits reject.
    pub illegal: Sig,
}

/// Decodes the block mode of `block` (≥ 13 bits used) for footprint `bw`×`bh` (4 bits each).
#[name_lets]
pub fn mode_fields(m: &mut Module, block: Sig, bw: Sig, bh: Sig) -> ModeFields {
    let mode = block.bits(10, 0);
    let bit = |i: u32| mode.bit(i);
    let a2 = mode.bits(6, 5).zext(4) + 2;
    let b = mode.bits(8, 7);
    let mut k = |v: u64| m.lit(v, 4);
    let (k2, k6, k10, k12) = (k(2), k(6), k(10), k(12));
    // Rows 1-5 (bits 1..0 non-zero): R = {bit1, bit0, bit4}.
    let wide = mode.bits(1, 0).ne(0);
    let r_wide = cat(&[bit(1), bit(0), bit(4)]);
    let b4 = b.zext(4) + 4;
    let b8 = b.zext(4) + 8;
    let row4_w = bit(8).mux(bit(7).zext(4) + k2, a2);
    let row4_h = bit(8).mux(a2, bit(7).zext(4) + k6);
    let sel = mode.bits(3, 2);
    let w1 = index_select(sel, &[b4, b8, a2, row4_w]);
    let h1 = index_select(sel, &[a2, a2, b8, row4_h]);
    // Rows 6-10 (bits 1..0 zero): R = {bit3, bit2, bit4}; R2 = R1 = 0 is reserved.
    let r_narrow = cat(&[bit(3), bit(2), bit(4)]);
    let a = mode.bits(6, 5);
    let a6 = a.zext(4) + 6;
    let d6 = mode.bits(10, 9).zext(4) + 6;
    let w2 = index_select(b, &[k12, a2, a6, a.bit(0).mux(k10, k6)]);
    let h2 = index_select(b, &[a2, k12, d6, a.bit(0).mux(k6, k10)]);
    let narrow_reserved = bit(3).eq(0) & bit(2).eq(0) | b.eq(3) & a.bit(1);
    let wide_grid_row = !wide & b.eq(2); // D = H = 0 in that row
    let grid_w = wide.mux(w1, w2).named("grid_w");
    let grid_h = wide.mux(h1, h2).named("grid_h");
    let dual = (bit(10) & !wide_grid_row).named("dual");
    let high = bit(9) & !wide_grid_row;
    let r = wide.mux(r_wide, r_narrow);
    let weight_quant = (r.zext(5) - 2 + high.mux(m.lit(6, 5), m.lit(0, 5))).named("weight_quant");
    // Weight count and sequence length.
    let cells = grid_w.mul_full(grid_h); // 8 bits
    let count = dual.mux(cells.zext(9) << 1, cells.zext(9));
    let wr = range_of(weight_quant);
    let weight_bits = sequence_bits(m, &wr, count.resize(7), 10).named("weight_bits");
    let illegal = (!wide & narrow_reserved)
        | count.gt(64)
        | weight_bits.gt(96)
        | weight_bits.lt(24)
        | grid_w.gt(bw)
        | grid_h.gt(bh);
    ModeFields {
        grid_w,
        grid_h,
        dual,
        weight_quant,
        weight_bits,
        illegal: illegal.named("mode_illegal"),
    }
}

/// Void-extent detection (bits 8..0 = 0x1FC) and its legality checks.
#[derive(Clone, Copy, Debug)]
pub struct VoidExtent {
    /// The block is a void-extent block (legal or not).
    pub is_void: Sig,
    /// Its reserved bits or extent coordinates are illegal.
    pub illegal: Sig,
    /// The colour is FP16 (bit 9), else UNORM16.
    pub hdr: Sig,
}

/// Decodes the void-extent marker and checks of `block` (128 bits).
#[name_lets]
pub fn void_extent(block: Sig) -> VoidExtent {
    let is_void = block.bits(8, 0).eq(0x1FC);
    let c = |i: u32| block.slice(12 + 13 * i, 13);
    let all_ones = block.bits(63, 12).all();
    let bad_coords = !all_ones & (c(0).ge(c(1)) | c(2).ge(c(3)));
    VoidExtent {
        is_void: is_void.named("is_void"),
        illegal: block.bits(11, 10).ne(3) | bad_coords,
        hdr: block.bit(9),
    }
}

/// Partition and colour-endpoint fields of a normal block.
#[derive(Clone, Copy, Debug)]
pub struct CemFields {
    /// Partition count minus one (2 bits).
    pub parts_m1: Sig,
    /// CEM of each partition (4 × 4 bits; entries ≥ the count are don't-care).
    pub cem: [Sig; 4],
    /// First colour value of each partition (4 × 5 bits).
    pub offset: [Sig; 4],
    /// Colour component selector for dual plane (2 bits).
    pub ccs: Sig,
    /// Colour range number 4..=20 (5 bits).
    pub colour_quant: Sig,
    /// Length of the colour sequence in bits (7 bits).
    pub colour_bits: Sig,
    /// Too many colour values, or too few bits for the smallest colour range.
    pub illegal: Sig,
}

/// Decodes partition count, CEMs, CCS and the colour range of `block` whose weight sequence is
/// `weight_bits` long (10 bits) with `dual` planes.
#[name_lets]
pub fn cem_fields(m: &mut Module, block: Sig, weight_bits: Sig, dual: Sig) -> CemFields {
    let parts_m1 = block.bits(12, 11);
    let single = parts_m1.eq(0);
    let selector = block.bits(24, 23);
    let shared = single | selector.eq(0);
    // The 10 bits just below the weights, bit 9 the highest.
    let below = block.shr(m.lit(118, 10) - weight_bits).resize(10);
    let extra_len = shared.mux(m.lit(0, 4), lut(parts_m1, &[0, 2, 5, 8], 4));
    let extra = below.shr(m.lit(10, 4) - extra_len).resize(8);
    let ccs = below.shr(m.lit(8, 4) - extra_len).resize(2);
    let field = cat(&[extra, block.bits(28, 23)]); // 14 bits
    let m_bits = field.shr(parts_m1.zext(4) + 3);
    let shared_cem = single.mux(block.bits(16, 13), block.bits(28, 25));
    let mut cem = [shared_cem; 4];
    let mut class = [shared_cem.bits(3, 2); 4];
    for p in 0..4 {
        let c = selector - 1 + field.bit(2 + p as u32).zext(2);
        let own = cat(&[c, m_bits.slice(2 * p as u32, 2)]);
        cem[p] = shared.mux(shared_cem, own);
        class[p] = cem[p].bits(3, 2);
    }
    // Values per partition: 2·(class + 1). Offsets are prefix sums; the total counts P terms.
    let pairs: Vec<Sig> = class.iter().map(|c| c.zext(6) + 1).collect();
    let zero = m.lit(0, 6);
    let offset = [
        zero,
        pairs[0] << 1,
        (pairs[0] + pairs[1]) << 1,
        (pairs[0] + pairs[1] + pairs[2]) << 1,
    ];
    let total = index_select(
        parts_m1,
        &[
            offset[1],
            offset[2],
            offset[3],
            (pairs[0] + pairs[1] + pairs[2] + pairs[3]) << 1,
        ],
    );
    // Bits left for colour: below the weights, the extra CEM bits and the CCS, above bit 17/29.
    let start = single.mux(m.lit(128 - 17, 11), m.lit(128 - 29, 11));
    let avail =
        start - weight_bits.zext(11) - extra_len.zext(11) - dual.mux(m.lit(2, 11), m.lit(0, 11));
    let negative = avail.msb();
    let index = total.bits(4, 1); // total / 2
    let mut choices = Vec::new();
    for q in (4..21).rev() {
        let table: Vec<u64> = (0..16)
            .map(|h| sequence_bits_const(q, 2 * h) as u64)
            .collect();
        let need = lut(index, &table, 8);
        let fits = !negative & avail.ge(need.zext(11));
        choices.push((fits, cat(&[m.lit(q as u64, 5), need.resize(7)])));
    }
    let chosen = priority_select(&choices, m.lit(0, 12));
    let fits_any = or_all(choices.iter().map(|c| c.0));
    CemFields {
        parts_m1,
        cem,
        offset: offset.map(|o| o.resize(5)),
        ccs,
        colour_quant: chosen.bits(11, 7).named("colour_quant"),
        colour_bits: chosen.bits(6, 0).named("colour_bits"),
        illegal: (total.gt(18) | !fits_any).named("cem_illegal"),
    }
}
