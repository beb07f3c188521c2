//! Every error: its message and the line it names. Malformed and mutated documents never
//! panic.

mod common;
use common::*;
use rendergen_mtlx_compiler::{compile, CompileError, Options};

fn err(text: &str) -> CompileError {
    match compile(text, &Options::default()) {
        Ok(_) => panic!("compiles, but should not:\n{text}"),
        Err(e) => e,
    }
}

/// Expects an error at `line` whose message contains every one of `parts`.
fn expect(text: &str, line: u32, parts: &[&str]) {
    let e = err(text);
    assert_eq!(e.line, line, "{e}");
    for p in parts {
        assert!(e.message.contains(p), "`{e}` lacks `{p}`");
    }
}

const ON: &str = r#"<oren_nayar_diffuse_bsdf name="d" type="BSDF">"#;

#[test]
fn malformed_xml_names_its_line() {
    expect(
        "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n<surface name=\"s\" type=\"surfaceshader\">\n</materialx>\n",
        4,
        &["malformed XML"],
    );
    expect(
        "<?xml version=\"1.0\"?>\n<material/>\n",
        2,
        &["root element is <material>"],
    );
    expect("", 1, &["malformed XML"]);
}

#[test]
fn unsupported_node_names_node_category_type_and_line() {
    let text = doc(
        "<standard_surface name=\"ss\" type=\"BSDF\">\n</standard_surface>",
        "ss",
    );
    expect(
        &text,
        3,
        &[
            "unsupported node `ss`",
            "category `standard_surface`",
            "type BSDF",
        ],
    );
    let text = doc("<conductor_bsdf name=\"metal\" type=\"BSDF\"/>", "metal");
    expect(&text, 3, &["unsupported node `metal`", "`conductor_bsdf`"]);
}

#[test]
fn unknown_nodedef() {
    let text = doc(
        r#"<oren_nayar_diffuse_bsdf name="d" type="BSDF" nodedef="ND_mine"/>"#,
        "d",
    );
    expect(&text, 3, &["unknown nodedef `ND_mine`"]);
}

#[test]
fn type_mismatches() {
    // A connection of the wrong type (line of the input).
    let text = doc(
        &format!(
            "<constant name=\"k\" type=\"float\"><input name=\"value\" type=\"float\" value=\"1\"/></constant>\n{ON}\n<input name=\"color\" type=\"color3\" nodename=\"k\"/>\n</oren_nayar_diffuse_bsdf>"
        ),
        "d",
    );
    expect(
        &text,
        5,
        &["type mismatch", "input `color`", "is color3", "gives float"],
    );
    // An input declared with a type no definition has (line of the node).
    let text = doc(
        &format!("{ON}\n<input name=\"roughness\" type=\"color3\" value=\"1, 1, 1\"/>\n</oren_nayar_diffuse_bsdf>"),
        "d",
    );
    expect(
        &text,
        3,
        &[
            "type mismatch",
            "oren_nayar_diffuse_bsdf",
            "roughness: color3",
        ],
    );
    // A value that does not parse as its type.
    let text = doc(
        &format!("{ON}\n<input name=\"color\" type=\"color3\" value=\"0.5, x, 1\"/>\n</oren_nayar_diffuse_bsdf>"),
        "d",
    );
    expect(&text, 4, &["`x` is not a number"]);
    let text = doc(
        &format!("{ON}\n<input name=\"color\" type=\"color3\" value=\"0.5, 1\"/>\n</oren_nayar_diffuse_bsdf>"),
        "d",
    );
    expect(&text, 4, &["3 numbers expected, 2 found"]);
    // An unknown input name.
    let text = doc(
        &format!("{ON}\n<input name=\"colour\" type=\"color3\" value=\"1, 1, 1\"/>\n</oren_nayar_diffuse_bsdf>"),
        "d",
    );
    expect(&text, 4, &["no input `colour`", "color"]);
    // The material's surface connected to a BSDF directly.
    let text = "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n<sheen_bsdf name=\"s\" type=\"BSDF\"/>\n<surfacematerial name=\"M\" type=\"material\">\n<input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"s\"/>\n</surfacematerial>\n</materialx>";
    expect(text, 5, &["type mismatch", "surfaceshader", "gives BSDF"]);
}

#[test]
fn missing_connections() {
    let text = doc(
        &format!("{ON}\n<input name=\"color\" type=\"color3\" nodename=\"nothere\"/>\n</oren_nayar_diffuse_bsdf>"),
        "d",
    );
    expect(&text, 4, &["missing connection", "no node named `nothere`"]);
    let text = doc("", "ghost");
    expect(&text, 5, &["missing connection", "`ghost`"]);
    let text = "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n<surface name=\"s\" type=\"surfaceshader\"/>\n<surfacematerial name=\"M\" type=\"material\">\n<input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"s\"/>\n</surfacematerial>\n</materialx>";
    expect(text, 3, &["missing connection", "`bsdf` of surface `s`"]);
    let text = doc(
        "<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"color\" type=\"color3\" nodegraph=\"NG\"/>\n</sheen_bsdf>",
        "s",
    );
    expect(&text, 4, &["no nodegraph named `NG`"]);
    let text = doc("<image name=\"i\" type=\"color3\"/>\n<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"color\" type=\"color3\" nodename=\"i\"/>\n</sheen_bsdf>", "s");
    expect(&text, 3, &["image `i` has no file"]);
}

#[test]
fn cycles() {
    let text = doc(
        "<add name=\"a\" type=\"color3\">\n<input name=\"in1\" type=\"color3\" nodename=\"b\"/>\n</add>\n<add name=\"b\" type=\"color3\">\n<input name=\"in1\" type=\"color3\" nodename=\"a\"/>\n</add>\n<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"color\" type=\"color3\" nodename=\"a\"/>\n</sheen_bsdf>",
        "s",
    );
    expect(&text, 3, &["cycle in the graph: a → b → a"]);
}

#[test]
fn materials_to_choose_from() {
    expect(
        "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n</materialx>",
        0,
        &["no surfacematerial"],
    );
    let two = doc("<sheen_bsdf name=\"s\" type=\"BSDF\"/>\n<surfacematerial name=\"Other\" type=\"material\">\n<input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"surface\"/>\n</surfacematerial>", "s");
    expect(
        &two,
        0,
        &["several materials", "`Other`", "`M`", "--material"],
    );
    let opts = |m: &str| Options {
        material: Some(m.to_string()),
        ..Options::default()
    };
    assert!(compile(&two, &opts("Other")).is_ok());
    let e = compile(&two, &opts("Nope")).unwrap_err();
    assert!(e.message.contains("no material named `Nope`"), "{e}");
    let e = compile(&two, &opts("s")).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    assert!(e.message.contains("not a surfacematerial"), "{e}");
}

#[test]
fn inputs_the_engine_cannot_honour() {
    let aniso = doc("<dielectric_bsdf name=\"g\" type=\"BSDF\">\n<input name=\"roughness\" type=\"vector2\" value=\"0.1, 0.4\"/>\n</dielectric_bsdf>", "g");
    expect(&aniso, 4, &["anisotropic"]);
    let t = doc("<dielectric_bsdf name=\"g\" type=\"BSDF\">\n<input name=\"scatter_mode\" type=\"string\" value=\"T\"/>\n</dielectric_bsdf>", "g");
    expect(&t, 4, &["scatter_mode", "only reflection"]);
    let z = doc("<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"mode\" type=\"string\" value=\"zeltner\"/>\n</sheen_bsdf>", "s");
    expect(&z, 4, &["mode", "conty_kulla"]);
    let e = doc("<generalized_schlick_bsdf name=\"g\" type=\"BSDF\">\n<input name=\"exponent\" type=\"float\" value=\"3\"/>\n</generalized_schlick_bsdf>", "g");
    expect(&e, 4, &["exponent = 3"]);
    let div = doc("<texcoord name=\"uv\" type=\"vector2\"/>\n<image name=\"i\" type=\"float\">\n<input name=\"file\" type=\"filename\" value=\"missing.astc\"/>\n</image>\n<sheen_bsdf name=\"s\" type=\"BSDF\"/>", "s");
    assert!(
        compile(&div, &Options::default()).is_ok(),
        "an unused image is never read"
    );
    let missing = doc("<image name=\"i\" type=\"float\">\n<input name=\"file\" type=\"filename\" value=\"missing.astc\"/>\n</image>\n<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"roughness\" type=\"float\" nodename=\"i\"/>\n</sheen_bsdf>", "s");
    expect(&missing, 4, &["image `i`", "cannot read", "missing.astc"]);
    let divide = doc(&format!("<image name=\"i\" type=\"float\">\n<input name=\"file\" type=\"filename\" value=\"{}\"/>\n</image>\n<divide name=\"q\" type=\"float\">\n<input name=\"in1\" type=\"float\" value=\"1\"/>\n<input name=\"in2\" type=\"float\" nodename=\"i\"/>\n</divide>\n<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"roughness\" type=\"float\" nodename=\"q\"/>\n</sheen_bsdf>", example("checker.astc").display()), "s");
    expect(&divide, 6, &["divisor must be a constant"]);
    let by_zero = doc("<divide name=\"q\" type=\"float\">\n<input name=\"in1\" type=\"float\" value=\"1\"/>\n<input name=\"in2\" type=\"float\" value=\"0\"/>\n</divide>\n<sheen_bsdf name=\"s\" type=\"BSDF\">\n<input name=\"roughness\" type=\"float\" nodename=\"q\"/>\n</sheen_bsdf>", "s");
    expect(&by_zero, 3, &["division by zero"]);
    let custom = "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n<nodedef name=\"ND_x\" node=\"x\"/>\n</materialx>";
    expect(custom, 3, &["custom node definitions are not supported"]);
}

#[test]
fn too_many_lobes_for_the_stack() {
    let mut body = String::new();
    let mut prev = "l0".to_string();
    body += "<sheen_bsdf name=\"l0\" type=\"BSDF\"/>\n";
    for i in 1..24 {
        body += &format!("<sheen_bsdf name=\"l{i}\" type=\"BSDF\"/>\n<add name=\"a{i}\" type=\"BSDF\"><input name=\"in1\" type=\"BSDF\" nodename=\"{prev}\"/><input name=\"in2\" type=\"BSDF\" nodename=\"l{i}\"/></add>\n");
        prev = format!("a{i}");
    }
    let e = err(&doc(&body, &prev));
    assert!(
        e.message.contains("importance-sampling program needs")
            && e.message.contains("a PBRU slot has 32"),
        "{e}"
    );
}

#[test]
fn two_different_cel_tables() {
    let text = doc("<cel_bsdf name=\"a\" type=\"BSDF\"/>\n<cel_bsdf name=\"b\" type=\"BSDF\">\n<input name=\"value3\" type=\"float\" value=\"0.9\"/>\n</cel_bsdf>\n<add name=\"s\" type=\"BSDF\"><input name=\"in1\" type=\"BSDF\" nodename=\"a\"/><input name=\"in2\" type=\"BSDF\" nodename=\"b\"/></add>", "s");
    expect(&text, 4, &["cel_bsdf band table differs", "line 3"]);
    let wired = doc("<constant name=\"k\" type=\"float\"/>\n<cel_bsdf name=\"a\" type=\"BSDF\">\n<input name=\"threshold1\" type=\"float\" nodename=\"k\"/>\n</cel_bsdf>", "a");
    // A constant node folds, so a connection to one is accepted; a texture would not be.
    assert!(compile(&wired, &Options::default()).is_ok());
}

/// Truncated and byte-mutated examples compile or fail with an error, never a panic.
#[test]
fn mutated_documents_never_panic() {
    let mut rng = Rng(99);
    for name in [
        "glossy.mtlx",
        "nodegraph.mtlx",
        "mix_add.mtlx",
        "textured.mtlx",
    ] {
        let text = std::fs::read_to_string(example(name)).unwrap();
        let opts = Options {
            dir: example(""),
            ..Options::default()
        };
        for _ in 0..150 {
            let mut b = text.clone().into_bytes();
            match rng.next() % 3 {
                0 => b.truncate((rng.next() % b.len() as u64) as usize),
                1 => {
                    let at = (rng.next() % b.len() as u64) as usize;
                    b[at] = b" <>/=\"x0.,a"[(rng.next() % 11) as usize];
                }
                _ => {
                    let at = (rng.next() % b.len() as u64) as usize;
                    let len = (rng.next() % 40) as usize;
                    b.drain(at..(at + len).min(b.len()));
                }
            }
            let t = String::from_utf8_lossy(&b);
            if let Err(e) = compile(&t, &opts) {
                assert!(!e.message.is_empty());
            }
        }
    }
}
