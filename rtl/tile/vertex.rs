//! Vertex shading on the engine's shader core (issue 13 §1 "Geometry", the first step): the
//! vertex launcher (`vertex_launch`), the attribute prologue the driver prepends to every
//! vertex shader ([`vertex_prologue`]) and the export sink (`vertex_exports`) that writes
//! the **post-transform vertex buffer**.
//!
//! ```text
//!  vertex (VertexCmd, one per mesh) ─► vertex_launch ─ launch (r0 = vertex index) ─► core
//!                                        │ launched (slot, record address, live lanes)
//!                                        ▼
//!  core ─ export, done (vertex warps) ─► vertex_exports ─ mem_req (16-byte write bursts) ─► port
//! ```
//!
//! # The frame model's vertex stage, on the core
//! The model (`sim/models/tile/frame/mod.rs`, step 1) shades each vertex with `r0` = its index
//! and attribute location `L`, component `c` in `r(8 + 4L + c)`, and keeps the exports
//! `0x100` (the clip position, a vec4) and locations `0..varyings` as the vertex's
//! `ClipVertex { pos, vary }` (`vary` = `4·S` words, `S` = the pass's most varying slots;
//! words not exported are 0).
//!
//! * **Launch.** A warp is one quad: four consecutive vertices. One launch transfer per warp
//!   writes `r0` (the vertex index; 0 in the helper lanes past the mesh's last vertex, which
//!   is what the model's helper lanes hold) with the program's first word as `pc`.
//! * **Attributes: a prologue on the core** (chosen over a fetch unit: no new datapath, the
//!   loads use the core's `ldg` through `core_mem` like every other global load, and the
//!   attribute layout is software's). [`vertex_prologue`] is, per attribute of `C`
//!   components at location `L`, `imuli r(8+4L+C−1), r0, 4C` then `C` loads
//!   `ldg r(8+4L+c), r(8+4L+C−1), offset + 4c` (the last load overwrites its own address
//!   register), so the shader starts from exactly the model's registers; `1 + C` instructions
//!   per attribute, no scratch register.
//! * **Exports: a sink unit** (chosen over an epilogue of stores: the shader's `export`s stay
//!   as compiled, and the "no position" check and the zero fill need per-vertex state an
//!   epilogue cannot see). Every accepted export of the position or of a varying slot below
//!   the mesh's `varyings` is written at once as one 16-byte burst (its `count` words, the rest
//!   0: a later export of a location replaces the whole vec4, as the model's map does); other
//!   locations are dropped. At the warp's `done` every slot `< S` a live lane did not export
//!   is written as zeros, and a live lane whose last position export was not 4 words sets the
//!   sticky `no_position` error (with the vertex's record address).
//!
//! # The post-transform vertex buffer
//! Vertex `v` of a mesh at `base + v·(16 + 16·S)` bytes: position x, y, z, w (binary32 bits),
//! then `S` vec4 varying slots. `base` must be a multiple of 16 (its low 4 bits are ignored),
//! so every vec4 is one aligned 2-beat burst that never crosses a 4 KiB boundary.
use super::mem_port::{MemReq, MemResp};
use crate::shader::{DoneRec, ExportRec, LaunchRec, ShaderCfg};
use rendergen_hdl::{
    cat, cat_lsb_first, index_select, lowest_index, Bundle, Io, Module, Sig, Stream,
};

/// The most varying slots (vec4 locations) a vertex carries: the frame model's limit.
pub const VARYING_SLOTS: u32 = 14;
/// Export location of the clip-space position.
pub const POSITION_LOC: u64 = 0x100;
/// Write bursts the sink keeps in flight (unacknowledged) at most.
pub const WRITES_IN_FLIGHT: u64 = 31;

/// One mesh's vertices to shade (the `vertex` stream of the engine; held until every vertex
/// of the mesh is in the buffer: its transfer means the mesh is done).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct VertexCmd<T = Sig> {
    /// Vertices (32 bits).
    pub count: T,
    /// First instruction word of the vertex program (its prologue), 32 bits.
    pub pc: T,
    /// Byte address of vertex 0's record in the post-transform buffer (32 bits, multiple of 16).
    pub base: T,
    /// Varying slots this mesh's shader exports (locations `0..varyings` are kept), 4 bits.
    pub varyings: T,
    /// Varying slots per record, `S` ≤ [`VARYING_SLOTS`] (the pass's most), 4 bits.
    pub slots: T,
}

impl VertexCmd<u32> {
    /// The shape.
    pub const SHAPE: VertexCmd<u32> = VertexCmd {
        count: 32,
        pc: 32,
        base: 32,
        varyings: 4,
        slots: 4,
    };
}

/// A vertex warp launched: where its lanes' records are.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct VertexLaunched<T = Sig> {
    /// The warp slot the core gave it.
    pub slot: T,
    /// Byte address of lane 0's record.
    pub addr: T,
    /// Lanes holding a vertex of the mesh (4 bits).
    pub live: T,
}

/// What [`vertex_launch`] takes.
#[derive(Io)]
pub struct VertexLaunchIn {
    /// One command per mesh.
    pub cmd: Stream<VertexCmd>,
    /// The slot the core puts the launch on `launch` into.
    pub launch_slot: Sig,
    /// A vertex warp's writes were all issued this clock (from the sink).
    pub retired: Sig,
    /// The sink has no write pending or unacknowledged.
    pub idle: Sig,
}

/// What [`vertex_launch`] gives.
#[derive(Io)]
pub struct VertexLaunchOut {
    /// Launch transfers for the core (one per warp).
    pub launch: Stream<LaunchRec>,
    /// The warps launched, for the sink (offered with each launch; never stalls).
    pub launched: Stream<VertexLaunched>,
    /// A mesh is being shaded: the core's exports and `done`s are the vertex warps'.
    pub active: Sig,
    /// The current mesh's `varyings`.
    pub varyings: Sig,
    /// The current mesh's `slots`.
    pub slots: Sig,
}

/// Turns each [`VertexCmd`] into warps of four vertices (module docs).
///
/// * **Protocol:** stream rules; `cmd` is taken once every warp of the mesh is launched,
///   retired by the sink and every write is acknowledged (so the next mesh, or the driver,
///   sees the whole buffer); warps in vertex order.
/// * **Timing:** one launch transfer per clock while the core has a free slot; `launch`
///   is combinational from `cmd` and the counters.
/// * **Cost:** a 32-bit vertex counter, a 32-bit record-offset accumulator, a warp counter:
///   875 cells, 61 flip-flops (default core; Yosys generic `synth`, test
///   `tile::vertex::measure_tile_vertex_area`, the flow of `rendergen synth tile_vertex
///   --per-module`).
pub fn vertex_launch(m: &mut Module, cfg: &ShaderCfg, i: VertexLaunchIn) -> VertexLaunchOut {
    let VertexLaunchIn {
        cmd,
        launch_slot,
        retired,
        idle,
    } = i;
    let (cv, c, cr) = cmd.split();
    let next = m.reg("next_vertex", 32).reset(0);
    let offset = m.reg("record_offset", 32).reset(0);
    let in_flight = m.reg("warps_in_flight", 5).reset(0);
    let pending = next.q().lt(c.count);
    // Lane i holds vertex next + i if it is below count.
    let live_bits: Vec<Sig> = (0..4u64).map(|l| (next.q() + l).lt(c.count)).collect();
    let live = cat_lsb_first(&live_bits);
    let data: Vec<Sig> = (0..4u64)
        .map(|l| live_bits[l as usize].mux(next.q() + l, m.lit(0, 32)))
        .collect();
    let rec = LaunchRec {
        write: m.lit(1, 1),
        reg: m.lit(0, cfg.reg_bits()),
        data,
        last: m.lit(1, 1),
        pc: c.pc,
        helpers: !live,
        warp_id: m.lit(0, 32),
    };
    let want = cv & pending & in_flight.q().lt(16);
    let (launch, ready) = Stream::offer(m, "launch", want, rec);
    let fire = want & ready;
    // Record stride 16·(1 + S); a warp advances by four records.
    let stride = cat(&[c.slots.zext(28) + 1, m.lit(0, 4)]);
    let addr = cat(&[c.base.bits(31, 4), m.lit(0, 4)]) + offset.q();
    let info = VertexLaunched {
        slot: launch_slot,
        addr,
        live,
    };
    let (launched, _always_ready) = Stream::offer(m, "launched", fire, info);
    let finished = cv & !pending & in_flight.q().eq(0) & idle;
    cr.drive(finished);
    next.next(finished.mux(m.lit(0, 32), fire.mux(next.q() + 4, next.q())));
    offset.next(finished.mux(
        m.lit(0, 32),
        fire.mux(offset.q() + (stride << 2).resize(32), offset.q()),
    ));
    in_flight.next(in_flight.q() + fire.zext(5) - retired.zext(5));
    VertexLaunchOut {
        launch,
        launched,
        active: cv,
        varyings: c.varyings,
        slots: c.slots,
    }
}

/// What [`vertex_exports`] takes.
#[derive(Io)]
pub struct VertexExportsIn {
    /// Warps launched (always taken).
    pub launched: Stream<VertexLaunched>,
    /// The core's exports of vertex warps.
    pub export: Stream<ExportRec>,
    /// The core's `done`s of vertex warps.
    pub done: Stream<DoneRec>,
    /// Answers to the sink's writes (acknowledgements; always taken).
    pub mem_resp: Stream<MemResp>,
    /// The current mesh's varying slots (locations kept: `0..varyings`).
    pub varyings: Sig,
    /// Varying slots per record (`S`).
    pub slots: Sig,
}

/// What [`vertex_exports`] gives.
#[derive(Io)]
pub struct VertexExportsOut {
    /// Write bursts (two beats each) into the post-transform buffer.
    pub mem_req: Stream<MemReq>,
    /// A warp's writes were all issued this clock.
    pub retired: Sig,
    /// Nothing pending, nothing unacknowledged.
    pub idle: Sig,
    /// Sticky: the first vertex warp error code (0 if none).
    pub fault: Sig,
    /// Its pc.
    pub fault_pc: Sig,
    /// Sticky: a live lane ended without a 4-word position export.
    pub no_position: Sig,
    /// The record address of the first such vertex.
    pub no_position_addr: Sig,
}

/// The export sink (module docs): per warp slot the record address, live lanes, which
/// varying slots each lane exported and whether its position is a vec4.
///
/// * **Protocol:** stream rules; `launched` and `mem_resp` always taken; an export is taken
///   when the write register is free (or being emptied) and no zero fill runs; a `done` when
///   no zero fill runs. Writes in the order taken (a location exported twice: the later wins).
/// * **Timing:** one 2-beat burst per two clocks (exports and zero fills alike); a `done`
///   whose lanes exported every slot costs nothing more; each missing (lane, slot) one burst.
/// * **Cost:** per warp slot 32 + 4 + 4·(16 + 1) flip-flops; a 128-bit write register; a
///   64-bit fill mask with its priority encoder; a 6-bit acknowledgement counter: 5,576
///   cells, 1,165 flip-flops with 8 warp slots (measured as for [`vertex_launch`]; the
///   whole `tile_vertex` 6,451 cells, 1,226 flip-flops, 86 gate levels).
pub fn vertex_exports(m: &mut Module, cfg: &ShaderCfg, i: VertexExportsIn) -> VertexExportsOut {
    let VertexExportsIn {
        launched,
        export,
        done,
        mem_resp,
        varyings,
        slots,
    } = i;
    let warps = cfg.warps as usize;
    let (lv, l, lr) = launched.split();
    lr.drive(m.lit(1, 1));
    let (ev, e, er) = export.split();
    let (dv, d, dr) = done.split();
    let (av, a, ar) = mem_resp.split();
    ar.drive(m.lit(1, 1));

    // The write register: one 16-byte burst, two beats.
    let wr_valid = m.reg("write_valid", 1).reset(0);
    let wr_beat = m.reg("write_beat", 1).reset(0);
    let wr_addr = m.reg("write_addr", 32);
    let wr_data: Vec<_> = (0..4)
        .map(|k| m.reg(&format!("write_data_{k}"), 32))
        .collect();
    let acks = m.reg("writes_unacknowledged", 6).reset(0);
    let req = MemReq {
        write: m.lit(1, 1),
        addr: wr_addr.q(),
        beats: m.lit(1, 4),
        data: wr_beat.q().mux(
            cat(&[wr_data[3].q(), wr_data[2].q()]),
            cat(&[wr_data[1].q(), wr_data[0].q()]),
        ),
        strobe: m.lit(0xFF, 8),
        last: wr_beat.q(),
    };
    let room = acks.q().lt(WRITES_IN_FLIGHT);
    let (mem_req, mem_ready) = Stream::offer(m, "mem_req", wr_valid.q() & room, req);
    let beat = wr_valid.q() & room & mem_ready;
    let burst_done = beat & wr_beat.q();
    let free = !wr_valid.q() | burst_done;
    wr_beat.next_when(beat, !wr_beat.q());
    let ack = av & a.write;
    acks.next(acks.q() + burst_done.zext(6) - ack.zext(6));

    // Per warp slot: record address, live lanes, exported slots per lane, position ok.
    let fill = m.reg("fill_mask", 64).reset(0); // bit 16·lane + slot
    let fill_addr = m.reg("fill_addr", 32);
    let filling = fill.q().any();
    let take_export = ev & free & !filling;
    er.drive(free & !filling);
    let take_done = dv & !filling;
    dr.drive(!filling);
    let is_pos = e.loc.eq(POSITION_LOC);
    let is_vary = e.loc.lt(varyings.zext(32));
    let mut addrs = Vec::new();
    let mut lives = Vec::new();
    let mut marks = Vec::new(); // [slot] 64 bits: 16·lane + location
    let mut pos_oks = Vec::new(); // [slot] 4 bits
    let lane_onehot: Vec<Sig> = (0..4u64).map(|k| e.lane.resize(2).eq(k)).collect();
    let loc_bit = m.lit(1, 16).shl(e.loc.resize(4));
    for k in 0..warps {
        let at_launch = lv & l.slot.eq(k as u64);
        let here = take_export & e.slot.eq(k as u64);
        let addr = m.reg(&format!("record_{k}"), 32);
        addr.next_when(at_launch, l.addr);
        let live = m.reg(&format!("live_{k}"), 4).reset(0);
        live.next_when(at_launch, l.live);
        let lane_marks: Vec<Sig> = (0..4)
            .map(|lane| {
                let r = m.reg(&format!("exported_{k}_{lane}"), 16).reset(0);
                let hit = here & lane_onehot[lane] & is_vary;
                r.next(at_launch.mux(m.lit(0, 16), hit.mux(r.q() | loc_bit, r.q())));
                r.q()
            })
            .collect();
        let pos_bits: Vec<Sig> = (0..4)
            .map(|lane| {
                let r = m.reg(&format!("position_{k}_{lane}"), 1).reset(0);
                let hit = here & lane_onehot[lane] & is_pos;
                r.next(at_launch.mux(m.lit(0, 1), hit.mux(e.count.eq(4), r.q())));
                r.q()
            })
            .collect();
        addrs.push(addr.q());
        lives.push(live.q());
        marks.push(cat_lsb_first(&lane_marks));
        pos_oks.push(cat_lsb_first(&pos_bits));
    }
    let stride_units = slots.zext(6) + 1; // a record in 16-byte units
    let record_of = |m: &mut Module, base: Sig, lane: Sig, unit: Sig| -> Sig {
        let units = lane.resize(2).mul_full(stride_units).resize(10) + unit.zext(10);
        base + cat(&[units.zext(28), m.lit(0, 4)])
    };

    // An export's burst.
    let e_base = index_select(e.slot, &addrs);
    let e_unit = is_pos.mux(m.lit(0, 5), e.loc.resize(4).zext(5) + 1);
    let export_addr = record_of(m, e_base, e.lane, e_unit);
    let export_words: Vec<Sig> = (0..4)
        .map(|j| e.count.gt(j as u64).mux(e.data[j], m.lit(0, 32)))
        .collect();
    let export_writes = take_export & (is_pos | is_vary);

    // At `done`: the slots to fill with zeros, the position check.
    let d_live = index_select(d.slot, &lives);
    let d_marks = index_select(d.slot, &marks);
    let d_pos = index_select(d.slot, &pos_oks);
    let slot_mask = (m.lit(1, 17).shl(slots.zext(5)) - 1).resize(16);
    let need = cat_lsb_first(
        &(0..4u32)
            .map(|lane| {
                d_live.bit(lane).repeat(16) & slot_mask & !d_marks.bits(16 * lane + 15, 16 * lane)
            })
            .collect::<Vec<_>>(),
    );
    let d_base = index_select(d.slot, &addrs);
    let next_fill = lowest_index(fill.q()); // 6 bits: lane, slot
    let fill_go = filling & free;
    let fill_target = record_of(
        m,
        fill_addr.q(),
        next_fill.bits(5, 4),
        next_fill.bits(3, 0).zext(5) + 1,
    );
    let cleared = fill.q() & !m.lit(1, 64).shl(next_fill.zext(7));
    fill.next(take_done.mux(need, fill_go.mux(cleared, fill.q())));
    fill_addr.next_when(take_done, d_base);
    let retired = (take_done & !need.any()) | (fill_go & !cleared.any());

    let load = fill_go | export_writes;
    wr_valid.next(load | (wr_valid.q() & !burst_done));
    wr_addr.next_when(load, fill_go.mux(fill_target, export_addr));
    for (j, r) in wr_data.iter().enumerate() {
        r.next_when(load, fill_go.mux(m.lit(0, 32), export_words[j]));
    }

    // Errors.
    let fault = m.reg("fault", 4).reset(0);
    let fault_pc = m.reg("fault_pc", 32).reset(0);
    let first_fault = take_done & d.code.ne(0) & fault.q().eq(0);
    fault.next_when(first_fault, d.code);
    fault_pc.next_when(first_fault, d.pc);
    let bad = d_live & !d_pos;
    let no_pos = m.reg("no_position", 1).reset(0);
    let no_pos_addr = m.reg("no_position_addr", 32).reset(0);
    let first_bad = take_done & bad.any() & !no_pos.q() & d.code.eq(0);
    no_pos.next(no_pos.q() | first_bad);
    let bad_lane = lowest_index(bad);
    let unit_zero = m.lit(0, 5);
    let bad_addr = record_of(m, d_base, bad_lane, unit_zero);
    no_pos_addr.next_when(first_bad, bad_addr);
    let idle = !wr_valid.q() & !filling & acks.q().eq(0);
    VertexExportsOut {
        mem_req,
        retired,
        idle,
        fault: fault.q(),
        fault_pc: fault_pc.q(),
        no_position: no_pos.q(),
        no_position_addr: no_pos_addr.q(),
    }
}

/// One vertex attribute as the prologue loads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeLoad {
    /// Shader input location (registers `8 + 4·location ..`), 0 ..= 13.
    pub location: u32,
    /// Components per vertex, 1 ..= 4.
    pub components: u32,
    /// Core address (`ldg`'s `a + imm`: storage binding `b` at `b · 2^24`) of vertex 0's
    /// first component; vertex `v` at `addr + 4·components·v`.
    pub addr: u32,
}

/// The attribute prologue (module docs): `imuli` then `components` `ldg`s per attribute.
/// It has no control flow; the shader behind it needs its targets moved by its length
/// (`frag::relocate`).
pub fn vertex_prologue(attributes: &[AttributeLoad]) -> Result<Vec<u64>, String> {
    let mut a = String::new();
    for at in attributes {
        if at.location > VARYING_SLOTS - 1 || !(1..=4).contains(&at.components) {
            return Err(format!(
                "attribute at location {} with {} components: locations 0..=13, 1..=4 components",
                at.location, at.components
            ));
        }
        let first = 8 + 4 * at.location;
        let addr_reg = first + at.components - 1;
        a.push_str(&format!("imuli r{addr_reg}, r0, {}\n", 4 * at.components));
        for c in 0..at.components {
            let imm = at.addr.wrapping_add(4 * c);
            a.push_str(&format!("ldg r{}, r{addr_reg}, {imm}\n", first + c));
        }
    }
    rendergen_shader_isa::asm::assemble(&a).map_err(|e| e.to_string())
}

/// The vertex units alone (catalogue `tile_vertex`): `vertex_launch` and `vertex_exports`
/// as children, with the core's side as ports — `vertex` (commands), `launch` and
/// `launch_slot`, `export` and `done` (the core's, of vertex warps), `mem_req`/`mem_resp`,
/// and the sink's error outputs (`fault`, `fault_pc`, `no_position`, `no_position_addr`) and
/// `active`.
///
/// * **Errors:** the core's `quads` must be 1 (a warp is one quad of vertices), `warps`
///   1 ..= 16, `regs` 16 ..= 256.
pub fn tile_vertex_top(
    cfg: &ShaderCfg,
) -> Result<rendergen_hdl::Design, rendergen_hdl::ElabErrors> {
    rendergen_hdl::Design::build_with_params("tile_vertex", &format!("{cfg:?}"), |m| {
        let quads_ok = cfg.quads == 1
            || m.param_error("quads", cfg.quads as u64, "1 (a vertex warp is one quad)");
        let ok = quads_ok
            & m.check_param("warps", cfg.warps as u64, 2..=16)
            & m.check_param("regs", cfg.regs as u64, 16..=256);
        if !ok {
            return;
        }
        let cmd = m.input_stream("vertex", &VertexCmd::SHAPE);
        let launch_slot = m.input("launch_slot", cfg.slot_bits());
        let retired = m.wire("retired", 1);
        let idle = m.wire("idle", 1);
        let front = m.child(
            "vertex_launch",
            cfg,
            VertexLaunchIn {
                cmd,
                launch_slot,
                retired: retired.sig(),
                idle: idle.sig(),
            },
            vertex_launch,
        );
        let export = m.input_stream::<ExportRec>(
            "export",
            &ExportRec {
                slot: cfg.slot_bits(),
                lane: cfg.lane_bits(),
                loc: 32,
                count: 3,
                data: vec![32; 4],
            },
        );
        let done = m.input_stream::<DoneRec>(
            "done",
            &DoneRec {
                slot: cfg.slot_bits(),
                code: 4,
                pc: 32,
                executed: 32,
            },
        );
        let mem_resp = m.input_stream("mem_resp", &MemResp::SHAPE);
        let sink = m.child(
            "vertex_exports",
            cfg,
            VertexExportsIn {
                launched: front.launched,
                export,
                done,
                mem_resp,
                varyings: front.varyings,
                slots: front.slots,
            },
            vertex_exports,
        );
        retired.drive(sink.retired);
        idle.drive(sink.idle);
        m.output_stream("launch", front.launch);
        m.output_stream("mem_req", sink.mem_req);
        m.output("active", front.active);
        m.output("fault", sink.fault);
        m.output("fault_pc", sink.fault_pc);
        m.output("no_position", sink.no_position);
        m.output("no_position_addr", sink.no_position_addr);
    })
}
