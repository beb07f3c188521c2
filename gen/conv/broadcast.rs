//! The collective shader in the broadcast modes *selective* and *shared* (§A.10, scenario
//! T7): the same patch fetched once per quad as raw broadcast footprints, written into the
//! lanes differently (the sampler word's bits 15:14, `compiler/shader/ABI.md` "Sampled
//! textures"), convolved to the same bits as mode *all* ([`super::program::collective`]).
//!
//! * **Selective**: the program of mode *all* with each broadcast retargeted: bits 15:14 = 1,
//!   and the fetching lane is the one whose sideband footprint (§A.8, the patch mapping of
//!   `rendergen_sim::models::texture::collective::patch_position`) is that footprint, so the
//!   unit's mapping tells which lanes' windows hold each texel. A lane receives only its
//!   window's texels (36 texel register writes per quad for a 3×3 instead of 64); its
//!   in-place window selection reads a register it did not receive only where the `sel`
//!   discards it. Kernels without a sideband patch code (5×5, 9×9, …) have no mapping: their
//!   broadcasts write every word, as mode *all* (5×5: 144 writes per quad instead of the 100
//!   of its four 25-texel windows). That is the right count for the hardware of §A.8: its
//!   2-bit sideband has four values (not used, 4×4, 2×8, 8×2), all taken, so a 6×6 patch
//!   cannot be described to the broadcast; a fifth layout needs a wider sideband.
//! * **19×1**: the three sub-operations of §A.7 ([`super::program::fetch_plan`]); the unit
//!   drops the repeated columns 7 and 14 in every mode, the programs read them from the
//!   earlier sub-operation's registers: 160 / 76 / 40 writes per quad (all / selective /
//!   shared), 16 / 8 / 4 dropped, the frame model's `broadcast`.
//! * **Shared**: footprint `f` is fetched by lane `f mod 4` into its own `r(16+4f) ..` only
//!   (16 writes per quad for a 3×3): the quad's lanes together hold the patch once, a
//!   quad-shared register set. Every lane then reads each patch texel with
//!   `qget t, r(16+4f+j), f mod 4` and multiplies it by its own weight for that texel (zero
//!   outside its window: the per-lane weight arrays of Fig. 17c, built with `sel` on the
//!   lane's position in the quad), so a lane does one MAC per channel for every texel some
//!   lane of the quad weights (16 per pixel for a 3×3).
//!
//! Measured on the RTL (`tex_system`, 4 quads per warp, 64 cache lines, memory latency 8, the
//! non-blocking texture cache; 64×64 `landscape64.png`, gauss3, clamp; `rendergen conv
//! … --engine rtl --json`, and the ignored test `measure_64x64_gauss3` on the generated scene):
//!
//! | mode | cycles | core issue cycles | footprints | texel register writes | MACs |
//! |---|---|---|---|---|---|
//! | baseline | 90,436 | 55,296 | 36,864 | 36,864 | 147,456 |
//! | all | 66,152 | 50,432 | 4,096 | 65,536 | 147,456 |
//! | selective | 66,152 | 50,432 | 4,096 | 36,864 | 147,456 |
//! | shared | 131,679 | 115,968 | 4,096 | 16,384 | 262,144 |
//!
//! (all and selective with packed MACs, `program::packed_macs`.)
//!
//! Selective costs nothing in the core (the same instructions); shared trades register writes
//! for instructions (per-lane weights and 16 MACs per pixel) and becomes core-bound.

use super::program::{
    collective, collective_regs, fetch_plan, finish, texel_reg, unpack, Footprint,
};
use super::Kernel;
use rendergen_sim::models::texture::collective::patch_position;
use rendergen_sim::models::texture::system::Sampler;
use std::fmt::Write;

/// The sampler word's broadcast mode *selective* (bits 15:14).
pub const SELECTIVE: u32 = 1;
/// The sampler word's broadcast mode *shared* (bits 15:14).
pub const SHARED: u32 = 2;

/// The lane whose sideband footprint under patch code `patch`, sub-operation `subop` starts
/// at `(ox, oy)` of the patch, if any.
fn sideband_lane(patch: u32, subop: u32, (ox, oy): (u32, u32)) -> Option<u32> {
    (0..4u32).find(|&l| patch_position(patch, subop, l as usize, 0) == (ox, oy))
}

/// The selective-broadcast program of `kernel` (see the module docs).
pub fn selective(kernel: &Kernel) -> String {
    let src = collective(kernel);
    let feet = fetch_plan(kernel);
    let mut out = String::from("; broadcast selective\n");
    for line in src.lines() {
        let retargeted = line
            .strip_prefix("tex r")
            .and_then(|rest| {
                let (d, word) = rest.split_once(", r12, 0x")?;
                let d: u32 = d.parse().ok()?;
                let mut s = Sampler::decode(u32::from_str_radix(word, 16).ok()?);
                let f = (d - 16) / 4;
                if s.patch != 0 {
                    s.source = sideband_lane(s.patch, s.subop, feet[f as usize].origin)?;
                    s.comp = SELECTIVE;
                }
                Some(format!("tex r{d}, r12, 0x{:08x}", s.encode()))
            })
            .unwrap_or_else(|| line.to_string());
        writeln!(out, "{retargeted}").unwrap();
    }
    out
}

/// Registers of the shared program: the collective's and five temporaries.
pub fn shared_regs(kernel: &Kernel) -> u32 {
    collective_regs(kernel) + 5
}

/// Lane `(lx, ly)`'s weight of patch texel `(px, py)`: the kernel's tap, zero outside its
/// window.
fn lane_weight(kernel: &Kernel, (px, py): (u32, u32), (lx, ly): (u32, u32)) -> i32 {
    match px >= lx && px - lx < kernel.w && py >= ly && py - ly < kernel.h {
        true => kernel.weight(px - lx, py - ly),
        false => 0,
    }
}

/// Patch texels some lane of the quad weights (each costs one MAC per channel in every lane
/// of the shared program).
pub fn shared_texels(kernel: &Kernel) -> u64 {
    let (pw, ph) = (kernel.w + 1, kernel.h + 1);
    (0..ph)
        .flat_map(|py| (0..pw).map(move |px| (px, py)))
        .filter(|&p| (0..4).any(|l| lane_weight(kernel, p, (l & 1, l >> 1)) != 0))
        .count() as u64
}

/// The shared-register program of `kernel` (see the module docs).
pub fn shared(kernel: &Kernel) -> String {
    let mut s = String::from(
        "; collective convolution, broadcast shared: the patch once per quad, read with qget\n\
         lane r2\nshri r3, r2, 1\nandi r3, r3, 1\nandi r2, r2, 1\n",
    );
    let (rx, ry) = ((kernel.w / 2) as i32, (kernel.h / 2) as i32);
    writeln!(
        s,
        "isub r4, r0, r2\niaddi r4, r4, {}\nisub r5, r1, r3\niaddi r5, r5, {}",
        -rx, -ry
    )
    .unwrap();
    let feet: Vec<Footprint> = fetch_plan(kernel);
    for (f, fp) in feet.iter().enumerate() {
        let (ox, oy) = fp.origin;
        writeln!(s, "iaddi r12, r4, {ox}\niaddi r13, r5, {oy}").unwrap();
        let word = Sampler {
            mode: 1,
            int_coords: true,
            broadcast: true,
            source: fp.source,
            patch: fp.patch,
            subop: fp.subop,
            explicit_lod: true,
            mip: 1,
            comp: SHARED,
            ..Sampler::default()
        }
        .encode();
        writeln!(s, "tex r{}, r12, 0x{word:08x}", 16 + 4 * f).unwrap();
    }
    let base = collective_regs(kernel);
    let (t, w, k, k2, u) = (base, base + 1, base + 2, base + 3, base + 4);
    for py in 0..kernel.h + 1 {
        for px in 0..kernel.w + 1 {
            let lw = |lx, ly| lane_weight(kernel, (px, py), (lx, ly));
            let (w00, w10, w01, w11) = (lw(0, 0), lw(1, 0), lw(0, 1), lw(1, 1));
            if [w00, w10, w01, w11] == [0; 4] {
                continue;
            }
            let (reg, lane) = texel_reg(&feet, px, py);
            writeln!(s, "qget r{t}, r{reg}, {lane}").unwrap();
            writeln!(s, "movi r{w}, {w00}").unwrap();
            if w10 != w00 {
                writeln!(s, "movi r{k}, {w10}\nsel r{w}, r2, r{k}, r{w}").unwrap();
            }
            if (w01, w11) != (w00, w10) {
                writeln!(s, "movi r{k2}, {w01}").unwrap();
                if w11 != w01 {
                    writeln!(s, "movi r{k}, {w11}\nsel r{k2}, r2, r{k}, r{k2}").unwrap();
                }
                writeln!(s, "sel r{w}, r3, r{k2}, r{w}").unwrap();
            }
            for c in 0..4 {
                unpack(&mut s, c, t, u);
                writeln!(
                    s,
                    "imul r{u}, r{u}, r{w}\niadd r{}, r{}, r{u}",
                    8 + c,
                    8 + c
                )
                .unwrap();
            }
        }
    }
    finish(&mut s, kernel);
    s
}

#[cfg(test)]
mod tests {
    use super::super::tests::{reference, rtl_matches_the_model, scene};
    use super::super::*;
    use super::shared_texels;

    /// T7 on whole images (model engine): the three broadcast modes give the reference image
    /// bit for bit on every 3×3 preset and border, with 64 / 36 / 16 texel register writes per
    /// quad; a kernel without a sideband (gauss5) broadcasts selectively as *all*.
    #[test]
    fn broadcast_modes_match_the_reference_with_the_spec_write_counts() {
        let img = scene(10, 8, 4);
        let quads = 5 * 4;
        for name in ["gauss3", "box3", "sobel-x", "sobel-y", "sharpen", "gauss5"] {
            let k = Kernel::preset(name).unwrap();
            for border in [Border::Clamp, Border::Repeat, Border::Mirror] {
                let want = reference(&img, &k, border);
                let per_quad: [u64; 3] = match name {
                    "gauss5" => [144, 144, 36],
                    _ => [64, 36, 16],
                };
                for (mode, writes) in [Mode::Collective, Mode::Selective, Mode::Shared]
                    .into_iter()
                    .zip(per_quad)
                {
                    let got = run_model(&img, &k, mode, border).unwrap();
                    assert_eq!(got.image.texels, want, "{name} {border:?} {mode:?}");
                    assert_eq!(
                        got.stats.reg_writes,
                        writes * quads,
                        "{name} {border:?} {mode:?}"
                    );
                    let (fp, reads) = match name {
                        "gauss5" => (9, 36),
                        _ => (4, 16),
                    };
                    assert_eq!(got.stats.footprints, fp * quads, "{name} {mode:?}");
                    assert_eq!(got.stats.texel_reads, reads * quads, "{name} {mode:?}");
                }
            }
        }
    }

    /// T8 for the shared program: one MAC per channel for every patch texel some lane weights
    /// (16 for a dense 3×3, 36 for gauss5's 6×6 patch, 12 for sharpen whose zero corners are
    /// the only weights of the patch's corners).
    #[test]
    fn shared_mac_counts() {
        for (name, texels) in [("box3", 16), ("gauss3", 16), ("gauss5", 36)] {
            let k = Kernel::preset(name).unwrap();
            assert_eq!(shared_texels(&k), texels, "{name}");
            assert_eq!(Mode::Shared.macs_per_pixel(&k), 4 * texels);
        }
        // sharpen's corners are zero: patch corners are weighted by no lane
        assert_eq!(shared_texels(&Kernel::preset("sharpen").unwrap()), 12);
    }

    /// The three modes on the cycle-accurate `tex_system` under memory back-pressure: the
    /// reference image, the model's counters, and the RTL bridge's register-write counter
    /// at 64 / 36 / 16 per quad.
    #[test]
    fn rtl_broadcast_modes_count_64_36_16_and_match_the_reference() {
        let img = scene(8, 6, 3);
        let quads = 4 * 3;
        for (name, border, stall) in [
            ("gauss3", Border::Clamp, 0.3),
            ("sobel-y", Border::Mirror, 0.0),
        ] {
            let k = Kernel::preset(name).unwrap();
            let want = reference(&img, &k, border);
            for (mode, writes) in [
                (Mode::Collective, 64),
                (Mode::Selective, 36),
                (Mode::Shared, 16),
            ] {
                let g = rtl_matches_the_model(&img, &k, name, mode, border, stall, 11, &want);
                assert_eq!(g.reg_writes, writes * quads, "{name} {mode:?}");
            }
        }
    }

    /// A 19×1 kernel (`--kernel FILE.json`): the row of 19 taps of §A.7.
    pub(crate) fn kernel_19x1() -> Kernel {
        Kernel::from_json(
            "19x1.json",
            r#"{"width":19,"height":1,"weights":[1,2,3,4,5,6,7,8,9,10,9,8,7,6,5,4,3,2,1],"divisor":100,"bias":0}"#,
        )
        .unwrap()
    }

    /// The frame model's broadcast of one quad's 19×1 collective fetch (`collective::plan`,
    /// answered by the unit's model): register writes and duplicates dropped per mode.
    fn frame_model_19x1() -> [(u64, u64); 3] {
        use rendergen_sim::models::texture::collective::{
            broadcast, collective_requests, Broadcast, Kernel as CKernel, Method,
        };
        use rendergen_sim::models::texture::sample;
        let img = scene(16, 4, 1);
        let k = kernel_19x1();
        let tex = texture(&img, &k, Border::Clamp);
        let ck = CKernel { w: 19, h: 1 };
        let reqs = collective_requests(&tex.desc, ck, (4, 2), 0, Method::IntCoords);
        let raw: Vec<_> = reqs
            .iter()
            .map(|r| {
                (
                    r.patch,
                    r.subop,
                    r.mask,
                    sample(&tex.desc, &tex.mem, r).0.words,
                )
            })
            .collect();
        [Broadcast::All, Broadcast::Selective, Broadcast::Shared].map(|m| {
            let b = broadcast(ck, &raw, m);
            (b.reg_writes, b.dup_dropped)
        })
    }

    /// T9 in the cores: a 19×1 kernel fetched as the three sub-operations of §A.7 (11
    /// requests, 44 texel reads per quad) gives the reference image bit for bit in the modes
    /// all / selective / shared on the model and on the RTL (`tex_system` under memory
    /// back-pressure), each reading the overlapping columns 7 and 14 from the earlier
    /// sub-operation's registers; the register writes and duplicates dropped per quad are the
    /// frame model's `broadcast` of the same fetch: 160 / 76 / 40 and 16 / 8 / 4.
    #[test]
    fn t9_19x1_drops_duplicates_in_every_mode_on_the_model_and_the_rtl() {
        let frame = frame_model_19x1();
        assert_eq!(frame, [(160, 16), (76, 8), (40, 4)]);
        let img = scene(16, 4, 5);
        let quads = 8 * 2;
        let k = kernel_19x1();
        for (border, stall) in [(Border::Clamp, 0.3), (Border::Mirror, 0.0)] {
            let want = reference(&img, &k, border);
            let base = run_model(&img, &k, Mode::Baseline, border).unwrap();
            assert_eq!(base.image.texels, want, "baseline {border:?}");
            assert_eq!(base.stats.footprints, 76 * quads);
            for (mode, (writes, dup)) in [Mode::Collective, Mode::Selective, Mode::Shared]
                .into_iter()
                .zip(frame)
            {
                let m = run_model(&img, &k, mode, border).unwrap();
                assert_eq!(m.image.texels, want, "model {mode:?} {border:?}");
                assert_eq!(
                    (m.stats.requests, m.stats.texel_reads),
                    (11 * quads, 44 * quads),
                    "{mode:?}"
                );
                assert_eq!(
                    (m.stats.reg_writes, m.stats.dup_dropped),
                    (writes * quads, dup * quads),
                    "model {mode:?}"
                );
                if border == Border::Clamp || mode == Mode::Selective {
                    let g = rtl_matches_the_model(&img, &k, "19x1", mode, border, stall, 3, &want);
                    assert_eq!(
                        (g.reg_writes, g.dup_dropped),
                        (writes * quads, dup * quads),
                        "rtl {mode:?}"
                    );
                }
            }
        }
    }

    /// Figures of the three modes on a 64×64 gauss3 (RTL): `cargo test -p rendergen-gen --lib
    /// conv::broadcast::tests::measure -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn measure_64x64_gauss3() {
        let img = scene(64, 64, 1);
        let k = Kernel::preset("gauss3").unwrap();
        for mode in [
            Mode::Baseline,
            Mode::Collective,
            Mode::Selective,
            Mode::Shared,
        ] {
            let t = std::time::Instant::now();
            let got =
                rtl::run_rtl(&img, &k, mode, Border::Clamp, &rtl::RtlOptions::default()).unwrap();
            assert_eq!(got.image.texels, reference(&img, &k, Border::Clamp));
            println!(
                "{mode:?} {} ({:.1} s)",
                stats_json(&got.stats),
                t.elapsed().as_secs_f64()
            );
        }
    }
}
