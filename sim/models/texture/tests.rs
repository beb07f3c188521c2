//! The texture model against direct definitions and f64 references; the collective-fetch
//! counts of the spec (§A.4, §A.7, §A.10).

use super::collective::*;
use super::*;
use crate::kit::Rng;
use std::collections::HashMap;

/// A texture whose texel at word `a` is a hash of `a` (distinct values, all channels busy).
pub fn test_memory(words: usize) -> Vec<u32> {
    (0..words as u32)
        .map(|a| a.wrapping_mul(0x9E37_79B9) ^ (a >> 3))
        .collect()
}

fn desc(log2_w: u32, log2_h: u32, tiled: bool, srgb: bool, wrap: [Wrap; 2]) -> TexDesc {
    TexDesc {
        base: 16,
        log2_w,
        log2_h,
        width: 1 << log2_w,
        height: 1 << log2_h,
        mips: log2_w.max(log2_h) + 1,
        srgb,
        tiled,
        wrap,
        border: 0xC0FF_EE42,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    }
}

#[test]
fn wrap_modes_follow_vulkan() {
    let m: Vec<u32> = (-9..=9).map(|i| wrap(i, 2, Wrap::Mirror)).collect();
    // size 4, i = −9 ..= 9: period 8, 0 1 2 3 3 2 1 0
    assert_eq!(m, [0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1]);
    let r: Vec<u32> = (-3..=5).map(|i| wrap(i, 2, Wrap::Repeat)).collect();
    assert_eq!(r, [1, 2, 3, 0, 1, 2, 3, 0, 1]);
    let c: Vec<u32> = (-2..=5).map(|i| wrap(i, 2, Wrap::Clamp)).collect();
    assert_eq!(c, [0, 0, 0, 1, 2, 3, 3, 3]);
    assert_eq!(wrap(5, 0, Wrap::Mirror), 0);
}

#[test]
fn tiled_and_linear_layouts_are_bijections_per_level() {
    for tiled in [false, true] {
        let d = desc(4, 2, tiled, false, [Wrap::Repeat; 2]);
        let mut seen = HashMap::new();
        for l in 0..d.mips {
            let (lw, lh) = d.level_log2(l);
            for y in 0..1 << lh {
                for x in 0..1 << lw {
                    let a = d.texel_addr(l, x, y);
                    assert!(a >= d.base && a < d.base + d.words(), "{a}");
                    assert!(seen.insert(a, (l, x, y)).is_none(), "address {a} twice");
                }
            }
        }
    }
    let d = desc(3, 3, true, false, [Wrap::Repeat; 2]);
    assert_eq!(d.texel_addr(0, 5, 1), 16 + 16 + 4 + 1); // tile 1, row 1, column 1
}

#[test]
fn coordinates_convert_with_floor_and_flush() {
    assert_eq!(coord_fixed(0.5f32.to_bits(), 2), 2 << 16);
    assert_eq!(coord_fixed((-0.25f32).to_bits(), 0), -(1 << 14));
    assert_eq!(coord_fixed(1e-40f32.to_bits(), 4), 0);
    assert_eq!(coord_fixed(f32::NAN.to_bits(), 4), 0);
    assert_eq!(coord_fixed(1e9f32.to_bits(), 4), i32::MAX);
    assert_eq!(coord_fixed((-1e9f32).to_bits(), 4), i32::MIN);
    // floor for negatives: −2^-20 in texels of a 1-texel axis is −1 in Q.16
    assert_eq!(coord_fixed((-(2f32.powi(-20))).to_bits(), 0), -1);
}

/// The integer filter against an f64 evaluation of the same formula: exact at zero fractions,
/// within 2 (bilinear) and 3 (trilinear) units of 2^-16 otherwise.
#[test]
fn filter_error_bound_against_f64() {
    let mut rng = Rng::new(0xF17);
    let (mut worst_bi, mut worst_tri) = (0f64, 0f64);
    for _ in 0..20_000 {
        let t: [[u32; 4]; 4] =
            std::array::from_fn(|_| std::array::from_fn(|_| rng.below(65536) as u32));
        let u: [[u32; 4]; 4] =
            std::array::from_fn(|_| std::array::from_fn(|_| rng.below(65536) as u32));
        let (fx, fy, d) = (
            rng.below(256) as u32,
            rng.below(256) as u32,
            rng.below(256) as u32,
        );
        let bil = |t: &[[u32; 4]; 4], c: usize| {
            let (a, b) = (fx as f64 / 256.0, fy as f64 / 256.0);
            t[0][c] as f64 * (1.0 - a) * (1.0 - b)
                + t[1][c] as f64 * a * (1.0 - b)
                + t[2][c] as f64 * (1.0 - a) * b
                + t[3][c] as f64 * a * b
        };
        let (i, j) = (bilinear(&t, fx, fy), bilinear(&u, fx, fy));
        for c in 0..4 {
            worst_bi = worst_bi.max((i[c] as f64 - bil(&t, c)).abs());
            let tri = bil(&t, c) + (bil(&u, c) - bil(&t, c)) * d as f64 / 256.0;
            worst_tri = worst_tri.max((lerp(i[c], j[c], d) as f64 - tri).abs());
        }
        assert_eq!(bilinear(&t, 0, 0), t[0], "exact at zero fraction");
        assert_eq!(lerp(i[0], j[0], 0), i[0]);
    }
    assert!(worst_bi < 2.0, "bilinear worst error {worst_bi}");
    assert!(worst_tri < 3.0, "trilinear worst error {worst_tri}");
}

/// λ against `log2(max(|∂(s,t)/∂x|, |∂(s,t)/∂y|))` in f64 from the same binary32 coordinates:
/// within 0.03 of a level wherever the footprint is at least one texel.
#[test]
fn lod_against_f64() {
    let mut rng = Rng::new(0x10D);
    let d = desc(8, 7, false, false, [Wrap::Repeat; 2]);
    let mut worst = 0f64;
    for _ in 0..20_000 {
        let base = [
            rng.below(1000) as f32 / 1000.0,
            rng.below(1000) as f32 / 1000.0,
        ];
        let scale = 2f32.powf(rng.below(1400) as f32 / 100.0 - 8.0) / 256.0;
        let ang = rng.below(628) as f32 / 100.0;
        let (dx, dy) = (
            [ang.cos() * scale, ang.sin() * scale * 0.7],
            [-ang.sin() * scale * 0.5, ang.cos() * scale],
        );
        let lanes = [(0., 0.), (1., 0.), (0., 1.), (1., 1.)];
        let mut r = Request::default();
        for (k, (a, b)) in lanes.iter().enumerate() {
            r.coords[2 * k] = (base[0] + a * dx[0] + b * dy[0]).to_bits();
            r.coords[2 * k + 1] = (base[1] + a * dx[1] + b * dy[1]).to_bits();
        }
        let c = |k: usize| {
            (
                f32::from_bits(r.coords[2 * k]) as f64 * 256.0,
                f32::from_bits(r.coords[2 * k + 1]) as f64 * 128.0,
            )
        };
        let len = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
        let rho = len(c(1), c(0)).max(len(c(2), c(0)));
        if rho < 1.0 {
            continue;
        }
        let err = (lod_q8(&d, &r) as f64 / 256.0 - rho.log2()).abs();
        worst = worst.max(err);
    }
    assert!(worst < 0.03, "worst LOD error {worst}");
}

#[test]
fn mip_selection_follows_vulkan() {
    let d = desc(4, 4, false, false, [Wrap::Repeat; 2]);
    let at = |lod: i32, mip: MipMode| {
        let r = Request {
            explicit_lod: true,
            lod,
            mip,
            ..Request::default()
        };
        select_levels(&d, &r)
    };
    assert_eq!(at(128, MipMode::Nearest), (0, 0, false));
    assert_eq!(at(129, MipMode::Nearest), (1, 0, false));
    assert_eq!(at(384, MipMode::Nearest), (1, 0, false));
    assert_eq!(at(385, MipMode::Nearest), (2, 0, false));
    assert_eq!(at(9000, MipMode::Nearest), (4, 0, false));
    assert_eq!(at(-5, MipMode::Linear), (0, 0, false));
    assert_eq!(at(256 + 64, MipMode::Linear), (1, 64, true));
    assert_eq!(at(512, MipMode::Linear), (2, 0, false));
    assert_eq!(at(4 * 256 + 3, MipMode::Linear), (4, 0, false));
    assert_eq!(at(700, MipMode::Base), (0, 0, false));
}

/// A filtered fetch at a texel centre equals the raw texel expanded, for every level, layout,
/// format and wrap mode: the bypass and the filter agree bit for bit (D8).
#[test]
fn filtered_at_centres_equals_raw() {
    let mem = test_memory(4096);
    let mut rng = Rng::new(0xCE);
    for (tiled, srgb) in [(false, false), (true, true), (true, false)] {
        for wrap in [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror] {
            let d = desc(5, 3, tiled, srgb, [wrap, wrap]);
            for l in 0..d.mips {
                let (lw, lh) = d.level_log2(l);
                let x = rng.below(1 << lw) as i64;
                let y = rng.below(1 << lh) as i64;
                let mut r = Request {
                    explicit_lod: true,
                    lod: (l as i32) << 8,
                    mip: MipMode::Nearest,
                    ..Request::default()
                };
                for k in 0..4 {
                    r.coords[2 * k] =
                        (((x + (k as i64 & 1)) as f32 + 0.5) / (1 << lw) as f32).to_bits();
                    r.coords[2 * k + 1] =
                        (((y + (k as i64 >> 1)) as f32 + 0.5) / (1 << lh) as f32).to_bits();
                }
                let (f, cf, _) = sample(&d, &mem, &r);
                let (raw, cr, _) = sample(
                    &d,
                    &mem,
                    &Request {
                        mode: Mode::Raw,
                        ..r
                    },
                );
                for k in 0..4 {
                    assert_eq!(
                        f.words[4 * k..4 * k + 4],
                        expand(raw.words[4 * k], srgb),
                        "level {l} lane {k}"
                    );
                }
                assert_eq!(
                    (cf.texel_reads, cf.filter_active, cf.filter_idle),
                    (4, 4, 0)
                );
                assert_eq!(
                    (cr.texel_reads, cr.filter_active, cr.filter_idle),
                    (16, 0, 4)
                );
            }
        }
    }
}

fn histogram(reads: &[TexelRef]) -> HashMap<u32, u32> {
    let mut h = HashMap::new();
    for t in reads {
        *h.entry(t.addr).or_insert(0) += 1;
    }
    h
}

/// Multiplicities of a histogram: (count → how many addresses).
fn multiplicities(h: &HashMap<u32, u32>) -> Vec<(u32, u32)> {
    let mut m: HashMap<u32, u32> = HashMap::new();
    for c in h.values() {
        *m.entry(*c).or_insert(0) += 1;
    }
    let mut v: Vec<_> = m.into_iter().collect();
    v.sort();
    v
}

fn run(d: &TexDesc, mem: &[u32], reqs: &[Request]) -> (Vec<Answer>, Counts, Vec<TexelRef>) {
    let mut counts = Counts::default();
    let mut reads = Vec::new();
    let answers = reqs
        .iter()
        .map(|r| {
            let (a, c, t) = sample(d, mem, r);
            counts += c;
            reads.extend(t);
            a
        })
        .collect();
    (answers, counts, reads)
}

/// T1–T4, T7, T9: the fetch and register-write counts of §A.4, §A.7, §A.10 (unit model).
#[test]
fn collective_counts_match_the_spec() {
    let d = desc(5, 5, false, false, [Wrap::Clamp; 2]);
    let mem = test_memory(2048);
    // (kernel, footprints, texel reads, unique, baseline, baseline multiplicities, writes all/sel/shared)
    type Case = (Kernel, u64, u64, usize, u64, Vec<(u32, u32)>, [u64; 3]);
    let cases: Vec<Case> = vec![
        (
            Kernel { w: 3, h: 3 },
            4,
            16,
            16,
            36,
            vec![(1, 4), (2, 8), (4, 4)],
            [64, 36, 16],
        ),
        (
            Kernel { w: 1, h: 7 },
            4,
            16,
            16,
            28,
            vec![(1, 4), (2, 12)],
            [64, 28, 16],
        ),
        (
            Kernel { w: 7, h: 1 },
            4,
            16,
            16,
            28,
            vec![(1, 4), (2, 12)],
            [64, 28, 16],
        ),
        (
            Kernel { w: 19, h: 1 },
            11,
            44,
            40,
            76,
            vec![(1, 4), (2, 36)],
            [160, 76, 40],
        ),
    ];
    for (kernel, fp, reads, unique, base, mult, writes) in cases {
        let methods: &[Method] = match kernel.w {
            19 => &[Method::IntCoords],
            _ => &[
                Method::GatherOffsets,
                Method::Shifted { nudge: 0 },
                Method::Shifted { nudge: 32 },
                Method::Shifted { nudge: -32 },
                Method::IntCoords,
            ],
        };
        let group = (12, 14);
        let (bans, bc, breads) = run(&d, &mem, &baseline_requests(&d, kernel, group, 0));
        assert_eq!(
            (bc.footprints, bc.texel_reads, bc.filter_active),
            (base, base, base),
            "{kernel:?}"
        );
        assert_eq!(
            multiplicities(&histogram(&breads)),
            mult,
            "{kernel:?} baseline"
        );
        for &method in methods {
            let reqs = collective_requests(&d, kernel, group, 0, method);
            let (ans, c, creads) = run(&d, &mem, &reqs);
            assert_eq!(
                (c.footprints, c.texel_reads, c.filter_active),
                (fp, reads, 0),
                "{kernel:?} {method:?}"
            );
            let h = histogram(&creads);
            assert_eq!(h.len(), unique, "{kernel:?} {method:?}");
            if kernel.w != 19 {
                assert!(
                    h.values().all(|&n| n == 1),
                    "each texel once: {kernel:?} {method:?}"
                );
            }
            let raw: Vec<_> = ans
                .iter()
                .map(|a| (a.patch, a.subop, a.mask, a.words))
                .collect();
            for (i, mode) in [Broadcast::All, Broadcast::Selective, Broadcast::Shared]
                .into_iter()
                .enumerate()
            {
                let b = broadcast(kernel, &raw, mode);
                assert_eq!(b.reg_writes, writes[i], "{kernel:?} {mode:?}");
                if kernel.w == 19 {
                    assert!(
                        b.dup_dropped > 0,
                        "overlapping sub-operations drop duplicates"
                    );
                }
                // Every lane's window equals what the baseline fetched for that lane (filtered
                // at texel centres = expanded raw texels).
                for lane in 0..4 {
                    for (tap, t) in b.windows[lane].iter().enumerate() {
                        let t = t.expect("window complete");
                        let want = &bans[tap].words[4 * lane..4 * lane + 4];
                        assert_eq!(
                            expand(t, false)[..],
                            *want,
                            "{kernel:?} {method:?} lane {lane} tap {tap}"
                        );
                    }
                }
            }
        }
    }
}

/// T5: method 1 moved by more than half a texel fetches another patch (¶78's caveat).
#[test]
fn shifted_coordinates_beyond_half_a_texel_pick_the_wrong_patch() {
    let d = desc(5, 5, false, false, [Wrap::Clamp; 2]);
    let mem = test_memory(2048);
    let k = Kernel { w: 3, h: 3 };
    let good = run(
        &d,
        &mem,
        &collective_requests(&d, k, (8, 8), 0, Method::Shifted { nudge: 0 }),
    )
    .0;
    let wrong = run(
        &d,
        &mem,
        &collective_requests(&d, k, (8, 8), 0, Method::Shifted { nudge: 160 }),
    )
    .0;
    assert_ne!(good, wrong);
}

/// T11: gathers from levels 1 and 2 read that level's texels.
#[test]
fn collective_fetch_from_mip_levels() {
    let d = desc(5, 5, true, false, [Wrap::Repeat; 2]);
    let mem = test_memory(2048);
    for level in 1..=2 {
        let reqs = collective_requests(
            &d,
            Kernel { w: 3, h: 3 },
            (2, 4),
            level,
            Method::GatherOffsets,
        );
        let (ans, _, reads) = run(&d, &mem, &reqs);
        assert!(reads.iter().all(|t| t.level == level));
        assert_eq!(ans[0].level, level);
        // lane 0's t00 is texel (1, 3) of the level
        assert_eq!(ans[0].words[0], mem[d.texel_addr(level, 1, 3) as usize]);
    }
}

#[test]
fn cache_blocks_of_one_footprint_never_share_a_line() {
    // Every 2×2 footprint of every power-of-two level, wrapped, fits the cache at once.
    for lines in [4, 16, 256] {
        for (lw, lh) in [(0, 3), (1, 1), (4, 2), (6, 6)] {
            let d = desc(lw, lh, false, false, [Wrap::Repeat; 2]);
            for l in 0..d.mips {
                let (w, h) = d.level_log2(l);
                for y in 0..1i64 << h {
                    for x in 0..1i64 << w {
                        let t: [TexelRef; 4] = std::array::from_fn(|p| {
                            let (xx, yy) = (
                                wrap(x + (p & 1) as i64, w, Wrap::Repeat),
                                wrap(y + (p >> 1) as i64, h, Wrap::Repeat),
                            );
                            TexelRef {
                                level: l,
                                x: xx,
                                y: yy,
                                addr: d.texel_addr(l, xx, yy),
                                border: false,
                            }
                        });
                        let mut c = cache::TexCache::new(lines);
                        let cold = c.footprint(&t, [true; 4]);
                        assert_eq!(cold.hits, 0);
                        let warm = c.footprint(&t, [true; 4]);
                        assert_eq!(
                            (warm.hits, warm.fills),
                            (1, 0),
                            "{lines} lines, level {l} ({x}, {y})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn clamp_to_border_blends_the_border_colour_and_reads_nothing_outside() {
    let mut d = desc(3, 2, false, false, [Wrap::Border, Wrap::Clamp]);
    d.border = 0xFF00_80FF;
    let mem = test_memory(1 << 10);
    let at = |x: f32, y: f32| {
        let mut r = Request {
            mask: 1,
            ..Request::default()
        };
        r.coords[0] = (x / 8.0).to_bits();
        r.coords[1] = (y / 4.0).to_bits();
        r
    };
    // Half-way between the last column (7) and the border column (8), on row 1's centre.
    let (a, c, reads) = sample(&d, &mem, &at(8.0, 1.5));
    assert_eq!(c.texel_reads, 1, "only the inside texel is read");
    assert_eq!(reads[0].x, 7);
    let inside = expand(mem[d.texel_addr(0, 7, 1) as usize], false);
    let border = expand(d.border, false);
    for ch in 0..4 {
        // a + ((b − a)·128 >> 8), written out: the exact half-way lerp.
        let want = inside[ch] as i64 + (((border[ch] as i64 - inside[ch] as i64) * 128) >> 8);
        assert_eq!(a.words[ch] as i64, want, "channel {ch}");
    }
    // Wholly outside: raw answers four border texels, reads none; rows clamp to edge.
    let mut raw = at(-3.0, 1.5);
    raw.mode = Mode::Raw;
    let (a, c, _) = sample(&d, &mem, &raw);
    assert_eq!((c.texel_reads, &a.words[..4]), (0, &[d.border; 4][..]));
    let mut below = at(2.5, 9.0);
    below.mode = Mode::Raw;
    let (a, c, _) = sample(&d, &mem, &below);
    assert_eq!(c.texel_reads, 4, "rows clamp to edge, columns inside");
    assert_eq!(a.words[0], mem[d.texel_addr(0, 2, 3) as usize]);
    assert!(outside(-1, 3, Wrap::Border) && outside(8, 3, Wrap::Border));
    assert!(!outside(7, 3, Wrap::Border) && !outside(-1, 3, Wrap::Clamp));
}

#[test]
fn lod_clamps_and_base_level_follow_vulkan() {
    let mut d = desc(4, 4, false, false, [Wrap::Repeat; 2]); // 5 levels
    let at = |d: &TexDesc, lod: i32, mip: MipMode| {
        let r = Request {
            explicit_lod: true,
            lod,
            mip,
            ..Request::default()
        };
        select_levels(d, &r)
    };
    d.min_lod = 256 + 128; // 1.5
    d.max_lod = 3 * 256 + 64; // 3.25
    assert_eq!(
        at(&d, -700, MipMode::Linear),
        (1, 128, true),
        "raised to minLod"
    );
    assert_eq!(
        at(&d, 0, MipMode::Nearest),
        (1, 0, false),
        "1.5 rounds down"
    );
    assert_eq!(
        at(&d, 2 * 256 + 7, MipMode::Linear),
        (2, 7, true),
        "inside the clamp"
    );
    assert_eq!(
        at(&d, 9000, MipMode::Linear),
        (3, 64, true),
        "lowered to maxLod"
    );
    assert_eq!(at(&d, 9000, MipMode::Nearest), (3, 0, false));
    assert_eq!(
        at(&d, 9000, MipMode::Base),
        (0, 0, false),
        "base mode ignores λ"
    );
    d.base_level = 2; // levels 2, 3, 4: q = 2
    assert_eq!(at(&d, 9000, MipMode::Base), (2, 0, false));
    assert_eq!(
        at(&d, 0, MipMode::Linear),
        (3, 128, true),
        "1.5 above the base level"
    );
    assert_eq!(
        at(&d, 9000, MipMode::Linear),
        (4, 0, false),
        "q is relative to the base"
    );
    d.base_level = 9; // beyond the chain: the last level
    assert_eq!(at(&d, 0, MipMode::Linear), (4, 0, false));
    // texelFetch: no sampler clamp, the base level applies.
    let fetch = |d: &TexDesc, lod: i32| {
        let r = Request {
            int_coords: true,
            lod,
            ..Request::default()
        };
        select_levels(d, &r).0
    };
    d.base_level = 1;
    assert_eq!(
        (fetch(&d, 0), fetch(&d, 2 * 256), fetch(&d, 9 * 256)),
        (1, 3, 4)
    );
}

#[test]
fn npot_wrap_modes_follow_vulkan() {
    // size 5: repeat period 5, mirrored repeat period 10, clamp, border.
    let r: Vec<u32> = (-6..=6).map(|i| wrap_size(i, 5, Wrap::Repeat)).collect();
    assert_eq!(r, [4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]);
    let m: Vec<u32> = (-6..=11).map(|i| wrap_size(i, 5, Wrap::Mirror)).collect();
    assert_eq!(m, [4, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 0, 1]);
    let c: Vec<u32> = (-2..=6).map(|i| wrap_size(i, 5, Wrap::Clamp)).collect();
    assert_eq!(c, [0, 0, 0, 1, 2, 3, 4, 4, 4]);
    let b: Vec<bool> = (-1..=5).map(|i| outside_size(i, 5, Wrap::Border)).collect();
    assert_eq!(b, [true, false, false, false, false, false, true]);
    for size in [1, 2, 4, 8] {
        for i in -20..20 {
            for mode in [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror] {
                assert_eq!(
                    wrap_size(i, size, mode),
                    wrap(i, size.trailing_zeros(), mode)
                );
            }
        }
    }
}

/// A 6×5 texture (stored 8×8, levels 6×5, 3×2, 1×1): a nearest fetch at every texel centre of
/// every level, and at the same centre shifted by whole periods in each wrap mode, reads that
/// texel; the quad's LOD scales with the NPOT width.
#[test]
fn npot_texels_at_centres_and_beyond_the_edge() {
    let mem = test_memory(1 << 10);
    for mode in [Wrap::Repeat, Wrap::Mirror, Wrap::Clamp] {
        let mut d = desc(3, 3, false, false, [mode; 2]);
        (d.width, d.height, d.mips) = (6, 5, 3);
        for l in 0..3 {
            let (w, h) = d.level_size(l);
            for y in 0..h {
                for x in 0..w {
                    let shifts: &[i32] = match mode {
                        Wrap::Repeat => &[0, 1, -2],
                        Wrap::Mirror => &[0, 2, -2],
                        _ => &[0],
                    };
                    for &k in shifts {
                        let mut r = Request {
                            explicit_lod: true,
                            lod: 256 * l as i32,
                            mip: MipMode::Nearest,
                            filter: Filter::Nearest,
                            mask: 1,
                            ..Request::default()
                        };
                        r.coords[0] = ((x as f32 + 0.5) / w as f32 + k as f32).to_bits();
                        r.coords[1] = ((y as f32 + 0.5) / h as f32 + k as f32).to_bits();
                        let (a, _, reads) = sample(&d, &mem, &r);
                        assert_eq!((reads[0].level, reads[0].x, reads[0].y), (l, x, y));
                        let want = expand(mem[d.texel_addr(l, x, y) as usize], false);
                        assert_eq!(a.words[..4], want, "{mode:?} level {l} ({x}, {y}) + {k}");
                    }
                }
            }
        }
        // Clamped: far beyond the right edge reads the last column of the level.
        let mut r = Request {
            filter: Filter::Nearest,
            mask: 1,
            ..Request::default()
        };
        r.coords[0] = 7.0f32.to_bits();
        let (_, _, reads) = sample(&d, &mem, &r);
        if mode == Wrap::Clamp {
            assert_eq!(reads[0].x, 5);
        }
        // LOD: one texel per pixel of the 6-wide level 0 → λ = 0; four → λ = 2.
        for (step, want) in [(1.0, 0), (4.0, 512)] {
            let mut q = Request::default();
            for k in 0..4 {
                let (a, b) = ((k & 1) as f32, (k >> 1) as f32);
                q.coords[2 * k] = ((1.5 + a * step) / 6.0).to_bits();
                q.coords[2 * k + 1] = ((1.5 + b * step) / 5.0).to_bits();
            }
            let lod = lod_q8(&d, &q);
            assert!((lod - want).abs() <= 1, "step {step}: λ {lod}");
        }
    }
}
