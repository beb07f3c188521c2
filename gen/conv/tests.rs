//! `rendergen conv` on the model engine against an independent integer reference of the
//! convolution (written here from the issue's formula, not through the texture model), on
//! generated photograph-like images, every preset and border mode, both modes.

use super::*;

/// A photograph-like test image: a sky gradient, a soft sun, hills with a hard horizon, a
/// textured ground with value noise, and a semi-transparent corner (so alpha varies too).
pub fn scene(width: u32, height: u32, seed: u32) -> Image {
    let hash = |x: u32, y: u32| {
        let mut h = x.wrapping_mul(0x9E37_79B9) ^ y.wrapping_mul(0x85EB_CA6B) ^ seed;
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^= h >> 12;
        h & 0xFF
    };
    let texels = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .map(|(x, y)| {
            let (fx, fy) = (x as f64 / width as f64, y as f64 / height as f64);
            let horizon = 0.55 + 0.08 * (fx * 9.0 + seed as f64).sin();
            let (mut r, mut g, mut b) = if fy < horizon {
                (90.0 + 120.0 * fy, 140.0 + 80.0 * fy, 230.0 - 40.0 * fy)
            } else {
                let n = hash(x / 2, y / 2) as f64 / 255.0;
                (70.0 + 60.0 * n, 110.0 + 90.0 * n, 40.0 + 30.0 * n)
            };
            let d = ((fx - 0.7).powi(2) + (fy - 0.25).powi(2)).sqrt();
            let sun = (1.0 - d / 0.15).clamp(0.0, 1.0);
            r += (255.0 - r) * sun;
            g += (240.0 - g) * sun;
            b += (180.0 - b) * sun;
            let grain = hash(x, y) as f64 / 255.0 * 12.0 - 6.0;
            let c = |v: f64| (v + grain).round().clamp(0.0, 255.0) as u8;
            let a = if fx + fy < 0.3 {
                128 + (hash(y, x) & 63) as u8
            } else {
                255
            };
            u32::from_le_bytes([c(r), c(g), c(b), a])
        })
        .collect();
    Image {
        width,
        height,
        texels,
    }
}

/// Independent reference: wrap, integer MACs, half-away-from-zero rounding, clamp.
pub fn reference(img: &Image, k: &Kernel, border: Border) -> Vec<u32> {
    let wrap = |i: i64, s: i64| -> i64 {
        match border {
            Border::Clamp => i.clamp(0, s - 1),
            Border::Repeat => i.rem_euclid(s),
            Border::Mirror => {
                let t = i.rem_euclid(2 * s);
                if t >= s {
                    2 * s - 1 - t
                } else {
                    t
                }
            }
        }
    };
    let (w, h) = (img.width as i64, img.height as i64);
    let (rx, ry) = ((k.w / 2) as i64, (k.h / 2) as i64);
    let mut out = Vec::with_capacity(img.texels.len());
    for y in 0..h {
        for x in 0..w {
            let mut word = 0u32;
            for c in 0..4 {
                let mut acc = 0i64;
                for ky in 0..k.h as i64 {
                    for kx in 0..k.w as i64 {
                        let t =
                            img.texels[(wrap(y + ky - ry, h) * w + wrap(x + kx - rx, w)) as usize];
                        let v = (t >> (8 * c) & 0xFF) as i64;
                        acc += k.weights[(ky * k.w as i64 + kx) as usize] as i64 * v;
                    }
                }
                let d = k.divisor as i64;
                let n = acc + k.bias as i64 * d;
                let q = if n >= 0 {
                    (2 * n + d) / (2 * d)
                } else {
                    -((-2 * n + d) / (2 * d))
                };
                word |= (q.clamp(0, 255) as u32) << (8 * c);
            }
            out.push(word);
        }
    }
    out
}

#[test]
fn presets_and_borders_match_the_integer_reference_in_both_modes() {
    let images = [scene(32, 32, 1), scene(21, 14, 7)];
    for img in &images {
        for name in PRESETS {
            let k = Kernel::preset(name).unwrap();
            for border in [Border::Clamp, Border::Repeat, Border::Mirror] {
                let want = reference(img, &k, border);
                let base = run_model(img, &k, Mode::Baseline, border).unwrap();
                let coll = run_model(img, &k, Mode::Collective, border).unwrap();
                let tag = format!("{name} {border:?} {}x{}", img.width, img.height);
                assert_eq!(base.image.texels, want, "baseline {tag}");
                assert_eq!(coll.image.texels, want, "collective {tag}");
            }
        }
    }
}

/// The collective shader's packed MACs (two channels per word) at their limits: saturated
/// channels (255 everywhere, and 0/255 stripes per channel) under the largest packed weight sum
/// (a 9×1 kernel with Σw = 257: 257·255 = 65,535, the top of a 16-bit field) and under the
/// presets that pack (gauss5: Σw = 256); one weight more (Σw = 258) no longer packs and runs
/// per channel. Every image equals the integer reference.
#[test]
fn packed_macs_exact_at_saturated_channels() {
    let white = Image {
        width: 16,
        height: 16,
        texels: vec![0xFFFF_FFFF; 256],
    };
    let stripes = Image {
        width: 16,
        height: 16,
        texels: (0..256u32)
            .map(|i| [0xFF00_FF00, 0x00FF_00FF, 0xFFFF_0000, 0x0000_FFFF][(i % 4) as usize])
            .collect(),
    };
    let wide = |extra: i32| Kernel {
        w: 9,
        h: 1,
        weights: vec![29, 29, 29, 28, 28, 28, 28, 28, 30 + extra],
        divisor: 257,
        bias: 0,
    };
    let kernels = [
        (wide(0), true),
        (wide(1), false),
        (Kernel::preset("gauss5").unwrap(), true),
        (Kernel::preset("sobel-x").unwrap(), false),
    ];
    for (k, packs) in &kernels {
        assert_eq!(program::packed_macs(k), *packs, "{k:?}");
        for img in [&white, &stripes] {
            let want = reference(img, k, Border::Clamp);
            let coll = run_model(img, k, Mode::Collective, Border::Clamp).unwrap();
            assert_eq!(coll.image.texels, want, "collective {k:?}");
        }
    }
}

#[test]
fn rounding_is_half_away_from_zero_at_every_tie() {
    // A 1×1 kernel with divisor 2: c/2 + b ties at every odd c; negative bias exercises n < 0.
    let img = Image {
        width: 16,
        height: 16,
        texels: (0..256u32).map(|i| i * 0x0101_0101).collect(),
    };
    for (w, d, b) in [
        (1, 2, 0),
        (-1, 2, 0),
        (3, 4, -7),
        (1, 1, 255),
        (-5, 3, 200),
        (7, 4096, 1),
    ] {
        let k = Kernel {
            w: 1,
            h: 1,
            weights: vec![w],
            divisor: d,
            bias: b,
        };
        let want = reference(&img, &k, Border::Clamp);
        for mode in [Mode::Baseline, Mode::Collective] {
            let got = run_model(&img, &k, mode, Border::Clamp).unwrap();
            assert_eq!(got.image.texels, want, "w {w} d {d} b {b} {mode:?}");
        }
    }
}

#[test]
fn wide_and_tall_kernels_from_json() {
    let img = scene(16, 16, 3);
    for (text, patch) in [
        (
            r#"{"width":7,"height":1,"weights":[1,2,3,4,3,2,1],"divisor":16,"bias":0}"#,
            3,
        ),
        (
            r#"{"width":1,"height":7,"weights":[-1,0,2,3,2,0,-1],"divisor":5,"bias":3}"#,
            2,
        ),
        (
            r#"{"width":9,"height":9,"weights":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"divisor":81}"#,
            0,
        ),
    ] {
        let k = Kernel::from_json("k.json", text).unwrap();
        assert_eq!(program::patch_code(&k), patch);
        for border in [Border::Clamp, Border::Mirror] {
            let want = reference(&img, &k, border);
            for mode in [Mode::Baseline, Mode::Collective] {
                let got = run_model(&img, &k, mode, border).unwrap();
                assert_eq!(
                    got.image.texels, want,
                    "{}x{} {mode:?} {border:?}",
                    k.w, k.h
                );
            }
        }
    }
}

/// §A.4's figures on a whole image: per quad 36 → 4 requests... (3×3: 9 requests of 4
/// footprints per quad baseline, 4 one-footprint requests collective), 36 → 16 texel reads,
/// filter 36 → 0, register writes 36 → 64.
#[test]
fn whole_image_figures_per_quad() {
    let img = scene(32, 32, 5);
    let quads = 16 * 16;
    let k = Kernel::preset("box3").unwrap();
    let b = run_model(&img, &k, Mode::Baseline, Border::Clamp)
        .unwrap()
        .stats;
    let c = run_model(&img, &k, Mode::Collective, Border::Clamp)
        .unwrap()
        .stats;
    assert_eq!(b.requests, 9 * quads);
    assert_eq!(b.footprints, 36 * quads);
    assert_eq!(b.texel_reads, 36 * quads);
    assert_eq!(b.filter_active, 36 * quads);
    assert_eq!(b.reg_writes, 36 * quads);
    assert_eq!(c.requests, 4 * quads);
    assert_eq!(c.footprints, 4 * quads);
    assert_eq!(c.texel_reads, 16 * quads);
    assert_eq!(c.filter_active, 0);
    assert_eq!(c.reg_writes, 64 * quads);
    assert_eq!(b.unique_texels, 32 * 32);
    assert_eq!(c.unique_texels, 32 * 32);
    assert_eq!(b.macs, c.macs);
    assert_eq!(b.macs, 32 * 32 * 9 * 4);
}

#[test]
fn bad_kernel_files_name_the_field() {
    for (text, needle) in [
        ("[1]", "expected an object"),
        (r#"{"width":3,"height":3,"weights":[1]}"#, "weights"),
        (
            r#"{"width":4,"height":3,"weights":[]}"#,
            "`width`: 4 is even",
        ),
        (
            r#"{"width":3,"height":11,"weights":[]}"#,
            "`height`: 11 is outside",
        ),
        (r#"{"width":1,"height":1,"weights":[1.5]}"#, "weights[0]"),
        (
            r#"{"width":1,"height":1,"weights":[1],"divisor":0}"#,
            "`divisor`: 0",
        ),
        (
            r#"{"width":1,"height":1,"weights":[1],"bias":300}"#,
            "`bias`: 300",
        ),
        (
            r#"{"width":1,"height":1,"weights":[1],"gain":2}"#,
            "unknown field `gain`",
        ),
        (r#"{"height":1,"weights":[1]}"#, "missing field `width`"),
        ("{", "not JSON"),
    ] {
        let e = Kernel::from_json("k.json", text).unwrap_err();
        assert!(e.contains("k.json") && e.contains(needle), "{text}: {e}");
    }
}

/// Runs `k` in `mode` on the cycle-accurate `tex_system` of the tests (2 quads per warp, 4
/// warps, 16 cache lines, memory latency 3..12 with `stall` back-pressure, `seed`); asserts the
/// image is `want` and the counts are the model's; returns the RTL run's figures.
#[allow(clippy::too_many_arguments)]
pub(super) fn rtl_matches_the_model(
    img: &Image,
    k: &Kernel,
    name: &str,
    mode: Mode,
    border: Border,
    stall: f64,
    seed: u64,
    want: &[u32],
) -> ConvStats {
    let o = rtl::RtlOptions {
        quads: 2,
        warps: 4,
        batch: 8,
        cache_lines: 16,
        mem_latency: (3, 12),
        mem_stall: stall,
        seed,
        progress: false,
    };
    let got = rtl::run_rtl(img, k, mode, border, &o).unwrap();
    assert_eq!(got.image.texels, want, "{name} {mode:?}");
    let m = run_model(img, k, mode, border).unwrap().stats;
    assert_eq!(got.stats.counts(), m.counts(), "{name} {mode:?}");
    got.stats
}

/// The cycle-accurate `tex_system` (core + bridge + texture unit + memory agent with random
/// latency and back-pressure) gives the reference image and the model's exact counts.
#[test]
fn rtl_matches_the_reference_and_the_models_counts() {
    let img = scene(12, 8, 9);
    for (name, border, stall) in [
        ("sobel-x", Border::Mirror, 0.3),
        ("gauss3", Border::Repeat, 0.0),
    ] {
        let k = Kernel::preset(name).unwrap();
        let want = reference(&img, &k, border);
        for mode in [Mode::Baseline, Mode::Collective] {
            let g = rtl_matches_the_model(&img, &k, name, mode, border, stall, 7, &want);
            assert!(g.cycles.unwrap() > 0);
        }
    }
}

/// T15: a separable 5×5 as a 5×1 pass then a 1×5 pass (two images through the unit): each pass
/// is exactly the independent reference of that pass; per quad a pass is 20 texel reads
/// baseline against 12 collective (a 6×2 patch, three footprints); the two-pass result is
/// within one code of the direct 5×5 (one rounding per pass instead of one).
#[test]
fn t15_separable_5x5_in_two_passes() {
    let img = scene(32, 16, 4);
    let row = Kernel::from_json(
        "r",
        r#"{"width":5,"height":1,"weights":[1,4,6,4,1],"divisor":16}"#,
    )
    .unwrap();
    let col = Kernel::from_json(
        "c",
        r#"{"width":1,"height":5,"weights":[1,4,6,4,1],"divisor":16}"#,
    )
    .unwrap();
    let quads = 16 * 8;
    let mut passes = Vec::new();
    for mode in [Mode::Baseline, Mode::Collective] {
        let a = run_model(&img, &row, mode, Border::Clamp).unwrap();
        assert_eq!(a.image.texels, reference(&img, &row, Border::Clamp));
        let b = run_model(&a.image, &col, mode, Border::Clamp).unwrap();
        assert_eq!(b.image.texels, reference(&a.image, &col, Border::Clamp));
        let per_quad = match mode {
            Mode::Baseline => 20,
            Mode::Collective | Mode::Selective | Mode::Shared => 12,
        };
        assert_eq!(a.stats.texel_reads, per_quad * quads, "{mode:?} row pass");
        assert_eq!(
            b.stats.texel_reads,
            per_quad * quads,
            "{mode:?} column pass"
        );
        passes.push(b.image);
    }
    assert_eq!(passes[0], passes[1]);
    let direct = reference(&img, &Kernel::preset("gauss5").unwrap(), Border::Clamp);
    for (a, b) in passes[0].texels.iter().zip(&direct) {
        for c in 0..4 {
            let (x, y) = ((a >> (8 * c)) & 0xFF, (b >> (8 * c)) & 0xFF);
            assert!(x.abs_diff(y) <= 1, "{a:08x} {b:08x}");
        }
    }
}

/// T8 (the tap-lookup variant this shader uses, Fig. 17a): 9 MACs per pixel per channel for
/// 3×3 whatever the broadcast, and zero-weight taps are not multiplied (sobel: 6 of 9).
#[test]
fn t8_mac_counts() {
    let img = scene(8, 8, 2);
    for (name, taps) in [("box3", 9), ("sobel-x", 6), ("sharpen", 5), ("gauss5", 25)] {
        let k = Kernel::preset(name).unwrap();
        for mode in [Mode::Baseline, Mode::Collective] {
            let s = run_model(&img, &k, mode, Border::Clamp).unwrap().stats;
            assert_eq!(s.macs, 64 * taps * 4, "{name} {mode:?}");
        }
    }
}

/// `rendergen conv --shader`: the example kernel shaders through the kernel-shader pass and
/// both runs (issue 14 §2). gauss3.glsl converts to the direct variant (4 footprints per quad
/// instead of 36, bit-identical image) and convolves like the `gauss3` preset (within one step
/// per channel: the shader rounds a binary32 sum); blur9-bilinear.glsl gets both variants and
/// the helper picks the reversal; a 3-sample shader is kept, naming the check.
#[test]
fn shader_examples_convert_and_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/conv/examples/");
    let img = scene(64, 64, 5);
    let quads = 32 * 32;
    let src = std::fs::read_to_string(format!("{dir}gauss3.glsl")).unwrap();
    let r = shader::run_shader(&img, &src, "gauss3.glsl", Border::Clamp).unwrap();
    let a = r.pass.outcome.as_ref().unwrap();
    assert_eq!((a.samples.len(), a.footprints()), (9, 4));
    let conv = r.converted.as_ref().expect("fired");
    assert!(conv.image == r.original.image, "bit-identical");
    assert_eq!(r.original.stats.footprints, 36 * quads);
    assert_eq!(conv.stats.footprints, 4 * quads);
    assert_eq!(conv.stats.texel_reads, 16 * quads);
    assert_eq!(conv.stats.reg_writes, 64 * quads);
    assert_eq!(conv.stats.filter_active, 0);
    let preset = run_model(
        &img,
        &Kernel::preset("gauss3").unwrap(),
        Mode::Baseline,
        Border::Clamp,
    )
    .unwrap();
    for (p, (&a, &b)) in preset
        .image
        .texels
        .iter()
        .zip(&conv.image.texels)
        .enumerate()
    {
        for c in 0..4 {
            let (x, y) = ((a >> (8 * c)) & 255, (b >> (8 * c)) & 255);
            assert!(x.abs_diff(y) <= 1, "pixel {p} channel {c}: {x} vs {y}");
        }
    }
    let j = r.pass_json();
    assert_eq!(j["fired"], true);
    assert_eq!(j["selected"], "direct");

    let src = std::fs::read_to_string(format!("{dir}blur9-bilinear.glsl")).unwrap();
    let r = shader::run_shader(&img, &src, "blur9-bilinear.glsl", Border::Clamp).unwrap();
    let a = r.pass.outcome.as_ref().unwrap();
    assert_eq!(
        (a.samples.len(), a.bilinear_samples(), a.taps),
        (5, 4, (-4, 4, 0, 0))
    );
    assert_eq!(r.pass.variants.len(), 2, "odd count: both variants");
    assert_eq!(r.pass_json()["selected"], "reversed");
    let conv = r.converted.as_ref().unwrap();
    assert_eq!(conv.stats.filter_active, 0);
    for (&a, &b) in r.original.image.texels.iter().zip(&conv.image.texels) {
        for c in 0..4 {
            let (x, y) = ((a >> (8 * c)) & 255, (b >> (8 * c)) & 255);
            assert!(
                x.abs_diff(y) <= 1,
                "reversal moves a channel by at most one step"
            );
        }
    }

    let three = src
        .lines()
        .filter(|l| !l.contains("3.2307692308"))
        .collect::<Vec<_>>()
        .join("\n");
    let r = shader::run_shader(&img, &three, "three.glsl", Border::Clamp).unwrap();
    assert_eq!(
        r.pass.outcome.as_ref().unwrap_err().check(),
        "enough samples"
    );
    assert!(r.converted.is_none());
    assert_eq!(r.pass_json()["check"], "enough samples");
}
