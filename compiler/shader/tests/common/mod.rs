//! Compile → interpreter helpers for the tests.
#![allow(dead_code)]

use rendergen_shader_compiler::{compile, launch, Compiled, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{run, Config, Env, Launch, MemoryEnv, SpecRequest, TexRequest};
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
    let mut env = UnormEnv(MemoryEnv {
        uniforms: launch::uniforms(&c.interface, &u).unwrap(),
        ..Default::default()
    });
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

/// [`MemoryEnv`] with a texture that answers like the texture unit, in 16-bit UNORM words:
/// per lane `(bits(s) >> 16, bits(t) >> 16, 0x1234, 0xFFFF)` (the program turns them into
/// `u2f(w) · f32(1/65535)`; see [`unorm_answer`]).
pub struct UnormEnv(pub MemoryEnv);

/// The binary32 values a program reads from [`UnormEnv`]'s texture at `(s, t)`.
pub fn unorm_answer(s: f32, t: f32) -> [f32; 4] {
    let k = rendergen_shader_compiler::abi::UNORM16_SCALE;
    [s.to_bits() >> 16, t.to_bits() >> 16, 0x1234, 0xFFFF].map(|w| w as f32 * k)
}

impl Env for UnormEnv {
    fn load(&mut self, lane: usize, addr: u32) -> u32 {
        self.0.load(lane, addr)
    }
    fn store(&mut self, lane: usize, addr: u32, value: u32) {
        self.0.store(lane, addr, value)
    }
    fn uniform(&mut self, index: u32) -> u32 {
        self.0.uniform(index)
    }
    fn texture(&mut self, req: &TexRequest) -> [[u32; 4]; 4] {
        self.0.tex_log.push(*req);
        req.coords.map(|[s, t]| [s >> 16, t >> 16, 0x1234, 0xFFFF])
    }
    fn special(&mut self, req: &SpecRequest) -> u32 {
        self.0.special(req)
    }
}
