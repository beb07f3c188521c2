//! `tex_lod`: coordinates to Q16.16 texels, the quad's level of detail, the level(s) to read.

use super::{Carry, QuadOp, TexCfg, TexDescPort, TexRequest};
use crate::stream::stages::pipeline;
use rendergen_hdl::{cat, lut, name_lets, priority_select, Bundle, Io, Module, Sig, Stream};

/// What [`tex_lod`] takes.
#[derive(Io)]
pub struct LodIn {
    /// Quad requests.
    pub req: Stream<TexRequest>,
    /// The bound texture.
    pub desc: TexDescPort,
}

/// What [`tex_lod`] gives.
#[derive(Io)]
pub struct LodOut {
    /// Quads with their levels.
    pub quads: Stream<QuadOp>,
}

/// Binary32 `x` to `clamp_i32(floor(x · 2^(log2 + 16)))` (zeros, denormals and NaN give 0).
#[name_lets]
pub fn to_fixed(m: &mut Module, x: Sig, log2: Sig) -> Sig {
    let sign = x.bit(31);
    let e = x.bits(30, 23);
    let frac = x.bits(22, 0);
    let is_zero = e.eq(0);
    let is_special = e.eq(255);
    let is_nan = is_special & frac.ne(0);
    let mant = cat(&[m.lit(1, 1), frac]);
    // value = mant·2^(7 − r) with r = 141 − e − log2 (r < 0: beyond the i32 range)
    let r = m.lit(141, 10) - e.zext(10) - log2.zext(10);
    let too_big = r.msb() | is_special;
    let far = !r.msb() & r.gt(31);
    let amount = r.bits(4, 0);
    let wide = mant.zext(32) << 7;
    let shifted = wide.shr(amount);
    let lost = shifted.shl(amount).ne(wide);
    let mag = far.mux(0, shifted);
    let sticky = far | lost;
    let negative = -(mag + sticky.zext(32));
    let finite = sign.mux(negative, mag);
    let saturated = sign.mux(0x8000_0000u32, m.lit(0x7FFF_FFFF, 32));
    (is_zero | is_nan).mux(0, too_big.mux(saturated, finite))
}

/// `round(256 · log2(1 + i/128))`.
fn log2_table() -> Vec<u64> {
    (0..128)
        .map(|i| (256.0 * (1.0 + i as f64 / 128.0).log2()).round() as u64)
        .collect()
}

/// Quad requests to [`QuadOp`]s: level of detail and level choice (model:
/// `rendergen_sim::models::texture::{lod_q8, select_levels}`).
///
/// * **Protocol:** a [`pipeline`]: stream rules, order kept, nothing dropped.
/// * **Timing:** 3 stages + skid: latency 4, initiation interval 1.
/// * **Cost:** 8 float→fixed converters (shifter each), 4 squarers of 21 bits, the λ clamp
///   (two 18-bit signed compares) and base-level add, a 43-bit
///   leading-one finder, a 128 × 8 table.
#[name_lets]
pub fn tex_lod(m: &mut Module, _cfg: &TexCfg, i: LodIn) -> LodOut {
    let d = i.desc;
    let quads = pipeline(m, "lod", i.req, |m, st, r| {
        // Stage 1: fixed-point coordinates (integers pass through).
        let s: Vec<Sig> = (0..4)
            .map(|k| {
                r.int_coords
                    .mux(r.coords[2 * k], to_fixed(m, r.coords[2 * k], d.log2_w))
            })
            .collect();
        let t: Vec<Sig> = (0..4)
            .map(|k| {
                r.int_coords.mux(
                    r.coords[2 * k + 1],
                    to_fixed(m, r.coords[2 * k + 1], d.log2_h),
                )
            })
            .collect();
        let tag = Carry {
            slot: r.slot,
            quad: r.quad,
            mask: r.mask,
            mode: r.mode,
            patch: r.patch,
            subop: r.subop,
            level: m.lit(0, 4),
        };
        let q1 = st.stage(
            m,
            "fixed",
            &Stage1 {
                tag,
                s,
                t,
                r_rest: Rest {
                    int_coords: r.int_coords,
                    offsets: r.offsets,
                    lod: r.lod,
                    explicit: r.explicit_lod | r.int_coords,
                    filter: r.filter,
                    mip: r.mip,
                    comp: r.comp,
                },
            },
        );
        // Stage 2: derivatives and the larger squared length.
        let deriv = |a: Sig, b: Sig| {
            let diff = a.sext(33) - b.sext(33);
            let q = diff.sra_const(8);
            let neg = q.msb();
            let mag = neg.mux(-q, q);
            mag.gt(1u64 << 20).mux(1u64 << 20, mag).bits(20, 0)
        };
        let sq = |v: Sig| v.mul_full(v).zext(43);
        let len_x = sq(deriv(q1.s[1], q1.s[0])) + sq(deriv(q1.t[1], q1.t[0]));
        let len_y = sq(deriv(q1.s[2], q1.s[0])) + sq(deriv(q1.t[2], q1.t[0]));
        let p = len_x.gt(len_y).mux(len_x, len_y);
        let q2 = st.stage(m, "deriv", &Stage2 { s1: q1.clone(), p });
        // Stage 3: λ and the levels.
        let p = q2.p;
        let choices: Vec<(Sig, Sig)> = (0..43u32)
            .rev()
            .map(|b| (p.bit(b), m.lit(b as u64, 6)))
            .collect();
        let n = priority_select(&choices, m.lit(0, 6));
        let norm = p.shl(m.lit(42, 6) - n);
        let f7 = norm.bits(41, 35);
        let frac = lut(f7, &log2_table(), 8);
        let log2p = cat(&[n.zext(10) - 16, frac]).bits(17, 0); // (n − 16)·256 + frac, 18 bits signed
        let bias = q2.s1.r_rest.lod.sext(18);
        let implicit = p.eq(0).mux(m.lit(0x30000, 18), log2p.sra_const(1)) + bias;
        let given = q2.s1.r_rest.explicit.mux(bias, implicit);
        let (min_lod, max_lod) = (d.min_lod.sext(18), d.max_lod.sext(18));
        let raised = given.slt(min_lod).mux(min_lod, given);
        let clamped = max_lod.slt(raised).mux(max_lod, raised);
        // texelFetch (integer coordinates) ignores the sampler's clamp.
        let lambda = q2.s1.r_rest.int_coords.mux(given, clamped);
        let last = d.mips.zext(18) - 1;
        let base = d.base_level.zext(18);
        let base = base.gt(last).mux(last, base);
        let qmax = last - base;
        let neg = lambda.msb();
        let whole = lambda.sra_const(8);
        let nearest_up = (lambda + 127).sra_const(8);
        let nearest = (neg | lambda.le(128)).mux(0, nearest_up.gt(qmax).mux(qmax, nearest_up));
        let delta = lambda.bits(7, 0);
        let lin_pos = !neg & lambda.ne(0);
        let lin_clamped = whole.ge(qmax);
        let int_level = neg.mux(0, whole.gt(qmax).mux(qmax, whole));
        let mode_filtered = q2.s1.tag.mode.eq(0);
        let mip = q2.s1.r_rest.mip;
        let linear = mip.eq(2) & mode_filtered & !q2.s1.r_rest.int_coords;
        let level = priority_select(
            &[
                (q2.s1.r_rest.int_coords, int_level),
                (mip.eq(0), m.lit(0, 18)),
                (linear, (!lin_pos).mux(0, lin_clamped.mux(qmax, whole))),
            ],
            nearest,
        );
        let two = linear & lin_pos & !lin_clamped & delta.ne(0);
        let mut tag = q2.s1.tag.clone();
        tag.level = (level + base).bits(3, 0);
        let op = QuadOp {
            tag,
            comp: q2.s1.r_rest.comp,
            filter: q2.s1.r_rest.filter,
            int_coords: q2.s1.r_rest.int_coords,
            s: q2.s1.s.clone(),
            t: q2.s1.t.clone(),
            offsets: q2.s1.r_rest.offsets.clone(),
            delta: two.mux(delta, m.lit(0, 8)),
            two,
        };
        st.stage(m, "level", &op)
    });
    LodOut { quads }
}

/// Fields of the request that ride through the LOD stages.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Rest<T = Sig> {
    /// Integer coordinates.
    pub int_coords: T,
    /// Offsets.
    pub offsets: Vec<T>,
    /// Bias or LOD.
    pub lod: T,
    /// `lod` is the LOD.
    pub explicit: T,
    /// Bilinear.
    pub filter: T,
    /// Mip mode.
    pub mip: T,
    /// Gathered component.
    pub comp: T,
}

/// After stage 1.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Stage1<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Fixed s.
    pub s: Vec<T>,
    /// Fixed t.
    pub t: Vec<T>,
    /// The rest.
    pub r_rest: Rest<T>,
}

/// After stage 2.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Stage2<T = Sig> {
    /// Stage 1's values.
    pub s1: Stage1<T>,
    /// Larger squared derivative length (Q.16, 43 bits).
    pub p: T,
}
