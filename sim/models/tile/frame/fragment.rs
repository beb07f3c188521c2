//! Fragment shading of a triangle's passing quads and the write-out of a tile.
use super::*;

/// A shaded quad: packed colours per render target and pixel, lanes to write, D24 depth per
/// pixel (the exported `gl_FragDepth`, or the quad's own).
pub(super) type Shaded = (Quad, Vec<Option<[u64; 4]>>, u32, [u32; 4]);

/// Fragment shading of the passing quads of one triangle: per quad, the packed colour per
/// render target and pixel, and the lanes to write; `texture` is the mesh's, with its region.
#[allow(clippy::too_many_arguments)]
pub(super) fn shade_quads(
    pass: &Pass,
    m: &Mesh,
    texture: Option<(&Texture, RegionId)>,
    tri: &crate::models::tile::setup::TriSetup,
    vary: &[&[u32]; 3],
    passing: &[(Quad, u32)],
    mem: &mut Memory,
    st: &mut TileStats,
) -> Result<Vec<Shaded>, FrameError> {
    let s = pass.samples;
    // Work items: (quad index, sample or None, lanes-to-write mask, helper pixels).
    let mut items: Vec<(usize, Option<u32>, u32, u8)> = Vec::new();
    for (qi, (_, mask)) in passing.iter().enumerate() {
        let pixel_mask = |smp: Option<u32>| -> u8 {
            (0..4).fold(0, |acc, p| {
                let hit = match smp {
                    None => (0..s).any(|k| mask >> (p * s + k) & 1 != 0),
                    Some(k) => mask >> (p * s + k) & 1 != 0,
                };
                acc | (hit as u8) << p
            })
        };
        if m.sample_shading {
            for k in 0..s {
                let pm = pixel_mask(Some(k));
                if pm != 0 {
                    let lanes = (0..4).fold(0, |a, p| a | (mask & 1 << (p * s + k)));
                    items.push((qi, Some(k), lanes, !pm & 0xF));
                }
            }
        } else {
            items.push((qi, None, *mask, !pixel_mask(None) & 0xF));
        }
    }
    let (ox, oy) = (
        st.tile.0 as f32 * TILE as f32,
        st.tile.1 as f32 * TILE as f32,
    );
    let mut out = Vec::with_capacity(items.len());
    for chunk in items.chunks(16) {
        let mut launch = Launch::new(chunk.len());
        for (i, &(qi, smp, _, helpers)) in chunk.iter().enumerate() {
            let q = &passing[qi].0;
            launch.helpers |= (helpers as u64) << (4 * i);
            for p in 0..4usize {
                let f = q.edge[p].map(edge_f32);
                let b = barycentrics(f, tri.rw);
                let px = 2 * q.qx + (p as u32 & 1);
                let py = 2 * q.qy + (p as u32 >> 1);
                let lane_depth = q.depth[p * s as usize + smp.unwrap_or(0) as usize];
                let mut regs = vec![0u32; 8 + 4 * m.varyings as usize];
                regs[0] = (ox + px as f32 + 0.5).to_bits();
                regs[1] = (oy + py as f32 + 0.5).to_bits();
                regs[2] = ((lane_depth as f64 / DEPTH_MAX as f64) as f32).to_bits();
                regs[3] = interpolate(b, tri.rw.map(f32::to_bits));
                regs[4] = tri.front as u32;
                regs[5] = smp.unwrap_or(0);
                for k in 0..4 * m.varyings as usize {
                    regs[8 + k] = interpolate(b, [vary[0][k], vary[1][k], vary[2][k]]);
                }
                launch.regs.push(regs);
            }
        }
        let mut env = PassEnv {
            mem,
            buffers: &pass.buffers,
            uniforms: &m.fragment.uniforms,
            images: &pass.images,
            texture,
            tile: None,
            formats: &[],
            modes: None,
            threads: &[],
            tile_xy: st.tile,
            error: None,
        };
        let (exports, executed) = run_warp(
            &m.fragment,
            &launch,
            &mut env,
            &format!("mesh `{}` fragment shader", m.name),
        )?;
        st.cycles_fragment += executed;
        st.instructions += executed;
        for (i, &(qi, _, lanes, helpers)) in chunk.iter().enumerate() {
            st.fragments += (!helpers & 0xF).count_ones();
            let colours = (0..pass.targets.len())
                .map(|rt| {
                    let mut any = false;
                    let px: [u64; 4] = std::array::from_fn(|p| {
                        let e = &exports[4 * i + p];
                        match e.get(&(rt as u32)) {
                            Some(w) => {
                                any = true;
                                let mut v = [0, 0, 0, 1f32.to_bits()];
                                v[..w.len()].copy_from_slice(w);
                                pack::pack(pass.targets[rt].format, v)
                            }
                            None => 0,
                        }
                    });
                    any.then_some(px)
                })
                .collect();
            // A discarded lane exports nothing: drop its pixel's lanes.
            let mut write = lanes;
            for p in 0..4 {
                if exports[4 * i + p].is_empty() {
                    for k in 0..s {
                        write &= !(1 << (p as u32 * s + k));
                    }
                }
            }
            let q = &passing[qi].0;
            let depth = std::array::from_fn(|p| match exports[4 * i + p].get(&0x101) {
                Some(z) => {
                    let z = f32::from_bits(z[0]);
                    let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
                    (z as f64 * DEPTH_MAX as f64).round() as u32
                }
                None => q.depth[p * s as usize],
            });
            out.push((q.clone(), colours, write, depth));
        }
    }
    Ok(out)
}

/// Write-out of one tile; returns the bytes written.
pub(super) fn write_out(
    pass: &Pass,
    tb: &TileBuffer,
    (tx, ty): (u32, u32),
    static_modes: &[WriteMode],
    modes: &[WriteMode],
    surfaces: &[Option<Surface>],
    mem: &mut Memory,
) -> Result<u64, FrameError> {
    let mut written = 0;
    for (p, surf) in surfaces.iter().enumerate() {
        let Some(surf) = surf else { continue };
        let mode = modes[p];
        if mode == WriteMode::Off {
            continue;
        }
        if mode.stored_samples(pass.samples) != surf.samples {
            return Err(cfg(format!(
                "tile ({tx}, {ty}): plane {p} write-out mode {mode:?} does not fit its surface \
                 (static mode {:?})",
                static_modes[p]
            )));
        }
        if let WriteMode::Sample(s) = mode {
            if s >= pass.samples {
                return Err(cfg(format!(
                    "tile ({tx}, {ty}): plane {p} write-out selects sample {s} of {}",
                    pass.samples
                )));
            }
        }
        let n = pack::bytes_per_sample(surf.format);
        for py in 0..16 {
            let y = ty * 16 + py;
            if y >= pass.height {
                break;
            }
            let x0 = tx * 16;
            let w = 16.min(pass.width - x0);
            let mut row = Vec::with_capacity((w * surf.samples) as usize * n);
            for px in 0..w {
                let samples = tb.read_pixel(p, px, py);
                let vals: Vec<u64> = match mode {
                    WriteMode::All => samples,
                    WriteMode::Sample(s) => vec![samples[s as usize]],
                    _ => vec![pack::average(surf.format, &samples)],
                };
                for v in vals {
                    row.extend_from_slice(&v.to_le_bytes()[..n]);
                }
            }
            mem.write(mem.base(surf.region) + surf.offset(x0, y, 0), &row)?;
            written += row.len() as u64;
        }
    }
    Ok(written)
}
