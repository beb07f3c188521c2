//! Milestone 3: the passes. Folding equals the golden FP model bit for bit; contraction
//! happens where allowed and gives the fused result; the optimiser shrinks the example
//! shaders; a table of figures (`cargo test -p rendergen-shader-compiler --test passes --
//! --nocapture figures`).

mod common;
use common::*;
use rendergen_shader_compiler::opt::eval::eval;
use rendergen_shader_compiler::{compile, Lang, Options, ShaderStage};
use rendergen_shader_isa::Opcode;
use rendergen_sim::models::fp32::basic::{self, Cmp};

/// Every operation the folder folds equals `rendergen_sim::models::fp32` (the hardware's
/// definition) on special and random operands, including subnormals and NaNs.
#[test]
fn folding_equals_the_golden_fp_model() {
    let special = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFFF_FFFF,
        0x3400_0000,
        0x0100_0000,
    ];
    let mut seed = 0x1234_5678_9ABC_DEF0u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u32
    };
    let mut ops: Vec<[u32; 3]> = Vec::new();
    for &a in &special {
        for &b in &special {
            ops.push([a, b, special[(a ^ b) as usize % special.len()]]);
        }
    }
    for _ in 0..200_000 {
        ops.push([rnd(), rnd(), rnd()]);
    }
    type Golden = fn(&[u32; 3]) -> u32;
    let golden: &[(Opcode, Golden)] = &[
        (Opcode::Fadd, |x| basic::add(x[0], x[1])),
        (Opcode::Fsub, |x| basic::sub(x[0], x[1])),
        (Opcode::Fmul, |x| basic::mul(x[0], x[1])),
        (Opcode::Ffma, |x| basic::fma(x[0], x[1], x[2])),
        (Opcode::Fmin, |x| basic::min(x[0], x[1])),
        (Opcode::Fmax, |x| basic::max(x[0], x[1])),
        (Opcode::Feq, |x| basic::cmp(Cmp::Eq, x[0], x[1])),
        (Opcode::Fne, |x| basic::cmp(Cmp::Ne, x[0], x[1])),
        (Opcode::Flt, |x| basic::cmp(Cmp::Lt, x[0], x[1])),
        (Opcode::Fle, |x| basic::cmp(Cmp::Le, x[0], x[1])),
        (Opcode::Fgt, |x| basic::cmp(Cmp::Gt, x[0], x[1])),
        (Opcode::Fge, |x| basic::cmp(Cmp::Ge, x[0], x[1])),
        (Opcode::I2f, |x| basic::i2f(x[0])),
        (Opcode::U2f, |x| basic::u2f(x[0])),
    ];
    for (op, g) in golden {
        for x in &ops {
            assert_eq!(eval(*op, x), Some(g(x)), "{op:?} {x:08x?}");
        }
    }
    // Not folded: the units' own approximations and roundings.
    for op in [
        Opcode::Rcp,
        Opcode::Sqrt,
        Opcode::Exp2,
        Opcode::Sin,
        Opcode::Floor,
        Opcode::F2i,
    ] {
        assert_eq!(eval(op, &[0x3F80_0000]), None);
    }
}

/// Constants fold through arithmetic, branches and loops: the program is one export of
/// constants.
#[test]
fn constant_program_folds_to_its_result() {
    let src = "#version 450
layout(location = 0) out vec4 o;
void main() {
    float a = 1.5;
    int n = 3;
    if (n > 2) { a = a * 4.0 + 0.25; } else { a = -1.0; }
    vec3 v = vec3(a, 2.0, 3.0) * 2.0;
    o = vec4(v, float(n << 2));
}";
    let c = build(src, frag(), true);
    let ops: Vec<&str> = c
        .asm
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(
        ops.iter().all(|o| ["movi", "export", "end"].contains(o)),
        "{}",
        c.asm
    );
    let out = exec(&c, &[vec![]], &[]);
    assert_eq!(
        out[0]["o"],
        f(&[(1.5f32 * 4.0 + 0.25) * 2.0, 4.0, 6.0, 12.0])
    );
}

/// GLSL contracts a·b + c into one fma (one rounding); WGSL by default does not.
#[test]
fn fma_contraction_where_the_source_allows_it() {
    let glsl = "#version 450
layout(location = 0) in vec3 v;
layout(location = 0) out float o;
void main() { o = v.x * v.y + v.z; }";
    let wgsl = "@fragment fn main(@location(0) v: vec3<f32>) -> @location(0) f32 { return v.x * v.y + v.z; }";
    // (1 + 2^-13)(1 − 2^-13) − 1 = −2^-26 exactly; rounded separately the product is 1.
    let (x, y, z) = (1.0 + 2f32.powi(-13), 1.0 - 2f32.powi(-13), -1.0f32);
    let inv = vec![vec![("v", f(&[x, y, z]))]];
    let g = build(glsl, frag(), true);
    assert!(g.asm.contains("ffma"), "{}", g.asm);
    assert_eq!(exec(&g, &inv, &[])[0]["o"], f(&[x.mul_add(y, z)]));
    assert_eq!(x.mul_add(y, z), -(2f32.powi(-26)));
    let w = build(wgsl, Lang::Wgsl, true);
    assert!(!w.asm.contains("ffma"), "{}", w.asm);
    assert_eq!(exec(&w, &inv, &[])[0]["out"], f(&[x * y + z]));
    assert_eq!(x * y + z, 0.0);
}

/// CSE merges repeated subexpressions; DCE drops unused ones; copies vanish.
#[test]
fn cse_dce_and_copy_propagation() {
    let src = "#version 450
layout(location = 0) in vec2 p;
layout(location = 0) out float o;
void main() {
    float unused = sin(p.x) * 3.0;
    float a = p.x * p.y + 1.0;
    float b = p.y * p.x + 1.0;
    float c = a;
    o = a + b + c;
}";
    let opt = build(src, frag(), true);
    let plain = build(src, frag(), false);
    let count = |s: &str, m: &str| s.lines().filter(|l| l.starts_with(m)).count();
    assert_eq!(count(&opt.asm, "sin"), 0, "{}", opt.asm);
    assert_eq!(count(&plain.asm, "sin"), 1);
    assert_eq!(
        count(&opt.asm, "fmul") + count(&opt.asm, "ffma"),
        1,
        "{}",
        opt.asm
    );
    let inv = vec![vec![("p", f(&[1.25, -3.0]))]];
    let a = 1.25f32.mul_add(-3.0, 1.0);
    assert_eq!(exec(&opt, &inv, &[])[0]["o"], f(&[a + a + a]));
}

fn examples() -> Vec<(String, String, Lang)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../gen/shader/examples");
    let mut v = Vec::new();
    for name in [
        "gradient.frag",
        "loops.frag",
        "transform.vert",
        "shade.wgsl",
        "blur.comp",
    ] {
        let src = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        let lang = match name.rsplit('.').next().unwrap() {
            "vert" => Lang::Glsl(ShaderStage::Vertex),
            "comp" => Lang::Glsl(ShaderStage::Compute),
            "wgsl" => Lang::Wgsl,
            _ => Lang::Glsl(ShaderStage::Fragment),
        };
        v.push((name.to_string(), src, lang));
    }
    v
}

/// The figures: IR statements and instructions before and after optimisation, registers,
/// estimated cycles before and after scheduling, compile time. Optimisation never makes a
/// program longer, and scheduling never makes the estimate worse.
#[test]
fn figures() {
    println!("| shader | IR before | IR after | instr. unopt | instr. opt | regs | cycles unsched | cycles sched | code bytes | compile ms |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (name, src, lang) in examples() {
        let mut o = Options::new(lang);
        o.optimise = false;
        let plain = compile(&src, &name, &o).unwrap();
        o.optimise = true;
        let t = std::time::Instant::now();
        let opt = compile(&src, &name, &o).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let s = &opt.stats;
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {ms:.2} |",
            s.ir_before,
            s.ir_after,
            plain.stats.instructions,
            s.instructions,
            s.registers,
            s.cycles_unscheduled,
            s.cycles_scheduled,
            8 * s.instructions
        );
        assert!(s.instructions <= plain.stats.instructions, "{name}");
        assert!(s.ir_after <= s.ir_before, "{name}");
        assert!(s.cycles_scheduled <= s.cycles_unscheduled, "{name}");
    }
}
