//! The compiled shading programs of the example materials, run on the PBRU interpreter for
//! random N, V, L, against an independent f64 evaluation of each material written here from
//! MaterialX's formulas (D4).
//!
//! **Bound** (per colour channel): `2⁻¹⁰·|ref| + 2⁻¹³`. The shading pipelines meet
//! `max(2⁻¹⁰·|f|, 2⁻¹⁴)` (ISA.md); the glue adds Q16.16 roundings (each MUL ≤ 2⁻¹⁷, about
//! twenty per lobe: weights, `f·cos`, the colour products, the sums), the rounding of the
//! material's constants to Q16.16 (≤ 2⁻¹⁷ each), and for microfacet lobes the Fresnel cosine
//! `V·H = √((1 + L·V)/2)` taken from OREN_NAYAR_DIR (≤ 8·10⁻⁶, × the Schlick slope ≤ 5).
//! The worst ratio per material is printed (`--nocapture`).

mod common;
use common::*;

type Material<'a> = &'a dyn Fn(V3, V3, V3, [f64; 2]) -> [f64; 3];

fn scale(c: [f64; 3], s: f64) -> [f64; 3] {
    [c[0] * s, c[1] * s, c[2] * s]
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn rough_diffuse(n: V3, v: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    scale([0.8, 0.3, 0.2], oren_nayar(n, v, l, 0.6) * dot(n, l))
}

fn glossy(n: V3, v: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    let (nl, c) = (dot(n, l), vh(v, l));
    let gold = [0.95, 0.64, 0.54].map(|f0| schlick(f0, 1.0, c) * ggx(n, v, l, 0.2) * nl);
    let f0 = ((1.5f64 - 1.0) / (1.5 + 1.0)).powi(2);
    let coat = scale(
        [1.0, 0.95, 0.9],
        schlick(f0, 1.0, c) * ggx(n, v, l, 0.3) * nl,
    );
    let base = scale([0.1, 0.2, 0.6], oren_nayar(n, v, l, 0.3) * nl);
    add(scale(gold, 0.25), scale(add(coat, base), 0.75))
}

fn sheen_cloth(n: V3, v: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    let nl = dot(n, l);
    add(
        scale([0.9, 0.3, 0.5], sheen(n, v, l, 0.4) * nl),
        scale([0.3, 0.05, 0.1], oren_nayar(n, v, l, 0.5) * nl),
    )
}

fn subsurface_skin(n: V3, v: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    // subsurface_bsdf → SUBSURFACE at roughness 0.5 (ABI.md).
    scale([0.9, 0.55, 0.45], subsurface(n, v, l, 0.5) * dot(n, l))
}

fn toon(n: V3, _: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    scale([0.2, 0.7, 0.3], cel(dot(n, l)))
}

fn nodegraph(n: V3, v: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    // clamp(mix(fg = tint, bg = white, 0.75) · 1.2, 0, 1)
    let tint = [0.9, 0.4, 0.1];
    let colour = tint.map(|t| ((1.0 + (t - 1.0) * 0.75) * 1.2f64).clamp(0.0, 1.0));
    scale(colour, burley(n, v, l, 0.7) * dot(n, l))
}

fn mix_add(n: V3, v: V3, l: V3, _: [f64; 2]) -> [f64; 3] {
    let (nl, c) = (dot(n, l), vh(v, l));
    let copper = [0.95, 0.64, 0.54].map(|f0| schlick(f0, 1.0, c) * ggx(n, v, l, 0.35) * nl);
    let grey = scale([0.5; 3], nl / std::f64::consts::PI);
    let fuzz = scale([0.8, 0.8, 1.0], 0.5 * sheen(n, v, l, 0.3) * nl);
    add(add(scale(copper, 0.3), scale(grey, 0.7)), fuzz)
}

/// Runs `material`'s shading program at `points` random geometries; returns the worst
/// error as a fraction of the bound and the worst absolute error.
fn check(name: &str, reference: Material, points: usize, seed: u64) -> (f64, f64) {
    let c = compile_example(name);
    let (mem, bases) = memory(&c, &c.shading.code);
    let mut rng = Rng(seed);
    let (mut worst, mut worst_abs) = (0.0f64, 0.0f64);
    for i in 0..points {
        let (n, v, l, mut stack) = geometry(&mut rng);
        if name == "cel.mtlx" && [0.0, 0.3, 0.7].iter().any(|t| (dot(n, l) - t).abs() < 1e-4) {
            continue; // a band edge: the exact integer N·L decides
        }
        let uv = [rng.unit() * 4.0 - 2.0, rng.unit() * 4.0 - 2.0];
        stack.extend([q(uv[0]), q(uv[1]), 0]);
        stack.extend(&bases);
        assert_eq!(stack.len(), c.shading.inputs);
        let out = run_to_stop(&mem, i as u32, stack.clone());
        assert_eq!(
            out.len(),
            c.shading.inputs + 4,
            "{name}: inputs, cos, R G B"
        );
        assert_eq!(out[..stack.len()], stack[..], "{name}: the inputs are kept");
        // Three Q16.16 products, each rounded: within 3·2⁻¹⁷.
        let cos = f(out[stack.len()]);
        assert!(
            (cos - dot(n, l)).abs() <= 3.0 / 131072.0,
            "{name}: cos {cos}"
        );
        let want = reference(n, v, l, [f(q(uv[0])), f(q(uv[1]))]);
        for ch in 0..3 {
            let got = f(out[stack.len() + 1 + ch]);
            let err = (got - want[ch]).abs();
            let bound = want[ch].abs() / 1024.0 + 1.0 / 8192.0;
            worst = worst.max(err / bound);
            worst_abs = worst_abs.max(err);
            assert!(
                err <= bound,
                "{name}: channel {ch} at N {n:?} V {v:?} L {l:?}: got {got}, f64 {} (error {err:e}, bound {bound:e})",
                want[ch]
            );
        }
    }
    println!("{name}: worst {worst:.3} of the bound, worst absolute error {worst_abs:.2e}");
    (worst, worst_abs)
}

#[test]
fn rough_diffuse_matches_f64() {
    check("rough_diffuse.mtlx", &rough_diffuse, 2000, 1);
}

#[test]
fn glossy_ggx_schlick_matches_f64() {
    check("glossy.mtlx", &glossy, 2000, 2);
}

#[test]
fn sheen_cloth_matches_f64() {
    check("sheen_cloth.mtlx", &sheen_cloth, 2000, 3);
}

#[test]
fn subsurface_matches_f64() {
    check("subsurface.mtlx", &subsurface_skin, 2000, 4);
}

#[test]
fn cel_matches_f64() {
    check("cel.mtlx", &toon, 2000, 5);
}

#[test]
fn nodegraph_matches_f64() {
    check("nodegraph.mtlx", &nodegraph, 2000, 6);
}

#[test]
fn mix_add_multiply_matches_f64() {
    check("mix_add.mtlx", &mix_add, 2000, 7);
}

#[test]
fn astc_textured_matches_f64() {
    use rendergen_sim::models::astc::{file::AstcFile, image::decode_image, Profile};
    let file = AstcFile::read(example("checker.astc")).unwrap();
    let image = decode_image(&file, Profile::LdrLinear);
    let texel = |uv: [f64; 2]| -> [f64; 3] {
        // uv_scale 2, repeat, mip 0 (sqrt_cov 0): texel floor(frac(2u)·16), floor(frac(2v)·16).
        let at = |x: f64, size: u32| ((2.0 * x).rem_euclid(1.0) * size as f64).floor() as u32;
        let t = image.texel(at(uv[0], image.width), at(uv[1], image.height));
        [0, 1, 2].map(|c| t.rgba[c] as f64 / 65535.0)
    };
    let reference =
        |n: V3, v: V3, l: V3, uv: [f64; 2]| scale(texel(uv), burley(n, v, l, 0.5) * dot(n, l));
    check("textured.mtlx", &reference, 2000, 8);
}

/// The documented cost of Schlick's approximation in `dielectric_bsdf` (ABI.md): against
/// MaterialX's exact dielectric Fresnel (unpolarised), ior 1.5.
#[test]
fn schlick_against_exact_dielectric_fresnel() {
    let eta: f64 = 1.5;
    let f0 = ((eta - 1.0) / (eta + 1.0)).powi(2);
    let (mut worst, mut at) = (0.0f64, 0.0);
    for i in 1..=100_000 {
        let c = i as f64 / 100_000.0;
        let g = (eta * eta - 1.0 + c * c).sqrt();
        let exact = 0.5
            * ((g - c) / (g + c)).powi(2)
            * (1.0 + ((c * (g + c) - 1.0) / (c * (g - c) + 1.0)).powi(2));
        let d = (exact - schlick(f0, 1.0, c)).abs();
        if d > worst {
            (worst, at) = (d, c);
        }
    }
    println!("Schlick vs exact Fresnel, ior 1.5: worst {worst:.4} at cos {at:.3}");
    assert!(worst < 0.036 && (0.08..0.1).contains(&at));
}

/// Grazing and degenerate geometry for the GGX lobes: V and L near the horizon on opposite
/// sides (`L·V → −1`, where the `V·H` square root is steepest), and the mirror direction.
#[test]
fn glossy_at_grazing_angles() {
    let c = compile_example("glossy.mtlx");
    let (mem, _) = memory(&c, &c.shading.code);
    let mut worst = 0.0f64;
    for (i, (cv, cl, phi)) in [
        (0.01, 0.01, std::f64::consts::PI),
        (0.01, 0.02, 3.1),
        (0.05, 0.01, 3.0),
        (0.3, 0.3, 0.0),
        (0.7, 0.7, std::f64::consts::PI),
        (1.0, 1.0, 0.0),
        (0.01, 0.99, 0.5),
    ]
    .into_iter()
    .enumerate()
    {
        let sv = (1.0f64 - cv * cv).sqrt();
        let sl = (1.0f64 - cl * cl).sqrt();
        let (nw, n) = quant([0.0, 0.0, 1.0]);
        let (vw, v) = quant([sv, 0.0, cv]);
        let (lw, l) = quant([sl * phi.cos(), sl * phi.sin(), cl]);
        let mut stack = [nw, vw, lw].concat();
        stack.extend([0, 0, 0]);
        let out = run_to_stop(&mem, i as u32, stack);
        let want = glossy(n, v, l, [0.0; 2]);
        for ch in 0..3 {
            let got = f(out[13 + ch]);
            let bound = want[ch].abs() / 1024.0 + 1.0 / 8192.0;
            worst = worst.max((got - want[ch]).abs() / bound);
            assert!(
                (got - want[ch]).abs() <= bound,
                "N·V {cv} N·L {cl} φ {phi}: {got} vs {}",
                want[ch]
            );
        }
    }
    println!("glossy, grazing: worst {worst:.3} of the bound");
}

/// A light below the horizon (N·L < 0) contributes nothing: every lobe's value is multiplied by
/// `max(N·L, 0) = 0` (cel's band 0 is 0 in the reset table), exactly.
#[test]
fn light_below_the_horizon_gives_black() {
    for name in [
        "rough_diffuse.mtlx",
        "glossy.mtlx",
        "sheen_cloth.mtlx",
        "subsurface.mtlx",
        "cel.mtlx",
        "textured.mtlx",
        "nodegraph.mtlx",
        "mix_add.mtlx",
    ] {
        let c = compile_example(name);
        let (mem, bases) = memory(&c, &c.shading.code);
        let mut rng = Rng(17);
        for i in 0..200 {
            let (n, v, l) = (rng.dir(), rng.dir(), rng.dir());
            if dot(n, l) > -0.001 || dot(n, v) < 0.01 {
                continue;
            }
            let mut stack = [quant(n).0, quant(v).0, quant(l).0].concat();
            stack.extend([q(rng.unit()), q(rng.unit()), 0]);
            stack.extend(&bases);
            let out = run_to_stop(&mem, i, stack);
            assert_eq!(out[out.len() - 4..], [0, 0, 0, 0], "{name}: cos, R G B");
        }
    }
}
