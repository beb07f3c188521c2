//! `geom_clip`: near-plane clipping of clip-space triangles, the perspective divide and the
//! viewport transform (issue 13 §1 "Geometry"), bit-identical with the frame model's
//! geometry step (`sim/models/tile/frame/clip.rs` and the viewport lines of `frame/mod.rs`).
//!
//! ```text
//!  tri ─► clip_seq ─► job (one vertex per clock) ─► clip_vertex ─► vertex ─► clip_collect ─► out
//!         (inside mask, polygon    a, b, lerp?      d = b − a, t = a.z/(−d.z),   three vertices
//!          and fan from a table)                    a + d·t, x/w y/w z/w 1/w,    → one triangle
//!                                                   viewport, Vertex::from_f32
//! ```
//!
//! # What it computes (the model's operations, in its order, each rounded as `f32`)
//! * A vertex is inside when `z ≥ 0` (−0 inside, NaN outside). All inside: the triangle is
//!   emitted as it is. Otherwise Sutherland–Hodgman over the edges `(0,1)`, `(1,2)`, `(2,0)`:
//!   an inside vertex is kept, an edge that crosses gets `lerp(a, b, t)` with
//!   `t = da / (da − db)`, and the polygon (0, 3 or 4 vertices) is fanned from its first vertex
//!   into 0, 1 or 2 triangles. The polygon's shape depends only on the inside mask, so a
//!   64-entry table gives each output vertex's source (vertex `i`, or the crossing of edge
//!   `(i, i+1)`).
//! * `lerp`: `x + (y − x)·t` per position component and varying word, three roundings
//!   (`fp_fma` as a subtract, a multiply and an add: a fused multiply-add would round once and
//!   differ). `da − db` is `−(db − da)`, exact in IEEE arithmetic, so the subtractions of the
//!   position's z lane serve both.
//! * Viewport: `nx = x/w`, `ny = y/w`, `nz = z/w` and `rw = 1/w` on [`fp_div`](crate::fp::div)
//!   (IEEE, subnormals kept), `((nx + 1)·0.5)·width` and the same for y (`·0.5` is exact:
//!   `nx + 1` is zero or at least `2^-24` in magnitude, so halving is an exponent decrement),
//!   `width` and `height` converted exactly to binary32.
//! * `Vertex::from_f32`: `x·256` and `y·256` rounded to nearest, halves away from zero,
//!   saturated to 32-bit signed (NaN → 0); `z` clamped to `[0, 1]`, times `2^24 − 1`, rounded
//!   (D24; NaN → 0); `rw` as is (a NaN is the canonical NaN).
//!
//! # Primitive ids
//! `prim` and the state are copied from the input triangle to each of its output triangles,
//! so both halves of a clipped quad share an id. The frame model numbers the triangles it
//! keeps after clipping *and* culling (`run_pass`'s `pi`): in
//! [`tile_frontend`](super::frontend::tile_frontend) the id is assigned after setup's culling
//! (`fe_assign`).
//!
//! # Differences from the model (documented limits)
//! `fp_fma` flushes subnormal operands and results (D6), the host does not: a lerp whose
//! operands or intermediate results are subnormal can differ (varyings holding small integers
//! bit-cast to floats are subnormal; clip-space positions are not in practice). The viewport
//! and the conversions are exact for every input (a subnormal `x/w` only meets `+ 1`). NaN
//! payloads are canonical where the host keeps the operand's.
use crate::fp::div::div;
pub use crate::fp::div::LATENCY as DIV_LATENCY;
use crate::fp::fma::{fp_fma_stages, leading_zeros, FmaOp};
use crate::fp::{pipeline, FpReq, Stages};
use crate::tile::geometry::{GeomPrim, KIND_TRIANGLE, XY_BITS};
use crate::tile::DEPTH_BITS;
use rendergen_hdl::{cat, lut, name_lets, Bundle, Design, ElabErrors, Io, Module, Sig, Stream};
use std::ops::RangeInclusive;

/// Legal [`ClipCfg::varyings`].
pub const VARYINGS: RangeInclusive<u64> = 0..=32;
/// Bits of the screen-size configuration inputs (pixels, 1 ..= 16383 useful).
pub const SIZE_BITS: u32 = 14;

/// Parameters of [`geom_clip`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClipCfg {
    /// Varying words per vertex (binary32 each), 0 ..= 32. Default 8 (the model's two
    /// four-word slots).
    pub varyings: u32,
}

impl Default for ClipCfg {
    fn default() -> Self {
        ClipCfg { varyings: 8 }
    }
}

impl ClipCfg {
    /// Checks the parameters (an elaboration error names the parameter and its range).
    pub fn check(&self, m: &mut Module) -> bool {
        m.check_param("varyings", self.varyings.into(), VARYINGS)
    }
}

/// A clip-space vertex.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ClipVert<T = Sig> {
    /// x, y, z, w (binary32).
    pub pos: [T; 4],
    /// Varying words (binary32), [`ClipCfg::varyings`] of them.
    pub vary: Vec<T>,
}

/// What travels with a triangle beside its vertices (the fields of [`GeomPrim`] that are not
/// vertex data).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TriInfo<T = Sig> {
    /// As [`GeomPrim::kind`]: a triangle or a frame marker (2 bits).
    pub kind: T,
    /// Primitive id.
    pub prim: T,
    /// Draw state.
    pub state: T,
    /// Cull mode.
    pub cull: T,
    /// Clockwise is front.
    pub front_cw: T,
    /// Depth compare op.
    pub depth_op: T,
    /// Depth write.
    pub depth_write: T,
}

impl TriInfo<u32> {
    /// The shape (the widths of [`GeomPrim::SHAPE`]).
    pub fn shape() -> TriInfo<u32> {
        let g = GeomPrim::SHAPE;
        TriInfo {
            kind: g.kind,
            prim: g.prim,
            state: g.state,
            cull: g.cull,
            front_cw: g.front_cw,
            depth_op: g.depth_op,
            depth_write: g.depth_write,
        }
    }
}

/// A clip-space triangle (or a frame marker, whose vertices are ignored).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ClipTri<T = Sig> {
    /// Kind, primitive id, draw and raster state.
    pub info: TriInfo<T>,
    /// The vertices.
    pub v: [ClipVert<T>; 3],
}

impl ClipTri<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &ClipCfg) -> ClipTri<u32> {
        let v = ClipVert {
            pos: [32; 4],
            vary: vec![32; cfg.varyings as usize],
        };
        ClipTri {
            info: TriInfo::shape(),
            v: [v.clone(), v.clone(), v],
        }
    }
}

/// One output vertex to compute: `a`, or `lerp(a, b)` at the near plane.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct VertexJob<T = Sig> {
    /// The triangle's kind and state.
    pub info: TriInfo<T>,
    /// The inside end (or the vertex itself).
    pub a: ClipVert<T>,
    /// The other end of the crossing edge.
    pub b: ClipVert<T>,
    /// Interpolate (else `a` as it is).
    pub lerp: T,
    /// Third vertex of an output triangle (or a marker).
    pub last: T,
}

/// A vertex in screen space with its varyings.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ScreenVert<T = Sig> {
    /// The triangle's kind and state.
    pub info: TriInfo<T>,
    /// x in 1/256 pixel, signed [`XY_BITS`].
    pub x: T,
    /// y in 1/256 pixel, signed [`XY_BITS`].
    pub y: T,
    /// D24 depth.
    pub z: T,
    /// 1/w (binary32).
    pub rw: T,
    /// The (clipped) varying words.
    pub vary: Vec<T>,
    /// Third vertex of an output triangle (or a marker).
    pub last: T,
}

/// A screen-space triangle for `geom_setup`, with its varyings (the primitive data).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ClipOut<T = Sig> {
    /// What `geom_setup` takes.
    pub prim: GeomPrim<T>,
    /// Each vertex's varying words.
    pub vary: [Vec<T>; 3],
}

/// One step of a triangle's job list: which vertex (or crossing edge) and the flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    src: u64,
    lerp: bool,
    last: bool,
    done: bool,
}

/// The job list of a triangle whose vertices have the inside mask `mask` (bit `i` = vertex
/// `i` inside): the model's `clip_near` on references instead of values.
fn job_list(mask: u32) -> Vec<Step> {
    let inside = |i: usize| (mask >> i) & 1 == 1;
    let mut poly = Vec::new();
    if mask == 7 {
        poly = vec![(0, false), (1, false), (2, false)];
    } else {
        for i in 0..3 {
            if inside(i) {
                poly.push((i as u64, false));
            }
            if inside(i) != inside((i + 1) % 3) {
                poly.push((i as u64, true));
            }
        }
    }
    let fan: Vec<(u64, bool)> = (1..poly.len().saturating_sub(1))
        .flat_map(|i| [poly[0], poly[i], poly[i + 1]])
        .collect();
    let n = fan.len();
    (fan.iter().enumerate())
        .map(|(k, &(src, lerp))| Step {
            src,
            lerp,
            last: k % 3 == 2,
            done: k + 1 == n,
        })
        .collect()
}

/// What [`clip_seq`] takes.
#[derive(Io)]
pub struct SeqIn {
    /// Clip-space triangles and markers.
    pub tri: Stream<ClipTri>,
}

/// What [`clip_seq`] gives.
#[derive(Io)]
pub struct SeqOut {
    /// Output vertices to compute, three per output triangle.
    pub job: Stream<VertexJob>,
}

/// `z ≥ 0` of a binary32 `z` (−0 yes, NaN no).
fn non_negative(z: Sig) -> Sig {
    let magnitude_zero = z.bits(30, 0).eq(0);
    let nan = z.bits(30, 23).all() & z.bits(22, 0).any();
    magnitude_zero | (!z.bit(31) & !nan)
}

/// The sequencer: holds a triangle while it issues its 0, 3 or 6 vertex jobs (a marker: one).
///
/// * **Protocol:** stream rules; `tri` is taken with its last job (or at once when all three
///   vertices are outside); `job.ready → tri.ready` is combinational.
/// * **Timing:** one job per clock; a triangle takes 3 clocks, 6 when clipped to a quad.
/// * **Cost:** a 3-bit step counter and the 64-entry job table.
#[name_lets]
pub fn clip_seq(m: &mut Module, _: &ClipCfg, i: SeqIn) -> SeqOut {
    let (tri_valid, tri, tri_ready) = i.tri.split();
    let step = m.reg("step", 3).reset(0);
    let mask = cat(&[
        non_negative(tri.v[2].pos[2]),
        non_negative(tri.v[1].pos[2]),
        non_negative(tri.v[0].pos[2]),
    ]);
    let table: Vec<u64> = (0..64u32)
        .map(|k| {
            let steps = job_list(k >> 3);
            steps.get((k & 7) as usize).map_or(0, |s| {
                s.src
                    | (u64::from(s.lerp) << 2)
                    | (u64::from(s.last) << 3)
                    | (u64::from(s.done) << 4)
            })
        })
        .collect();
    let entry = lut(cat(&[mask, step.q()]), &table, 5);
    let marker = tri.info.kind.ne(KIND_TRIANGLE);
    let culled = !marker & mask.eq(0);
    let src = entry.bits(1, 0);
    let pick = |k: u64| -> ClipVert {
        let of = |j: u64| src.eq((j + 3 - k) % 3);
        let sel = |f: &dyn Fn(&ClipVert) -> Sig| {
            of(0).mux(f(&tri.v[0]), of(1).mux(f(&tri.v[1]), f(&tri.v[2])))
        };
        ClipVert {
            pos: std::array::from_fn(|c| sel(&|v: &ClipVert| v.pos[c])),
            vary: (0..tri.v[0].vary.len())
                .map(|c| sel(&|v: &ClipVert| v.vary[c]))
                .collect(),
        }
    };
    let job = VertexJob {
        info: tri.info.clone(),
        a: pick(0),
        b: pick(1),
        lerp: !marker & entry.bit(2),
        last: marker | entry.bit(3),
    };
    let done = marker | entry.bit(4);
    let (job, job_ready) = Stream::offer(m, "job", tri_valid & !culled, job);
    let fire = tri_valid & !culled & job_ready;
    tri_ready.drive((fire & done) | culled);
    step.next_when(fire, done.mux(m.lit(0, 3), step.q() + 1u64));
    SeqOut { job }
}

/// Binary32 `a − b`, `a·b` or `a + b` on the FMA datapath (five stages of `st`).
fn fma_op(m: &mut Module, st: &mut Stages, op: FmaOp, a: Sig, b: Sig) -> Sig {
    let req = FpReq {
        a,
        b: Some(b),
        c: Some(m.lit(0, 32)),
        op: Some(m.enum_const(op)),
        tag: m.lit(0, 1),
    };
    fp_fma_stages(m, st, req).r
}

/// `op` on each pair, side by side in the same stages of `st`.
fn fma_lanes(m: &mut Module, st: &mut Stages, op: FmaOp, pairs: &[(Sig, Sig)]) -> Vec<Sig> {
    let (en, valid) = (st.en(), st.valid());
    (pairs.iter().enumerate())
        .map(|(k, &(a, b))| match k {
            0 => fma_op(m, st, op, a, b),
            _ => fma_op(m, &mut Stages::new(en, valid), op, a, b),
        })
        .collect()
}

/// `d` (any bundle) delayed by `n` stages of `st`.
fn delay_rec<B: Bundle>(m: &mut Module, st: &Stages, name: &str, d: &B, n: u32) -> B {
    let fields = d.fields();
    let mut it = fields.into_iter();
    B::from_fields(&d.shape(), &mut |f, _| {
        let s = it.next().expect("one field per leaf").1;
        st.delay(m, &format!("{name}_{f}"), s, n)
    })
}

/// Words delayed by `n` stages of `st` (`<name>_<k>_1` …).
fn delay_words(m: &mut Module, st: &Stages, name: &str, d: &[Sig], n: u32) -> Vec<Sig> {
    (d.iter().enumerate())
        .map(|(k, &s)| st.delay(m, &format!("{name}_{k}"), s, n))
        .collect()
}

/// A binary32 `x` halved exactly (finite results of `nx + 1` are zero or ≥ 2^-24 in magnitude,
/// so only the exponent changes; ∞ and NaN stay).
fn halve(x: Sig) -> Sig {
    let e = x.bits(30, 23);
    let scaled = e.ne(0) & e.ne(255);
    scaled.mux(cat(&[x.bit(31), e - 1u64, x.bits(22, 0)]), x)
}

/// An unsigned integer (≤ 24 bits) as binary32, exactly.
#[name_lets]
fn int_to_f32(m: &mut Module, n: Sig) -> Sig {
    let w = n.width();
    let zeros = leading_zeros(m, n);
    let norm = n.shl(zeros);
    let exp = m.lit(u64::from(126 + w), 8) - zeros.zext(8);
    let frac = cat(&[norm.bits(w - 2, 0), m.lit(0, 24 - w)]);
    n.eq(0).mux(m.lit(0, 32), cat(&[m.lit(0, 1), exp, frac]))
}

/// `Vertex::from_f32`'s x/y: `v·256` rounded half away from zero, saturated to i32, NaN → 0.
#[name_lets]
fn to_fixed(m: &mut Module, v: Sig) -> Sig {
    let e = v.bits(30, 23);
    let nan = e.all() & v.bits(22, 0).any();
    let mant = cat(&[m.lit(1, 1), v.bits(22, 0)]);
    // k = e − 118 for 118 ≤ e ≤ 149: scaled = v·256·2^24.
    let k = (e - 118u64).bits(4, 0);
    let scaled = mant.zext(56).shl(k);
    let magnitude = scaled.bits(54, 24).zext(32) + scaled.bit(23).zext(32);
    let signed = v.bit(31).mux(-magnitude, magnitude);
    let saturated = v
        .bit(31)
        .mux(m.lit(0x8000_0000, 32), m.lit(0x7FFF_FFFF, 32));
    let zero = m.lit(0, XY_BITS);
    nan.mux(zero, e.ge(150).mux(saturated, e.lt(118).mux(zero, signed)))
}

/// `Vertex::from_f32`'s depth: `round(clamp(z, 0, 1)·(2^24 − 1))`, NaN → 0 (D24).
#[name_lets]
fn to_depth(m: &mut Module, z: Sig) -> Sig {
    let e = z.bits(30, 23);
    let nan = e.all() & z.bits(22, 0).any();
    let mant = cat(&[e.ne(0), z.bits(22, 0)]);
    let product = mant.mul_full(m.lit((1 << DEPTH_BITS) - 1, DEPTH_BITS));
    // z·(2^24−1) = product·2^(e−150) for e ≤ 126: shift right by 150 − e (≥ 24), keeping the
    // round bit; e = 0 (subnormal) counts as 1.
    let e_eff = e.eq(0).mux(m.lit(1, 8), e);
    let shift = (m.lit(149, 8) - e_eff).zext(9);
    let far = shift.gt(63u64);
    let halves = product.zext(64).shr(far.mux(m.lit(63, 9), shift));
    let rounded = (halves.bits(48, 1) + halves.bit(0).zext(48)).bits(DEPTH_BITS - 1, 0);
    let one = m.lit((1 << DEPTH_BITS) - 1, DEPTH_BITS);
    let zero = m.lit(0, DEPTH_BITS);
    let negative = z.bit(31);
    (nan | negative).mux(zero, e.ge(127).mux(one, rounded))
}

/// What [`clip_vertex`] takes.
#[derive(Io)]
pub struct VertexIn {
    /// Vertices to compute.
    pub job: Stream<VertexJob>,
    /// Screen width in pixels (stable while triangles flow).
    pub width: Sig,
    /// Screen height in pixels.
    pub height: Sig,
}

/// What [`clip_vertex`] gives.
#[derive(Io)]
pub struct VertexOut {
    /// Screen-space vertices, one per job, in order.
    pub vertex: Stream<ScreenVert>,
}

/// Stages of [`clip_vertex`]'s datapath: subtract, divide, multiply, add, divide, add,
/// multiply, convert.
pub const VERTEX_STAGES: u32 = 5 + (DIV_LATENCY - 1) + 5 + 5 + (DIV_LATENCY - 1) + 5 + 5 + 1;

/// The vertex pipeline: the lerp of a crossing (or the vertex as it is), the perspective
/// divide, the viewport transform and `Vertex::from_f32`, one vertex per clock.
///
/// * **Protocol:** [`pipeline`]'s: stream rules, in order, the whole pipeline holds under
///   back-pressure, skid-buffer output.
/// * **Timing:** latency [`VERTEX_STAGES`] + 1, initiation interval 1.
/// * **Cost:** `3·(4 + varyings)` FMA datapaths for the lerp (subtract, multiply, add per
///   word; the z lane's difference also gives `da − db`), 5 dividers (`t`, x/w, y/w, z/w,
///   1/w), 4 FMA datapaths for the viewport, and the passengers' delay registers (figures at
///   [`geom_clip`]).
#[name_lets]
pub fn clip_vertex(m: &mut Module, _: &ClipCfg, i: VertexIn) -> VertexOut {
    let (width, height) = (i.width, i.height);
    let vertex = pipeline(m, "vertex", i.job, |m, st, job| {
        let words = |v: &ClipVert| -> Vec<Sig> { v.pos.iter().chain(&v.vary).copied().collect() };
        let (wa, wb) = (words(&job.a), words(&job.b));
        let n = wa.len();
        let pairs: Vec<(Sig, Sig)> = wb.iter().copied().zip(wa.iter().copied()).collect();
        // d = b − a (5 stages).
        let a5 = delay_words(m, st, "a_sub", &wa, 5);
        let za = st.delay(m, "za", job.a.pos[2], 5);
        let d = fma_lanes(m, st, FmaOp::Sub, &pairs);
        // t = da / (da − db) = za / −d_z (7 stages).
        let neg_dz = d[2] ^ (1u64 << 31);
        let pass_w = DIV_LATENCY - 1;
        let no_pass = m.lit(0, 1);
        let t = div(m, st, za, neg_dz, no_pass).r;
        let a12 = delay_words(m, st, "a_div", &a5, pass_w);
        let d12 = delay_words(m, st, "d_div", &d, pass_w);
        // p = d·t, r = a + p (10 stages).
        let prod_pairs: Vec<(Sig, Sig)> = d12.iter().map(|&x| (x, t)).collect();
        let a17 = delay_words(m, st, "a_mul", &a12, 5);
        let p = fma_lanes(m, st, FmaOp::Mul, &prod_pairs);
        let sum_pairs: Vec<(Sig, Sig)> = a17.iter().copied().zip(p).collect();
        let lerped = fma_lanes(m, st, FmaOp::Add, &sum_pairs);
        let pre = 5 + pass_w + 10;
        let orig = delay_words(m, st, "orig", &a17, 5);
        let lerp = st.delay(m, "lerp", job.lerp, pre);
        let v: Vec<Sig> = (0..n).map(|k| lerp.mux(lerped[k], orig[k])).collect();
        // x/w, y/w, z/w, 1/w (7 stages).
        let one = m.lit(0x3F80_0000, 32);
        let (en, valid) = (st.en(), st.valid());
        let nums = [v[0], v[1], v[2], one];
        let mut q = Vec::new();
        for (k, &num) in nums.iter().enumerate() {
            let zero = m.lit(0, 1);
            let r = match k {
                0 => div(m, st, num, v[3], zero).r,
                _ => div(m, &mut Stages::new(en, valid), num, v[3], zero).r,
            };
            q.push(r);
        }
        let vary = delay_words(m, st, "vary", &v[4..], pass_w + 10);
        let rw = st.delay(m, "rw", q[3], 10);
        let nz = st.delay(m, "nz", q[2], 10);
        // ((n + 1)·0.5)·size (10 stages).
        let s = fma_lanes(m, st, FmaOp::Add, &[(q[0], one), (q[1], one)]);
        let wf = int_to_f32(m, width);
        let hf = int_to_f32(m, height);
        let screen = fma_lanes(m, st, FmaOp::Mul, &[(halve(s[0]), wf), (halve(s[1]), hf)]);
        let info = delay_rec(m, st, "info", &job.info, VERTEX_STAGES - 1);
        let last = st.delay(m, "last", job.last, VERTEX_STAGES - 1);
        let out = ScreenVert {
            info,
            x: to_fixed(m, screen[0]),
            y: to_fixed(m, screen[1]),
            z: to_depth(m, nz),
            rw: rw.bits(31, 0),
            vary,
            last,
        };
        st.stage(m, "convert", &out)
    });
    VertexOut { vertex }
}

/// What [`clip_collect`] takes.
#[derive(Io)]
pub struct CollectIn {
    /// Screen-space vertices.
    pub vertex: Stream<ScreenVert>,
}

/// What [`clip_collect`] gives.
#[derive(Io)]
pub struct CollectOut {
    /// Triangles (and markers) for `geom_setup`, with varyings.
    pub out: Stream<ClipOut>,
}

/// Gathers three vertices into a triangle (a marker passes alone): the first two are stored,
/// the third passes through with them.
///
/// * **Protocol:** stream rules; `out.ready → vertex.ready` is combinational for a last vertex.
/// * **Cost:** two vertex registers and a 2-bit counter.
#[name_lets]
pub fn clip_collect(m: &mut Module, _: &ClipCfg, i: CollectIn) -> CollectOut {
    let (valid, v, ready) = i.vertex.split();
    let count = m.reg("count", 2).reset(0);
    let first = m.reg_bundle("first", &v, Some(valid & !v.last & count.q().eq(0)));
    let second = m.reg_bundle("second", &v, Some(valid & !v.last & count.q().eq(1)));
    let store = valid & !v.last;
    let marker = v.info.kind.ne(KIND_TRIANGLE);
    let pick = |f: &dyn Fn(&ScreenVert) -> Sig, m: &mut Module| -> [Sig; 3] {
        let third = f(&v);
        let w = third.width();
        let z = m.lit(0, w);
        [
            marker.mux(z, f(&first)),
            marker.mux(z, f(&second)),
            marker.mux(z, third),
        ]
    };
    let x = pick(&|s| s.x, m);
    let y = pick(&|s| s.y, m);
    let z = pick(&|s| s.z, m);
    let rw = pick(&|s| s.rw, m);
    let out = ClipOut {
        prim: GeomPrim {
            kind: v.info.kind,
            x,
            y,
            z,
            rw,
            prim: v.info.prim,
            state: v.info.state,
            cull: v.info.cull,
            front_cw: v.info.front_cw,
            depth_op: v.info.depth_op,
            depth_write: v.info.depth_write,
        },
        vary: [&first.vary, &second.vary, &v.vary]
            .map(|words| words.iter().map(|&w| marker.mux(m.lit(0, 32), w)).collect()),
    };
    let (out, out_ready) = Stream::offer(m, "out", valid & v.last, out);
    ready.drive(store | out_ready);
    count.next_when(
        valid & (store | out_ready),
        v.last.mux(m.lit(0, 2), count.q() + 1u64),
    );
    CollectOut { out }
}

/// What [`geom_clip`] takes.
#[derive(Io)]
pub struct ClipIn {
    /// Clip-space triangles and frame markers.
    pub tri: Stream<ClipTri>,
    /// Screen width in pixels, [`SIZE_BITS`] (a configuration register).
    pub width: Sig,
    /// Screen height in pixels, [`SIZE_BITS`].
    pub height: Sig,
}

/// What [`geom_clip`] gives.
#[derive(Io)]
pub struct ClipOutIo {
    /// Screen-space triangles for `geom_setup` and their varyings, in order.
    pub out: Stream<ClipOut>,
}

/// Near-plane clipping, perspective divide, viewport transform and fixed-point conversion of
/// clip-space triangles: [`clip_seq`] → [`clip_vertex`] → [`clip_collect`] (module docs).
///
/// * **Ports:** `tri` ([`ClipTri`]), `width`, `height` ([`SIZE_BITS`]), `out` ([`ClipOut`]:
///   the [`GeomPrim`] that `geom_setup` takes and the varyings).
/// * **Protocol:** stream rules; triangles leave in input order, a clipped one as 0, 1 or 2
///   triangles in the model's fan order; markers pass in order.
/// * **Timing:** one vertex per clock: an unclipped triangle every 3 clocks, a clipped one 3
///   or 6 (all-outside: 1); latency [`VERTEX_STAGES`] + 2 from the last vertex's job.
/// * **Parameters:** [`ClipCfg::varyings`] 0 ..= 32 (default 8).
/// * **Cost** (default, 8 varying words; Yosys generic, unflattened, measured with `cargo test
///   -p rendergen-testbenches --test testbenches tile::geometry_clip::measure_area --
///   --ignored --nocapture`, the library call behind `rendergen synth geom_clip
///   --per-module`): 422,752 cells, 49,751 flip-flops, 69 gate levels. `clip_vertex` is
///   nearly all of it: 40 FMA datapaths (36 for the lerp, 4 for the viewport; 321,520 cells
///   unflattened, where the constant operation selects are not propagated), 5 dividers
///   (44,000), and 49,000 flip-flops of stage and passenger registers; `clip_seq` 1,742 cells,
///   `clip_collect` 1,894 cells and 754 flops. The lerp dominates because every word of a
///   vertex is interpolated in parallel; a word-serial lerp (one subtract-multiply-add chain,
///   `4 + varyings` clocks per clipped vertex) would cut 33 FMA datapaths at the price of
///   clipped-triangle throughput (not built).
/// * **Errors:** elaboration rejects `varyings` outside its range.
pub fn geom_clip(m: &mut Module, cfg: &ClipCfg, i: ClipIn) -> ClipOutIo {
    let seq = m.child("seq", cfg, SeqIn { tri: i.tri }, clip_seq);
    let vert = m.child(
        "vertex",
        cfg,
        VertexIn {
            job: seq.job,
            width: i.width,
            height: i.height,
        },
        clip_vertex,
    );
    let col = m.child(
        "collect",
        cfg,
        CollectIn {
            vertex: vert.vertex,
        },
        clip_collect,
    );
    ClipOutIo { out: col.out }
}

/// The catalogue top `geom_clip`: [`geom_clip`] with its ports at the top (`tri_*`,
/// `width`, `height`, `out_*`); elaboration rejects `varyings` outside [`VARYINGS`].
///
/// ```
/// use rendergen_rtl::tile::geometry::clip::{geom_clip_top, ClipCfg};
/// let design = geom_clip_top(&ClipCfg { varyings: 1 }).unwrap();
/// assert_eq!(design.top().name, "geom_clip");
/// assert!(geom_clip_top(&ClipCfg { varyings: 33 }).is_err());
/// ```
pub fn geom_clip_top(cfg: &ClipCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("geom_clip", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let tri = m.input_stream::<ClipTri>("tri", &ClipTri::shape(cfg));
        let width = m.input("width", SIZE_BITS);
        let height = m.input("height", SIZE_BITS);
        let out = geom_clip(m, cfg, ClipIn { tri, width, height });
        m.output_stream("out", out.out);
    })
}
