//! `tile_frontend`: the whole geometry front end of the tile engine (issue 13 §1
//! "Geometry"), from shaded vertices in memory to per-tile command lists and primitive data,
//! equal to the frame model's geometry step (`sim/models/tile/frame/mod.rs`, `run_pass`).
//!
//! ```text
//!  mesh ─► geom_fetch ─► geom_clip ─► fe_setup ─► fe_assign ─┬─► geom_bin ─► geom_lists ─► list
//!          (index fetch,  (near plane,  (guard band,  (ids after │  (tiles)     (lists_mem)
//!           fetch_mem)     viewport)     area, cull,   rejects,  │
//!                                        reason)       RESOLVEs) └─► fe_prim_data (prim_mem)
//!                                                   resolve ─┘
//! ```
//!
//! # What it does, against the model
//! * Per mesh on `mesh` ([`MeshDesc`]) the triangles of its index buffer, with their vertices
//!   from the post-transform buffer ([`fetch`](super::fetch) docs), clipped against the near
//!   plane and transformed to the viewport ([`clip`](super::clip)), set up once
//!   ([`setup`](super::setup)): rejected triangles (guard band, zero area, face culling) are
//!   counted and dropped; the kept ones get primitive ids `0, 1, …` in order (the model's
//!   `pi`), their primitive data (per vertex `rw` then the `4·S` varying words, the model's
//!   `prim_words`) written at `cfg_prim_base + 4·3·(1 + 4·S)·id`, and their `DRAW`s appended
//!   to the lists of the tiles they touch.
//! * A `mesh` item of kind [`KIND_RESOLVE`] is a `RESOLVE` at that place in submission order:
//!   it takes the next `resolve` descriptor ([`ResolveDesc`]) and appends the `RESOLVE` to every
//!   tile its rectangle overlaps (the model's `resolve_at`). The host sends a rectangle clipped
//!   to the screen and no empty one (the model emits nothing for those).
//! * [`KIND_BEGIN`] and [`KIND_END`](super::KIND_END) frame the pass (each tile's `TILE_BEGIN`, `END_TILE` and
//!   its list on `list`); `BEGIN` resets the ids and the counters.
//! * Counters (as the model's `PassResult`): `triangles_in`, `near_clipped` (no vertex with
//!   `z ≥ 0`), `guard_band_rejects`, `culled`, `triangles_out` (ids given).
//!
//! # Memory
//! Three ports keep the clients apart: `fetch_mem` (reads of indices and vertices),
//! `lists_mem` (list writes, [`geom_lists`]), `prim_mem` (primitive
//! data writes), each the protocol of `mem_port.rs`. Merging them onto the engine's single
//! port is left to the engine top (not built here).
use super::bin::{geom_bin, BinIn};
use super::clip::{geom_clip, ClipIn, ClipOut, SIZE_BITS};
use super::fetch::{geom_fetch, FetchCfg, FetchIn, MeshDesc};
use super::lists::{geom_lists, ListsIn};
use super::setup::{
    setup_area, setup_edges, AreaStage, KeptTri, REASON_CULLED, REASON_KEPT, REASON_OUT_OF_RANGE,
};
use super::{
    FrameCfg, GeomCfg, SetupTri, KIND_BEGIN, KIND_RESOLVE, KIND_TRIANGLE, PRIM_ID_BITS, TILES_BITS,
};
use crate::stream::stages::pipeline;
use crate::tile::cmd::TileList;
use crate::tile::mem_port::{MemReq, MemResp, MEM_ADDR_BITS, MEM_BEATS_BITS};
use rendergen_hdl::{cat, name_lets, Bundle, Design, ElabErrors, Io, Module, Sig, Stream};

/// Bits of each frame counter.
pub const COUNTER_BITS: u32 = 32;

/// Parameters of [`tile_frontend`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FrontCfg {
    /// The index fetch (varying slots, reads in flight).
    pub fetch: FetchCfg,
    /// The tiler and list writer.
    pub geom: GeomCfg,
}

impl FrontCfg {
    /// Checks the parameters (elaboration errors name each bad parameter and its range).
    pub fn check(&self, m: &mut Module) -> bool {
        let a = self.fetch.check(m);
        let b = self.geom.check(m);
        a && b
    }
}

/// A `RESOLVE` to place (one per [`KIND_RESOLVE`] item of `mesh`, in order).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ResolveDesc<T = Sig> {
    /// Rectangle's left column, pixels ([`SIZE_BITS`]).
    pub x: T,
    /// Top row.
    pub y: T,
    /// Width (≥ 1; `x + w` within the screen).
    pub w: T,
    /// Height (≥ 1).
    pub h: T,
    /// The tile-shader program (32 bits, the word's upper half).
    pub program: T,
    /// Thread grid width, 1 ..= 16 (5 bits).
    pub xthreads: T,
    /// Thread grid height, 1 ..= 16.
    pub ythreads: T,
}

impl ResolveDesc<u32> {
    /// The shape.
    pub const SHAPE: ResolveDesc<u32> = ResolveDesc {
        x: SIZE_BITS,
        y: SIZE_BITS,
        w: SIZE_BITS + 1,
        h: SIZE_BITS + 1,
        program: 32,
        xthreads: 5,
        ythreads: 5,
    };
}

/// The first stage of [`fe_setup`] with the varyings beside it.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct AreaVary<T = Sig> {
    /// Guard band and signed area.
    pub area: AreaStage<T>,
    /// Each vertex's varying words.
    pub vary: [Vec<T>; 3],
}

/// A triangle set up, with why it is rejected (if it is) and its varyings.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ClassTri<T = Sig> {
    /// The set-up triangle, `keep` and `reason`.
    pub kept: KeptTri<T>,
    /// Each vertex's varying words.
    pub vary: [Vec<T>; 3],
}

/// What [`fe_setup`] takes.
#[derive(Io)]
pub struct FeSetupIn {
    /// Screen-space triangles with varyings, and markers.
    pub prim: Stream<ClipOut>,
}

/// What [`fe_setup`] gives.
#[derive(Io)]
pub struct FeSetupOut {
    /// Every input, set up and classified, in order.
    pub tri: Stream<ClassTri>,
}

/// [`geom_setup`](super::setup::geom_setup)'s two stages without its filter: every triangle
/// leaves with its reject reason, and the varyings ride along.
///
/// * **Protocol:** [`pipeline`]'s. **Timing:** latency 3, initiation interval 1.
/// * **Cost:** `geom_setup`'s, and two stages of `3 · 4·S` varying words.
#[name_lets]
pub fn fe_setup(m: &mut Module, _: &FetchCfg, i: FeSetupIn) -> FeSetupOut {
    let tri = pipeline(m, "setup", i.prim, |m, st, p| {
        let area = m.child("setup_area", &(), p.prim, |m, _, p| setup_area(m, p));
        let d = st.stage(m, "area", &AreaVary { area, vary: p.vary });
        let kept = m.child("setup_edges", &(), d.area, |m, _, d| setup_edges(m, d));
        st.stage(m, "edges", &ClassTri { kept, vary: d.vary })
    });
    FeSetupOut { tri }
}

/// A kept triangle's primitive data (or a marker), for [`fe_prim_data`].
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct PrimData<T = Sig> {
    /// As [`GeomPrim::kind`](super::GeomPrim).
    pub kind: T,
    /// Primitive id.
    pub id: T,
    /// Per vertex: `rw`, then its varying words.
    pub words: Vec<T>,
}

/// The frame counters.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct FrameCounters<T = Sig> {
    /// Triangles assembled from the index buffers (fetched).
    pub triangles_in: T,
    /// Triangles with no vertex in front of the near plane.
    pub near_clipped: T,
    /// Triangles dropped for leaving the guard band.
    pub guard_band_rejects: T,
    /// Triangles removed by face culling.
    pub culled: T,
    /// Triangles kept (primitive ids given).
    pub triangles_out: T,
}

/// What [`fe_assign`] takes.
#[derive(Io)]
pub struct AssignIn {
    /// Classified triangles and markers.
    pub classified: Stream<ClassTri>,
    /// The `RESOLVE` descriptors, one per [`KIND_RESOLVE`] item.
    pub resolve: Stream<ResolveDesc>,
}

/// What [`fe_assign`] gives.
#[derive(Io)]
pub struct AssignOut {
    /// Kept triangles with their ids, RESOLVEs and markers, for the tiler.
    pub tri: Stream<SetupTri>,
    /// Kept triangles' primitive data and the markers.
    pub prim: Stream<PrimData>,
    /// Rejects counted (guard band, culled) and kept.
    pub guard_band_rejects: Sig,
    /// Triangles culled.
    pub culled: Sig,
    /// Triangles kept.
    pub triangles_out: Sig,
}

/// Drops rejected triangles (counting them by reason), numbers the kept ones after the
/// rejects (the model's `pi`), turns a [`KIND_RESOLVE`] token into the tiler's `RESOLVE` with
/// the next `resolve` descriptor, and gives each kept triangle to both the tiler and the
/// primitive-data writer (each output taken independently: a done flag per output).
///
/// * **Protocol:** stream rules; order kept on both outputs; markers go to both, RESOLVEs to
///   the tiler only.
/// * **Timing:** latency 0 (combinational); one item per clock.
/// * **Cost:** a [`PRIM_ID_BITS`] id counter, three [`COUNTER_BITS`] counters, two flags.
#[name_lets]
pub fn fe_assign(m: &mut Module, _: &FetchCfg, i: AssignIn) -> AssignOut {
    let (valid, c, ready) = i.classified.split();
    let (res_valid, r, res_ready) = i.resolve.split();
    let t = c.kept.tri;
    let is_tri = t.kind.eq(KIND_TRIANGLE);
    let is_resolve = t.kind.eq(KIND_RESOLVE);
    let begin = valid & t.kind.eq(KIND_BEGIN);
    let kept = is_tri & c.kept.reason.eq(REASON_KEPT);
    let rejected = is_tri & !kept;
    let id = m.reg("id", PRIM_ID_BITS).reset(0);
    let done_tri = m.reg("done_tri", 1).reset(0);
    let done_prim = m.reg("done_prim", 1).reset(0);

    // The tiler's item: the triangle with its id, or the RESOLVE built from its descriptor.
    let z8 = m.lit(0, 8);
    let px = |v: Sig| {
        let c = cat(&[v, z8]);
        if c.width() >= 22 {
            c.bits(21, 0)
        } else {
            c.zext(22)
        }
    };
    let resolve_tri = SetupTri {
        kind: t.kind,
        xmin: px(r.x),
        xmax: px(r.x.zext(SIZE_BITS + 1) + r.w) - 1u64,
        ymin: px(r.y),
        ymax: px(r.y.zext(SIZE_BITS + 1) + r.h) - 1u64,
        prim: r.program.bits(PRIM_ID_BITS - 1, 0),
        rw: [
            cat(&[m.lit(0, 19), r.ythreads, m.lit(0, 3), r.xthreads]),
            t.rw[1],
            t.rw[2],
        ],
        ..t.clone()
    };
    let mut tiler_item = SetupTri {
        prim: is_tri.mux(id.q(), t.prim),
        ..t.clone()
    };
    tiler_item = SetupTri {
        kind: tiler_item.kind,
        xmin: is_resolve.mux(resolve_tri.xmin, tiler_item.xmin),
        xmax: is_resolve.mux(resolve_tri.xmax, tiler_item.xmax),
        ymin: is_resolve.mux(resolve_tri.ymin, tiler_item.ymin),
        ymax: is_resolve.mux(resolve_tri.ymax, tiler_item.ymax),
        prim: is_resolve.mux(resolve_tri.prim, tiler_item.prim),
        rw: [
            is_resolve.mux(resolve_tri.rw[0], tiler_item.rw[0]),
            tiler_item.rw[1],
            tiler_item.rw[2],
        ],
        ..tiler_item
    };
    let to_tiler = valid & !rejected & (!is_resolve | res_valid) & !done_tri.q();
    let (tri, tri_ready) = Stream::offer(m, "tri", to_tiler, tiler_item);
    let words: Vec<Sig> = (0..3)
        .flat_map(|k| std::iter::once(t.rw[k]).chain(c.vary[k].iter().copied()))
        .collect();
    let to_prim = valid & !rejected & !is_resolve & !done_prim.q();
    let (prim, prim_ready) = Stream::offer(
        m,
        "prim",
        to_prim,
        PrimData {
            kind: t.kind,
            id: id.q(),
            words,
        },
    );
    let tri_ok = done_tri.q() | tri_ready;
    let prim_ok = done_prim.q() | prim_ready | is_resolve;
    let take = valid & (rejected | (!rejected & (!is_resolve | res_valid) & tri_ok & prim_ok));
    ready.drive(take);
    res_ready.drive(valid & is_resolve & take);
    done_tri.next(!take & (done_tri.q() | (to_tiler & tri_ready)));
    done_prim.next(!take & (done_prim.q() | (to_prim & prim_ready)));
    id.next(begin.mux(
        m.lit(0, PRIM_ID_BITS),
        (take & kept).mux(id.q() + 1u64, id.q()),
    ));
    let counter = |m: &mut Module, name: &str, hit: Sig| {
        let r = m.reg(name, COUNTER_BITS).reset(0);
        r.next(begin.mux(
            m.lit(0, COUNTER_BITS),
            (take & hit).mux(r.q() + 1u64, r.q()),
        ));
        r.q()
    };
    let guard = counter(
        m,
        "guard_band_rejects",
        is_tri & c.kept.reason.eq(REASON_OUT_OF_RANGE),
    );
    let culled = counter(m, "culled", is_tri & c.kept.reason.eq(REASON_CULLED));
    let out = counter(m, "triangles_out", kept);
    AssignOut {
        tri,
        prim,
        guard_band_rejects: guard,
        culled,
        triangles_out: out,
    }
}

/// What [`fe_prim_data`] takes.
#[derive(Io)]
pub struct PrimIn {
    /// Kept triangles' data and markers.
    pub prim: Stream<PrimData>,
    /// Write acknowledgements.
    pub mem_resp: Stream<MemResp>,
    /// Byte address of primitive 0's data, a multiple of 4.
    pub base: Sig,
}

/// What [`fe_prim_data`] gives.
#[derive(Io)]
pub struct PrimOut {
    /// Write bursts.
    pub mem_req: Stream<MemReq>,
    /// Write bursts not yet acknowledged (for a drain check).
    pub outstanding: Sig,
}

/// Writes each kept triangle's `n = 3·(1 + 4·S)` words at `base + 4·n·id`: beats of two words
/// (byte strobes for a half-used first or last beat), bursts that end at 128-byte boundaries
/// (never across 4 KiB), one beat per clock.
///
/// * **Protocol:** stream rules; `prim` is taken with the triangle's last beat; markers are
///   taken at once; `mem_resp` always ready (acknowledgements counted on `outstanding`).
/// * **Timing:** `ceil((n + 1)/2)` clocks per triangle at most (15 for `S = 2`).
/// * **Cost:** a beat counter, burst registers, a 32-bit `n × id` product, an `n`-word mux.
#[name_lets]
pub fn fe_prim_data(m: &mut Module, _: &FetchCfg, i: PrimIn) -> PrimOut {
    let (valid, p, ready) = i.prim.split();
    let n = p.words.len() as u64;
    let is_tri = p.kind.eq(KIND_TRIANGLE);
    // Word address of the record and whether it starts in a beat's upper half.
    let waddr = (i.base >> 2)
        + p.id
            .zext(MEM_ADDR_BITS)
            .mul_full(m.lit(n, 8))
            .bits(MEM_ADDR_BITS - 1, 0);
    let odd = waddr.bit(0);
    let total = (m.lit(n + 1, 8) + odd.zext(8)) >> 1; // beats of the record
    let first_beat = (waddr >> 1).bits(MEM_ADDR_BITS - 4, 0); // beat address / 8
    let beat = m.reg("beat", 8).reset(0);
    let burst_left = m.reg("burst_left", 5).reset(0);
    let burst_beats = m.reg("burst_beats", 5).reset(0);
    let burst_addr = m.reg("burst_addr", MEM_ADDR_BITS - 3).reset(0);
    let cur = first_beat + beat.q().zext(MEM_ADDR_BITS - 3);
    let start_burst = !burst_left.q().any();
    let left = total - beat.q();
    let to_block = m.lit(16, 5) - cur.bits(3, 0).zext(5);
    let new_beats = left
        .zext(8)
        .lt(to_block.zext(8))
        .mux(left.bits(4, 0), to_block);
    let in_burst = start_burst.mux(new_beats, burst_left.q());
    // Words of this beat: record words 2·beat − odd and 2·beat + 1 − odd.
    let lo_index = (beat.q().zext(9) << 1) - odd.zext(9);
    let pick = |k: Sig| {
        let mut v = p.words[0];
        for (j, w) in p.words.iter().enumerate().skip(1) {
            v = k.eq(j as u64).mux(*w, v);
        }
        v
    };
    let lo_ok = !(beat.q().eq(0) & odd);
    let hi_index = lo_index + 1u64;
    let hi_ok = hi_index.lt(n);
    let req = MemReq {
        write: m.lit(1, 1),
        addr: cat(&[start_burst.mux(cur, burst_addr.q()), m.lit(0, 3)]),
        beats: (start_burst.mux(new_beats, burst_beats.q()) - 1u64).bits(MEM_BEATS_BITS - 1, 0),
        data: cat(&[pick(hi_index), pick(lo_index)]),
        strobe: cat(&[hi_ok.repeat(4), lo_ok.repeat(4)]),
        last: in_burst.eq(1u64),
    };
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", valid & is_tri, req);
    let fire = valid & is_tri & req_ready;
    let record_done = fire & beat.q().eq(total - 1u64);
    beat.next(record_done.mux(m.lit(0, 8), fire.mux(beat.q() + 1u64, beat.q())));
    burst_left.next(fire.mux(in_burst - 1u64, burst_left.q()));
    burst_addr.next_when(fire & start_burst, cur);
    burst_beats.next_when(fire & start_burst, new_beats);
    ready.drive(record_done | (valid & !is_tri));
    let (resp_valid, resp, resp_ready) = i.mem_resp.split();
    resp_ready.drive(m.lit(1, 1));
    let acked = resp_valid & resp.write;
    let outstanding = m.reg("outstanding", 16).reset(0);
    let sent = fire & start_burst;
    outstanding.next(
        outstanding.q() + sent.mux(m.lit(1, 16), m.lit(0, 16))
            - acked.mux(m.lit(1, 16), m.lit(0, 16)),
    );
    PrimOut {
        mem_req,
        outstanding: outstanding.q(),
    }
}

/// What [`tile_frontend`] takes.
#[derive(Io)]
pub struct FrontIn {
    /// Meshes, RESOLVE tokens and frame markers, in submission order.
    pub mesh: Stream<MeshDesc>,
    /// The RESOLVEs' descriptors.
    pub resolve: Stream<ResolveDesc>,
    /// Answers to the fetch reads.
    pub fetch_mem_resp: Stream<MemResp>,
    /// List write acknowledgements.
    pub lists_mem_resp: Stream<MemResp>,
    /// Primitive-data write acknowledgements.
    pub prim_mem_resp: Stream<MemResp>,
    /// Screen width in pixels ([`SIZE_BITS`]).
    pub width: Sig,
    /// Screen height in pixels.
    pub height: Sig,
    /// Byte address of primitive 0's data (a multiple of 4).
    pub prim_base: Sig,
    /// The lists' configuration (tiles, bins, clear values).
    pub frame: FrameCfg,
}

/// What [`tile_frontend`] gives.
#[derive(Io)]
pub struct FrontOut {
    /// Index and vertex reads.
    pub fetch_mem_req: Stream<MemReq>,
    /// List writes.
    pub lists_mem_req: Stream<MemReq>,
    /// Primitive-data writes.
    pub prim_mem_req: Stream<MemReq>,
    /// Each tile's list at the frame's end, row-major.
    pub list: Stream<TileList>,
    /// The frame counters.
    pub counters: FrameCounters,
    /// Primitive-data writes not yet acknowledged.
    pub prim_outstanding: Sig,
    /// Sticky: an index out of range (see `geom_fetch`).
    pub error: Sig,
    /// The first bad triangle's draw state.
    pub error_state: Sig,
    /// Its triangle number.
    pub error_tri: Sig,
    /// The bad index.
    pub error_index: Sig,
    /// Sticky: a list bin overflowed.
    pub overflow: Sig,
}

/// The geometry front end (module docs): [`geom_fetch`] → [`geom_clip`] → [`fe_setup`] →
/// [`fe_assign`] → [`geom_bin`] → [`geom_lists`], and [`fe_prim_data`].
///
/// * **Ports:** [`FrontIn`], [`FrontOut`].
/// * **Protocol:** stream rules everywhere; lists and primitive data in submission order.
/// * **Timing:** the slowest stage sets the pace: the tiler (two divisions per triangle and
///   one per tile touched) for most triangles, the fetch (`3·(1 + S) + 2` reads) for tiny ones.
/// * **Cost:** the children's (`rendergen synth tile_frontend --per-module`).
/// * **Errors:** elaboration rejects parameters outside [`FetchCfg`]'s and [`GeomCfg`]'s ranges.
pub fn tile_frontend(m: &mut Module, cfg: &FrontCfg, i: FrontIn) -> FrontOut {
    let fetch = m.child(
        "fetch",
        &cfg.fetch,
        FetchIn {
            mesh: i.mesh,
            mem_resp: i.fetch_mem_resp,
        },
        geom_fetch,
    );
    // Count the fetched triangles and those wholly behind the near plane.
    let (fv, ft, fr) = fetch.tri.split();
    let (clip_in, clip_ready) = Stream::offer(m, "clip_in", fv, ft.clone());
    fr.drive(clip_ready);
    let fired = fv & clip_ready;
    let fetched_tri = ft.info.kind.eq(KIND_TRIANGLE);
    let begin = fired & ft.info.kind.eq(KIND_BEGIN);
    let behind = !(0..3)
        .map(|k| non_negative(ft.v[k].pos[2]))
        .fold(m.lit(0, 1), |a, b| a | b);
    let counter = |m: &mut Module, name: &str, hit: Sig| {
        let r = m.reg(name, COUNTER_BITS).reset(0);
        r.next(begin.mux(
            m.lit(0, COUNTER_BITS),
            (fired & hit).mux(r.q() + 1u64, r.q()),
        ));
        r.q()
    };
    let triangles_in = counter(m, "triangles_in", fetched_tri);
    let near_clipped = counter(m, "near_clipped", fetched_tri & behind);
    let clip = m.child(
        "clip",
        &cfg.fetch.clip(),
        ClipIn {
            tri: clip_in,
            width: i.width,
            height: i.height,
        },
        geom_clip,
    );
    let setup = m.child("setup", &cfg.fetch, FeSetupIn { prim: clip.out }, fe_setup);
    let assign = m.child(
        "assign",
        &cfg.fetch,
        AssignIn {
            classified: setup.tri,
            resolve: i.resolve,
        },
        fe_assign,
    );
    let prim = m.child(
        "prim_data",
        &cfg.fetch,
        PrimIn {
            prim: assign.prim,
            mem_resp: i.prim_mem_resp,
            base: i.prim_base,
        },
        fe_prim_data,
    );
    let bin = m.child(
        "bin",
        &cfg.geom,
        BinIn {
            tri: assign.tri,
            tiles_x: i.frame.tiles_x,
            tiles_y: i.frame.tiles_y,
        },
        geom_bin,
    );
    let lists = m.child(
        "lists",
        &cfg.geom,
        ListsIn {
            draw: bin.draw,
            mem_resp: i.lists_mem_resp,
            cfg: i.frame,
        },
        geom_lists,
    );
    FrontOut {
        fetch_mem_req: fetch.mem_req,
        lists_mem_req: lists.mem_req,
        prim_mem_req: prim.mem_req,
        list: lists.list,
        counters: FrameCounters {
            triangles_in,
            near_clipped,
            guard_band_rejects: assign.guard_band_rejects,
            culled: assign.culled,
            triangles_out: assign.triangles_out,
        },
        prim_outstanding: prim.outstanding,
        error: fetch.error,
        error_state: fetch.error_state,
        error_tri: fetch.error_tri,
        error_index: fetch.error_index,
        overflow: lists.overflow,
    }
}

/// `z ≥ 0` of a binary32 `z` (−0 yes, NaN no): the model's inside test of `clip_near`.
fn non_negative(z: Sig) -> Sig {
    let magnitude_zero = z.bits(30, 0).eq(0);
    let nan = z.bits(30, 23).all() & z.bits(22, 0).any();
    magnitude_zero | (!z.bit(31) & !nan)
}

/// The catalogue top `tile_frontend`: [`tile_frontend`] with its ports at the top.
pub fn tile_frontend_top(cfg: &FrontCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("tile_frontend", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let mesh = m.input_stream::<MeshDesc>("mesh", &MeshDesc::SHAPE);
        let resolve = m.input_stream::<ResolveDesc>("resolve", &ResolveDesc::SHAPE);
        let fetch_mem_resp = m.input_stream::<MemResp>("fetch_mem_resp", &MemResp::SHAPE);
        let lists_mem_resp = m.input_stream::<MemResp>("lists_mem_resp", &MemResp::SHAPE);
        let prim_mem_resp = m.input_stream::<MemResp>("prim_mem_resp", &MemResp::SHAPE);
        let frame = FrameCfg {
            tiles_x: m.input("cfg_tiles_x", TILES_BITS),
            tiles_y: m.input("cfg_tiles_y", TILES_BITS),
            base: m.input("cfg_base", MEM_ADDR_BITS),
            clear: (0..cfg.geom.planes)
                .map(|p| m.input(&format!("cfg_clear_{p}"), 64))
                .collect(),
        };
        let width = m.input("cfg_width", SIZE_BITS);
        let height = m.input("cfg_height", SIZE_BITS);
        let prim_base = m.input("cfg_prim_base", MEM_ADDR_BITS);
        let out = tile_frontend(
            m,
            cfg,
            FrontIn {
                mesh,
                resolve,
                fetch_mem_resp,
                lists_mem_resp,
                prim_mem_resp,
                width,
                height,
                prim_base,
                frame,
            },
        );
        m.output_stream("fetch_mem_req", out.fetch_mem_req);
        m.output_stream("lists_mem_req", out.lists_mem_req);
        m.output_stream("prim_mem_req", out.prim_mem_req);
        m.output_stream("list", out.list);
        let c = out.counters;
        m.output("triangles_in", c.triangles_in);
        m.output("near_clipped", c.near_clipped);
        m.output("guard_band_rejects", c.guard_band_rejects);
        m.output("culled", c.culled);
        m.output("triangles_out", c.triangles_out);
        m.output("prim_outstanding", out.prim_outstanding);
        m.output("error", out.error);
        m.output("error_state", out.error_state);
        m.output("error_tri", out.error_tri);
        m.output("error_index", out.error_index);
        m.output("overflow", out.overflow);
    })
}
