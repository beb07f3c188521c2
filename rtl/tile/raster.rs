//! The rasteriser's front: walks a set-up triangle's quad bounding box, evaluates the edge
//! functions and the depth plane at every lane, and drops quads with no coverage.
use super::{EdgeSetup, QuadFrag, TileCfg, TriSetup, DEPTH_BITS, EDGE_BITS, ZC_BITS};
use crate::fp::fma::leading_zeros;
use crate::stream::stages::{pipeline, Stages};
use rendergen_hdl::{cat, cat_lsb_first, pack, unpack, Bundle, Module, Sig, Stream};

/// Sub-pixel offsets (1/256 pixel) of the samples inside a pixel (D7).
pub fn sample_offsets(samples: u32) -> &'static [(u64, u64)] {
    match samples {
        1 => &[(128, 128)],
        _ => &[(96, 32), (224, 96), (32, 160), (160, 224)],
    }
}

/// Offset of lane `lane` from the quad's top-left corner (sub-pixel units).
pub fn lane_offset(lane: usize, samples: u32) -> (u64, u64) {
    let (pixel, sample) = (lane / samples as usize, lane % samples as usize);
    let (ox, oy) = sample_offsets(samples)[sample];
    (
        ox + 256 * (pixel as u64 & 1),
        oy + 256 * (pixel as u64 >> 1),
    )
}

/// A quad position with the triangle it belongs to.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WalkQuad<T = Sig> {
    /// The triangle.
    pub tri: TriSetup<T>,
    /// Quad column.
    pub qx: T,
    /// Quad row.
    pub qy: T,
}

/// Quad values carried from the first evaluation stage to the second.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct QuadBase<T = Sig> {
    edge: [EdgeSetup<T>; 3],
    z: T,
    dzdx: T,
    dzdy: T,
    prim: T,
    state: T,
    front: T,
    rw: [T; 3],
    qx: T,
    qy: T,
    depth_op: T,
    depth_write: T,
}

/// A quad with coverage and what the depth test needs.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct CoveredQuad<T = Sig> {
    /// The fragments (coverage before the depth test).
    pub frag: QuadFrag<T>,
    /// `VkCompareOp`.
    pub depth_op: T,
    /// Depth write.
    pub depth_write: T,
}

/// `x · k` for a constant `k ≥ 0` by shifts and adds (x signed, result of x's width).
fn mul_const(m: &mut Module, x: Sig, k: u64) -> Sig {
    let mut acc = m.lit(0, x.width());
    for b in 0..16 {
        if k >> b & 1 == 1 {
            acc = acc + (x << b);
        }
    }
    acc
}

/// `(x · q) << 9` for a 3-bit quad index `q` (x signed, result of `width` bits).
fn quad_step(x: Sig, q: Sig, width: u32) -> Sig {
    let p = x.smul_full(q.zext(4));
    p.sext(width) << 9
}

/// The quads of row `qy` that may hold a covered sample (bit `qx`), inside the bounding box
/// columns: for each edge, the edge function at the corner of the quad's sample box where it is
/// largest must not be negative. Conservative (a quad flagged may still be empty), never
/// misses a covered quad.
fn row_mask(m: &mut Module, cfg: &TileCfg, t: &TriSetup, qy: Sig) -> Sig {
    // The box of the sample positions inside a quad (sub-pixel units from its corner).
    let offsets: Vec<(u64, u64)> = (0..cfg.lanes())
        .map(|l| lane_offset(l, cfg.samples))
        .collect();
    let lo = offsets.iter().map(|o| o.0.min(o.1)).min().unwrap_or(0);
    let hi = offsets.iter().map(|o| o.0.max(o.1)).max().unwrap_or(0);
    let mut may_cover = vec![m.lit(1, 1); 8];
    for e in &t.edge {
        let (a, b) = (e.a.sext(EDGE_BITS), e.b.sext(EDGE_BITS));
        let corner_x = a.msb().mux(mul_const(m, a, lo), mul_const(m, a, hi));
        let corner_y = b.msb().mux(mul_const(m, b, lo), mul_const(m, b, hi));
        let row = e.c + quad_step(e.b, qy, EDGE_BITS) + corner_x + corner_y;
        for (k, flag) in may_cover.iter_mut().enumerate() {
            let at = row + mul_const(m, a, 512 * k as u64);
            *flag = *flag & !at.msb();
        }
    }
    // bbox[0] ≤ k ≤ bbox[2], without the comparisons that are constant on 3 bits.
    let columns: Vec<Sig> = (0..8u64)
        .map(|k| match k {
            0 => t.bbox[0].eq(0),
            7 => t.bbox[2].eq(7),
            _ => t.bbox[0].le(k) & t.bbox[2].ge(k),
        })
        .collect();
    cat_lsb_first(&may_cover) & cat_lsb_first(&columns)
}

/// Walks each triangle's bounding box row by row, visiting only the quads `row_mask` flags:
/// one quad per clock while the triangle covers quads, one idle clock per row with none.
///
/// * **Protocol:** stream rules; a triangle is taken when the walker is idle or leaves the
///   last row of the previous one (no bubble between triangles); quads leave in row-major
///   order.
/// * **Timing:** `tri.ready` depends combinationally on `walk.ready`; the row mask of the next
///   row (or of a new triangle's first row) is computed combinationally from one shared
///   evaluator.
/// * **Cost:** a triangle register, a 3-bit row counter, an 8-bit row mask and the
///   evaluator (24 comparisons of 48-bit sums).
pub fn quad_walk(m: &mut Module, cfg: &TileCfg, tri: Stream<TriSetup>) -> Stream<WalkQuad> {
    let (in_valid, in_tri, in_ready) = tri.split();
    let busy = m.reg("busy", 1).reset(0);
    let qy = m.reg("qy", 3).reset(0);
    let mask = m.reg("row_left", 8).reset(0);
    let load = m.wire("load", 1);
    let t = m.reg_bundle("tri", &in_tri, Some(load.sig()));
    let qx = rendergen_hdl::lowest_index(mask.q());
    let out = WalkQuad {
        tri: t.clone(),
        qx,
        qy: qy.q(),
    };
    let has_quad = busy.q() & mask.q().any();
    let (quads, walk_ready) = Stream::offer(m, "walk", has_quad, out);
    let taken = has_quad & walk_ready;
    let left = taken.mux(mask.q() & !rendergen_hdl::lowest_set(mask.q()), mask.q());
    let row_done = busy.q() & left.eq(0);
    let last = row_done & qy.q().eq(t.bbox[3]);
    let free = !busy.q() | last;
    in_ready.drive(free);
    let take = in_valid & free;
    load.drive(take);
    busy.next(take | (busy.q() & !last));
    // One row-mask evaluator: a new triangle's first row, or the current one's next row.
    let row = take.mux(in_tri.bbox[1], qy.q() + 1);
    let pick: TriSetup = {
        let (a, b) = (pack(&in_tri), pack(&t));
        unpack(&TriSetup::shape(), take.mux(a, b))
    };
    let next_mask = row_mask(m, cfg, &pick, row);
    let advance = take | row_done;
    qy.next(advance.mux(row, qy.q()));
    mask.next(advance.mux(next_mask, left));
    quads
}

/// Evaluates a walked quad: stage 1 the edge functions and the depth plane at the quad's
/// corner, stage 2 every lane (coverage under the top-left rule, clamped D24 depth) and the
/// pixel centres' `E_0`, `E_1`, `E_2`, stage 3 those as binary32.
pub fn quad_eval(m: &mut Module, cfg: &TileCfg, st: &mut Stages, w: WalkQuad) -> CoveredQuad {
    let t = &w.tri;
    let edge: [EdgeSetup; 3] = std::array::from_fn(|i| {
        let e = &t.edge[i];
        EdgeSetup {
            a: e.a.sext(EDGE_BITS),
            b: e.b.sext(EDGE_BITS),
            c: e.c + quad_step(e.a, w.qx, EDGE_BITS) + quad_step(e.b, w.qy, EDGE_BITS),
            top_left: e.top_left,
        }
    });
    let base = QuadBase {
        edge,
        z: t.z_c + quad_step(t.dzdx, w.qx, ZC_BITS) + quad_step(t.dzdy, w.qy, ZC_BITS),
        dzdx: t.dzdx.sext(ZC_BITS),
        dzdy: t.dzdy.sext(ZC_BITS),
        prim: t.prim,
        state: t.state,
        front: t.front,
        rw: t.rw,
        qx: w.qx,
        qy: w.qy,
        depth_op: t.depth_op,
        depth_write: t.depth_write,
    };
    let b = st.stage(m, "base", &base);
    let at = |m: &mut Module, e: &EdgeSetup, (ox, oy): (u64, u64)| {
        let ax = mul_const(m, e.a, ox);
        let by = mul_const(m, e.b, oy);
        e.c + ax + by
    };
    let mut cover = Vec::new();
    let mut depth = Vec::new();
    for lane in 0..cfg.lanes() {
        let off = lane_offset(lane, cfg.samples);
        let mut inside = m.lit(1, 1);
        for e in &b.edge {
            let v = at(m, e, off);
            inside = inside & !v.msb() & (v.ne(0) | e.top_left);
        }
        cover.push(inside);
        let zx = mul_const(m, b.dzdx, off.0);
        let zy = mul_const(m, b.dzdy, off.1);
        let z = (b.z + zx + zy + (1u64 << 15)).sra_const(16);
        let max = (1u64 << DEPTH_BITS) - 1;
        let clamped = z.msb().mux(
            m.lit(0, DEPTH_BITS),
            z.sgt(max)
                .mux(m.lit(max, DEPTH_BITS), z.bits(DEPTH_BITS - 1, 0)),
        );
        depth.push(clamped);
    }
    let edge_at_centre: [[Sig; 3]; 4] = std::array::from_fn(|p| {
        let off = (128 + 256 * (p as u64 & 1), 128 + 256 * (p as u64 >> 1));
        std::array::from_fn(|i| at(m, &b.edge[i], off))
    });
    let lanes = CoveredQuad {
        frag: QuadFrag {
            prim: b.prim,
            state: b.state,
            front: b.front,
            rw: b.rw,
            qx: b.qx,
            qy: b.qy,
            coverage: cat_lsb_first(&cover),
            depth,
            bary: edge_at_centre,
            depth_op: b.depth_op,
            depth_write: b.depth_write,
            late: m.lit(0, 1),
        },
        depth_op: b.depth_op,
        depth_write: b.depth_write,
    };
    let l = st.stage(m, "lanes", &lanes);
    let bary = l.frag.bary.map(|p| p.map(|e| int_to_f32(m, e)));
    let out = CoveredQuad {
        frag: QuadFrag { bary, ..l.frag },
        ..l
    };
    st.stage(m, "bary", &out)
}

/// A signed integer (two's complement, at most 64 bits) as binary32, rounded to nearest even
/// (Rust's `as f32`): leading-zero count, normalising shift, round on guard and sticky bits.
pub fn int_to_f32(m: &mut Module, x: Sig) -> Sig {
    let w = x.width();
    let sign = x.msb();
    let magnitude = sign.mux(-x, x);
    let lz = leading_zeros(m, magnitude);
    let norm = magnitude.shl(lz);
    let mantissa = norm.bits(w - 2, w - 24);
    let guard = norm.bit(w - 25);
    let sticky = norm.bits(w - 26, 0).any();
    let round_up = guard & (sticky | mantissa.bit(0));
    let rounded = mantissa.add_full(round_up.zext(23)); // 24 bits: carry into the exponent
    let exponent = m.lit(127 + w as u64 - 1, 9) - lz.resize(9) + rounded.bit(23).zext(9);
    let bits = cat(&[sign, exponent.bits(7, 0), rounded.bits(22, 0)]);
    magnitude.eq(0).mux(m.lit(0, 32), bits)
}

/// Walks (child `walk`), evaluates (child `eval`), clips to the screen and drops empty quads:
/// set-up triangles in, covered quads out (coverage before the depth test). `visible` is the
/// current tile's last column and row on screen (4 bits each, [`super::visible_extent`]):
/// lanes of pixels beyond them are not covered (the scissor of the right and bottom edges'
/// partial tiles; the frame model's `rasterise_visible`). It must hold its value while the
/// tile's triangles pass (the back end changes it only at TILE_BEGIN, when the previous tile
/// has drained).
pub fn raster_front(
    m: &mut Module,
    cfg: &TileCfg,
    tri: Stream<TriSetup>,
    visible: [Sig; 2],
) -> Stream<CoveredQuad> {
    let walked = m.child("walk", cfg, tri, quad_walk);
    let evaluated = m.child("eval", cfg, walked, |m, cfg, walked| {
        pipeline(m, "eval", walked, |m, st, w| quad_eval(m, cfg, st, w))
    });
    let (valid, mut q, ready) = evaluated.split();
    let [last_col, last_row] = visible;
    let lanes: Vec<Sig> = (0..cfg.lanes())
        .map(|lane| {
            let pixel = (lane / cfg.samples as usize) as u64;
            let px = cat(&[q.frag.qx, m.lit(pixel & 1, 1)]);
            let py = cat(&[q.frag.qy, m.lit(pixel >> 1, 1)]);
            px.le(last_col) & py.le(last_row)
        })
        .collect();
    q.frag.coverage = q.frag.coverage & cat_lsb_first(&lanes);
    let covered = q.frag.coverage.any();
    let (out, out_ready) = Stream::offer(m, "covered", valid & covered, q);
    ready.drive(out_ready | !covered);
    out
}
