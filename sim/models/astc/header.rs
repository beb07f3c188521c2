//! Block header decode: everything about a block except its texel values (spec C.2.9–C.2.11,
//! C.2.22–C.2.24). [`BlockInfo::parse`] is what the hardware's "header" stage computes.

use super::block_mode::{self, BlockMode};
use super::ise::{Quant, Stream};
use super::{bits, Footprint};
use std::fmt;

/// Why a block decodes to the error colour (spec C.2.24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// Block mode is one of the reserved encodings.
    ReservedBlockMode,
    /// 2D void-extent block whose reserved bits 10..11 are not both 1.
    VoidExtentReservedBits,
    /// Void-extent block with low coordinate ≥ high coordinate (and not all ones).
    VoidExtentCoordinates,
    /// More than 64 weights.
    TooManyWeights,
    /// Weight sequence longer than 96 bits.
    TooManyWeightBits,
    /// Weight sequence shorter than 24 bits.
    TooFewWeightBits,
    /// Weight grid wider or taller than the footprint.
    GridLargerThanBlock,
    /// Dual plane together with four partitions.
    DualPlaneFourPartitions,
    /// More than 18 colour endpoint values.
    TooManyColourValues,
    /// Not enough colour bits for range 0..5.
    TooFewColourBits,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Bit layout of a normal (not void-extent, not illegal) block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Weight grid size, weight range and dual-plane flag.
    pub mode: BlockMode,
    /// Number of partitions, 1..=4.
    pub partitions: u32,
    /// 10-bit partition index (0 for one partition).
    pub seed: u32,
    /// Colour endpoint mode of each partition (entries ≥ `partitions` are 0).
    pub cems: [u8; 4],
    /// Colour component selector (channel using plane 2), meaningful with dual plane.
    pub ccs: u32,
    /// First bit of the colour endpoint data.
    pub colour_start: u32,
    /// Range of the colour endpoint values.
    pub colour_quant: Quant,
    /// Number of colour endpoint values (2..=18).
    pub colour_values: u32,
    /// Bits of the weight sequence (at the top of the block, reversed).
    pub weight_bits: u32,
}

impl Layout {
    /// Colour endpoint mode of partition `p`.
    pub fn cem(&self, p: u32) -> u32 {
        self.cems[p as usize] as u32
    }

    /// Index of the first colour value of partition `p` in the colour sequence.
    pub fn colour_offset(&self, p: u32) -> u32 {
        (0..p).map(|i| values_of(self.cem(i))).sum()
    }

    /// The colour endpoint sequence.
    pub fn colour_stream(&self, block: u128) -> Stream {
        Stream::new(
            block,
            self.colour_start,
            self.colour_quant.sequence_bits(self.colour_values),
        )
    }

    /// The weight sequence (the block with its bits reversed, read from bit 0).
    pub fn weight_stream(&self, block: u128) -> Stream {
        Stream::new(block.reverse_bits(), 0, self.weight_bits)
    }
}

/// Number of colour values used by endpoint mode `cem` (2, 4, 6 or 8).
pub fn values_of(cem: u32) -> u32 {
    2 * ((cem >> 2) + 1)
}

/// True for the HDR endpoint modes 2, 3, 7, 11, 14, 15.
pub fn is_hdr_cem(cem: u32) -> bool {
    matches!(cem, 2 | 3 | 7 | 11 | 14 | 15)
}

/// What a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// Constant-colour block; `hdr` means FP16 colour (else UNORM16). RGBA from bits 64..127.
    VoidExtent {
        /// The colour is FP16 (block bit 9), else UNORM16.
        hdr: bool,
        /// R, G, B, A from block bits 64..79, 80..95, 96..111, 112..127.
        rgba: [u16; 4],
    },
    /// Illegal or reserved encoding: every texel is the error colour.
    Illegal(IllegalReason),
    /// A normal block.
    Normal(Layout),
}

/// Per-block summary, also used by the single-texel and whole-block decoders.
pub type BlockInfo = BlockKind;

impl BlockKind {
    /// Decodes the header of `block` (as from [`super::block_bits`]) for footprint `fp`.
    pub fn parse(block: u128, fp: Footprint) -> BlockKind {
        let mode = bits(block, 0, 11);
        if block_mode::is_void_extent(mode) {
            return parse_void_extent(block);
        }
        match parse_normal(block, mode, fp) {
            Ok(layout) => BlockKind::Normal(layout),
            Err(reason) => BlockKind::Illegal(reason),
        }
    }
}

fn parse_void_extent(block: u128) -> BlockKind {
    if bits(block, 10, 2) != 3 {
        return BlockKind::Illegal(IllegalReason::VoidExtentReservedBits);
    }
    let c = |i: u32| bits(block, 12 + 13 * i, 13);
    let all_ones = (0..4).all(|i| c(i) == 0x1FFF);
    if !all_ones && (c(0) >= c(1) || c(2) >= c(3)) {
        return BlockKind::Illegal(IllegalReason::VoidExtentCoordinates);
    }
    let rgba = [0, 1, 2, 3].map(|i| bits(block, 64 + 16 * i, 16) as u16);
    BlockKind::VoidExtent {
        hdr: bits(block, 9, 1) == 1,
        rgba,
    }
}

fn parse_normal(block: u128, mode: u32, fp: Footprint) -> Result<Layout, IllegalReason> {
    use IllegalReason::*;
    let bm = block_mode::decode(mode).ok_or(ReservedBlockMode)?;
    if bm.weight_count() > 64 {
        return Err(TooManyWeights);
    }
    let weight_bits = bm.weight_bits();
    if weight_bits > 96 {
        return Err(TooManyWeightBits);
    }
    if weight_bits < 24 {
        return Err(TooFewWeightBits);
    }
    if bm.grid_w > fp.w() || bm.grid_h > fp.h() {
        return Err(GridLargerThanBlock);
    }
    let partitions = bits(block, 11, 2) + 1;
    if partitions == 4 && bm.dual_plane {
        return Err(DualPlaneFourPartitions);
    }
    let mut cems = [0u8; 4];
    let (seed, colour_start, mut below_weights);
    below_weights = 128 - weight_bits;
    if partitions == 1 {
        seed = 0;
        colour_start = 17;
        cems[0] = bits(block, 13, 4) as u8;
    } else {
        seed = bits(block, 13, 10);
        colour_start = 29;
        let selector = bits(block, 23, 2);
        if selector == 0 {
            let cem = bits(block, 25, 4) as u8;
            cems[..partitions as usize].fill(cem);
        } else {
            // 6 bits at 23..28 plus 3P-4 extra bits just below the weights.
            let extra_len = 3 * partitions - 4;
            below_weights -= extra_len;
            let field = bits(block, 23, 6) | (bits(block, below_weights, extra_len) << 6);
            let class_bits = field >> 2;
            let m_bits = field >> (2 + partitions);
            for p in 0..partitions {
                let class = selector - 1 + ((class_bits >> p) & 1);
                let m = (m_bits >> (2 * p)) & 3;
                cems[p as usize] = ((class << 2) | m) as u8;
            }
        }
    }
    let mut ccs = 0;
    if bm.dual_plane {
        below_weights -= 2;
        ccs = bits(block, below_weights, 2);
    }
    let colour_values: u32 = cems[..partitions as usize]
        .iter()
        .map(|&c| values_of(c as u32))
        .sum();
    if colour_values > 18 {
        return Err(TooManyColourValues);
    }
    let colour_bits = below_weights as i32 - colour_start as i32;
    let colour_quant = (4..Quant::COUNT)
        .rev()
        .map(Quant::from_index)
        .find(|q| q.sequence_bits(colour_values) as i32 <= colour_bits)
        .ok_or(TooFewColourBits)?;
    Ok(Layout {
        mode: bm,
        partitions,
        seed,
        cems,
        ccs,
        colour_start,
        colour_quant,
        colour_values,
        weight_bits,
    })
}

/// One-line summary, e.g. `grid 6x5 weights 0..7 partitions 2 (seed 634) cem [12, 8] colour 0..23`.
impl fmt::Display for BlockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockKind::VoidExtent { hdr, rgba } => {
                let kind = if *hdr { "fp16" } else { "unorm16" };
                write!(
                    f,
                    "void-extent {kind} rgba {:04X} {:04X} {:04X} {:04X}",
                    rgba[0], rgba[1], rgba[2], rgba[3]
                )
            }
            BlockKind::Illegal(r) => write!(f, "illegal ({r})"),
            BlockKind::Normal(l) => {
                let m = &l.mode;
                write!(
                    f,
                    "grid {}x{} weights 0..{}",
                    m.grid_w,
                    m.grid_h,
                    m.weight_quant.levels() - 1
                )?;
                if m.dual_plane {
                    write!(f, " dual-plane ccs {}", l.ccs)?;
                }
                write!(f, " partitions {}", l.partitions)?;
                if l.partitions > 1 {
                    write!(f, " (seed {})", l.seed)?;
                }
                let cems = &l.cems[..l.partitions as usize];
                write!(f, " cem {cems:?} colour 0..{}", l.colour_quant.levels() - 1)
            }
        }
    }
}
