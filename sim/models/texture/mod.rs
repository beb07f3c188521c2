//! Golden model of the texture unit (issue 14 §1, RGBA8 path; `convolution-and-linking.md`
//! Part A; decisions D6, D8). Plain integer arithmetic on whole requests, written from the
//! spec and independent of the RTL (`rendergen_rtl::texture`), which computes the same numbers
//! cycle by cycle with other structure (a cache, four banks, a pipeline).
//!
//! # Semantics (every choice the sources leave open)
//! * **Texture.** RGBA8 texels (R in bits 7:0, A in 31:24) in a word-addressed memory.
//!   `width × height`, 1 ..= 1024 per axis; level `l` is `w_l × h_l = max(1, width >> l) ×
//!   max(1, height >> l)`; `mips` levels (1 ..= `max(log2_w, log2_h) + 1`). **Storage** is by
//!   power-of-two pitch: level `l` is stored as a `2^(log2_w − l) × 2^(log2_h − l)` array
//!   (`log2_w = ⌈log2 width⌉`), so a non-power-of-two (NPOT) texture is padded and every
//!   address below is a power-of-two one. Levels are packed level 0 first from word `base`.
//!   **Layouts** (with `W_l = 2^(log2_w − l)`): linear (row-major, `x + y·W_l`) or 4×4-tiled
//!   (tiles row-major, `ceil(W_l/4)` per row, 16 words each, texels row-major inside a tile);
//!   a tiled level takes `max(W_l,4)·max(H_l,4)` words. The RTL takes power-of-two sizes only
//!   (`width = 2^log2_w`); NPOT is specified here first.
//! * **Coordinates.** Float mode: lane `k`'s `(s, t)` are binary32 normalised coordinates;
//!   `S = clamp_i32(floor(s · width · 2^16))` (exact; NaN, ±0 and denormals give 0, D6),
//!   likewise `T`, and the level-`l` coordinate is `floor(S · w_l / width)` (Q16.16 texels of
//!   that level; `S >> min(l, log2_w)` for a power-of-two width, within 2^−16 texel of
//!   Vulkan's `s · w_l` otherwise). Wrapping (below) is modulo `w_l`, `h_l`.
//!   Integer mode: the lanes give signed 32-bit texel coordinates of the selected level.
//! * **LOD** (Vulkan, scale factor from the larger derivative length, coarse derivatives of
//!   the quad: x from lane 1 − lane 0, y from lane 2 − lane 0). Derivatives in 1/256 texel
//!   (`(S_a − S_b) >> 8`, clamped to ±2^20), `P = max(dSx² + dTx², dSy² + dTy²)`;
//!   `log2 P` in Q.8 as `256·(msb(P) − 16) + LOG2_LUT[next 7 bits]`, `λ = (log2 P >> 1) + bias`
//!   (Q.8, bias = the request's `lod`); `P = 0` gives `λ = −65536 + bias`. Explicit LOD:
//!   `λ = lod` (always in integer mode). Then (not in integer mode) the sampler's clamp,
//!   `λ = clamp(λ, min_lod, max_lod)` (Vulkan). Base level `b = min(base_level, mips − 1)`,
//!   level clamp `q = mips − 1 − b`; every level below is relative to `b` (level `b + d` is
//!   read).
//! * **Mip selection.** Base: level 0. Nearest: `λ ≤ 0.5 → 0`, else `min(ceil(λ + 0.5) − 1, q)`.
//!   Linear: `λ ≤ 0 → 0`; else `lo = floor(λ)`, `δ = frac(λ)` (8 bits); `lo ≥ q → q`; two
//!   levels only when `lo < q` and `δ ≠ 0`. Raw and gather requests read one level (the
//!   nearest-mip choice when the mode is linear). Integer mode: level `clamp(lod >> 8, 0, q)`
//!   (texelFetch: the sampler's LOD clamp does not apply, the base level does).
//! * **Explicit gradients** (`textureGrad`) are not a request form: the request has no room
//!   for four more binary32 operands; a shader computes λ from its gradients and passes it as
//!   an explicit LOD.
//! * **Footprint.** Linear filter, raw, gather: `i0 = floor(u − ½) + off_x`, `α = 8 bits of
//!   frac(u − ½)` (truncated); nearest: `i0 = floor(u) + off_x`, `α = 0`; integer mode:
//!   `i0 = x + off_x`, `α = 0`. `i1 = i0 + 1`; each wrapped per axis (repeat, clamp to edge,
//!   mirrored repeat as Vulkan, clamp to border: a texel outside the level is the
//!   descriptor's border colour, an RGBA8 texel of the texture's format, and is not read).
//!   Positions `t00 = (i0,j0)`, `t10 = (i1,j0)`, `t01 = (i0,j1)`, `t11 = (i1,j1)`.
//! * **Filter** on channels expanded to 16 bits (UNORM `c·257`; sRGB RGB through
//!   [`SRGB_TO_LINEAR16`], alpha `c·257`), 8-bit fractions, exact at zero fraction:
//!   `lerp(a, b, f) = a + (((b − a)·f) >> 8)` (arithmetic shift); bilinear = lerp over x on both
//!   rows, then over y; trilinear = lerp(level lo, level lo+1, δ).
//! * **Answers** (one per quad request, 16 words, lane `k`'s word `j` at `4k + j`, zero for
//!   lanes outside the mask): filtered: R, G, B, A as 16-bit linear UNORM; raw: the footprint's
//!   texels `t00, t10, t01, t11` as stored (RGBA8); gather: component `comp` (16-bit expanded)
//!   of `(i0,j1), (i1,j1), (i1,j0), (i0,j0)` (Vulkan's order). The sideband (`patch`, `subop`)
//!   rides along and [`collective::patch_position`] says where each raw texel sits in the
//!   group's patch.
//! * **Counts.** Footprints: one per lane in the mask and level read. Texel reads: the texels
//!   with non-zero weight (raw and gather: 4; bilinear: 1 + (α≠0) + (β≠0) + (α≠0 ∧ β≠0)) that
//!   are not border.
//!   Filter-active footprints (filtered mode) and filter-idle ones (raw, gather).

pub mod astc;
pub mod cache;
pub mod collective;
pub mod system;

/// Wrap mode of one axis (the RTL's 2-bit code is the discriminant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// Repeat (`i mod size`).
    Repeat = 0,
    /// Clamp to edge.
    Clamp = 1,
    /// Mirrored repeat.
    Mirror = 2,
    /// Clamp to border: a texel outside the level is the descriptor's border colour and is
    /// not read.
    Border = 3,
}

/// A texture descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexDesc {
    /// Word address of level 0's first texel.
    pub base: u32,
    /// log2 of the level-0 storage width, 0 ..= 10 (the row pitch: `⌈log2 width⌉`).
    pub log2_w: u32,
    /// log2 of the level-0 storage height, 0 ..= 10 (`⌈log2 height⌉`).
    pub log2_h: u32,
    /// Level-0 width in texels, `2^(log2_w − 1) < width ≤ 2^log2_w` (`2^log2_w` for a
    /// power-of-two texture; anything else is non-power-of-two, model only so far).
    pub width: u32,
    /// Level-0 height in texels, `2^(log2_h − 1) < height ≤ 2^log2_h`.
    pub height: u32,
    /// Mip levels, 1 ..= max(log2_w, log2_h) + 1.
    pub mips: u32,
    /// sRGB (else UNORM).
    pub srgb: bool,
    /// 4×4-tiled layout (else linear).
    pub tiled: bool,
    /// Wrap of x and y.
    pub wrap: [Wrap; 2],
    /// Border colour ([`Wrap::Border`]): an RGBA8 texel in the texture's format (an sRGB
    /// texture decodes its RGB like any texel's; a raw fetch returns it as stored).
    pub border: u32,
    /// Smallest λ (sampler `minLod`), signed Q8.8 (−32768 ..= 32767).
    pub min_lod: i32,
    /// Largest λ (sampler `maxLod`), signed Q8.8, ≥ `min_lod`.
    pub max_lod: i32,
    /// Base level (the view's `baseMipLevel`): level 0 of the sampling rules; values beyond
    /// `mips − 1` act as `mips − 1`.
    pub base_level: u32,
}

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Filtered RGBA (16-bit linear UNORM per channel).
    Filtered = 0,
    /// Raw footprint: four RGBA8 texels per lane, filter bypassed.
    Raw = 1,
    /// One component of the four texels of the footprint (`textureGather`).
    Gather = 2,
}

/// Texel filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Nearest texel.
    Nearest = 0,
    /// Bilinear.
    Linear = 1,
}

/// Mipmap mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MipMode {
    /// Level 0 only.
    Base = 0,
    /// Nearest level.
    Nearest = 1,
    /// Linear between two levels (trilinear with a linear filter).
    Linear = 2,
}

/// One quad request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Warp slot (tag).
    pub slot: u32,
    /// Quad (tag).
    pub quad: u32,
    /// Lane `k`'s coordinates at `2k` (s or x) and `2k + 1` (t or y): binary32 bits, or signed
    /// integers in integer mode.
    pub coords: [u32; 8],
    /// Integer texel coordinates (else binary32 normalised).
    pub int_coords: bool,
    /// Per-lane texel offsets, each −8 ..= 7.
    pub offsets: [(i32, i32); 4],
    /// Bias (implicit LOD) or LOD (explicit), signed Q8.8.
    pub lod: i32,
    /// `lod` is the level of detail itself.
    pub explicit_lod: bool,
    /// Filtered, raw or gather.
    pub mode: Mode,
    /// Texel filter (filtered mode).
    pub filter: Filter,
    /// Mipmap mode.
    pub mip: MipMode,
    /// Gathered component 0 ..= 3.
    pub comp: u32,
    /// Lanes to answer (4 bits).
    pub mask: u32,
    /// Patch code of a collective fetch (2 bits; 0 = none).
    pub patch: u32,
    /// Sub-operation of a collective fetch (2 bits).
    pub subop: u32,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            slot: 0,
            quad: 0,
            coords: [0; 8],
            int_coords: false,
            offsets: [(0, 0); 4],
            lod: 0,
            explicit_lod: false,
            mode: Mode::Filtered,
            filter: Filter::Linear,
            mip: MipMode::Base,
            comp: 0,
            mask: 0xF,
            patch: 0,
            subop: 0,
        }
    }
}

/// The answer to one quad request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Warp slot of the request.
    pub slot: u32,
    /// Quad of the request.
    pub quad: u32,
    /// Lanes answered.
    pub mask: u32,
    /// Mode of the request.
    pub mode: Mode,
    /// Patch code (sideband).
    pub patch: u32,
    /// Sub-operation (sideband).
    pub subop: u32,
    /// The (first) level read.
    pub level: u32,
    /// Lane `k`'s word `j` at `4k + j`.
    pub words: [u32; 16],
}

/// What one request cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Footprints read.
    pub footprints: u64,
    /// Texels read (non-zero weight).
    pub texel_reads: u64,
    /// Footprints through the filter.
    pub filter_active: u64,
    /// Footprints that bypassed the filter.
    pub filter_idle: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.footprints += o.footprints;
        self.texel_reads += o.texel_reads;
        self.filter_active += o.filter_active;
        self.filter_idle += o.filter_idle;
    }
}

/// One texel read: level and coordinates inside it, and its word address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TexelRef {
    /// Level.
    pub level: u32,
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Word address.
    pub addr: u32,
    /// Outside the level with [`Wrap::Border`]: the border colour, not read (`x`, `y`,
    /// `addr` are the clamped texel's).
    pub border: bool,
}

/// `round(256 · log2(1 + i/128))`, the fraction of log2 from the 7 bits below the leading one.
pub fn log2_lut() -> [u32; 128] {
    std::array::from_fn(|i| (256.0 * (1.0 + i as f64 / 128.0).log2()).round() as u32)
}

/// sRGB code → linear light as 16-bit UNORM (`round(65535 · EOTF(c/255))`, IEC 61966-2-1).
pub fn srgb_to_linear16(c: u8) -> u16 {
    let v = c as f64 / 255.0;
    let l = if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    };
    (l * 65535.0).round() as u16
}

/// [`srgb_to_linear16`] as a table.
pub static SRGB_TO_LINEAR16: std::sync::LazyLock<[u16; 256]> =
    std::sync::LazyLock::new(|| std::array::from_fn(|c| srgb_to_linear16(c as u8)));

impl TexDesc {
    /// The values of the texture unit's descriptor input ports (`desc_*`, `rtl/texture`), by
    /// port name, with `flush` low: what a testbench pokes before requests.
    pub fn port_values(&self) -> [(&'static str, u64); 13] {
        [
            ("desc_base", self.base as u64),
            ("desc_log2_w", self.log2_w as u64),
            ("desc_log2_h", self.log2_h as u64),
            ("desc_mips", self.mips as u64),
            ("desc_srgb", self.srgb as u64),
            ("desc_tiled", self.tiled as u64),
            ("desc_wrap_s", self.wrap[0] as u64),
            ("desc_wrap_t", self.wrap[1] as u64),
            ("desc_border", self.border as u64),
            ("desc_min_lod", (self.min_lod & 0xFFFF) as u64),
            ("desc_max_lod", (self.max_lod & 0xFFFF) as u64),
            ("desc_base_level", self.base_level as u64),
            ("flush", 0),
        ]
    }

    /// log2 of level `l`'s width and height.
    pub fn level_log2(&self, l: u32) -> (u32, u32) {
        (self.log2_w.saturating_sub(l), self.log2_h.saturating_sub(l))
    }

    /// Width and height of level `l` in texels: `max(1, width >> l)`, `max(1, height >> l)`.
    pub fn level_size(&self, l: u32) -> (u32, u32) {
        ((self.width >> l).max(1), (self.height >> l).max(1))
    }

    /// Words level `l` takes.
    pub fn level_words(&self, l: u32) -> u32 {
        let (lw, lh) = self.level_log2(l);
        match self.tiled {
            false => 1 << (lw + lh),
            true => (1 << lw.max(2)) * (1 << lh.max(2)),
        }
    }

    /// Word address of texel `(x, y)` of level `l` (coordinates inside the level).
    pub fn texel_addr(&self, l: u32, x: u32, y: u32) -> u32 {
        let base = self.base + (0..l).map(|k| self.level_words(k)).sum::<u32>();
        let (lw, _) = self.level_log2(l);
        let off = match self.tiled {
            false => x + (y << lw),
            true => {
                let tiles_per_row = (1u32 << lw).div_ceil(4);
                ((y / 4) * tiles_per_row + x / 4) * 16 + (y % 4) * 4 + x % 4
            }
        };
        base.wrapping_add(off)
    }

    /// Total words of all levels.
    pub fn words(&self) -> u32 {
        (0..self.mips).map(|l| self.level_words(l)).sum()
    }
}

/// `clamp_i32(floor(s · 2^(log2_size + 16)))`; NaN, zeros and denormals give 0.
pub fn coord_fixed(bits: u32, log2_size: u32) -> i32 {
    coord_fixed_size(bits, 1 << log2_size)
}

/// `clamp_i32(floor(s · size · 2^16))` (exact: a 24-bit mantissa times an 11-bit size);
/// NaN, zeros and denormals give 0.
pub fn coord_fixed_size(bits: u32, size: u32) -> i32 {
    let s = f32::from_bits(bits);
    if s.is_nan() || bits & 0x7F80_0000 == 0 {
        return 0;
    }
    let v = (s as f64 * size as f64 * 65536.0).floor();
    v.clamp(i32::MIN as f64, i32::MAX as f64) as i32
}

/// Wraps coordinate `i` into a level of size `2^log2_size` ([`Wrap::Border`] clamps; see
/// [`outside`]).
pub fn wrap(i: i64, log2_size: u32, mode: Wrap) -> u32 {
    wrap_size(i, 1 << log2_size, mode)
}

/// Wraps coordinate `i` into a level of `size` texels (any size ≥ 1).
pub fn wrap_size(i: i64, size: u32, mode: Wrap) -> u32 {
    let size = size as i64;
    match mode {
        Wrap::Repeat => i.rem_euclid(size) as u32,
        Wrap::Clamp | Wrap::Border => i.clamp(0, size - 1) as u32,
        Wrap::Mirror => {
            // Vulkan: (size − 1) − mirror((i mod 2·size) − size), mirror(a) = a ≥ 0 ? a : −(1 + a).
            let a = i.rem_euclid(2 * size) - size;
            let mirror = if a >= 0 { a } else { -(1 + a) };
            (size - 1 - mirror) as u32
        }
    }
}

/// Coordinate `i` is outside a level of size `2^log2_size` in mode [`Wrap::Border`].
pub fn outside(i: i64, log2_size: u32, mode: Wrap) -> bool {
    outside_size(i, 1 << log2_size, mode)
}

/// Coordinate `i` is outside a level of `size` texels in mode [`Wrap::Border`].
pub fn outside_size(i: i64, size: u32, mode: Wrap) -> bool {
    mode == Wrap::Border && !(0..size as i64).contains(&i)
}

/// `a + (((b − a)·f) >> 8)`, exact at `f = 0`.
pub fn lerp(a: u32, b: u32, f: u32) -> u32 {
    (a as i64 + (((b as i64 - a as i64) * f as i64) >> 8)) as u32
}

/// Channels of a texel expanded to 16 bits (linear light for sRGB colour channels).
pub fn expand(texel: u32, srgb: bool) -> [u32; 4] {
    std::array::from_fn(|c| {
        let v = (texel >> (8 * c)) & 0xFF;
        match srgb && c < 3 {
            true => SRGB_TO_LINEAR16[v as usize] as u32,
            false => v * 257,
        }
    })
}

/// Bilinear filter of expanded texels `t00, t10, t01, t11` with fractions `fx`, `fy`.
pub fn bilinear(t: &[[u32; 4]; 4], fx: u32, fy: u32) -> [u32; 4] {
    std::array::from_fn(|c| {
        let top = lerp(t[0][c], t[1][c], fx);
        let bot = lerp(t[2][c], t[3][c], fx);
        lerp(top, bot, fy)
    })
}

/// Level of detail of request `r` in Q.8 (see the module docs).
pub fn lod_q8(desc: &TexDesc, r: &Request) -> i32 {
    if r.explicit_lod || r.int_coords {
        return r.lod;
    }
    let s: Vec<i64> = (0..4)
        .map(|k| coord_fixed_size(r.coords[2 * k], desc.width) as i64)
        .collect();
    let t: Vec<i64> = (0..4)
        .map(|k| coord_fixed_size(r.coords[2 * k + 1], desc.height) as i64)
        .collect();
    let d = |a: i64, b: i64| ((a - b) >> 8).clamp(-(1 << 20), 1 << 20);
    let (dsx, dtx) = (d(s[1], s[0]), d(t[1], t[0]));
    let (dsy, dty) = (d(s[2], s[0]), d(t[2], t[0]));
    let p = ((dsx * dsx + dtx * dtx).max(dsy * dsy + dty * dty)) as u64;
    if p == 0 {
        return -65536 + r.lod;
    }
    let n = 63 - p.leading_zeros() as i32;
    let f7 = if n >= 7 { p >> (n - 7) } else { p << (7 - n) } & 127;
    let log2p = 256 * (n - 16) + log2_lut()[f7 as usize] as i32;
    (log2p >> 1) + r.lod
}

/// Levels to read: `(first, δ, two)`.
pub fn select_levels(desc: &TexDesc, r: &Request) -> (u32, u32, bool) {
    let b = desc.base_level.min(desc.mips - 1);
    let (lo, delta, two) = select_relative(desc, r, desc.mips as i32 - 1 - b as i32);
    (b + lo, delta, two)
}

/// [`select_levels`] relative to the base level, `q` the largest relative level.
fn select_relative(desc: &TexDesc, r: &Request, q: i32) -> (u32, u32, bool) {
    let lambda = lod_q8(desc, r);
    if r.int_coords {
        return ((lambda >> 8).clamp(0, q) as u32, 0, false);
    }
    let lambda = lambda.clamp(desc.min_lod, desc.max_lod);
    let nearest = || match lambda <= 128 {
        true => 0,
        false => ((lambda + 127) >> 8).min(q) as u32,
    };
    match (r.mip, r.mode) {
        (MipMode::Base, _) => (0, 0, false),
        (MipMode::Nearest, _) | (MipMode::Linear, Mode::Raw | Mode::Gather) => {
            (nearest(), 0, false)
        }
        (MipMode::Linear, Mode::Filtered) => {
            if lambda <= 0 {
                return (0, 0, false);
            }
            let lo = lambda >> 8;
            let delta = (lambda & 255) as u32;
            match lo >= q {
                true => (q as u32, 0, false),
                false => (lo as u32, delta, delta != 0),
            }
        }
    }
}

/// One lane's footprint at level `l`: the four texels `t00, t10, t01, t11` and the fractions.
pub fn footprint(desc: &TexDesc, r: &Request, lane: usize, l: u32) -> ([TexelRef; 4], u32, u32) {
    let (lw, lh) = desc.level_size(l);
    let (ox, oy) = (r.offsets[lane].0 as i64, r.offsets[lane].1 as i64);
    let axis = |coord: u32, size: u32, size_lvl: u32| -> (i64, u32) {
        if r.int_coords {
            return (coord as i32 as i64, 0);
        }
        // floor(S · size_l / size): `S >> l` for a power-of-two size.
        let u = (coord_fixed_size(coord, size) as i64 * size_lvl as i64).div_euclid(size as i64);
        match (r.mode, r.filter) {
            (Mode::Filtered, Filter::Nearest) => (u >> 16, 0),
            _ => {
                let v = u - (1 << 15);
                (v >> 16, ((v >> 8) & 255) as u32)
            }
        }
    };
    let (i0, fx) = axis(r.coords[2 * lane], desc.width, lw);
    let (j0, fy) = axis(r.coords[2 * lane + 1], desc.height, lh);
    let cols = [i0 + ox, i0 + ox + 1];
    let rows = [j0 + oy, j0 + oy + 1];
    let t = std::array::from_fn(|p| {
        let (i, j) = (cols[p & 1], rows[p >> 1]);
        let (x, y) = (
            wrap_size(i, lw, desc.wrap[0]),
            wrap_size(j, lh, desc.wrap[1]),
        );
        TexelRef {
            level: l,
            x,
            y,
            addr: desc.texel_addr(l, x, y),
            border: outside_size(i, lw, desc.wrap[0]) || outside_size(j, lh, desc.wrap[1]),
        }
    });
    (t, fx, fy)
}

/// The positions `t00, t10, t01, t11` of footprint `t` with fractions `fx`, `fy` that are
/// read: those with a non-zero weight (every one for raw and gather) that are not border.
pub fn needed(r: &Request, t: &[TexelRef; 4], fx: u32, fy: u32) -> [bool; 4] {
    let weighted = match r.mode {
        Mode::Filtered => [true, fx != 0, fy != 0, fx != 0 && fy != 0],
        _ => [true; 4],
    };
    std::array::from_fn(|p| weighted[p] && !t[p].border)
}

/// Answers request `r` from memory `mem` (word-addressed; addresses wrap modulo its length):
/// the answer, the counts, and every texel read (in order).
pub fn sample(desc: &TexDesc, mem: &[u32], r: &Request) -> (Answer, Counts, Vec<TexelRef>) {
    let (lo, delta, two) = select_levels(desc, r);
    let mut words = [0u32; 16];
    let mut counts = Counts::default();
    let mut reads = Vec::new();
    let fetch = |t: &TexelRef| match t.border {
        true => desc.border,
        false => mem[t.addr as usize % mem.len()],
    };
    for lane in 0..4 {
        if r.mask >> lane & 1 == 0 {
            continue;
        }
        let levels: &[u32] = if two { &[lo, lo + 1] } else { &[lo] };
        let mut filtered = Vec::new();
        for &l in levels {
            let (t, fx, fy) = footprint(desc, r, lane, l);
            let raw: [u32; 4] = std::array::from_fn(|p| fetch(&t[p]));
            counts.footprints += 1;
            let need = needed(r, &t, fx, fy);
            for p in 0..4 {
                if need[p] {
                    counts.texel_reads += 1;
                    reads.push(t[p]);
                }
            }
            let ex = raw.map(|w| expand(w, desc.srgb));
            match r.mode {
                Mode::Filtered => {
                    counts.filter_active += 1;
                    filtered.push(bilinear(&ex, fx, fy));
                }
                Mode::Raw => {
                    counts.filter_idle += 1;
                    words[4 * lane..4 * lane + 4].copy_from_slice(&raw);
                }
                Mode::Gather => {
                    counts.filter_idle += 1;
                    let c = r.comp as usize & 3;
                    let order = [2, 3, 1, 0];
                    for j in 0..4 {
                        words[4 * lane + j] = ex[order[j]][c];
                    }
                }
            }
        }
        if r.mode == Mode::Filtered {
            let out = match filtered.as_slice() {
                [a] => *a,
                [a, b] => std::array::from_fn(|c| lerp(a[c], b[c], delta)),
                _ => unreachable!("one or two levels"),
            };
            words[4 * lane..4 * lane + 4].copy_from_slice(&out);
        }
    }
    let answer = Answer {
        slot: r.slot,
        quad: r.quad,
        mask: r.mask,
        mode: r.mode,
        patch: r.patch,
        subop: r.subop,
        level: lo,
        words,
    };
    (answer, counts, reads)
}

#[cfg(test)]
mod tests;
