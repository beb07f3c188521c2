//! Whole-image ASTC decoding for the command line and its tests: every texel through the
//! ASTC_DP RTL in the cycle simulator, or through the reference model; PNG/KTX output; a
//! histogram of block kinds.

mod rtl;

pub use rtl::{decode_rtl, decode_rtl_rows};

use rendergen_sim::models::astc::{decode_texel, AstcFile, BlockInfo, Profile, Texel};
use rendergen_sim::models::ktx;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The texels of a decoded image, row-major, and the cycles the RTL took (`None` for the model).
pub struct Decoded {
    /// One texel per pixel, row-major.
    pub texels: Vec<Texel>,
    /// Clock cycles simulated (RTL only).
    pub cycles: Option<u64>,
}

/// A consumer of decoded texel rows, top row first, one call per row of the image.
pub type RowSink<'a> = dyn FnMut(&[Texel]) -> Result<(), String> + 'a;

/// Decodes every texel with the reference model. `progress(done, total)` is called per texel.
pub fn decode_model(
    file: &AstcFile,
    profile: Profile,
    progress: &mut dyn FnMut(u64, u64),
) -> Decoded {
    let mut texels = Vec::with_capacity(file.width as usize * file.height as usize);
    let collect = &mut |row: &[Texel]| {
        texels.extend_from_slice(row);
        progress(texels.len() as u64, file.width as u64 * file.height as u64);
        Ok(())
    };
    decode_model_rows(file, profile, collect).expect("collecting cannot fail");
    Decoded {
        texels,
        cycles: None,
    }
}

/// [`decode_model`] handing each row to `row` as it is decoded (memory: one row).
pub fn decode_model_rows(
    file: &AstcFile,
    profile: Profile,
    row: &mut RowSink,
) -> Result<(), String> {
    let (bw, bh) = (file.footprint.w(), file.footprint.h());
    let mut line = Vec::with_capacity(file.width as usize);
    for y in 0..file.height {
        line.clear();
        for x in 0..file.width {
            let block = file.block(x / bw, y / bh);
            line.push(decode_texel(block, file.footprint, profile, x % bw, y % bh));
        }
        row(&line)?;
    }
    Ok(())
}

/// The file format of a decoded image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// 8-bit RGBA PNG (LDR profiles; what `astcenc -dl`/`-ds` writes to a `.png`).
    Png,
    /// 8-bit RGBA KTX 1.0 (LDR profiles; what `astcenc -dl`/`-ds` writes to a `.ktx`).
    Ktx8,
    /// Half-float RGBA KTX 1.0 (HDR; what `astcenc -dh` writes to a `.ktx`).
    Ktx16,
}

impl ImageFormat {
    /// The format an output file named `out` asks for (by its extension, `.png` or `.ktx`)
    /// when decoding with `profile`; an HDR decode to PNG or another extension is an error.
    pub fn for_path(out: &Path, profile: Profile) -> Result<ImageFormat, String> {
        let ext = out.extension().map(|e| e.to_string_lossy().to_lowercase());
        match (ext.as_deref(), profile == Profile::Hdr) {
            (Some("ktx"), true) => Ok(ImageFormat::Ktx16),
            (Some("ktx"), false) => Ok(ImageFormat::Ktx8),
            (Some("png"), false) => Ok(ImageFormat::Png),
            (Some("png"), true) => Err(format!(
                "{}: the HDR profile decodes to half-floats, which a PNG cannot hold; \
                 write a .ktx",
                out.display()
            )),
            _ => Err(format!(
                "{}: unknown image format; the output name must end in .png (LDR) or .ktx",
                out.display()
            )),
        }
    }
}

/// Where [`decode_into`] writes rows: a PNG's compressor, or straight into the file (KTX).
enum Rows<W: Write> {
    Png(png::Writer<W>),
    Raw(W),
}

/// A row destination borrowed from [`Rows`].
enum RowOut<'a, W: Write> {
    Png(Box<png::StreamWriter<'a, W>>),
    Raw(&'a mut W),
}

/// Writes the image `decode` produces row by row straight into `out` in `format`, so memory
/// stays one row however large the image; `out` appears only when the whole image was written
/// ([`crate::output::write_output`]). Returns what `decode` returns.
pub fn decode_into<T>(
    out: &Path,
    (width, height): (u32, u32),
    format: ImageFormat,
    decode: impl FnOnce(&mut RowSink) -> Result<T, String>,
) -> Result<T, String> {
    let header = match format {
        ImageFormat::Png => None,
        ImageFormat::Ktx8 => Some(ktx::header_rgba8(width, height)),
        ImageFormat::Ktx16 => Some(ktx::header_rgba16f(width, height)),
    };
    let header = (header.transpose()).map_err(|e| format!("{}: {e}", out.display()))?;
    let hdr = format == ImageFormat::Ktx16;
    let mut result = None;
    let mut failure = None;
    let written = crate::output::write_output(out, |w| {
        let mut rows = match &header {
            Some(h) => {
                w.write_all(h)?;
                Rows::Raw(w)
            }
            None => {
                let mut enc = png::Encoder::new(w, width, height);
                enc.set_color(png::ColorType::Rgba);
                enc.set_depth(png::BitDepth::Eight);
                Rows::Png(enc.write_header().map_err(std::io::Error::other)?)
            }
        };
        {
            let mut dest = match &mut rows {
                Rows::Png(p) => {
                    RowOut::Png(Box::new(p.stream_writer().map_err(std::io::Error::other)?))
                }
                Rows::Raw(w) => RowOut::Raw(w),
            };
            let mut bytes = Vec::with_capacity(8 * width as usize);
            let mut sink = |row: &[Texel]| {
                bytes.clear();
                for t in row {
                    match hdr {
                        true => (t.to_fp16().iter())
                            .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes())),
                        false => bytes.extend_from_slice(&t.to_rgba8()),
                    }
                }
                let done = match &mut dest {
                    RowOut::Png(p) => p.write_all(&bytes),
                    RowOut::Raw(w) => w.write_all(&bytes),
                };
                done.map_err(|e| format!("cannot write {}: {e}", out.display()))
            };
            match decode(&mut sink) {
                Ok(v) => result = Some(v),
                Err(e) => {
                    failure = Some(e.clone());
                    return Err(std::io::Error::other(e));
                }
            }
            if let RowOut::Png(p) = dest {
                p.finish().map_err(std::io::Error::other)?;
            }
        }
        match rows {
            Rows::Png(p) => p.finish().map_err(std::io::Error::other),
            Rows::Raw(_) => Ok(()),
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    written?;
    Ok(result.expect("set when the write succeeded"))
}

/// Writes an 8-bit RGBA PNG of LDR texels (exactly the bytes `astcenc -dl`/`-ds` writes); the
/// file appears only when every byte was written ([`crate::output::write_output`]).
pub fn write_png(out: &Path, width: u32, height: u32, texels: &[Texel]) -> Result<(), String> {
    decode_into(out, (width, height), ImageFormat::Png, |sink| {
        rows_of(texels, width, sink)
    })
}

/// Hands `texels` to `sink` in rows of `width`.
fn rows_of(texels: &[Texel], width: u32, sink: &mut RowSink) -> Result<(), String> {
    texels.chunks(width.max(1) as usize).try_for_each(sink)
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
    decode_into(out, (width, height), ImageFormat::Ktx16, |sink| {
        rows_of(texels, width, sink)
    })
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
