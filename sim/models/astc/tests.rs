//! Model-level tests that need no external tool: hand-built blocks with values worked out from
//! the spec, single-texel versus whole-block agreement, and the work counters.
//! (Bit-exactness against astcenc is tested in `testbenches/astc_model`.)

use super::*;

fn set(block: &mut u128, start: u32, count: u32, value: u32) {
    let mask = ((1u128 << count) - 1) << start;
    *block = (*block & !mask) | (((value as u128) << start) & mask);
}

/// 4x4 block, 4x4 grid of 3-bit weights (weight i = i % 8), one partition, CEM 8 with 8-bit values.
fn rgb_direct_block() -> [u8; 16] {
    let mut b = 0u128;
    set(&mut b, 0, 11, (2 << 5) | (1 << 4) | 3);
    set(&mut b, 13, 4, 8);
    for (i, v) in [10, 200, 20, 100, 30, 50].into_iter().enumerate() {
        set(&mut b, 17 + 8 * i as u32, 8, v);
    }
    for i in 0..16u32 {
        for j in 0..3 {
            let bit = ((i % 8) >> j) & 1;
            set(&mut b, 127 - (3 * i + j), 1, bit);
        }
    }
    b.to_le_bytes()
}

#[test]
fn hand_built_rgb_direct() {
    let fp = Footprint::parse("4x4").unwrap();
    let block = rgb_direct_block();
    let (e0, e1) = ([10, 20, 30, 255], [200, 100, 50, 255]);
    for y in 0..4 {
        for x in 0..4 {
            let raw = (x + 4 * y) % 8;
            let w6 = (raw << 3) | raw;
            let w = if w6 > 32 { w6 + 1 } else { w6 };
            let want: [u16; 4] = std::array::from_fn(|c| {
                ((e0[c] * 257 * (64 - w) + e1[c] * 257 * w + 32) >> 6) as u16
            });
            let t = decode_texel(&block, fp, Profile::LdrLinear, x, y);
            assert_eq!(t.rgba, want, "texel ({x},{y})");
            assert!(!t.error);
        }
    }
    let info = BlockInfo::parse(block_bits(&block), fp);
    let BlockKind::Normal(l) = info else {
        panic!("{info:?}")
    };
    assert_eq!(
        (l.partitions, l.cem(0), l.colour_quant.levels()),
        (1, 8, 256)
    );
}

#[test]
fn void_extent_and_error() {
    let fp = Footprint::parse("8x8").unwrap();
    let mut b = u128::MAX;
    set(&mut b, 0, 10, 0x1FC);
    set(&mut b, 64, 16, 0x1234);
    set(&mut b, 80, 16, 0);
    let t = decode_texel(&b.to_le_bytes(), fp, Profile::LdrLinear, 3, 5);
    assert_eq!(t.rgba, [0x1234, 0, 0xFFFF, 0xFFFF]);
    set(&mut b, 10, 1, 0); // reserved bit cleared
    let t = decode_texel(&b.to_le_bytes(), fp, Profile::LdrSrgb, 0, 0);
    assert!(t.error);
    assert_eq!(t.to_rgba8(), [255, 0, 255, 255]);
    assert_eq!(
        decode_texel(&[0; 16], fp, Profile::Hdr, 0, 0).to_fp16(),
        [0xFFFF; 4]
    );
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn single_texel_matches_whole_block_and_does_less_work() {
    let mut s = 7u64;
    let mut legal = 0;
    for fp in Footprint::ALL {
        for _ in 0..300 {
            let mut b = ((splitmix(&mut s) as u128) << 64) | splitmix(&mut s) as u128;
            set(&mut b, 0, 2, 1 + (splitmix(&mut s) % 3) as u32); // avoid most reserved modes
            let block = b.to_le_bytes();
            for profile in Profile::ALL {
                let (all, block_work) = decode_block_traced(&block, fp, profile);
                for y in 0..fp.h() {
                    for x in 0..fp.w() {
                        let (t, work) = decode_texel_traced(&block, fp, profile, x, y);
                        assert_eq!(
                            t,
                            all[(x + y * fp.w()) as usize],
                            "{fp} {profile} {b:032X} ({x},{y})"
                        );
                        assert!(work.endpoint_pairs <= 1 && work.colour_values <= 8);
                        let planes = if let BlockKind::Normal(l) = BlockInfo::parse(b, fp) {
                            if l.mode.dual_plane {
                                2
                            } else {
                                1
                            }
                        } else {
                            1
                        };
                        assert!(work.grid_weights <= 4 * planes);
                        assert!(work.grid_weights <= block_work.grid_weights);
                    }
                }
                legal += (block_work.endpoint_pairs > 0) as u32;
            }
        }
    }
    assert!(legal > 1000, "only {legal} legal blocks");
}

#[test]
fn block_info_summary() {
    let fp = Footprint::parse("4x4").unwrap();
    let info = BlockInfo::parse(block_bits(&rgb_direct_block()), fp);
    assert_eq!(
        info.to_string(),
        "grid 4x4 weights 0..7 partitions 1 cem [8] colour 0..255"
    );
    assert_eq!(
        BlockInfo::parse(0, fp).to_string(),
        "illegal (ReservedBlockMode)"
    );
}
