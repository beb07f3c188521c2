//! Workloads for `rendergen sim pbru`: the programs (`gen/pbru/programs/*.asm`), the memory
//! layout, the texture, and the rays with their variables.

use rendergen_isa::asm::assemble;
use rendergen_sim::agents::pbru::RayMode;
use rendergen_sim::kit::Rng;
use rendergen_sim::models::astc::{AstcFile, Footprint};
use rendergen_sim::models::pbru::{Memory, Ray};

/// A built-in program: name and source.
pub const PROGRAMS: [(&str, &str); 5] = [
    ("texture", include_str!("programs/texture.asm")),
    ("alu", include_str!("programs/alu.asm")),
    ("shade", include_str!("programs/shade.asm")),
    ("sample", include_str!("programs/sample.asm")),
    ("callout", include_str!("programs/callout.asm")),
];

/// Where program `i` is loaded (256 bytes apart, from 0x1000).
pub fn program_addr(i: usize) -> u32 {
    0x1000 + 0x100 * i as u32
}

/// Block address of the texture's first block (byte address 0x10000).
pub const TEXTURE_BASE: u32 = 0x1000;

/// Which programs the rays run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// One ray per pixel: TEX_A → TEX_READ → TEX_DP, scaled.
    Texture,
    /// Local arithmetic.
    Alu,
    /// The bare texture fetch: the ray carries the six TEX_A arguments an SM computes (u, v,
    /// sqrt_cov, base, dims, format) and [`lean_texture_program`] runs TEX_A, TEX_READ,
    /// PUSH format, TEX_DP, RAYSTOP (5 instructions, 12 bytes). Same texels as
    /// [`Workload::Texture`], unscaled.
    TextureLean,
    /// The bare shading evaluation: the ray carries `N V L σ` (ten Q16.16 words: unit vectors
    /// with `N·V, N·L ≥ 0.01`, roughness in [0.02, 1]) and [`SHADE_LEAN_PROGRAM`] runs
    /// OREN_NAYAR, RAYSTOP. Every ray makes one Oren-Nayar request, so that pipeline is the
    /// bottleneck. (Not GGX: its pipe's latency, 130 since GGX_DIR shares it, exceeds what 64
    /// ray slots can cover at one request per clock.)
    ShadeLean,
    /// Every built-in program (texture, alu, shading, importance sampling, call-outs).
    Mixed,
}

/// A ray to send: the ray, how it names its program, where it returns.
pub struct RaySpec {
    /// The ray.
    pub ray: Ray,
    /// Address or inline chunk.
    pub mode: RayMode,
    /// 0 SM, 1 TTU.
    pub ret_dst: u32,
}

/// The memory and rays of a run.
pub struct Setup {
    /// Programs and the texture.
    pub mem: Memory,
    /// Rays, in sending order.
    pub rays: Vec<RaySpec>,
    /// The texture used.
    pub texture: AstcFile,
}

/// A generated 48×24 texture of 6×6 blocks: void-extent blocks of a colour gradient, with
/// every fifth block random bytes (decoded, or the error colour, identically by the model).
pub fn generated_texture(rng: &mut Rng) -> AstcFile {
    let fp = Footprint::new(6, 6).expect("6x6");
    let blocks = (0..32u32)
        .map(|i| {
            if i % 5 == 4 {
                return std::array::from_fn(|_| rng.below(256) as u8);
            }
            let mut b = [0u8; 16];
            b[0] = 0xFC;
            b[1] = 0xFD;
            b[2..8].fill(0xFF);
            let rgba = [i * 2000, 0xFFFF - i * 1500, (i * 7919) & 0xFFFF, 0xFFFF];
            for (k, c) in rgba.iter().enumerate() {
                b[8 + 2 * k..10 + 2 * k].copy_from_slice(&(*c as u16).to_le_bytes());
            }
            b
        })
        .collect();
    AstcFile::new(fp, 48, 24, blocks)
}

/// Where the [`Workload::TextureLean`] program is loaded.
pub const LEAN_ADDR: u32 = 0x1000 + 0x100 * PROGRAMS.len() as u32;

/// The [`Workload::TextureLean`] program for texture `t`: the TEX_A arguments on the ray.
pub fn lean_texture_program(t: &AstcFile) -> String {
    let format = t.footprint.w() | t.footprint.h() << 4 | 1 << 8;
    format!("TEX_A\nTEX_READ\nPUSH {format:#x}\nTEX_DP 0\nRAYSTOP\n")
}

/// Where the [`Workload::ShadeLean`] program is loaded.
pub const SHADE_LEAN_ADDR: u32 = LEAN_ADDR + 0x100;

/// The [`Workload::ShadeLean`] program.
pub const SHADE_LEAN_PROGRAM: &str = "OREN_NAYAR\nRAYSTOP\n";

/// A random unit vector as Q16.16 words (normalised in f64, then rounded).
fn unit_q16(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v: [f64; 3] = std::array::from_fn(|_| rng.below(1 << 17) as f64 / 65536.0 - 1.0);
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if (0.1..=1.0).contains(&len) {
            return v.map(|c| c / len);
        }
    }
}

/// The [`Workload::ShadeLean`] variables: `N V L σ` with `N·V, N·L ≥ 0.01`.
fn shade_vars(rng: &mut Rng) -> Vec<u32> {
    let n = unit_q16(rng);
    let dot = |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut facing = || loop {
        let v = unit_q16(rng);
        if dot(&n, &v) >= 0.02 {
            return v;
        }
    };
    let (v, l) = (facing(), facing());
    let mut words: Vec<u32> = [n, v, l].iter().flatten().map(|c| q(*c)).collect();
    words.push(q(0.02 + 0.98 * rng.below(1 << 16) as f64 / 65536.0));
    words
}

/// Q16.16 of `x`.
fn q(x: f64) -> u32 {
    (x * 65536.0).round() as i32 as u32
}

/// A random Q16.16 in [−4, 4).
fn small(rng: &mut Rng) -> u32 {
    (rng.below(8 << 16) as i64 - (4 << 16)) as i32 as u32
}

/// The texture variables of ray `i`: u v sqrt_cov base dims format scale (pixel `i` wrapped).
fn texture_vars(t: &AstcFile, i: u32) -> Vec<u32> {
    let p = (u64::from(i) % (u64::from(t.width) * u64::from(t.height))) as u32;
    let (x, y) = (p % t.width, p / t.width);
    let u = q((x as f64 + 0.5) / t.width as f64);
    let v = q((y as f64 + 0.5) / t.height as f64);
    let dims = t.width << 16 | t.height;
    let format = t.footprint.w() | t.footprint.h() << 4 | 1 << 8;
    vec![u, v, 0, TEXTURE_BASE, dims, format, q(0.5)]
}

/// The variables program `name` expects for ray `i` (see each program's header).
fn vars(name: &str, t: &AstcFile, i: u32, rng: &mut Rng) -> Vec<u32> {
    match name {
        "texture" => texture_vars(t, i),
        "alu" => (0..4).map(|_| small(rng)).collect(),
        "callout" => (0..3).map(|_| small(rng)).collect(),
        _ => (0..10).map(|_| small(rng)).collect(),
    }
}

/// The largest texture side the ASTC_A unit addresses (its width and height ports are 15 bits;
/// its contract is 1..=16384).
pub const MAX_TEXTURE_SIDE: u32 = 16384;

/// Builds the memory (every built-in program, `custom` at 0x1800 if given, the texture) and
/// `count` rays. A texture side over [`MAX_TEXTURE_SIDE`] is an error naming the limit. A custom program's rays carry the texture variables, then three random words.
pub fn setup(
    workload: Workload,
    custom: Option<&str>,
    texture: Option<AstcFile>,
    count: u32,
    seed: u64,
) -> Result<Setup, String> {
    let mut rng = Rng::new(seed);
    let texture = texture.unwrap_or_else(|| generated_texture(&mut rng));
    if texture.width > MAX_TEXTURE_SIDE || texture.height > MAX_TEXTURE_SIDE {
        return Err(format!(
            "texture of {}x{} texels: the ASTC_A unit addresses at most {MAX_TEXTURE_SIDE} texels \
             per side (15-bit width and height ports); use a smaller texture or a mip level",
            texture.width, texture.height
        ));
    }
    let mut mem = Memory::new();
    for (i, (name, src)) in PROGRAMS.iter().enumerate() {
        let code = assemble(src).map_err(|e| format!("built-in program {name}: {e}"))?;
        mem.write(program_addr(i), &code);
    }
    let lean = assemble(&lean_texture_program(&texture)).map_err(|e| e.to_string())?;
    mem.write(LEAN_ADDR, &lean);
    let shade = assemble(SHADE_LEAN_PROGRAM).map_err(|e| e.to_string())?;
    mem.write(SHADE_LEAN_ADDR, &shade);
    if let Some(src) = custom {
        mem.write(0x1800, &assemble(src).map_err(|e| e.to_string())?);
    }
    mem.write_blocks(TEXTURE_BASE, &texture.blocks);
    let rays = (0..count)
        .map(|i| {
            let (addr, stack) = if custom.is_some() {
                let mut v = texture_vars(&texture, i);
                v.extend((0..3).map(|_| small(&mut rng)));
                (0x1800, v)
            } else if workload == Workload::TextureLean {
                (LEAN_ADDR, texture_vars(&texture, i)[..6].to_vec())
            } else if workload == Workload::ShadeLean {
                (SHADE_LEAN_ADDR, shade_vars(&mut rng))
            } else {
                let p = match workload {
                    Workload::Texture | Workload::TextureLean | Workload::ShadeLean => 0,
                    Workload::Alu => 1,
                    Workload::Mixed => rng.below(PROGRAMS.len() as u64) as usize,
                };
                (program_addr(p), vars(PROGRAMS[p].0, &texture, i, &mut rng))
            };
            let mixed = workload == Workload::Mixed;
            RaySpec {
                ray: Ray::new(i, addr, stack),
                mode: if rng.chance(0.5) {
                    RayMode::Inline
                } else {
                    RayMode::Address
                },
                ret_dst: (mixed && rng.chance(0.25)) as u32,
            }
        })
        .collect();
    Ok(Setup { mem, rays, texture })
}

#[cfg(test)]
mod tests {
    /// Issue 15: a 65536-wide texture panicked (remainder by zero after width × height wrapped
    /// u32), and a side ≥ 32768 silently wrapped the 15-bit dims ports.
    #[test]
    fn textures_wider_than_the_hardware_addresses_are_refused() {
        use rendergen_sim::models::astc::{AstcFile, Footprint};
        let fp = Footprint::parse("12x12").unwrap();
        for (w, h) in [(65536, 12), (12, 32768), (16385, 16)] {
            let blocks = ((w as usize).div_ceil(12)) * ((h as usize).div_ceil(12));
            let t = AstcFile::new(fp, w, h, vec![[0u8; 16]; blocks]);
            let err = match super::setup(super::Workload::Texture, None, Some(t), 4, 1) {
                Err(e) => e,
                Ok(_) => panic!("{w}x{h} accepted"),
            };
            assert!(
                err.contains("16384") && err.contains(&format!("{w}x{h}")),
                "{err}"
            );
        }
    }

    use super::*;
    use rendergen_isa::Reason;
    use rendergen_sim::models::pbru::golden;

    /// Every built-in program finishes (Done, no fault) in the interpreter for its rays.
    #[test]
    fn built_in_programs_finish_in_the_interpreter() {
        let s = setup(Workload::Mixed, None, None, 200, 3).unwrap();
        let mut seen = [0; PROGRAMS.len()];
        for r in &s.rays {
            let (out, calls) = golden(&s.mem, &r.ray, 32).unwrap();
            assert_eq!(out.reason, Reason::Done, "{:?}", r.ray);
            let p = ((r.ray.inst_addr - 0x1000) / 0x100) as usize;
            seen[p] += 1;
            let want_calls = if PROGRAMS[p].0 == "callout" { 2 } else { 0 };
            assert_eq!(calls, want_calls);
            let words = match PROGRAMS[p].0 {
                "texture" => 4,
                "alu" => 4,
                "shade" => 14,
                "sample" => 14,
                _ => 4,
            };
            assert_eq!(out.stack.len(), words, "{}", PROGRAMS[p].0);
        }
        assert!(seen.iter().all(|n| *n > 10), "{seen:?}");
    }

    #[test]
    fn texture_rays_fetch_their_pixel() {
        let s = setup(Workload::Texture, None, None, 48 * 24, 3).unwrap();
        let t = &s.texture;
        for r in s.rays.iter().step_by(37) {
            let (out, _) = golden(&s.mem, &r.ray, 32).unwrap();
            let (x, y) = (r.ray.ray_id % t.width, r.ray.ray_id / t.width);
            let texel = rendergen_sim::models::astc::decode_texel(
                t.block(x / 6, y / 6),
                t.footprint,
                rendergen_sim::models::astc::Profile::LdrLinear,
                x % 6,
                y % 6,
            );
            let want: Vec<u32> = (texel.rgba.iter())
                .map(|c| {
                    let v = *c as u32 + (*c as u32 >> 15);
                    ((v as i64 * 0x8000 + 0x8000) >> 16) as u32
                })
                .collect();
            assert_eq!(out.stack, want, "pixel ({x}, {y})");
        }
    }
}
