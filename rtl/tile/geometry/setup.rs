//! `geom_setup`: the per-triangle part of the model's triangle setup (`setup.rs`): the guard
//! band, the signed area, zero-area and face culling, the edge functions at the screen origin
//! with their top-left flags, the bounding box and the depth-plane numerators.
use super::{GeomPrim, SetupTri, SetupTriEdge, KIND_TRIANGLE, NUM_BITS, SLOPE_NUM_BITS, XY_BITS};
use crate::stream::stages::pipeline;
use crate::tile::{COEF_BITS, EDGE_BITS};
use rendergen_hdl::{name_lets, Io, Module, Sig, Stream};

/// Bits of a screen coordinate inside the guard band (`|x| < 2^21`), signed.
pub const GUARD_BITS: u32 = 22;

/// What [`geom_setup`] takes.
#[derive(Io)]
pub struct SetupIn {
    /// Triangles in screen space and frame markers, in submission order.
    pub prim: Stream<GeomPrim>,
}

/// What [`geom_setup`] gives.
#[derive(Io)]
pub struct SetupOut {
    /// Surviving triangles and the frame markers, in order.
    pub tri: Stream<SetupTri>,
}

/// Sets up each triangle of `prim` once for the whole screen, exactly as the model's
/// `setup::setup` does before its per-tile part, and drops those the model rejects for every
/// tile (a vertex outside the guard band `|x|, |y| < 2^21` sub-pixels, zero area, culled by
/// `cull` under `front_cw`). Frame markers pass unchanged.
///
/// * **Protocol:** stream rules; order kept; a dropped triangle leaves nothing.
/// * **Timing:** latency 3 (two stages: differences and products; area, edges and the
///   numerators; then a skid buffer), initiation interval 1.
/// * **Cost:** 2 `23 × 23` products for the area, 6 `24 × 22` for the edge constants,
///   6 `25 × 24` and 3 `25 × 48` for the depth numerators; stage registers.
#[name_lets]
pub fn geom_setup(m: &mut Module, _cfg: &(), i: SetupIn) -> SetupOut {
    let done = pipeline(m, "setup", i.prim, |m, st, p| {
        let d = m.child("setup_area", &(), p, |m, _, p| setup_area(m, p));
        let d = st.stage(m, "area", &d);
        let e = m.child("setup_edges", &(), d, |m, _, d| setup_edges(m, d));
        st.stage(m, "edges", &e)
    });
    let (valid, t, ready) = done.split();
    let keep = t.keep;
    let (tri, out_ready) = Stream::offer(m, "tri", valid & keep, t.tri);
    ready.drive(out_ready | !keep);
    SetupOut { tri }
}

/// The first stage's result.
#[derive(rendergen_hdl::Bundle, Clone, Debug, PartialEq)]
pub struct AreaStage<T = Sig> {
    /// The primitive, coordinates cut to [`GUARD_BITS`].
    pub prim: GeomPrim<T>,
    /// Twice the signed area `s` (48 bits).
    pub s: T,
    /// Some vertex lies outside the guard band.
    pub out_of_range: T,
}

/// The second stage's result: the record and whether it goes on.
#[derive(rendergen_hdl::Bundle, Clone, Debug, PartialEq)]
pub struct KeptTri<T = Sig> {
    /// The set-up triangle (or marker).
    pub tri: SetupTri<T>,
    /// Sent on (a marker, or a triangle not rejected).
    pub keep: T,
    /// Why a triangle is rejected, in the model's order of tests: [`REASON_KEPT`],
    /// [`REASON_OUT_OF_RANGE`], [`REASON_DEGENERATE`] or [`REASON_CULLED`] (2 bits).
    pub reason: T,
}

/// [`KeptTri::reason`]: kept (or a marker).
pub const REASON_KEPT: u64 = 0;
/// [`KeptTri::reason`]: a vertex outside the guard band (`Reject::OutOfRange`).
pub const REASON_OUT_OF_RANGE: u64 = 1;
/// [`KeptTri::reason`]: zero area (`Reject::Degenerate`).
pub const REASON_DEGENERATE: u64 = 2;
/// [`KeptTri::reason`]: culled by the face test (`Reject::Culled`).
pub const REASON_CULLED: u64 = 3;

fn guard(m: &mut Module, v: Sig) -> Sig {
    let lim = (1u64 << (GUARD_BITS - 1)) - 1;
    let neg = m.lit(lim.wrapping_neg() & ((1u64 << XY_BITS) - 1), XY_BITS);
    let pos = m.lit(lim, XY_BITS);
    !(v.sge(neg) & v.sle(pos))
}

/// Guard band and `s = (x1 − x0)(y2 − y0) − (y1 − y0)(x2 − x0)`.
#[name_lets]
pub(super) fn setup_area(m: &mut Module, p: GeomPrim) -> AreaStage {
    let mut out_of_range = m.lit(0, 1);
    for v in p.x.iter().chain(p.y.iter()) {
        out_of_range = out_of_range | guard(m, *v);
    }
    let x: Vec<Sig> =
        p.x.iter()
            .map(|v| v.bits(GUARD_BITS - 1, 0).sext(23))
            .collect();
    let y: Vec<Sig> =
        p.y.iter()
            .map(|v| v.bits(GUARD_BITS - 1, 0).sext(23))
            .collect();
    // Differences fit 23 bits (|x| < 2^21), products 46, their difference 47.
    let s = (x[1] - x[0]).smul_full(y[2] - y[0]).sext(48)
        - (y[1] - y[0]).smul_full(x[2] - x[0]).sext(48);
    let cut = |v: &Sig| v.bits(GUARD_BITS - 1, 0).sext(XY_BITS);
    AreaStage {
        prim: GeomPrim {
            x: p.x.each_ref().map(cut),
            y: p.y.each_ref().map(cut),
            ..p
        },
        s,
        out_of_range,
    }
}

/// Facing, culling, edges, bounding box and depth numerators.
#[name_lets]
pub(super) fn setup_edges(m: &mut Module, d: AreaStage) -> KeptTri {
    let p = d.prim;
    let s = d.s;
    let degenerate = !s.any();
    let negative = s.msb();
    // Vulkan's area is −s/2 (y down): counter-clockwise front means s < 0.
    let front = p.front_cw.mux(!negative & !degenerate, negative);
    let culled = (p.cull.eq(2u64) & !front) | (p.cull.eq(1u64) & front);
    let is_tri = p.kind.eq(KIND_TRIANGLE);
    let keep = !is_tri | !(d.out_of_range | degenerate | culled);
    let x: Vec<Sig> = p.x.iter().map(|v| v.bits(GUARD_BITS - 1, 0)).collect();
    let y: Vec<Sig> = p.y.iter().map(|v| v.bits(GUARD_BITS - 1, 0)).collect();
    let edge: [SetupTriEdge; 3] = std::array::from_fn(|i| {
        let (a0, b0) = (
            y[(i + 1) % 3].sext(COEF_BITS) - y[(i + 2) % 3].sext(COEF_BITS),
            x[(i + 2) % 3].sext(COEF_BITS) - x[(i + 1) % 3].sext(COEF_BITS),
        );
        let a = negative.mux(-a0, a0);
        let b = negative.mux(-b0, b0);
        let (px, py) = (x[(i + 1) % 3], y[(i + 1) % 3]);
        // c at the screen origin: a·(0 − p.x) + b·(0 − p.y).
        let c = -(a.smul_full(px).sext(EDGE_BITS) + b.smul_full(py).sext(EDGE_BITS));
        let top_left = (!a.msb() & a.any()) | (!a.any() & !b.msb() & b.any());
        SetupTriEdge { a, b, c, top_left }
    });
    let min = |v: &[Sig]| {
        let ab = v[0].slt(v[1]).mux(v[0], v[1]);
        ab.slt(v[2]).mux(ab, v[2])
    };
    let max = |v: &[Sig]| {
        let ab = v[0].sgt(v[1]).mux(v[0], v[1]);
        ab.sgt(v[2]).mux(ab, v[2])
    };
    // Σ z_i·coef_i with z unsigned (a zero is prepended to make it a positive signed value).
    let zs: Vec<Sig> = p.z.iter().map(|z| z.zext(25)).collect();
    let numerator = |coef: &dyn Fn(&SetupTriEdge) -> Sig, bits: u32| -> Sig {
        (0..3)
            .map(|i| zs[i].smul_full(coef(&edge[i])).sext(bits))
            .reduce(|a, b| a + b)
            .expect("three terms")
    };
    let na = numerator(&|e| e.a, SLOPE_NUM_BITS);
    let nb = numerator(&|e| e.b, SLOPE_NUM_BITS);
    let nc = numerator(&|e| e.c, NUM_BITS);
    let area2 = negative.mux(-s, s).bits(super::AREA_BITS - 1, 0);
    KeptTri {
        tri: SetupTri {
            kind: p.kind,
            xmin: min(&x),
            xmax: max(&x),
            ymin: min(&y),
            ymax: max(&y),
            edge,
            area2,
            na,
            nb,
            nc,
            front,
            rw: p.rw,
            prim: p.prim,
            state: p.state,
            depth_op: p.depth_op,
            depth_write: p.depth_write,
        },
        keep,
        reason: (is_tri & d.out_of_range).mux(
            m.lit(REASON_OUT_OF_RANGE, 2),
            (is_tri & degenerate).mux(
                m.lit(REASON_DEGENERATE, 2),
                (is_tri & culled).mux(m.lit(REASON_CULLED, 2), m.lit(REASON_KEPT, 2)),
            ),
        ),
    }
}
