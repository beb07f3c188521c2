//! The tile buffer: `N` colour render targets and a D24 depth plane, each holding
//! `16 × 16 × samples` values, with the early depth test, Vulkan blending on RGBA8, tile-shader
//! access at pixel and sample granularity (out-of-tile accesses are errors), write-out reads and
//! clears at TILE_BEGIN.
//!
//! Values are raw bits in the render target's format: RGBA8 (`R` in bits 7:0 … `A` in 31:24,
//! UNORM), RGBA16F (64 bits, `R` lowest), R32F, RG16F (`R` lowest), D24 (24 bits). Blending is
//! defined for RGBA8; a write to any other format replaces the stored value (no blending).
use super::raster::Quad;
use super::setup::CompareOp;
use super::TILE;

/// Format of a render target (the RTL's format code in parentheses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// 8-bit UNORM RGBA (0).
    Rgba8,
    /// Four binary16 (1).
    Rgba16f,
    /// One binary32 (2).
    R32f,
    /// Two binary16 (3).
    Rg16f,
}

impl Format {
    /// Bits per sample.
    pub fn bits(self) -> u32 {
        match self {
            Format::Rgba16f => 64,
            _ => 32,
        }
    }

    /// The format of code `c` (0..=3).
    pub fn from_code(c: u64) -> Option<Format> {
        [Format::Rgba8, Format::Rgba16f, Format::R32f, Format::Rg16f]
            .get(c as usize)
            .copied()
    }
}

/// `VkBlendOp` (the first five; Vulkan's numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlendOp {
    /// `s·fs + d·fd`.
    #[default]
    Add = 0,
    /// `s·fs − d·fd`.
    Subtract = 1,
    /// `d·fd − s·fs`.
    ReverseSubtract = 2,
    /// `min(s, d)` (factors unused).
    Min = 3,
    /// `max(s, d)`.
    Max = 4,
}

/// `VkBlendFactor` with Vulkan's numbering; the constant-colour factors (10–13) and the dual
/// source factors are not supported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Factor {
    /// 0.
    #[default]
    Zero = 0,
    /// 1.
    One = 1,
    /// Source colour (alpha for the alpha channel).
    SrcColor = 2,
    /// 1 − source colour.
    OneMinusSrcColor = 3,
    /// Destination colour.
    DstColor = 4,
    /// 1 − destination colour.
    OneMinusDstColor = 5,
    /// Source alpha.
    SrcAlpha = 6,
    /// 1 − source alpha.
    OneMinusSrcAlpha = 7,
    /// Destination alpha.
    DstAlpha = 8,
    /// 1 − destination alpha.
    OneMinusDstAlpha = 9,
    /// `min(As, 1 − Ad)` for RGB, 1 for alpha.
    SrcAlphaSaturate = 14,
}

impl Factor {
    /// Every supported factor.
    pub const ALL: [Factor; 11] = [
        Factor::Zero,
        Factor::One,
        Factor::SrcColor,
        Factor::OneMinusSrcColor,
        Factor::DstColor,
        Factor::OneMinusDstColor,
        Factor::SrcAlpha,
        Factor::OneMinusSrcAlpha,
        Factor::DstAlpha,
        Factor::OneMinusDstAlpha,
        Factor::SrcAlphaSaturate,
    ];
}

/// One render target's `VkPipelineColorBlendAttachmentState` (without the write mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlendState {
    /// Blending on; off replaces the stored value.
    pub enable: bool,
    /// RGB equation.
    pub colour_op: BlendOp,
    /// RGB source factor.
    pub src_colour: Factor,
    /// RGB destination factor.
    pub dst_colour: Factor,
    /// Alpha equation.
    pub alpha_op: BlendOp,
    /// Alpha source factor.
    pub src_alpha: Factor,
    /// Alpha destination factor.
    pub dst_alpha: Factor,
}

/// `round(x / 255)` for `0 ≤ x ≤ 255²` without a divider (exact over that range).
pub fn div255(x: u32) -> u32 {
    (x + 128 + ((x + 128) >> 8)) >> 8
}

fn factor(f: Factor, ch: usize, s: [u32; 4], d: [u32; 4]) -> u32 {
    match f {
        Factor::Zero => 0,
        Factor::One => 255,
        Factor::SrcColor => s[ch],
        Factor::OneMinusSrcColor => 255 - s[ch],
        Factor::DstColor => d[ch],
        Factor::OneMinusDstColor => 255 - d[ch],
        Factor::SrcAlpha => s[3],
        Factor::OneMinusSrcAlpha => 255 - s[3],
        Factor::DstAlpha => d[3],
        Factor::OneMinusDstAlpha => 255 - d[3],
        Factor::SrcAlphaSaturate if ch == 3 => 255,
        Factor::SrcAlphaSaturate => s[3].min(255 - d[3]),
    }
}

/// Vulkan blending of RGBA8 source `src` over stored `dst`: per channel, the exact value of
/// the equation on UNORM values, rounded to nearest and clamped to [0, 1]
/// (`round(clamp(s·fs ± d·fd, 0, 255²) / 255)` on 8-bit integers).
pub fn blend_rgba8(src: u32, dst: u32, st: &BlendState) -> u32 {
    if !st.enable {
        return src;
    }
    let s: [u32; 4] = std::array::from_fn(|c| (src >> (8 * c)) & 0xFF);
    let d: [u32; 4] = std::array::from_fn(|c| (dst >> (8 * c)) & 0xFF);
    let mut out = 0;
    for ch in 0..4 {
        let (op, fs, fd) = match ch {
            3 => (st.alpha_op, st.src_alpha, st.dst_alpha),
            _ => (st.colour_op, st.src_colour, st.dst_colour),
        };
        let sf = (s[ch] * factor(fs, ch, s, d)) as i64;
        let df = (d[ch] * factor(fd, ch, s, d)) as i64;
        let full = |x: i64| div255(x.clamp(0, 255 * 255) as u32);
        let v = match op {
            BlendOp::Add => full(sf + df),
            BlendOp::Subtract => full(sf - df),
            BlendOp::ReverseSubtract => full(df - sf),
            BlendOp::Min => s[ch].min(d[ch]),
            BlendOp::Max => s[ch].max(d[ch]),
        };
        out |= v << (8 * ch);
    }
    out
}

/// A tile-shader access outside the tile (or to a sample or plane that does not exist).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTile;

/// The tile buffer's contents.
#[derive(Clone, Debug)]
pub struct TileBuffer {
    samples: u32,
    formats: Vec<Format>,
    /// Plane `p` (colour RTs, then depth), index `(py·16 + px)·samples + sample`.
    planes: Vec<Vec<u64>>,
    origin: (u32, u32),
}

impl TileBuffer {
    /// An empty (all-zero) buffer with colour render targets of `formats`, then depth.
    pub fn new(samples: u32, formats: &[Format]) -> TileBuffer {
        let n = (TILE * TILE) as usize * samples as usize;
        TileBuffer {
            samples,
            formats: formats.to_vec(),
            planes: vec![vec![0; n]; formats.len() + 1],
            origin: (0, 0),
        }
    }

    /// The depth plane's index (after the colour RTs).
    pub fn depth_plane(&self) -> usize {
        self.formats.len()
    }

    fn mask(&self, plane: usize) -> u64 {
        match self.formats.get(plane) {
            Some(f) if f.bits() == 64 => u64::MAX,
            Some(_) => 0xFFFF_FFFF,
            None => 0xFF_FFFF,
        }
    }

    fn index(&self, px: u32, py: u32, sample: u32) -> usize {
        ((py * TILE as u32 + px) * self.samples + sample) as usize
    }

    fn lane_index(&self, qx: u32, qy: u32, lane: u32) -> usize {
        let (pixel, sample) = (lane / self.samples, lane % self.samples);
        self.index(2 * qx + (pixel & 1), 2 * qy + (pixel >> 1), sample)
    }

    /// TILE_BEGIN: the tile `origin` (in tiles) and a clear of every plane in `mask` (bit `p`)
    /// to `values[p]`.
    pub fn tile_begin(&mut self, origin: (u32, u32), mask: u32, values: &[u64]) {
        self.origin = origin;
        for (p, value) in values.iter().enumerate().take(self.planes.len()) {
            if mask >> p & 1 != 0 {
                let v = value & self.mask(p);
                self.planes[p].fill(v);
            }
        }
    }

    /// Early depth test of `q`'s covered lanes with `op`; writes passing depths if `write`.
    /// Returns the passing lanes.
    pub fn depth_test(&mut self, q: &Quad, op: CompareOp, write: bool) -> u32 {
        let d = self.depth_plane();
        let mut pass = 0;
        for lane in 0..4 * self.samples {
            let i = self.lane_index(q.qx, q.qy, lane);
            let new = q.depth[lane as usize];
            if q.coverage >> lane & 1 != 0 && op.test(new, self.planes[d][i] as u32) {
                pass |= 1 << lane;
                if write {
                    self.planes[d][i] = new as u64;
                }
            }
        }
        pass
    }

    /// The pixel pipeline's write of quad `(qx, qy)` to render target `rt`: lanes in `mask`
    /// get `colour[pixel]`, blended by `blend` when the target is RGBA8.
    pub fn write_quad(
        &mut self,
        rt: usize,
        (qx, qy): (u32, u32),
        mask: u32,
        colour: [u64; 4],
        blend: &BlendState,
    ) {
        for lane in 0..4 * self.samples {
            if mask >> lane & 1 == 0 {
                continue;
            }
            let i = self.lane_index(qx, qy, lane);
            let src = colour[(lane / self.samples) as usize] & self.mask(rt);
            self.planes[rt][i] = match self.formats[rt] {
                Format::Rgba8 => blend_rgba8(src as u32, self.planes[rt][i] as u32, blend) as u64,
                _ => src,
            };
        }
    }

    fn ts_index(&self, plane: usize, x: u32, y: u32, sample: u32) -> Result<usize, OutOfTile> {
        let (ox, oy) = (self.origin.0 * TILE as u32, self.origin.1 * TILE as u32);
        let inside = (ox..ox + TILE as u32).contains(&x) && (oy..oy + TILE as u32).contains(&y);
        match inside && sample < self.samples && plane < self.planes.len() {
            true => Ok(self.index(x - ox, y - oy, sample)),
            false => Err(OutOfTile),
        }
    }

    /// Tile-shader read of `plane` at screen pixel `(x, y)`, sample `sample`.
    pub fn ts_read(&self, plane: usize, x: u32, y: u32, sample: u32) -> Result<u64, OutOfTile> {
        let i = self.ts_index(plane, x, y, sample)?;
        Ok(self.planes[plane][i])
    }

    /// Tile-shader write; an out-of-tile write changes nothing.
    pub fn ts_write(
        &mut self,
        plane: usize,
        x: u32,
        y: u32,
        sample: u32,
        value: u64,
    ) -> Result<(), OutOfTile> {
        let i = self.ts_index(plane, x, y, sample)?;
        self.planes[plane][i] = value & self.mask(plane);
        Ok(())
    }

    /// Write-out read: every sample of tile-local pixel `(px, py)` of `plane`.
    pub fn read_pixel(&self, plane: usize, px: u32, py: u32) -> Vec<u64> {
        (0..self.samples)
            .map(|s| self.planes[plane][self.index(px, py, s)])
            .collect()
    }
}
