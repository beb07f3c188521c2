//! The command-list processor (`tile_cmd`; `tiles-and-allocation.md` A.6, A.10.2 §1–2): fetches
//! a tile's command list from memory and runs it: TILE_BEGIN → `tile_begin`, DRAW → `tri`,
//! RESOLVE → the drain barrier, a tile-shader launch and its completion, END_TILE → the drain
//! barrier and the write-out. The encoding is in `rtl/tile/README.md` ("Command lists").
use super::mem_port::{MemReq, MemResp, MEM_ADDR_BITS, MEM_BEATS_BITS, MEM_DATA_BITS};
use super::writeout::{WoFlags, WoStart};
use super::{EdgeSetup, TileBegin, TileCfg, TriSetup, TILE_COORD_BITS};
use rendergen_hdl::{pack, priority_select, unpack, Bundle, HwEnum, Io, Module, Sig, Stream};

/// Bytes of a command: 16 little-endian 64-bit words, one maximal burst.
pub const CMD_BYTES: u32 = 128;
/// Words of a command the processor keeps (the rest are reserved, zero).
pub const CMD_WORDS_USED: usize = 10;
/// Opcodes (bits 7:0 of word 0).
pub const OP_TILE_BEGIN: u64 = 1;
/// DRAW: one set-up triangle.
pub const OP_DRAW: u64 = 2;
/// RESOLVE: drain, launch the tile shader, wait for it.
pub const OP_RESOLVE: u64 = 3;
/// END_TILE: drain, write out, next tile.
pub const OP_END_TILE: u64 = 4;
/// The primitive id of the drain fence (not usable by DRAW).
pub const FENCE_PRIM: u64 = 0xFFFF;
/// Bits of a thread-grid dimension (1 ..= 16).
pub const GRID_BITS: u32 = 5;
/// Bits of the outstanding-quad counter.
pub const OUTSTANDING_BITS: u32 = 16;
/// Bits of the performance counters.
pub const COUNTER_BITS: u32 = 32;

/// A tile's command list: where it starts. Taken when the tile is written out.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TileList<T = Sig> {
    /// Byte address of the first command, a multiple of 128.
    pub addr: T,
}

/// A tile-shader launch (RESOLVE).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TsLaunch<T = Sig> {
    /// Tile column.
    pub tile_x: T,
    /// Tile row.
    pub tile_y: T,
    /// Threads in x, 1 ..= 16.
    pub xthreads: T,
    /// Threads in y.
    pub ythreads: T,
    /// Program address.
    pub program: T,
}

impl TsLaunch<u32> {
    /// The shape.
    pub const SHAPE: TsLaunch<u32> = TsLaunch {
        tile_x: TILE_COORD_BITS,
        tile_y: TILE_COORD_BITS,
        xthreads: GRID_BITS,
        ythreads: GRID_BITS,
        program: 32,
    };
}

/// Performance counters (cycles since reset, wrapping).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct CmdCounters<T = Sig> {
    /// Cycles waiting for the drain barrier.
    pub drain: T,
    /// Cycles from a launch offered to its `ts_done`.
    pub tile_shader: T,
    /// Cycles from a write-out offered to its completion.
    pub writeout: T,
    /// RESOLVE commands run.
    pub resolves: T,
}

/// What [`tile_cmd`] takes.
#[derive(Io)]
pub struct CmdIn {
    /// Tiles to run.
    pub list: Stream<TileList>,
    /// Memory answers (command fetches).
    pub mem_resp: Stream<MemResp>,
    /// The tile shader finished, with its write-out choices.
    pub ts_done: Stream<WoFlags>,
    /// A quad left the rasteriser for the fragment shader (one per clock at most).
    pub quad_out: Sig,
    /// A quad retired: all its pixel writes were accepted by the tile buffer, or it was killed.
    pub quad_retired: Sig,
    /// The drain fence's quad left the rasteriser (and was dropped there).
    pub fence_seen: Sig,
}

/// What [`tile_cmd`] gives.
#[derive(Io)]
pub struct CmdOut {
    /// Command fetches.
    pub mem_req: Stream<MemReq>,
    /// TILE_BEGIN to the tile buffer.
    pub tile_begin: Stream<TileBegin>,
    /// Set-up triangles (and the drain fence) to the rasteriser.
    pub tri: Stream<TriSetup>,
    /// Tile-shader launches.
    pub ts_launch: Stream<TsLaunch>,
    /// Write-outs.
    pub wo_start: Stream<WoStart>,
    /// Quads out and not retired.
    pub outstanding: Sig,
    /// An unknown opcode was met (sticky); it is skipped.
    pub bad_op: Sig,
    /// Performance counters.
    pub counters: CmdCounters,
}

/// States of the processor.
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmdState {
    /// Waiting for a tile.
    Idle,
    /// Offering the command read.
    Fetch,
    /// Receiving the command's beats.
    Receive,
    /// Decoding.
    Decode,
    /// Offering TILE_BEGIN.
    Begin,
    /// Offering a DRAW's triangle.
    Draw,
    /// Offering the drain fence.
    Fence,
    /// Waiting until every quad is retired.
    Drain,
    /// Offering the tile-shader launch.
    Launch,
    /// Waiting for `ts_done`.
    TileShader,
    /// Offering the write-out (taken when it is complete).
    WriteOut,
    /// Taking the tile's `list`.
    Done,
}

/// `sel ? a : b` for records.
fn bmux<T: Bundle>(sel: Sig, a: &T, b: &T) -> T {
    unpack(&a.shape(), sel.mux(pack(a), pack(b)))
}

/// Bits `lo ..= lo + w − 1` of the command.
fn field(words: &[Sig], lo: u32, w: u32) -> Sig {
    let word = (lo / 64) as usize;
    let at = lo % 64;
    words[word].bits(at + w - 1, at)
}

/// The triangle of a DRAW (README: "Command lists").
fn decode_tri(words: &[Sig]) -> TriSetup {
    let edge = |i: u32| EdgeSetup {
        a: field(words, 64 * (1 + 2 * i), 24),
        b: field(words, 64 * (1 + 2 * i) + 24, 24),
        top_left: field(words, 64 * (1 + 2 * i) + 48, 1),
        c: field(words, 64 * (2 + 2 * i), 48),
    };
    TriSetup {
        edge: [edge(0), edge(1), edge(2)],
        bbox: [0, 1, 2, 3].map(|k| field(words, 8 + 3 * k, 3)),
        depth_op: field(words, 20, 3),
        depth_write: field(words, 23, 1),
        prim: field(words, 24, 16),
        z_c: field(words, 64 * 7, 64),
        dzdx: field(words, 64 * 8, 48),
        dzdy: field(words, 64 * 9, 48),
    }
}

/// The drain fence: covers quad (0, 0), passes any depth test (`ALWAYS`), writes nothing,
/// primitive [`FENCE_PRIM`]. The rasteriser emits it after every earlier quad.
fn fence(m: &mut Module) -> TriSetup {
    let shape = TriSetup::shape();
    let mut t = TriSetup::from_fields(&shape, &mut |_, w| m.lit(0, w));
    for e in &mut t.edge {
        e.c = m.lit(1, e.c.width());
    }
    t.depth_op = m.lit(7, 3);
    t.prim = m.lit(FENCE_PRIM, 16);
    t
}

/// The command-list processor.
///
/// * **Ports:** `list` (a tile's command list address; taken when its END_TILE's write-out is
///   complete), `mem_req`/`mem_resp` (reads of 16 beats, one command each), `tile_begin`,
///   `tri`, `ts_launch`, `ts_done` ([`WoFlags`]: the tile shader's write-out choices),
///   `wo_start` (taken by the write-out when the tile is in memory), the fragment tracker's
///   inputs `quad_out`, `quad_retired`, `fence_seen`; `outstanding`, `bad_op`, `counters`.
/// * **Drain barrier** (A.6 steps 1–3): RESOLVE and END_TILE first send a fence triangle
///   (one quad, `ALWAYS`, no depth write, prim [`FENCE_PRIM`]) and wait until it has left the
///   rasteriser (`fence_seen`: every earlier quad has left, the rasteriser is in order) and
///   every quad that left is retired (`outstanding` = quads out − quads retired = 0). Only then
///   is the launch (or write-out) offered; no triangle is offered from the fence until
///   `ts_done` is taken, and drawing resumes with the next command.
/// * **Write-out flags:** all planes on, averaged, at TILE_BEGIN; replaced by each `ts_done`.
/// * **Timing:** one command per fetch: a read of 16 beats, then its action; a DRAW costs
///   the memory latency + 16 + 2 cycles when nothing stalls (the next fetch starts when the
///   triangle is taken).
/// * **Cost:** ten 64-bit command words, a 32-bit address, counters: 2,018 cells, 824
///   flip-flops (`rendergen synth tile_cmd`).
pub fn tile_cmd(m: &mut Module, cfg: &TileCfg, i: CmdIn) -> CmdOut {
    let CmdIn {
        list,
        mem_resp,
        ts_done,
        quad_out,
        quad_retired,
        fence_seen,
    } = i;
    let state = m.enum_reg("state", CmdState::Idle);
    let s = state.q();
    let addr = m.reg("addr", MEM_ADDR_BITS).reset(0);
    let beat = m.reg("beat", 4).reset(0);
    let words: Vec<_> = (0..CMD_WORDS_USED)
        .map(|k| m.reg(&format!("word_{k}"), MEM_DATA_BITS).reset(0))
        .collect();
    let w: Vec<Sig> = words.iter().map(|r| r.q()).collect();
    let op = field(&w, 0, 8);

    // The tile list.
    let (list_valid, list_data, list_ready) = list.split();
    list_ready.drive(s.is(CmdState::Done));
    let start = s.is(CmdState::Idle) & list_valid;

    // Fetch one command.
    let read = MemReq {
        write: m.lit(0, 1),
        addr: addr.q(),
        beats: m.lit(15, MEM_BEATS_BITS),
        data: m.lit(0, MEM_DATA_BITS),
        strobe: m.lit(0, 8),
        last: m.lit(1, 1),
    };
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", s.is(CmdState::Fetch), read);
    let fetched = s.is(CmdState::Fetch) & req_ready;
    let (resp_valid, resp, resp_ready) = mem_resp.split();
    resp_ready.drive(m.lit(1, 1));
    let got = s.is(CmdState::Receive) & resp_valid & !resp.write;
    for (k, r) in words.iter().enumerate() {
        r.next_when(got & beat.q().eq(k as u64), resp.data);
    }
    beat.next(fetched.mux(0u64, got.mux(beat.q() + 1u64, beat.q())));
    let received = got & resp.last;

    // TILE_BEGIN.
    let tile_x = m.reg("tile_x", TILE_COORD_BITS).reset(0);
    let tile_y = m.reg("tile_y", TILE_COORD_BITS).reset(0);
    let planes = cfg.planes() as u32;
    let begin = TileBegin {
        tile_x: field(&w, 8, TILE_COORD_BITS),
        tile_y: field(&w, 17, TILE_COORD_BITS),
        clear_mask: field(&w, 32, planes),
        clear: (0..planes)
            .map(|p| field(&w, 64 * (1 + p), cfg.data_bits()))
            .collect(),
    };
    let begin_tile = (begin.tile_x, begin.tile_y);
    let (tile_begin, begin_ready) = Stream::offer(m, "tile_begin", s.is(CmdState::Begin), begin);
    let begun = s.is(CmdState::Begin) & begin_ready;
    tile_x.next_when(begun, begin_tile.0);
    tile_y.next_when(begun, begin_tile.1);

    // DRAW and the fence.
    let fence_tri = fence(m);
    let drawing = s.is(CmdState::Draw) | s.is(CmdState::Fence);
    let tri_data = bmux(s.is(CmdState::Fence), &fence_tri, &decode_tri(&w));
    let (tri, tri_ready) = Stream::offer(m, "tri", drawing, tri_data);
    let drawn = s.is(CmdState::Draw) & tri_ready;
    let fenced = s.is(CmdState::Fence) & tri_ready;

    // The fragment tracker.
    let outstanding = m.reg("outstanding", OUTSTANDING_BITS).reset(0);
    let delta = quad_out.mux(
        quad_retired.mux(outstanding.q(), outstanding.q() + 1u64),
        quad_retired.mux(outstanding.q() - 1u64, outstanding.q()),
    );
    outstanding.next(delta);
    let fence_arrived = m.reg("fence_arrived", 1).reset(0);
    fence_arrived.next(fence_seen | (fence_arrived.q() & !fenced));
    let drained = s.is(CmdState::Drain) & fence_arrived.q() & outstanding.q().eq(0u64);
    let resolve = op.eq(OP_RESOLVE);

    // RESOLVE's launch and completion.
    let launch = TsLaunch {
        tile_x: tile_x.q(),
        tile_y: tile_y.q(),
        xthreads: field(&w, 8, GRID_BITS),
        ythreads: field(&w, 16, GRID_BITS),
        program: field(&w, 32, 32),
    };
    let (ts_launch, launch_ready) = Stream::offer(m, "ts_launch", s.is(CmdState::Launch), launch);
    let launched = s.is(CmdState::Launch) & launch_ready;
    let (done_valid, done_flags, done_ready) = ts_done.split();
    done_ready.drive(s.is(CmdState::TileShader));
    let shaded = s.is(CmdState::TileShader) & done_valid;
    let flags_shape = WoFlags::shape(cfg);
    let defaults = WoFlags::from_fields(&flags_shape, &mut |path, w| match path {
        "enable" => m.lit((1u64 << w) - 1, w),
        _ => m.lit(0, w),
    });
    let flags_next = bmux(begun, &defaults, &done_flags);
    let flags = m.reg_bundle("flags", &flags_next, Some(begun | shaded));

    // END_TILE's write-out.
    let wo = WoStart {
        tile_x: tile_x.q(),
        tile_y: tile_y.q(),
        flags,
    };
    let (wo_start, wo_ready) = Stream::offer(m, "wo_start", s.is(CmdState::WriteOut), wo);
    let written = s.is(CmdState::WriteOut) & wo_ready;

    // Next state.
    let bad = s.is(CmdState::Decode) & !(op.ge(OP_TILE_BEGIN) & op.le(OP_END_TILE));
    let bad_op = m.reg("bad_op", 1).reset(0);
    bad_op.next(bad_op.q() | bad);
    let k = |m: &mut Module, st: CmdState| m.enum_const(st);
    let decode = s.is(CmdState::Decode);
    let next = priority_select(
        &[
            (start, k(m, CmdState::Fetch)),
            (fetched, k(m, CmdState::Receive)),
            (received, k(m, CmdState::Decode)),
            (decode & op.eq(OP_TILE_BEGIN), k(m, CmdState::Begin)),
            (decode & op.eq(OP_DRAW), k(m, CmdState::Draw)),
            (
                decode & (resolve | op.eq(OP_END_TILE)),
                k(m, CmdState::Fence),
            ),
            (bad | begun | drawn | shaded, k(m, CmdState::Fetch)),
            (fenced, k(m, CmdState::Drain)),
            (drained & resolve, k(m, CmdState::Launch)),
            (drained, k(m, CmdState::WriteOut)),
            (launched, k(m, CmdState::TileShader)),
            (written, k(m, CmdState::Done)),
            (s.is(CmdState::Done), k(m, CmdState::Idle)),
        ],
        s,
    );
    state.next(next);
    let next_addr = addr.q() + u64::from(CMD_BYTES);
    addr.next(start.mux(list_data.addr, received.mux(next_addr, addr.q())));

    // Performance counters.
    let count = |m: &mut Module, name: &str, when: Sig| {
        let r = m.reg(name, COUNTER_BITS).reset(0);
        r.next_when(when, r.q() + 1u64);
        r.q()
    };
    let counters = CmdCounters {
        drain: count(m, "drain_cycles", s.is(CmdState::Drain)),
        tile_shader: count(
            m,
            "tile_shader_cycles",
            s.is(CmdState::Launch) | s.is(CmdState::TileShader),
        ),
        writeout: count(m, "writeout_cycles", s.is(CmdState::WriteOut)),
        resolves: count(m, "resolves", launched),
    };
    CmdOut {
        mem_req,
        tile_begin,
        tri,
        ts_launch,
        wo_start,
        outstanding: outstanding.q(),
        bad_op: bad_op.q(),
        counters,
    }
}
