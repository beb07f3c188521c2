//! `rendergen shader run --engine llvmpipe` as a user runs it: the same document shape as the
//! model's (byte-identical where both are exact), the renderer in `--json`, and the clear
//! errors for what GL cannot run.

mod common;
use common::rendergen;

use std::path::PathBuf;
use std::process::Output;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn example(name: &str) -> String {
    format!("{}/shader/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str, body: &str) -> String {
    let dir = std::env::temp_dir().join(format!("rendergen-llvmpipe-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

fn run(prog: &str, inputs: &str, engine: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "shader", "run", prog, "--inputs", inputs, "--engine", engine,
    ];
    args.extend_from_slice(extra);
    rendergen(&args)
}

/// An exact shader (integer maths, selects, single float operations) gives byte-identical
/// documents on the model and on llvmpipe, discarded invocations included.
#[test]
fn llvmpipe_document_equals_the_models_on_an_exact_shader() {
    let prog = scratch(
        "exact.frag",
        "#version 450\n\
         layout(location = 0) in vec2 a;\n\
         layout(location = 1) flat in int n;\n\
         layout(location = 0) out vec4 c;\n\
         layout(location = 1) out ivec2 k;\n\
         void main() {\n\
             if (n < 0) discard;\n\
             c = vec4(a.x + a.y, min(a.x, a.y), a.x * a.y, gl_FragCoord.x);\n\
             k = ivec2(n << 2, n > 3 ? n ^ 5 : -n);\n\
         }\n",
    );
    let inputs = scratch(
        "exact.json",
        r#"{"invocations": [
            {"a": [1.5, -0.25], "n": 3, "gl_FragCoord": [0.5, 0.5, 0, 1]},
            {"a": [1e30, 3e-3], "n": 9},
            {"a": [-0.0, 0.0], "n": -1},
            {"a": ["inf", 2], "n": 0},
            {"a": [0.1, 0.2], "n": 2147483647}
        ]}"#,
    );
    let m = run(&prog, &inputs, "model", &[]);
    let g = run(&prog, &inputs, "llvmpipe", &[]);
    assert_eq!(m.status.code(), Some(0), "{}", text(&m.stderr));
    assert_eq!(g.status.code(), Some(0), "{}", text(&g.stderr));
    assert_eq!(text(&m.stdout), text(&g.stdout));
    assert!(
        text(&g.stdout).contains("{},"),
        "the discarded invocation is empty"
    );
}

/// The example vertex shader: the same outputs (world normal, shade, gl_Position) on both
/// (gl_Position: (1, 2, 3) moved by (3, 2, 1), x + 0.25·2, y·2, z − 0.5, w = z),
/// and `--json` names llvmpipe as the renderer.
#[test]
fn llvmpipe_runs_the_example_vertex_shader() {
    let inputs = scratch(
        "vert.json",
        r#"{"invocations": [
            {"position": [1, 2, 3], "normal": [0, 1, 0], "gl_VertexIndex": 5, "gl_InstanceIndex": 2},
            {"position": [-1, 0.5, 3], "normal": [0, 0, 1], "gl_VertexIndex": 7, "gl_InstanceIndex": 0}
        ]}"#,
    );
    let uniforms = scratch(
        "vert_u.json",
        r#"{"view_proj": [1,0,0,0, 0,2,0,0, 0,0,1,1, 0,0,-0.5,0],
            "model": [1,0,0,0, 0,1,0,0, 0,0,1,0, 3,2,1,1], "offset": 0.25}"#,
    );
    let prog = example("transform.vert");
    let m = run(&prog, &inputs, "model", &["--uniforms", &uniforms]);
    let g = run(
        &prog,
        &inputs,
        "llvmpipe",
        &["--uniforms", &uniforms, "--json"],
    );
    assert_eq!(g.status.code(), Some(0), "{}", text(&g.stderr));
    let m: serde_json::Value = serde_json::from_str(&text(&m.stdout)).unwrap();
    let g: serde_json::Value = serde_json::from_str(&text(&g.stdout)).unwrap();
    assert_eq!(m["outputs"], g["outputs"]);
    assert_eq!(
        g["outputs"][0]["gl_Position"],
        serde_json::json!([4.5, 8, 3.5, 4])
    );
    let r = g["stats"]["renderer"].as_str().unwrap();
    assert!(r.contains("llvmpipe"), "{r}");
}

/// WGSL, textures and compute shaders are clear errors (exit code 2), not different numbers.
#[test]
fn llvmpipe_refuses_what_gl_cannot_run() {
    let cases = [
        ("shade.wgsl", "WGSL is not accepted by OpenGL"),
        ("gradient.frag", "not supported by the llvmpipe engine"),
        ("blur.comp", "runs vertex and fragment shaders"),
    ];
    let empty = scratch("empty.json", r#"{"invocations": [{}]}"#);
    for (prog, want) in cases {
        let o = run(&example(prog), &empty, "llvmpipe", &[]);
        assert_eq!(o.status.code(), Some(2), "{prog}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(want),
            "{prog}: {}",
            text(&o.stderr)
        );
    }
}
