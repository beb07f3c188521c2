//! Collective fetch for a 2×2 group (`convolution-and-linking.md` §A.4–A.10): the request
//! forms of both methods (coordinates moved off texel centres; gather with integer offsets),
//! large kernels split into sub-operations (19×1), the per-pixel baseline, the stitching
//! sideband, and the broadcast of returned raw texels into the lanes (all / selective /
//! shared) with duplicates dropped.
//!
//! Geometry (y down, \[INF\] of §A.5–A.6): lanes 0 = TL, 1 = TR, 2 = BL, 3 = BR; the group's
//! top-left pixel is `(x, y)`; lane `k`'s pixel is `(x + (k & 1), y + (k >> 1))`; a kernel of
//! `kw × kh` taps is centred on its pixel (`kw`, `kh` odd).
//!
//! Patch codes (§A.8 proposed encoding): 0 none, 1 = 4×4, 2 = 2×8 (2 wide), 3 = 8×2. With code
//! 3, sub-operation 0 is the 7×1 gather layout, sub-operations 1 ..= 3 are the strips of a
//! 20×2 patch (19×1 kernel): strip `s` starts at column `7·(s − 1)`, lane `k` at `+2k`.

use super::{Filter, MipMode, Mode, Request, TexDesc};

/// Patch code of a 4×4 patch (3×3 kernel).
pub const PATCH_4X4: u32 = 1;
/// Patch code of a 2-wide, 8-high patch (1×7 kernel).
pub const PATCH_2X8: u32 = 2;
/// Patch code of an 8-wide, 2-high patch (7×1 kernel, 19×1 strips).
pub const PATCH_8X2: u32 = 3;

/// A convolution kernel's footprint (odd sizes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Taps across.
    pub w: u32,
    /// Taps down.
    pub h: u32,
}

/// Position `(px, py)` inside the group's patch of texel `k` (`t00, t10, t01, t11`) of lane
/// `lane`'s raw footprint, from the sideband.
pub fn patch_position(patch: u32, subop: u32, lane: usize, k: usize) -> (u32, u32) {
    let (dx, dy) = ((k & 1) as u32, (k >> 1) as u32);
    let (ox, oy) = match (patch, subop) {
        (PATCH_4X4, _) => (2 * (lane as u32 & 1), 2 * (lane as u32 >> 1)),
        (PATCH_2X8, _) => (0, [2, 0, 4, 6][lane]),
        (PATCH_8X2, 0) => ([2, 4, 0, 6][lane], 0),
        (PATCH_8X2, s) => (7 * (s - 1) + 2 * lane as u32, 0),
        _ => (0, 0),
    };
    (ox + dx, oy + dy)
}

/// The patch of the group for `kernel`: its size and its top-left texel relative to the
/// group's top-left pixel.
pub fn patch_of(kernel: Kernel) -> ((u32, u32), (i32, i32)) {
    let (rx, ry) = ((kernel.w / 2) as i32, (kernel.h / 2) as i32);
    ((kernel.w + 1, kernel.h + 1), (-rx, -ry))
}

/// A sub-operation: its number and each lane's footprint origin in the patch (`None`: the lane
/// does not fetch).
pub type SubOp = (u32, [Option<(u32, u32)>; 4]);

/// Patch code and the footprint origins (relative to the patch's top-left texel) of the
/// sub-operations of `kernel`: one entry per sub-operation, `None` for an unused lane.
pub fn plan(kernel: Kernel) -> (u32, Vec<SubOp>) {
    let lane_origins = |patch: u32, subop: u32| {
        std::array::from_fn(|lane| Some(patch_position(patch, subop, lane, 0)))
    };
    match (kernel.w, kernel.h) {
        (3, 3) => (PATCH_4X4, vec![(0, lane_origins(PATCH_4X4, 0))]),
        (1, 7) => (PATCH_2X8, vec![(0, lane_origins(PATCH_2X8, 0))]),
        (7, 1) => (PATCH_8X2, vec![(0, lane_origins(PATCH_8X2, 0))]),
        (19, 1) => {
            let mut subs = Vec::new();
            for s in 1..=3u32 {
                let mut o = lane_origins(PATCH_8X2, s);
                if s == 3 {
                    o[3] = None; // columns 14..=19 need only three footprints (¶81)
                }
                subs.push((s, o));
            }
            (PATCH_8X2, subs)
        }
        _ => panic!("no collective plan for a {}x{} kernel", kernel.w, kernel.h),
    }
}

/// Binary32 bits of the normalised coordinate `half_texels / 2` texels on an axis of `2^log2`
/// texels (exact for these sizes).
fn norm_bits(half_texels: i64, log2: u32) -> u32 {
    (((half_texels as f64 / 2.0) / (1u64 << log2) as f64) as f32).to_bits()
}

/// How the group's requests are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Method 1: raw fetches at the corner shared by the four texels of each footprint, moved by
    /// `nudge` (in 1/256 texel, both axes) to model the accuracy caveat of ¶74/¶78.
    Shifted { nudge: i32 },
    /// Method 2: raw gathers at the pixel centres with integer offsets (float coordinates).
    GatherOffsets,
    /// Raw fetches at integer texel coordinates (sub-operations whose offsets exceed −8..=7).
    IntCoords,
}

/// The collective requests of `kernel` for the group at `(x, y)` on `desc` at level `level`.
pub fn collective_requests(
    desc: &TexDesc,
    kernel: Kernel,
    (x, y): (i32, i32),
    level: u32,
    method: Method,
) -> Vec<Request> {
    let (_, (px0, py0)) = patch_of(kernel);
    let (patch, subs) = plan(kernel);
    let (lw, lh) = desc.level_log2(level);
    subs.iter()
        .map(|&(subop, origins)| {
            let mut r = Request {
                mode: Mode::Raw,
                filter: Filter::Linear,
                mip: MipMode::Nearest,
                explicit_lod: true,
                lod: (level as i32) << 8,
                patch,
                subop,
                mask: 0,
                ..Request::default()
            };
            for (lane, o) in origins.iter().enumerate() {
                let Some((ox, oy)) = o else { continue };
                r.mask |= 1 << lane;
                let tx = x + px0 + *ox as i32; // footprint origin texel
                let ty = y + py0 + *oy as i32;
                let (pxl, pyl) = (x + (lane as i32 & 1), y + (lane as i32 >> 1));
                match method {
                    Method::Shifted { nudge } => {
                        // corner at (tx + 1, ty + 1) in texels, nudged by nudge/256
                        let fx = ((tx + 1) as f64 + nudge as f64 / 256.0) / (1u64 << lw) as f64;
                        let fy = ((ty + 1) as f64 + nudge as f64 / 256.0) / (1u64 << lh) as f64;
                        r.coords[2 * lane] = (fx as f32).to_bits();
                        r.coords[2 * lane + 1] = (fy as f32).to_bits();
                    }
                    Method::GatherOffsets => {
                        r.coords[2 * lane] = norm_bits(2 * pxl as i64 + 1, lw);
                        r.coords[2 * lane + 1] = norm_bits(2 * pyl as i64 + 1, lh);
                        r.offsets[lane] = (tx - pxl, ty - pyl);
                    }
                    Method::IntCoords => {
                        r.int_coords = true;
                        r.coords[2 * lane] = tx as u32;
                        r.coords[2 * lane + 1] = ty as u32;
                    }
                }
            }
            r
        })
        .collect()
}

/// The per-pixel baseline: one filtered (bilinear, at texel centres) quad request per tap.
pub fn baseline_requests(
    desc: &TexDesc,
    kernel: Kernel,
    (x, y): (i32, i32),
    level: u32,
) -> Vec<Request> {
    let (lw, lh) = desc.level_log2(level);
    let (rx, ry) = ((kernel.w / 2) as i32, (kernel.h / 2) as i32);
    let mut out = Vec::new();
    for ky in -ry..=ry {
        for kx in -rx..=rx {
            let mut r = Request {
                mode: Mode::Filtered,
                filter: Filter::Linear,
                mip: MipMode::Nearest,
                explicit_lod: true,
                lod: (level as i32) << 8,
                ..Request::default()
            };
            for lane in 0..4 {
                let (pxl, pyl) = (x + (lane as i32 & 1) + kx, y + (lane as i32 >> 1) + ky);
                r.coords[2 * lane] = norm_bits(2 * pxl as i64 + 1, lw);
                r.coords[2 * lane + 1] = norm_bits(2 * pyl as i64 + 1, lh);
            }
            out.push(r);
        }
    }
    out
}

/// How returned texels reach the lanes (§A.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broadcast {
    /// Every texel of the patch into every lane.
    All,
    /// Each lane receives only the texels of its own kernel.
    Selective,
    /// The patch once into shared registers.
    Shared,
}

/// What a broadcast wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BroadcastResult {
    /// Register writes (lane registers, or shared registers).
    pub reg_writes: u64,
    /// Texels dropped because the destination already held them (overlapping sub-operations).
    pub dup_dropped: u64,
    /// Per lane: its kernel window, row-major (`kw·kh` texels), as the lane can read it.
    pub windows: [Vec<Option<u32>>; 4],
}

/// Broadcasts the raw answers (`(patch, subop, mask, words)` in arrival order) of a group's
/// collective fetch for `kernel` into the lanes.
pub fn broadcast(
    kernel: Kernel,
    answers: &[(u32, u32, u32, [u32; 16])],
    mode: Broadcast,
) -> BroadcastResult {
    let ((pw, ph), _) = patch_of(kernel);
    let mut patch: Vec<Option<u32>> = vec![None; (pw * ph) as usize];
    let mut lane_regs: [Vec<bool>; 4] = std::array::from_fn(|_| vec![false; (pw * ph) as usize]);
    let mut res = BroadcastResult::default();
    let in_kernel = |lane: usize, (px, py): (u32, u32)| {
        let (lx, ly) = ((lane & 1) as u32, (lane >> 1) as u32);
        px >= lx && px < lx + kernel.w && py >= ly && py < ly + kernel.h
    };
    for (p, s, mask, words) in answers {
        for lane in 0..4 {
            if mask >> lane & 1 == 0 {
                continue;
            }
            for k in 0..4 {
                let pos = patch_position(*p, *s, lane, k);
                if pos.0 >= pw || pos.1 >= ph {
                    continue;
                }
                let i = (pos.1 * pw + pos.0) as usize;
                let fresh = patch[i].is_none();
                patch[i] = Some(words[4 * lane + k]);
                match mode {
                    Broadcast::Shared | Broadcast::All => {
                        let copies = if mode == Broadcast::All { 4 } else { 1 };
                        match fresh {
                            true => res.reg_writes += copies,
                            false => res.dup_dropped += copies,
                        }
                    }
                    Broadcast::Selective => {
                        for (l, regs) in lane_regs.iter_mut().enumerate() {
                            if in_kernel(l, pos) {
                                match regs[i] {
                                    false => res.reg_writes += 1,
                                    true => res.dup_dropped += 1,
                                }
                                regs[i] = true;
                            }
                        }
                    }
                }
            }
        }
    }
    for lane in 0..4 {
        let (lx, ly) = ((lane & 1) as u32, (lane >> 1) as u32);
        res.windows[lane] = (0..kernel.h)
            .flat_map(|ky| (0..kernel.w).map(move |kx| (kx, ky)))
            .map(|(kx, ky)| patch[((ly + ky) * pw + lx + kx) as usize])
            .collect();
    }
    res
}
