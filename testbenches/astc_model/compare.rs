//! Texel-by-texel comparison of the model against astcenc's decoded image.

use super::astcenc::{self, Scratch};
use rendergen_sim::models::astc::{
    decode_block, decode_texel, AstcFile, Footprint, Profile, Texel,
};
use rendergen_sim::models::ktx::KtxImage;

/// Which texels also go through the single-texel path (`decode_texel`); all texels always go
/// through `decode_block`.
#[derive(Clone, Copy)]
pub enum SingleTexel {
    /// Every texel.
    All,
    /// Texels (x, y) with `(x + y + block) % n == 0`, plus the block's corner (w-1, h-1).
    Every(u32),
}

fn value(t: &Texel, profile: Profile) -> [u16; 4] {
    if profile.is_ldr() {
        t.to_rgba8().map(u16::from)
    } else {
        t.to_fp16()
    }
}

fn hex(v: [u16; 4], profile: Profile) -> String {
    let w = if profile.is_ldr() { 2 } else { 4 };
    let parts: Vec<String> = v.iter().map(|c| format!("{c:0w$X}")).collect();
    format!("({})", parts.join(","))
}

/// Compares the model with astcenc on every block of `file`. `label(i)` describes block `i`.
/// Panics with the first mismatches (footprint, profile, block, texel, both values).
pub fn check_file(
    file: &AstcFile,
    profile: Profile,
    reference: &KtxImage,
    single: SingleTexel,
    label: &dyn Fn(usize) -> String,
) {
    let fp: Footprint = file.footprint;
    assert_eq!(
        (reference.width, reference.height),
        (file.width, file.height),
        "astcenc output size"
    );
    assert_eq!(
        reference.half,
        !profile.is_ldr(),
        "astcenc output type (8-bit for LDR, FP16 for HDR)"
    );
    let mut failures = Vec::new();
    let mut count = 0usize;
    for by in 0..file.blocks_y() {
        for bx in 0..file.blocks_x() {
            let index = (bx + by * file.blocks_x()) as usize;
            let block = file.block(bx, by);
            let texels = decode_block(block, fp, profile);
            for ty in 0..fp.h() {
                for tx in 0..fp.w() {
                    let (x, y) = (bx * fp.w() + tx, by * fp.h() + ty);
                    if x >= file.width || y >= file.height {
                        continue;
                    }
                    let want = reference.texel(x, y);
                    let whole = value(&texels[(tx + ty * fp.w()) as usize], profile);
                    let mut got = vec![("decode_block", whole)];
                    let sample = match single {
                        SingleTexel::All => true,
                        SingleTexel::Every(n) => {
                            matches!((tx + ty + index as u32) % n, 0)
                                || (tx, ty) == (fp.w() - 1, fp.h() - 1)
                        }
                    };
                    if sample {
                        got.push((
                            "decode_texel",
                            value(&decode_texel(block, fp, profile, tx, ty), profile),
                        ));
                    }
                    for (path, v) in got {
                        if v != want {
                            count += 1;
                            if failures.len() < 8 {
                                failures.push(format!(
                                    "  {fp} {profile} block {index} ({}) texel ({tx},{ty}): {path} = {} astcenc = {} [block {:032X}]",
                                    label(index),
                                    hex(v, profile),
                                    hex(want, profile),
                                    u128::from_le_bytes(*block)
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{count} texel mismatches against astcenc ({fp}, {profile}); first ones:\n{}",
        failures.join("\n")
    );
}

/// Packs `blocks` into an image about square in blocks (padding with copies of the first
/// block), decodes it with astcenc under `profile` and checks every texel.
pub fn check_blocks(
    tag: &str,
    fp: Footprint,
    profile: Profile,
    blocks: &[[u8; 16]],
    single: SingleTexel,
    label: &dyn Fn(usize) -> String,
) {
    let scratch = Scratch::new(&format!("{tag}-{fp}-{profile}"));
    let file = pack(fp, blocks);
    let reference = astcenc::decompress(&scratch, tag, &file, profile);
    check_file(&file, profile, &reference, single, label);
}

/// Packs blocks into an `AstcFile` (row-major, about square).
pub fn pack(fp: Footprint, blocks: &[[u8; 16]]) -> AstcFile {
    let bx = ((blocks.len() as f64).sqrt().ceil() as u32).max(1);
    let by = (blocks.len() as u32).div_ceil(bx).max(1);
    let mut all = blocks.to_vec();
    all.resize((bx * by) as usize, blocks[0]);
    AstcFile::new(fp, bx * fp.w(), by * fp.h(), all)
}
