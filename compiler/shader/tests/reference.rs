//! Milestone 5: the compiler against an independent evaluator of naga's IR
//! (`tests/reference/`), over a suite of shaders and random inputs. Programs are compiled
//! optimised but without FMA contraction (the evaluator rounds each operation). Exact shaders
//! (add, sub, mul, min, max, compares, select, floor/fract, integer ops, control flow,
//! uniforms, matrix × vector, texture) must equal it bit for bit; shaders with division,
//! square roots and transcendentals within the tolerance stated per shader.

mod common;
mod naga_eval;

use common::*;
use naga_eval::{Eval, V};
use rendergen_shader_compiler::ir::Ty;
use rendergen_shader_compiler::{compile, front, Lang, Options, ShaderStage};
use std::collections::HashMap;

/// Distance in units in the last place (over the ordered integers of the f32 encodings).
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

struct Case {
    name: &'static str,
    src: &'static str,
    lang: Lang,
    /// Allowed ULP distance (0: bit for bit) …
    ulp: u64,
    /// … or absolute difference.
    abs: f32,
}

const EXACT_GLSL: &str = "#version 450
layout(location = 0) in vec3 a;
layout(location = 1) in vec2 b;
layout(location = 2) flat in int n;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out ivec2 o2;
layout(binding = 0) uniform U { mat3 m; vec4 k; int steps; };
layout(binding = 1) uniform texture2D img;
layout(binding = 2) uniform sampler smp;
float walk(float x) {
    float acc = 0.0;
    for (int i = 0; i < steps; i++) {
        if (acc > x * 4.0) break;
        if ((i & 1) == 0) continue;
        acc = acc + abs(x) * float(i) - k.w;
        if (acc < -50.0) return acc * 2.0;
    }
    return acc;
}
void main() {
    if (b.x > 3.5) discard;
    vec3 v = m * a + k.xyz;
    float s = a.x * b.y - a.z * b.x;
    vec4 t = texture(sampler2D(img, smp), b);
    o0 = vec4(min(v.x, s), max(v.y, -s), floor(v.z) + fract(b.x), s > 0.0 ? t.x : t.z);
    o1 = vec4(walk(a.y), clamp(a.z, -1.0, 1.0), step(b.y, a.x), float(n * 3 - steps));
    int q = n;
    while (q > 2) { q = q - 3; }
    o2 = ivec2(q, (n << 3) ^ (n >> 1));
}";

const EXACT_WGSL: &str = "
struct U { scale: vec4<f32>, bias: f32, count: u32 }
@group(0) @binding(0) var<uniform> u: U;
struct Out { @location(0) c: vec4<f32>, @location(1) @interpolate(flat) k: u32 }
@fragment fn main(@location(0) p: vec2<f32>, @location(1) @interpolate(flat) id: u32, @builtin(front_facing) ff: bool) -> Out {
    var o: Out;
    var acc = vec2<f32>(0.0, 0.0);
    for (var i = 0u; i < u.count; i = i + 1u) {
        acc = acc * 0.5 + p * u.scale.xy;
        if (acc.x > 10.0) { break; }
    }
    o.c = vec4<f32>(acc, select(u.bias, -u.bias, ff), dot(p, u.scale.zw));
    o.k = (id * 7u + u.count) & 255u;
    return o;
}";

const SPECIAL_GLSL: &str = "#version 450
layout(location = 0) in vec3 a;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
void main() {
    vec3 n = normalize(a + vec3(0.0, 0.0, 5.0));
    o0 = vec4(n, length(a));
    o1 = vec4(sin(a.x), cos(a.y), exp2(a.z), log2(abs(a.x) + 1.0));
    o2 = vec4(a.x / (abs(a.y) + 1.0), sqrt(abs(a.z)), inversesqrt(abs(a.x) + 0.5), pow(abs(a.y) + 0.5, 1.5));
}";

const MIX_GLSL: &str = "#version 450
layout(location = 0) in vec3 a;
layout(location = 0) out vec4 o;
void main() {
    o = vec4(mix(a.x, a.y, 0.25), smoothstep(-1.0, 2.0, a.z), mix(1.0, 3.0, a.z * 0.1), cross(a, vec3(1.0, 2.0, 3.0)).x);
}";

fn cases() -> Vec<Case> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../gen/shader/examples");
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    vec![
        Case {
            name: "exact.frag",
            src: EXACT_GLSL,
            lang: Lang::Glsl(ShaderStage::Fragment),
            ulp: 0,
            abs: 0.0,
        },
        Case {
            name: "exact.wgsl",
            src: EXACT_WGSL,
            lang: Lang::Wgsl,
            ulp: 0,
            abs: 0.0,
        },
        Case {
            name: "transform.vert",
            src: leak(std::fs::read_to_string(format!("{dir}/transform.vert")).unwrap()),
            lang: Lang::Glsl(ShaderStage::Vertex),
            ulp: 4,
            abs: 0.0,
        },
        Case {
            name: "shade.wgsl",
            src: leak(std::fs::read_to_string(format!("{dir}/shade.wgsl")).unwrap()),
            lang: Lang::Wgsl,
            ulp: 2,
            abs: 0.0,
        },
        Case {
            name: "gradient.frag",
            src: leak(std::fs::read_to_string(format!("{dir}/gradient.frag")).unwrap()),
            lang: Lang::Glsl(ShaderStage::Fragment),
            ulp: 64,
            abs: 1e-5,
        },
        // sin/cos: the unit's error is below 2^-22 absolute; exp2/log2/pow relative 2^-20.
        Case {
            name: "special.frag",
            src: SPECIAL_GLSL,
            lang: Lang::Glsl(ShaderStage::Fragment),
            ulp: 32,
            abs: 2e-6,
        },
        // mix: the compiler's a + (b − a)·t against the specification's a·(1 − t) + b·t.
        Case {
            name: "mix.frag",
            src: MIX_GLSL,
            lang: Lang::Glsl(ShaderStage::Fragment),
            ulp: 8,
            abs: 1e-6,
        },
    ]
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn num(&mut self, ty: Ty) -> f64 {
        match ty {
            // Quarter steps often (exact sums, ties, zero), otherwise any value in ±4.
            Ty::F32 if self.next().is_multiple_of(3) => (self.next() % 33) as f64 / 4.0 - 4.0,
            Ty::F32 => ((self.next() % 1_000_000) as f64 / 125_000.0 - 4.0) as f32 as f64,
            Ty::I32 => (self.next() % 41) as f64 - 20.0,
            Ty::U32 => (self.next() % 41) as f64,
            Ty::Bool => (self.next() % 2) as f64,
        }
    }
}

fn word(x: f64, ty: Ty) -> u32 {
    match ty {
        Ty::F32 => (x as f32).to_bits(),
        Ty::I32 => x as i32 as u32,
        Ty::U32 | Ty::Bool => x as u32,
    }
}

#[test]
fn compiled_programs_equal_the_naga_evaluator() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut report = Vec::new();
    for case in cases() {
        let mut o = Options::new(case.lang);
        o.contract = false;
        let c = compile(case.src, case.name, &o).unwrap_or_else(|e| panic!("{e}"));
        let (module, info) = front::parse(case.src, case.name, case.lang).unwrap();
        let mut worst = 0u64;
        for _round in 0..32 {
            // 16 invocations (4 quads) per round; uniforms per round.
            let uniforms: HashMap<String, Vec<f64>> = c
                .interface
                .uniforms
                .iter()
                .map(|u| {
                    let vals = u
                        .words
                        .iter()
                        .map(|&(_, t)| {
                            if t == Ty::I32 || t == Ty::U32 {
                                (rng.next() % 6) as f64
                            } else {
                                rng.num(t)
                            }
                        })
                        .collect();
                    (u.name.clone(), vals)
                })
                .collect();
            let invs: Vec<HashMap<String, Vec<f64>>> = (0..16)
                .map(|_| {
                    c.interface
                        .inputs
                        .iter()
                        .map(|v| (v.name.clone(), v.tys.iter().map(|&t| rng.num(t)).collect()))
                        .collect()
                })
                .collect();
            let words_of = |m: &HashMap<String, Vec<f64>>,
                            tys: &dyn Fn(&str) -> Vec<Ty>|
             -> Vec<(String, Vec<u32>)> {
                m.iter()
                    .map(|(n, v)| {
                        (
                            n.clone(),
                            v.iter().zip(tys(n)).map(|(&x, t)| word(x, t)).collect(),
                        )
                    })
                    .collect()
            };
            let in_tys = |n: &str| {
                c.interface
                    .inputs
                    .iter()
                    .find(|v| v.name == n)
                    .unwrap()
                    .tys
                    .clone()
            };
            let u_tys = |n: &str| {
                c.interface
                    .uniforms
                    .iter()
                    .find(|v| v.name == n)
                    .unwrap()
                    .words
                    .iter()
                    .map(|w| w.1)
                    .collect()
            };
            let inv_words: Vec<Vec<(String, Vec<u32>)>> =
                invs.iter().map(|m| words_of(m, &in_tys)).collect();
            let inv_refs: Vec<Vec<(&str, Vec<u32>)>> = inv_words
                .iter()
                .map(|v| v.iter().map(|(n, w)| (n.as_str(), w.clone())).collect())
                .collect();
            let u_words = words_of(&uniforms, &u_tys);
            let u_refs: Vec<(&str, Vec<u32>)> = u_words
                .iter()
                .map(|(n, w)| (n.as_str(), w.clone()))
                .collect();
            let got = exec(&c, &inv_refs, &u_refs);
            for (i, inv) in invs.iter().enumerate() {
                let want = Eval::run(&module, &info, 0, inv, &uniforms);
                match want {
                    None => assert!(
                        got[i].is_empty(),
                        "{}: invocation {i} discarded by the evaluator",
                        case.name
                    ),
                    Some(outs) => {
                        for (name, vals) in outs {
                            let g = &got[i][&name];
                            assert_eq!(g.len(), vals.len(), "{}: {name}", case.name);
                            for (k, (w, v)) in g.iter().zip(&vals).enumerate() {
                                let ok = match v {
                                    V::F(x) => {
                                        let y = f32::from_bits(*w);
                                        let d = if x.is_nan() && y.is_nan() {
                                            0
                                        } else {
                                            ulps(*x, y)
                                        };
                                        worst = worst.max(d);
                                        d <= case.ulp || (x - y).abs() <= case.abs
                                    }
                                    V::I(x) => *w == *x as u32,
                                    V::U(x) => *w == *x,
                                    V::B(b) => *w == *b as u32,
                                    other => panic!("{other:?}"),
                                };
                                assert!(ok, "{}: invocation {i} {name}[{k}]: compiled {:?} ({w:#x}), naga evaluator {v:?}; inputs {inv:?}", case.name, f32::from_bits(*w));
                            }
                        }
                    }
                }
            }
        }
        report.push(format!(
            "{}: worst {} ulp (allowed {} ulp or {} absolute)",
            case.name, worst, case.ulp, case.abs
        ));
    }
    for r in report {
        println!("{r}");
    }
}
