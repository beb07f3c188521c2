//! Minimal KTX 1.0 reader/writer for uncompressed RGBA8 / RGBA16F images (astcenc's input and
//! decompressed output). astcenc drops channels it finds redundant when writing (L, LA, RGB);
//! the reader expands them back to RGBA.

const IDENT: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'1', b'1', 0xBB, b'\r', b'\n', 0x1A, b'\n',
];
const GL_UNSIGNED_BYTE: u32 = 0x1401;
const GL_HALF_FLOAT: u32 = 0x140B;
const GL_RED: u32 = 0x1903;
const GL_RG: u32 = 0x8227;
const GL_RGB: u32 = 0x1907;
const GL_RGBA: u32 = 0x1908;
const GL_LUMINANCE: u32 = 0x1909;
const GL_LUMINANCE_ALPHA: u32 = 0x190A;

/// A decoded KTX image: 4 channels per texel, each 8-bit or FP16 bits (stored as u16).
pub struct KtxImage {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// True for FP16 channels, false for 8-bit.
    pub half: bool,
    /// RGBA per texel, row-major.
    pub data: Vec<u16>,
}

impl KtxImage {
    /// RGBA of texel (x, y).
    pub fn texel(&self, x: u32, y: u32) -> [u16; 4] {
        let i = 4 * (x + y * self.width) as usize;
        [
            self.data[i],
            self.data[i + 1],
            self.data[i + 2],
            self.data[i + 3],
        ]
    }
}

fn header(gl_type: u32, type_size: u32, internal: u32, w: u32, h: u32, image_size: u32) -> Vec<u8> {
    let mut out = IDENT.to_vec();
    let fields = [
        0x0403_0201,
        gl_type,
        type_size,
        GL_RGBA,
        internal,
        GL_RGBA,
        w,
        h,
        0,
        0,
        1,
        1,
        0,
        image_size,
    ];
    for f in fields {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out
}

/// KTX bytes of an RGBA8 image.
///
/// # Panics
/// If the image exceeds KTX 1.0's 4 GiB ([`header_rgba8`] returns that as an error).
pub fn write_rgba8(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = header_rgba8(w, h).expect("image within KTX 1.0's 4 GiB");
    out.extend_from_slice(rgba);
    out
}

/// The header of a `w`×`h` RGBA8 KTX whose texel data follows row by row; an image over KTX
/// 1.0's 32-bit image size is refused with its size.
pub fn header_rgba8(w: u32, h: u32) -> Result<Vec<u8>, String> {
    Ok(header(
        GL_UNSIGNED_BYTE,
        1,
        0x8058,
        w,
        h,
        image_size(w, h, 4)?,
    ))
}

/// KTX 1.0's 32-bit image size of `w`×`h` texels of `bytes` each.
fn image_size(w: u32, h: u32, bytes: u64) -> Result<u32, String> {
    let n = bytes * w as u64 * h as u64;
    u32::try_from(n).map_err(|_| {
        format!(
            "a {w}x{h} image of {bytes}-byte texels is {n} bytes; KTX 1.0 stores the image \
             size in 32 bits (at most {} bytes)",
            u32::MAX
        )
    })
}

/// KTX bytes of an RGBA16F image (FP16 bit patterns).
///
/// # Panics
/// If the image exceeds KTX 1.0's 4 GiB ([`header_rgba16f`] returns that as an error).
pub fn write_rgba16f(w: u32, h: u32, rgba: &[u16]) -> Vec<u8> {
    let mut out = header_rgba16f(w, h).expect("image within KTX 1.0's 4 GiB");
    for v in rgba {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// The header (with the image-size word) of a `w`×`h` RGBA half-float KTX whose texel data
/// follows, row by row (for writing a large image without holding it); an image over the
/// 32-bit image size of KTX 1.0 (4 GiB) is refused with its size.
pub fn header_rgba16f(w: u32, h: u32) -> Result<Vec<u8>, String> {
    Ok(header(GL_HALF_FLOAT, 2, 0x881A, w, h, image_size(w, h, 8)?))
}

/// Parses an uncompressed 2D KTX 1.0 file.
pub fn read(bytes: &[u8]) -> Result<KtxImage, String> {
    if bytes.len() < 68 || bytes[..12] != IDENT {
        return Err("not a KTX 1.0 file".into());
    }
    let u = |i: usize| u32::from_le_bytes(bytes[12 + 4 * i..16 + 4 * i].try_into().unwrap());
    if u(0) != 0x0403_0201 {
        return Err("big-endian KTX not supported".into());
    }
    let (gl_type, gl_format, w, h, kv) = (u(1), u(3), u(6), u(7), u(12) as usize);
    let half = match gl_type {
        GL_UNSIGNED_BYTE => false,
        GL_HALF_FLOAT => true,
        t => return Err(format!("unsupported glType 0x{t:04X}")),
    };
    let channels = match gl_format {
        GL_RED | GL_LUMINANCE => 1,
        GL_RG | GL_LUMINANCE_ALPHA => 2,
        GL_RGB => 3,
        GL_RGBA => 4,
        f => return Err(format!("unsupported glFormat 0x{f:04X}")),
    };
    let start = 64 + kv;
    let size = u32::from_le_bytes(bytes[start..start + 4].try_into().unwrap()) as usize;
    let data = &bytes[start + 4..start + 4 + size];
    let elem = if half { 2 } else { 1 };
    let stride = size / h as usize;
    let one = if half { 0x3C00 } else { 0xFF };
    let mut out = Vec::with_capacity((4 * w * h) as usize);
    for y in 0..h as usize {
        for x in 0..w as usize {
            let at = |c: usize| {
                let i = y * stride + (x * channels + c) * elem;
                if half {
                    u16::from_le_bytes([data[i], data[i + 1]])
                } else {
                    data[i] as u16
                }
            };
            let px = match channels {
                1 => [at(0), at(0), at(0), one],
                2 => [at(0), at(0), at(0), at(1)],
                3 => [at(0), at(1), at(2), one],
                _ => [at(0), at(1), at(2), at(3)],
            };
            out.extend_from_slice(&px);
        }
    }
    Ok(KtxImage {
        width: w,
        height: h,
        half,
        data: out,
    })
}
