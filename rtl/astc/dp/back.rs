//! Pipeline stages F and G and the output conversion: endpoint modes, plane weights,
//! interpolation, void-extent and error colours, FP16 and 8-bit forms.

use super::convert::{fp16_to_unorm8, is_nan, lns_to_fp16, quiet_nan, unorm16_to_fp16};
use super::endpoints::{decode, Endpoints};
use super::interp::channel;
use super::middle::{Carry, StageDE};
use super::types::{DpResp, Profile, Profiles};
use super::weights::combine;
use super::DpCfg;
use rendergen_hdl::{cat, lut, name_lets, Bundle, Module, Sig};

/// The profile as (hdr, srgb, supported) flags: from the carried field or the fixed profile.
#[name_lets]
fn profile_flags(m: &mut Module, cfg: &DpCfg, field: Option<Sig>) -> (Sig, Sig, Sig) {
    let one = m.lit(1, 1);
    match (cfg.profiles, field) {
        (Profiles::Only(p), _) => (
            m.lit((p == Profile::Hdr) as u64, 1),
            m.lit((p == Profile::LdrSrgb) as u64, 1),
            one,
        ),
        (all_or_ldr, Some(f)) => {
            let hdr = f.bit(1);
            let supported = if all_or_ldr == Profiles::Ldr {
                !hdr
            } else {
                one
            };
            (hdr, !hdr & f.bit(0), supported)
        }
        (_, None) => unreachable!("profile field present unless the profile is fixed"),
    }
}

/// After stage F: the texel's partition endpoints and its weight per plane.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct StageF<T = Sig> {
    endpoints: T,
    plane_weight: [T; 2],
    hdr_cem: T,
    carry: Carry<T>,
}

/// Stage F: decodes the endpoint mode and forms the texel's weight on each plane.
#[name_lets]
pub fn stage_f(m: &mut Module, cfg: &DpCfg, e: &StageDE) -> StageF {
    let c = &e.carry;
    let with_hdr = cfg.profiles != Profiles::Ldr
        && !matches!(
            cfg.profiles,
            Profiles::Only(Profile::LdrLinear | Profile::LdrSrgb)
        );
    let ep = decode(m, c.cem, &e.colour, with_hdr);
    let plane = |pl: usize| {
        let p: [Sig; 4] = std::array::from_fn(|k| e.weight[2 * k + pl]);
        combine(&p, &c.factor)
    };
    // Without dual plane the weight indices are the plain corner indices on both "planes".
    StageF {
        endpoints: ep.pack(),
        plane_weight: [plane(0), plane(1)],
        hdr_cem: lut(c.cem, &[0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1], 1),
        carry: *c,
    }
}

/// After stage G: one 16-bit value per channel and what it holds.
#[derive(Bundle, Clone, Copy, Debug, PartialEq)]
pub struct StageG<T = Sig> {
    value: [T; 4],
    lns: T,
    fp16: T,
    error: T,
    magenta: T,
    profile: Option<T>,
    tag: T,
}

/// Stage G: interpolates each channel (the CCS channel with the plane-2 weight) or takes the
/// void-extent colour, and classifies errors.
#[name_lets]
pub fn stage_g(m: &mut Module, cfg: &DpCfg, f: &StageF) -> StageG {
    let c = &f.carry;
    let (hdr, srgb, supported) = profile_flags(m, cfg, c.profile);
    let ep = Endpoints::unpack(f.endpoints);
    let normal = !c.is_void & !c.illegal;
    let lns = ep.hdr & normal.repeat(4) & hdr.repeat(4);
    let value: [Sig; 4] = std::array::from_fn(|ch| {
        let second = c.dual & c.ccs.eq(ch as u64);
        let w = second.mux(f.plane_weight[1], f.plane_weight[0]);
        let interpolated = channel(ep.e0[ch], ep.e1[ch], w, lns.bit(ch as u32), srgb);
        let void = c.void_rgba.slice(16 * ch as u32, 16);
        let void = srgb.mux(cat(&[void.bits(15, 8), void.bits(15, 8)]), void);
        c.is_void.mux(void, interpolated)
    });
    // Errors: illegal block, HDR void extent in LDR, HDR endpoints in LDR, unsupported profile.
    let hdr_in_ldr = !hdr & (c.is_void & c.void_hdr | !c.is_void & f.hdr_cem);
    let error = c.illegal | hdr_in_ldr | !supported;
    // Whole-texel magenta (else astcenc's 0xFF00 form for HDR endpoints in LDR linear).
    let magenta = c.illegal | c.is_void | !supported | srgb;
    StageG {
        value,
        lns,
        fp16: c.is_void & c.void_hdr,
        error,
        magenta,
        profile: c.profile,
        tag: c.tag,
    }
}

/// The response: per-profile final RGBA (error colours applied), its 8-bit form.
#[name_lets]
pub fn output(m: &mut Module, cfg: &DpCfg, g: &StageG) -> DpResp {
    let (hdr, _srgb, _) = profile_flags(m, cfg, g.profile);
    let ffff = m.lit(0xFFFF, 16);
    let ff00 = m.lit(0xFF00, 16);
    let zero = m.lit(0, 16);
    let mut rgba = Vec::new();
    let mut rgba8 = Vec::new();
    let mut nan = Vec::new();
    for ch in 0..4 {
        let v = g.value[ch];
        let top = g.magenta.mux(ffff, ff00);
        let err_ldr = if ch == 1 { zero } else { top };
        let ldr = g.error.mux(err_ldr, v);
        let unorm = unorm16_to_fp16(m, hdr.mux(v, ldr));
        let hdr_value = g
            .lns
            .bit(ch as u32)
            .mux(lns_to_fp16(m, v), g.fp16.mux(quiet_nan(v), unorm));
        let hdr_value = g.error.mux(ffff, hdr_value);
        let h = hdr.mux(hdr_value, unorm);
        rgba.push(hdr.mux(hdr_value, ldr));
        rgba8.push(fp16_to_unorm8(m, h));
        nan.push(is_nan(h));
    }
    let any_nan = nan[0] | nan[1] | nan[2] | nan[3];
    let bytes = cat(&[rgba8[3], rgba8[2], rgba8[1], rgba8[0]]);
    let magenta8 = m.lit(0xFFFF_00FF, 32);
    DpResp {
        rgba: cat(&[rgba[3], rgba[2], rgba[1], rgba[0]]).named("rgba"),
        rgba8: any_nan.mux(magenta8, bytes).named("rgba8"),
        error: g.error,
        tag: g.tag,
    }
}
