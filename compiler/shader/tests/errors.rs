//! Compile errors the core's limits cause (not naga's): nesting deeper than the mask stack,
//! more live values than registers, missing entry points; and dynamic indexing, which is
//! supported one level deep.

mod common;
use common::*;
use rendergen_shader_compiler::{compile, Lang, Options, ShaderStage};

#[test]
fn nesting_beyond_the_mask_stack_is_an_error() {
    let mut body = String::new();
    for i in 0..17 {
        body.push_str(&format!("if (x > {i}.0) {{ r += 1.0;\n"));
    }
    body.push_str(&"}".repeat(17));
    let src = format!("#version 450\nlayout(location = 0) in float x;\nlayout(location = 0) out float o;\nvoid main() {{ float r = 0.0;\n{body}\no = r; }}");
    let e = compile(&src, "deep.frag", &Options::new(frag())).unwrap_err();
    assert!(
        e.message.contains("mask stack") && e.message.contains("16"),
        "{e}"
    );
    // 15 levels fit (the front end counts each if and loop).
    let mut body = String::new();
    for i in 0..15 {
        body.push_str(&format!("if (x > {i}.0) {{ r += 1.0;\n"));
    }
    body.push_str(&"}".repeat(15));
    let ok = format!("#version 450\nlayout(location = 0) in float x;\nlayout(location = 0) out float o;\nvoid main() {{ float r = 0.0;\n{body}\no = r; }}");
    let c = build(&ok, frag(), true);
    let out = exec(&c, &[vec![("x", f(&[7.5]))]], &[]);
    assert_eq!(out[0]["o"], f(&[8.0]));
}

#[test]
fn too_many_live_values_is_an_error() {
    // 80 distinct live values summed at the end: more than 64 registers.
    let mut decl = String::new();
    let mut sum = String::from("0.0");
    for i in 0..80 {
        decl.push_str(&format!("float v{i} = sin(x + {i}.0);\n"));
    }
    for i in (0..80).rev() {
        sum = format!("({sum} * v{i} + v{})", 79 - i);
    }
    let src = format!("#version 450\nlayout(location = 0) in float x;\nlayout(location = 0) out float o;\nvoid main() {{\n{decl}o = {sum};\n}}");
    let e = compile(&src, "big.frag", &Options::new(frag())).unwrap_err();
    assert!(e.message.contains("registers"), "{e}");
    let mut o = Options::new(frag());
    o.regs = 256;
    compile(&src, "big.frag", &o).unwrap();
}

#[test]
fn entry_point_selection() {
    let src = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(0.5); }";
    let mut o = Options::new(Lang::Wgsl);
    o.stage = Some(ShaderStage::Fragment);
    assert_eq!(compile(src, "m.wgsl", &o).unwrap().interface.entry, "fs");
    o.stage = None;
    o.entry = Some("vs".into());
    assert_eq!(compile(src, "m.wgsl", &o).unwrap().interface.entry, "vs");
    o.entry = Some("nope".into());
    let e = compile(src, "m.wgsl", &o).unwrap_err();
    assert!(
        e.message.contains("`nope`") && e.message.contains("vs (Vertex)"),
        "{e}"
    );
}

#[test]
fn dynamic_indexing_of_arrays_and_vectors() {
    let src = "#version 450
layout(location = 0) flat in int i;
layout(location = 1) in vec4 v;
layout(location = 0) out vec2 o;
void main() {
    float a[4] = float[4](10.0, 20.0, 30.0, 40.0);
    a[i] = a[i] + v[i];
    o = vec2(a[i], a[(i + 1) & 3]);
}";
    let invs: Vec<_> = (0..4)
        .map(|i| vec![("i", vec![i as u32]), ("v", f(&[1.0, 2.0, 3.0, 4.0]))])
        .collect();
    let out = exec_both(src, frag(), &invs, &[]);
    let a = [10.0f32, 20.0, 30.0, 40.0];
    for i in 0..4 {
        assert_eq!(
            out[i]["o"],
            f(&[a[i] + (i + 1) as f32, a[(i + 1) & 3]]),
            "i = {i}"
        );
    }
}
