//! Compile → interpreter helpers for the tests.
#![allow(dead_code)]

use rendergen_shader_compiler::{compile, launch, Compiled, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{run, Config, Launch, MemoryEnv};
use std::collections::BTreeMap;

/// Compiles or panics with the message.
pub fn build(src: &str, lang: Lang, optimise: bool) -> Compiled {
    let mut o = Options::new(lang);
    o.optimise = optimise;
    compile(src, "test", &o).unwrap_or_else(|e| panic!("{e}"))
}

pub fn frag() -> Lang {
    Lang::Glsl(ShaderStage::Fragment)
}

/// f32 words.
pub fn f(xs: &[f32]) -> Vec<u32> {
    xs.iter().map(|x| x.to_bits()).collect()
}

/// Runs `c` on invocations (name → words), in warps of up to 16 quads; returns each
/// invocation's exports by output name, and the instructions executed.
pub fn exec(
    c: &Compiled,
    invs: &[Vec<(&str, Vec<u32>)>],
    uniforms: &[(&str, Vec<u32>)],
) -> Vec<BTreeMap<String, Vec<u32>>> {
    let invs: Vec<launch::Invocation> = invs
        .iter()
        .map(|i| i.iter().map(|(n, w)| (n.to_string(), w.clone())).collect())
        .collect();
    let regs = launch::registers(&c.interface, &invs).unwrap();
    let u: BTreeMap<String, Vec<u32>> = uniforms
        .iter()
        .map(|(n, w)| (n.to_string(), w.clone()))
        .collect();
    let mut env = MemoryEnv {
        uniforms: launch::uniforms(&c.interface, &u).unwrap(),
        ..Default::default()
    };
    let mut out = Vec::new();
    for chunk in regs.chunks(64) {
        let quads = chunk.len().div_ceil(4);
        let mut l = Launch::new(quads);
        l.regs = chunk.to_vec();
        l.helpers = (chunk.len()..quads * 4).fold(0, |m, i| m | 1 << i);
        let o = run(&c.words, &Config::default(), &l, &mut env);
        assert_eq!(o.error, None, "{}", c.asm);
        for lane in 0..chunk.len() {
            out.push(
                launch::outputs(&c.interface, &o.exports[lane])
                    .into_iter()
                    .map(|(n, w, _)| (n, w))
                    .collect(),
            );
        }
    }
    out
}

/// Runs both unoptimised and optimised builds and checks they agree; returns the result.
pub fn exec_both(
    src: &str,
    lang: Lang,
    invs: &[Vec<(&str, Vec<u32>)>],
    uniforms: &[(&str, Vec<u32>)],
) -> Vec<BTreeMap<String, Vec<u32>>> {
    let mut o = Options::new(lang);
    o.optimise = false;
    o.contract = false;
    let plain = compile(src, "test", &o).unwrap_or_else(|e| panic!("{e}"));
    o.optimise = true;
    let opt = compile(src, "test", &o).unwrap_or_else(|e| panic!("{e}"));
    let a = exec(&plain, invs, uniforms);
    let b = exec(&opt, invs, uniforms);
    assert_eq!(
        a, b,
        "optimised and unoptimised builds differ\n{}\n{}",
        plain.asm, opt.asm
    );
    a
}
