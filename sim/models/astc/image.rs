//! Whole-image decode of an [`AstcFile`].

use super::block::decode_block;
use super::file::AstcFile;
use super::texel::{Texel, TexelEncoding};
use super::Profile;

/// A decoded image (texels row-major, edge blocks cropped to the image size).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Encoding of every texel.
    pub encoding: TexelEncoding,
    /// `width * height` texels, row-major.
    pub texels: Vec<Texel>,
}

impl Image {
    /// Texel (`x`, `y`).
    pub fn texel(&self, x: u32, y: u32) -> Texel {
        self.texels[(x + y * self.width) as usize]
    }

    /// RGBA8 bytes as `astcenc -dl`/`-ds` writes them.
    pub fn to_rgba8(&self) -> Vec<u8> {
        self.texels.iter().flat_map(|t| t.to_rgba8()).collect()
    }

    /// RGBA FP16 bit patterns as `astcenc -dh` writes them.
    pub fn to_fp16(&self) -> Vec<u16> {
        self.texels.iter().flat_map(|t| t.to_fp16()).collect()
    }
}

/// Decodes every block of `file` under `profile`.
pub fn decode_image(file: &AstcFile, profile: Profile) -> Image {
    let fp = file.footprint;
    let encoding = if profile.is_ldr() {
        TexelEncoding::Unorm16
    } else {
        TexelEncoding::Fp16
    };
    let mut texels = vec![Texel::error(profile); (file.width * file.height) as usize];
    for by in 0..file.blocks_y() {
        for bx in 0..file.blocks_x() {
            let block = decode_block(file.block(bx, by), fp, profile);
            for ty in 0..fp.h() {
                for tx in 0..fp.w() {
                    let (x, y) = (bx * fp.w() + tx, by * fp.h() + ty);
                    if x < file.width && y < file.height {
                        texels[(x + y * file.width) as usize] = block[(tx + ty * fp.w()) as usize];
                    }
                }
            }
        }
    }
    Image {
        width: file.width,
        height: file.height,
        encoding,
        texels,
    }
}
