//! Vulkan blending of one RGBA8 sample (the model's `buffer::blend_rgba8`, bit-exact).
use super::BlendBits;
use rendergen_hdl::{name_lets, select, Io, Module, Sig};

/// What [`blend_rgba8`] takes.
#[derive(Io)]
pub struct BlendIn {
    /// Source colour (R in bits 7:0 … A in 31:24).
    pub src: Sig,
    /// Stored colour.
    pub dst: Sig,
    /// Blend state.
    pub state: BlendBits,
}

/// What [`blend_rgba8`] gives.
#[derive(Io)]
pub struct BlendOut {
    /// Blended colour (the source when blending is off).
    pub colour: Sig,
}

/// `round(x / 255)` of a 16-bit `x ≤ 255²`: `(x + 128 + ((x + 128) >> 8)) >> 8`.
fn div255(x: Sig) -> Sig {
    let t = x.zext(17) + 128u32;
    ((t + (t >> 8)) >> 8).bits(7, 0)
}

/// The factor of `code` for channel `ch` (`VkBlendFactor`; unsupported codes give 0).
#[name_lets]
fn factor(m: &mut Module, code: Sig, ch: usize, s: &[Sig; 4], d: &[Sig; 4]) -> Sig {
    let (zero, one) = (m.lit(0, 8), m.lit(255, 8));
    let inv = |x: Sig| !x;
    let saturate = match ch {
        3 => one,
        _ => s[3].lt(inv(d[3])).mux(s[3], inv(d[3])),
    };
    let mut cases = vec![zero, one, s[ch], inv(s[ch]), d[ch], inv(d[ch])];
    cases.extend([
        s[3],
        inv(s[3]),
        d[3],
        inv(d[3]),
        zero,
        zero,
        zero,
        zero,
        saturate,
    ]);
    select(code, &cases, zero)
}

/// Blends `src` over `dst` per channel: `round(clamp(s·fs ± d·fd, 0, 255²) / 255)` on the
/// 8-bit UNORM values for ADD, SUBTRACT, REVERSE_SUBTRACT; `min`/`max` for MIN, MAX (other op
/// codes give ADD).
///
/// * **Timing:** combinational; two 8×8 multipliers, a 17-bit adder and a divide-by-255 by
///   shifts per channel.
/// * **Cost:** see `tile_buffer` (one instance per lane of each RGBA8 plane's write path).
#[name_lets]
pub fn blend_rgba8(m: &mut Module, _cfg: &(), i: BlendIn) -> BlendOut {
    let s: [Sig; 4] = std::array::from_fn(|c| i.src.bits(8 * c as u32 + 7, 8 * c as u32));
    let d: [Sig; 4] = std::array::from_fn(|c| i.dst.bits(8 * c as u32 + 7, 8 * c as u32));
    let st = &i.state;
    let mut out = Vec::new();
    for ch in 0..4 {
        let (op, fs, fd) = match ch {
            3 => (st.alpha_op, st.src_alpha, st.dst_alpha),
            _ => (st.colour_op, st.src_colour, st.dst_colour),
        };
        let sf = s[ch].mul_full(factor(m, fs, ch, &s, &d));
        let df = d[ch].mul_full(factor(m, fd, ch, &s, &d));
        let sum = sf.add_full(df);
        let add = sum
            .ge(255 * 255)
            .mux(m.lit(255, 8), div255(sum.bits(15, 0)));
        let sub = sf.gt(df).mux(div255(sf - df), m.lit(0, 8));
        let rsub = df.gt(sf).mux(div255(df - sf), m.lit(0, 8));
        let min = s[ch].lt(d[ch]).mux(s[ch], d[ch]);
        let max = s[ch].gt(d[ch]).mux(s[ch], d[ch]);
        out.push(select(op, &[add, sub, rsub, min, max], add));
    }
    let blended = rendergen_hdl::cat_lsb_first(&out);
    BlendOut {
        colour: st.enable.mux(blended, i.src),
    }
}
