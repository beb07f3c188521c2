//! `rendergen mtlx compile` as a user runs it: the container and its default path, `--asm`,
//! `--material`, and errors with their exit code and line.

mod common;
use common::{rendergen, scratch_path, stderr, stdout};

use rendergen_mtlx_compiler::Container;

fn scratch(name: &str) -> std::path::PathBuf {
    scratch_path("mtlx-cli", name)
}

fn example(name: &str) -> String {
    format!(
        "{}/../compiler/mtlx/examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn compile_writes_the_container() {
    let out = scratch("glossy.bin");
    let o = rendergen(&["mtlx", "compile", &example("glossy.mtlx"), "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let msg = stdout(&o);
    assert!(
        msg.contains("material `M_glossy`, 3 lobes (generalized_schlick, dielectric, oren_nayar)"),
        "{msg}"
    );
    let c = Container::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(
        (c.material.as_str(), c.lobes, c.shading_inputs),
        ("M_glossy", 3, 12)
    );
    assert!(!c.shading.is_empty() && !c.sampling.is_empty());
}

#[test]
fn default_output_appends_bin() {
    let src = scratch("cel.mtlx");
    std::fs::copy(example("cel.mtlx"), &src).unwrap();
    let o = rendergen(&["mtlx", "compile", s(&src)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = Container::from_bytes(&std::fs::read(scratch("cel.mtlx.bin")).unwrap()).unwrap();
    assert_eq!(c.setup.len(), 7);
}

#[test]
fn asm_prints_both_programs_that_assemble() {
    let o = rendergen(&["mtlx", "compile", &example("textured.mtlx"), "--asm"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("; ---- shading program")
            && text.contains("; ---- importance-sampling program")
    );
    assert!(
        text.contains("TEX_A") && text.contains("RANDSEL 1") && text.contains("OREN_NAYAR_DIR")
    );
    let asm_file = scratch("textured.asm");
    std::fs::write(&asm_file, &text).unwrap();
    let bin = scratch("textured.asm.bin");
    let o = rendergen(&["asm", s(&asm_file), "-o", s(&bin)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn material_choice_and_errors() {
    let two = scratch("two.mtlx");
    std::fs::write(
        &two,
        "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n\
         <sheen_bsdf name=\"s\" type=\"BSDF\"/>\n\
         <surface name=\"surf\" type=\"surfaceshader\"><input name=\"bsdf\" type=\"BSDF\" nodename=\"s\"/></surface>\n\
         <surfacematerial name=\"A\" type=\"material\"><input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"surf\"/></surfacematerial>\n\
         <surfacematerial name=\"B\" type=\"material\"><input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"surf\"/></surfacematerial>\n\
         </materialx>\n",
    )
    .unwrap();
    let o = rendergen(&["mtlx", "compile", s(&two), "--asm"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("several materials (`A`, `B`); choose one with --material"),
        "{}",
        stderr(&o)
    );
    let o = rendergen(&["mtlx", "compile", s(&two), "--asm", "--material", "B"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("; material `B`"));

    let bad = scratch("bad.mtlx");
    std::fs::write(
        &bad,
        "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n\
         <standard_surface name=\"ss\" type=\"surfaceshader\"/>\n\
         <surfacematerial name=\"M\" type=\"material\"><input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"ss\"/></surfacematerial>\n\
         </materialx>\n",
    )
    .unwrap();
    let o = rendergen(&["mtlx", "compile", s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("bad.mtlx: line 3: unsupported node `ss`: category `standard_surface` (type surfaceshader)"), "{e}");

    let o = rendergen(&["mtlx", "compile", s(&scratch("nothing.mtlx"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}
