//! The demo's texture: a procedural RGBA image compressed to ASTC 8×8 by `astcenc` (installed by
//! `scripts/install-deps.sh`), or — when `astcenc` is not on the `PATH` — a mosaic of
//! void-extent blocks holding each block's mean colour (the encoding `gen/pbru`'s generated
//! texture uses). Also the 8-bit RGBA PNG writer the demo uses.

use super::io;
use crate::Failure;
use rendergen_sim::models::astc::{AstcFile, Footprint};
use std::path::Path;
use std::process::Command;

/// Image width in pixels (a multiple of the block width).
pub const WIDTH: u32 = 96;
/// Image height in pixels (a multiple of the block height).
pub const HEIGHT: u32 = 64;
/// Block footprint (width and height).
const BLOCK: u32 = 8;

/// The texture and how it was made.
pub struct Texture {
    /// The compressed image.
    pub file: AstcFile,
    /// `astcenc -cl … 8x8 -medium`, or the void-extent mosaic.
    pub how: &'static str,
}

/// The procedural image, RGBA8 row-major: a colour gradient, rings around the centre, a
/// checker in the lower right quadrant, and an alpha ramp in the top rows.
pub fn procedural() -> Vec<u8> {
    let mut px = Vec::with_capacity((WIDTH * HEIGHT * 4) as usize);
    let (cx, cy) = (WIDTH as f64 / 2.0, HEIGHT as f64 / 2.0);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (fx, fy) = (
                x as f64 / (WIDTH - 1) as f64,
                y as f64 / (HEIGHT - 1) as f64,
            );
            let d = ((x as f64 - cx).powi(2) + (y as f64 - cy).powi(2)).sqrt();
            let ring = 0.5 + 0.5 * (d / 3.0).cos();
            let mut rgb = [fx, fy * (0.4 + 0.6 * ring), 1.0 - 0.7 * fx * ring];
            if x >= WIDTH / 2 && y >= HEIGHT / 2 && ((x / 4) + (y / 4)) % 2 == 0 {
                rgb = [1.0 - rgb[0], 1.0 - rgb[1], 1.0 - rgb[2]];
            }
            let alpha = if y < 8 { 0.25 + 0.75 * fx } else { 1.0 };
            for c in rgb.iter().chain([alpha].iter()) {
                px.push((c.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
        }
    }
    px
}

/// Writes `rgba` (8-bit RGBA, row-major) as a PNG.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), Failure> {
    let f = std::fs::File::create(path).map_err(|e| io("create", path, e))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(f), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let fail = |e: png::EncodingError| Failure::check(format!("{}: {e}", path.display()));
    enc.write_header()
        .map_err(fail)?
        .write_image_data(rgba)
        .map_err(fail)
}

/// Builds the texture: writes the procedural image to `dir/texture-source.png` and compresses
/// it to `dir/texture.astc` (or builds the void-extent mosaic, also written there).
pub fn build(dir: &Path) -> Result<Texture, Failure> {
    let px = procedural();
    let src = dir.join("texture-source.png");
    write_png(&src, WIDTH, HEIGHT, &px)?;
    let astc = dir.join("texture.astc");
    let fp = format!("{BLOCK}x{BLOCK}");
    let ran = Command::new("astcenc")
        .args(["-cl".as_ref(), src.as_os_str(), astc.as_os_str()])
        .args([fp.as_str(), "-medium", "-silent"])
        .output();
    match ran {
        Ok(o) if o.status.success() => {
            let file = AstcFile::read(&astc)
                .map_err(|e| Failure::check(format!("{}: {e}", astc.display())))?;
            Ok(Texture {
                file,
                how: "astcenc -cl 8x8 -medium",
            })
        }
        Ok(o) => Err(Failure::check(format!(
            "astcenc failed on {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&o.stderr)
        ))),
        Err(_) => {
            let file = mosaic(&px);
            std::fs::write(&astc, file.to_bytes()).map_err(|e| io("write", &astc, e))?;
            Ok(Texture {
                file,
                how: "void-extent mosaic (astcenc not found)",
            })
        }
    }
}

/// One void-extent block per 8×8 block of `px`, holding the block's mean colour as UNORM16.
fn mosaic(px: &[u8]) -> AstcFile {
    let fp = Footprint::new(BLOCK as u8, BLOCK as u8).expect("8x8 is an ASTC footprint");
    let mut blocks = Vec::new();
    for by in 0..HEIGHT / BLOCK {
        for bx in 0..WIDTH / BLOCK {
            let mut sum = [0u32; 4];
            for y in by * BLOCK..(by + 1) * BLOCK {
                for x in bx * BLOCK..(bx + 1) * BLOCK {
                    for (c, s) in sum.iter_mut().enumerate() {
                        *s += px[((y * WIDTH + x) * 4) as usize + c] as u32;
                    }
                }
            }
            let mut b = [0u8; 16];
            b[0] = 0xFC;
            b[1] = 0xFD;
            b[2..8].fill(0xFF);
            for (k, s) in sum.iter().enumerate() {
                let c = (s / (BLOCK * BLOCK)) as u16 * 257;
                b[8 + 2 * k..10 + 2 * k].copy_from_slice(&c.to_le_bytes());
            }
            blocks.push(b);
        }
    }
    AstcFile::new(fp, WIDTH, HEIGHT, blocks)
}
