//! The interpreter (bit-exact with the RTL core) against Mesa's llvmpipe, the conformant
//! outside reference, on the example and test GLSL shaders with a few hundred random
//! invocations each (`rendergen_gen::shader::llvmpipe`). The bounds, the measured worst errors
//! and why they are what they are: `gen/tests/llvmpipe/README.md`. Print the table with
//! `cargo test -p rendergen-gen --test llvmpipe -- --nocapture`.
//!
//! A machine without libEGL or llvmpipe fails these tests with the engine's message (the
//! project installs both: `scripts/install-deps.sh`).

use rendergen_gen::shader::{self, llvmpipe, Engine, Exports};
use rendergen_shader_compiler::ir::Ty;
use rendergen_shader_compiler::{launch, Compiled};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// The allowed difference of one float output: within `ulp` units in the last place, or
/// within `abs` (for results near zero after cancellation).
#[derive(Clone, Copy, Debug)]
struct Bound {
    ulp: u64,
    abs: f32,
}

const EXACT: Bound = Bound { ulp: 0, abs: 0.0 };

struct Case {
    /// Path from the `gen` folder.
    file: &'static str,
    invocations: usize,
    /// Float inputs by name: range (default ±4).
    ranges: &'static [(&'static str, f32, f32)],
    /// Float outputs by name: bound (others: `default_bound`).
    bounds: &'static [(&'static str, Bound)],
    /// The bound of float outputs not in `bounds` (default exact).
    default_bound: Bound,
    /// (output, component, quad lanes compared): coarse derivatives, compared only where
    /// coarse equals llvmpipe's fine.
    lanes: &'static [(&'static str, usize, u8)],
    /// Outputs where +0 and −0 count as equal (min/max of zeros of opposite signs: GLSL
    /// defines them by comparisons, which cannot tell the zeros apart; elsewhere an exact
    /// output must have the same bits).
    any_zero: &'static [&'static str],
    /// Outputs not compared (GLSL leaves them undefined for these inputs).
    skip: &'static [&'static str],
    /// Float inputs drawn half of the time from these special values.
    specials: &'static [f32],
    /// Compare only lane 0 of each quad (where coarse and fine derivatives agree).
    lane0_only: bool,
    /// Integer inputs small (±100, 0..300) only, never full-range (loop bounds).
    small_ints: bool,
    /// Integer inputs non-negative (GLSL leaves `%` of negative operands undefined).
    nonneg_ints: bool,
    /// Quads whose lanes are all discarded or all kept (derivatives after a discard in the
    /// quad are undefined): the first float input of a quad shares its sign.
    quad_sign: bool,
}

impl Default for Case {
    fn default() -> Case {
        Case {
            file: "",
            invocations: 400,
            ranges: &[],
            bounds: &[],
            default_bound: EXACT,
            lanes: &[],
            any_zero: &[],
            skip: &[],
            specials: &[],
            lane0_only: false,
            small_ints: false,
            nonneg_ints: false,
            quad_sign: false,
        }
    }
}

/// Signed zeros, ±1, infinities, the extreme normals.
const SPECIALS: [f32; 11] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    -f32::MAX,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    0.5,
];

/// The same with NaN and denormals.
const SPECIALS_NAN_DENORMAL: [f32; 14] = [
    0.0,
    -0.0,
    1.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1e-40,
    -1e-40,
    f32::MAX,
    -f32::MAX,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    0.5,
    -3.0,
];

fn ulps(a: f32, b: f32) -> u64 {
    let ord = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (ord(a) - ord(b)).unsigned_abs()
}

fn gen_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(file)
}

/// Random invocations for `c`'s inputs.
fn invocations(c: &Compiled, case: &Case, seed: u64) -> Vec<launch::Invocation> {
    let mut rng = Rng(seed);
    let mut signs = Vec::new();
    (0..case.invocations)
        .map(|i| {
            if i % 4 == 0 {
                signs = (0..4).map(|_| rng.unit() < 0.2).collect();
            }
            let mut inv = BTreeMap::new();
            let mut first_float = true;
            for v in &c.interface.inputs {
                let words: Vec<u32> = if v.name.ends_with("Index") {
                    // gl_VertexIndex, gl_InstanceIndex: GLSL's are int, naga's uint; real
                    // indices are below 2^31, where they agree.
                    vec![(rng.next() % 100_000) as u32]
                } else if v.name == "gl_FragCoord" {
                    let (q, k) = (i / 4, i % 4);
                    let x = (2 * (q % 32) + (k & 1)) as f32 + 0.5;
                    let y = (2 * (q / 32) + (k >> 1)) as f32 + 0.5;
                    vec![
                        x.to_bits(),
                        y.to_bits(),
                        rng.unit().to_bits(),
                        1f32.to_bits(),
                    ]
                } else {
                    let (lo, hi) = (case.ranges.iter())
                        .find(|r| r.0 == v.name)
                        .map_or((-4.0, 4.0), |r| (r.1, r.2));
                    (v.tys.iter())
                        .map(|t| match t {
                            Ty::F32 if !case.specials.is_empty() && rng.next() & 1 == 0 => {
                                let n = case.specials.len() as u64;
                                case.specials[(rng.next() % n) as usize].to_bits()
                            }
                            Ty::F32 => {
                                let mut x = match rng.next() % 16 {
                                    0 => 0.0,
                                    1 => -0.0,
                                    2 => 1.0,
                                    _ => rng.range(lo, hi),
                                };
                                if !(lo..=hi).contains(&x) {
                                    x = lo;
                                }
                                if case.quad_sign && first_float {
                                    first_float = false;
                                    x = if signs[0] { -x.abs() - 0.5 } else { x.abs() };
                                }
                                x.to_bits()
                            }
                            Ty::I32 => match rng.next() % 4 {
                                0 if !case.small_ints => rng.next() as u32,
                                _ if case.nonneg_ints => (rng.next() % 200) as u32,
                                _ => ((rng.next() % 200) as i32 - 100) as u32,
                            },
                            Ty::U32 => match rng.next() % 4 {
                                0 if !case.small_ints => rng.next() as u32,
                                _ => (rng.next() % 300) as u32,
                            },
                            Ty::Bool => (rng.next() & 1) as u32,
                        })
                        .collect()
                };
                inv.insert(v.name.clone(), words);
            }
            inv
        })
        .collect()
}

/// Random uniform words (floats in ±2, small integers).
fn uniforms(c: &Compiled, seed: u64) -> Vec<u32> {
    let mut rng = Rng(seed ^ 0x5151);
    let values: BTreeMap<String, Vec<u32>> = (c.interface.uniforms.iter())
        .map(|u| {
            let w = (u.words.iter())
                .map(|&(_, t)| match t {
                    Ty::F32 => rng.range(-2.0, 2.0).to_bits(),
                    _ => (rng.next() % 8) as u32,
                })
                .collect();
            (u.name.clone(), w)
        })
        .collect();
    launch::uniforms(&c.interface, &values).unwrap()
}

/// Worst differences of one output component.
#[derive(Default)]
struct Worst {
    ulp: u64,
    abs: f32,
    compared: usize,
}

/// Compares the two engines' outputs; returns the worst error per output, or the first
/// disagreement beyond its bound.
fn compare(
    c: &Compiled,
    case: &Case,
    model: &[Exports],
    gl: &[Exports],
) -> Result<BTreeMap<String, Worst>, String> {
    let mut worst: BTreeMap<String, Worst> = BTreeMap::new();
    assert_eq!(model.len(), gl.len());
    for (i, (m, g)) in model.iter().zip(gl).enumerate() {
        if m.is_empty() != g.is_empty() {
            return Err(format!(
                "invocation {i}: discarded on {} only",
                if m.is_empty() {
                    "the model"
                } else {
                    "llvmpipe"
                }
            ));
        }
        for o in &c.interface.outputs {
            let (Some(mw), Some(gw)) = (m.get(&o.slot), g.get(&o.slot)) else {
                continue;
            };
            if case.skip.contains(&o.name.as_str()) {
                continue;
            }
            let zero_sign = !case.any_zero.contains(&o.name.as_str());
            let bound = (case.bounds.iter())
                .find(|b| b.0 == o.name)
                .map_or(case.default_bound, |b| b.1);
            let w = worst.entry(o.name.clone()).or_default();
            for (k, ((&a, &b), &t)) in mw.iter().zip(gw).zip(&o.tys).enumerate() {
                let lane = 1u8 << (i % 4);
                if case.lane0_only && lane != 1 {
                    continue;
                }
                if let Some(l) = case.lanes.iter().find(|l| l.0 == o.name && l.1 == k) {
                    if l.2 & lane == 0 {
                        continue;
                    }
                }
                w.compared += 1;
                let what = || {
                    format!(
                        "invocation {i} (quad {}, lane {}), output `{}`[{k}]: model {} ({a:#010x}), \
                         llvmpipe {} ({b:#010x})",
                        i / 4,
                        i % 4,
                        o.name,
                        shader::format_word(a, t),
                        shader::format_word(b, t)
                    )
                };
                if t != Ty::F32 {
                    if a != b {
                        return Err(format!("{}; integers must agree exactly", what()));
                    }
                    continue;
                }
                // GLSL lets an implementation flush denormals (GLSL 4.50 §4.7.1); the
                // interpreter flushes every result, llvmpipe those of arithmetic but not of
                // moves, negation, `abs` or selects.
                let ftz = |w: u32| {
                    if w & 0x7F80_0000 == 0 {
                        w & 0x8000_0000
                    } else {
                        w
                    }
                };
                let (a, b) = (ftz(a), ftz(b));
                let (x, y) = (f32::from_bits(a), f32::from_bits(b));
                if x.is_nan() && y.is_nan() {
                    continue;
                }
                let exact = bound.ulp == 0 && bound.abs == 0.0;
                if exact && zero_sign && a != b && !(x.is_nan() && y.is_nan()) {
                    return Err(format!("{}: not the same bits", what()));
                }
                let (u, d) = (ulps(x, y), (x - y).abs());
                w.ulp = w.ulp.max(u);
                if d.is_finite() {
                    w.abs = w.abs.max(d);
                }
                if !(u <= bound.ulp || d <= bound.abs) {
                    return Err(format!(
                        "{}: {u} ULP, {d:e} apart, beyond the bound {} ULP or {:e}",
                        what(),
                        bound.ulp,
                        bound.abs
                    ));
                }
            }
        }
    }
    Ok(worst)
}

/// Runs a case on both engines and compares; prints the worst errors.
fn check(case: &Case) {
    let path = gen_path(case.file);
    let c = shader::compile_file(&path, None, None).unwrap_or_else(|e| panic!("{}", e.message));
    let src = std::fs::read_to_string(&path).unwrap();
    check_compiled(case, &c, &src, case.file);
}

fn check_compiled(case: &Case, c: &Compiled, src: &str, label: &str) {
    let c = c.clone();
    let seed = 0x11_AB_u64 ^ label.len() as u64;
    let invs = invocations(&c, case, seed);
    let u = uniforms(&c, seed);
    let (model, _) = shader::run_exports(&c, &invs, u.clone(), Engine::Model)
        .unwrap_or_else(|e| panic!("model: {}", e.message));
    let gl = llvmpipe::run(&c, src, &invs, &u).unwrap_or_else(|e| panic!("{}", e.message));
    let worst = compare(&c, case, &model, &gl.outputs).unwrap_or_else(|e| {
        let i: usize = e["invocation ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap_or(0);
        let inputs: Vec<String> = (invs[i].iter())
            .map(|(n, w)| {
                let f: Vec<String> = w
                    .iter()
                    .map(|&x| format!("{:e}", f32::from_bits(x)))
                    .collect();
                format!("{n} = {w:08x?} (as floats {})", f.join(", "))
            })
            .collect();
        panic!(
            "{label}: {e} (seed {seed:#x}); inputs: {}",
            inputs.join("; ")
        )
    });
    let kind = match case.specials.len() {
        0 => "",
        n if n == SPECIALS.len() => " (inf, extremes)",
        _ => " (NaN, denormals)",
    };
    for (name, w) in &worst {
        println!(
            "| {}{kind} | `{name}` | {} | {} ULP | {:e} |",
            label, w.compared, w.ulp, w.abs
        );
    }
}

#[test]
fn exact_integer_ops() {
    check(&Case {
        file: "tests/llvmpipe/exact_int.frag",
        ..Case::default()
    });
}

#[test]
fn exact_float_ops() {
    check(&Case {
        file: "tests/llvmpipe/exact_float.frag",
        any_zero: &["o1"],
        ..Case::default()
    });
}

/// Infinities, signed zeros and extreme normals through the exact operations, compares and
/// selects. Float→int conversions of out-of-range values (`o3`) are undefined in GLSL and
/// not compared.
#[test]
fn exact_float_ops_on_special_values() {
    check(&Case {
        file: "tests/llvmpipe/exact_float.frag",
        specials: &SPECIALS,
        any_zero: &["o1"],
        skip: &["o3"],
        ..Case::default()
    });
}

/// NaN and denormal inputs through arithmetic (`o0`: NaN propagates, denormal results are
/// flushed or not, as GLSL allows) and min/max/abs/select (`o1`: both return the other operand
/// of a NaN). Compares of NaN or of denormals (`o2`: `step(NaN, x)` is 1 on the interpreter, 0
/// on llvmpipe; llvmpipe compares denormals unflushed) are where GLSL leaves the result to
/// the implementation, so `o2`, like `o3`, is not compared here.
#[test]
fn exact_float_ops_on_nan_and_denormals() {
    check(&Case {
        file: "tests/llvmpipe/exact_float.frag",
        specials: &SPECIALS_NAN_DENORMAL,
        any_zero: &["o1"],
        skip: &["o2", "o3"],
        ..Case::default()
    });
}

#[test]
fn builtins_and_frag_depth() {
    check(&Case {
        file: "tests/llvmpipe/builtins.frag",
        ..Case::default()
    });
}

#[test]
fn fusable_arithmetic() {
    check(&Case {
        file: "tests/llvmpipe/arith.frag",
        bounds: &[
            ("o0", Bound { ulp: 4, abs: 1e-6 }),
            ("o1", Bound { ulp: 4, abs: 1e-6 }),
        ],
        ..Case::default()
    });
}

#[test]
fn special_functions() {
    check(&Case {
        file: "tests/llvmpipe/transcendental.frag",
        ranges: &[
            ("angle", -std::f32::consts::PI, std::f32::consts::PI),
            ("pos", 1e-3, 1e3),
            ("e", -20.0, 20.0),
        ],
        bounds: &[
            ("trig", Bound { ulp: 0, abs: 1e-6 }),
            ("logexp", Bound { ulp: 4, abs: 1e-6 }),
            ("roots", Bound { ulp: 4, abs: 0.0 }),
            ("powers", Bound { ulp: 64, abs: 0.0 }),
        ],
        ..Case::default()
    });
}

#[test]
fn derivatives() {
    check(&Case {
        file: "tests/llvmpipe/derivatives.frag",
        // Differences of values each engine may fuse differently: a few ULP of the values
        // (|f| ≤ 20, so 4 ULP of 20 is 7.6e-6), not of their difference.
        bounds: &[("fused", Bound { ulp: 0, abs: 8e-6 })],
        // Plain dFdx: top row (lanes 0, 1); plain dFdy: left column (lanes 0, 2).
        lanes: &[
            ("fused", 2, 0b0011),
            ("fused", 3, 0b0101),
            ("exact", 2, 0b0011),
            ("exact", 3, 0b0101),
        ],
        ..Case::default()
    });
}

#[test]
fn example_loops_with_discard() {
    check(&Case {
        file: "shader/examples/loops.frag",
        ranges: &[("x", -2.0, 30.0)],
        lanes: &[("result", 1, 0b0011), ("result", 2, 0b0101)],
        quad_sign: true,
        ..Case::default()
    });
}

#[test]
fn example_transform_vertex() {
    check(&Case {
        file: "shader/examples/transform.vert",
        bounds: &[
            ("world_normal", Bound { ulp: 4, abs: 1e-6 }),
            ("gl_Position", Bound { ulp: 4, abs: 1e-6 }),
        ],
        ..Case::default()
    });
}

#[test]
fn vertex_attributes_and_integer_varyings() {
    check(&Case {
        file: "tests/llvmpipe/attributes.vert",
        bounds: &[
            ("uv", Bound { ulp: 1, abs: 1e-6 }),
            ("gl_Position", Bound { ulp: 1, abs: 1e-6 }),
        ],
        ..Case::default()
    });
}

/// The comparison fails on a real disagreement: llvmpipe runs a source that differs from the
/// compiled one in one operation (`max` for `min`; a product rounded once more), and each
/// difference is reported against the exact bound.
#[test]
fn a_real_disagreement_fails() {
    let path = gen_path("tests/llvmpipe/exact_float.frag");
    let c = shader::compile_file(&path, None, None).unwrap_or_else(|e| panic!("{}", e.message));
    let case = Case {
        file: "tests/llvmpipe/exact_float.frag",
        invocations: 64,
        ..Case::default()
    };
    let invs = invocations(&c, &case, 7);
    let (model, _) = shader::run_exports(&c, &invs, Vec::new(), Engine::Model).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    for (from, to) in [
        ("min(x.x, y.y)", "max(x.x, y.y)"),
        ("x.z * y.z", "x.z * (y.z * 1.0000001)"),
        ("int(x.x * 100.0)", "int(x.x * 100.0) + 1"),
    ] {
        assert!(src.contains(from));
        let wrong = src.replace(from, to);
        let gl = llvmpipe::run(&c, &wrong, &invs, &[]).unwrap_or_else(|e| panic!("{}", e.message));
        let got = compare(&c, &case, &model, &gl.outputs);
        assert!(got.is_err(), "`{to}` for `{from}` went unnoticed");
    }
}

/// A uniform block laid out differently from GL's std140 is an error naming the member, not
/// wrong numbers: the compiler's offsets of `scale`, of the array `weights` and of `gain` (in a
/// block with an instance name) are moved by one word.
#[test]
fn a_layout_disagreement_is_an_error() {
    layout_disagreement("tests/llvmpipe/arith.frag", &["scale", "weights"]);
    layout_disagreement("tests/llvmpipe/builtins.frag", &["gain"]);
}

fn layout_disagreement(file: &str, members: &[&str]) {
    let path = gen_path(file);
    let c = shader::compile_file(&path, None, None).unwrap_or_else(|e| panic!("{}", e.message));
    let src = std::fs::read_to_string(&path).unwrap();
    let case = Case {
        invocations: 4,
        ..Case::default()
    };
    let invs = invocations(&c, &case, 3);
    assert!(llvmpipe::run(&c, &src, &invs, &[]).is_ok());
    for &member in members {
        let mut wrong = c.clone();
        let u = (wrong.interface.uniforms.iter_mut())
            .find(|u| u.name == member)
            .unwrap();
        for w in &mut u.words {
            w.0 += 1;
        }
        let e = llvmpipe::run(&wrong, &src, &invs, &[]).unwrap_err();
        assert!(
            e.message.contains(&format!("uniform `{member}`")) && e.message.contains("std140"),
            "{}",
            e.message
        );
    }
}

/// The GLSL string literals of a Rust test file (`"#version 450 …"`, with `\n`, `\"` and
/// `\\` unescaped) and their line numbers.
fn glsl_literals(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(at) = rest.find("\"#version 450") {
        let body = &rest[at + 1..];
        let mut src = String::new();
        let mut chars = body.char_indices();
        let mut end = body.len();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '\\' => match chars.next() {
                    Some((_, 'n')) => src.push('\n'),
                    Some((_, '\n')) => {
                        // A line continuation: the next line's leading spaces go too.
                        while body[i..].len() > 2 && chars.as_str().starts_with(' ') {
                            chars.next();
                        }
                    }
                    Some((_, c)) => src.push(c),
                    None => {}
                },
                '"' => {
                    end = i;
                    break;
                }
                c => src.push(c),
            }
        }
        let line = text[..offset + at].matches('\n').count() + 1;
        out.push((line, src));
        offset += at + 1 + end + 1;
        rest = &text[offset..];
    }
    out
}

/// Every GLSL shader of the compiler's tests that llvmpipe can run (no textures or storage
/// buffers; the error tests' shaders do not compile and are skipped), 400 random invocations
/// each, small integers (their loops count with them), non-negative where the shader has a
/// `%` (undefined in GLSL for negative operands: llvmpipe's `-26 % 4` is 2, the
/// interpreter's −2, C's). One bound for all of them: integers
/// and single operations exact where the shader has no float arithmetic chains is not known
/// here, so floats within 4 ULP or 1e-5 absolute; derivative shaders compared on each quad's
/// first lane (where coarse equals fine); discarding shaders keep quads whole.
#[test]
fn compiler_test_shaders() {
    use rendergen_shader_compiler::{compile, Lang, Options, ShaderStage};
    let dir = gen_path("../compiler/shader/tests");
    let mut ran = 0;
    for file in ["control.rs", "straight.rs", "passes.rs", "reference.rs"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for (line, src) in glsl_literals(&text) {
            let vertex = src.contains("gl_Position") || src.contains("gl_VertexIndex");
            let stage = if vertex {
                ShaderStage::Vertex
            } else {
                ShaderStage::Fragment
            };
            let Ok(c) = compile(&src, "t", &Options::new(Lang::Glsl(stage))) else {
                continue;
            };
            if !c.interface.samplers.is_empty() || !c.interface.buffers.is_empty() {
                continue;
            }
            let derivatives = ["dFdx", "dFdy", "fwidth"].iter().any(|d| src.contains(d));
            let case = Case {
                default_bound: Bound { ulp: 4, abs: 1e-5 },
                lane0_only: derivatives,
                small_ints: true,
                nonneg_ints: src.contains('%'),
                quad_sign: src.contains("discard"),
                ..Case::default()
            };
            check_compiled(
                &case,
                &c,
                &src,
                &format!("compiler/shader/tests/{file}:{line}"),
            );
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} of the compiler's test shaders ran");
}
