//! What the pipelines compute for a core's request, as the interpreter sees it: ASTC_A through
//! the golden address model, ASTC_DP through the reference decoder with the ISA's Q16.16 texel
//! conversion, the shading pipelines through [`super::shading`] (those built so far), and the
//! test function that stands in for the others.

use super::memory::Memory;
use super::shading;
use crate::models::astc::{convert::fp16_to_f32, decode_texel, Footprint, Profile, TexelEncoding};
use crate::models::texture_address::{texture_address, AddressRequest, TextureDesc};
use rendergen_isa::{Class, Opcode, PipeKind};

/// The pipeline's answer to `op` (a pipeline opcode) with immediate `imm` and arguments `args`
/// (`args[0]` pushed first): the words to push (`[0]` first), or the reason it is undefined.
pub fn pipeline(op: Opcode, imm: u32, args: &[u32], mem: &Memory) -> Result<Vec<u32>, String> {
    pipeline_with(op, imm, args, mem, &PipeSetup::default())
}

/// How the modelled engine's pipes are set up: which kinds hold the test fixture, and the
/// table the SM wrote into the cel instances before the rays ran (the reset table unless a
/// material's set-up programmed another; every cel instance holds the same table).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PipeSetup {
    /// Pipe kinds whose instances hold the contract's test fixture ([`test_pipeline`],
    /// `rtl/pbru/ports.rs`) instead of their units.
    pub fixtures: Vec<PipeKind>,
    /// The cel table (`CEL` from cores reads it).
    pub cel: shading::CelTable,
}

impl PipeSetup {
    /// The real units, with the kinds in `fixtures` as test fixtures, and the reset cel table.
    pub fn with_fixtures(fixtures: &[PipeKind]) -> PipeSetup {
        PipeSetup {
            fixtures: fixtures.to_vec(),
            ..PipeSetup::default()
        }
    }
}

/// [`pipeline`] for an engine set up as `setup` says (test fixtures, cel table).
pub fn pipeline_with(
    op: Opcode,
    imm: u32,
    args: &[u32],
    mem: &Memory,
    setup: &PipeSetup,
) -> Result<Vec<u32>, String> {
    if let Class::Pipeline { kind, .. } = op.class() {
        if setup.fixtures.contains(&kind) {
            return Ok(test_pipeline(args, imm, op.pushes()));
        }
    }
    match op.class() {
        Class::Pipeline {
            kind: PipeKind::AstcA,
            ..
        } => Ok(tex_a(args).to_vec()),
        Class::Pipeline {
            kind: PipeKind::AstcDp,
            ..
        } => tex_dp(imm, args, mem).map(|t| t.to_vec()),
        Class::Pipeline { .. } => Ok(setup.shade(op, imm, args)),
        c => panic!("{op:?} is no pipeline opcode ({c:?})"),
    }
}

impl PipeSetup {
    /// The answer of a shading pipeline (not ASTC) to `op` with immediate `imm`: the test
    /// fixture where this engine has one, `CEL` with this engine's table, else [`shade`].
    pub fn shade(&self, op: Opcode, imm: u32, args: &[u32]) -> Vec<u32> {
        match op.class() {
            Class::Pipeline { kind, .. } if self.fixtures.contains(&kind) => {
                test_pipeline(args, imm, op.pushes())
            }
            _ if op == Opcode::Cel => vec![shading::cel(args, &self.cel)],
            _ => shade(op, args).unwrap_or_else(|| test_pipeline(args, imm, op.pushes())),
        }
    }
}

/// A shading opcode whose pipeline is built (issue 11 §2) through the bit-exact model
/// [`super::shading`]; `None` for one that is still a test pipeline (and for other opcodes).
pub fn shade(op: Opcode, args: &[u32]) -> Option<Vec<u32>> {
    match op {
        Opcode::Schlick => Some(shading::schlick(args).to_vec()),
        Opcode::OrenNayar => Some(vec![shading::oren_nayar(args)]),
        Opcode::Ggx => Some(vec![shading::ggx(args)]),
        Opcode::Sheen => Some(vec![shading::sheen(args)]),
        Opcode::Subsurface => Some(vec![shading::subsurface(args)]),
        // With the reset table; [`pipeline_with`] takes the table the SM programmed.
        Opcode::Cel => Some(vec![shading::cel(args, &shading::CelTable::default())]),
        Opcode::OrenNayarDir => Some(shading::oren_nayar_dir(args).to_vec()),
        Opcode::GgxDir => Some(shading::ggx_dir(args).to_vec()),
        _ => None,
    }
}

/// `TEX_A`: `u v sqrt_cov base dims format → block_addr tx ty` (`sim/models/texture_address.rs`).
pub fn tex_a(a: &[u32]) -> [u32; 3] {
    let (dims, format) = (a[4], a[5]);
    let req = AddressRequest {
        u: a[0] as i32,
        v: a[1] as i32,
        sqrt_coverage: a[2] as i32,
        tex: TextureDesc {
            base: a[3],
            width: (dims >> 16) & 0x7FFF,
            height: dims & 0x7FFF,
            bw: format & 15,
            bh: (format >> 4) & 15,
            mips: (format >> 8) & 15,
        },
    };
    let r = texture_address(&req);
    [r.block_address, r.texel_x, r.texel_y]
}

/// `TEX_DP p`: `block_addr tx ty format → R G B A` in Q16.16; `Err` where it is undefined (a
/// footprint that is not an ASTC 2D footprint, a texel outside it).
pub fn tex_dp(p: u32, a: &[u32], mem: &Memory) -> Result<[u32; 4], String> {
    tex_dp_block(p, &mem.block(a[0]), a[1], a[2], a[3])
}

/// ASTC_DP on a block given directly (as the scheduler or an SM sends it): texel (`tx`, `ty`)
/// of `block` with the footprint of `format`, profile `p & 3`, as Q16.16 R G B A.
pub fn tex_dp_block(
    p: u32,
    block: &[u8; 16],
    tx: u32,
    ty: u32,
    format: u32,
) -> Result<[u32; 4], String> {
    let (bw, bh) = (format & 15, (format >> 4) & 15);
    let fp = Footprint::new(bw as u8, bh as u8)
        .ok_or_else(|| format!("TEX_DP footprint {bw}x{bh} is not an ASTC 2D footprint"))?;
    let (x, y) = (tx & 15, ty & 15);
    if x >= bw || y >= bh {
        return Err(format!("TEX_DP texel ({x}, {y}) outside the {fp} block"));
    }
    let profile = match p & 3 {
        0 => Profile::LdrLinear,
        1 => Profile::LdrSrgb,
        _ => Profile::Hdr,
    };
    let t = decode_texel(block, fp, profile, x, y);
    Ok(t.rgba.map(|c| match t.encoding {
        TexelEncoding::Unorm16 => unorm16_to_q16(c),
        TexelEncoding::Fp16 => fp16_to_q16(c),
    }))
}

/// UNORM16 `c` as Q16.16: `c + (c >> 15)` (0xFFFF is exactly 1.0).
pub fn unorm16_to_q16(c: u16) -> u32 {
    c as u32 + (c as u32 >> 15)
}

/// FP16 bits as Q16.16: truncated toward zero, saturated to the i32 range; NaN is 0.
pub fn fp16_to_q16(h: u16) -> u32 {
    let f = fp16_to_f32(h) as f64;
    if f.is_nan() {
        return 0;
    }
    ((f * 65536.0)
        .trunc()
        .clamp(i32::MIN as f64, i32::MAX as f64) as i32) as u32
}

/// The contract's test pipeline (`rtl/pbru/ports.rs`): result word `i` of `pushes` is
/// `Σ_j (j + 1)·a[j] + (i + 1)·0x0001_0001 + imm`, wrapping.
pub fn test_pipeline(args: &[u32], imm: u32, pushes: u32) -> Vec<u32> {
    let sum = (args.iter().enumerate()).fold(0u32, |s, (j, a)| {
        s.wrapping_add((j as u32 + 1).wrapping_mul(*a))
    });
    (0..pushes)
        .map(|i| {
            sum.wrapping_add((i + 1).wrapping_mul(0x0001_0001))
                .wrapping_add(imm)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texel_conversions() {
        assert_eq!(unorm16_to_q16(0xFFFF), 0x1_0000);
        assert_eq!(unorm16_to_q16(0x8000), 0x8001);
        assert_eq!(unorm16_to_q16(0x7FFF), 0x7FFF);
        assert_eq!(fp16_to_q16(0x3C00), 0x1_0000); // 1.0
        assert_eq!(fp16_to_q16(0xBE00), (-0x1_8000i32) as u32); // -1.5
        assert_eq!(fp16_to_q16(0x0001), 0); // 2^-24 truncates to 0
        assert_eq!(fp16_to_q16(0x7BFF), i32::MAX as u32); // 65504 saturates
        assert_eq!(fp16_to_q16(0xFC00), i32::MIN as u32); // -inf
        assert_eq!(fp16_to_q16(0xFFFF), 0); // NaN
    }

    #[test]
    fn test_pipeline_by_hand() {
        // args 1, 2 → 1·1 + 2·2 = 5; words 5 + 0x10001, 5 + 0x20002, imm 3.
        assert_eq!(test_pipeline(&[1, 2], 3, 2), [0x1_0009, 0x2_000A]);
        assert_eq!(test_pipeline(&[u32::MAX], 0, 1), [0x1_0000]);
    }

    #[test]
    fn void_extent_block_decodes_to_its_colour() {
        // Void-extent LDR block: bits 8..0 = 0x1FC, extent bits all ones, RGBA UNORM16 at 64..127.
        let mut b = [0u8; 16];
        b[0] = 0xFC;
        b[1] = 0xFD;
        b[2..8].fill(0xFF);
        let rgba: [u16; 4] = [0xFFFF, 0x8000, 0x0000, 0x4000];
        for (i, c) in rgba.iter().enumerate() {
            b[8 + 2 * i..10 + 2 * i].copy_from_slice(&c.to_le_bytes());
        }
        let mut mem = Memory::new();
        mem.write_blocks(3, &[b]);
        let r = tex_dp(0, &[3, 1, 2, 0x44], &mem).unwrap();
        assert_eq!(r, [0x1_0000, 0x8001, 0, 0x4000]);
        assert!(tex_dp(0, &[3, 4, 0, 0x44], &mem).is_err());
        assert!(tex_dp(0, &[3, 0, 0, 0x33], &mem).is_err());
    }
}
