//! Milestone 2: divergent control flow, loops, early return, discard, built-ins, uniforms,
//! textures, vector and matrix math — compiled, run on the interpreter, compared with the
//! same computation in host f32 (each optimised build also equals the unoptimised one).

mod common;
use common::*;
use rendergen_shader_compiler::{compile, Lang, ShaderStage};

fn one(out: &std::collections::BTreeMap<String, Vec<u32>>, name: &str) -> f32 {
    f32::from_bits(out[name][0])
}

#[test]
fn divergent_if_else_and_loops_with_break_continue() {
    let src = "#version 450
layout(location = 0) in float x;
layout(location = 0) out float r;
void main() {
    float acc = 0.0;
    if (x > 2.0) { acc = x * 3.0; } else if (x < -1.0) { acc = -x; } else { acc = 1.0; }
    for (int i = 0; i < 10; i++) {
        if (float(i) >= x) break;
        if (i == 2) continue;
        acc += float(i);
    }
    int n = 0;
    while (n < 3) { acc = acc * 0.5; n++; }
    r = acc;
}";
    let xs = [0.5f32, 3.0, -2.0, 7.5, 2.0, 11.0, -0.0, 1.0];
    let invs: Vec<_> = xs.iter().map(|&x| vec![("x", f(&[x]))]).collect();
    let out = exec_both(src, frag(), &invs, &[]);
    for (i, &x) in xs.iter().enumerate() {
        let mut acc = if x > 2.0 {
            x * 3.0
        } else if x < -1.0 {
            -x
        } else {
            1.0
        };
        for i in 0..10 {
            if i as f32 >= x {
                break;
            }
            if i == 2 {
                continue;
            }
            acc += i as f32;
        }
        for _ in 0..3 {
            acc *= 0.5;
        }
        assert_eq!(one(&out[i], "r"), acc, "x = {x}");
    }
}

#[test]
fn early_return_and_discard() {
    let src = "#version 450
layout(location = 0) in float x;
layout(location = 0) out vec2 r;
float g(float v) {
    for (int i = 0; i < 4; i++) { if (v > 10.0) return v; v = v * 2.0; }
    return -v;
}
void main() {
    if (x < 0.0) discard;
    r = vec2(g(x), 1.0);
    if (x > 100.0) { r = vec2(5.0); return; }
    r.y = 2.0;
}";
    let xs = [1.0f32, -1.0, 3.0, 200.0, 0.0, 20.0];
    let invs: Vec<_> = xs.iter().map(|&x| vec![("x", f(&[x]))]).collect();
    let out = exec_both(src, frag(), &invs, &[]);
    for (i, &x) in xs.iter().enumerate() {
        if x < 0.0 {
            assert!(out[i].is_empty(), "discarded lanes export nothing");
            continue;
        }
        let g = |mut v: f32| {
            for _ in 0..4 {
                if v > 10.0 {
                    return v;
                }
                v *= 2.0;
            }
            -v
        };
        let want = if x > 100.0 { [5.0, 5.0] } else { [g(x), 2.0] };
        assert_eq!(out[i]["r"], f(&want), "x = {x}");
    }
}

#[test]
fn derivatives_fine_and_coarse_in_quads() {
    let src = "#version 450
layout(location = 0) in float v;
layout(location = 0) out vec4 d;
void main() { d = vec4(dFdx(v), dFdy(v), dFdxFine(v), dFdyFine(v)) + vec4(fwidth(v), 0.0, dFdxCoarse(v), dFdyCoarse(v)) * 0.0; }";
    // One quad: top-left 1, top-right 3, bottom-left 10, bottom-right 30; a second quad with
    // one real invocation (three helper lanes: their inputs are zero).
    let vals = [1.0f32, 3.0, 10.0, 30.0, 5.0];
    let invs: Vec<_> = vals.iter().map(|&v| vec![("v", f(&[v]))]).collect();
    let out = exec_both(src, frag(), &invs, &[]);
    let want = [
        [2.0f32, 9.0, 2.0, 9.0],
        [2.0, 9.0, 2.0, 27.0],
        [2.0, 9.0, 20.0, 9.0],
        [2.0, 9.0, 20.0, 27.0],
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(out[i]["d"], f(w), "lane {i}");
    }
    assert_eq!(out[4]["d"], f(&[-5.0, -5.0, -5.0, -5.0]), "helpers read 0");
    assert_eq!(out.len(), 5);
}

#[test]
fn fragment_builtins_uniforms_and_textures() {
    let src = "#version 450
layout(location = 0) out vec4 c;
layout(location = 1) out vec4 t;
layout(binding = 0) uniform U { float scale; vec3 tint; mat3 m; vec4 arr[2]; };
layout(binding = 3) uniform texture2D img;
layout(binding = 4) uniform sampler smp;
void main() {
    vec2 p = (m * vec3(gl_FragCoord.xy, 1.0)).xy;
    c = vec4(p * scale, gl_FrontFacing ? tint.x : tint.z, float(gl_SampleID) + arr[1].w);
    t = texture(sampler2D(img, smp), gl_FragCoord.xy * 0.5);
}";
    let invs = vec![
        vec![
            ("gl_FragCoord", f(&[1.5, 2.5, 0.25, 1.0])),
            ("gl_FrontFacing", vec![1]),
            ("gl_SampleID", vec![3]),
        ],
        vec![
            ("gl_FragCoord", f(&[4.5, 0.5, 0.5, 1.0])),
            ("gl_FrontFacing", vec![0]),
            ("gl_SampleID", vec![0]),
        ],
    ];
    let uni = [
        ("scale", f(&[2.0])),
        ("tint", f(&[0.1, 0.2, 0.3])),
        ("m", f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])),
        ("arr", f(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0])),
    ];
    let out = exec_both(src, frag(), &invs, &uni);
    let fc = [[1.5f32, 2.5], [4.5, 0.5]];
    for (i, [x, y]) in fc.iter().enumerate() {
        // mat3 columns (1,2,3), (4,5,6), (7,8,9) (std140: 16-byte column stride).
        let p = [1.0 * x + 4.0 * y + 7.0, 2.0 * x + 5.0 * y + 8.0];
        let tint = if i == 0 { 0.1 } else { 0.3 };
        let sample = if i == 0 { 3.0 } else { 0.0 };
        assert_eq!(out[i]["c"][..2], f(&[p[0] * 2.0, p[1] * 2.0]));
        assert_eq!(out[i]["c"][2..], f(&[tint, sample + 100.0]));
        let want = unorm_answer(x * 0.5, y * 0.5);
        assert_eq!(out[i]["t"], f(&want));
    }
}

#[test]
fn vector_and_matrix_math() {
    let src = "#version 450
layout(location = 0) in vec3 a;
layout(location = 1) in vec3 b;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
void main() {
    vec3 c = cross(a, b);
    o0 = vec4(c, dot(a, b));
    vec3 n = normalize(a);
    o1 = vec4(n, length(b));
    o2 = vec4(mix(a.x, b.x, 0.25), clamp(a.y, -1.0, 1.0), step(0.5, a.z), smoothstep(0.0, 2.0, b.y));
    mat3 m = mat3(a, b, vec3(1.0, 0.0, 0.0));
    vec3 v = m * vec3(1.0, 2.0, 3.0);
    o3 = vec4(v, abs(a.x) + floor(b.z) + fract(b.z));
}";
    let vals = [
        ([1.0f32, 2.0, 3.0], [4.0f32, -5.0, 6.5]),
        ([0.5, -2.0, 0.25], [1.0, 1.0, -1.5]),
    ];
    let invs: Vec<_> = vals
        .iter()
        .map(|(a, b)| vec![("a", f(a)), ("b", f(b))])
        .collect();
    let out = exec_both(src, frag(), &invs, &[]);
    let close = |got: &[u32], want: &[f32], tol: f32| {
        for (g, w) in got.iter().zip(want) {
            let g = f32::from_bits(*g);
            assert!((g - w).abs() <= tol * w.abs().max(1.0), "{g} vs {w}");
        }
    };
    for (i, (a, b)) in vals.iter().enumerate() {
        let cross = [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ];
        let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        assert_eq!(out[i]["o0"], f(&[cross[0], cross[1], cross[2], dot]));
        let len = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        let lb = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
        close(
            &out[i]["o1"],
            &[a[0] / len, a[1] / len, a[2] / len, lb],
            1e-6,
        );
        let t = ((b[1] - 0.0) / 2.0).clamp(0.0, 1.0);
        let ss = t * t * (3.0 - 2.0 * t);
        let st = if a[2] < 0.5 { 0.0 } else { 1.0 };
        close(
            &out[i]["o2"],
            &[a[0] + (b[0] - a[0]) * 0.25, a[1].clamp(-1.0, 1.0), st, ss],
            1e-6,
        );
        let v = [
            a[0] + 2.0 * b[0] + 3.0,
            a[1] + 2.0 * b[1],
            a[2] + 2.0 * b[2],
        ];
        assert_eq!(
            out[i]["o3"],
            f(&[
                v[0],
                v[1],
                v[2],
                a[0].abs() + b[2].floor() + (b[2] - b[2].floor())
            ])
        );
    }
}

#[test]
fn special_functions_within_stated_ulp() {
    let src = "#version 450
layout(location = 0) in float x;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main() {
    o0 = vec4(sin(x), cos(x), exp2(x), log2(abs(x) + 1.0));
    o1 = vec4(pow(abs(x) + 0.5, 1.5), sqrt(abs(x)), inversesqrt(abs(x) + 1.0), x / 3.0);
}";
    let xs = [0.1f32, 1.0, -2.5, 3.75, 10.0, -0.3];
    let invs: Vec<_> = xs.iter().map(|&x| vec![("x", f(&[x]))]).collect();
    let out = exec_both(src, frag(), &invs, &[]);
    for (i, &x) in xs.iter().enumerate() {
        let want0 = [
            (x as f64).sin(),
            (x as f64).cos(),
            (x as f64).exp2(),
            ((x.abs() + 1.0) as f64).log2(),
        ];
        let want1 = [
            ((x.abs() + 0.5) as f64).powf(1.5),
            (x.abs() as f64).sqrt(),
            1.0 / ((x.abs() + 1.0) as f64).sqrt(),
            x as f64 / 3.0,
        ];
        for (got, want) in out[i]["o0"]
            .iter()
            .chain(&out[i]["o1"])
            .zip(want0.iter().chain(&want1))
        {
            let g = f32::from_bits(*got) as f64;
            // 2^-20 relative (absolute near zero): the units' stated accuracy is tighter; pow
            // composes log2, a multiply and exp2.
            assert!(
                (g - want).abs() <= 1e-5 * want.abs().max(1.0),
                "x = {x}: {g} vs {want}"
            );
        }
    }
}

#[test]
fn integer_ops_and_conversions() {
    let src = "#version 450
layout(location = 0) flat in int a;
layout(location = 1) flat in uint b;
layout(location = 0) out ivec4 o;
layout(location = 1) out uvec4 u;
layout(location = 2) out vec2 g;
void main() {
    o = ivec4(a + 5, a * a - 3, a >> 1, min(a, 2) + max(a, -1) + abs(a));
    u = uvec4(b >> 3u, b & 12u, b | 1u, uint(a < 0) + uint(b > 7u));
    g = vec2(float(a), float(b) * 0.5);
}";
    let vals = [(7i32, 9u32), (-8, 0xFFFF_FFF0), (0, 1)];
    let invs: Vec<_> = vals
        .iter()
        .map(|&(a, b)| vec![("a", vec![a as u32]), ("b", vec![b])])
        .collect();
    let out = exec_both(src, frag(), &invs, &[]);
    for (i, &(a, b)) in vals.iter().enumerate() {
        let o = [a + 5, a * a - 3, a >> 1, a.min(2) + a.max(-1) + a.abs()].map(|x| x as u32);
        assert_eq!(out[i]["o"], o);
        assert_eq!(
            out[i]["u"],
            [b >> 3, b & 12, b | 1, (a < 0) as u32 + (b > 7) as u32]
        );
        assert_eq!(out[i]["g"], f(&[a as f32, b as f32 * 0.5]));
    }
}

#[test]
fn vertex_and_compute_builtins() {
    let vs = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 2) out float id;
void main() { gl_Position = vec4(pos, 1.0) * 2.0; id = float(gl_VertexIndex * 10 + gl_InstanceIndex); }";
    let c = build(vs, Lang::Glsl(ShaderStage::Vertex), true);
    let out = exec(
        &c,
        &[vec![
            ("pos", f(&[1.0, 2.0, 3.0])),
            ("gl_VertexIndex", vec![4]),
            ("gl_InstanceIndex", vec![2]),
        ]],
        &[],
    );
    assert_eq!(out[0]["gl_Position"], f(&[2.0, 4.0, 6.0, 2.0]));
    assert_eq!(out[0]["id"], f(&[42.0]));
    let cs = "@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) li: u32) {
        var x = g.x * 2u + li;
        _ = x;
    }";
    // A compute program with no outputs still compiles and runs.
    let c = build(cs, Lang::Wgsl, true);
    exec(&c, &[vec![("g", vec![1, 2, 3]), ("li", vec![5])]], &[]);
}

#[test]
fn switch_with_fallthrough_default_and_break() {
    let src = "#version 450
layout(location = 0) flat in int k;
layout(location = 0) out float o;
void main() {
    float r = 0.0;
    switch (k) {
        case 0: r = 1.0; break;
        case 1: r = 2.0;
        case 2: r += 10.0; break;
        case 5: if (r == 0.0) { r = 7.0; break; } r = 8.0; break;
        default: r = -1.0;
    }
    o = r;
}";
    let ks = [0i32, 1, 2, 3, 5, -4];
    let invs: Vec<_> = ks.iter().map(|&k| vec![("k", vec![k as u32])]).collect();
    let out = exec_both(src, frag(), &invs, &[]);
    let want = [1.0f32, 12.0, 10.0, -1.0, 7.0, -1.0];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(out[i]["o"], f(&[*w]), "k = {}", ks[i]);
    }
}

/// Compute programs: thread ids from the launch registers (ABI), storage buffers through
/// `ldg`/`stg` at `binding · 2^24 + offset`.
#[test]
fn compute_builtins_and_storage_buffers() {
    use rendergen_sim::models::shader::{run, Config, Launch, MemoryEnv};
    let src = "
struct Params { scale: f32, count: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(workgroup_id) w: vec3<u32>) {
    if (g.x >= p.count) { return; }
    dst[g.x] = vec2<f32>(src[g.x] * p.scale, f32(li * 100u + w.y * 10u + l.x + g.y));
}";
    let c = build(src, Lang::Wgsl, true);
    assert!(c.asm.contains("ldg") && c.asm.contains("stg"), "{}", c.asm);
    let mut env = MemoryEnv::default();
    for i in 0..8u32 {
        env.memory.insert(4 * i, (i as f32 + 0.5).to_bits());
    }
    let u: std::collections::BTreeMap<String, Vec<u32>> = [
        ("scale".to_string(), f(&[3.0])),
        ("count".to_string(), vec![6]),
    ]
    .into();
    env.uniforms = rendergen_shader_compiler::launch::uniforms(&c.interface, &u).unwrap();
    // Registers per the ABI: r0..r2 global id, r3..r5 local id, r6 local index, r7..r9
    // workgroup id.
    let mut l = Launch::new(2);
    l.regs = (0..8u32)
        .map(|i| vec![i, 1, 0, i, 0, 0, i, 0, 2, 0])
        .collect();
    let o = run(&c.words, &Config::default(), &l, &mut env);
    assert_eq!(o.error, None);
    for i in 0..8u32 {
        let at = |k: u32| env.memory.get(&((1 << 24) + 8 * i + 4 * k)).copied();
        if i >= 6 {
            assert_eq!(at(0), None, "thread {i} returned early");
            continue;
        }
        assert_eq!(
            at(0),
            Some(((i as f32 + 0.5) * 3.0).to_bits()),
            "thread {i}"
        );
        assert_eq!(
            at(1),
            Some(((i * 100 + 20 + i + 1) as f32).to_bits()),
            "thread {i}"
        );
    }
}

#[test]
fn integer_division_by_powers_of_two() {
    let src = "#version 450
layout(location = 0) flat in int a;
layout(location = 1) flat in uint b;
layout(location = 0) out ivec4 o;
layout(location = 1) out uvec2 u;
void main() { o = ivec4(a / 4, a % 4, a / 1, a % 8); u = uvec2(b / 16u, b % 16u); }";
    let vals = [
        (7i32, 33u32),
        (-7, 0xFFFF_FFFF),
        (-8, 15),
        (0, 16),
        (i32::MIN, 1),
        (i32::MAX, 0x8000_0000),
    ];
    let invs: Vec<_> = vals
        .iter()
        .map(|&(a, b)| vec![("a", vec![a as u32]), ("b", vec![b])])
        .collect();
    let out = exec_both(src, frag(), &invs, &[]);
    for (i, &(a, b)) in vals.iter().enumerate() {
        assert_eq!(
            out[i]["o"],
            [a / 4, a % 4, a, a % 8].map(|x| x as u32),
            "a = {a}"
        );
        assert_eq!(out[i]["u"], [b / 16, b % 16], "b = {b}");
    }
    let e = compile("#version 450\nlayout(location = 0) flat in int a;\nlayout(location = 0) out int o;\nvoid main() { o = a / 3; }", "d.frag", &rendergen_shader_compiler::Options::new(frag())).unwrap_err();
    assert!(
        e.message.contains("d.frag:") && e.message.contains("integer division"),
        "{e}"
    );
}
