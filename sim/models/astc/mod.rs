//! ASTC reference decoder (golden model) and `.astc` file reader.
//!
//! Written from the Khronos ASTC specification (KHR_texture_compression_astc_hdr, Appendix C.2)
//! and checked bit for bit against ARM's `astcenc` 4.x command line decoder (`-dl`, `-ds`, `-dh`).
//! Where `astcenc` and the letter of the specification differ, the model follows `astcenc`
//! (project decision D5); every such place is marked `astcenc:` in a comment.
//!
//! Structure (each step is a small module a hardware designer can map onto a pipeline stage):
//! * [`header`]: block mode, partition count, colour endpoint modes, bit positions ([`BlockInfo`]).
//! * [`ise`]: bounded integer sequence decoding with random access to one value.
//! * [`partition`]: the partition hash.
//! * [`endpoints`]: colour unquantisation and the 16 colour endpoint modes.
//! * [`weights`]: weight unquantisation and bilinear grid infill for one texel.
//! * [`interpolate`]: endpoint interpolation per profile (weight application, spec C.2.19).
//! * [`texel`]: the single-texel decode ([`decode_texel`]) and whole-block decode ([`decode_block`]).
//! * [`convert`]: UNORM16/LNS to FP16 and the 8-bit output of `astcenc`.
//! * [`image`] and [`mod@file`]: whole images and the `.astc` container.

#![warn(missing_docs)]

pub mod block;
pub mod block_mode;
pub mod convert;
pub mod endpoints;
pub mod endpoints_hdr;
pub mod file;
pub mod header;
pub mod image;
pub mod interpolate;
pub mod ise;
pub mod partition;
pub mod texel;
pub mod weights;

pub use block::{decode_block, decode_block_traced};
pub use file::{AstcFile, AstcFileError};
pub use header::{BlockInfo, BlockKind, IllegalReason};
pub use image::{decode_image, Image};
pub use texel::{decode_texel, decode_texel_traced, DecodeWork, Texel, TexelEncoding};
pub use weights::Infill;

use std::fmt;

/// Decode profile (how endpoints are interpolated and what the output holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// LDR, linear colour space (`astcenc -dl`). Output UNORM16.
    LdrLinear,
    /// LDR, sRGB colour space (`astcenc -ds`). Output UNORM16 holding the 8-bit sRGB value × 257.
    LdrSrgb,
    /// HDR (`astcenc -dh`). Output FP16 bit patterns.
    Hdr,
}

impl Profile {
    /// All three profiles.
    pub const ALL: [Profile; 3] = [Profile::LdrLinear, Profile::LdrSrgb, Profile::Hdr];

    /// True for the two LDR profiles.
    pub fn is_ldr(self) -> bool {
        !matches!(self, Profile::Hdr)
    }

    /// The `astcenc` decode flag for this profile (`-dl`, `-ds`, `-dh`).
    pub fn astcenc_decode_flag(self) -> &'static str {
        match self {
            Profile::LdrLinear => "-dl",
            Profile::LdrSrgb => "-ds",
            Profile::Hdr => "-dh",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Profile::LdrLinear => "ldr-linear",
            Profile::LdrSrgb => "ldr-srgb",
            Profile::Hdr => "hdr",
        })
    }
}

/// A 2D block footprint (texels per block in x and y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Footprint {
    w: u8,
    h: u8,
}

impl Footprint {
    /// The 14 legal 2D footprints, smallest first.
    pub const ALL: [Footprint; 14] = [
        Footprint { w: 4, h: 4 },
        Footprint { w: 5, h: 4 },
        Footprint { w: 5, h: 5 },
        Footprint { w: 6, h: 5 },
        Footprint { w: 6, h: 6 },
        Footprint { w: 8, h: 5 },
        Footprint { w: 8, h: 6 },
        Footprint { w: 8, h: 8 },
        Footprint { w: 10, h: 5 },
        Footprint { w: 10, h: 6 },
        Footprint { w: 10, h: 8 },
        Footprint { w: 10, h: 10 },
        Footprint { w: 12, h: 10 },
        Footprint { w: 12, h: 12 },
    ];

    /// The footprint `w`×`h` if it is one of the 14 legal 2D footprints.
    pub fn new(w: u8, h: u8) -> Option<Footprint> {
        Self::ALL.iter().copied().find(|f| f.w == w && f.h == h)
    }

    /// Parses `"6x6"` (also `"6X6"`); `None` for anything that is not a legal 2D footprint.
    pub fn parse(s: &str) -> Option<Footprint> {
        let (a, b) = s.trim().split_once(['x', 'X'])?;
        Self::new(a.parse().ok()?, b.parse().ok()?)
    }

    /// Block width in texels.
    pub fn w(self) -> u32 {
        self.w as u32
    }

    /// Block height in texels.
    pub fn h(self) -> u32 {
        self.h as u32
    }

    /// Texels per block.
    pub fn texels(self) -> u32 {
        self.w() * self.h()
    }
}

impl fmt::Display for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.w, self.h)
    }
}

/// Reads a block as the `u128` whose bit 0 is bit 0 of byte 0 (the file's little-endian order).
pub fn block_bits(block: &[u8; 16]) -> u128 {
    u128::from_le_bytes(*block)
}

/// `count` (≤ 32) bits of `block` starting at bit `start`; bits above 127 read as 0.
pub(crate) fn bits(block: u128, start: u32, count: u32) -> u32 {
    if start >= 128 || count == 0 {
        return 0;
    }
    let mask = if count >= 32 {
        u32::MAX as u128
    } else {
        (1u128 << count) - 1
    };
    ((block >> start) & mask) as u32
}

#[cfg(test)]
mod tests;
