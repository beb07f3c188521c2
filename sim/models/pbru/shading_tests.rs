//! The shading pipelines' binary32 model against the f64 reference (issue 11 §2): ≥ 10⁵ random
//! in-domain points per output within the bound, out-of-domain words saturating (never
//! wrapping), and the grazing and degenerate cases. `cargo test -p rendergen-sim --lib
//! shading -- --nocapture` prints the error table.

use super::shading;
use super::shading_ref::{self, bound_ratio};
use crate::kit::Rng;
use crate::models::fp32::q16::q16_value;

/// Points per sweep.
const POINTS: usize = 100_000;

/// A Q16.16 word of a uniform value in `[lo, hi]`.
pub fn q16_in(rng: &mut Rng, lo: f64, hi: f64) -> u32 {
    let u = rng.below(1 << 30) as f64 / (1u64 << 30) as f64;
    ((lo + (hi - lo) * u) * 65536.0).round() as i32 as u32
}

/// The worst case of one output over a sweep.
#[derive(Clone, Debug, Default)]
pub struct Worst {
    /// Largest error as a multiple of the bound.
    pub ratio: f64,
    /// Largest absolute error.
    pub abs: f64,
    /// Largest relative error (where the reference is not 0).
    pub rel: f64,
    /// The arguments of the worst ratio.
    pub args: Vec<u32>,
}

/// Runs `POINTS` argument vectors from `gen` through `model` and `reference` (the reference
/// saturated to the Q16.16 range, as the ports do) and returns the worst case per output.
pub fn sweep(
    seed: u64,
    mut gen: impl FnMut(&mut Rng) -> Vec<u32>,
    model: impl Fn(&[u32]) -> Vec<u32>,
    reference: impl Fn(&[u32]) -> Vec<f64>,
) -> Vec<Worst> {
    let mut rng = Rng::new(seed);
    let mut worst: Vec<Worst> = Vec::new();
    let (lo, hi) = (i32::MIN as f64 / 65536.0, i32::MAX as f64 / 65536.0);
    for _ in 0..POINTS {
        let a = gen(&mut rng);
        let got = model(&a);
        let want = reference(&a);
        worst.resize(got.len(), Worst::default());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(w.is_finite(), "reference not finite for {a:x?}");
            let (g, w) = (q16_value(*g), w.clamp(lo, hi));
            let r = bound_ratio(g, w);
            let o = &mut worst[i];
            o.abs = o.abs.max((g - w).abs());
            if w != 0.0 {
                o.rel = o.rel.max(((g - w) / w).abs());
            }
            if r > o.ratio {
                o.ratio = r;
                o.args = a.clone();
            }
        }
    }
    worst
}

/// Prints one pipeline's rows of the error table and asserts every output is within the bound.
pub fn report(name: &str, outputs: &[&str], worst: &[Worst]) {
    for (o, w) in outputs.iter().zip(worst) {
        println!(
            "| {name} | {o} | {:.3} | {:.2e} (2^{:.1}) | {:.2e} |",
            w.ratio,
            w.abs,
            w.abs.max(1e-300).log2(),
            w.rel
        );
        assert!(w.ratio <= 1.0, "{name} {o}: {w:?} beyond the bound");
    }
}

#[test]
fn schlick_within_the_bound_in_its_domain() {
    let worst = sweep(
        11,
        |r| {
            let mut a: Vec<u32> = (0..6).map(|_| q16_in(r, 0.0, 1.0)).collect();
            a.push(q16_in(r, 0.01, 1.0));
            a
        },
        |a| shading::schlick(a).to_vec(),
        |a| shading_ref::schlick(a).to_vec(),
    );
    report("SCHLICK", &["F.r", "F.g", "F.b"], &worst);
}

#[test]
fn schlick_saturates_out_of_its_domain() {
    // Any words: huge F0 and F90 (their difference up to 2^32 units), cos anywhere. Outside the
    // domain the bound does not hold (F0 + d·x⁵ cancels in binary32); the result must still be
    // the reference within binary32's resolution of the operands, never wrapped (F is a convex
    // combination of F0 and F90; at the range's ends the conversions saturate, see by_hand).
    let mut rng = Rng::new(12);
    let (lo, hi) = (i32::MIN as f64 / 65536.0, i32::MAX as f64 / 65536.0);
    for _ in 0..POINTS {
        let a: Vec<u32> = (0..7).map(|_| rng.next_u64() as u32).collect();
        let got = shading::schlick(&a);
        let want = shading_ref::schlick(&a);
        for c in 0..3 {
            let (f0, f90) = (q16_value(a[c]), q16_value(a[3 + c]));
            let scale = f0.abs() + (f90 - f0).abs();
            let w = want[c].clamp(lo, hi);
            let err = (q16_value(got[c]) - w).abs();
            assert!(
                err <= scale * 2f64.powi(-22) + 2f64.powi(-16),
                "{a:x?} → {got:x?}, f64 {want:?}"
            );
        }
    }
}

#[test]
fn schlick_by_hand() {
    let one: u32 = 0x1_0000;
    // cos = 1: F0; cos = 0: F90; cos ≤ 0 and cos ≥ 1 clamp.
    assert_eq!(shading::schlick(&[1, 2, 3, one, one, one, one]), [1, 2, 3]);
    assert_eq!(shading::schlick(&[1, 2, 3, 4, 5, 6, 0]), [4, 5, 6]);
    assert_eq!(
        shading::schlick(&[1, 2, 3, 4, 5, 6, one.wrapping_neg()]),
        [4, 5, 6]
    );
    assert_eq!(shading::schlick(&[1, 2, 3, 4, 5, 6, 3 * one]), [1, 2, 3]);
    // F0 0.04, F90 1, cos 0.5: 0.04 + 0.96/32 = 0.07 → 4587.52 units → 4588.
    let f0 = (0.04f64 * 65536.0).round() as u32; // 2621 units
    let want = (2621.0f64 + (65536.0 - 2621.0) / 32.0).round() as u32;
    assert_eq!(
        shading::schlick(&[f0, f0, f0, one, one, one, one / 2])[0],
        want
    );
    // Saturation, not wrap: F90 − F0 = 2^32 − 1 units.
    let max = i32::MAX as u32;
    let min = i32::MIN as u32;
    assert_eq!(shading::schlick(&[min, 0, 0, max, 0, 0, 0])[0], max);
    assert_eq!(
        shading::schlick(&[max, min, 0, max, min, 0, one / 3]),
        [max, min, 0]
    );
}

/// A random unit vector, quantised to Q16.16.
pub fn unit_q16(rng: &mut Rng) -> [u32; 3] {
    loop {
        let v: Vec<f64> = (0..3).map(|_| q16_value(q16_in(rng, -1.0, 1.0))).collect();
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if (0.1..=1.0).contains(&len) {
            return std::array::from_fn(|i| ((v[i] / len) * 65536.0).round() as i32 as u32);
        }
    }
}

/// `N V L` (Q16.16) with `N·V ≥ min_cos` and `N·L ≥ min_cos` (as f64 of the words).
pub fn nvl(rng: &mut Rng, min_cos: f64) -> Vec<u32> {
    let n = unit_q16(rng);
    let dot = |a: &[u32; 3], b: &[u32; 3]| {
        (0..3)
            .map(|i| q16_value(a[i]) * q16_value(b[i]))
            .sum::<f64>()
    };
    let mut facing = || loop {
        let v = unit_q16(rng);
        if dot(&n, &v) >= min_cos {
            return v;
        }
    };
    let (v, l) = (facing(), facing());
    [n, v, l].concat()
}

#[test]
fn oren_nayar_within_the_bound_in_its_domain() {
    let worst = sweep(
        21,
        |r| {
            let mut a = nvl(r, 0.01);
            a.push(q16_in(r, 0.02, 1.0));
            a
        },
        |a| vec![shading::oren_nayar(a)],
        |a| vec![shading_ref::oren_nayar(a)],
    );
    report("OREN_NAYAR", &["f"], &worst);
}

#[test]
fn oren_nayar_dir_within_the_bound_in_its_domain() {
    let worst = sweep(
        22,
        |r| {
            let mut a = unit_q16(r).to_vec();
            a.push(q16_in(r, 0.0, 0.99998));
            a.push(q16_in(r, 0.0, 0.99998));
            a
        },
        |a| shading::oren_nayar_dir(a).to_vec(),
        |a| shading_ref::oren_nayar_dir(a).to_vec(),
    );
    report("OREN_NAYAR_DIR", &["L.x", "L.y", "L.z", "pdf"], &worst);
}

#[test]
fn oren_nayar_at_roughness_zero_is_exactly_one_over_pi() {
    let mut rng = Rng::new(23);
    for i in 0..10_000 {
        // Any vectors, grazing, below the horizon, degenerate.
        let mut a = match i % 3 {
            0 => nvl(&mut rng, 0.0),
            1 => (0..9).map(|_| rng.next_u64() as u32).collect(),
            _ => vec![0; 9],
        };
        a.push(0);
        assert_eq!(shading::oren_nayar(&a), 20861, "{a:x?}");
    }
}

#[test]
fn oren_nayar_degenerate_and_out_of_domain_cases_are_finite_and_saturate() {
    let one: u32 = 0x1_0000;
    let n = [0, 0, one];
    // V = N: s = 0, t = 0 → A/π; L = −V: s < 0 → A/π too.
    let a_only = |rough: u32| {
        let s2 = q16_value(rough).powi(2);
        (1.0 - 0.5 * s2 / (s2 + 0.33)) / std::f64::consts::PI
    };
    let r = one / 2;
    let vn = [&n[..], &n, &[0, one, 0], &[r]].concat();
    assert!((q16_value(shading::oren_nayar(&vn)) - a_only(r)).abs() < 2f64.powi(-14));
    let back = [&n[..], &[0, one, 0], &[0, one.wrapping_neg(), 0], &[r]].concat();
    assert!((q16_value(shading::oren_nayar(&back)) - a_only(r)).abs() < 2f64.powi(-14));
    // N·L = N·V = 0 (both on the horizon): max is 0, t = 0.
    let horizon = [&n[..], &[one, 0, 0], &[one, 0, 0], &[r]].concat();
    assert!((q16_value(shading::oren_nayar(&horizon)) - a_only(r)).abs() < 2f64.powi(-14));
    // Any words: every result is a Q16.16 word of the reference, saturated where it is beyond.
    let mut rng = Rng::new(24);
    let (lo, hi) = (i32::MIN as f64 / 65536.0, i32::MAX as f64 / 65536.0);
    let mut saturated = 0;
    for _ in 0..20_000 {
        let a: Vec<u32> = (0..10).map(|_| rng.next_u64() as u32).collect();
        let want = shading_ref::oren_nayar(&a);
        let got = q16_value(shading::oren_nayar(&a));
        if want > hi {
            assert_eq!(got, hi, "{a:x?}");
            saturated += 1;
        } else if want < lo {
            assert_eq!(got, lo, "{a:x?}");
            saturated += 1;
        }
    }
    assert!(saturated > 0);
    // Directions: ξ outside [0, 1), N not unit, N = 0: finite words, pdf ≥ 0.
    for _ in 0..20_000 {
        let a: Vec<u32> = (0..5).map(|_| rng.next_u64() as u32).collect();
        let d = shading::oren_nayar_dir(&a);
        assert!(d[3] as i32 >= 0, "{a:x?} → {d:x?}");
    }
    // N = 0: the frame of +z's branch (T = x, B = y), so L = (√ξ1·cos 2πξ2, √ξ1·sin 2πξ2, 0);
    // the pdf is z/π of the sample (N·L/π only for unit N).
    let d = shading::oren_nayar_dir(&[0, 0, 0, one / 2, one / 4]);
    let half = (0.5f64.sqrt() * 65536.0).round() as u32;
    assert_eq!(
        d,
        [
            0,
            half,
            0,
            (0.5f64.sqrt() / std::f64::consts::PI * 65536.0).round() as u32
        ]
    );
}

#[test]
fn ggx_within_the_bound_in_its_domain() {
    let worst = sweep(
        31,
        |r| {
            let mut a = nvl(r, 0.01);
            a.push(q16_in(r, 0.02, 1.0));
            a
        },
        |a| vec![shading::ggx(a)],
        |a| vec![shading_ref::ggx(a)],
    );
    report("GGX", &["f"], &worst);
}

#[test]
fn ggx_near_the_peak_with_small_alpha() {
    // H ≈ N (L ≈ V ≈ N) where D peaks at 1/(πα²): the hardest case for binary32.
    let worst = sweep(
        32,
        |r| {
            let n = unit_q16(r);
            let jitter =
                |r: &mut Rng, c: u32| c.wrapping_add(r.below(600) as u32).wrapping_sub(300);
            let v: Vec<u32> = n.iter().map(|c| jitter(r, *c)).collect();
            let l: Vec<u32> = n.iter().map(|c| jitter(r, *c)).collect();
            let mut a = [&n[..], &v, &l].concat();
            a.push(q16_in(r, 0.02, 0.05));
            a
        },
        |a| vec![shading::ggx(a)],
        |a| vec![shading_ref::ggx(a)],
    );
    report("GGX (peak, α ≤ 0.05)", &["f"], &worst);
}

#[test]
fn sheen_within_the_bound_in_its_domain() {
    let worst = sweep(
        41,
        |r| {
            let mut a = nvl(r, 0.01);
            a.push(q16_in(r, 0.0, 1.0));
            a
        },
        |a| vec![shading::sheen(a)],
        |a| vec![shading_ref::sheen(a)],
    );
    report("SHEEN", &["f"], &worst);
}

#[test]
fn subsurface_within_the_bound_in_its_domain() {
    let worst = sweep(
        42,
        |r| {
            let mut a = nvl(r, 0.01);
            a.push(q16_in(r, 0.0, 1.0));
            a
        },
        |a| vec![shading::subsurface(a)],
        |a| vec![shading_ref::subsurface(a)],
    );
    report("SUBSURFACE", &["f"], &worst);
}

#[test]
fn half_vector_shaders_are_finite_on_any_words_and_degenerate_vectors() {
    // Any words and L = −V, V = N, zero vectors: every result is a Q16.16 word (saturated when
    // the f64 value is beyond the range); in range, within binary32's reach of the reference.
    let one: u32 = 0x1_0000;
    let n = [0, 0, one];
    let cases: Vec<Vec<u32>> = vec![
        [
            &n[..],
            &[0, one, 0],
            &[0, one.wrapping_neg(), 0],
            &[one / 2],
        ]
        .concat(),
        [&n[..], &n, &n, &[one / 2]].concat(),
        vec![0; 10],
    ];
    for a in &cases {
        for f in [shading::ggx, shading::sheen, shading::subsurface] {
            let _ = f(a);
        }
    }
    // L = −V: NH = 0 in both; GGX gives D(NH = 0)·…, sheen D = (2 + 1/r)/(2π)/(4·(NL+NV−NL·NV)).
    let back = &cases[0];
    let (lo, hi) = (i32::MIN as f64 / 65536.0, i32::MAX as f64 / 65536.0);
    for (got, want) in [
        (shading::sheen(back), shading_ref::sheen(back)),
        (shading::subsurface(back), shading_ref::subsurface(back)),
    ] {
        // An undefined f64 value (0·∞: subsurface's Fss = 0 times 1/(NL + NV) = ∞) is 0.
        let want = if want.is_nan() {
            0.0
        } else {
            want.clamp(lo, hi)
        };
        assert!(
            (q16_value(got) - want).abs() <= want.abs() * 1e-3 + 1e-4,
            "{got:#x} vs {want}"
        );
    }
}

#[test]
fn cel_equals_the_reference_exactly() {
    let mut rng = Rng::new(51);
    let mut t = shading::CelTable::default();
    for i in 0..POINTS {
        if i % 1000 == 0 {
            // A new ascending table.
            let mut thr: Vec<u32> = (0..3).map(|_| q16_in(&mut rng, -1.0, 1.0)).collect();
            thr.sort_by_key(|x| *x as i32);
            for (e, w) in thr
                .iter()
                .chain(&[1, 2, 3, 4].map(|_| rng.next_u64() as u32))
                .enumerate()
            {
                assert_eq!(shading::cel_request(0x80 | e as u32, &[*w], &mut t), *w);
            }
        }
        let a: Vec<u32> = match i % 3 {
            0 => [unit_q16(&mut rng), unit_q16(&mut rng)].concat(),
            1 => (0..6).map(|_| rng.next_u64() as u32).collect(),
            // N·L exactly on a threshold.
            _ => vec![t.0[rng.below(3) as usize], 0, 0, 0x1_0000, 0, 0],
        };
        let want = shading_ref::cel(
            &a,
            [t.0[0], t.0[1], t.0[2]],
            [t.0[3], t.0[4], t.0[5], t.0[6]],
        );
        assert_eq!(q16_value(shading::cel(&a, &t)), want, "{a:x?} {t:x?}");
    }
}

#[test]
fn cel_reset_table_by_hand() {
    let t = shading::CelTable::default();
    let one: u32 = 0x1_0000;
    let n = [0, 0, one];
    let at = |z: u32| shading::cel(&[&n[..], &[0, 0, z]].concat(), &t);
    assert_eq!(at(one.wrapping_neg()), 0); // below the horizon
    assert_eq!(at(0), 0x4CCD); // exactly on threshold 0: band 1
    assert_eq!(at(0x4CCC), 0x4CCD);
    assert_eq!(at(0x4CCD), 0xB333);
    assert_eq!(at(one), one);
    // An entry beyond the table is ignored but acknowledged.
    let mut t2 = t;
    assert_eq!(shading::cel_request(0x87, &[5], &mut t2), 5);
    assert_eq!(t2, t);
}

/// `N V α ξ1 ξ2` words: unit N and V with `N·V ≥ min_cos` (as f64 of the words), α in
/// `alpha`, ξ1 in [0, 1), ξ2 in `xi2`.
fn ggx_dir_args(rng: &mut Rng, min_cos: f64, alpha: (f64, f64), xi2: (f64, f64)) -> Vec<u32> {
    let nvl = nvl(rng, min_cos);
    let mut a = nvl[0..6].to_vec();
    a.push(q16_in(rng, alpha.0, alpha.1));
    a.push(q16_in(rng, 0.0, 0.99998));
    a.push(q16_in(rng, xi2.0, xi2.1));
    a
}

#[test]
fn ggx_dir_within_the_bound_in_its_domain() {
    let worst = sweep(
        33,
        |r| ggx_dir_args(r, 0.01, (0.02, 1.0), (0.0, 0.99998)),
        |a| shading::ggx_dir(a).to_vec(),
        |a| shading_ref::ggx_dir(a).to_vec(),
    );
    report("GGX_DIR", &["L.x", "L.y", "L.z", "pdf"], &worst);
}

#[test]
fn ggx_dir_grazing_and_degenerate_cases_within_the_bound() {
    // Grazing views (N·V in [0.01, 0.03]), ξ2 just below 1 (the cap's rim, where c ≈ −Vh),
    // the domain's smallest and largest α, V = N, ξ = 0.
    let one = 0x1_0000u32;
    let worst = sweep(
        34,
        |r| {
            let mut a = match r.below(4) {
                0 => loop {
                    let a = ggx_dir_args(r, 0.01, (0.02, 1.0), (0.0, 0.99998));
                    let nv: f64 = (0..3).map(|i| q16_value(a[i]) * q16_value(a[3 + i])).sum();
                    if nv <= 0.03 {
                        break a;
                    }
                },
                1 => ggx_dir_args(r, 0.01, (0.02, 1.0), (0.999, 0.99998)),
                2 => {
                    let mut a = ggx_dir_args(r, 0.01, (0.02, 1.0), (0.0, 0.99998));
                    a.copy_within(0..3, 3);
                    a
                }
                _ => ggx_dir_args(r, 0.01, (0.02, 1.0), (0.0, 0.99998)),
            };
            match r.below(4) {
                0 => a[6] = (0.02f64 * 65536.0).round() as u32,
                1 => a[6] = one,
                _ => {}
            }
            if r.chance(0.05) {
                a[7] = 0;
                a[8] = 0;
            }
            if r.chance(0.05) {
                a[8] = one - 1;
            }
            a
        },
        |a| shading::ggx_dir(a).to_vec(),
        |a| shading_ref::ggx_dir(a).to_vec(),
    );
    report(
        "GGX_DIR (grazing, rim, V = N)",
        &["L.x", "L.y", "L.z", "pdf"],
        &worst,
    );
}

#[test]
fn ggx_dir_samples_follow_the_ggx_distribution_at_normal_view() {
    // For V = N, VNDF sampling is D(H)·(N·H) sampling: P(tan²θh ≤ t) = t/(α² + t), and
    // L = reflect(−V, H) is below the horizon exactly when tan²θh > 1 (probability
    // α²/(α² + 1)): L can point below the surface, and the pdf stays the formula's (a renderer
    // counts such a sample as no contribution). Each L is a unit vector and each pdf positive.
    let mut rng = Rng::new(35);
    let one = 0x1_0000u32;
    for alpha in [0.1f64, 0.5, 1.0] {
        let samples = 10_000;
        let thresholds = [0.05f64, 0.25, 1.0, 4.0];
        let mut below_t = [0usize; 4];
        let mut below_horizon = 0;
        for _ in 0..samples {
            let n = unit_q16(&mut rng);
            let a = [
                &n[..],
                &n,
                &[(alpha * 65536.0).round() as u32],
                &[
                    q16_in(&mut rng, 0.0, 0.99998),
                    q16_in(&mut rng, 0.0, 0.99998),
                ],
            ]
            .concat();
            let d = shading::ggx_dir(&a);
            let l: Vec<f64> = d[0..3].iter().map(|w| q16_value(*w)).collect();
            let nv: Vec<f64> = n.iter().map(|w| q16_value(*w)).collect();
            let len = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-3, "{a:x?} → {d:x?}");
            assert!(d[3] as i32 > 0 && d[3] < one * 1000, "{a:x?} → {d:x?}");
            let nl: f64 = (0..3).map(|k| nv[k] * l[k]).sum();
            // N·H = √((1 + N·L)/2) for V = N.
            let nh2 = ((1.0 + nl) / 2.0).max(1e-12);
            let tan2 = (1.0 - nh2) / nh2;
            for (k, t) in thresholds.iter().enumerate() {
                below_t[k] += (tan2 <= *t) as usize;
            }
            below_horizon += (nl < 0.0) as usize;
        }
        let a2 = alpha * alpha;
        for (k, t) in thresholds.iter().enumerate() {
            let got = below_t[k] as f64 / samples as f64;
            assert!((got - t / (a2 + t)).abs() < 0.015, "α {alpha} t {t}: {got}");
        }
        let got = below_horizon as f64 / samples as f64;
        assert!(
            (got - a2 / (a2 + 1.0)).abs() < 0.015,
            "α {alpha}: {got} below"
        );
    }
}

#[test]
fn ggx_dir_out_of_its_domain_is_finite_and_saturates() {
    let mut rng = Rng::new(36);
    let hi = i32::MAX as u32;
    // α = 0: D is infinite, the pdf saturates (no wrap).
    for _ in 0..2_000 {
        let mut a = ggx_dir_args(&mut rng, 0.01, (0.0, 0.0), (0.0, 0.99998));
        a[6] = 0;
        assert_eq!(shading::ggx_dir(&a)[3], hi, "{a:x?}");
    }
    // α below the domain: the pdf saturates exactly where the f64 value is beyond the range.
    let mut saturated = 0;
    for _ in 0..20_000 {
        let mut a = ggx_dir_args(&mut rng, 0.01, (0.0, 0.0), (0.0, 0.99998));
        a[6] = 1 + rng.below(200) as u32;
        let want = shading_ref::ggx_dir(&a)[3];
        let got = shading::ggx_dir(&a)[3];
        assert!(got as i32 >= 0, "{a:x?}");
        if want > 32768.0 * 1.001 {
            assert_eq!(got, hi, "{a:x?} f64 {want}");
            saturated += 1;
        }
    }
    assert!(saturated > 0);
    // Any words, zero vectors, ξ beyond [0, 1): Q16.16 words, the pdf never negative.
    for i in 0..20_000 {
        let a: Vec<u32> = match i % 3 {
            0 => (0..9).map(|_| rng.next_u64() as u32).collect(),
            1 => {
                let mut a = vec![0; 9];
                a[6..9].copy_from_slice(&[0x8000, rng.next_u64() as u32, 0x1_0000]);
                a
            }
            _ => {
                let mut a = ggx_dir_args(&mut rng, 0.01, (0.02, 1.0), (0.0, 0.99998));
                a[7] = rng.next_u64() as u32;
                a[8] = rng.next_u64() as u32;
                a
            }
        };
        let d = shading::ggx_dir(&a);
        assert!(d[3] as i32 >= 0, "{a:x?} → {d:x?}");
    }
}

#[test]
fn ggx_dir_on_the_cap_rim_facing_away_is_the_documented_exception() {
    // ξ2 above 1 − 2⁻⁹ and φ within 2⁻¹¹ turn of the direction of −Vt.xy (2⁻¹⁹ of the ξ
    // square): c ≈ −Vh, so Hh = c + Vh cancels in binary32 (|Hh| down to ~2⁻¹⁵; φ = 2π·ξ1
    // carries 2⁻²⁴ of 2π) and H, hence L, loses bits (H is nearly perpendicular to V there,
    // L close to −V). The region is the documented exception to the bound (ISA.md gives the
    // measured worst case, which this test bounds: L within 2⁻⁶, pdf within a quarter of its
    // value).
    let one = 0x1_0000u32;
    let worst = sweep(
        37,
        |r| {
            let mut a = ggx_dir_args(r, 0.01, (0.02, 1.0), (0.0, 0.99998));
            let v = shading_ref::ggx_dir_tangent_view(&a);
            let turn = (-v[1]).atan2(-v[0]) / std::f64::consts::TAU;
            let xi1 = (turn.rem_euclid(1.0) * 65536.0).round() as i64;
            a[7] = (xi1 + r.below(65) as i64 - 32).rem_euclid(0x1_0000) as u32;
            a[8] = one - 1 - r.below(128) as u32;
            a
        },
        |a| shading::ggx_dir(a).to_vec(),
        |a| shading_ref::ggx_dir(a).to_vec(),
    );
    for (o, w) in ["L.x", "L.y", "L.z", "pdf"].iter().zip(&worst) {
        println!(
            "| GGX_DIR (rim, φ at −Vh) | {o} | {:.3} | {:.2e} (2^{:.1}) | {:.2e} |",
            w.ratio,
            w.abs,
            w.abs.max(1e-300).log2(),
            w.rel
        );
    }
    for w in &worst[0..3] {
        assert!(w.abs <= 2f64.powi(-6), "{w:?}");
    }
    assert!(worst[3].rel <= 0.25, "{:?}", worst[3]);
}
