//! Whole-image ASTC decoding for the command line and its tests: every texel through the
//! ASTC_DP RTL in the cycle simulator, or through the reference model; PNG/KTX output; a
//! histogram of block kinds.

mod rtl;

pub use rtl::decode_rtl;

use rendergen_sim::models::astc::{decode_texel, AstcFile, BlockInfo, Profile, Texel};
use rendergen_sim::models::ktx;
use std::collections::BTreeMap;
use std::path::Path;

/// The texels of a decoded image, row-major, and the cycles the RTL took (`None` for the model).
pub struct Decoded {
    /// One texel per pixel, row-major.
    pub texels: Vec<Texel>,
    /// Clock cycles simulated (RTL only).
    pub cycles: Option<u64>,
}

/// Decodes every texel with the reference model. `progress(done, total)` is called per texel.
pub fn decode_model(
    file: &AstcFile,
    profile: Profile,
    progress: &mut dyn FnMut(u64, u64),
) -> Decoded {
    let (w, h) = (file.width, file.height);
    let (bw, bh) = (file.footprint.w(), file.footprint.h());
    let total = w as u64 * h as u64;
    let mut texels = Vec::with_capacity(total as usize);
    for y in 0..h {
        for x in 0..w {
            let block = file.block(x / bw, y / bh);
            texels.push(decode_texel(block, file.footprint, profile, x % bw, y % bh));
            progress(texels.len() as u64, total);
        }
    }
    Decoded {
        texels,
        cycles: None,
    }
}

/// Writes an 8-bit RGBA PNG of LDR texels (exactly the bytes `astcenc -dl`/`-ds` writes); the
/// file appears only when every byte was written ([`crate::output::write_output`]).
pub fn write_png(out: &Path, width: u32, height: u32, texels: &[Texel]) -> Result<(), String> {
    let bytes: Vec<u8> = texels.iter().flat_map(|t| t.to_rgba8()).collect();
    crate::output::write_output(out, |w| {
        let mut enc = png::Encoder::new(w, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(&bytes)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })
}

/// Reads an 8-bit PNG as RGBA bytes (grey, grey+alpha and RGB are expanded).
pub fn read_png(path: &Path) -> Result<(u32, u32, Vec<u8>), String> {
    let f =
        std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(f));
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec
        .read_info()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if info.bit_depth != png::BitDepth::Eight {
        return Err(format!(
            "{}: {:?} bits per channel, expected 8",
            path.display(),
            info.bit_depth
        ));
    }
    let px = (info.width * info.height) as usize;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf[..px * 4].to_vec(),
        png::ColorType::Rgb => buf[..px * 3]
            .chunks(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf[..px * 2]
            .chunks(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        png::ColorType::Grayscale => buf[..px].iter().flat_map(|g| [*g, *g, *g, 255]).collect(),
        other => {
            return Err(format!(
                "{}: unsupported PNG colour type {other:?}",
                path.display()
            ))
        }
    };
    Ok((info.width, info.height, rgba))
}

/// Writes a KTX 1.0 file of FP16 RGBA texels (what `astcenc -dh` writes for a `.ktx` output).
pub fn write_ktx(out: &Path, width: u32, height: u32, texels: &[Texel]) -> Result<(), String> {
    let halfs: Vec<u16> = texels.iter().flat_map(|t| t.to_fp16()).collect();
    let bytes = ktx::write_rgba16f(width, height, &halfs);
    crate::output::write_output(out, |w| w.write_all(&bytes))
}

/// Counts of block kinds: kind, partition count, dual plane, each endpoint mode, weight range.
pub fn block_histogram(file: &AstcFile) -> BTreeMap<String, u64> {
    let mut kinds = BTreeMap::new();
    for block in &file.blocks {
        let bits = rendergen_sim::models::astc::block_bits(block);
        for label in histogram_labels(&BlockInfo::parse(bits, file.footprint)) {
            *kinds.entry(label).or_default() += 1;
        }
    }
    kinds
}

fn histogram_labels(kind: &BlockInfo) -> Vec<String> {
    match kind {
        BlockInfo::VoidExtent { hdr, .. } => {
            vec![format!("void-extent {}", if *hdr { "hdr" } else { "ldr" })]
        }
        BlockInfo::Illegal(reason) => vec![format!("illegal: {reason}")],
        BlockInfo::Normal(l) => {
            let mut v = vec![
                format!("partitions {}", l.partitions),
                format!(
                    "dual-plane {}",
                    if l.mode.dual_plane { "yes" } else { "no" }
                ),
                format!("weight range 0..{}", l.mode.weight_quant.levels() - 1),
            ];
            let mut cems: Vec<u8> = l.cems[..l.partitions as usize].to_vec();
            cems.sort_unstable();
            cems.dedup();
            v.extend(cems.iter().map(|c| format!("endpoint mode {c:>2}")));
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 15: `astc decode … -o /dev/full` printed "wrote /dev/full" and exited 0.
    #[test]
    fn writing_to_a_full_device_fails() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let texels = vec![Texel::error(Profile::LdrLinear); 64 * 64];
        let png = write_png(full, 64, 64, &texels).unwrap_err();
        let ktx = write_ktx(full, 64, 64, &texels).unwrap_err();
        assert!(
            png.contains("/dev/full") && ktx.contains("/dev/full"),
            "{png} / {ktx}"
        );
    }
}
