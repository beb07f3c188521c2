//! The command-list processor (`tile_cmd`; `tiles-and-allocation.md` A.6, A.10.2 §1–2): fetches
//! a tile's command list from memory and runs it: TILE_BEGIN → `tile_begin`, DRAW → `tri`,
//! RESOLVE → the drain barrier, a tile-shader launch and its completion, END_TILE → the drain
//! barrier and the write-out. The encoding is the frame model's
//! (`rendergen_sim::models::tile::command`, table repeated in `rtl/tile/README.md`, "Command
//! lists"): packed 64-bit words, a size per opcode.
use super::mem_port::{
    MemReq, MemResp, MEM_ADDR_BITS, MEM_BEATS_BITS, MEM_DATA_BITS, MEM_MAX_BEATS,
};
use super::writeout::{WoFlags, WoStart};
use super::{EdgeSetup, TileBegin, TileCfg, TriSetup, PRIM_BITS, STATE_BITS, TILE_COORD_BITS};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{
    clog2, pack, priority_select, unpack, Bundle, HwEnum, Io, Module, Sig, Stream,
};

/// Words of the largest command the processor keeps (DRAW: 10; TILE_BEGIN keeps word 0 and
/// one clear value per plane, at most 9).
pub const CMD_WORDS_USED: usize = 10;
/// Words of a DRAW.
pub const DRAW_WORDS: u64 = 10;
/// Entries (64-bit words) of the prefetch FIFO: two 128-byte blocks.
pub const PREFETCH_WORDS: u32 = 32;
/// Bytes of an aligned fetch block: a read never crosses one (so never 4 KiB).
pub const FETCH_BLOCK_BYTES: u64 = (MEM_MAX_BEATS * 8) as u64;
/// Bits of a list's length in words ([`TileList::words`]).
pub const LIST_WORDS_BITS: u32 = 24;
/// Bits of the clear mask in TILE_BEGIN (`w[0][55:40]`).
pub const MASK_BITS: u32 = 16;
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

/// A tile's command list: where it starts and how long it is. Taken when the tile is written
/// out.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct TileList<T = Sig> {
    /// Byte address of the first command, a multiple of 8.
    pub addr: T,
    /// Length of the list in 64-bit words ([`LIST_WORDS_BITS`]); exactly these are read.
    pub words: T,
}

impl TileList<u32> {
    /// The shape.
    pub const SHAPE: TileList<u32> = TileList {
        addr: MEM_ADDR_BITS,
        words: LIST_WORDS_BITS,
    };
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
    /// A malformed list was met (sticky): it ended without END_TILE at its last word (its
    /// words ran out between commands or inside one), or words followed its END_TILE.
    pub bad_list: Sig,
    /// Performance counters.
    pub counters: CmdCounters,
}

/// States of the processor.
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmdState {
    /// Waiting for a tile.
    Idle,
    /// Taking a command's words from the prefetch FIFO.
    Collect,
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
    /// Finishing the list's reads, then taking the tile's `list`.
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

/// The triangle of a DRAW (README: "Command lists"), with the draw state (`w[0][15:8]`),
/// front facing (`w[0][32]`) and the vertices' `rw` (`rw_i[15:0]` in `w[1 + i][63:48]`,
/// `rw_i[31:16]` in `w[4 + i][63:48]`) that fragment shading needs; the primitive id keeps its
/// low [`PRIM_BITS`] bits.
fn decode_tri(words: &[Sig]) -> TriSetup {
    let edge = |i: u32| EdgeSetup {
        a: field(words, 64 * (1 + i), 24),
        b: field(words, 64 * (1 + i) + 24, 24),
        top_left: field(words, 33 + i, 1),
        c: field(words, 64 * (4 + i), 48),
    };
    TriSetup {
        edge: [edge(0), edge(1), edge(2)],
        bbox: [0, 1, 2, 3].map(|k| field(words, 16 + 3 * k, 3)),
        depth_op: field(words, 28, 3),
        depth_write: field(words, 31, 1),
        prim: field(words, 40, PRIM_BITS),
        z_c: field(words, 64 * 7, 64),
        dzdx: field(words, 64 * 8, 48),
        dzdy: field(words, 64 * 9, 48),
        state: field(words, 8, STATE_BITS),
        front: field(words, 32, 1),
        rw: [0, 1, 2].map(|i| {
            rendergen_hdl::cat(&[
                field(words, 64 * (4 + i) + 48, 16),
                field(words, 64 * (1 + i) + 48, 16),
            ])
        }),
    }
}

/// Number of set bits of `x`, `clog2(width + 1)` bits.
fn popcount(x: Sig) -> Sig {
    let w = clog2(x.width() as u64 + 1);
    (1..x.width()).fold(x.bit(0).zext(w), |acc, i| acc + x.bit(i).zext(w))
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
/// * **Ports:** `list` (a tile's command list: address and length in words; taken when its
///   END_TILE's write-out is complete and every word of it has been read), `mem_req`/`mem_resp`
///   (reads of 1 ..= 16 beats), `tile_begin`, `tri`, `ts_launch`, `ts_done` ([`WoFlags`]: the
///   tile shader's write-out choices), `wo_start` (taken by the write-out when the tile is in
///   memory), the fragment tracker's inputs `quad_out`, `quad_retired`, `fence_seen`;
///   `outstanding`, `bad_op`, `counters`.
/// * **Fetch:** exactly the list's `words` words are read, in bursts that end at the next
///   128-byte boundary (so never cross 4 KiB) or at the list's end, into a prefetch FIFO of
///   [`PREFETCH_WORDS`] words; a burst is requested when the FIFO has room for all of it
///   (entries + beats in flight), so reading runs ahead of the commands (and continues during
///   a barrier) and `mem_resp` is always ready.
/// * **Parse:** one word per clock from the FIFO; the opcode of word 0 fixes the size (DRAW
///   10, TILE_BEGIN 1 + popcount(clear mask), RESOLVE and END_TILE 1). A TILE_BEGIN's clear
///   values go to their planes (the lowest plane still in the mask first; values of planes
///   ≥ the configuration's are dropped); `tile_begin.clear[p]` is 0 for planes not cleared.
///   An unknown opcode sets the sticky `bad_op` and that one word is skipped.
/// * **Malformed lists:** a list must end with END_TILE at its last word. Words after it are
///   read and dropped, and set the sticky `bad_list`. A list whose words run out before an
///   END_TILE (between commands, or inside one: that command is dropped) sets `bad_list` and
///   ends as if END_TILE came: after a TILE_BEGIN, the drain barrier and the write-out; before
///   any, the list is taken with nothing offered. The engine never waits for words that are
///   not in the list.
/// * **Drain barrier** (A.6 steps 1–3): RESOLVE and END_TILE first send a fence triangle
///   (one quad, `ALWAYS`, no depth write, prim [`FENCE_PRIM`]) and wait until it has left the
///   rasteriser (`fence_seen`: every earlier quad has left, the rasteriser is in order) and
///   every quad that left is retired (`outstanding` = quads out − quads retired = 0). Only then
///   is the launch (or write-out) offered; no triangle is offered from the fence until
///   `ts_done` is taken, and drawing resumes with the next command.
/// * **Write-out flags:** all planes on with their static resolve (no plane `set`) at TILE_BEGIN; replaced by each `ts_done`.
/// * **Timing:** a command of `n` words takes `n` clocks from the FIFO, then its action (the
///   next command is collected once it is taken): a DRAW offers its triangle 11 clocks after
///   the previous one was taken when the FIFO is ahead and nothing stalls; the first command of
///   a tile waits for the memory latency.
/// * **Cost:** the prefetch FIFO (32 × 64 bits), ten 64-bit command words (fewer bits after
///   trimming of unused fields), the fetch address and length, counters: see
///   `rtl/tile/README.md` (`rendergen synth tile_cmd`).
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

    // The tile list.
    let (list_valid, list_data, list_ready) = list.split();
    let start = s.is(CmdState::Idle) & list_valid;

    // Fetch: aligned bursts into the prefetch FIFO, credits for every word in flight.
    let depth_bits = clog2(u64::from(PREFETCH_WORDS) + 1);
    let fetch_addr = m.reg("fetch_addr", MEM_ADDR_BITS).reset(0);
    let fetch_left = m.reg("fetch_left", LIST_WORDS_BITS).reset(0);
    let in_flight = m.reg("in_flight", depth_bits).reset(0);
    let to_block = m.lit(MEM_MAX_BEATS as u64, 5) - fetch_addr.q().bits(6, 3).zext(5);
    let short = fetch_left.q().lt(to_block.zext(LIST_WORDS_BITS));
    let burst = short.mux(fetch_left.q().bits(4, 0), to_block); // 1 ..= 16 words
    let (resp_valid, resp, resp_ready) = mem_resp.split();
    resp_ready.drive(m.lit(1, 1));
    let beat_in = resp_valid & !resp.write;
    let (push, _push_ready) = Stream::offer(m, "prefetch_push", beat_in, resp.data);
    let prefetch = fifo(
        m,
        &FifoCfg {
            depth: PREFETCH_WORDS,
        },
        push,
    );
    let used = prefetch.count.zext(depth_bits) + in_flight.q();
    let room = m.lit(u64::from(PREFETCH_WORDS), depth_bits) - used;
    let want = !s.is(CmdState::Idle) & fetch_left.q().any() & room.ge(burst.zext(depth_bits));
    let read = MemReq {
        write: m.lit(0, 1),
        addr: fetch_addr.q(),
        beats: (burst - 1u64).bits(MEM_BEATS_BITS - 1, 0),
        data: m.lit(0, MEM_DATA_BITS),
        strobe: m.lit(0, 8),
        last: m.lit(1, 1),
    };
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", want, read);
    let fetched = want & req_ready;
    fetch_addr.next(start.mux(
        list_data.addr,
        fetched.mux(
            fetch_addr.q() + (burst.zext(MEM_ADDR_BITS) << 3),
            fetch_addr.q(),
        ),
    ));
    fetch_left.next(start.mux(
        list_data.words,
        fetched.mux(fetch_left.q() - burst.zext(LIST_WORDS_BITS), fetch_left.q()),
    ));
    let flight_up = fetched.mux(in_flight.q() + burst.zext(depth_bits), in_flight.q());
    in_flight.next(beat_in.mux(flight_up - 1u64, flight_up));

    // Parse: one word per clock into the command words.
    let (word_valid, word, word_ready) = prefetch.pop.split();
    let collecting = s.is(CmdState::Collect);
    word_ready.drive(collecting | s.is(CmdState::Done));
    let pop = collecting & word_valid;
    let idx = m.reg("idx", 5).reset(0);
    let first = idx.q().eq(0u64);
    let words: Vec<_> = (0..CMD_WORDS_USED)
        .map(|k| m.reg(&format!("word_{k}"), MEM_DATA_BITS).reset(0))
        .collect();
    let w: Vec<Sig> = words.iter().map(|r| r.q()).collect();
    let w0 = first.mux(word, w[0]); // the command's word 0, also while it arrives
    let op_now = w0.bits(7, 0);
    let is_begin = op_now.eq(OP_TILE_BEGIN);
    let is_draw = op_now.eq(OP_DRAW);
    let known = op_now.ge(OP_TILE_BEGIN) & op_now.le(OP_END_TILE);
    let mask_in = w0.bits(40 + MASK_BITS - 1, 40);
    let size = is_begin.mux(
        popcount(mask_in).zext(5) + 1u64,
        is_draw.mux(m.lit(DRAW_WORDS, 5), m.lit(1, 5)),
    );
    let last_word = pop & (idx.q() + 1u64).eq(size);
    // Words of the list still to parse: none left while collecting is a list without its
    // END_TILE (`runs_out`): the tile ends here.
    let parse_left = m.reg("parse_left", LIST_WORDS_BITS).reset(0);
    parse_left.next(start.mux(
        list_data.words,
        pop.mux(parse_left.q() - 1u64, parse_left.q()),
    ));
    let runs_out = collecting & !parse_left.q().any();
    let restart = start | runs_out;
    idx.next(restart.mux(0u64, pop.mux(last_word.mux(0u64, idx.q() + 1u64), idx.q())));
    // TILE_BEGIN: the planes whose clear values are still to come.
    let pending = m.reg("clear_pending", MASK_BITS).reset(0);
    let lowest = pending.q() & (-pending.q());
    pending.next((pop & first).mux(
        mask_in,
        pop.mux(pending.q() & (pending.q() - 1u64), pending.q()),
    ));
    let begin_words = !first & w[0].bits(7, 0).eq(OP_TILE_BEGIN);
    let planes = cfg.planes() as u32;
    for (k, r) in words.iter().enumerate() {
        let k32 = k as u32;
        let mut en = pop & idx.q().eq(k as u64) & !begin_words;
        if k >= 1 && k32 <= planes {
            en = en | (pop & begin_words & lowest.bit(k32 - 1));
        }
        if k == 0 {
            // A list that runs out continues as END_TILE (the partial command is dropped).
            let end_tile = m.lit(OP_END_TILE, MEM_DATA_BITS);
            r.next_when(en | runs_out, runs_out.mux(end_tile, word));
        } else {
            r.next_when(en, word);
        }
    }
    let op = w[0].bits(7, 0);

    // TILE_BEGIN.
    let tile_x = m.reg("tile_x", TILE_COORD_BITS).reset(0);
    let tile_y = m.reg("tile_y", TILE_COORD_BITS).reset(0);
    let clear_mask = field(&w, 40, planes);
    let begin = TileBegin {
        tile_x: field(&w, 8, TILE_COORD_BITS),
        tile_y: field(&w, 24, TILE_COORD_BITS),
        clear_mask,
        clear: (0..planes)
            .map(|p| {
                let v = field(&w, 64 * (1 + p), cfg.data_bits());
                clear_mask.bit(p).mux(v, m.lit(0, cfg.data_bits()))
            })
            .collect(),
    };
    let begin_tile = (begin.tile_x, begin.tile_y);
    let (tile_begin, begin_ready) = Stream::offer(m, "tile_begin", s.is(CmdState::Begin), begin);
    let begun = s.is(CmdState::Begin) & begin_ready;
    tile_x.next_when(begun, begin_tile.0);
    tile_y.next_when(begun, begin_tile.1);
    // A TILE_BEGIN of this list was run: a list that runs out then writes its tile out.
    let tile_open = m.reg("tile_open", 1).reset(0);
    tile_open.next(start.mux(0u64, begun.mux(1u64, tile_open.q())));

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

    // The list is taken once its words are all read (and any after END_TILE dropped).
    let finished =
        s.is(CmdState::Done) & !fetch_left.q().any() & in_flight.q().eq(0u64) & prefetch.empty;
    list_ready.drive(finished);

    // Next state.
    let bad = pop & first & !known;
    let bad_op = m.reg("bad_op", 1).reset(0);
    bad_op.next(bad_op.q() | bad);
    let trailing = s.is(CmdState::Done) & word_valid;
    let bad_list = m.reg("bad_list", 1).reset(0);
    bad_list.next(bad_list.q() | runs_out | trailing);
    let k = |m: &mut Module, st: CmdState| m.enum_const(st);
    let next = priority_select(
        &[
            (start, k(m, CmdState::Collect)),
            (runs_out & tile_open.q(), k(m, CmdState::Fence)),
            (runs_out, k(m, CmdState::Done)),
            (last_word & is_begin, k(m, CmdState::Begin)),
            (last_word & is_draw, k(m, CmdState::Draw)),
            (
                last_word & (op_now.eq(OP_RESOLVE) | op_now.eq(OP_END_TILE)),
                k(m, CmdState::Fence),
            ),
            (begun | drawn | shaded, k(m, CmdState::Collect)),
            (fenced, k(m, CmdState::Drain)),
            (drained & resolve, k(m, CmdState::Launch)),
            (drained, k(m, CmdState::WriteOut)),
            (launched, k(m, CmdState::TileShader)),
            (written, k(m, CmdState::Done)),
            (finished, k(m, CmdState::Idle)),
        ],
        s,
    );
    state.next(next);

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
        bad_list: bad_list.q(),
        counters,
    }
}
