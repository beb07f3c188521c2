//! Block sweeps: the hand-built feature set and the random / structured-random sweep.

use super::compare::{check_blocks, SingleTexel};
use super::gen;
use super::rng::Rng;
use rendergen_sim::models::astc::{Footprint, Profile};
use std::collections::{BTreeSet, HashMap};

/// Blocks kept per feature label per footprint.
const PER_LABEL: usize = 12;
/// Random blocks per footprint.
pub const RANDOM_BLOCKS: usize = 100_000;
/// Structured-random blocks per footprint.
pub const STRUCTURED_BLOCKS: usize = 60_000;

/// The feature set of one footprint: explicit void-extent blocks plus structured candidates kept
/// while some label of theirs has fewer than `PER_LABEL` blocks. Returns blocks and labels.
pub fn feature_blocks(fp: Footprint) -> (Vec<[u8; 16]>, Vec<String>) {
    let mut rng = Rng::new(0xFEA7_0000 + fp.texels() as u64);
    let mut out = Vec::new();
    let mut names = Vec::new();
    for kind in 0..4 {
        for hdr in [false, true] {
            for nonfinite in [false, true] {
                for _ in 0..4 {
                    let b = gen::void_extent(&mut rng, hdr, kind, nonfinite);
                    names.push(format!(
                        "void kind {kind} hdr {hdr} {}",
                        gen::labels(b, fp).join(" ")
                    ));
                    out.push(b.to_le_bytes());
                }
            }
        }
    }
    let modes = gen::legal_modes(fp);
    let mut counts: HashMap<String, usize> = HashMap::new();
    for _ in 0..400_000 {
        let b = gen::structured(&mut rng, &modes);
        let labels = gen::labels(b, fp);
        if labels
            .iter()
            .any(|l| counts.get(l).copied().unwrap_or(0) < PER_LABEL)
        {
            for l in &labels {
                *counts.entry(l.clone()).or_default() += 1;
            }
            names.push(labels.join(" "));
            out.push(b.to_le_bytes());
        }
    }
    (out, names)
}

/// Hand-built feature blocks at every footprint and profile; also checks feature coverage.
pub fn features() {
    let mut seen = BTreeSet::new();
    for fp in Footprint::ALL {
        let (blocks, names) = feature_blocks(fp);
        for n in &names {
            seen.extend(n.split(' ').map(str::to_string));
        }
        for profile in Profile::ALL {
            check_blocks("features", fp, profile, &blocks, SingleTexel::All, &|i| {
                names[i].clone()
            });
        }
    }
    let missing: Vec<_> = gen::required_labels()
        .into_iter()
        .filter(|l| !seen.contains(l))
        .collect();
    assert!(
        missing.is_empty(),
        "feature blocks do not cover: {missing:?}"
    );
}

/// `RANDOM_BLOCKS` random and `STRUCTURED_BLOCKS` structured-random blocks per footprint under
/// `profile` (one astcenc run per footprint).
pub fn random(profile: Profile) {
    for fp in Footprint::ALL {
        let mut rng = Rng::new(0x5EED_0000 ^ ((fp.w() as u64) << 8 | fp.h() as u64));
        let modes = gen::legal_modes(fp);
        let mut blocks: Vec<[u8; 16]> = (0..RANDOM_BLOCKS)
            .map(|_| rng.next_u128().to_le_bytes())
            .collect();
        blocks.extend(
            (0..STRUCTURED_BLOCKS).map(|_| gen::structured(&mut rng, &modes).to_le_bytes()),
        );
        let label = |i: usize| {
            if i < RANDOM_BLOCKS {
                "random".to_string()
            } else {
                "structured".to_string()
            }
        };
        check_blocks(
            "random",
            fp,
            profile,
            &blocks,
            SingleTexel::Every(7),
            &label,
        );
    }
}
