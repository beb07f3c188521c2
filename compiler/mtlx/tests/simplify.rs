//! The simplifications (`pbru.md` §6.5, 1604) shown: instruction counts with and without them,
//! Oren-Nayar at roughness 0 as the constant 1/π (bit-exact with the pipeline's answer),
//! identities, constant folding, unused nodes and zero-weight lobes dropped.

mod common;
use common::*;
use rendergen_mtlx_compiler::{compile, compile_file, Compiled, Options};

fn unsimplified() -> Options {
    Options {
        simplify: false,
        stack_words: 64,
        ..Options::default()
    }
}

fn compile_doc(text: &str) -> Compiled {
    compile(text, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs both versions' shading programs on the same inputs: returns (simplified, raw) outputs.
fn shade_both(on: &Compiled, off: &Compiled, points: usize) -> Vec<(Vec<u32>, Vec<u32>)> {
    let (m_on, _) = memory(on, &on.shading.code);
    let (m_off, _) = memory(off, &off.shading.code);
    let mut rng = Rng(21);
    (0..points)
        .map(|i| {
            let (_, _, _, mut stack) = geometry(&mut rng);
            stack.extend([0, 0, 0]);
            (
                run_to_stop(&m_on, i as u32, stack.clone()),
                run_to_stop(&m_off, i as u32, stack),
            )
        })
        .collect()
}

#[test]
fn instruction_counts_before_and_after() {
    println!("example: shading before → after, sampling before → after (instructions)");
    for name in [
        "rough_diffuse.mtlx",
        "glossy.mtlx",
        "sheen_cloth.mtlx",
        "subsurface.mtlx",
        "cel.mtlx",
        "textured.mtlx",
        "nodegraph.mtlx",
        "mix_add.mtlx",
    ] {
        let on = compile_example(name);
        let off = compile_file(&example(name), &unsimplified()).unwrap();
        println!(
            "{name}: shading {} → {}, sampling {} → {}, lobes {} → {}",
            off.shading.instructions,
            on.shading.instructions,
            off.sampling.instructions,
            on.sampling.instructions,
            off.lobes.len(),
            on.lobes.len()
        );
        assert!(
            on.shading.instructions <= off.shading.instructions,
            "{name}"
        );
        assert!(
            on.sampling.instructions <= off.sampling.instructions,
            "{name}"
        );
    }
    // Where there is something to simplify, it is.
    for (name, saved) in [
        ("nodegraph.mtlx", 20),
        ("mix_add.mtlx", 40),
        ("glossy.mtlx", 20),
    ] {
        let on = compile_example(name);
        let off = compile_file(&example(name), &unsimplified()).unwrap();
        assert!(
            on.shading.instructions + saved <= off.shading.instructions,
            "{name}: {} vs {}",
            on.shading.instructions,
            off.shading.instructions
        );
    }
}

#[test]
fn oren_nayar_at_roughness_zero_is_the_constant_one_over_pi() {
    let text = doc(
        r#"<oren_nayar_diffuse_bsdf name="d" type="BSDF">
<input name="color" type="color3" value="0.5, 0.25, 1.0"/>
<input name="roughness" type="float" value="0.0"/>
</oren_nayar_diffuse_bsdf>"#,
        "d",
    );
    let on = compile_doc(&text);
    let off = compile(&text, &unsimplified()).unwrap();
    assert!(off.shading.asm.contains("OREN_NAYAR "));
    assert!(!on.shading.asm.contains("OREN_NAYAR"), "{}", on.shading.asm);
    assert!(
        on.shading.asm.contains("PUSH 20861"),
        "1/π as Q16.16 (0x517D)"
    );
    println!(
        "σ = 0: shading {} → {} instructions",
        off.shading.instructions, on.shading.instructions
    );
    // The pipeline answers exactly 1/π at roughness 0, so both programs agree bit for bit.
    for (a, b) in shade_both(&on, &off, 300) {
        assert_eq!(a, b);
    }
}

#[test]
fn identities_leave_the_plain_expression() {
    let lobe = |colour: &str| {
        format!(
            r#"<constant name="one" type="float"><input name="value" type="float" value="1.0"/></constant>
<constant name="zero" type="color3"><input name="value" type="color3" value="0, 0, 0"/></constant>
<image name="tex" type="color3"><input name="file" type="filename" value="{dir}/checker.astc"/></image>
<multiply name="times_one" type="color3"><input name="in1" type="color3" nodename="tex"/><input name="in2" type="float" nodename="one"/></multiply>
<add name="plus_zero" type="color3"><input name="in1" type="color3" nodename="times_one"/><input name="in2" type="color3" nodename="zero"/></add>
<divide name="over_one" type="color3"><input name="in1" type="color3" nodename="plus_zero"/><input name="in2" type="float" value="1.0"/></divide>
<subtract name="minus_zero" type="color3"><input name="in1" type="color3" nodename="over_one"/><input name="in2" type="float" value="0.0"/></subtract>
<sheen_bsdf name="d" type="BSDF"><input name="color" type="color3" nodename="{colour}"/></sheen_bsdf>"#,
            dir = example("").display()
        )
    };
    let plain = compile_doc(&doc(&lobe("tex"), "d"));
    let full = compile_doc(&doc(&lobe("minus_zero"), "d"));
    assert_eq!(full.shading.code, plain.shading.code);
    assert_eq!(full.sampling.code, plain.sampling.code);
    let off = compile(&doc(&lobe("minus_zero"), "d"), &unsimplified()).unwrap();
    println!(
        "x·1 + 0 / 1 − 0: shading {} → {} instructions",
        off.shading.instructions, full.shading.instructions
    );
    assert!(off.shading.instructions > full.shading.instructions);
}

#[test]
fn products_with_zero_drop_the_lobe_and_constants_fold() {
    let body = r#"<constant name="five" type="float"><input name="value" type="float" value="5"/></constant>
<multiply name="sixty" type="float"><input name="in1" type="float" nodename="five"/><input name="in2" type="float" value="12"/></multiply>
<divide name="w" type="float"><input name="in1" type="float" nodename="sixty"/><input name="in2" type="float" value="120"/></divide>
<divide name="nothing" type="float"><input name="in1" type="float" value="0"/><input name="in2" type="float" nodename="w"/></divide>
<oren_nayar_diffuse_bsdf name="a" type="BSDF"><input name="weight" type="float" nodename="w"/><input name="roughness" type="float" value="0.5"/></oren_nayar_diffuse_bsdf>
<sheen_bsdf name="b" type="BSDF"><input name="weight" type="float" nodename="nothing"/></sheen_bsdf>
<multiply name="c" type="BSDF"><input name="in1" type="BSDF" nodename="b"/><input name="in2" type="float" value="0.0"/></multiply>
<add name="sum" type="BSDF"><input name="in1" type="BSDF" nodename="a"/><input name="in2" type="BSDF" nodename="c"/></add>
<standard_surface name="never_used" type="surfaceshader"/>"#;
    let on = compile_doc(&doc(body, "sum"));
    // 5·12/120 = 0.5 folds; the sheen lobe (weight 0/x, times 0) is dropped; the unused
    // (and unsupported) standard_surface never enters the tree.
    assert_eq!(on.lobes, ["oren_nayar"]);
    assert!(
        !on.tree.contains("Mul") && !on.tree.contains("Div"),
        "{}",
        on.tree
    );
    // The weight 0.5 times the default colour 0.18: 0.09 per channel.
    assert!(on.shading.asm.contains("PUSH 5898"), "{}", on.shading.asm);
    let off = compile(&doc(body, "sum"), &unsimplified()).unwrap();
    assert_eq!(off.lobes, ["oren_nayar", "sheen"]);
    println!(
        "folding and zero lobes: shading {} → {}, sampling {} → {} instructions",
        off.shading.instructions,
        on.shading.instructions,
        off.sampling.instructions,
        on.sampling.instructions
    );
    // Same value either way (the dropped lobe contributed 0).
    for (a, b) in shade_both(&on, &off, 200) {
        let n = a.len();
        for ch in 1..=3 {
            assert!((f(a[n - ch]) - f(b[b.len() - ch])).abs() <= 1.0 / 8192.0);
        }
    }
}
