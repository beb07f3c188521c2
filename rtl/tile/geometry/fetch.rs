//! `geom_fetch`: index fetch and primitive assembly of triangle lists (issue 13 §1
//! "Geometry"): per mesh, the 32-bit index buffer and, per triangle, its three vertices from
//! the post-transform vertex buffer, through the engine's memory port, as clip-space
//! triangles for [`geom_clip`](super::clip::geom_clip).
//!
//! ```text
//!  mesh ─► fetch_walk ──idx_req──► arbiter ─► mem_req        (tag FIFO: index or vertex read)
//!            │ pending FIFO          ▲ vertex first
//!            ▼                       │
//!          fetch_issue ──vtx_req─────┘   mem_resp ─► index beats ─► index FIFO ─► fetch_issue
//!  (index check, 3·(1+S) vec4 reads)              └► vertex beats ─► fetch_gather ─► tri
//!            └──── info FIFO (kind, ids, state) ──────────────────────►┘
//! ```
//!
//! # Memory layout (the interface with vertex shading)
//! * **Index buffer:** triangle `t` of a mesh is the three little-endian 32-bit words at
//!   `index_base + 12·t` (`index_base` a multiple of 4). Each triangle costs two single-beat
//!   reads (the two beats holding its 12 bytes), so none crosses a 4 KiB boundary.
//! * **Post-transform vertex buffer:** vertex `v` at `ptv_base + v·(16 + 16·S)` (`ptv_base` a
//!   multiple of 16; `S` = [`FetchCfg::slots`]): position x, y, z, w (binary32), then `S` vec4
//!   varying slots — the frame model's `ClipVertex { pos, vary }`. Each vec4 is one two-beat
//!   burst (16 bytes at a multiple of 16: never across 4 KiB), `3·(1 + S)` per triangle.
//!
//! # Errors
//! An index not below the mesh's `vertices` sets the sticky `error` with the mesh's `state`,
//! the triangle number and the index (the first error is kept); the triangle is dropped and
//! fetching goes on, so a frame always completes (the frame model stops with an error there).
use super::clip::{ClipCfg, ClipTri, ClipVert, TriInfo};
use super::{KIND_TRIANGLE, PRIM_ID_BITS};
use crate::stream::arbiter::{arbiter, ArbPolicy};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use crate::tile::mem_port::{MemReq, MemResp, MEM_ADDR_BITS};
use rendergen_hdl::{cat, clog2, name_lets, Bundle, Design, ElabErrors, Io, Module, Sig, Stream};
use std::ops::RangeInclusive;

/// Legal [`FetchCfg::slots`].
pub const SLOTS: RangeInclusive<u64> = 0..=8;
/// Legal [`FetchCfg::outstanding`].
pub const OUTSTANDING: RangeInclusive<u64> = 2..=64;
/// Triangles whose index reads may be in flight or waiting (the index FIFO's depth).
pub const INDEX_DEPTH: u32 = 4;

/// Parameters of [`geom_fetch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FetchCfg {
    /// Varying slots (vec4) per vertex, `S`, 0 ..= 8. Default 2 (the model's `slots_max`).
    pub slots: u32,
    /// Memory reads in flight, 2 ..= 64 (the tag FIFO's depth). Default 8.
    pub outstanding: u32,
}

impl Default for FetchCfg {
    fn default() -> Self {
        FetchCfg {
            slots: 2,
            outstanding: 8,
        }
    }
}

impl FetchCfg {
    /// Checks the parameters (an elaboration error names the parameter and its range).
    pub fn check(&self, m: &mut Module) -> bool {
        let a = m.check_param("slots", self.slots.into(), SLOTS);
        let b = m.check_param("outstanding", self.outstanding.into(), OUTSTANDING);
        a && b
    }

    /// The clipper's configuration for these vertices (`4·slots` varying words).
    pub fn clip(&self) -> ClipCfg {
        ClipCfg {
            varyings: 4 * self.slots,
        }
    }

    /// Bytes of a post-transform vertex, `16 + 16·S`.
    pub fn stride(&self) -> u64 {
        16 * (1 + u64::from(self.slots))
    }
}

/// A mesh to fetch, or a frame marker (`kind`), in submission order.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct MeshDesc<T = Sig> {
    /// [`KIND_TRIANGLE`] for a mesh, else a marker passed on in order.
    pub kind: T,
    /// Byte address of the index buffer, a multiple of 4.
    pub index_base: T,
    /// Triangles (index count / 3), [`PRIM_ID_BITS`]; 0 fetches nothing.
    pub triangles: T,
    /// Byte address of vertex 0 in the post-transform buffer, a multiple of 16.
    pub ptv_base: T,
    /// Vertices of the mesh: every index must be below it (32 bits).
    pub vertices: T,
    /// Draw state (the pass's mesh index), 8 bits.
    pub state: T,
    /// Cull mode (as [`GeomPrim::cull`](super::GeomPrim)).
    pub cull: T,
    /// Clockwise is front.
    pub front_cw: T,
    /// Depth compare op, 3 bits.
    pub depth_op: T,
    /// Depth write.
    pub depth_write: T,
}

impl MeshDesc<u32> {
    /// The shape.
    pub const SHAPE: MeshDesc<u32> = MeshDesc {
        kind: 2,
        index_base: MEM_ADDR_BITS,
        triangles: PRIM_ID_BITS,
        ptv_base: MEM_ADDR_BITS,
        vertices: 32,
        state: 8,
        cull: 2,
        front_cw: 1,
        depth_op: 3,
        depth_write: 1,
    };
}

/// A triangle whose indices are being read (or a marker), from the walker to the issuer.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct PendingTri<T = Sig> {
    /// Kind, triangle number (in `prim`), draw and raster state.
    pub info: TriInfo<T>,
    /// The indices start at byte 4 of the first beat read.
    pub odd: T,
    /// The mesh's post-transform base.
    pub ptv_base: T,
    /// The mesh's vertex count.
    pub vertices: T,
}

/// A read on the memory port before its tag is recorded.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct ReadReq<T = Sig> {
    /// Byte address, a multiple of 8.
    pub addr: T,
    /// An index read (one beat), else a vertex read (two beats).
    pub index: T,
}

/// What [`fetch_walk`] takes.
#[derive(Io)]
pub struct WalkIn {
    /// Meshes and markers.
    pub mesh: Stream<MeshDesc>,
    /// A triangle's index reads may start (a credit of the index FIFO).
    pub credit: Sig,
}

/// What [`fetch_walk`] gives.
#[derive(Io)]
pub struct WalkOut {
    /// Index reads, two single beats per triangle.
    pub req: Stream<ReadReq>,
    /// The triangles (and markers) in order.
    pub pending: Stream<PendingTri>,
    /// A triangle's first index read was issued (spends a credit).
    pub take: Sig,
}

/// Walks the triangles of each mesh: two index reads per triangle, the first together with its
/// `pending` entry; markers go to `pending` alone.
///
/// * **Protocol:** stream rules; `mesh` is taken with its last triangle's second read.
/// * **Timing:** two clocks per triangle at best; `req.ready → mesh.ready` combinational.
/// * **Cost:** a [`PRIM_ID_BITS`] triangle counter, a step bit, a 32-bit address adder.
#[name_lets]
pub fn fetch_walk(m: &mut Module, _: &FetchCfg, i: WalkIn) -> WalkOut {
    let (mesh_valid, d, mesh_ready) = i.mesh.split();
    let tri = m.reg("tri", PRIM_ID_BITS).reset(0);
    let second = m.reg("second", 1).reset(0);
    let marker = d.kind.ne(KIND_TRIANGLE);
    let empty = !marker & d.triangles.eq(0);
    let addr =
        d.index_base + (tri.q().zext(MEM_ADDR_BITS) << 3) + (tri.q().zext(MEM_ADDR_BITS) << 2);
    let beat_addr = cat(&[addr.bits(MEM_ADDR_BITS - 1, 3), m.lit(0, 3)]);
    let info = TriInfo {
        kind: d.kind,
        prim: tri.q(),
        state: d.state,
        cull: d.cull,
        front_cw: d.front_cw,
        depth_op: d.depth_op,
        depth_write: d.depth_write,
    };
    let pend = PendingTri {
        info,
        odd: addr.bit(2),
        ptv_base: d.ptv_base,
        vertices: d.vertices,
    };
    // The first read goes with the triangle's `pending` entry (that FIFO's ready is `!full`,
    // independent of its valid: no loop through `req.ready`).
    let pending_room = m.wire("pending_room", 1);
    let first_ok = !second.q() & i.credit & pending_room.sig();
    let req = ReadReq {
        addr: second.q().mux(beat_addr + 8u64, beat_addr),
        index: m.lit(1, 1),
    };
    let issuing = mesh_valid & !marker & !empty & (second.q() | first_ok);
    let (req, req_ready) = Stream::offer(m, "req", issuing, req);
    let fire = issuing & req_ready;
    let (pending, pending_ready) = Stream::offer(
        m,
        "pending",
        mesh_valid & (marker | (first_ok & !empty & req_ready)),
        pend,
    );
    pending_room.drive(pending_ready);
    let take = fire & !second.q();
    let last_tri = tri.q().eq(d.triangles - 1u64);
    let tri_done = fire & second.q();
    second.next(fire.mux(!second.q(), second.q()));
    tri.next(tri_done.mux(
        last_tri.mux(m.lit(0, PRIM_ID_BITS), tri.q() + 1u64),
        tri.q(),
    ));
    mesh_ready.drive((marker & pending_ready) | empty | (tri_done & last_tri));
    WalkOut { req, pending, take }
}

/// A triangle's index words (the two beats that hold them).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct IndexBeats<T = Sig> {
    /// The first beat.
    pub lo: T,
    /// The second beat.
    pub hi: T,
}

/// What [`fetch_issue`] takes.
#[derive(Io)]
pub struct IssueIn {
    /// Triangles and markers in order.
    pub pending: Stream<PendingTri>,
    /// Each triangle's index beats, in order.
    pub index: Stream<IndexBeats>,
}

/// What [`fetch_issue`] gives.
#[derive(Io)]
pub struct IssueOut {
    /// Vertex reads (two-beat bursts, one vec4 each).
    pub req: Stream<ReadReq>,
    /// What each fetched triangle (or marker) is, in order, for the gatherer.
    pub info: Stream<TriInfo>,
    /// Sticky: an index was out of range.
    pub error: Sig,
    /// The first bad triangle's draw state.
    pub error_state: Sig,
    /// Its triangle number in the mesh.
    pub error_tri: Sig,
    /// The bad index.
    pub error_index: Sig,
}

/// Checks a triangle's indices against the vertex count and issues its `3·(1 + S)` vertex
/// reads, one per clock; its `info` goes with the last one.
///
/// * **Protocol:** stream rules; `pending` and `index` are taken with the last read (or at once
///   for a bad triangle; a marker takes `pending` alone with its `info`).
/// * **Timing:** `3·(1 + S)` clocks per triangle; `req.ready → pending.ready` combinational.
/// * **Cost:** a vertex and a slot counter, three 32-bit comparators, a `32 × 4` product.
#[name_lets]
pub fn fetch_issue(m: &mut Module, cfg: &FetchCfg, i: IssueIn) -> IssueOut {
    let (pend_valid, p, pend_ready) = i.pending.split();
    let (index_valid, b, index_ready) = i.index.split();
    let marker = p.info.kind.ne(KIND_TRIANGLE);
    let lo = |w: Sig| w.bits(31, 0);
    let hi = |w: Sig| w.bits(63, 32);
    let odd = p.odd;
    let idx = [
        odd.mux(hi(b.lo), lo(b.lo)),
        odd.mux(lo(b.hi), hi(b.lo)),
        odd.mux(hi(b.hi), lo(b.hi)),
    ];
    let bad_k: Vec<Sig> = idx.iter().map(|&x| x.ge(p.vertices)).collect();
    let bad = bad_k[0] | bad_k[1] | bad_k[2];
    let bad_index = bad_k[0].mux(idx[0], bad_k[1].mux(idx[1], idx[2]));
    let have = pend_valid & !marker & index_valid;

    let slots = u64::from(cfg.slots);
    let slot_bits = clog2(slots + 1).max(1);
    let vertex = m.reg("vertex", 2).reset(0);
    let slot = m.reg("slot", slot_bits).reset(0);
    let at = vertex
        .q()
        .eq(0)
        .mux(idx[0], vertex.q().eq(1).mux(idx[1], idx[2]));
    let record = at.mul_full(m.lit(1 + slots, 4)).bits(MEM_ADDR_BITS - 5, 0);
    let offset = cat(&[record + slot.q().zext(MEM_ADDR_BITS - 4), m.lit(0, 4)]);
    let last_slot = slot.q().eq(slots);
    let last = vertex.q().eq(2) & last_slot;

    let info_room = m.wire("info_room", 1);
    let req = ReadReq {
        addr: p.ptv_base + offset,
        index: m.lit(0, 1),
    };
    let offer = have & !bad & (!last | info_room.sig());
    let (req, req_ready) = Stream::offer(m, "req", offer, req);
    let fire = offer & req_ready;
    let (info, info_ready) = Stream::offer(
        m,
        "info",
        pend_valid & (marker | (have & !bad & last & req_ready)),
        p.info.clone(),
    );
    info_room.drive(info_ready);
    let rejected = have & bad;
    let tri_done = fire & last;
    slot.next(fire.mux(
        last_slot.mux(m.lit(0, slot_bits), slot.q() + 1u64),
        slot.q(),
    ));
    vertex.next(fire.mux(
        last.mux(m.lit(0, 2), last_slot.mux(vertex.q() + 1u64, vertex.q())),
        vertex.q(),
    ));
    pend_ready.drive(tri_done | rejected | (marker & info_ready));
    index_ready.drive(tri_done | rejected);

    let error = m.reg("error", 1).reset(0);
    let first = rejected & !error.q();
    error.next(error.q() | rejected);
    let error_state = m.reg("error_state", 8).reset(0);
    let error_tri = m.reg("error_tri", PRIM_ID_BITS).reset(0);
    let error_index = m.reg("error_index", 32).reset(0);
    error_state.next_when(first, p.info.state);
    error_tri.next_when(first, p.info.prim);
    error_index.next_when(first, bad_index);
    IssueOut {
        req,
        info,
        error: error.q(),
        error_state: error_state.q(),
        error_tri: error_tri.q(),
        error_index: error_index.q(),
    }
}

/// What [`fetch_gather`] takes.
#[derive(Io)]
pub struct GatherIn {
    /// The vertex reads' data beats, in order.
    pub beat: Stream<Sig>,
    /// What each triangle or marker is.
    pub info: Stream<TriInfo>,
}

/// What [`fetch_gather`] gives.
#[derive(Io)]
pub struct GatherOut {
    /// Clip-space triangles and markers.
    pub tri: Stream<ClipTri>,
}

/// Gathers a triangle's `6·(1 + S)` data beats into a [`ClipTri`]: all but the last are
/// stored, the last passes through with them.
///
/// * **Protocol:** stream rules; `tri.ready → beat.ready` combinational on a last beat.
/// * **Cost:** `6·(1 + S) − 1` 64-bit beat registers and a beat counter.
#[name_lets]
pub fn fetch_gather(m: &mut Module, cfg: &FetchCfg, i: GatherIn) -> GatherOut {
    let (beat_valid, data, beat_ready) = i.beat.split();
    let (info_valid, info, info_ready) = i.info.split();
    let per_vertex = 2 + 2 * cfg.slots as usize;
    let n = 3 * per_vertex;
    let count_bits = clog2(n as u64);
    let count = m.reg("count", count_bits).reset(0);
    let last = count.q().eq((n - 1) as u64);
    let stored: Vec<Sig> = (0..n - 1)
        .map(|k| {
            let r = m.reg(&format!("beat_{k}"), 64);
            r.next_when(beat_valid & count.q().eq(k as u64), data);
            r.q()
        })
        .collect();
    let beats: Vec<Sig> = stored.iter().copied().chain([data]).collect();
    let marker = info.kind.ne(KIND_TRIANGLE);
    let zero = m.lit(0, 32);
    let word = |w: usize| -> Sig {
        let b = beats[w / 2];
        let x = if w.is_multiple_of(2) {
            b.bits(31, 0)
        } else {
            b.bits(63, 32)
        };
        marker.mux(zero, x)
    };
    let v: [ClipVert; 3] = std::array::from_fn(|k| {
        let base = 2 * per_vertex * k;
        ClipVert {
            pos: std::array::from_fn(|c| word(base + c)),
            vary: (4..2 * per_vertex).map(|c| word(base + c)).collect(),
        }
    });
    let tri = ClipTri { info, v };
    let valid = info_valid & (marker | (beat_valid & last));
    let (tri, tri_ready) = Stream::offer(m, "tri", valid, tri);
    let taken = valid & tri_ready;
    info_ready.drive(taken);
    beat_ready.drive(!last | (taken & !marker));
    let step = beat_valid & (!last | (taken & !marker));
    count.next(step.mux(last.mux(m.lit(0, count_bits), count.q() + 1u64), count.q()));
    GatherOut { tri }
}

/// What [`geom_fetch`] takes.
#[derive(Io)]
pub struct FetchIn {
    /// Meshes and frame markers, in submission order.
    pub mesh: Stream<MeshDesc>,
    /// Memory answers (read data, in request order).
    pub mem_resp: Stream<MemResp>,
}

/// What [`geom_fetch`] gives.
#[derive(Io)]
pub struct FetchOut {
    /// Reads of indices and vertices.
    pub mem_req: Stream<MemReq>,
    /// Clip-space triangles and the markers, in order.
    pub tri: Stream<ClipTri>,
    /// Sticky: an index was not below its mesh's vertex count.
    pub error: Sig,
    /// The first bad triangle's draw state (its mesh).
    pub error_state: Sig,
    /// Its triangle number in the mesh.
    pub error_tri: Sig,
    /// The bad index.
    pub error_index: Sig,
}

/// Index fetch and primitive assembly (module docs): [`fetch_walk`] → [`fetch_issue`] →
/// [`fetch_gather`], one read per clock on `mem_req`, up to `outstanding` in flight.
///
/// * **Ports:** `mesh` ([`MeshDesc`]), `mem_req`/`mem_resp` (the memory port, reads only),
///   `tri` ([`ClipTri`] with `4·slots` varying words), `error`, `error_state`, `error_tri`,
///   `error_index`.
/// * **Protocol:** stream rules; triangles leave in index-buffer order, meshes and markers in
///   submission order; `mem_resp` is taken as the beats can be stored.
/// * **Timing:** per triangle `3·(1 + S) + 2` reads (11 for `S = 2`) at one per clock and
///   `6·(1 + S) + 2` answer beats (20) at one per clock: the beats set the pace, a triangle
///   every `6·(1 + S) + 2` clocks when memory keeps up (measured 19.6 clocks per triangle,
///   `S = 2`, latency 1: `geometry_fetch::one_data_beat_per_clock`); a triangle leaves in the
///   clock of its last data beat.
/// * **Parameters:** [`FetchCfg`].
/// * **Cost** (default, `S = 2`, 8 reads in flight; Yosys generic, unflattened, measured with
///   `cargo test -p rendergen-testbenches --test testbenches
///   tile::geometry_fetch::measure_area -- --ignored --nocapture`, the library call behind
///   `rendergen synth geom_fetch --per-module`): 7,553 cells, 2,834 flip-flops, 37 gate
///   levels; `fetch_gather` 2,323 cells / 1,093 flops (17 beat registers), `fetch_issue`
///   1,260, `fetch_walk` 759, the FIFOs, credits and arbiter 3,211 / 1,647.
/// * **Errors:** elaboration rejects parameters outside their ranges (at the top).
pub fn geom_fetch(m: &mut Module, cfg: &FetchCfg, i: FetchIn) -> FetchOut {
    let credit = m.wire("index_credit", 1);
    let give = m.wire("index_pop", 1);
    let walk = m.child(
        "walk",
        cfg,
        WalkIn {
            mesh: i.mesh,
            credit: credit.sig(),
        },
        fetch_walk,
    );
    let credits = credit_counter(m, INDEX_DEPTH, walk.take, give.sig());
    credit.drive(credits.available);
    let pending = fifo(m, &FifoCfg { depth: 8 }, walk.pending).pop;

    // Index beats: the first of a pair waits in a register, the pair goes to the FIFO.
    let (resp_valid, resp, resp_ready) = i.mem_resp.split();
    let tag_push = m.wire("tag_push", 1);
    let tag_in = m.wire("tag_in", 1);
    let (tag_stream, tag_push_ready) = Stream::offer(m, "tag", tag_push.sig(), tag_in.sig());
    let tags = fifo(
        m,
        &FifoCfg {
            depth: cfg.outstanding,
        },
        tag_stream,
    );
    let (tag_valid, tag_index, tag_ready) = tags.pop.split();
    let to_index = resp_valid & tag_valid & tag_index;
    let to_vertex = resp_valid & tag_valid & !tag_index;
    let half = m.reg("index_half", 1).reset(0);
    let held = m.reg("index_held", 64);
    held.next_when(to_index & !half.q(), resp.data);
    half.next(to_index.mux(!half.q(), half.q()));
    let (index_stream, _) = Stream::offer(
        m,
        "index_pair",
        to_index & half.q(),
        IndexBeats {
            lo: held.q(),
            hi: resp.data,
        },
    );
    let index = fifo(m, &FifoCfg { depth: INDEX_DEPTH }, index_stream);
    let (idx_valid, idx_data, idx_ready) = index.pop.split();
    let (idx_stream, idx_taken) = Stream::offer(m, "index", idx_valid, idx_data);
    idx_ready.drive(idx_taken);
    give.drive(idx_valid & idx_taken);

    let issue = m.child(
        "issue",
        cfg,
        IssueIn {
            pending,
            index: idx_stream,
        },
        fetch_issue,
    );
    let info = fifo(m, &FifoCfg { depth: 4 }, issue.info).pop;
    let (beat, beat_ready) = Stream::offer(m, "vertex_beat", to_vertex, resp.data);
    let taken = to_index | (to_vertex & beat_ready);
    resp_ready.drive(taken);
    tag_ready.drive(taken & resp.last);
    let gather = m.child("gather", cfg, GatherIn { beat, info }, fetch_gather);

    // One read per clock: vertex reads first (they drain the pipeline).
    let granted = arbiter(m, ArbPolicy::Priority, vec![issue.req, walk.req]).out;
    let (req_valid, r, req_ready) = granted.split();
    let valid = req_valid & tag_push_ready;
    let req = MemReq {
        write: m.lit(0, 1),
        addr: r.addr,
        beats: r.index.mux(m.lit(0, 4), m.lit(1, 4)),
        data: m.lit(0, 64),
        strobe: m.lit(0, 8),
        last: m.lit(0, 1),
    };
    let (mem_req, mem_ready) = Stream::offer(m, "mem_req", valid, req);
    let fire = valid & mem_ready;
    req_ready.drive(fire);
    tag_push.drive(fire);
    tag_in.drive(r.index);
    FetchOut {
        mem_req,
        tri: gather.tri,
        error: issue.error,
        error_state: issue.error_state,
        error_tri: issue.error_tri,
        error_index: issue.error_index,
    }
}

/// The catalogue top `geom_fetch`: [`geom_fetch`] with its ports at the top.
///
/// ```
/// use rendergen_rtl::tile::geometry::fetch::{geom_fetch_top, FetchCfg};
/// let d = geom_fetch_top(&FetchCfg { slots: 1, outstanding: 4 }).unwrap();
/// assert_eq!(d.top().name, "geom_fetch");
/// assert!(geom_fetch_top(&FetchCfg { slots: 9, outstanding: 4 }).is_err());
/// ```
pub fn geom_fetch_top(cfg: &FetchCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("geom_fetch", &format!("{cfg:?}"), |m| {
        if !cfg.check(m) {
            return;
        }
        let mesh = m.input_stream::<MeshDesc>("mesh", &MeshDesc::SHAPE);
        let mem_resp = m.input_stream::<MemResp>("mem_resp", &MemResp::SHAPE);
        let out = geom_fetch(m, cfg, FetchIn { mesh, mem_resp });
        m.output_stream("mem_req", out.mem_req);
        m.output_stream("tri", out.tri);
        m.output("error", out.error);
        m.output("error_state", out.error_state);
        m.output("error_tri", out.error_tri);
        m.output("error_index", out.error_index);
    })
}
