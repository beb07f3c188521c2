//! Sampled textures through the ABI (`ABI.md` "Sampled textures"): GLSL fragment shaders
//! compiled, run on the interpreter with `TexEnv` (the texture unit's golden model) answering
//! `tex`, and compared with an f64 evaluation of the same texels within the documented rounding.

mod common;

use common::{build, f, frag};
use rendergen_shader_compiler::{abi, compile, launch, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{run, Config, Launch};
use rendergen_sim::models::texture::system::{Sampler, TexEnv};
use rendergen_sim::models::texture::{TexDesc, Wrap};
use std::collections::BTreeMap;

const SHADER: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) flat in ivec2 p;
layout(location = 0) out vec4 c;
layout(location = 1) out vec4 t;
layout(location = 2) out vec4 l;
layout(location = 3) out vec4 m;
layout(binding = 1) uniform texture2D img;
layout(binding = 2) uniform sampler smp;
void main() {
    c = texture(sampler2D(img, smp), uv);
    t = texelFetch(sampler2D(img, smp), p, 0);
    l = textureLod(sampler2D(img, smp), uv, 0.0) * 2.0;
    m = textureLod(sampler2D(img, smp), uv, 1.0);
}";

/// An 8×8 RGBA8 texture with two levels (8×8 at word 0, 4×4 at word 64) of pseudo-random
/// texels, repeat wrap.
fn texture() -> (TexDesc, Vec<u32>) {
    let desc = TexDesc {
        base: 0,
        log2_w: 3,
        log2_h: 3,
        width: 8,
        height: 8,
        mips: 2,
        srgb: false,
        tiled: false,
        wrap: [Wrap::Repeat; 2],
        border: 0,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    };
    let mut x = 0x1234_5678u32;
    let mem = (0..80)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect();
    (desc, mem)
}

/// Channel `ch` of texel (i, j) of `level` (repeat wrap) as the f64 UNORM value `c/255`.
fn texel(mem: &[u32], level: u32, i: i64, j: i64, ch: usize) -> f64 {
    let n = 8 >> level;
    let base = [0, 64][level as usize];
    let (i, j) = (i.rem_euclid(n), j.rem_euclid(n));
    f64::from((mem[(base + i + n * j) as usize] >> (8 * ch)) & 0xFF) / 255.0
}

/// The footprint of normalised `s` on an axis of `level` (8 texels at level 0): `i0` and the
/// exact fraction, and the fraction truncated to 8 bits as the unit documents
/// (`S = floor(s·8·2^16)`, `S >> level` at that level).
fn axis(s: f32, level: u32) -> (i64, f64, f64) {
    let big = (f64::from(s) * 8.0 * 65536.0).floor() as i64 >> level;
    let u = big as f64 / 65536.0 - 0.5;
    let i0 = u.floor();
    let a = u - i0;
    (i0 as i64, a, (a * 256.0).floor() / 256.0)
}

/// f64 bilinear of channel `ch` at (s, t) with fractions `pick`ed from [`axis`].
fn bilinear(mem: &[u32], level: u32, s: f32, t: f32, ch: usize, truncated: bool) -> f64 {
    let (i0, a, aq) = axis(s, level);
    let (j0, b, bq) = axis(t, level);
    let (a, b) = if truncated { (aq, bq) } else { (a, b) };
    let row = |j| texel(mem, level, i0, j, ch) * (1.0 - a) + texel(mem, level, i0 + 1, j, ch) * a;
    row(j0) * (1.0 - b) + row(j0 + 1) * b
}

/// Runs `src` (a fragment shader) on one warp of `lanes` invocations with `TexEnv`.
fn exec_tex(
    src: &str,
    lang: Lang,
    invs: &[Vec<(&str, Vec<u32>)>],
) -> (Vec<BTreeMap<String, Vec<u32>>>, u64) {
    let c = build(src, lang, true);
    let invs: Vec<launch::Invocation> = invs
        .iter()
        .map(|i| i.iter().map(|(n, w)| (n.to_string(), w.clone())).collect())
        .collect();
    let regs = launch::registers(&c.interface, &invs).unwrap();
    let (desc, mem) = texture();
    let mut env = TexEnv::new(desc, &mem);
    let quads = regs.len().div_ceil(4);
    let mut l = Launch::new(quads);
    l.regs = regs.clone();
    let o = run(&c.words, &Config::default(), &l, &mut env);
    assert_eq!(o.error, None, "{}", c.asm);
    let out = (0..regs.len())
        .map(|lane| {
            launch::outputs(&c.interface, &o.exports[lane])
                .into_iter()
                .map(|(n, w, _)| (n, w))
                .collect()
        })
        .collect();
    (out, env.stats.requests)
}

fn fv(w: &[u32]) -> Vec<f64> {
    w.iter().map(|&x| f64::from(f32::from_bits(x))).collect()
}

#[test]
fn glsl_texture_fetch_and_lod_match_an_f64_bilinear() {
    let (_, mem) = texture();
    // Four quads; each quad's uv are 1/64 apart (a tiny footprint: λ < 0, level 0), spread
    // over the texture and past its edge (repeat).
    let mut invs = Vec::new();
    let mut uvs = Vec::new();
    for q in 0..4 {
        let base = [0.07 + 0.31 * q as f32, 0.93 - 0.27 * q as f32];
        for k in 0..4 {
            let uv = [
                base[0] + (k & 1) as f32 / 64.0,
                base[1] + (k >> 1) as f32 / 64.0,
            ];
            uvs.push(uv);
            let p = [(3 * q + k) % 8, (5 * q + 2 * k) % 8];
            invs.push(vec![("uv", f(&uv)), ("p", vec![p[0] as u32, p[1] as u32])]);
        }
    }
    let (out, requests) = exec_tex(SHADER, frag(), &invs);
    assert_eq!(requests, 4 * 4, "one request per quad and tex");
    // The documented bounds: the unit's integer lerps floor (< 2/65535 in all), the
    // conversion rounds twice (< 2^-23); the 8-bit fractions add at most 2/256.
    let tight = 2.0 / 65535.0 + 2f64.powi(-23);
    let loose = 2.0 / 256.0 + tight;
    for (lane, o) in out.iter().enumerate() {
        let [s, t] = uvs[lane];
        let c = fv(&o["c"]);
        let l = fv(&o["l"]);
        for ch in 0..4 {
            let want = bilinear(&mem, 0, s, t, ch, true);
            assert!(
                (c[ch] - want).abs() <= tight,
                "lane {lane} ch {ch}: {} vs {want}",
                c[ch]
            );
            assert!((c[ch] - bilinear(&mem, 0, s, t, ch, false)).abs() <= loose);
            // textureLod(…, 1.0): λ = 1 exactly, level 1 alone
            let m = fv(&o["m"]);
            let want = bilinear(&mem, 1, s, t, ch, true);
            assert!((m[ch] - want).abs() <= tight, "lane {lane} ch {ch} lod 1");
            // textureLod(…, 0.0) reads the same level here; ×2 is exact
            assert_eq!(l[ch], 2.0 * c[ch], "lane {lane} ch {ch}");
        }
        // texelFetch: the texel itself, c/255 within the conversion's rounding
        let [px, py] = [o_int(&invs[lane], 0), o_int(&invs[lane], 1)];
        let tf = fv(&o["t"]);
        for (ch, v) in tf.iter().enumerate() {
            let want = texel(&mem, 0, px, py, ch);
            assert!((v - want).abs() <= 2f64.powi(-24), "fetch ch {ch}");
        }
    }
}

fn o_int(inv: &[(&str, Vec<u32>)], k: usize) -> i64 {
    inv.iter().find(|(n, _)| *n == "p").unwrap().1[k] as i32 as i64
}

#[test]
fn the_conversion_of_unorm16_answers_is_within_one_ulp_and_exact_at_the_ends() {
    let k = abi::UNORM16_SCALE;
    assert_eq!(k.to_bits(), 0x3780_0080);
    let mut wrong = 0;
    for c in 0..=65535u32 {
        let v = c as f32 * k;
        let exact = f64::from(c) / 65535.0;
        let cr = exact as f32;
        let ulps = (v.to_bits() as i64 - cr.to_bits() as i64).abs();
        assert!(ulps <= 1, "{c}: {ulps} ulps");
        wrong += (ulps != 0) as u32;
    }
    assert_eq!(0.0 * k, 0.0);
    assert_eq!(65535.0 * k, 1.0);
    // Printed for ABI.md.
    println!("{wrong} of 65536 values are 1 ulp from the correctly rounded c/65535");
}

#[test]
fn the_compilers_sampler_words_are_the_texture_units() {
    let s = |w| Sampler::decode(w);
    let sample = s(abi::tex_word_sample(-128));
    assert_eq!(
        sample,
        Sampler {
            linear: true,
            mip: 2,
            lod: -128,
            ..Sampler::default()
        }
    );
    assert_eq!(
        s(abi::tex_word_lod(384)),
        Sampler {
            linear: true,
            mip: 2,
            explicit_lod: true,
            lod: 384,
            ..Sampler::default()
        }
    );
    assert_eq!(
        s(abi::tex_word_fetch(2)),
        Sampler {
            int_coords: true,
            mip: 1,
            explicit_lod: true,
            lod: 512,
            ..Sampler::default()
        }
    );
    assert_eq!(
        s(abi::tex_word_gather(3)),
        Sampler {
            mode: 2,
            mip: 1,
            explicit_lod: true,
            comp: 3,
            ..Sampler::default()
        }
    );
    assert_eq!(abi::lod_q8_8(1.5), Some(384));
    assert_eq!(abi::lod_q8_8(-0.5), Some(-128));
    assert_eq!(abi::lod_q8_8(200.0), None);
    assert_eq!(abi::lod_q8_8(f32::NAN), None);
}

#[test]
fn a_constant_bias_and_lod_go_into_the_word_and_the_asm_shows_it() {
    let src = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 c;
layout(binding = 0) uniform texture2D img;
layout(binding = 1) uniform sampler smp;
void main() {
    c = texture(sampler2D(img, smp), uv, 1.5) + textureLod(sampler2D(img, smp), uv, 2.25);
}";
    let c = build(src, frag(), true);
    let words: Vec<u32> = c
        .asm
        .lines()
        .filter(|l| l.trim_start().starts_with("tex "))
        .map(|l| {
            let imm = l.rsplit(',').next().unwrap().trim();
            let imm = imm.split_whitespace().next().unwrap();
            match imm.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16).unwrap(),
                None => imm.parse::<i64>().unwrap() as u32,
            }
        })
        .collect();
    let mut want = vec![abi::tex_word_sample(384), abi::tex_word_lod(576)];
    let mut got = words.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want, "{}", c.asm);
}

fn err(src: &str) -> String {
    compile(
        src,
        "t.frag",
        &Options::new(Lang::Glsl(ShaderStage::Fragment)),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string()
}

#[test]
fn what_the_unit_cannot_do_is_a_compile_error() {
    let head = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 c;
layout(binding = 0) uniform texture2D a;
layout(binding = 1) uniform texture2D b;
layout(binding = 2) uniform sampler smp;
layout(binding = 3) uniform U { float k; };
";
    let cases = [
        (
            "c = texture(sampler2D(a, smp), uv) + texture(sampler2D(b, smp), uv);",
            "second texture (binding 1",
        ),
        (
            "c = textureLod(sampler2D(a, smp), uv, k);",
            "texture LOD that is not a constant",
        ),
        (
            "c = textureLod(sampler2D(a, smp), uv, 300.0);",
            "outside -128..128",
        ),
        (
            "c = textureOffset(sampler2D(a, smp), uv, ivec2(1, 0));",
            "offset",
        ),
        (
            "c = textureGrad(sampler2D(a, smp), uv, vec2(0.1), vec2(0.1));",
            "gradients",
        ),
        (
            "c = texelFetch(sampler2D(a, smp), ivec2(uv), int(k));",
            "texelFetch level that is not a constant",
        ),
        (
            "c = texelFetch(sampler2D(a, smp), ivec2(uv), 16);",
            "texelFetch level 16 outside 0..=15",
        ),
    ];
    for (body, want) in cases {
        let src = format!("{head}void main() {{ {body} }}");
        let e = err(&src);
        assert!(e.contains(want), "{body}: {e}");
    }
}

/// naga's GLSL front end has no `textureGather`; WGSL's `textureGather` reaches the same
/// lowering.
#[test]
fn wgsl_texture_gather_returns_one_component_of_the_footprint() {
    let (_, mem) = texture();
    let src = "@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return textureGather(1, img, smp, uv);
}";
    let mut invs = Vec::new();
    let mut uvs = Vec::new();
    for k in 0..8 {
        let uv = [0.05 + 0.13 * k as f32, 0.6 - 0.17 * k as f32];
        uvs.push(uv);
        invs.push(vec![("uv", f(&uv))]);
    }
    let (out, requests) = exec_tex(src, Lang::Wgsl, &invs);
    assert_eq!(requests, 2);
    for (lane, o) in out.iter().enumerate() {
        let [s, t] = uvs[lane];
        let (i0, _, _) = axis(s, 0);
        let (j0, _, _) = axis(t, 0);
        let g = fv(o.values().next().unwrap());
        // green of (i0,j1), (i1,j1), (i1,j0), (i0,j0): c/255 within the conversion's rounding
        let order = [(0, 1), (1, 1), (1, 0), (0, 0)];
        for (k, (di, dj)) in order.iter().enumerate() {
            let want = texel(&mem, 0, i0 + di, j0 + dj, 1);
            assert!(
                (g[k] - want).abs() <= 2f64.powi(-24),
                "lane {lane} gather {k}"
            );
        }
    }
}

/// The conversion is `fmul(u2f(w), f32(1/65535))` whatever follows: GLSL contraction does not
/// fuse it with an add (it is emitted as an `ffma` with −0).
#[test]
fn the_conversion_is_not_contracted_into_a_following_add() {
    let src = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 c;
layout(binding = 0) uniform texture2D img;
layout(binding = 1) uniform sampler smp;
void main() {
    c = texture(sampler2D(img, smp), uv) * 3.0 + uv.x;
    c.w = texture(sampler2D(img, smp), uv).x + uv.y;
}";
    let c = build(src, frag(), true);
    assert!(c.asm.contains("ffma"), "{}", c.asm);
    let uvs: Vec<[f32; 2]> = (0..64)
        .map(|i| [0.013 + 0.0151 * i as f32, 0.9 - 0.0137 * i as f32])
        .collect();
    let invs: Vec<_> = uvs.iter().map(|uv| vec![("uv", f(uv))]).collect();
    let out = common::exec(&c, &invs, &[]);
    for (i, [s, t]) in uvs.iter().enumerate() {
        let a = common::unorm_answer(*s, *t);
        // the shader's own `· 3.0 + uv.x` is contracted (GLSL allows it); the conversion is not
        let want = [
            a[0].mul_add(3.0, *s),
            a[1].mul_add(3.0, *s),
            a[2].mul_add(3.0, *s),
            a[0] + t,
        ];
        assert_eq!(out[i]["c"], f(&want), "invocation {i}");
    }
}

/// WGSL's names reach the same words: `textureSampleLevel` an explicit LOD, `textureLoad` an
/// integer fetch, `textureSampleBias` a bias.
#[test]
fn wgsl_builtins_compile_to_the_same_words() {
    let src = "@group(0) @binding(3) var img: texture_2d<f32>;
@group(0) @binding(4) var smp: sampler;
@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return textureSampleLevel(img, smp, uv, 0.5) + textureLoad(img, vec2<i32>(uv), 2)
        + textureSampleBias(img, smp, uv, -1.0);
}";
    let c = compile(src, "t.wgsl", &Options::new(Lang::Wgsl)).unwrap_or_else(|e| panic!("{e}"));
    let mut got: Vec<u32> = c
        .asm
        .lines()
        .filter(|l| l.trim_start().starts_with("tex "))
        .map(|l| {
            let imm = l.rsplit(',').next().unwrap().trim();
            let imm = imm.split_whitespace().next().unwrap();
            match imm.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16).unwrap(),
                None => imm.parse::<i64>().unwrap() as u32,
            }
        })
        .collect();
    let mut want = vec![
        abi::tex_word_lod(128),
        abi::tex_word_fetch(2),
        abi::tex_word_sample(-256),
    ];
    got.sort();
    want.sort();
    assert_eq!(got, want, "{}", c.asm);
}
