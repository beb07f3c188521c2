//! The convolution shaders `rendergen conv` runs on the cores (assembly for the shader ISA,
//! `rtl/shader-isa/ISA.md`), one lane per output pixel, a quad per 2×2 group.
//!
//! Launch registers: `r0`, `r1` = the lane's pixel in texel coordinates of the bound texture.
//! Both shaders export one word per lane at location 0: the RGBA8 result.
//!
//! * **Baseline** (per pixel): per tap, `tex` of the tap's texel (integer coordinates, filtered,
//!   bilinear at the texel centre: the filter is active and exact at zero fraction, D8), each
//!   16-bit channel `c·257` shifted back to `c` (`>> 8`), multiplied by the tap's weight and
//!   accumulated.
//! * **Collective** (§A.5–A.10): the group's `(w+1)×(h+1)` patch as ⌈(w+1)/2⌉·⌈(h+1)/2⌉ raw
//!   2×2 footprints, each one broadcast `tex` (the fetching lane rotates over the quad; the
//!   sideband carries the patch code and sub-operation), so every lane holds the whole patch
//!   (broadcast *all*: 64 texel register writes per quad for 3×3). A 19×1 is fetched as the
//!   three overlapping sub-operations of §A.7 instead ([`fetch_plan`]: 11 footprints, 4 + 4 +
//!   3); the unit drops the second copy of columns 7 and 14, and the program reads those
//!   texels from the earlier footprint's registers (`texel_reg`; 160 writes per quad). Each
//!   lane then selects its own `w×h` window in place with `sel` on its position in the quad (one column step, one row
//!   step: the tap lookup of Fig. 17a) and runs the same MACs as the baseline on the RGBA8
//!   channels: two channels per word (R‖B, G‖A in 16-bit fields, so a tap costs 3 unpacking
//!   instructions and 2 multiply-adds instead of 6 and 4) when [`packed_macs`] allows it
//!   (non-negative weights, `Σw·255 < 2^16`: gauss3, gauss5, box3), else one channel at a
//!   time (the raw texels arrive packed; the baseline's filtered answer arrives unpacked).
//!
//! Both end with the same exact integer rounding: `n = Σ w·c + b·d`, result
//! `clamp(round(n / d), 0, 255)` rounding half away from zero, computed as
//! `q = floor((2n + d) / 2d)` from an f32 estimate corrected by one step each way (the
//! estimate is within one of `q` since `2n + d < 2^24`), so both modes are bit-identical to the
//! integer definition.

use super::Kernel;
use rendergen_sim::models::texture::collective::{plan, Kernel as CKernel};
use rendergen_sim::models::texture::system::Sampler;
use std::fmt::Write;

/// Registers a program of `kernel` needs per lane in collective mode (16, and four per
/// footprint of [`fetch_plan`]: the patch, plus the columns a 19×1's overlapping
/// sub-operations fetch twice).
pub fn collective_regs(kernel: &Kernel) -> u32 {
    16 + 4 * fetch_plan(kernel).len() as u32
}

/// Registers of the baseline program.
pub const BASELINE_REGS: u32 = 32;

/// Accumulators r8..r11; temporaries r12..r15 (r15 is never written: it reads 0).
const ACC: u32 = 8;
const TMP: u32 = 12;
const ZERO: u32 = 15;

/// The sampler of a baseline fetch: integer texel coordinates, bilinear, explicit LOD 0.
pub fn baseline_sampler() -> u32 {
    Sampler {
        mode: 0,
        int_coords: true,
        linear: true,
        explicit_lod: true,
        mip: 1,
        ..Sampler::default()
    }
    .encode()
}

/// The sampler of collective footprint `fp` (mode *all*).
pub fn collective_sampler(fp: &Footprint) -> u32 {
    Sampler {
        mode: 1,
        int_coords: true,
        broadcast: true,
        source: fp.source,
        patch: fp.patch,
        subop: fp.subop,
        explicit_lod: true,
        mip: 1,
        ..Sampler::default()
    }
    .encode()
}

/// Patch code of the sideband (§A.8) for a kernel: 1 = 4×4, 2 = 2×8, 3 = 8×2 (7×1, and the
/// strips of a 19×1), 0 otherwise.
pub fn patch_code(kernel: &Kernel) -> u32 {
    match (kernel.w, kernel.h) {
        (3, 3) => 1,
        (1, 7) => 2,
        (7, 1) | (19, 1) => 3,
        _ => 0,
    }
}

/// One raw broadcast footprint of the collective fetch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Its top-left texel in the patch.
    pub origin: (u32, u32),
    /// The sideband's patch code.
    pub patch: u32,
    /// The sideband's sub-operation.
    pub subop: u32,
    /// The fetching lane.
    pub source: u32,
}

/// The collective fetch of `kernel` in issue order: for a 19×1, the three sub-operations of
/// §A.7 (`rendergen_sim::models::texture::collective::plan`: 4 + 4 + 3 footprints, strip `s`
/// at column `7·(s − 1)`, each fetched by the lane the sideband maps it to, so the unit drops
/// the texels of columns 7 and 14 that strips 2 and 3 fetch again); otherwise the patch tiled
/// by aligned footprints in row order, footprint `f` fetched by lane `f mod 4` as
/// sub-operation `f / 4`.
pub fn fetch_plan(kernel: &Kernel) -> Vec<Footprint> {
    if (kernel.w, kernel.h) == (19, 1) {
        let (patch, subs) = plan(CKernel { w: 19, h: 1 });
        return subs
            .iter()
            .flat_map(|&(subop, origins)| {
                origins.into_iter().enumerate().filter_map(move |(l, o)| {
                    o.map(|origin| Footprint {
                        origin,
                        patch,
                        subop,
                        source: l as u32,
                    })
                })
            })
            .collect();
    }
    let patch = patch_code(kernel);
    footprints(kernel)
        .into_iter()
        .enumerate()
        .map(|(f, origin)| Footprint {
            origin,
            patch,
            subop: (f as u32 / 4) & 3,
            source: f as u32 % 4,
        })
        .collect()
}

/// `acc_c += w · t` for the channel value in `t` (clobbers `t`).
fn mac(s: &mut String, c: u32, w: i32, t: u32) {
    let acc = ACC + c;
    match w {
        1 => writeln!(s, "iadd r{acc}, r{acc}, r{t}"),
        -1 => writeln!(s, "isub r{acc}, r{acc}, r{t}"),
        _ => writeln!(s, "imuli r{t}, r{t}, {w}\niadd r{acc}, r{acc}, r{t}"),
    }
    .unwrap();
}

/// Channel `c` of the RGBA8 word in `src` into `t`.
pub(super) fn unpack(s: &mut String, c: u32, src: u32, t: u32) {
    match c {
        0 => writeln!(s, "andi r{t}, r{src}, 255"),
        3 => writeln!(s, "shri r{t}, r{src}, 24"),
        _ => writeln!(s, "shri r{t}, r{src}, {}\nandi r{t}, r{t}, 255", 8 * c),
    }
    .unwrap();
}

/// The shared tail: round each accumulator, pack RGBA8, export, end.
pub(super) fn finish(s: &mut String, kernel: &Kernel) {
    let d = kernel.divisor as i64;
    let bd = kernel.bias as i64 * d;
    let two_d = 2 * d;
    let inv = (1.0f32 / two_d as f32).to_bits();
    let (n, t, k, f, q, out) = (TMP, TMP + 1, TMP + 2, 5, 6, 7);
    for c in 0..4 {
        let acc = ACC + c;
        writeln!(s, "iaddi r{n}, r{acc}, {bd}").unwrap();
        // n < 0 → 0; n > 256·d → 256·d
        writeln!(s, "ilt r{t}, r{n}, r{ZERO}\nsel r{n}, r{t}, r{ZERO}, r{n}").unwrap();
        writeln!(
            s,
            "movi r{k}, {}\nilt r{t}, r{k}, r{n}\nsel r{n}, r{t}, r{k}, r{n}",
            256 * d
        )
        .unwrap();
        // N = 2n + d; q ≈ N / 2d, then one correction each way
        writeln!(s, "shli r{n}, r{n}, 1\niaddi r{n}, r{n}, {d}").unwrap();
        writeln!(
            s,
            "u2f r{f}, r{n}\nfmuli r{f}, r{f}, 0x{inv:08x}\nfloor r{f}, r{f}\nf2u r{q}, r{f}"
        )
        .unwrap();
        writeln!(
            s,
            "imuli r{t}, r{q}, {two_d}\nult r{t}, r{n}, r{t}\nisub r{q}, r{q}, r{t}"
        )
        .unwrap();
        writeln!(
            s,
            "iaddi r{t}, r{q}, 1\nimuli r{t}, r{t}, {two_d}\nule r{t}, r{t}, r{n}\niadd r{q}, r{q}, r{t}"
        )
        .unwrap();
        writeln!(
            s,
            "movi r{k}, 255\nult r{t}, r{k}, r{q}\nsel r{q}, r{t}, r{k}, r{q}"
        )
        .unwrap();
        match c {
            0 => writeln!(s, "mov r{out}, r{q}"),
            _ => writeln!(s, "shli r{q}, r{q}, {}\nor r{out}, r{out}, r{q}", 8 * c),
        }
        .unwrap();
    }
    writeln!(s, "export 0, r{out}, 1\nend").unwrap();
}

/// The baseline program: every tap fetched per pixel.
pub fn baseline(kernel: &Kernel) -> String {
    let mut s = String::from("; baseline convolution: one filtered fetch per tap and pixel\n");
    let (rx, ry) = ((kernel.w / 2) as i32, (kernel.h / 2) as i32);
    let sampler = baseline_sampler();
    for ky in 0..kernel.h {
        for kx in 0..kernel.w {
            let w = kernel.weight(kx, ky);
            if w == 0 {
                continue;
            }
            let (dx, dy) = (kx as i32 - rx, ky as i32 - ry);
            writeln!(s, "iaddi r2, r0, {dx}\niaddi r3, r1, {dy}").unwrap();
            writeln!(s, "tex r16, r2, 0x{sampler:08x}").unwrap();
            for c in 0..4 {
                writeln!(s, "shri r{TMP}, r{}, 8", 16 + c).unwrap();
                mac(&mut s, c, w, TMP);
            }
        }
    }
    finish(&mut s, kernel);
    s
}

/// Footprint origins (in the patch) of the collective fetch of `kernel`, in fetch order.
pub fn footprints(kernel: &Kernel) -> Vec<(u32, u32)> {
    let (pw, ph) = (kernel.w + 1, kernel.h + 1);
    (0..ph / 2)
        .flat_map(|j| (0..pw / 2).map(move |i| (2 * i, 2 * j)))
        .collect()
}

/// Register of patch texel `(px, py)` and the lane whose `tex` wrote it: footprint `f` of
/// [`fetch_plan`] lands in `16 + 4f ..`; a texel two footprints fetch is read from the
/// **earlier** one (the unit drops the later copy, `duplicate_mask` of
/// `rendergen_sim::models::texture::system`).
pub(super) fn texel_reg(plan: &[Footprint], px: u32, py: u32) -> (u32, u32) {
    plan.iter()
        .enumerate()
        .find_map(|(f, fp)| {
            let (dx, dy) = (px.wrapping_sub(fp.origin.0), py.wrapping_sub(fp.origin.1));
            match dx < 2 && dy < 2 {
                true => Some((16 + 4 * f as u32 + dx + 2 * dy, fp.source)),
                false => None,
            }
        })
        .expect("the plan covers the patch")
}

/// Register of patch texel `(px, py)` (see [`texel_reg`]).
pub(super) fn patch_reg(plan: &[Footprint], px: u32, py: u32) -> u32 {
    texel_reg(plan, px, py).0
}

/// The collective program: the group's patch fetched once and broadcast, then per-lane MACs.
pub fn collective(kernel: &Kernel) -> String {
    let mut s = String::from(
        "; collective convolution: the quad's patch as broadcast raw footprints\n\
         lane r2\nshri r3, r2, 1\nandi r3, r3, 1\nandi r2, r2, 1\n",
    );
    let (rx, ry) = ((kernel.w / 2) as i32, (kernel.h / 2) as i32);
    // r4, r5: the patch's top-left texel (the quad's top-left pixel − the radius)
    writeln!(
        s,
        "isub r4, r0, r2\niaddi r4, r4, {}\nisub r5, r1, r3\niaddi r5, r5, {}",
        -rx, -ry
    )
    .unwrap();
    let plan = fetch_plan(kernel);
    for (f, fp) in plan.iter().enumerate() {
        let (ox, oy) = fp.origin;
        writeln!(s, "iaddi r12, r4, {ox}\niaddi r13, r5, {oy}").unwrap();
        writeln!(
            s,
            "tex r{}, r12, 0x{:08x}",
            16 + 4 * f,
            collective_sampler(fp)
        )
        .unwrap();
    }
    // The lane's window, in place: columns shifted by its x in the quad, then rows by its y.
    if kernel.taps_nonzero() > 0 {
        for py in 0..kernel.h + 1 {
            for kx in 0..kernel.w {
                let (a, b) = (patch_reg(&plan, kx, py), patch_reg(&plan, kx + 1, py));
                writeln!(s, "sel r{a}, r2, r{b}, r{a}").unwrap();
            }
        }
        for ky in 0..kernel.h {
            for kx in 0..kernel.w {
                let (a, b) = (patch_reg(&plan, kx, ky), patch_reg(&plan, kx, ky + 1));
                writeln!(s, "sel r{a}, r3, r{b}, r{a}").unwrap();
            }
        }
    }
    let packed = packed_macs(kernel);
    for ky in 0..kernel.h {
        for kx in 0..kernel.w {
            let w = kernel.weight(kx, ky);
            if w == 0 {
                continue;
            }
            let src = patch_reg(&plan, kx, ky);
            if packed {
                // R and B in one word, G and A in another: two MACs for four channels.
                writeln!(
                    s,
                    "andi r{TMP}, r{src}, 0x00ff00ff\nshri r{t}, r{src}, 8\nandi r{t}, r{t}, 0x00ff00ff",
                    t = TMP + 1
                )
                .unwrap();
                mac(&mut s, 0, w, TMP);
                mac(&mut s, 1, w, TMP + 1);
            } else {
                for c in 0..4 {
                    unpack(&mut s, c, src, TMP);
                    mac(&mut s, c, w, TMP);
                }
            }
        }
    }
    if packed {
        // Accumulators R‖B and G‖A back to one channel each (r8 R, r9 G, r10 B, r11 A).
        let (r, g, b, a) = (ACC, ACC + 1, ACC + 2, ACC + 3);
        writeln!(
            s,
            "shri r{b}, r{r}, 16\nandi r{r}, r{r}, 65535\nshri r{a}, r{g}, 16\nandi r{g}, r{g}, 65535"
        )
        .unwrap();
    }
    finish(&mut s, kernel);
    s
}

/// Whether the collective shader of `kernel` runs its MACs on packed channels (two 16-bit
/// fields per word, `t & 0x00FF00FF` and `(t >> 8) & 0x00FF00FF`): only when every weight is
/// non-negative and `Σw · 255 < 2^16`, so no field overflows into or borrows from the next and
/// the sums are the per-channel ones exactly.
pub fn packed_macs(kernel: &Kernel) -> bool {
    let sum: i64 = kernel.weights.iter().map(|&w| w as i64).sum();
    kernel.weights.iter().all(|&w| w >= 0) && sum * 255 < 1 << 16
}
