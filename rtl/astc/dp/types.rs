//! Request, response and parameter types of ASTC_DP.

use super::DpCfg;
use rendergen_hdl::{bundle, name_lets, Bundle, Sig};

/// A 2D ASTC block footprint (texels per block in x and y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Footprint {
    /// Block width in texels, 4..=12.
    pub w: u32,
    /// Block height in texels, 4..=12.
    pub h: u32,
}

impl Footprint {
    /// The 14 legal 2D footprints, smallest first.
    pub const ALL: [Footprint; 14] = {
        const fn f(w: u32, h: u32) -> Footprint {
            Footprint { w, h }
        }
        [
            f(4, 4),
            f(5, 4),
            f(5, 5),
            f(6, 5),
            f(6, 6),
            f(8, 5),
            f(8, 6),
            f(8, 8),
            f(10, 5),
            f(10, 6),
            f(10, 8),
            f(10, 10),
            f(12, 10),
            f(12, 12),
        ]
    };

    /// The footprint `w`×`h` if it is one of the 14 legal ones.
    pub fn new(w: u32, h: u32) -> Option<Footprint> {
        Self::ALL.iter().copied().find(|f| f.w == w && f.h == h)
    }
}

/// A decode profile, as encoded on the `profile` request field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// LDR linear (`astcenc -dl`), field value 0: RGBA as UNORM16.
    LdrLinear = 0,
    /// LDR sRGB (`astcenc -ds`), field value 1: RGBA as the 8-bit sRGB value × 257.
    LdrSrgb = 1,
    /// HDR (`astcenc -dh`), field value 2 (3 decodes as 2): RGBA as FP16.
    Hdr = 2,
}

/// Which profiles the hardware decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profiles {
    /// All three, chosen per request by a 2-bit `profile` field.
    All,
    /// LDR linear and sRGB, chosen per request; no HDR endpoint or LNS logic is built and an
    /// HDR request returns the HDR error texel (NaN, `error` set).
    Ldr,
    /// One fixed profile; the request has no `profile` field.
    Only(Profile),
}

/// A texel request: the block, the texel position in it, and (unless fixed by [`DpCfg`]) the
/// footprint and profile.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpReq<T = Sig> {
    /// The 128-bit block, bit 0 = bit 0 of the block's first byte.
    pub block: T,
    /// Texel column in the block, 0..bw (4 bits).
    pub x: T,
    /// Texel row in the block, 0..bh (4 bits).
    pub y: T,
    /// Block width (4 bits), absent with a fixed footprint.
    pub bw: Option<T>,
    /// Block height (4 bits), absent with a fixed footprint.
    pub bh: Option<T>,
    /// [`Profile`] (2 bits), absent with a fixed profile.
    pub profile: Option<T>,
    /// Carried to the response unchanged.
    pub tag: T,
}

impl DpReq<u32> {
    /// The request shape for `cfg`.
    #[name_lets]
    pub fn shape(cfg: &DpCfg) -> DpReq<u32> {
        let fp = cfg.footprint.is_none().then_some(4);
        DpReq {
            block: 128,
            x: 4,
            y: 4,
            bw: fp,
            bh: fp,
            profile: (!matches!(cfg.profiles, Profiles::Only(_))).then_some(2),
            tag: cfg.tag_width,
        }
    }
}

bundle! {
    /// A decoded texel.
    pub struct DpResp {
        /// R, G, B, A × 16 bits, R in bits 15..0: UNORM16 (LDR linear), 8-bit sRGB × 257
        /// (LDR sRGB) or FP16 (HDR), as the reference model's `Texel::rgba`.
        pub rgba,
        /// R, G, B, A × 8 bits, R in bits 7..0: what astcenc writes for an LDR image
        /// (the reference model's `Texel::to_rgba8`).
        pub rgba8,
        /// Error colour (illegal block, or HDR data in an LDR profile).
        pub error,
        /// The request's tag.
        pub tag,
    }
}
