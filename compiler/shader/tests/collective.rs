//! The kernel-shader pass (`rendergen_shader_compiler::collective`, issue 14 §2, spec §A.12):
//! GLSL convolution shaders converted to the collective fetch and run on the interpreter with
//! `TexEnv` (the texture unit's golden model) over a real image, against the original program
//! (bit for bit) and, for the bilinear reversal (T16), against an independent f64 n-tap
//! convolution; every check refused and passed (T17).

use rendergen_shader_compiler::collective::{
    compile, Collective, LaunchProps, Params, Refusal, Selection, VariantKind,
};
use rendergen_shader_compiler::{Compiled, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{run, Config, Launch};
use rendergen_sim::models::texture::system::TexEnv;
use rendergen_sim::models::texture::{TexDesc, Wrap};

/// The 64×64 landscape photograph `rendergen conv` ships (RGBA8, R in bits 7:0).
fn landscape() -> (u32, u32, Vec<u32>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../gen/conv/examples/landscape64.png"
    );
    let bytes = std::fs::read(path).expect("landscape64.png");
    let mut dec = png::Decoder::new(&bytes[..]);
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    let ch = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        c => panic!("{c:?}"),
    };
    let texels = buf[..info.buffer_size()]
        .chunks(ch)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], if ch == 4 { p[3] } else { 255 }]))
        .collect();
    (info.width, info.height, texels)
}

fn desc(w: u32, h: u32, wrap: Wrap) -> TexDesc {
    TexDesc {
        base: 0,
        log2_w: w.trailing_zeros(),
        log2_h: h.trailing_zeros(),
        width: w,
        height: h,
        mips: 1,
        srgb: false,
        tiled: false,
        wrap: [wrap; 2],
        border: 0,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    }
}

/// How a sample's coordinate is written.
#[derive(Clone, Copy)]
enum Form {
    /// `texelFetch(…, ivec2(gl_FragCoord.xy) + ivec2(dx, dy), 0)`.
    Fetch,
    /// `texture(…, (gl_FragCoord.xy + vec2(dx, dy)) · (1/size))` (implicit LOD).
    Normalised,
}

const HEAD: &str = "#version 450
layout(location = 0) out vec4 o;
layout(binding = 0) uniform texture2D img;
layout(binding = 1) uniform sampler smp;
";

/// A kernel shader: `taps` are (dx, dy, weight), dx and dy in texels (fractions allowed with
/// the normalised form).
fn shader(taps: &[(f64, f64, f64)], form: Form, size: u32) -> String {
    let mut s = format!("{HEAD}void main() {{\n    vec4 s = vec4(0.0);\n");
    s += "    ivec2 p = ivec2(gl_FragCoord.xy);\n";
    for &(dx, dy, w) in taps {
        let t = match form {
            Form::Fetch => format!(
                "texelFetch(sampler2D(img, smp), p + ivec2({}, {}), 0)",
                dx as i32, dy as i32
            ),
            Form::Normalised => format!(
                "texture(sampler2D(img, smp), (gl_FragCoord.xy + vec2({dx:?}, {dy:?})) * {:?})",
                1.0 / size as f64
            ),
        };
        s += &format!("    s += {t} * {:?};\n", w as f32);
    }
    s + "    o = s;\n}\n"
}

/// A `w × h` kernel's taps from integer weights / divisor, zero weights left out.
fn kernel(w: i32, h: i32, weights: &[i32], divisor: i32) -> Vec<(f64, f64, f64)> {
    let mut t = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let k = weights[(y * w + x) as usize];
            if k != 0 {
                t.push((
                    (x - w / 2) as f64,
                    (y - h / 2) as f64,
                    k as f64 / divisor as f64,
                ));
            }
        }
    }
    t
}

/// Registers per lane of the core the tests compile for: the default 64. The *original* 5×5
/// and 19×1 shaders fit only because the back end narrows its scheduling window when the
/// whole-region schedule (every sample hoisted) needs more (`back::SCHEDULE_WINDOWS`).
const REGS: usize = rendergen_shader_isa::DEFAULT_REGS;

fn frag() -> Options {
    let mut o = Options::new(Lang::Glsl(ShaderStage::Fragment));
    o.regs = REGS;
    o
}

fn cfg() -> Config {
    Config {
        regs: REGS,
        ..Config::default()
    }
}

fn pass(src: &str, launch: &LaunchProps) -> Collective {
    compile(src, "kernel.glsl", &frag(), launch, &Params::default())
        .unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// What a run cost on the texture unit's model.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    requests: u64,
    footprints: u64,
    texel_reads: u64,
    unique: u64,
    reg_writes: u64,
    dup_dropped: u64,
    filter_active: u64,
}

/// Runs `c` over the whole `w × h` image as 2×2 fragment quads (16 per warp): every pixel's
/// four exported words, and the counts.
fn render(c: &Compiled, img: &(u32, u32, Vec<u32>), wrap: Wrap) -> (Vec<[u32; 4]>, Counts) {
    let (w, h, mem) = img;
    let mut env = TexEnv::new(desc(*w, *h, wrap), mem);
    let mut out = vec![[0u32; 4]; (w * h) as usize];
    let groups: Vec<(u32, u32)> = (0..h / 2)
        .flat_map(|gy| (0..w / 2).map(move |gx| (gx, gy)))
        .collect();
    for warp in groups.chunks(16) {
        let mut l = Launch::new(warp.len());
        for &(gx, gy) in warp {
            for i in 0..4 {
                let (x, y) = (2 * gx + (i & 1), 2 * gy + (i >> 1));
                l.regs.push(vec![
                    (x as f32 + 0.5).to_bits(),
                    (y as f32 + 0.5).to_bits(),
                    0.5f32.to_bits(),
                    1.0f32.to_bits(),
                ]);
            }
        }
        let o = run(&c.words, &cfg(), &l, &mut env);
        assert_eq!(o.error, None, "{}", c.asm);
        for (q, &(gx, gy)) in warp.iter().enumerate() {
            for i in 0..4 {
                let (x, y) = (2 * gx + (i & 1), 2 * gy + (i >> 1));
                let e = &o.exports[4 * q + i as usize][&0];
                out[(y * w + x) as usize] = [e[0], e[1], e[2], e[3]];
            }
        }
    }
    let counts = Counts {
        requests: env.stats.requests,
        footprints: env.stats.counts.footprints,
        texel_reads: env.stats.counts.texel_reads,
        unique: env.unique_texels(),
        reg_writes: env.stats.reg_writes,
        dup_dropped: env.stats.dup_dropped,
        filter_active: env.stats.counts.filter_active,
    };
    (out, counts)
}

fn gauss3() -> Vec<(f64, f64, f64)> {
    kernel(3, 3, &[1, 2, 1, 2, 4, 2, 1, 2, 1], 16)
}

/// Every kernel of the brief, converted, bit-identical to its original on the unit's model
/// over the landscape photograph, with the spec's per-quad counts (T1, T3, T4, T9 in shader
/// form); the figures are printed.
#[test]
fn kernels_convert_and_run_bit_identical() {
    let img = landscape();
    let b = [1, 4, 6, 4, 1];
    let gauss5: Vec<i32> = (0..25).map(|i| b[i / 5] * b[i % 5]).collect();
    type Case = (&'static str, Vec<(f64, f64, f64)>, u64, Form, Wrap);
    let cases: Vec<Case> = vec![
        // name, taps, footprints per quad of the collective fetch, form, border
        ("gauss3", gauss3(), 4, Form::Fetch, Wrap::Clamp),
        ("gauss3", gauss3(), 4, Form::Normalised, Wrap::Repeat),
        (
            "gauss5",
            kernel(5, 5, &gauss5, 256),
            9,
            Form::Fetch,
            Wrap::Mirror,
        ),
        (
            "box3",
            kernel(3, 3, &[1; 9], 9),
            4,
            Form::Normalised,
            Wrap::Clamp,
        ),
        (
            "sobel-x",
            kernel(3, 3, &[-1, 0, 1, -2, 0, 2, -1, 0, 1], 1),
            4,
            Form::Fetch,
            Wrap::Repeat,
        ),
        (
            "1x7",
            kernel(1, 7, &[1, 2, 3, 4, 3, 2, 1], 16),
            4,
            Form::Fetch,
            Wrap::Clamp,
        ),
        (
            "7x1",
            kernel(7, 1, &[1, 2, 3, 4, 3, 2, 1], 16),
            4,
            Form::Normalised,
            Wrap::Mirror,
        ),
        (
            "19x1",
            kernel(19, 1, &[1; 19], 19),
            11,
            Form::Fetch,
            Wrap::Clamp,
        ),
    ];
    let quads = (img.0 / 2 * (img.1 / 2)) as u64;
    for (name, taps, fp, form, wrap) in cases {
        let src = shader(&taps, form, img.0);
        let c = pass(&src, &LaunchProps::fragment(img.0, img.1));
        let a = c.outcome.as_ref().unwrap_or_else(|r| panic!("{name}: {r}"));
        assert_eq!(c.selection, Selection::Direct, "{name}");
        assert_eq!(a.footprints() as u64, fp, "{name}");
        let conv = c.variant(VariantKind::Direct).expect("direct variant");
        // The originals with many samples fit 64 registers only with a narrowed window.
        if taps.len() >= 19 {
            assert!(
                c.original.stats.schedule_window < usize::MAX,
                "{name}: the whole-region schedule should not fit {REGS} registers"
            );
        }
        let (want, base) = render(&c.original, &img, wrap);
        let (got, coll) = render(conv, &img, wrap);
        assert!(want == got, "{name}: the converted program differs");
        let n = taps.len() as u64;
        assert_eq!(base.footprints, n * 4 * quads, "{name}: per-pixel fetches");
        assert_eq!(base.filter_active, n * 4 * quads, "{name}");
        assert_eq!(
            coll.requests,
            fp * quads,
            "{name}: one request per footprint"
        );
        assert_eq!(coll.footprints, fp * quads, "{name}");
        assert_eq!(coll.texel_reads, 4 * fp * quads, "{name}");
        // 19×1: the strips' overlapping columns 7 and 14 (4 texels) are written once
        let dup = if name == "19x1" { 16 } else { 0 };
        assert_eq!(
            coll.reg_writes,
            (16 * fp - dup) * quads,
            "{name}: broadcast all"
        );
        assert_eq!(coll.dup_dropped, dup * quads, "{name}: duplicates dropped");
        assert_eq!(coll.filter_active, 0, "{name}: the filter is bypassed");
        println!(
            "{name:8} {:10} samples {n:2}: requests {:6} → {:5}, footprints {:6} → {:5}, texel reads {:6} → {:5}, unique {:5} → {:5}, register writes {:6} → {:6}, instructions {:3} → {:3}",
            match form { Form::Fetch => "texelFetch", Form::Normalised => "texture" },
            base.requests, coll.requests, base.footprints, coll.footprints, base.texel_reads,
            coll.texel_reads, base.unique, coll.unique, base.reg_writes, coll.reg_writes,
            c.original.stats.instructions, conv.stats.instructions
        );
        println!(
            "         original: {} registers, scheduling window {}",
            c.original.stats.registers,
            match c.original.stats.schedule_window {
                usize::MAX => "whole".to_string(),
                w => w.to_string(),
            }
        );
    }
}

/// T1/T9 per quad: 3×3 → 4 footprints of a 4×4 patch (patch code 1), 36 → 16 texels; 19×1 →
/// 11 requests (4 + 4 + 3 in three windows of ≤ 7 taps), 44 texel reads, 40 distinct.
#[test]
fn one_quad_counts() {
    let img = (2, 2, vec![0u32; 4]);
    let _ = img;
    let big = landscape();
    for (taps, fp, reads, unique, writes, dup) in [
        (gauss3(), 4, 16, 16, 64, 0),
        (kernel(19, 1, &[1; 19], 19), 11, 44, 40, 160, 16),
        (kernel(1, 7, &[1; 7], 7), 4, 16, 16, 64, 0),
    ] {
        let src = shader(&taps, Form::Fetch, 64);
        let c = pass(&src, &LaunchProps::fragment(64, 64));
        let conv = c.variant(VariantKind::Direct).unwrap();
        // one quad in the middle of the image
        let mut env = TexEnv::new(desc(64, 64, Wrap::Clamp), &big.2);
        let mut l = Launch::new(1);
        for i in 0..4u32 {
            let (x, y) = (32 + (i & 1), 32 + (i >> 1));
            l.regs
                .push(vec![(x as f32 + 0.5).to_bits(), (y as f32 + 0.5).to_bits()]);
        }
        let o = run(&conv.words, &cfg(), &l, &mut env);
        assert_eq!(o.error, None);
        assert_eq!(env.stats.requests, fp);
        assert_eq!(env.stats.counts.texel_reads, reads);
        assert_eq!(env.unique_texels(), unique);
        // broadcast all; a 19×1's strips (sideband 8×2, sub-operations 1..3) drop the second
        // copy of columns 7 and 14 (T9: 160 writes, the frame model's `broadcast`)
        assert_eq!((env.stats.reg_writes, env.stats.dup_dropped), (writes, dup));
    }
    let a = pass(
        &shader(&gauss3(), Form::Fetch, 64),
        &LaunchProps::fragment(64, 64),
    );
    let w = &a.outcome.unwrap().windows;
    assert_eq!((w.len(), w[0].w, w[0].h, w[0].patch_code()), (1, 4, 4, 1));
}

fn refusal(src: &str, launch: &LaunchProps) -> Refusal {
    match pass(src, launch).outcome {
        Ok(_) => panic!("converted, expected a refusal:\n{src}"),
        Err(r) => r,
    }
}

fn fires(src: &str, launch: &LaunchProps) {
    let c = pass(src, launch);
    if let Err(r) = &c.outcome {
        panic!("refused ({r}):\n{src}");
    }
    assert_ne!(c.selection, Selection::Original);
}

/// T17: each check refuses a shader that fails only it, and passes its twin.
#[test]
fn t17_every_check_both_ways() {
    let l = LaunchProps::fragment(64, 64);
    let g3 = shader(&gauss3(), Form::Fetch, 64);
    fires(&g3, &l);
    let body = |lines: &str| {
        format!("{HEAD}void main() {{\n    ivec2 p = ivec2(gl_FragCoord.xy);\n{lines}}}\n")
    };
    let fetch =
        |dx: i32, dy: i32| format!("texelFetch(sampler2D(img, smp), p + ivec2({dx}, {dy}), 0)");

    // 1. structure: one sample under a branch
    let branch = body(&format!(
        "    vec4 s = {} * 0.25 + {} * 0.25 + {} * 0.25;\n    if (gl_FragCoord.x > 8.0) {{ s += {} * 0.25; }}\n    o = s;\n",
        fetch(-1, 0), fetch(1, 0), fetch(0, -1), fetch(0, 1)
    ));
    assert!(matches!(refusal(&branch, &l), Refusal::Structure(_)));

    // 2. enough samples: 4 (a plus without its centre) passes, 3 do not
    let plus4 = body(&format!(
        "    o = {} * 0.25 + {} * 0.25 + {} * 0.25 + {} * 0.25;\n",
        fetch(-1, 0),
        fetch(1, 0),
        fetch(0, -1),
        fetch(0, 1)
    ));
    fires(&plus4, &l);
    let three = body(&format!(
        "    o = {} * 0.25 + {} * 0.5 + {} * 0.25;\n",
        fetch(-1, 0),
        fetch(0, 0),
        fetch(1, 0)
    ));
    assert_eq!(
        refusal(&three, &l),
        Refusal::TooFewSamples { samples: 3, min: 4 }
    );

    // 3. sample share: gauss3 followed by much arithmetic
    let heavy = g3.replace(
        "    o = s;",
        &format!(
            "    vec4 t = s;\n{}    o = t;",
            "    t = sin(t) * cos(t) + exp2(t) * log2(t + 1.0) + sqrt(t) * inversesqrt(t + 2.0);\n"
                .repeat(12)
        ),
    );
    assert!(matches!(
        refusal(&heavy, &l),
        Refusal::FewSampleInstructions { samples: 9, .. }
    ));

    // 4. integer LOD: textureLod 0 and 1 pass (level 1 of a texture twice the render size),
    //    0.5 does not; a bias does not; a clamp that moves the implicit LOD does not
    let lod = |x: &str| {
        body(&(0..9)
            .map(|k| {
                format!(
                    "    o += textureLod(sampler2D(img, smp), (gl_FragCoord.xy + vec2({}.0, {}.0)) * 0.015625, {x}) * 0.125;\n",
                    k % 3 - 1,
                    k / 3 - 1
                )
            })
            .collect::<String>())
    };
    fires(&lod("0.0"), &l);
    let l2 = LaunchProps {
        texture_size: Some((128, 128)),
        ..l
    };
    fires(&lod("1.0"), &l2);
    assert!(matches!(
        refusal(&lod("0.5"), &l),
        Refusal::NonIntegerLod(_)
    ));
    let norm = shader(&gauss3(), Form::Normalised, 64);
    fires(&norm, &l);
    let bias = norm.replace("* 0.015625)", "* 0.015625, 1.0)");
    assert!(matches!(refusal(&bias, &l), Refusal::NonIntegerLod(_)));
    let clamped = LaunchProps {
        lod_clamp: (128, 32767),
        ..l
    };
    assert!(matches!(
        refusal(&norm, &clamped),
        Refusal::NonIntegerLod(_)
    ));

    // 5. texture size = render size
    let big = LaunchProps {
        texture_size: Some((128, 64)),
        ..l
    };
    assert!(matches!(
        refusal(&g3, &big),
        Refusal::TextureSizeNotRenderSize {
            texture: (128, 64),
            ..
        }
    ));

    // 6. linear LDR
    let srgb = LaunchProps { srgb: true, ..l };
    assert_eq!(refusal(&g3, &srgb), Refusal::Srgb);

    // 7. centred: taps 0..2 (not symmetric); a coordinate that scales with the pixel; one
    //    that reads a uniform; a normalised one for another size (the offset drifts)
    let shifted = shader(
        &gauss3()
            .iter()
            .map(|&(x, y, w)| (x + 1.0, y, w))
            .collect::<Vec<_>>(),
        Form::Fetch,
        64,
    );
    assert!(matches!(refusal(&shifted, &l), Refusal::NotCentred { .. }));
    let scaled = g3.replacen("p + ivec2(-1, -1)", "p * 2 + ivec2(-1, -1)", 1);
    assert!(matches!(
        refusal(&scaled, &l),
        Refusal::NotCentred { sample: 0, .. }
    ));
    let uni = g3
        .replace(
            "layout(binding = 1) uniform sampler smp;",
            "layout(binding = 1) uniform sampler smp;\nlayout(binding = 2) uniform U { ivec2 d; };",
        )
        .replacen("p + ivec2(-1, -1)", "p + d", 1);
    assert!(matches!(
        refusal(&uni, &l),
        Refusal::NotCentred { sample: 0, .. }
    ));
    let other_size = shader(&gauss3(), Form::Normalised, 32);
    assert!(matches!(
        refusal(&other_size, &l),
        Refusal::NotCentred { .. }
    ));

    // 8. summed with weights: a dilation (max) and a product of samples are not convolutions
    let dilate = body(&format!(
        "    o = max(max({}, {}), max({}, {})) * 0.5;\n",
        fetch(-1, 0),
        fetch(1, 0),
        fetch(0, -1),
        fetch(0, 1)
    ));
    assert!(matches!(refusal(&dilate, &l), Refusal::NotSummed { .. }));
    let product = body(&format!(
        "    o = {} * {} + {} * 0.25 + {} * 0.25;\n",
        fetch(-1, 0),
        fetch(1, 0),
        fetch(0, -1),
        fetch(0, 1)
    ));
    assert!(matches!(refusal(&product, &l), Refusal::NotSummed { .. }));

    // 9. gather range: 7×7 (16 footprints, 4 sub-operations), 19×1 (11) and a sparse cross of
    //    reach 8 (one footprint per window) pass (the 7×7 as its 24-tap edge: the original 7×7
    //    needs more registers than the core has); a square ring of reach 8 (sampled every 4
    //    texels: 16 samples, 5×5 windows' worth of footprints) does not
    let edge: Vec<i32> = (0..49)
        .map(|i| (i % 7 % 6 == 0 || i / 7 % 6 == 0) as i32)
        .collect();
    let c7 = pass(&shader(&kernel(7, 7, &edge, 24), Form::Fetch, 64), &l);
    assert_eq!(c7.outcome.unwrap().footprints(), 16);
    fires(&shader(&kernel(19, 1, &[1; 19], 19), Form::Fetch, 64), &l);
    let cross = [
        (-8.0, 0.0, 0.25),
        (8.0, 0.0, 0.25),
        (0.0, -8.0, 0.25),
        (0.0, 8.0, 0.25),
        (0.0, 0.0, 0.0),
    ];
    fires(&shader(&cross, Form::Fetch, 64), &l);
    let mut ring = Vec::new();
    for k in [-8.0, -4.0, 0.0, 4.0, 8.0] {
        ring.extend([(k, -8.0, 1.0 / 16.0), (k, 8.0, 1.0 / 16.0)]);
    }
    for k in [-4.0, 0.0, 4.0] {
        ring.extend([(-8.0, k, 1.0 / 16.0), (8.0, k, 1.0 / 16.0)]);
    }
    assert!(matches!(
        refusal(&shader(&ring, Form::Fetch, 64), &l),
        Refusal::OutOfGatherRange {
            taps: (-8, 8, -8, 8),
            max: 4,
            ..
        }
    ));
}

/// A bilinear-optimised 1-D kernel: `samples` at (offset, weight), offsets in texels with
/// dyadic fractions (so every pixel sees the same fraction).
fn bilinear_shader(samples: &[(f64, f64)]) -> String {
    shader(
        &samples
            .iter()
            .map(|&(d, w)| (d, 0.0, w))
            .collect::<Vec<_>>(),
        Form::Normalised,
        64,
    )
}

/// Channel values c/255 of texel (x, y), clamped to the image.
fn texel(img: &(u32, u32, Vec<u32>), x: i64, y: i64, ch: usize) -> f64 {
    let (w, h, t) = img;
    let (x, y) = (x.clamp(0, *w as i64 - 1), y.clamp(0, *h as i64 - 1));
    f64::from((t[(y * *w as i64 + x) as usize] >> (8 * ch)) & 255) / 255.0
}

/// The f64 n-tap golden of a 1-D bilinear kernel: sample k at `i0 + f` becomes taps `i0`
/// (weight `w·(1−f)`) and `i0 + 1` (`w·f`); `quant` truncates f to the filter's 8 bits.
fn golden(
    img: &(u32, u32, Vec<u32>),
    samples: &[(f64, f64)],
    x: i64,
    y: i64,
    ch: usize,
    quant: bool,
) -> f64 {
    samples
        .iter()
        .map(|&(d, w)| {
            let i0 = d.floor();
            let mut f = d - i0;
            if quant {
                f = (f * 256.0).floor() / 256.0;
            }
            let i0 = x + i0 as i64;
            w * ((1.0 - f) * texel(img, i0, y, ch) + f * texel(img, i0 + 1, y, ch))
        })
        .sum()
}

/// T16: a 4-sample linear-filtered shader (one sample on a texel, three between two) is
/// converted to 7 raw taps; the converted run matches the 7-tap golden with the exact
/// fractions; the original differs from it only by the filter's 8-bit fraction quantisation
/// (bounded by Σ|w|·Δf plus the filter's integer rounding).
#[test]
fn t16_bilinear_reversal() {
    let img = landscape();
    // taps −3 | −2,−1 | 0,1 | 2,3: fractions 1234/4096, 2900/4096, 501/4096 (not 8-bit exact)
    let samples = [
        (-3.0, 0.125),
        (-2.0 + 1234.0 / 4096.0, 0.25),
        (2900.0 / 4096.0, 0.375),
        (2.0 + 501.0 / 4096.0, 0.25),
    ];
    let src = bilinear_shader(&samples);
    let c = pass(&src, &LaunchProps::fragment(64, 64));
    let a = c.outcome.as_ref().unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(a.bilinear_samples(), 3);
    assert_eq!(a.taps, (-3, 3, 0, 0), "7 taps");
    assert_eq!(c.selection, Selection::Reversed, "even count: reversal");
    assert!(c.variant(VariantKind::Direct).is_none());
    let rev = c.variant(VariantKind::Reversed).unwrap();
    let (orig, base) = render(&c.original, &img, Wrap::Clamp);
    let (conv, coll) = render(rev, &img, Wrap::Clamp);
    assert_eq!(coll.filter_active, 0);
    assert_eq!(coll.footprints, 4 * 32 * 32, "an 8×2 patch per quad");
    assert_eq!(base.footprints, 4 * 4 * 32 * 32);
    let sum_w: f64 = samples.iter().map(|s| s.1.abs()).sum();
    let dq: f64 = samples
        .iter()
        .map(|&(d, w)| {
            let f = d - d.floor();
            w.abs() * (f - (f * 256.0).floor() / 256.0)
        })
        .sum();
    let (mut worst_conv, mut worst_orig, mut worst_orig_q) = (0f64, 0f64, 0f64);
    for y in 0..64 {
        for x in 0..64 {
            let i = (y * 64 + x) as usize;
            for ch in 0..4 {
                let exact = golden(&img, &samples, x, y, ch, false);
                let quant = golden(&img, &samples, x, y, ch, true);
                let vc = f32::from_bits(conv[i][ch]) as f64;
                let vo = f32::from_bits(orig[i][ch]) as f64;
                worst_conv = worst_conv.max((vc - exact).abs());
                worst_orig = worst_orig.max((vo - exact).abs());
                worst_orig_q = worst_orig_q.max((vo - quant).abs());
            }
        }
    }
    println!(
        "T16: converted vs 7-tap golden ≤ {worst_conv:.3e}; original vs golden ≤ {worst_orig:.3e} (bound {:.3e}); original vs golden with 8-bit fractions ≤ {worst_orig_q:.3e}",
        dq + 2.0 * sum_w / 65535.0
    );
    // binary32 arithmetic over 7 taps and the ABI conversion (1 ulp)
    assert!(worst_conv <= 4e-7, "converted: {worst_conv}");
    // the filter's fractions and its integer lerps (each lerp floors: < 1/65535 per level)
    assert!(
        worst_orig <= dq + 2.0 * sum_w / 65535.0 + 4e-7,
        "original: {worst_orig}"
    );
    assert!(worst_orig_q <= 2.0 * sum_w / 65535.0 + 4e-7);
    assert!(
        worst_orig > 10.0 * worst_conv,
        "the quantisation shows: {worst_orig}"
    );
}

#[allow(clippy::needless_range_loop)] // channels index the golden and the words alike
/// Odd sample counts (¶94): a 5-sample bilinear kernel (9 taps) gets both variants; the one
/// without reversal is bit-identical to the original, the reversed one matches the 9-tap
/// golden; the helper's selection bits (¶100) choose among the three programs by the launch.
#[test]
fn odd_counts_two_variants_and_the_helper() {
    let img = landscape();
    let samples = [
        (-4.0, 0.0625),
        (-3.0 + 0.5, 0.25),
        (-1.0 + 1000.0 / 4096.0, 0.375),
        (1.0 + 3000.0 / 4096.0, 0.25),
        (3.0 + 0.5, 0.0625),
    ];
    let src = bilinear_shader(&samples);
    // texture size unknown at compile time (¶89): converted anyway, decided at run time
    let compile_time = LaunchProps {
        texture_size: None,
        ..LaunchProps::fragment(64, 64)
    };
    let c = pass(&src, &compile_time);
    let a = c.outcome.as_ref().unwrap();
    assert_eq!(a.taps, (-4, 4, 0, 0));
    let kinds: Vec<_> = c.variants.iter().map(|v| v.kind).collect();
    assert_eq!(kinds, [VariantKind::Direct, VariantKind::Reversed]);
    let direct = c.variant(VariantKind::Direct).unwrap();
    let (orig, _) = render(&c.original, &img, Wrap::Clamp);
    let (d, _) = render(direct, &img, Wrap::Clamp);
    assert!(orig == d, "without reversal: bit-identical");
    let (r, _) = render(c.variant(VariantKind::Reversed).unwrap(), &img, Wrap::Clamp);
    for y in 0..64 {
        for x in 0..64 {
            for ch in 0..4 {
                let exact = golden(&img, &samples, x, y, ch, false);
                let v = f32::from_bits(r[(y * 64 + x) as usize][ch]) as f64;
                assert!((v - exact).abs() <= 4e-7, "({x}, {y}) ch {ch}");
            }
        }
    }
    // the helper: the run-time launch decides
    let conv = rendergen_shader_compiler::collective::convert(
        &c.original.ir,
        c.original.stats.instructions,
        &compile_time,
        &Params::default(),
    )
    .unwrap();
    let sel = |run: &LaunchProps| {
        rendergen_shader_compiler::collective::select(
            &c.original.ir,
            c.original.stats.instructions,
            &conv,
            run,
        )
    };
    let ok = LaunchProps::fragment(64, 64);
    assert_eq!(sel(&ok), Selection::Reversed);
    assert_eq!(c.selection, Selection::Reversed);
    assert_eq!(
        sel(&LaunchProps {
            texture_size: Some((128, 128)),
            ..ok
        }),
        Selection::Original
    );
    assert_eq!(sel(&LaunchProps { srgb: true, ..ok }), Selection::Original);
    // a shared texel breaks the bilinear pattern of ¶99: the direct variant is chosen
    let overlap = [
        (-4.0, 0.0625),
        (-3.0 + 0.5, 0.25),
        (-3.0 + 0.75, 0.25),
        (-1.0 + 0.5, 0.25),
        (1.0 + 0.5, 0.125),
        (3.0 + 0.5, 0.0625),
        (3.0, 0.0),
    ];
    let c2 = pass(&bilinear_shader(&overlap), &ok);
    assert_eq!(c2.variants.len(), 2, "7 samples: odd");
    assert_eq!(c2.selection, Selection::Direct);
    // integer taps only: one variant, direct
    let c3 = pass(&shader(&gauss3(), Form::Normalised, 64), &ok);
    assert_eq!(c3.variants.len(), 1);
    assert_eq!(c3.selection, Selection::Direct);
}
