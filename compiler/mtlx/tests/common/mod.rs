//! Shared by the compiler's tests: compiling the examples, running programs on the PBRU
//! interpreter (`rendergen_sim::models::pbru`), random inputs, and an independent f64
//! evaluation of MaterialX's formulas (D4, written here from the formulas, not from the
//! compiler's tree).

#![allow(dead_code)]

use rendergen_isa::Reason;
use rendergen_mtlx_compiler::{compile_file, Compiled, Options};
use rendergen_sim::models::pbru::{run, Memory, Ray};
use std::f64::consts::PI;
use std::path::PathBuf;

/// Where programs go in the interpreter's memory.
pub const PROGRAM_AT: u32 = 0x0010_0000;
/// Block address of the first texture.
pub const TEXTURE_BLOCK: u32 = 0x200;

pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

pub fn compile_example(name: &str) -> Compiled {
    compile_file(&example(name), &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Memory holding `code` at [`PROGRAM_AT`] and the material's textures from [`TEXTURE_BLOCK`]
/// on (returns the texture bases, block units).
pub fn memory(c: &Compiled, code: &[u8]) -> (Memory, Vec<u32>) {
    let mut mem = Memory::new();
    mem.write(PROGRAM_AT, code);
    let mut bases = Vec::new();
    let mut next = TEXTURE_BLOCK;
    for t in &c.textures {
        mem.write_blocks(next, &t.blocks);
        bases.push(next);
        next += t.blocks.len() as u32;
    }
    (mem, bases)
}

/// Runs a program to RAYSTOP and returns the final stack.
pub fn run_to_stop(mem: &Memory, ray_id: u32, stack: Vec<u32>) -> Vec<u32> {
    let out = run(mem, &Ray::new(ray_id, PROGRAM_AT, stack), 32).expect("the model answers");
    assert_eq!(out.reason, Reason::Done, "the program ran to RAYSTOP");
    out.stack
}

pub fn q(x: f64) -> u32 {
    ((x * 65536.0).round() as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
}

pub fn f(w: u32) -> f64 {
    w as i32 as f64 / 65536.0
}

/// splitmix64: a small seeded generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniformly random unit vector.
    pub fn dir(&mut self) -> [f64; 3] {
        loop {
            let v = [
                2.0 * self.unit() - 1.0,
                2.0 * self.unit() - 1.0,
                2.0 * self.unit() - 1.0,
            ];
            let l = dot(v, v).sqrt();
            if l > 0.1 && l <= 1.0 {
                return [v[0] / l, v[1] / l, v[2] / l];
            }
        }
    }
}

pub type V3 = [f64; 3];

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn norm(a: V3) -> V3 {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// Q16.16 words of a vector, and the vector they hold.
pub fn quant(v: V3) -> ([u32; 3], V3) {
    let w = [q(v[0]), q(v[1]), q(v[2])];
    (w, [f(w[0]), f(w[1]), f(w[2])])
}

/// N, V, L with `N·L, N·V ≥ 0.01` (quantised to Q16.16).
pub fn geometry(rng: &mut Rng) -> (V3, V3, V3, Vec<u32>) {
    loop {
        let (n, v, l) = (rng.dir(), rng.dir(), rng.dir());
        let (nw, n) = quant(n);
        let (vw, v) = quant(v);
        let (lw, l) = quant(l);
        if dot(n, l) >= 0.01 && dot(n, v) >= 0.01 {
            let mut w = nw.to_vec();
            w.extend(vw);
            w.extend(lw);
            return (n, v, l, w);
        }
    }
}

fn half(v: V3, l: V3) -> V3 {
    norm([v[0] + l[0], v[1] + l[1], v[2] + l[2]])
}

/// MaterialX `mx_oren_nayar_diffuse` (D4): `(A + B·t)/π`.
pub fn oren_nayar(n: V3, v: V3, l: V3, sigma: f64) -> f64 {
    let (nl, nv) = (dot(n, l), dot(n, v));
    let s = dot(l, v) - nl * nv;
    let t = if s > 0.0 && nl.max(nv) > 0.0 {
        s / nl.max(nv)
    } else {
        0.0
    };
    let s2 = sigma * sigma;
    let a = 1.0 - 0.5 * s2 / (s2 + 0.33);
    let b = 0.45 * s2 / (s2 + 0.09);
    (a + b * t) / PI
}

/// GGX `D·G2/(4·NL·NV)` (MaterialX `mx_ggx_NDF`, `mx_ggx_smith_G2`).
pub fn ggx(n: V3, v: V3, l: V3, alpha: f64) -> f64 {
    let (nl, nv, nh) = (dot(n, l), dot(n, v), dot(n, half(v, l)));
    let a2 = alpha * alpha;
    let d = a2 / (PI * (nh * nh * (a2 - 1.0) + 1.0).powi(2));
    let g = 2.0 * nl * nv
        / (nv * (a2 + (1.0 - a2) * nl * nl).sqrt() + nl * (a2 + (1.0 - a2) * nv * nv).sqrt());
    d * g / (4.0 * nl * nv)
}

/// MaterialX `mx_fresnel_schlick`.
pub fn schlick(f0: f64, f90: f64, c: f64) -> f64 {
    let x = (1.0 - c).clamp(0.0, 1.0);
    f0 + (f90 - f0) * x.powi(5)
}

/// `V·H` of the half vector.
pub fn vh(v: V3, l: V3) -> f64 {
    dot(v, half(v, l))
}

/// MaterialX `mx_imageworks_sheen_brdf` (Conty-Kulla).
pub fn sheen(n: V3, v: V3, l: V3, rough: f64) -> f64 {
    let (nl, nv, nh) = (dot(n, l), dot(n, v), dot(n, half(v, l)));
    let r = rough.max(0.005);
    let d = (2.0 + 1.0 / r) * (1.0 - nh * nh).max(0.0).powf(1.0 / (2.0 * r)) / (2.0 * PI);
    d / (4.0 * (nl + nv - nl * nv))
}

/// Burley 2012 subsurface (D4).
pub fn subsurface(n: V3, v: V3, l: V3, rough: f64) -> f64 {
    let (nl, nv, lh) = (dot(n, l), dot(n, v), dot(l, half(v, l)));
    let f90 = lh * lh * rough;
    let fss = (1.0 + (f90 - 1.0) * (1.0 - nl).powi(5)) * (1.0 + (f90 - 1.0) * (1.0 - nv).powi(5));
    1.25 * (fss * (1.0 / (nl + nv) - 0.5) + 0.5) / PI
}

/// MaterialX `mx_burley_diffuse`: `F_D90 = 0.5 + 2·LH²·r`, Schlick at N·L and N·V, over π.
pub fn burley(n: V3, v: V3, l: V3, rough: f64) -> f64 {
    let lh = dot(l, half(v, l));
    let fd90 = 0.5 + 2.0 * lh * lh * rough;
    schlick(1.0, fd90, dot(n, l)) * schlick(1.0, fd90, dot(n, v)) / PI
}

/// The cel band value of the engine's reset table.
pub fn cel(nl: f64) -> f64 {
    let bands = [0.0, 0.3, 0.7].iter().filter(|&&t| t <= nl).count();
    [0.0, 0.3, 0.7, 1.0][bands]
}

/// A document: line 1 the XML declaration, line 2 `<materialx>`, `body` from line 3 on, then
/// a surface on BSDF node `bsdf` and material `M`.
pub fn doc(body: &str, bsdf: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<materialx version=\"1.39\">\n{body}\n\
         <surface name=\"surface\" type=\"surfaceshader\">\n\
         <input name=\"bsdf\" type=\"BSDF\" nodename=\"{bsdf}\"/>\n</surface>\n\
         <surfacematerial name=\"M\" type=\"material\">\n\
         <input name=\"surfaceshader\" type=\"surfaceshader\" nodename=\"surface\"/>\n\
         </surfacematerial>\n</materialx>\n"
    )
}
