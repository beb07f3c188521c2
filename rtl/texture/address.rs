//! `tex_address`: a quad becomes its footprints (one per active lane and level), each with its
//! level, fractions and wrapped columns and rows.

use super::{Carry, FootOp, FootPos, QuadOp, TexCfg, TexDescPort};
use crate::stream::stages::pipeline;
use rendergen_hdl::{
    cat_lsb_first, index_select, lowest_index, lowest_set, name_lets, Bundle, Io, Module, Sig,
    Stream,
};

/// What [`tex_address`] takes.
#[derive(Io)]
pub struct AddrIn {
    /// Quads with their levels.
    pub quads: Stream<QuadOp>,
    /// The bound texture.
    pub desc: TexDescPort,
}

/// What [`tex_address`] gives.
#[derive(Io)]
pub struct AddrOut {
    /// Footprints in order.
    pub feet: Stream<FootOp>,
}

/// One footprint picked by the sequencer, before its address arithmetic.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct SeqOp<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position in the quad.
    pub pos: FootPos<T>,
    /// Level to read.
    pub level: T,
    /// Bilinear filter.
    pub filter: T,
    /// Integer coordinates.
    pub int_coords: T,
    /// The lane's s, t (Q16.16 level-0 texels, or integers).
    pub st: Vec<T>,
    /// The lane's offsets (4 bits each).
    pub off: Vec<T>,
}

/// After the first address stage: unwrapped footprint origin and sizes of the level.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct Unwrapped<T = Sig> {
    /// Tags.
    pub tag: Carry<T>,
    /// Position.
    pub pos: FootPos<T>,
    /// Level.
    pub level: T,
    /// Fractions.
    pub fx: T,
    /// See `fx`.
    pub fy: T,
    /// `i0`, `j0` (34-bit signed).
    pub origin: Vec<T>,
    /// log2 of the level's width and height.
    pub size: Vec<T>,
    /// Texels with a non-zero weight.
    pub need: T,
}

/// Wraps signed `i` into `0 .. 2^log2` (`mode`: 0 repeat, 1 clamp, 2 mirrored repeat, 3
/// clamp to border, which clamps): `width` bits out, and whether `i` is outside the level in
/// mode 3 (model: `rendergen_sim::models::texture::{wrap, outside}`).
#[name_lets]
pub fn wrap(m: &mut Module, i: Sig, log2: Sig, mode: Sig, width: u32) -> (Sig, Sig) {
    let w = i.width();
    let size_mask = m.lit(1, w).shl(log2) - 1;
    let repeat = i & size_mask;
    let beyond = i.msb() | i.gt(size_mask);
    let clamp = i.msb().mux(0, i.gt(size_mask).mux(size_mask, i));
    let t = i & ((size_mask << 1) | 1);
    let mirror = t.le(size_mask).mux(t, !t & size_mask);
    let r = mode.eq(2).mux(mirror, mode.eq(0).mux(repeat, clamp));
    (r.bits(width - 1, 0), mode.eq(3) & beyond)
}

/// Expands quads into footprints, one per clock, and computes their texel coordinates.
///
/// * **Protocol:** stream rules; footprints in quad order, lanes in order, the finer level
///   first; the last footprint of a quad is marked `last`; a quad with no active lane gives one
///   footprint with `fetch` 0.
/// * **Timing:** the sequencer takes the next quad in the clock its last footprint leaves
///   (initiation interval 1 footprint); the arithmetic is a 2-stage [`pipeline`] (latency 3).
/// * **Cost:** a quad register, 4 × 34-bit adders and 4 wrap units.
#[name_lets]
pub fn tex_address(m: &mut Module, cfg: &TexCfg, i: AddrIn) -> AddrOut {
    let d = i.desc;
    let (qv, q, q_ready) = i.quads.split();
    let busy = m.reg("busy", 1).reset(0);
    let todo = m.reg("todo", 8).reset(0);
    let empty_quad = m.reg("empty_quad", 1).reset(0);
    let out_ready = m.wire("seq_ready", 1);
    let pick = lowest_set(todo.q());
    let rest = todo.q() & !pick;
    let last = rest.eq(0);
    let fire = busy.q() & out_ready.sig();
    let take = !busy.q() | (fire & last);
    let load = qv & take;
    q_ready.drive(take);
    let lane_bits: Vec<Sig> = (0..8)
        .map(|b| {
            let on = q.tag.mask.bit(b / 2);
            if b % 2 == 0 {
                on
            } else {
                on & q.two
            }
        })
        .collect();
    let init = cat_lsb_first(&lane_bits);
    let no_lane = init.eq(0);
    busy.next(load | (busy.q() & !(fire & last)));
    todo.next(load.mux(no_lane.mux(1, init), fire.mux(rest, todo.q())));
    empty_quad.next_when(load, no_lane);
    let cur = m.reg_bundle("cur", &q, Some(load));
    let idx = lowest_index(pick);
    let lane = idx.bits(2, 1);
    let second = idx.bit(0);
    let op = SeqOp {
        tag: cur.tag.clone(),
        pos: FootPos {
            lane,
            second,
            last,
            fetch: !empty_quad.q(),
            delta: cur.delta,
            two: cur.two,
            comp: cur.comp,
        },
        level: cur.tag.level + second.zext(4),
        filter: cur.filter,
        int_coords: cur.int_coords,
        st: vec![index_select(lane, &cur.s), index_select(lane, &cur.t)],
        off: vec![
            index_select(
                lane,
                &[
                    cur.offsets[0],
                    cur.offsets[2],
                    cur.offsets[4],
                    cur.offsets[6],
                ],
            ),
            index_select(
                lane,
                &[
                    cur.offsets[1],
                    cur.offsets[3],
                    cur.offsets[5],
                    cur.offsets[7],
                ],
            ),
        ],
    };
    let (seq, seq_ready) = Stream::offer(m, "seq", busy.q(), op);
    out_ready.drive(seq_ready);
    let cw = cfg.coord_width();
    let feet = pipeline(m, "addr", seq, |m, st, o| {
        let filtered = o.tag.mode.eq(0);
        let nearest = filtered & !o.filter;
        let log2s = [d.log2_w, d.log2_h];
        let mut origin = Vec::new();
        let mut fr = Vec::new();
        let mut size = Vec::new();
        for (a, &log2) in log2s.iter().enumerate() {
            let beyond = o.level.ge(log2);
            let shift = beyond.mux(log2, o.level);
            size.push(beyond.mux(0, log2 - o.level));
            let u = o.st[a].sra(shift).sext(34);
            let v = u - 0x8000; // 34 bits: no overflow at the most negative coordinate
            let i_lin = v.sra_const(16);
            let i_near = u.sra_const(16);
            let use_int = o.int_coords;
            let i0 = use_int.mux(o.st[a].sext(34), nearest.mux(i_near, i_lin));
            let f = (use_int | nearest).mux(0, v.bits(15, 8));
            origin.push(i0 + o.off[a].sext(34));
            fr.push(f);
        }
        let fx_on = fr[0].ne(0);
        let fy_on = fr[1].ne(0);
        let bilinear_need = cat_lsb_first(&[m.lit(1, 1), fx_on, fy_on, fx_on & fy_on]);
        let need = o
            .pos
            .fetch
            .mux((!filtered).mux(0xF, bilinear_need), m.lit(0, 4));
        let u1 = st.stage(
            m,
            "unwrapped",
            &Unwrapped {
                tag: o.tag,
                pos: o.pos,
                level: o.level,
                fx: fr[0],
                fy: fr[1],
                origin,
                size,
                need,
            },
        );
        let modes = [d.wrap_s, d.wrap_t];
        let mut coords: [Vec<Sig>; 2] = [Vec::new(), Vec::new()];
        let mut out: [Vec<Sig>; 2] = [Vec::new(), Vec::new()];
        for a in 0..2 {
            for k in 0..2u32 {
                let c = u1.origin[a] + k;
                let (wrapped, outside) = wrap(m, c, u1.size[a], modes[a], cw);
                coords[a].push(wrapped);
                out[a].push(outside);
            }
        }
        let [x, y] = coords;
        let border = cat_lsb_first(
            &(0..4)
                .map(|p| out[0][p & 1] | out[1][p >> 1])
                .collect::<Vec<_>>(),
        );
        st.stage(
            m,
            "foot",
            &FootOp {
                tag: u1.tag.clone(),
                pos: u1.pos.clone(),
                level: u1.level,
                fx: u1.fx,
                fy: u1.fy,
                x,
                y,
                need: u1.need & !border,
                border,
            },
        )
    });
    AddrOut { feet }
}
