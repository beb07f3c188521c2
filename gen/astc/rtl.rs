//! Decoding a whole image through the ASTC_DP RTL, cycle by cycle.

use super::{Decoded, RowSink};
use rendergen_hdl::Bits;
use rendergen_rtl::astc::dp::{
    astc_dp_top, DpCfg, Footprint as DpFootprint, Profile as DpProfile, Profiles,
};
use rendergen_sim::models::astc::{AstcFile, Profile, Texel, TexelEncoding};
use rendergen_sim::Simulator;

fn dp_profile(p: Profile) -> DpProfile {
    match p {
        Profile::LdrLinear => DpProfile::LdrLinear,
        Profile::LdrSrgb => DpProfile::LdrSrgb,
        Profile::Hdr => DpProfile::Hdr,
    }
}

/// Decodes every texel of `file` through ASTC_DP built for the file's footprint and `profile`
/// (the smallest hardware for the job): one request per texel in raster order, the response
/// stream always ready. Returns the texels (row-major) and the cycles simulated, reset included.
/// `progress(done, total)` is called as texels complete.
pub fn decode_rtl(
    file: &AstcFile,
    profile: Profile,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Decoded, String> {
    let mut texels = Vec::with_capacity(file.width as usize * file.height as usize);
    let total = file.width as u64 * file.height as u64;
    let cycles = decode_rtl_rows(file, profile, None, &mut |row: &[Texel]| {
        texels.extend_from_slice(row);
        progress(texels.len() as u64, total);
        Ok(())
    })?;
    Ok(Decoded {
        texels,
        cycles: Some(cycles),
    })
}

/// [`decode_rtl`] handing each row of texels to `row` as the last of its texels leaves the
/// pipeline (memory: one row), optionally writing a waveform; returns the cycles simulated.
pub fn decode_rtl_rows(
    file: &AstcFile,
    profile: Profile,
    vcd: Option<&crate::output::VcdOut>,
    row: &mut RowSink,
) -> Result<u64, String> {
    let (bw, bh) = (file.footprint.w(), file.footprint.h());
    let footprint = DpFootprint::new(bw, bh)
        .ok_or_else(|| format!("footprint {bw}x{bh} is not a 2D ASTC footprint"))?;
    let cfg = DpCfg {
        tag_width: 1,
        footprint: Some(footprint),
        profiles: Profiles::Only(dp_profile(profile)),
    };
    let design = astc_dp_top(&cfg).map_err(|e| e.to_string())?;
    let mut sim = Simulator::new(&design).map_err(|e| e.to_string())?;
    if let Some(v) = vcd {
        v.start(&mut sim)?;
    }
    let port = |n: &str| sim.input(n).map_err(|e| e.to_string());
    let (req_valid, block_in, x_in, y_in) = (
        port("req_valid")?,
        port("req_block")?,
        port("req_x")?,
        port("req_y")?,
    );
    let out = |n: &str| sim.output(n).map_err(|e| e.to_string());
    let (req_ready, resp_valid, rgba, error) = (
        out("req_ready")?,
        out("resp_valid")?,
        out("resp_rgba")?,
        out("resp_error")?,
    );
    sim.poke(port("resp_ready")?, 1);

    let (w, h) = (file.width, file.height);
    let total = w as u64 * h as u64;
    let encoding = if profile == Profile::Hdr {
        TexelEncoding::Fp16
    } else {
        TexelEncoding::Unorm16
    };
    let mut line = Vec::with_capacity(w as usize);
    let mut delivered = 0u64;
    let mut sent = 0u64;
    let mut current = u64::MAX; // index of the block on the request port
    sim.reset(1);
    while delivered < total {
        if sent < total {
            let (x, y) = ((sent % w as u64) as u32, (sent / w as u64) as u32);
            let index = (y / bh) as u64 * file.blocks_x() as u64 + (x / bw) as u64;
            if index != current {
                sim.poke_bits(
                    block_in,
                    &Bits::from_le_bytes(file.block(x / bw, y / bh), 128),
                );
                current = index;
            }
            sim.poke(x_in, (x % bw) as u64);
            sim.poke(y_in, (y % bh) as u64);
        }
        sim.poke(req_valid, (sent < total) as u64);
        if sent < total && sim.peek(req_ready) == 1 {
            sent += 1;
        }
        if sim.peek(resp_valid) == 1 {
            let v = sim.peek_bits(rgba).to_u64();
            let rgba16 = [
                v as u16,
                (v >> 16) as u16,
                (v >> 32) as u16,
                (v >> 48) as u16,
            ];
            line.push(Texel {
                rgba: rgba16,
                encoding,
                error: sim.peek(error) == 1,
            });
            delivered += 1;
            if line.len() == w as usize {
                row(&line)?;
                line.clear();
            }
        }
        sim.step();
        if sim.cycle() > 16 * total + 1000 {
            return Err(format!(
                "ASTC_DP stopped delivering after {delivered} of {total} texels"
            ));
        }
    }
    sim.finish_vcd()
        .map_err(|e| format!("writing the waveform: {e}"))?;
    if let Some(v) = vcd {
        v.finish()?;
    }
    Ok(sim.cycle())
}
