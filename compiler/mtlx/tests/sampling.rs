//! The importance-sampling programs on the PBRU interpreter: the chosen lobe's frequency
//! follows the albedo weights (chi-square, fixed seeds), each case leaves its lobe's own
//! direction and pdf (the pipelines' answers to the arguments the ABI names), and the lobe's
//! value at that direction matches the f64 evaluation.

mod common;
use common::*;
use rendergen_isa::Opcode;
use rendergen_sim::models::pbru::{pipes::pipeline, Memory};
use std::f64::consts::PI;

/// The output of one sampling run (`ABI.md`).
struct Sample {
    w_sum: f64,
    dir: [u32; 3],
    pdf: u32,
    rgb: [f64; 3],
    w_k: f64,
    k: u32,
}

fn sample(mem: &Memory, inputs: usize, ray_id: u32, stack: &[u32]) -> Sample {
    let out = run_to_stop(mem, ray_id, stack.to_vec());
    assert_eq!(
        out.len(),
        inputs + 10,
        "inputs, W_sum, L, pdf, R G B, W_k, k"
    );
    assert_eq!(out[..inputs], stack[..], "the inputs are kept");
    let o = &out[inputs..];
    Sample {
        w_sum: f(o[0]),
        dir: [o[1], o[2], o[3]],
        pdf: o[4],
        rgb: [f(o[5]), f(o[6]), f(o[7])],
        w_k: f(o[8]),
        k: o[9],
    }
}

/// `N V u v sqrt_cov ξ1 ξ2` words (no textures).
fn inputs(n: [u32; 3], v: [u32; 3], xi: [f64; 2]) -> Vec<u32> {
    let mut s = n.to_vec();
    s.extend(v);
    s.extend([0, 0, 0, q(xi[0]), q(xi[1])]);
    s
}

fn close(got: f64, want: f64, what: &str) {
    let bound = want.abs() / 1024.0 + 1.0 / 8192.0;
    assert!((got - want).abs() <= bound, "{what}: got {got}, f64 {want}");
}

/// Cosine sampling as ISA.md specifies OREN_NAYAR_DIR (frame of Duff et al. 2017), in f64.
fn cosine_dir(n: V3, xi: [f64; 2]) -> (V3, f64) {
    let s = if n[2] >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (s + n[2]);
    let b = n[0] * n[1] * a;
    let t = [1.0 + s * n[0] * n[0] * a, s * b, -s * n[0]];
    let bb = [b, s + n[1] * n[1] * a, -n[1]];
    let (r, phi) = (xi[0].sqrt(), 2.0 * PI * xi[1]);
    let z = (1.0 - xi[0]).sqrt();
    let l = [0, 1, 2].map(|i| r * phi.cos() * t[i] + r * phi.sin() * bb[i] + z * n[i]);
    (l, z / PI)
}

#[test]
fn rough_diffuse_samples_cosine_and_weighs_by_the_lobe() {
    let c = compile_example("rough_diffuse.mtlx");
    let (mem, _) = memory(&c, &c.sampling.code);
    let mut rng = Rng(11);
    for i in 0..500 {
        let (n, v, _, w) = geometry(&mut rng);
        let xi = [rng.unit(), rng.unit()];
        let stack = inputs([w[0], w[1], w[2]], [w[3], w[4], w[5]], xi);
        let s = sample(&mem, c.sampling.inputs, i, &stack);
        // The lobe's direction: OREN_NAYAR_DIR's answer to N ξ1 ξ2 …
        let mut args = stack[0..3].to_vec();
        args.extend([stack[9], stack[10]]);
        let dir = pipeline(Opcode::OrenNayarDir, 0, &args, &mem).unwrap();
        assert_eq!((s.dir.to_vec(), s.pdf), (dir[0..3].to_vec(), dir[3]));
        // … which is cosine sampling around N.
        let (l, pdf) = cosine_dir(n, [f(stack[9]), f(stack[10])]);
        for k in 0..3 {
            assert!(
                (f(s.dir[k]) - l[k]).abs() < 1e-4,
                "L {:?} vs {l:?}",
                s.dir.map(f)
            );
        }
        assert!((f(s.pdf) - pdf).abs() < 1e-4);
        let albedo = (0.8 + 0.3 + 0.2) / 3.0;
        close(s.w_sum, albedo, "W_sum");
        close(s.w_k, albedo, "W_k");
        assert_eq!(s.k, 0);
        let l = s.dir.map(f);
        let value = oren_nayar(n, v, l, 0.6) * dot(n, l).max(0.0);
        for (ch, col) in [0.8, 0.3, 0.2].iter().enumerate() {
            close(s.rgb[ch], col * value, "R G B");
        }
    }
}

#[test]
fn lobe_frequencies_follow_the_albedo_weights() {
    let c = compile_example("mix_add.mtlx");
    assert_eq!(c.lobes, ["generalized_schlick", "lambert", "sheen"]);
    let (mem, _) = memory(&c, &c.sampling.code);
    let mut rng = Rng(12);
    for trial in 0..3 {
        let (n, v, _, w) = geometry(&mut rng);
        let xi = [rng.unit(), rng.unit()];
        let stack = inputs([w[0], w[1], w[2]], [w[3], w[4], w[5]], xi);
        // Albedo estimates, f64: mean weight, times the mean of Schlick's F at N·V for the metal.
        let nv = dot(n, v);
        let copper = [0.95, 0.64, 0.54].map(|f0| 0.3 * schlick(f0, 1.0, nv));
        let weights = [
            copper.iter().sum::<f64>() / 3.0,
            0.7 * 0.5,
            0.5 * (0.8 + 0.8 + 1.0) / 3.0,
        ];
        let total: f64 = weights.iter().sum();
        let rays = 6000;
        let mut counts = [0usize; 3];
        for id in 0..rays {
            let s = sample(&mem, c.sampling.inputs, 1000 * trial + id, &stack);
            let k = s.k as usize;
            counts[k] += 1;
            close(s.w_sum, total, "W_sum");
            close(s.w_k, weights[k], "W_k");
            // The case's own direction function on the ABI's arguments.
            let (op, args) = if k == 0 {
                let mut a = stack[0..6].to_vec();
                a.extend([q(0.35), stack[9], stack[10]]);
                (Opcode::GgxDir, a)
            } else {
                let mut a = stack[0..3].to_vec();
                a.extend([stack[9], stack[10]]);
                (Opcode::OrenNayarDir, a)
            };
            let dir = pipeline(op, 0, &args, &mem).unwrap();
            assert_eq!(
                (s.dir.to_vec(), s.pdf),
                (dir[0..3].to_vec(), dir[3]),
                "case {k}"
            );
            if k > 0 {
                let l = s.dir.map(f);
                let nl = dot(n, l).max(0.0);
                let want = if k == 1 {
                    [0.35 * nl / PI; 3]
                } else {
                    [0.8, 0.8, 1.0].map(|c| 0.5 * c * sheen(n, v, l, 0.3) * nl)
                };
                for (got, want) in s.rgb.iter().zip(want) {
                    close(*got, want, "R G B");
                }
            }
        }
        let chi2: f64 = (0..3)
            .map(|k| {
                let e = rays as f64 * weights[k] / total;
                (counts[k] as f64 - e).powi(2) / e
            })
            .sum();
        println!("trial {trial}: counts {counts:?}, weights {weights:?}, chi² {chi2:.2}");
        // 2 degrees of freedom: P(χ² > 13.82) = 0.001.
        assert!(
            chi2 < 13.82,
            "chi² {chi2} for counts {counts:?} and weights {weights:?}"
        );
    }
}

#[test]
fn every_example_samples_within_the_stack() {
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
        assert!(
            c.sampling.max_depth <= 32 && c.shading.max_depth <= 32,
            "{name}"
        );
        let (mem, bases) = memory(&c, &c.sampling.code);
        let mut rng = Rng(13);
        let mut seen = vec![false; c.lobes.len()];
        for id in 0..200 {
            let (_, _, _, w) = geometry(&mut rng);
            let mut stack = inputs(
                [w[0], w[1], w[2]],
                [w[3], w[4], w[5]],
                [rng.unit(), rng.unit()],
            );
            stack[6] = q(rng.unit());
            stack[7] = q(rng.unit());
            stack.extend(&bases);
            let s = sample(&mem, c.sampling.inputs, id, &stack);
            seen[s.k as usize] = true;
            assert!(
                s.w_k > 0.0 && s.w_sum >= s.w_k,
                "{name}: W_k {} W_sum {}",
                s.w_k,
                s.w_sum
            );
        }
        assert!(
            seen.iter().all(|&s| s),
            "{name}: every lobe is chosen sometimes: {seen:?}"
        );
    }
}

/// The renderer's view (`rendergen_mtlx_compiler::abi`): stacks built and results read by the
/// ABI helpers; the throughput of a cosine-sampled Lambert lobe is its colour (f·cos/pdf).
#[test]
fn abi_helpers_build_and_read_the_stacks() {
    use rendergen_mtlx_compiler::abi::{sampled, sampling_stack, shaded, shading_stack, Hit};
    let c = compile_example("textured.mtlx");
    let (mem_shade, bases) = memory(&c, &c.shading.code);
    let hit = Hit {
        n: [0.0, 0.0, 1.0],
        v: norm([0.3, 0.1, 1.0]),
        uv: [0.1, 0.7],
        sqrt_cov: 0.0,
    };
    let l = norm([-0.2, 0.4, 1.0]);
    let stack = shading_stack(&hit, l, &bases);
    assert_eq!(stack.len(), c.shading.inputs);
    let out = shaded(&run_to_stop(&mem_shade, 1, stack), 1).unwrap();
    assert!((out.cos - l[2]).abs() < 1e-4 && out.rgb.iter().all(|&x| x > 0.0));

    let text = doc(
        r#"<oren_nayar_diffuse_bsdf name="d" type="BSDF"><input name="color" type="color3" value="0.5, 0.25, 0.75"/></oren_nayar_diffuse_bsdf>"#,
        "d",
    );
    let c = rendergen_mtlx_compiler::compile(&text, &Default::default()).unwrap();
    let (mem, _) = memory(&c, &c.sampling.code);
    let mut rng = Rng(41);
    for id in 0..200 {
        let stack = sampling_stack(&hit, [rng.unit(), rng.unit()], &[]);
        let s = sampled(&run_to_stop(&mem, id, stack), 0).unwrap();
        let t = s.throughput().unwrap();
        for (got, want) in t.iter().zip([0.5, 0.25, 0.75]) {
            assert!((got - want).abs() < 2e-3, "throughput {t:?}");
        }
    }
}
