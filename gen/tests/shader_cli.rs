//! `rendergen shader compile` and `rendergen shader run` as a user runs them: outputs, the
//! default output path, statistics, and every error with its exit code and message.

mod common;
use common::{rendergen, stderr, stdout};

use std::path::PathBuf;

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rendergen-shader-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn example(name: &str) -> String {
    format!("{}/shader/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// `run` on the example: outputs in invocation order, discarded invocations empty, numbers in
/// shortest form; `--json` adds statistics.
#[test]
fn run_prints_outputs_per_invocation() {
    let o = rendergen(&[
        "shader",
        "run",
        &example("loops.frag"),
        "--inputs",
        &example("loops.json"),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let outs = v["outputs"].as_array().unwrap();
    assert_eq!(outs.len(), 6);
    // x = 1: acc runs 0, 1, 3 then breaks (3 > 1); quad derivatives 3.5 − 1 and −1 − 1.
    assert_eq!(outs[0]["result"], serde_json::json!([3, 2.5, -2, 0.5]));
    assert_eq!(outs[2], serde_json::json!({}), "x < 0 discards");
    assert_eq!(
        outs[3]["result"][3],
        serde_json::json!(1),
        "a > 10 returns early"
    );
    assert_eq!(v["stats"]["warps"], 2, "one quad per warp");
    assert!(v["stats"]["instructions"].as_u64().unwrap() > 0);
    // Shortest round-trip form.
    let text = stdout(&o);
    assert!(
        text.contains("39.75") && !text.contains("39.75000"),
        "{text}"
    );
}

/// Uniforms by member name; a WGSL shader with integer output and texture.
#[test]
fn run_with_uniforms_and_wgsl() {
    let o = rendergen(&[
        "shader",
        "run",
        &example("gradient.frag"),
        "--inputs",
        &example("inputs.json"),
        "--uniforms",
        &example("uniforms.json"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["outputs"].as_array().unwrap().len(), 5);
    let inputs = scratch(
        "w.json",
        r#"{"invocations": [{"pos": [3.5, 2.5, 0.5, 1], "uv": [0.5, 0.25], "front": true}]}"#,
    );
    let uni = scratch(
        "wu.json",
        r#"{"tint": [1, 0.5, 0.25, 1], "roughness": 0.25, "levels": 4}"#,
    );
    let o = rendergen(&[
        "shader",
        "run",
        &example("shade.wgsl"),
        "--inputs",
        s(&inputs),
        "--uniforms",
        s(&uni),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // The test texture reads (s, t, 1, 1) (UNORM16 words, ABI.md): floor(0.5·4)/4,
    // floor(0.25·4)/4, 1.
    assert_eq!(
        v["outputs"][0]["color"],
        serde_json::json!([0.5, 0.125, 0.25, 0.75])
    );
    assert_eq!(v["outputs"][0]["id"], serde_json::json!([3 + 2 * 16]));
}

/// `compile` writes next to the input by default; `--asm` prints; `-o` writes there.
#[test]
fn compile_outputs() {
    let src = scratch(
        "c.frag",
        "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
    );
    let o = rendergen(&["shader", "compile", s(&src)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bin = src.with_file_name("c.frag.bin");
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!(bytes.len() % 8, 0);
    let o = rendergen(&["shader", "disasm", s(&bin)]);
    assert!(stdout(&o).contains("export 0"), "{}", stdout(&o));
    let o = rendergen(&["shader", "compile", s(&src), "--asm"]);
    assert!(
        stdout(&o).contains("movi") && stdout(&o).contains("end"),
        "{}",
        stdout(&o)
    );
    let out = src.with_file_name("other.bin");
    let o = rendergen(&[
        "shader",
        "compile",
        &example("transform.vert"),
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.exists());
    for ex in ["shade.wgsl", "blur.comp", "gradient.frag"] {
        let o = rendergen(&["shader", "compile", &example(ex), "-o", s(&out)]);
        assert_eq!(o.status.code(), Some(0), "{ex}: {}", stderr(&o));
    }
}

/// Every error: exit 2, naming the file and the line/column or the field.
#[test]
fn errors_name_file_line_and_field() {
    let check = |args: &[&str], want: &[&str]| {
        let o = rendergen(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        for w in want {
            assert!(
                stderr(&o).contains(w),
                "{args:?}: want {w:?} in {}",
                stderr(&o)
            );
        }
    };
    // naga parse errors with line and column.
    let bad = scratch(
        "bad.frag",
        "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {\n    c = vec4(1.0) +;\n}\n",
    );
    check(&["shader", "compile", s(&bad)], &["bad.frag:4:"]);
    let bad = scratch(
        "bad.wgsl",
        "@fragment fn main() -> @location(0) vec4<f32> {\n  return vec4<f32>(1.0, 2.0);\n}\n",
    );
    check(&["shader", "compile", s(&bad)], &["bad.wgsl:2:"]);
    // Unsupported constructs, named, with their line.
    let atomic = scratch("atomic.wgsl", "@group(0) @binding(0) var<storage, read_write> n: atomic<u32>;\n@compute @workgroup_size(1) fn main() {\n  atomicAdd(&n, 1u);\n}\n");
    check(
        &["shader", "compile", s(&atomic)],
        &["atomic.wgsl:1:", "atomic"],
    );
    let div = scratch("div.frag", "#version 450\nlayout(location = 0) flat in int a;\nlayout(location = 0) out int o;\nvoid main() {\n  o = a / 3;\n}\n");
    check(
        &["shader", "compile", s(&div)],
        &["div.frag:5:", "integer division"],
    );
    let sw = scratch("sw.frag", "#version 450\nlayout(location = 0) flat in int a;\nlayout(location = 0) out float o;\nvoid main() {\n  o = 0.0;\n  for (int i = 0; i < 2; i++) {\n  switch (a) { case 1: continue; default: break; }\n  }\n}\n");
    check(
        &["shader", "compile", s(&sw)],
        &["sw.frag:7:", "continue inside a switch"],
    );
    let atan = scratch("atan.frag", "#version 450\nlayout(location = 0) in float a;\nlayout(location = 0) out float o;\nvoid main() {\n  o = atan(a);\n}\n");
    check(&["shader", "compile", s(&atan)], &["atan.frag:5:", "Atan"]);
    // Missing file, unknown extension, .glsl without a stage.
    check(
        &["shader", "compile", "/nonexistent/x.frag"],
        &["/nonexistent/x.frag"],
    );
    let txt = scratch("x.txt", "");
    check(&["shader", "compile", s(&txt)], &["x.txt", "extension"]);
    let g = scratch("x.glsl", "#version 450\nvoid main() {}\n");
    check(&["shader", "compile", s(&g)], &["x.glsl", "--stage"]);
    let o = rendergen(&[
        "shader",
        "compile",
        s(&g),
        "--stage",
        "compute",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // JSON: syntax, shape, unknown input, wrong length, bad number, missing file.
    let frag = example("loops.frag");
    let j = scratch("syntax.json", "{\"invocations\": [");
    check(
        &["shader", "run", &frag, "--inputs", s(&j)],
        &["syntax.json:1:"],
    );
    let j = scratch("shape.json", "{\"calls\": []}");
    check(
        &["shader", "run", &frag, "--inputs", s(&j)],
        &["shape.json", "invocations"],
    );
    let j = scratch(
        "unknown.json",
        "{\"invocations\": [{\"x\": 1}, {\"y\": [1]}]}",
    );
    check(
        &["shader", "run", &frag, "--inputs", s(&j)],
        &["unknown.json: invocations[1].y", "no input `y`", "x"],
    );
    let j = scratch("len.json", "{\"invocations\": [{\"x\": [1, 2]}]}");
    check(
        &["shader", "run", &frag, "--inputs", s(&j)],
        &["len.json: invocations[0].x", "2 numbers", "has 1"],
    );
    let j = scratch("num.json", "{\"invocations\": [{\"x\": [\"one\"]}]}");
    check(
        &["shader", "run", &frag, "--inputs", s(&j)],
        &["num.json: invocations[0].x[0]", "expected a number"],
    );
    check(
        &["shader", "run", &frag, "--inputs", "/nonexistent/in.json"],
        &["/nonexistent/in.json"],
    );
    let u = scratch("u.json", "{\"exposure\": 1, \"nope\": 2}");
    check(
        &[
            "shader",
            "run",
            &example("gradient.frag"),
            "--inputs",
            &example("inputs.json"),
            "--uniforms",
            s(&u),
        ],
        &["u.json: nope", "no uniform `nope`"],
    );
    let u = scratch("u2.json", "{\"sky\": [1, 2]}");
    check(
        &[
            "shader",
            "run",
            &example("gradient.frag"),
            "--inputs",
            &example("inputs.json"),
            "--uniforms",
            s(&u),
        ],
        &["u2.json: sky", "2 numbers", "has 4"],
    );
    let j = scratch(
        "int.json",
        "{\"invocations\": [{\"pos\": [0, 0, 0, 1], \"uv\": [0, 0], \"front\": 2}]}",
    );
    check(
        &["shader", "run", &example("shade.wgsl"), "--inputs", s(&j)],
        &["int.json: invocations[0].front[0]", "true, false, 0 or 1"],
    );
}

/// `--engine rtl` simulates the shader core cycle by cycle and gives the interpreter's outputs,
/// bit for bit, on the examples (divergent loops, discard, early return, derivatives,
/// uniforms, WGSL, textures); its statistics have cycles and IPC.
#[test]
fn the_rtl_engine_gives_the_interpreters_outputs() {
    let runs: [&[&str]; 2] = [
        &[&example("loops.frag"), "--inputs", &example("loops.json")],
        &[
            &example("gradient.frag"),
            "--inputs",
            &example("inputs.json"),
            "--uniforms",
            &example("uniforms.json"),
        ],
    ];
    for args in runs {
        let out = |engine: &str| {
            let mut a = vec!["shader", "run"];
            a.extend_from_slice(args);
            a.extend_from_slice(&["--engine", engine, "--json"]);
            let o = rendergen(&a);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{engine} {args:?}: {}",
                stderr(&o)
            );
            serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
        };
        let (model, rtl) = (out("model"), out("rtl"));
        assert_eq!(model["outputs"], rtl["outputs"], "{args:?}");
        assert_eq!(model["stats"]["instructions"], rtl["stats"]["instructions"]);
        let cycles = rtl["stats"]["cycles"].as_u64().expect("rtl reports cycles");
        assert!(
            cycles > 0 && rtl["stats"]["ipc"].as_f64().unwrap() > 0.0,
            "{rtl}"
        );
        assert!(model["stats"].get("cycles").is_none());
    }
}
