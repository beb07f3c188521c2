//! Single-texel decode: the model of the hardware's one-texel-per-clock datapath (spec C.2.7).
//!
//! [`decode_texel_traced`] decodes only what texel (x, y) needs: the header, the texel's
//! partition, that partition's 2..=8 colour values, and per plane the (at most four) grid
//! weights with a non-zero infill factor. [`DecodeWork`] counts that work.

use super::convert::unorm16_to_fp16;
use super::endpoints::{self, Endpoints};
use super::header::{values_of, BlockKind, Layout};
pub use super::interpolate::{interpolate, quiet_nan, void_extent_texel};
use super::ise::decode_value;
use super::weights::{unquantize_weight, Infill};
use super::{block_bits, partition, Footprint, Profile};

/// How [`Texel::rgba`] is to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexelEncoding {
    /// Unsigned normalised 16-bit (LDR profiles).
    Unorm16,
    /// IEEE half-float bit patterns (HDR profile).
    Fp16,
}

/// One decoded texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Texel {
    /// R, G, B, A. LDR linear: UNORM16. LDR sRGB: the 8-bit sRGB value × 257 (astcenc
    /// interpolates sRGB endpoints at 8 bits). HDR: FP16 bits.
    pub rgba: [u16; 4],
    /// Encoding of `rgba` (follows the profile).
    pub encoding: TexelEncoding,
    /// True if this is the error colour (illegal block, or HDR data in an LDR profile).
    pub error: bool,
}

/// The FP16 pattern astcenc writes for an error texel in the HDR profile (a NaN).
pub const HDR_ERROR: u16 = 0xFFFF;

impl Texel {
    /// The error colour: opaque magenta (LDR) or NaN (HDR).
    pub fn error(profile: Profile) -> Texel {
        if profile.is_ldr() {
            Texel {
                rgba: [0xFFFF, 0, 0xFFFF, 0xFFFF],
                encoding: TexelEncoding::Unorm16,
                error: true,
            }
        } else {
            Texel {
                rgba: [HDR_ERROR; 4],
                encoding: TexelEncoding::Fp16,
                error: true,
            }
        }
    }

    /// The texel as FP16 bit patterns (UNORM16 converted as the spec's LDR → FP16 rule).
    pub fn to_fp16(&self) -> [u16; 4] {
        match self.encoding {
            TexelEncoding::Fp16 => self.rgba,
            TexelEncoding::Unorm16 => self.rgba.map(unorm16_to_fp16),
        }
    }

    /// The 8-bit RGBA that `astcenc -dl` / `-ds` writes for this texel: the value goes through
    /// FP16, then ×255 with rounding; NaN gives magenta.
    pub fn to_rgba8(&self) -> [u8; 4] {
        let h = self.to_fp16();
        let mut out = [0u8; 4];
        for c in 0..4 {
            match super::convert::f32_to_unorm8(super::convert::fp16_to_f32(h[c])) {
                Some(v) => out[c] = v,
                None => return [0xFF, 0, 0xFF, 0xFF],
            }
        }
        out
    }
}

/// Work done by a decode, to compare a single-texel decode with a whole-block decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeWork {
    /// Colour endpoint pairs decoded (partitions whose endpoints were computed).
    pub endpoint_pairs: u32,
    /// Colour endpoint integers read from the colour sequence.
    pub colour_values: u32,
    /// Grid weights read from the weight sequence (over both planes).
    pub grid_weights: u32,
}

/// Decodes texel (`x`, `y`) of `block` (16 bytes as stored in the file).
pub fn decode_texel(block: &[u8; 16], fp: Footprint, profile: Profile, x: u32, y: u32) -> Texel {
    decode_texel_traced(block, fp, profile, x, y).0
}

/// [`decode_texel`], also returning the work it needed.
pub fn decode_texel_traced(
    block: &[u8; 16],
    fp: Footprint,
    profile: Profile,
    x: u32,
    y: u32,
) -> (Texel, DecodeWork) {
    assert!(
        x < fp.w() && y < fp.h(),
        "texel ({x},{y}) outside {fp} block"
    );
    let bits = block_bits(block);
    let layout = match BlockKind::parse(bits, fp) {
        BlockKind::VoidExtent { hdr, rgba } => {
            return (void_extent_texel(hdr, rgba, profile), DecodeWork::default())
        }
        BlockKind::Illegal(_) => return (Texel::error(profile), DecodeWork::default()),
        BlockKind::Normal(l) => l,
    };
    let mut work = DecodeWork {
        endpoint_pairs: 1,
        ..DecodeWork::default()
    };
    // Step 1: the texel's partition.
    let p = partition::select(layout.seed, x, y, layout.partitions, fp.texels() < 31);
    // Step 2: that partition's endpoints only.
    let ep = partition_endpoints(bits, &layout, p);
    work.colour_values = values_of(layout.cem(p));
    // Step 3: the texel's weight on each plane from at most four grid weights.
    let infill = Infill::new(x, y, fp.w(), fp.h(), layout.mode.grid_w, layout.mode.grid_h);
    let stream = layout.weight_stream(bits);
    let planes = if layout.mode.dual_plane { 2 } else { 1 };
    let mut w = [0u32; 2];
    for (plane, wp) in w.iter_mut().enumerate().take(planes) {
        let q = layout.mode.weight_quant;
        let corner: [u32; 4] = std::array::from_fn(|i| {
            if infill.factor[i] == 0 {
                return 0; // not needed: no decode
            }
            work.grid_weights += 1;
            let raw = decode_value(&stream, q, infill.index[i] * planes as u32 + plane as u32);
            unquantize_weight(q, raw)
        });
        *wp = infill.combine(corner);
    }
    // Step 4: interpolate.
    (interpolate(&ep, w, &layout, profile), work)
}

/// Decodes the endpoints of partition `p`: its colour values only.
pub fn partition_endpoints(bits: u128, layout: &Layout, p: u32) -> Endpoints {
    let stream = layout.colour_stream(bits);
    let first = layout.colour_offset(p);
    let cem = layout.cem(p);
    let v: Vec<i32> = (0..values_of(cem))
        .map(|i| {
            endpoints::unquantize_colour(
                layout.colour_quant,
                decode_value(&stream, layout.colour_quant, first + i),
            )
        })
        .collect();
    endpoints::decode(cem, &v)
}
