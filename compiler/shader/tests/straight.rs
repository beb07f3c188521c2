//! Milestone 1: straight-line fragment shaders, compiled and run on the interpreter, equal
//! hand-computed f32 results.

mod common;
use common::*;
use rendergen_shader_compiler::Lang;

#[test]
fn glsl_straight_line_arithmetic_equals_host_f32() {
    let src = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) in float k;
layout(location = 0) out vec4 color;
void main() {
    float a = uv.x * k + uv.y;
    float b = (uv.x - uv.y) * 0.5;
    color = vec4(a, b, min(uv.x, k), max(uv.y, 2.0));
}";
    let inputs = [
        (0.25f32, 1.5f32, 3.0f32),
        (-1.0, 0.125, 7.5),
        (1e-3, 4.0, -2.0),
        (0.0, -0.0, 1.0),
        (5.0, 6.0, 7.0),
    ];
    let invs: Vec<_> = inputs
        .iter()
        .map(|&(x, y, k)| vec![("uv", f(&[x, y])), ("k", f(&[k]))])
        .collect();
    let out = exec_both(src, frag(), &invs, &[]);
    let opt = exec(&build(src, frag(), true), &invs, &[]);
    for (i, &(x, y, k)) in inputs.iter().enumerate() {
        // Unoptimised: separately rounded; optimised GLSL contracts x·k + y into one fma.
        assert_eq!(
            out[i]["color"],
            f(&[x * k + y, (x - y) * 0.5, x.min(k), y.max(2.0)]),
            "invocation {i}"
        );
        assert_eq!(
            opt[i]["color"],
            f(&[x.mul_add(k, y), (x - y) * 0.5, x.min(k), y.max(2.0)]),
            "invocation {i}"
        );
    }
}

#[test]
fn wgsl_straight_line_arithmetic_equals_host_f32() {
    let src = "
struct Out { @location(0) c: vec4<f32>, @location(1) @interpolate(flat) i: vec2<i32> }
@fragment fn main(@location(0) v: vec3<f32>, @location(1) @interpolate(flat) n: i32) -> Out {
    var o: Out;
    o.c = vec4<f32>(v * 2.0 + vec3<f32>(1.0, 2.0, 3.0), v.x * v.y);
    o.i = vec2<i32>(n * 3 - 7, (n << 2u) ^ 5);
    return o;
}";
    let vals = [
        ([1.0f32, 2.0, 3.0], 4i32),
        ([-0.5, 1e10, 0.1], -9),
        ([0.3, 0.7, -0.0], 0),
    ];
    let invs: Vec<_> = vals
        .iter()
        .map(|(v, n)| vec![("v", f(v)), ("n", vec![*n as u32])])
        .collect();
    let out = exec_both(src, Lang::Wgsl, &invs, &[]);
    for (i, (v, n)) in vals.iter().enumerate() {
        assert_eq!(
            out[i]["c"],
            f(&[
                v[0] * 2.0 + 1.0,
                v[1] * 2.0 + 2.0,
                v[2] * 2.0 + 3.0,
                v[0] * v[1]
            ])
        );
        assert_eq!(out[i]["i"], vec![(n * 3 - 7) as u32, ((n << 2) ^ 5) as u32]);
    }
}
