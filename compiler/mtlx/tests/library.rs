//! The shipped node definitions: they parse, names are unique, every definition the compiler
//! reads compiles in a material (no definition without an implementation), and the stdlib/
//! pbrlib names, types and defaults the examples rely on.

mod common;
use common::*;
use rendergen_mtlx_compiler::document::{Ty, Value};
use rendergen_mtlx_compiler::library::library;
use rendergen_mtlx_compiler::{compile, Options};

#[test]
fn definitions_are_unique_and_complete() {
    let defs = library();
    let mut names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "nodedef names are unique");
    for cat in [
        "surfacematerial",
        "surface",
        "oren_nayar_diffuse_bsdf",
        "burley_diffuse_bsdf",
        "dielectric_bsdf",
        "generalized_schlick_bsdf",
        "sheen_bsdf",
        "subsurface_bsdf",
        "cel_bsdf",
        "mix",
        "add",
        "multiply",
        "constant",
        "clamp",
        "image",
        "texcoord",
        "normal",
    ] {
        assert!(defs.iter().any(|d| d.node == cat), "{cat}");
    }
    let on = defs
        .iter()
        .find(|d| d.name == "ND_oren_nayar_diffuse_bsdf")
        .unwrap();
    let rough = on.input("roughness").unwrap();
    assert_eq!(
        (rough.ty, &rough.default),
        (Ty::Float, &Some(Value::Num(vec![0.0])))
    );
    assert_eq!(
        on.input("normal").unwrap().geomprop.as_deref(),
        Some("Nworld")
    );
    let d = defs
        .iter()
        .find(|d| d.name == "ND_dielectric_bsdf")
        .unwrap();
    assert_eq!(d.input("roughness").unwrap().ty, Ty::Vector2);
    assert_eq!(d.input("ior").unwrap().default, Some(Value::Num(vec![1.5])));
}

/// Each definition used as a node with default inputs, connected where its output type fits.
#[test]
fn every_definition_compiles() {
    let tex = example("checker.astc");
    for d in library() {
        let file = if d.node == "image" {
            format!(
                "<input name=\"file\" type=\"filename\" value=\"{}\"/>",
                tex.display()
            )
        } else {
            String::new()
        };
        let node = format!(
            "<{} name=\"n\" type=\"{}\">{file}</{}>",
            d.node, d.out, d.node
        );
        let text = match d.out {
            Ty::Bsdf => doc(&node, "n"),
            Ty::Float | Ty::Color3 => doc(
                &format!("{node}\n<sheen_bsdf name=\"s\" type=\"BSDF\"><input name=\"{}\" type=\"{}\" nodename=\"n\"/></sheen_bsdf>",
                    if d.out == Ty::Float { "weight" } else { "color" }, d.out),
                "s",
            ),
            Ty::Vector2 => doc(
                &format!("{node}\n<image name=\"i\" type=\"color3\"><input name=\"file\" type=\"filename\" value=\"{}\"/><input name=\"texcoord\" type=\"vector2\" nodename=\"n\"/></image>\n<sheen_bsdf name=\"s\" type=\"BSDF\"><input name=\"color\" type=\"color3\" nodename=\"i\"/></sheen_bsdf>", tex.display()),
                "s",
            ),
            Ty::Vector3 => doc(
                &format!("{node}\n<sheen_bsdf name=\"s\" type=\"BSDF\"><input name=\"normal\" type=\"vector3\" nodename=\"n\"/></sheen_bsdf>"),
                "s",
            ),
            // surface and surfacematerial: every example uses them.
            _ => continue,
        };
        if let Err(e) = compile(&text, &Options::default()) {
            panic!("{}: {e}\n{text}", d.name);
        }
    }
}
