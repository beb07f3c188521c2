//! The `.astc` container: a 16-byte header followed by 16-byte blocks in row-major order.
//!
//! Header: magic 0x5CA1AB13 (little-endian), block dimensions x, y, z (one byte each), image
//! dimensions x, y, z (24-bit little-endian each). Only 2D footprints (z = 1) of depth-1 images
//! are supported.

use super::Footprint;
use std::fmt;
use std::path::Path;

/// File magic number.
pub const MAGIC: u32 = 0x5CA1_AB13;
/// Largest accepted image width or height.
pub const MAX_DIMENSION: u32 = 1 << 16;

/// A parsed `.astc` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AstcFile {
    /// Block footprint.
    pub footprint: Footprint,
    /// Image width in texels.
    pub width: u32,
    /// Image height in texels.
    pub height: u32,
    /// Blocks, row-major, `blocks_x() * blocks_y()` of them.
    pub blocks: Vec<[u8; 16]>,
}

/// Why a `.astc` file could not be read.
#[derive(Debug)]
pub enum AstcFileError {
    /// The file could not be read from disk.
    Io(std::io::Error),
    /// Fewer than 16 bytes: no complete header.
    NoHeader {
        /// File length in bytes.
        actual: usize,
    },
    /// The first four bytes are not the magic number.
    BadMagic {
        /// The value found (little-endian).
        found: u32,
    },
    /// A block dimension of z ≠ 1 (a 3D footprint).
    Unsupported3dFootprint {
        /// Block width.
        x: u8,
        /// Block height.
        y: u8,
        /// Block depth.
        z: u8,
    },
    /// Block dimensions that are not one of the 14 2D footprints.
    UnsupportedFootprint {
        /// Block width.
        x: u8,
        /// Block height.
        y: u8,
    },
    /// Image width, height or depth of zero.
    ZeroSize {
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
        /// Image depth.
        depth: u32,
    },
    /// Image larger than [`MAX_DIMENSION`] or deeper than one slice.
    UnsupportedSize {
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
        /// Image depth.
        depth: u32,
    },
    /// Fewer bytes than the header's size requires.
    Truncated {
        /// Bytes the header's size needs (header + blocks).
        expected: usize,
        /// Bytes present.
        actual: usize,
    },
    /// More bytes than the header's size requires.
    TrailingData {
        /// Bytes the header's size needs (header + blocks).
        expected: usize,
        /// Bytes present.
        actual: usize,
    },
}

impl fmt::Display for AstcFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AstcFileError::*;
        match self {
            Io(e) => write!(f, "cannot read .astc file: {e}"),
            NoHeader { actual } => write!(
                f,
                ".astc file too short for its 16-byte header ({actual} bytes)"
            ),
            BadMagic { found } => write!(
                f,
                "not an .astc file: magic is 0x{found:08X}, expected 0x{MAGIC:08X}"
            ),
            Unsupported3dFootprint { x, y, z } => {
                write!(f, "unsupported 3D block footprint {x}x{y}x{z}")
            }
            UnsupportedFootprint { x, y } => write!(f, "unsupported 2D block footprint {x}x{y}"),
            ZeroSize {
                width,
                height,
                depth,
            } => write!(
                f,
                "image size {width}x{height}x{depth} has a zero dimension"
            ),
            UnsupportedSize {
                width,
                height,
                depth,
            } => {
                write!(f, "unsupported image size {width}x{height}x{depth} (max {MAX_DIMENSION}x{MAX_DIMENSION}x1)")
            }
            Truncated { expected, actual } => {
                write!(
                    f,
                    ".astc file truncated: expected {expected} bytes, found {actual}"
                )
            }
            TrailingData { expected, actual } => {
                write!(
                    f,
                    ".astc file has trailing data: expected {expected} bytes, found {actual}"
                )
            }
        }
    }
}

impl std::error::Error for AstcFileError {}

impl From<std::io::Error> for AstcFileError {
    fn from(e: std::io::Error) -> Self {
        AstcFileError::Io(e)
    }
}

impl AstcFile {
    /// A file with the given blocks. Panics if the block count does not match the size.
    pub fn new(footprint: Footprint, width: u32, height: u32, blocks: Vec<[u8; 16]>) -> AstcFile {
        let f = AstcFile {
            footprint,
            width,
            height,
            blocks,
        };
        assert_eq!(
            f.blocks.len(),
            (f.blocks_x() * f.blocks_y()) as usize,
            "block count"
        );
        f
    }

    /// Blocks per row.
    pub fn blocks_x(&self) -> u32 {
        self.width.div_ceil(self.footprint.w())
    }

    /// Blocks per column.
    pub fn blocks_y(&self) -> u32 {
        self.height.div_ceil(self.footprint.h())
    }

    /// Block (`bx`, `by`).
    pub fn block(&self, bx: u32, by: u32) -> &[u8; 16] {
        &self.blocks[(bx + by * self.blocks_x()) as usize]
    }

    /// Parses a whole file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<AstcFile, AstcFileError> {
        if bytes.len() < 16 {
            return Err(AstcFileError::NoHeader {
                actual: bytes.len(),
            });
        }
        let found = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        if found != MAGIC {
            return Err(AstcFileError::BadMagic { found });
        }
        let (x, y, z) = (bytes[4], bytes[5], bytes[6]);
        if z != 1 {
            return Err(AstcFileError::Unsupported3dFootprint { x, y, z });
        }
        let footprint = Footprint::new(x, y).ok_or(AstcFileError::UnsupportedFootprint { x, y })?;
        let dim = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], 0]);
        let (width, height, depth) = (dim(7), dim(10), dim(13));
        if width == 0 || height == 0 || depth == 0 {
            return Err(AstcFileError::ZeroSize {
                width,
                height,
                depth,
            });
        }
        if width > MAX_DIMENSION || height > MAX_DIMENSION || depth != 1 {
            return Err(AstcFileError::UnsupportedSize {
                width,
                height,
                depth,
            });
        }
        let count = (width.div_ceil(footprint.w()) * height.div_ceil(footprint.h())) as usize;
        let expected = 16 + 16 * count;
        if bytes.len() < expected {
            return Err(AstcFileError::Truncated {
                expected,
                actual: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(AstcFileError::TrailingData {
                expected,
                actual: bytes.len(),
            });
        }
        let blocks = bytes[16..expected]
            .chunks_exact(16)
            .map(|c| c.try_into().expect("16-byte chunk"))
            .collect();
        Ok(AstcFile {
            footprint,
            width,
            height,
            blocks,
        })
    }

    /// Reads and parses a file from disk.
    pub fn read(path: impl AsRef<Path>) -> Result<AstcFile, AstcFileError> {
        AstcFile::parse(&std::fs::read(path)?)
    }

    /// [`parse`](Self::parse) that accepts bytes after the last block, as astcenc does, and
    /// returns how many there were (for a warning).
    pub fn parse_lenient(bytes: &[u8]) -> Result<(AstcFile, usize), AstcFileError> {
        match AstcFile::parse(bytes) {
            Err(AstcFileError::TrailingData { expected, actual }) => {
                let file = AstcFile::parse(&bytes[..expected])?;
                Ok((file, actual - expected))
            }
            other => other.map(|f| (f, 0)),
        }
    }

    /// [`read`](Self::read) with [`parse_lenient`](Self::parse_lenient)'s tolerance of trailing
    /// bytes.
    pub fn read_lenient(path: impl AsRef<Path>) -> Result<(AstcFile, usize), AstcFileError> {
        AstcFile::parse_lenient(&std::fs::read(path)?)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + 16 * self.blocks.len());
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out.extend_from_slice(&[self.footprint.w() as u8, self.footprint.h() as u8, 1]);
        for d in [self.width, self.height, 1] {
            out.extend_from_slice(&d.to_le_bytes()[..3]);
        }
        for b in &self.blocks {
            out.extend_from_slice(b);
        }
        out
    }

    /// Writes the file to disk.
    pub fn write(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }
}

#[cfg(test)]
mod tests;
