//! Textures of `image` nodes: `.astc` files read as they are, `.png` files compressed to ASTC
//! 4x4 by `astcenc` first (`astcenc -cl IN.png OUT.astc 4x4 -medium`).

use std::fmt;
use std::path::{Path, PathBuf};

/// The `.astc` magic number (little-endian at offset 0).
pub const ASTC_MAGIC: u32 = 0x5CA1_AB13;

/// The 14 two-dimensional ASTC footprints.
pub const FOOTPRINTS: [(u8, u8); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

/// An ASTC texture (one mip level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    /// The file named in the document (resolved against the document's folder).
    pub path: PathBuf,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Footprint width.
    pub bw: u8,
    /// Footprint height.
    pub bh: u8,
    /// Blocks, row-major.
    pub blocks: Vec<[u8; 16]>,
}

/// Why a texture could not be read.
#[derive(Debug)]
pub struct TextureError(String);

impl fmt::Display for TextureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Texture {
    /// `dims` word of TEX_A: `width << 16 | height`.
    pub fn dims(&self) -> u32 {
        self.width << 16 | self.height
    }

    /// `format` word of TEX_A/TEX_DP: `bw | bh << 4 | mips << 8` (one mip).
    pub fn format(&self) -> u32 {
        u32::from(self.bw) | u32::from(self.bh) << 4 | 1 << 8
    }

    /// Reads `path`: an `.astc` file, or a `.png` compressed with astcenc.
    pub fn load(path: &Path) -> Result<Texture, TextureError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let bytes = match ext.to_ascii_lowercase().as_str() {
            "astc" => std::fs::read(path)
                .map_err(|e| TextureError(format!("cannot read {}: {e}", path.display())))?,
            "png" => compress_png(path)?,
            _ => {
                return Err(TextureError(format!(
                    "{}: only .astc and .png images are supported",
                    path.display()
                )))
            }
        };
        let mut t =
            Texture::parse(&bytes).map_err(|e| TextureError(format!("{}: {e}", path.display())))?;
        t.path = path.to_path_buf();
        Ok(t)
    }

    /// Parses the bytes of an `.astc` file (2D footprints, depth 1).
    pub fn parse(b: &[u8]) -> Result<Texture, String> {
        if b.len() < 16 {
            return Err("not an .astc file (shorter than its header)".into());
        }
        let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if magic != ASTC_MAGIC {
            return Err(format!("not an .astc file (magic {magic:#010x})"));
        }
        let (bw, bh, bd) = (b[4], b[5], b[6]);
        let dim = |i: usize| u32::from(b[i]) | u32::from(b[i + 1]) << 8 | u32::from(b[i + 2]) << 16;
        let (width, height, depth) = (dim(7), dim(10), dim(13));
        if bd != 1 || !FOOTPRINTS.contains(&(bw, bh)) {
            return Err(format!(
                "footprint {bw}x{bh}x{bd} is not a 2D ASTC footprint"
            ));
        }
        if width == 0 || height == 0 || depth != 1 || width > 16384 || height > 16384 {
            return Err(format!(
                "size {width}x{height}x{depth}: the engine takes 2D textures of 1..=16384 texels a side"
            ));
        }
        let n = (width.div_ceil(u32::from(bw)) * height.div_ceil(u32::from(bh))) as usize;
        let body = &b[16..];
        if body.len() < 16 * n {
            return Err(format!(
                "truncated: {n} blocks need {} bytes, the file has {}",
                16 * n,
                body.len()
            ));
        }
        let blocks = body[..16 * n]
            .chunks_exact(16)
            .map(|c| c.try_into().expect("16 bytes"))
            .collect();
        Ok(Texture {
            path: PathBuf::new(),
            width,
            height,
            bw,
            bh,
            blocks,
        })
    }
}

fn compress_png(path: &Path) -> Result<Vec<u8>, TextureError> {
    if !path.exists() {
        return Err(TextureError(format!(
            "cannot read {}: no such file",
            path.display()
        )));
    }
    let out = std::env::temp_dir().join(format!(
        "rendergen-mtlx-{}-{}.astc",
        std::process::id(),
        path.file_stem().and_then(|s| s.to_str()).unwrap_or("image")
    ));
    let run = std::process::Command::new("astcenc")
        .arg("-cl")
        .arg(path)
        .arg(&out)
        .args(["4x4", "-medium"])
        .output()
        .map_err(|e| TextureError(format!("cannot run astcenc for {}: {e}", path.display())))?;
    if !run.status.success() {
        return Err(TextureError(format!(
            "astcenc failed on {}: {}",
            path.display(),
            String::from_utf8_lossy(&run.stderr).trim()
        )));
    }
    let bytes =
        std::fs::read(&out).map_err(|e| TextureError(format!("cannot read astcenc's output: {e}")));
    let _ = std::fs::remove_file(&out);
    bytes
}
