//! `tex_filter`: texel expansion (UNORM, sRGB), the bilinear filter, gather and the raw bypass.

use super::{counter, lerp16, Carry, FootData, FootPos, LaneResult, TexCfg};
use crate::stream::stages::pipeline;
use rendergen_hdl::{cat, index_select, lut, name_lets, Bundle, Io, Module, Sig, Stream};

/// What [`tex_filter`] takes.
#[derive(Io)]
pub struct FilterIn {
    /// Footprints with their texels.
    pub data: Stream<FootData>,
    /// The texture is sRGB.
    pub srgb: Sig,
}

/// What [`tex_filter`] gives.
#[derive(Io)]
pub struct FilterOut {
    /// One lane's words per footprint.
    pub lanes: Stream<LaneResult>,
    /// Footprints through the filter.
    pub active: Sig,
    /// Footprints that bypassed it.
    pub idle: Sig,
}

/// sRGB code → linear light, 16-bit UNORM (`round(65535 · EOTF(c/255))`).
pub fn srgb_table() -> Vec<u64> {
    (0..256)
        .map(|c| {
            let v = c as f64 / 255.0;
            let l = if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            };
            (l * 65535.0).round() as u64
        })
        .collect()
}

/// What [`srgb_to_linear`] takes.
#[derive(Io)]
pub struct SrgbIn {
    /// sRGB code (8 bits).
    pub code: Sig,
}

/// What [`srgb_to_linear`] gives.
#[derive(Io)]
pub struct SrgbOut {
    /// Linear light, 16-bit UNORM.
    pub linear: Sig,
}

/// One sRGB channel to linear light: a 256 × 16 table ([`srgb_table`]), no state.
pub fn srgb_to_linear(_m: &mut Module, _cfg: &(), i: SrgbIn) -> SrgbOut {
    SrgbOut {
        linear: lut(i.code, &srgb_table(), 16),
    }
}

/// After expansion.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Expanded<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position.
    pub pos: FootPos<T>,
    /// Fractions.
    pub fx: T,
    /// See `fx`.
    pub fy: T,
    /// Texel `p`'s channel `c` at `4p + c` (16 bits).
    pub ex: Vec<T>,
    /// The raw texels.
    pub raw: Vec<T>,
}

/// After the horizontal lerps.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Rows<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position.
    pub pos: FootPos<T>,
    /// Vertical fraction.
    pub fy: T,
    /// Top row, 4 channels.
    pub top: Vec<T>,
    /// Bottom row, 4 channels.
    pub bot: Vec<T>,
    /// Gathered component of `(i0,j1), (i1,j1), (i1,j0), (i0,j0)`.
    pub gather: Vec<T>,
    /// The raw texels.
    pub raw: Vec<T>,
}

/// Expands, filters or bypasses one footprint per clock.
///
/// * **Protocol:** a [`pipeline`]: stream rules, order kept.
/// * **Timing:** 3 stages + skid: latency 4, initiation interval 1.
/// * **Cost:** 12 sRGB tables (256 × 16), 12 lerps of 17 × 9 bits, the pipeline registers.
#[name_lets]
pub fn tex_filter(m: &mut Module, _cfg: &TexCfg, i: FilterIn) -> FilterOut {
    let srgb = i.srgb;
    let active = m.wire("active_inc", 1);
    let idle = m.wire("idle_inc", 1);
    let lanes = pipeline(m, "filter", i.data, |m, st, d| {
        let accept = st.en() & st.valid();
        let fetch = accept & d.pos.fetch;
        let filtered = d.tag.mode.eq(0);
        active.drive(fetch & filtered);
        idle.drive(fetch & !filtered);
        let mut ex = Vec::new();
        for p in 0..4 {
            for c in 0..4u32 {
                let v = d.texels[p].bits(8 * c + 7, 8 * c);
                let unorm = cat(&[v, v]);
                let e = if c < 3 {
                    let lin = m.child(
                        &format!("srgb[{}]", 3 * p + c as usize),
                        &(),
                        SrgbIn { code: v },
                        srgb_to_linear,
                    );
                    srgb.mux(lin.linear, unorm)
                } else {
                    unorm
                };
                ex.push(e);
            }
        }
        let e1 = st.stage(
            m,
            "expanded",
            &Expanded {
                tag: d.tag,
                pos: d.pos,
                fx: d.fx,
                fy: d.fy,
                ex,
                raw: d.texels,
            },
        );
        let ch = |p: usize, c: usize| e1.ex[4 * p + c];
        let top: Vec<Sig> = (0..4).map(|c| lerp16(ch(0, c), ch(1, c), e1.fx)).collect();
        let bot: Vec<Sig> = (0..4).map(|c| lerp16(ch(2, c), ch(3, c), e1.fx)).collect();
        let gather: Vec<Sig> = [2usize, 3, 1, 0]
            .iter()
            .map(|&p| index_select(e1.pos.comp, &[ch(p, 0), ch(p, 1), ch(p, 2), ch(p, 3)]))
            .collect();
        let e2 = st.stage(
            m,
            "rows",
            &Rows {
                tag: e1.tag.clone(),
                pos: e1.pos.clone(),
                fy: e1.fy,
                top,
                bot,
                gather,
                raw: e1.raw.clone(),
            },
        );
        let mode = e2.tag.mode;
        let words: Vec<Sig> = (0..4)
            .map(|c| {
                let f = lerp16(e2.top[c], e2.bot[c], e2.fy).zext(32);
                mode.eq(0)
                    .mux(f, mode.eq(1).mux(e2.raw[c], e2.gather[c].zext(32)))
            })
            .collect();
        st.stage(
            m,
            "lane",
            &LaneResult {
                tag: e2.tag.clone(),
                pos: e2.pos.clone(),
                words,
            },
        )
    });
    let active_count = counter(m, "filter_active", active.sig(), 32);
    let idle_count = counter(m, "filter_idle", idle.sig(), 32);
    FilterOut {
        lanes,
        active: active_count,
        idle: idle_count,
    }
}
