//! Block generators: pure random, structured random (legal block modes with random remaining
//! bits) and void-extent blocks, plus feature labels used to prove coverage.

use super::rng::Rng;
use rendergen_sim::models::astc::block_mode;
use rendergen_sim::models::astc::{BlockKind, Footprint};

/// Block modes (bits 10..0) that are legal for `fp` (grid fits, weight count and bits in range).
pub fn legal_modes(fp: Footprint) -> Vec<u32> {
    (0..2048u32)
        .filter(|&m| !block_mode::is_void_extent(m))
        .filter(|&m| {
            block_mode::decode(m).is_some_and(|b| {
                b.grid_w <= fp.w()
                    && b.grid_h <= fp.h()
                    && b.weight_count() <= 64
                    && (24..=96).contains(&b.weight_bits())
            })
        })
        .collect()
}

fn set_bits(block: u128, start: u32, count: u32, value: u128) -> u128 {
    let mask = ((1u128 << count) - 1) << start;
    (block & !mask) | ((value << start) & mask)
}

/// A structured random block: a legal block mode (mostly), random partition count, often a single
/// shared CEM, random everything else.
pub fn structured(rng: &mut Rng, modes: &[u32]) -> u128 {
    let mut b = rng.next_u128();
    if rng.below(16) != 0 {
        b = set_bits(
            b,
            0,
            11,
            modes[rng.below(modes.len() as u32) as usize] as u128,
        );
    }
    // Bias towards fewer colour values so more blocks have enough colour bits.
    let parts = [0, 0, 1, 1, 2, 3][rng.below(6) as usize];
    b = set_bits(b, 11, 2, parts);
    if parts > 0 && rng.below(2) == 0 {
        b = set_bits(b, 23, 2, 0); // one CEM for all partitions
    }
    b
}

/// A 2D void-extent block. `kind`: 0 all-ones extent, 1 valid extent, 2 bad extent,
/// 3 reserved bits wrong. HDR colours are finite unless `nonfinite`.
pub fn void_extent(rng: &mut Rng, hdr: bool, kind: u32, nonfinite: bool) -> u128 {
    let mut b = rng.next_u128();
    b = set_bits(b, 0, 9, 0x1FC);
    b = set_bits(b, 9, 1, hdr as u128);
    b = set_bits(b, 10, 2, if kind == 3 { rng.below(3) as u128 } else { 3 });
    let coords: [u32; 4] = match kind {
        0 | 3 => [0x1FFF; 4],
        1 => {
            let s0 = rng.below(0x1000);
            let t0 = rng.below(0x1000);
            [s0, s0 + 1 + rng.below(0xFFF), t0, t0 + 1 + rng.below(0xFFF)]
        }
        _ => {
            let s0 = rng.below(0x1FFF) + 1;
            [s0, rng.below(s0 + 1), rng.below(0x1000), rng.below(0x1000)]
        }
    };
    for (i, c) in coords.iter().enumerate() {
        b = set_bits(b, 12 + 13 * i as u32, 13, *c as u128);
    }
    if hdr && !nonfinite {
        for i in 0..4 {
            let h = rng.below(0x10000) as u128 & !(1 << 14); // exponent < 31
            b = set_bits(b, 64 + 16 * i, 16, h & 0x7FFF);
        }
    }
    b
}

/// Feature labels of a block for footprint `fp` (used to prove the hand-built set is complete).
pub fn labels(block: u128, fp: Footprint) -> Vec<String> {
    match BlockKind::parse(block, fp) {
        BlockKind::VoidExtent { hdr, rgba } => {
            let nonfinite = hdr && rgba.iter().any(|c| c & 0x7C00 == 0x7C00);
            vec![format!(
                "void-{}{}",
                if hdr { "hdr" } else { "ldr" },
                if nonfinite { "-nonfinite" } else { "" }
            )]
        }
        BlockKind::Illegal(r) => vec![format!("illegal-{r:?}")],
        BlockKind::Normal(l) => {
            let mut v = vec![
                format!("wq{}", l.mode.weight_quant.index()),
                format!("cq{}", l.colour_quant.index()),
                format!("parts{}", l.partitions),
            ];
            let cems = &l.cems[..l.partitions as usize];
            if cems.iter().any(|&c| c != cems[0]) {
                v.push(format!("mixed-cem-p{}", l.partitions));
            }
            for &c in cems {
                v.push(format!("cem{c}-p{}", l.partitions));
            }
            if l.mode.dual_plane {
                v.push(format!("dual-ccs{}", l.ccs));
            }
            v
        }
    }
}

/// Labels every footprint together must cover.
pub fn required_labels() -> Vec<String> {
    let mut v: Vec<String> = ["void-ldr", "void-hdr", "void-hdr-nonfinite"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for r in [
        "ReservedBlockMode",
        "VoidExtentReservedBits",
        "VoidExtentCoordinates",
        "TooManyWeights",
        "TooManyWeightBits",
        "TooFewWeightBits",
        "GridLargerThanBlock",
        "DualPlaneFourPartitions",
        "TooManyColourValues",
        "TooFewColourBits",
    ] {
        v.push(format!("illegal-{r}"));
    }
    v.extend((0..12).map(|i| format!("wq{i}")));
    v.extend((4..21).map(|i| format!("cq{i}")));
    v.extend((0..4).map(|i| format!("dual-ccs{i}")));
    v.extend((2..5).map(|p| format!("mixed-cem-p{p}")));
    for p in 1..=4u32 {
        for c in 0..16u32 {
            if p * 2 * ((c >> 2) + 1) <= 18 {
                v.push(format!("cem{c}-p{p}"));
            }
        }
    }
    v
}
