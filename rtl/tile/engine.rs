//! The tile engine (`tile_engine`, issue 13 §1): the per-tile back end with a shader core that
//! runs the fragment shaders and the tile shader, around one memory port.
//!
//! ```text
//!  list ─► tile_backend ─ quad ─► frag_launch ─┐              ┌─ export, done ─► frag_exports ─ pixel, quad_retired ─► tile_backend
//!            │  ts_launch ─► ts_launcher ──────┴─ launch_mux ─► core (shader_core) ─ spec ─┬► spec_bridge ─ ts_req/ts_resp ⇄ tile_backend   (tile-shader warps)
//!            │                                                   │                          └► image_load ─┐                                  (fragment warps)
//!            │                                                   │ ldg/stg ─► core_mem ─► core_merge ◄──┘    └─ ts_done (flags, when the RESOLVE's warps are done)
//!            │                                                   │ tex ─► tex_binder ─► tex_bridge ─► texture ─► tex_line_port ─┐
//!            │                                                   │                                  texture_merge ◄─ core_merge ┘
//!  mem_req ◄─ mem_merge ◄─ tile_backend's requests ──────────────┴────────────────┘               ldu ─► uniforms
//! ```
//!
//! With the geometry front end ([`EngineCfg::geometry`]) the lists are made on chip:
//!
//! ```text
//!  mesh, resolve, geom_* ─► tile_frontend ─ list ─► (barrier: no primitive-data write unacknowledged) ─► tile_backend
//!    fetch_mem ─┐                    prim_mem ─┘ lists_mem ─┐
//!  (answers through geom_fetch_buffer)
//!               └─► geom_fetch_merge ─► geom_merge ◄─────────┘
//!                                          └─► geom_side_merge (with tile_backend's requests) ─► mem_merge
//! ```
//!
//! # Memory merge order
//! Every merge is a [`mem_merge`] (two inputs, in-order answers by an order FIFO, the grant
//! alternating when both wait and held by a write burst of either side until its `last`
//! beat). Without the front end: `vertex_merge` (`core_mem`, the vertex sink) →
//! `core_merge` (+ `image_load`) → `texture_merge` (+ `tex_line_port`, when the texture unit is
//! built) → `mem_merge` (the back end's side first). With it, the back end's side is itself a
//! merge: `geom_fetch_merge` (index and vertex reads, primitive-data writes) → `geom_merge`
//! (+ list writes) → `geom_side_merge` (`tile_backend`'s requests first) → `mem_merge`.
//!
//! # Ports
//! * `vertex` (a mesh's vertices to shade, module section "Vertex shading"),
//!   `list` (a tile's command list; without the front end), `config_*` (the write-out's
//!   static configuration),
//!   `mem_req`/`mem_resp` (the memory port, `mem_port.rs`).
//! * `prog` (program words into the core's instruction memory, accepted while no warp runs:
//!   the driver loads every program of the frame before the first tile — draw state `s`'s
//!   fragment program, prologue first, at word `s · 2^entry_log2`, tile program `p` at
//!   `(program_base + p) · 2^entry_log2`), `uniform` (writes of the uniform memory),
//!   `program_base`, `bases_<b>` (storage binding `b`'s byte address), `blend_<s>_<rt>_*`
//!   (draw state `s`'s blend state of colour target `rt`, `s` < [`FragCfg::states`]),
//!   `late_depth` (bit `s`: draw state `s`'s fragment shader writes depth), `images_*` (the image-load unit's
//!   surface table, [`super::image_load::ImageTable`] with 9 bindings: `images_enable`,
//!   `images_base_<b>`, `images_format_<b>`, `images_width_<b>`, `images_height_<b>`,
//!   `images_samples_<b>`).
//! * With the texture unit ([`EngineCfg::texture`], the default): `tex_desc_<k>_*` (draw
//!   state `k`'s texture descriptor, `crate::texture::TexDescPort`), `tex_linear` (bit `k`:
//!   the binding's filter is bilinear), `tex_enable` (bit `k`: state `k` has a texture); out
//!   `tex_error`, `tex_error_slot`, `tex_error_state` (a warp that had no texture sampled),
//!   `tex_switches`, `tex_requests`, `tex_counters_*` (the unit's).
//! * `sample_shading` (bit `s`: draw state `s` shades per sample at 4×, `frag.rs`).
//! * Outputs: `outstanding`, `bad_op`, `counters_*`, `bytes_<p>` (the back end's),
//!   `frag_fault` (the first error code of a fragment warp), `ts_error` and `ts_error_at_*`
//!   (the tile shader's first bad access: slot, lane, binding, x, y, sample) with
//!   `ts_error_thread` (its thread `t = y·xthreads + x` in the RESOLVE's grid),
//!   `ts_error_xthreads` and `ts_error_tile_x`/`_y` (the grid's width, the tile),
//!   `ts_residency_error` (sticky: a warp that is not the tile shader's finished while a
//!   RESOLVE ran, against spec A16's rule that none is resident then), `image_error`
//!   and `image_error_at_*` (a fragment shader's first bad image load:
//!   [`super::image_load::ImageError`] code; binding, x, y, sample), `issue` (a warp
//!   instruction issued this clock), `frag_warps` and `ts_warps` (warps launched),
//!   `list_offered` and `list_taken` (a tile's list is offered to / taken by the back end this
//!   clock; the driver counts tiles by them).
//! * With the front end: `mesh` ([`MeshDesc`]), `resolve` ([`ResolveDesc`]), `geom_width`,
//!   `geom_height` (pixels), `geom_tiles_x`, `geom_tiles_y`, `geom_lists_base` (tile 0's
//!   bin, a multiple of 128), `geom_clear_<p>` (each plane's clear value),
//!   `geom_prim_base` (primitive 0's data); out `geom_triangles_in`, `geom_near_clipped`,
//!   `geom_guard_band_rejects`, `geom_culled`, `geom_triangles_out` (the frame counters),
//!   `geom_error`, `geom_error_state`, `geom_error_tri`, `geom_error_index` (an index out of
//!   range), `geom_overflow` (a list did not fit its bin).
//!
//! # Geometry (`geometry/frontend.rs`)
//! [`tile_frontend`] (its own module in the hierarchy): fetch → clip → setup → ids →
//! primitive data → tiler → lists, equal to the frame model's geometry step. Its three memory
//! ports join the back end's requests (merge order above); the fetch's answers pass a FIFO of
//! `2 · fetch.outstanding` beats (`geom_fetch_buffer`): the answers of the one port come in
//! order, so a fetch answer not taken (the fetch's pipeline full, waiting for the list writer)
//! would hold the list writes' acknowledgements behind it — a deadlock the FIFO rules out, as
//! it always has room for every read in flight. **Ordering:** the list writer
//! offers the lists only after every list write is acknowledged (`geom_lists`' drain), and the
//! engine holds them further until the primitive-data writer has no write outstanding (the
//! frame-end marker passes the writer after the last triangle's data is sent, before the
//! list writer sees it), so no tile reads a list word or a primitive before it is in memory.
//! The vertex phase and the front end are ordered by the host: it offers `mesh` items after
//! the last `vertex` command is taken (that transfer means the vertices are in memory).
//! **Protocol:** stream rules on `mesh`, `resolve`; the `geom_*` configuration stable while a
//! frame runs. **Latency:** a frame's lists appear after its frame-end marker has been through
//! the chain and every write is acknowledged (the tiler's two divisions per triangle and one
//! per tile set the pace, `geometry/mod.rs`). **Cost:** `tile_frontend`'s (`rendergen synth
//! tile_frontend --per-module`) plus two `mem_merge`s and a third for the back end's side.
//!
//! # Vertex shading (`vertex.rs`)
//! The `vertex` input stream ([`super::vertex::VertexCmd`], one per mesh: vertex count, the
//! vertex program's first word, the post-transform buffer's base, the mesh's varyings and the
//! pass's slots per record) drives `vertex_launch`: warps of four vertices (`r0` = index)
//! into the same core, through a second `launch_mux` (`vertex_mux`, vertex launches win at a
//! launch boundary). While a command is held (`vertex_valid`) the core's exports and `done`s
//! go to `vertex_exports`, which writes each vertex's record (position, `S` varying slots,
//! zeros where nothing was exported) as 16-byte bursts; its writes join the core's loads and
//! stores in `vertex_merge` (a `mem_merge`) ahead of `core_merge`. The command's transfer
//! means the mesh's vertices are all in memory. Phases run in sequence: the driver offers the
//! vertex commands of a pass before its first tile list. Outputs: `vertex_fault` and
//! `vertex_fault_pc` (the first vertex warp's error), `vertex_no_position` and
//! `vertex_no_position_addr` (a vertex without a vec4 position: its record's address).
//!
//! # The special port
//! The core's `spec` requests of tile-shader warps (while a RESOLVE runs: from its launch to
//! its `ts_done`) go to `spec_bridge` (the tile buffer), the others — fragment warps' image
//! loads, the two-pass lighting pass reading the G-buffer an earlier pass wrote out — to
//! `image_load` (`image_load.rs`: latency 1 + the memory's for a texel fetch, 2 for the
//! other channels, initiation interval 1, up to 8 loads in flight). The drain barrier keeps
//! fragment warps out of a RESOLVE, so only one side ever has answers outstanding. The image
//! loads share the core's side of the memory port with `core_mem` (`core_merge`, the same
//! in-order merge as `mem_merge`).
//!
//! # Textures (`texture.rs`)
//! The core's `tex` port goes through `tex_binder` (the descriptor table indexed by the warp's
//! draw state, remembered per warp slot at its fragment launch; a request of another state
//! than the bound one waits until the unit is empty, then binds it and flushes the cache),
//! `tex_bridge` (`crate::texture::system`: the sampler word's decode and the answer's
//! layout), the `texture_unit` (issue 14: LOD, wrap, non-blocking cache, bilinear/trilinear
//! filter; the same golden model as the frame model's `tex`) and `tex_line_port` (a line
//! fill as four narrow reads). The line reads are a third input of the memory merge
//! (`texture_merge`, between `core_merge` and `mem_merge`). With `texture: None` the port is
//! tied off (a `tex` would hang its warp) and `texture_merge` is absent.
//!
//! # Cost
//! The texture path is the unit (`rendergen synth texture_unit`, defaults: 73,961 Yosys
//! cells, 10,255 flip-flops), `tex_bridge` (2,635 cells, 373 flip-flops at order depth 32;
//! the engine's uses 16), the binder (64 flip-flops of slot states, a `states`-way mux of
//! 128-bit descriptors) and the line port (a `max_fills × 4`-bit FIFO, 96 bits of words).
//! `image_load` alone (default table of 9 bindings, 3-bit slot, 2-bit lane; Yosys generic
//! library): 10,839 cells, 2,276 flip-flops (2,048 the per-lane texel latch), 64 gate levels
//! (`rendergen synth image_load`; the ignored test `tile::image_load::measure_image_load_area`
//! runs the same flow). The second `mem_merge` (`core_merge`) adds its order FIFO. The
//! tile-shader error's thread: a 9-bit first thread per core slot, the RESOLVE's grid width
//! and tile (5 + 2·`TILE_COORD_BITS` flip-flops) and their held copies, a slot-wide mux; the
//! residency check: a bit per core slot and a slot-wide mux.
//!
//! # Not here (open work, documented in the README)
//! One shader core runs the vertex, fragment and tile-shader warps (spec A16); an engine with
//! several cores is not built (no scene, model or driver setting asks for one). The
//! blend-state and late-depth tables have [`FragCfg::states`] entries (the driver refuses a
//! pass with more meshes than that).
use super::backend::{tile_backend, BackendIn};
use super::cmd::TileList;
use super::core_mem::{
    core_mem, mem_merge, uniforms, CoreMemIn, MergeIn, UniformWrite, UniformsIn,
};
use super::exports::{frag_exports, ExportsIn};
use super::frag::FragCfg;
use super::frag::{frag_launch, FragIn};
use super::geometry::clip::SIZE_BITS;
use super::geometry::fetch::MeshDesc;
use super::geometry::frontend::{tile_frontend, FrontCfg, FrontIn, ResolveDesc};
use super::geometry::{FrameCfg, TILES_BITS};
use super::image_load::{image_load, ImageCfg, ImageLoadIn, ImageTable};
use super::mem_port::{MemReq, MemResp, MEM_ADDR_BITS};
use super::texture::{tex_binder, tex_line_port, BinderIn, EngineTexCfg, LinePortIn};
use super::tile_shader::{spec_bridge, ts_launcher, SpecIn, TsLauncherIn};
use super::vertex::{
    vertex_exports, vertex_launch, VertexCmd, VertexExportsIn, VertexLaunchIn, VertexLaunchOut,
};
use super::writeout::{WoConfig, WoFlags};
use super::{BlendBits, PixelReq, TsReq, STATE_BITS};
use crate::shader::{
    shader_core, shader_core_top, DoneRec, ExportRec, LaneData, LaunchRec, LoadReq, ProgWrite,
    SpecReq, StoreReq, UniformReq, WarpData,
};
use crate::shader::{TexReq, TexResp};
use crate::stream::fifo::{fifo, FifoCfg};
use crate::texture::system::{tex_bridge, BridgeIn, TexSysCfg};
use crate::texture::{
    texture_unit, MemResp as LineResp, TexAnswer, TexCfg, TexDescPort, TexUnitIn,
};
use rendergen_hdl::{
    index_select, pack, unpack, Bundle, Design, ElabErrors, Instance, IoPlug, Module, Sig, Stream,
};

/// Parameters of the tile engine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineCfg {
    /// The fragment side: the per-tile configuration, the core, the program slots.
    pub frag: FragCfg,
    /// Uniform memory words, `2^uniform_bits`, 4 ..= 16. Default 8.
    pub uniform_bits: u32,
    /// The texture unit on the core's `tex` port (`texture.rs`); `None` builds the engine
    /// without it (the port tied off: a `tex` would hang its warp). Default: with.
    pub texture: Option<EngineTexCfg>,
    /// The geometry front end ([`tile_frontend`], module section "Geometry"): with it the
    /// engine takes meshes (`mesh`, `resolve`, `geom_*`) and makes the tiles' lists itself;
    /// `None` (the default) builds the engine with a `list` input instead.
    pub geometry: Option<FrontCfg>,
}

impl Default for EngineCfg {
    fn default() -> Self {
        EngineCfg {
            frag: FragCfg::default(),
            uniform_bits: 8,
            texture: Some(EngineTexCfg::default()),
            geometry: None,
        }
    }
}

/// One launch stream out of two: a launch's transfers are never interleaved (the grant is
/// held from its first transfer to its `last`); the tile-shader launcher wins when both wait
/// at a launch boundary.
fn launch_mux(m: &mut Module, frag: Stream<LaunchRec>, ts: Stream<LaunchRec>) -> Stream<LaunchRec> {
    let (fv, f, fr) = frag.split();
    let (tv, t, tr) = ts.split();
    let lock = m.reg("launch_lock", 1).reset(0); // a launch is under way
    let lock_ts = m.reg("launch_lock_ts", 1).reset(0);
    let pick_ts = lock.q().mux(lock_ts.q(), tv);
    let shape = f.shape();
    let data: LaunchRec = unpack(&shape, pick_ts.mux(pack(&t), pack(&f)));
    let last = data.last;
    let (out, ready) = Stream::offer(m, "launch", pick_ts.mux(tv, fv), data);
    fr.drive(!pick_ts & ready);
    tr.drive(pick_ts & ready);
    let fire = pick_ts.mux(tv, fv) & ready;
    lock.next((lock.q() | fire) & !(fire & last));
    lock_ts.next_when(fire & !lock.q(), pick_ts);
    out
}

/// The engine's body (module docs): everything but the core, which [`tile_engine_top`]
/// instantiates beside it and wires through `core_*` streams.
fn engine_body(m: &mut Module, cfg: &EngineCfg) {
    let fc = &cfg.frag;
    let tc = &fc.tile;
    let core = m.instance("core", "shader_core", &fc.core, |c| {
        shader_core(c, &fc.core);
    });
    let sw = fc.core.slot_bits();
    let lw = fc.core.lane_bits();

    // Back end, with its loops.
    let (pixel, pixel_plug) = m.io_loop::<Stream<PixelReq>>("pixel", &PixelReq::shape(tc));
    let (ts_req, ts_req_plug) = m.io_loop::<Stream<TsReq>>("ts_req", &TsReq::shape(tc));
    let (ts_done, ts_done_plug) = m.io_loop::<Stream<WoFlags>>("ts_done", &WoFlags::shape(tc));
    let (be_resp, be_resp_plug) = m.io_loop::<Stream<MemResp>>("backend_resp", &MemResp::SHAPE);
    let retired = m.wire("quad_retired", 1);
    let (list, geom) = match &cfg.geometry {
        Some(g) => {
            let (list, geom) = geometry(m, g);
            (list, Some(geom))
        }
        None => (m.input_stream("list", &TileList::SHAPE), None),
    };
    let (lv, l, lr) = list.split();
    let (list, list_ready) = Stream::offer(m, "tile_list", lv, l);
    lr.drive(list_ready);
    m.output("list_offered", lv);
    m.output("list_taken", lv & list_ready);
    let config = m.input_bundle("config", &WoConfig::shape(tc));
    let late_depth = m.input("late_depth", fc.states);
    let backend = m.child(
        "tile_backend",
        tc,
        BackendIn {
            list,
            config,
            mem_resp: be_resp,
            pixel,
            quad_retired: retired.sig(),
            ts_req,
            ts_done,
            late_depth,
        },
        tile_backend,
    );

    // Fragment launches.
    let launch_slot = core.output("launch_slot");
    let room = m.wire("rob_room", 1);
    let sample_shading = m.input("sample_shading", 1 << STATE_BITS);
    let frag = m.child(
        "frag_launch",
        fc,
        FragIn {
            quad: backend.quad,
            tile: backend.tile,
            launch_slot,
            room: room.sig(),
            sample_shading,
        },
        frag_launch,
    );

    // Tile-shader launches.
    let (tl_v, tl, tl_r) = backend.ts_launch.split();
    let (tl_xthreads, tl_tile_x, tl_tile_y) = (tl.xthreads, tl.tile_x, tl.tile_y);
    let (ts_launch, tl_ready) = Stream::offer(m, "ts_launch_tap", tl_v, tl);
    tl_r.drive(tl_ready);
    let program_base = m.input("program_base", 8);
    let ts = m.child(
        "ts_launcher",
        fc,
        TsLauncherIn {
            ts_launch,
            program_base,
        },
        ts_launcher,
    );
    // Which tile-shader thread each core slot holds, for the error report (`ts_error_thread`):
    // a warp's first thread, written with its last launch transfer into the slot the core
    // names on `launch_slot`; the RESOLVE's grid width and tile while its launch is offered.
    let (wv, wrec, wr) = ts.launch.split();
    let warp_last = wrec.last;
    let (ts_warps, ts_warps_ready) = Stream::offer(m, "ts_warp_launch", wv, wrec);
    wr.drive(ts_warps_ready);
    let warp_launched = wv & ts_warps_ready & warp_last;
    let thread_bits = ts.first.width();
    let slot_threads: Vec<Sig> = (0..fc.core.warps)
        .map(|k| {
            let r = m.reg(&format!("ts_thread_{k}"), thread_bits).reset(0);
            r.next_when(warp_launched & launch_slot.eq(k as u64), ts.first);
            r.q()
        })
        .collect();
    let grid: Vec<Sig> = [tl_xthreads, tl_tile_x, tl_tile_y]
        .into_iter()
        .enumerate()
        .map(|(k, v)| {
            let r = m.reg(&format!("ts_grid_{k}"), v.width()).reset(0);
            r.next_when(tl_v, v);
            r.q()
        })
        .collect();
    let launch = launch_mux(m, frag.launch, ts_warps);
    // Vertex launches (`vertex.rs`) win at a launch boundary.
    let (vtx, vtx_retired, vtx_idle) = vertex_launcher(m, fc, launch_slot);
    let VertexLaunchOut {
        launch: vtx_launch,
        launched: vtx_launched,
        active: to_vtx,
        varyings: vtx_varyings,
        slots: vtx_slots,
    } = vtx;
    let launch = m.block("vertex_mux", |m| launch_mux(m, launch, vtx_launch));
    // What each core slot runs (1: a tile-shader warp), for the residency check below: the
    // muxes pass a launch through in the clock it is taken, so a launch that ends with the
    // tile-shader launcher's last transfer is a tile-shader warp.
    let (cv, crec, cr) = launch.split();
    let core_last = crec.last;
    let (launch, core_ready) = Stream::offer(m, "core_launch", cv, crec);
    cr.drive(core_ready);
    let core_launched = cv & core_ready & core_last;
    let slot_ts: Vec<Sig> = (0..fc.core.warps)
        .map(|k| {
            let r = m.reg(&format!("slot_ts_{k}"), 1).reset(0);
            r.next_when(core_launched & launch_slot.eq(k as u64), warp_launched);
            r.q()
        })
        .collect();
    core.connect_stream("launch", launch);
    let prog = m.input_stream::<ProgWrite>(
        "prog",
        &ProgWrite {
            addr: fc.core.imem_bits(),
            word: 64,
        },
    );
    core.connect_stream("prog", prog);

    // Which side a warp's `done` belongs to: the tile shader's while a RESOLVE runs (the
    // drain barrier keeps fragment warps out of it).
    let ts_active = m.reg("ts_active", 1).reset(0);
    let all_launched = m.reg("ts_all_launched", 1).reset(0);
    let ts_dones = m.reg("ts_dones", 7).reset(0);
    let done_shape = DoneRec {
        slot: sw,
        code: 4,
        pc: 32,
        executed: 32,
    };
    let (dv, d, dr) = core
        .output_stream::<DoneRec>(m, "done", &done_shape)
        .split();
    let to_ts = ts_active.q() | tl_v;
    let (frag_done, frag_done_ready) =
        Stream::offer(m, "frag_done", dv & !to_ts & !to_vtx, d.clone());
    let (vtx_done, vtx_done_ready) =
        Stream::offer(m, "vertex_done", dv & !to_ts & to_vtx, d.clone());
    dr.drive(to_ts | to_vtx.mux(vtx_done_ready, frag_done_ready));
    let ts_done_fire = m.wire("ts_done_fire", 1);
    let ts_warp_done = dv & to_ts;
    let ts_fault = m.reg("ts_fault", 4).reset(0);
    ts_fault.next_when(ts_warp_done & d.code.ne(0) & ts_fault.q().eq(0), d.code);
    // Spec A16's residency rule: while a RESOLVE runs, only its warps are resident, so only
    // they finish (a fragment or vertex warp's `done` then would be counted as the tile
    // shader's). Sticky.
    let residency = m.reg("ts_residency_error", 1).reset(0);
    let done_ts = index_select(d.slot.resize(sw), &slot_ts);
    residency.next(residency.q() | (ts_warp_done & !done_ts));
    m.output("ts_residency_error", residency.q());
    ts_active.next((ts_active.q() | tl_v) & !ts_done_fire.sig());
    all_launched.next((all_launched.q() | ts.all_launched) & !ts_done_fire.sig());
    let restart = tl_v & !ts_active.q();
    ts_dones.next(restart.mux(m.lit(0, 7), ts_dones.q() + ts_warp_done.zext(7)));

    let export_shape = ExportRec {
        slot: sw,
        lane: lw,
        loc: 32,
        count: 3,
        data: vec![32; 4],
    };
    let export = core.output_stream::<ExportRec>(m, "export", &export_shape);
    // Vertex warps' exports go to the vertex sink, the others to the fragment side.
    let (xv, x, xr) = export.split();
    let (export, frag_export_ready) = Stream::offer(m, "frag_export", xv & !to_vtx, x.clone());
    let (vtx_export, vtx_export_ready) = Stream::offer(m, "vertex_export", xv & to_vtx, x);
    xr.drive(to_vtx.mux(vtx_export_ready, frag_export_ready));
    let (vtx_mem_resp, vtx_mem_resp_plug) =
        m.io_loop::<Stream<MemResp>>("vertex_mem_resp", &MemResp::SHAPE);
    let sink = m.child(
        "vertex_exports",
        &fc.core,
        VertexExportsIn {
            launched: vtx_launched,
            export: vtx_export,
            done: vtx_done,
            mem_resp: vtx_mem_resp,
            varyings: vtx_varyings,
            slots: vtx_slots,
        },
        vertex_exports,
    );
    vtx_retired.drive(sink.retired);
    vtx_idle.drive(sink.idle);
    m.output("vertex_fault", sink.fault);
    m.output("vertex_fault_pc", sink.fault_pc);
    m.output("vertex_no_position", sink.no_position);
    m.output("vertex_no_position_addr", sink.no_position_addr);
    let blend: Vec<Vec<BlendBits>> = (0..fc.states)
        .map(|s| {
            (0..tc.formats.len())
                .map(|rt| m.input_bundle(&format!("blend_{s}_{rt}"), &BlendBits::SHAPE))
                .collect()
        })
        .collect();
    // The launches' slot and draw state, for the texture binder.
    let (lv, l, lr) = frag.launched.split();
    let launched_tap = (lv, l.slot, l.state);
    let (launched, launched_ready) = Stream::offer(m, "launched_tap", lv, l);
    lr.drive(launched_ready);
    let ex = m.child(
        "frag_exports",
        fc,
        ExportsIn {
            launched,
            export,
            done: frag_done,
            blend,
        },
        frag_exports,
    );
    pixel_plug.connect(ex.pixel);
    retired.drive(ex.retired);
    room.drive(ex.room);
    m.output("frag_fault", ex.fault);

    // The special port.
    let spec_shape = SpecReq {
        slot: sw,
        lane: lw,
        func: 32,
        a: 32,
        b: 32,
        helper: 1,
    };
    let spec_req = core.output_stream::<SpecReq>(m, "spec_req", &spec_shape);
    // Tile-shader warps' requests go to the tile buffer's bridge, fragment warps' to the
    // image-load unit (the drain barrier keeps fragment warps out of a RESOLVE, so no answer
    // of one side is outstanding when the other starts).
    let (sv, s, sr) = spec_req.split();
    let (ts_spec, ts_spec_ready) = Stream::offer(m, "ts_spec_req", sv & to_ts, s.clone());
    let (img_spec, img_spec_ready) = Stream::offer(m, "image_spec_req", sv & !to_ts, s);
    sr.drive(to_ts.mux(ts_spec_ready, img_spec_ready));
    let bridge = m.child(
        "spec_bridge",
        fc,
        SpecIn {
            spec_req: ts_spec,
            ts_resp: backend.ts_resp,
            tile_begin: backend.tile_begin,
        },
        spec_bridge,
    );
    ts_req_plug.connect(bridge.ts_req);
    let (img_mem_resp, img_mem_resp_plug) =
        m.io_loop::<Stream<MemResp>>("image_mem_resp", &MemResp::SHAPE);
    let images = m.input_bundle("images", &ImageTable::shape(&ImageCfg::default()));
    let img = m.child(
        "image_load",
        &ImageCfg::default(),
        ImageLoadIn {
            spec_req: img_spec,
            mem_resp: img_mem_resp,
            table: images,
        },
        image_load,
    );
    // One answer stream for the core: the bridge's first (only one side has answers).
    let (bv, b_ans, br) = bridge.spec_resp.split();
    let (iv, i_ans, ir) = img.spec_resp.split();
    let answer: LaneData = unpack(&b_ans.shape(), bv.mux(pack(&b_ans), pack(&i_ans)));
    let (spec_resp, spec_ready) = Stream::offer(m, "spec_resp", bv | iv, answer);
    br.drive(spec_ready);
    ir.drive(!bv & spec_ready);
    core.connect_stream("spec_resp", spec_resp);
    m.output("image_error", img.error);
    for (k, s) in img.error_at.into_iter().enumerate() {
        m.output(&format!("image_error_at_{k}"), s);
    }
    let finished = ts_active.q() & all_launched.q() & ts_dones.q().eq(ts.warps);
    let (done_out, done_ready) = Stream::offer(m, "ts_done", finished, bridge.flags);
    ts_done_fire.drive(finished & done_ready);
    ts_done_plug.connect(done_out);
    // The erring thread, from the slot table while the error is new, then held (the slot may
    // take another warp).
    let erring = index_select(bridge.error_at[0].resize(sw), &slot_threads)
        + bridge.error_at[1].resize(lw).zext(thread_bits);
    let live: Vec<Sig> = [erring].into_iter().chain(grid).collect();
    let held = m.reg("ts_error_held", 1).reset(0);
    held.next(held.q() | bridge.error);
    let names = ["thread", "xthreads", "tile_x", "tile_y"];
    for (name, v) in names.into_iter().zip(live) {
        let r = m.reg(&format!("ts_error_{name}_q"), v.width()).reset(0);
        r.next_when(bridge.error & !held.q(), v);
        m.output(&format!("ts_error_{name}"), held.q().mux(r.q(), v));
    }
    m.output("ts_error", bridge.error);
    for (k, s) in bridge.error_at.into_iter().enumerate() {
        m.output(&format!("ts_error_at_{k}"), s);
    }
    m.output("ts_fault", ts_fault.q());

    // Memory.
    let bases: Vec<Sig> = (0..16)
        .map(|b| m.input(&format!("bases_{b}"), 32))
        .collect();
    let (cm_resp, cm_resp_plug) = m.io_loop::<Stream<MemResp>>("core_mem_resp", &MemResp::SHAPE);
    let ldg_req = core.output_stream::<LoadReq>(
        m,
        "ldg_req",
        &LoadReq {
            slot: sw,
            lane: lw,
            addr: 32,
        },
    );
    let stg_req = core.output_stream::<StoreReq>(
        m,
        "stg_req",
        &StoreReq {
            slot: sw,
            lane: lw,
            addr: 32,
            data: 32,
        },
    );
    let cm = m.child(
        "core_mem",
        &(),
        CoreMemIn {
            ldg_req,
            stg_req,
            mem_resp: cm_resp,
            bases,
        },
        core_mem,
    );
    core.connect_stream("ldg_resp", cm.ldg_resp);
    // The vertex sink's writes join the core's loads and stores (`vertex_merge`).
    let (vtx_side_resp, vtx_side_plug) =
        m.io_loop::<Stream<MemResp>>("vertex_side_resp", &MemResp::SHAPE);
    let vtx_side = m.child(
        "vertex_merge",
        &(),
        MergeIn {
            backend: cm.mem_req,
            core: sink.mem_req,
            mem_resp: vtx_side_resp,
        },
        mem_merge,
    );
    // The core's loads and stores and the image loads share one side of the port.
    let (core_side_resp, core_side_plug) =
        m.io_loop::<Stream<MemResp>>("core_side_resp", &MemResp::SHAPE);
    let core_side = m.child(
        "core_merge",
        &(),
        MergeIn {
            backend: vtx_side.mem_req,
            core: img.mem_req,
            mem_resp: core_side_resp,
        },
        mem_merge,
    );
    cm_resp_plug.connect(vtx_side.backend_resp);
    vtx_mem_resp_plug.connect(vtx_side.core_resp);
    vtx_side_plug.connect(core_side.backend_resp);
    img_mem_resp_plug.connect(core_side.core_resp);
    // The texture unit's line reads, a third input (`texture_merge`), or the port tied off.
    let (core_side_req, core_side_merged) = match &cfg.texture {
        Some(t) => {
            let (tex_req, tex_plug) = texture_path(m, cfg, t, core, launched_tap, to_ts);
            let (resp, plug) = m.io_loop::<Stream<MemResp>>("texture_side_resp", &MemResp::SHAPE);
            let merged = m.child(
                "texture_merge",
                &(),
                MergeIn {
                    backend: core_side.mem_req,
                    core: tex_req,
                    mem_resp: resp,
                },
                mem_merge,
            );
            core_side_plug.connect(merged.backend_resp);
            tex_plug.connect(merged.core_resp);
            (merged.mem_req, plug)
        }
        None => {
            tie_off_texture(m, cfg, core);
            (core_side.mem_req, core_side_plug)
        }
    };
    // The geometry front end's requests join the back end's (`geom_side_merge`).
    let (backend_req, backend_side_plug) = match geom {
        Some(g) => {
            let (resp, plug) = m.io_loop::<Stream<MemResp>>("backend_side_resp", &MemResp::SHAPE);
            let merged = m.child(
                "geom_side_merge",
                &(),
                MergeIn {
                    backend: backend.mem_req,
                    core: g.mem_req,
                    mem_resp: resp,
                },
                mem_merge,
            );
            be_resp_plug.connect(merged.backend_resp);
            g.mem_resp.connect(merged.core_resp);
            (merged.mem_req, plug)
        }
        None => (backend.mem_req, be_resp_plug),
    };
    let mem_resp = m.input_stream("mem_resp", &MemResp::SHAPE);
    let merged = m.child(
        "mem_merge",
        &(),
        MergeIn {
            backend: backend_req,
            core: core_side_req,
            mem_resp,
        },
        mem_merge,
    );
    backend_side_plug.connect(merged.backend_resp);
    core_side_merged.connect(merged.core_resp);
    m.output_stream("mem_req", merged.mem_req);

    // Uniforms.
    let ldu_req = core.output_stream::<UniformReq>(
        m,
        "ldu_req",
        &UniformReq {
            slot: sw,
            index: 32,
        },
    );
    let uniform_write = m.input_stream::<UniformWrite>(
        "uniform",
        &UniformWrite {
            addr: cfg.uniform_bits,
            word: 32,
        },
    );
    let ldu_resp: Stream<WarpData> = m.child(
        "uniforms",
        &cfg.uniform_bits,
        UniformsIn {
            write: uniform_write,
            ldu_req,
        },
        uniforms,
    );
    core.connect_stream("ldu_resp", ldu_resp);

    // Back-end outputs and statistics.
    m.output("outstanding", backend.outstanding);
    m.output("bad_op", backend.bad_op);
    m.output_bundle("counters", &backend.counters);
    for (k, b) in backend.bytes.into_iter().enumerate() {
        m.output(&format!("bytes_{k}"), b);
    }
    m.output("issue", core.output("issue"));
}

/// The geometry front end's memory side: its three ports merged into one request stream,
/// and the plug of that stream's answers.
struct GeomSide {
    mem_req: Stream<MemReq>,
    mem_resp: IoPlug<Stream<MemResp>>,
}

/// The geometry front end ([`tile_frontend`], module section "Geometry") on the engine's
/// `mesh`, `resolve` and `geom_*` inputs: its three memory ports merged in order
/// (`geom_fetch_merge`: fetch reads before primitive-data writes at a tie, then
/// `geom_merge`: list writes), its counters and errors as `geom_*` outputs. Returns its lists,
/// each held back until every primitive-data write is acknowledged (the list writer itself
/// offers them only after its own writes are), and its memory side.
fn geometry(m: &mut Module, g: &FrontCfg) -> (Stream<TileList>, GeomSide) {
    let mesh = m.input_stream::<MeshDesc>("mesh", &MeshDesc::SHAPE);
    let resolve = m.input_stream::<ResolveDesc>("resolve", &ResolveDesc::SHAPE);
    let frame = FrameCfg {
        tiles_x: m.input("geom_tiles_x", TILES_BITS),
        tiles_y: m.input("geom_tiles_y", TILES_BITS),
        base: m.input("geom_lists_base", MEM_ADDR_BITS),
        clear: (0..g.geom.planes)
            .map(|p| m.input(&format!("geom_clear_{p}"), 64))
            .collect(),
    };
    let width = m.input("geom_width", SIZE_BITS);
    let height = m.input("geom_height", SIZE_BITS);
    let prim_base = m.input("geom_prim_base", MEM_ADDR_BITS);
    let (fetch_resp, fetch_plug) = m.io_loop::<Stream<MemResp>>("geom_fetch_resp", &MemResp::SHAPE);
    let (lists_resp, lists_plug) = m.io_loop::<Stream<MemResp>>("geom_lists_resp", &MemResp::SHAPE);
    let (prim_resp, prim_plug) = m.io_loop::<Stream<MemResp>>("geom_prim_resp", &MemResp::SHAPE);
    let fe = m.child(
        "tile_frontend",
        g,
        FrontIn {
            mesh,
            resolve,
            fetch_mem_resp: fetch_resp,
            lists_mem_resp: lists_resp,
            prim_mem_resp: prim_resp,
            width,
            height,
            prim_base,
            frame,
        },
        tile_frontend,
    );
    let (a_resp, a_plug) = m.io_loop::<Stream<MemResp>>("geom_fetch_side_resp", &MemResp::SHAPE);
    let a = m.child(
        "geom_fetch_merge",
        &(),
        MergeIn {
            backend: fe.fetch_mem_req,
            core: fe.prim_mem_req,
            mem_resp: a_resp,
        },
        mem_merge,
    );
    // The fetch's answers wait in a FIFO of two beats per read it may have in flight, so the
    // in-order answer stream shared with the list and primitive writes never stalls on a
    // fetch whose pipeline is full (which would hold the writes' acknowledgements behind it).
    let depth = 2 * g.fetch.outstanding;
    let answers = m.block("geom_fetch_buffer", |m| {
        fifo(m, &FifoCfg { depth }, a.backend_resp).pop
    });
    fetch_plug.connect(answers);
    prim_plug.connect(a.core_resp);
    let (resp, plug) = m.io_loop::<Stream<MemResp>>("geom_side_resp", &MemResp::SHAPE);
    let b = m.child(
        "geom_merge",
        &(),
        MergeIn {
            backend: a.mem_req,
            core: fe.lists_mem_req,
            mem_resp: resp,
        },
        mem_merge,
    );
    a_plug.connect(b.backend_resp);
    lists_plug.connect(b.core_resp);
    // The barrier: a list only once the primitive data its DRAWs name is in memory.
    let prim_done = !fe.prim_outstanding.any();
    let (lv, l, lr) = fe.list.split();
    let (list, ready) = Stream::offer(m, "geom_list", lv & prim_done, l);
    lr.drive(ready & prim_done);
    let c = fe.counters;
    m.output("geom_triangles_in", c.triangles_in);
    m.output("geom_near_clipped", c.near_clipped);
    m.output("geom_guard_band_rejects", c.guard_band_rejects);
    m.output("geom_culled", c.culled);
    m.output("geom_triangles_out", c.triangles_out);
    m.output("geom_error", fe.error);
    m.output("geom_error_state", fe.error_state);
    m.output("geom_error_tri", fe.error_tri);
    m.output("geom_error_index", fe.error_index);
    m.output("geom_overflow", fe.overflow);
    (
        list,
        GeomSide {
            mem_req: b.mem_req,
            mem_resp: plug,
        },
    )
}

/// The vertex launcher (`vertex.rs`) on the engine's `vertex` input stream, with the wires
/// of its loop to the export sink (`retired`, `idle`).
fn vertex_launcher(
    m: &mut Module,
    fc: &FragCfg,
    launch_slot: Sig,
) -> (VertexLaunchOut, rendergen_hdl::Wire, rendergen_hdl::Wire) {
    let cmd = m.input_stream("vertex", &VertexCmd::SHAPE);
    let retired = m.wire("vertex_retired", 1);
    let idle = m.wire("vertex_idle", 1);
    let out = m.child(
        "vertex_launch",
        &fc.core,
        VertexLaunchIn {
            cmd,
            launch_slot,
            retired: retired.sig(),
            idle: idle.sig(),
        },
        vertex_launch,
    );
    (out, retired, idle)
}

/// No texture unit: the core's `tex` port is tied off (a `tex` would hang its warp).
fn tie_off_texture(m: &mut Module, cfg: &EngineCfg, core: Instance) {
    let c = &cfg.frag.core;
    core.connect("tex_req_ready", m.lit(1, 1));
    core.connect("tex_resp_valid", m.lit(0, 1));
    core.connect("tex_resp_slot", m.lit(0, c.slot_bits()));
    core.connect("tex_resp_quad", m.lit(0, c.quad_bits()));
    for k in 0..16 {
        core.connect(&format!("tex_resp_texels_{k}"), m.lit(0, 32));
    }
    core.connect("tex_resp_skip", m.lit(0, 16));
}

/// The texture path (`texture.rs`): `tex_binder` → `tex_bridge` → `texture_unit` →
/// `tex_line_port`, with the descriptor table's inputs (`tex_desc_<k>_*`, `tex_linear`,
/// `tex_enable`) and its outputs (`tex_error`, `tex_error_slot`, `tex_error_state`,
/// `tex_switches`, `tex_counters_*`). Returns the line port's requests and the plug of its
/// answers.
fn texture_path(
    m: &mut Module,
    cfg: &EngineCfg,
    t: &EngineTexCfg,
    core: Instance,
    launched: (Sig, Sig, Sig),
    tile_shader: Sig,
) -> (Stream<MemReq>, IoPlug<Stream<MemResp>>) {
    let c = &cfg.frag.core;
    let sys = TexSysCfg {
        core: *c,
        tex: TexCfg {
            cache_lines: t.cache_lines,
            max_fills: t.max_fills,
            queue_depth: t.queue_depth,
            ..TexCfg::default()
        },
        order_depth: t.order_depth,
    };
    let ucfg = sys.unit();
    let core_req = core.output_stream::<TexReq>(
        m,
        "tex_req",
        &TexReq {
            slot: c.slot_bits(),
            quad: c.quad_bits(),
            sampler: 32,
            coords: vec![32; 8],
            mask: 4,
        },
    );
    let resp_shape = TexResp {
        slot: c.slot_bits(),
        quad: c.quad_bits(),
        texels: vec![32; 16],
        skip: 16,
    };
    let (bridge_resp, bridge_resp_plug) =
        m.io_loop::<Stream<TexResp>>("tex_bridge_resp", &resp_shape);
    let table: Vec<TexDescPort> = (0..t.states)
        .map(|k| m.input_bundle(&format!("tex_desc_{k}"), &TexDescPort::shape()))
        .collect();
    let linear = m.input("tex_linear", t.states);
    let enable = m.input("tex_enable", t.states);
    let binder = m.child(
        "tex_binder",
        t,
        BinderIn {
            core_req,
            resp: bridge_resp,
            launched: launched.0,
            launched_slot: launched.1,
            launched_state: launched.2,
            tile_shader,
            table,
            linear,
            enable,
        },
        tex_binder,
    );
    core.connect_stream("tex_resp", binder.core_resp);
    let (answer, answer_plug) =
        m.io_loop::<Stream<TexAnswer>>("tex_answer", &TexAnswer::shape(&ucfg));
    let bridge = m.child(
        "tex_bridge",
        &sys,
        BridgeIn {
            core_req: binder.req,
            answer,
        },
        tex_bridge,
    );
    bridge_resp_plug.connect(bridge.core_resp);
    let (line_resp, line_plug) =
        m.io_loop::<Stream<LineResp>>("tex_line_resp", &LineResp { data: vec![32; 4] });
    let unit = m.child(
        "texture",
        &ucfg,
        TexUnitIn {
            req: bridge.req,
            desc: binder.desc,
            flush: binder.flush,
            mem_resp: line_resp,
        },
        texture_unit,
    );
    answer_plug.connect(unit.answer);
    let (mem_resp, mem_plug) = m.io_loop::<Stream<MemResp>>("tex_mem_resp", &MemResp::SHAPE);
    let port = m.child(
        "tex_line_port",
        &t.max_fills,
        LinePortIn {
            line_req: unit.mem_req,
            mem_resp,
        },
        tex_line_port,
    );
    line_plug.connect(port.line_resp);
    m.output("tex_error", binder.error);
    m.output("tex_error_slot", binder.error_slot);
    m.output("tex_error_state", binder.error_state);
    m.output("tex_switches", binder.switches);
    m.output("tex_requests", bridge.requests);
    m.output_bundle("tex_counters", &unit.counters);
    (port.mem_req, mem_plug)
}

/// The tile engine top (catalogue `tile_engine`; ports in the module docs).
///
/// * **Errors:** the per-tile configuration's (`samples`, `rts`), the core's (`core.quads`
///   must be 1; `regs` 16 ..= 256 …), `entry_log2` 0 ..= 16, `uniform_bits` 4 ..= 16, and the texture path's
///   (`texture.states` 1 ..= 16, `texture.cache_lines`, `texture.max_fills`,
///   `texture.queue_depth`, `texture.order_depth` as the unit's and the bridge's).
pub fn tile_engine_top(cfg: &EngineCfg) -> Result<Design, ElabErrors> {
    // The core's own parameter errors surface here.
    shader_core_top(&cfg.frag.core)?;
    Design::build_with_params("tile_engine", &format!("{cfg:?}"), |m| {
        let ok = cfg.frag.check(m)
            & m.check_param("uniform_bits", cfg.uniform_bits as u64, 4..=16)
            & cfg.texture.as_ref().is_none_or(|t| t.check(m))
            & cfg.geometry.as_ref().is_none_or(|g| {
                let planes = cfg.frag.tile.formats.len() as u64 + 1;
                g.check(m)
                    & m.check_param(
                        "geometry.geom.planes",
                        g.geom.planes.into(),
                        planes..=planes,
                    )
            });
        if !ok {
            return;
        }
        engine_body(m, cfg);
    })
}
