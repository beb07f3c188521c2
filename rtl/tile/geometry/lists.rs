//! `geom_lists`: the per-tile command lists in memory: `TILE_BEGIN` into every bin when a frame
//! begins, each `DRAW` appended to its tile's bin, `END_TILE` into every bin when the frame
//! ends; then each list's address and length for the back end.
use super::{
    DrawCmd, FrameCfg, GeomCfg, DRAW_WORDS, KIND_BEGIN, KIND_END, KIND_RESOLVE, TILE_BITS,
};
use crate::tile::cmd::{TileList, LIST_WORDS_BITS};
use crate::tile::mem_port::{MemReq, MemResp, MEM_ADDR_BITS, MEM_BEATS_BITS, MEM_DATA_BITS};
use rendergen_hdl::{cat, clog2, name_lets, HwEnum, Io, Module, Sig, Stream};

/// States of the list writer.
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListsState {
    /// Waiting for a command or marker.
    Idle,
    /// Writing each tile's `TILE_BEGIN`.
    Begin,
    /// Reading the tile's fill level.
    DrawRead,
    /// Appending the `DRAW`.
    DrawWrite,
    /// Reading a tile's fill level at the frame's end.
    EndRead,
    /// Appending its `END_TILE`.
    EndWrite,
    /// Waiting for every write's acknowledgement.
    Drain,
    /// Reading a tile's list length.
    ListRead,
    /// Offering its list.
    ListOffer,
}

/// What [`geom_lists`] takes.
#[derive(Io)]
pub struct ListsIn {
    /// `DRAW`s and markers from the tiler.
    pub draw: Stream<DrawCmd>,
    /// Write acknowledgements.
    pub mem_resp: Stream<MemResp>,
    /// The frame's configuration.
    pub cfg: FrameCfg,
}

/// What [`geom_lists`] gives.
#[derive(Io)]
pub struct ListsOut {
    /// List writes (bursts that end at 128-byte boundaries).
    pub mem_req: Stream<MemReq>,
    /// Each tile's list at the frame's end, row-major.
    pub list: Stream<TileList>,
    /// Sticky: a `DRAW` did not fit its bin and was dropped.
    pub overflow: Sig,
}

/// Writes the lists (module docs): per-tile fill levels in a RAM of `max_tiles` words, one
/// command at a time, each as write bursts that end at the next 128-byte boundary (so none
/// crosses 4 KiB), one beat per clock.
///
/// * **Protocol:** stream rules; `mem_resp` always ready (acknowledgements are counted); the
///   lists are offered after every write of the frame is acknowledged.
/// * **Timing:** a `DRAW` takes 3 clocks + 10 beats; a frame's begin 2 + `planes` clocks per
///   tile, its end 3 clocks per tile plus the acknowledgements, then 2 clocks per list.
/// * **Cost:** the fill RAM (`max_tiles × (log2 bin_words + 1)` bits), the burst counters,
///   a `9 × 10` product for the tile index.
#[name_lets]
pub fn geom_lists(m: &mut Module, cfg: &GeomCfg, i: ListsIn) -> ListsOut {
    let ListsIn {
        draw,
        mem_resp,
        cfg: frame,
    } = i;
    let fill_bits = clog2(u64::from(cfg.bin_words)) + 1;
    let tile_bits = clog2(u64::from(cfg.max_tiles));
    let bin_shift = clog2(u64::from(cfg.bin_words)); // words per bin, as a shift
    let state = m.enum_reg("state", ListsState::Idle);
    let s = state.q();
    let (draw_valid, d, draw_ready) = draw.split();

    // Tile counters for the frame loops.
    let tile = m.reg("tile", tile_bits).reset(0);
    let tx = m.reg("tx", TILE_BITS).reset(0);
    let ty = m.reg("ty", TILE_BITS).reset(0);
    let tiles = frame.tiles_x.mul_full(frame.tiles_y).bits(tile_bits, 0); // up to max_tiles
    let last_tile = tile.q().zext(tile_bits + 1).eq(tiles - 1u64);
    let draw_tile = d
        .tile_y
        .mul_full(frame.tiles_x)
        .add_full(d.tile_x.zext(TILE_BITS + super::TILES_BITS))
        .bits(tile_bits - 1, 0);
    let in_draw = s.is(ListsState::DrawRead) | s.is(ListsState::DrawWrite);
    let at = in_draw.mux(draw_tile, tile.q());

    // Fill levels.
    let fill = m.memory("fill", fill_bits, cfg.max_tiles);
    let reading =
        s.is(ListsState::DrawRead) | s.is(ListsState::EndRead) | s.is(ListsState::ListRead);
    let level = fill.read_sync(at, Some(reading));
    let bin_word =
        (frame.base >> 3).bits(MEM_ADDR_BITS - 4, 0) + (at.zext(MEM_ADDR_BITS - 3) << bin_shift);

    // The beat engine: one command of `left` words from word address `waddr`.
    let active = m.reg("active", 1).reset(0);
    let left = m.reg("left", 5).reset(0);
    let k = m.reg("k", 4).reset(0);
    let waddr = m.reg("waddr", MEM_ADDR_BITS - 3).reset(0);
    let burst_left = m.reg("burst_left", 5).reset(0);
    let burst_addr = m.reg("burst_addr", MEM_ADDR_BITS - 3).reset(0);
    let burst_beats = m.reg("burst_beats", 5).reset(0);
    let writing =
        s.is(ListsState::Begin) | s.is(ListsState::DrawWrite) | s.is(ListsState::EndWrite);
    let start_burst = !burst_left.q().any();
    let to_block = m.lit(16, 5) - waddr.q().bits(3, 0).zext(5);
    let beats_new = left.q().lt(to_block).mux(left.q(), to_block);
    let cur_beats = start_burst.mux(beats_new, burst_beats.q());
    let cur_addr = start_burst.mux(waddr.q(), burst_addr.q());
    let in_burst = start_burst.mux(beats_new, burst_left.q());
    let begin_w0 = cat(&[
        m.lit(0, 8),
        m.lit((1u64 << cfg.planes) - 1, 16),
        ty.q().zext(16),
        tx.q().zext(16),
        m.lit(1, 8),
    ]);
    let mut begin_words = vec![begin_w0];
    begin_words.extend(frame.clear.iter().copied());
    let pick = |words: &[Sig], k: Sig| {
        let mut v = words[0];
        for (j, w) in words.iter().enumerate().skip(1) {
            v = k.eq(j as u64).mux(*w, v);
        }
        v
    };
    let data = s.is(ListsState::Begin).mux(
        pick(&begin_words, k.q()),
        s.is(ListsState::DrawWrite)
            .mux(pick(&d.words, k.q()), m.lit(4, MEM_DATA_BITS)),
    );
    let req = MemReq {
        write: m.lit(1, 1),
        addr: cat(&[cur_addr, m.lit(0, 3)]),
        beats: (cur_beats - 1u64).bits(MEM_BEATS_BITS - 1, 0),
        data,
        strobe: m.lit(0xFF, 8),
        last: in_burst.eq(1u64),
    };
    let (mem_req, req_ready) = Stream::offer(m, "mem_req", writing & active.q(), req);
    let beat = writing & active.q() & req_ready;
    let cmd_done = beat & left.q().eq(1u64);

    // Loading a command into the engine.
    let planes = u64::from(cfg.planes);
    let in_begin = s.is(ListsState::Begin);
    let in_draw_write = s.is(ListsState::DrawWrite);
    let in_end_write = s.is(ListsState::EndWrite);
    // A RESOLVE is one word, a DRAW ten; either must leave room for END_TILE.
    let is_resolve = d.kind.eq(KIND_RESOLVE);
    let cmd_words = is_resolve.mux(m.lit(1, 5), m.lit(DRAW_WORDS as u64, 5));
    let fits = (level.zext(fill_bits + 1) + cmd_words.zext(fill_bits + 1) + 1u64)
        .le(m.lit(u64::from(cfg.bin_words), fill_bits + 1));
    let load = writing & !active.q() & (!in_draw_write | fits);
    let dropped = in_draw_write & !active.q() & !fits;
    let words_now = in_begin.mux(
        m.lit(1 + planes, 5),
        in_draw_write.mux(cmd_words, m.lit(1, 5)),
    );
    let start_word = bin_word
        + in_begin
            .mux(m.lit(0, fill_bits), level)
            .zext(MEM_ADDR_BITS - 3);
    active.next(load | (active.q() & !cmd_done));
    left.next(load.mux(words_now, beat.mux(left.q() - 1u64, left.q())));
    k.next(load.mux(m.lit(0, 4), beat.mux(k.q() + 1u64, k.q())));
    waddr.next(load.mux(start_word, beat.mux(waddr.q() + 1u64, waddr.q())));
    burst_left.next(load.mux(m.lit(0, 5), beat.mux(in_burst - 1u64, burst_left.q())));
    burst_addr.next_when(beat & start_burst, waddr.q());
    burst_beats.next_when(beat & start_burst, beats_new);
    let overflow = m.reg("overflow", 1).reset(0);
    overflow.next(overflow.q() | dropped);

    // New fill levels.
    let new_level = in_begin.mux(
        m.lit(1 + planes, fill_bits),
        in_draw_write.mux(level + cmd_words.zext(fill_bits), level + 1u64),
    );
    fill.write(cmd_done, at, new_level);

    // Acknowledgements.
    let (resp_valid, resp, resp_ready) = mem_resp.split();
    resp_ready.drive(m.lit(1, 1));
    let acked = resp_valid & resp.write;
    let outstanding = m.reg("outstanding", 16).reset(0);
    let sent = beat & start_burst;
    outstanding.next(
        outstanding.q() + sent.mux(m.lit(1, 16), m.lit(0, 16))
            - acked.mux(m.lit(1, 16), m.lit(0, 16)),
    );

    // The lists.
    let offering = s.is(ListsState::ListOffer);
    let list = TileList {
        addr: cat(&[bin_word, m.lit(0, 3)]),
        words: level.zext(LIST_WORDS_BITS),
    };
    let (list, list_ready) = Stream::offer(m, "list", offering, list);

    // The frame loops step through the tiles row-major.
    let loop_step = (in_begin & cmd_done) | (in_end_write & cmd_done) | (offering & list_ready);
    let step_done = loop_step & last_tile;
    let row_end = tx.q().zext(super::TILES_BITS).eq(frame.tiles_x - 1u64);
    let start = s.is(ListsState::Idle) & draw_valid;
    let restart = start | s.is(ListsState::Drain);
    tile.next(restart.mux(
        m.lit(0, tile_bits),
        loop_step.mux(tile.q() + 1u64, tile.q()),
    ));
    tx.next(restart.mux(
        m.lit(0, TILE_BITS),
        loop_step.mux(row_end.mux(m.lit(0, TILE_BITS), tx.q() + 1u64), tx.q()),
    ));
    ty.next(restart.mux(
        m.lit(0, TILE_BITS),
        (loop_step & row_end).mux(ty.q() + 1u64, ty.q()),
    ));
    let draw_done = (in_draw_write & cmd_done) | dropped;
    draw_ready
        .drive(draw_done | (in_begin & cmd_done & last_tile) | (offering & list_ready & last_tile));

    let mut st = |v: ListsState| m.enum_const(v);
    let kind_next = d.kind.eq(KIND_BEGIN).mux(
        st(ListsState::Begin),
        d.kind
            .eq(KIND_END)
            .mux(st(ListsState::EndRead), st(ListsState::DrawRead)),
    );
    let drained = !outstanding.q().any();
    let next = start.mux(
        kind_next,
        s.is(ListsState::DrawRead).mux(
            st(ListsState::DrawWrite),
            s.is(ListsState::EndRead).mux(
                st(ListsState::EndWrite),
                s.is(ListsState::ListRead).mux(
                    st(ListsState::ListOffer),
                    (s.is(ListsState::Drain) & drained).mux(
                        st(ListsState::ListRead),
                        draw_done.mux(
                            st(ListsState::Idle),
                            (in_begin & step_done).mux(
                                st(ListsState::Idle),
                                (in_end_write & cmd_done).mux(
                                    last_tile.mux(st(ListsState::Drain), st(ListsState::EndRead)),
                                    (offering & list_ready).mux(
                                        last_tile
                                            .mux(st(ListsState::Idle), st(ListsState::ListRead)),
                                        s,
                                    ),
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
    );
    state.next(next);
    ListsOut {
        mem_req,
        list,
        overflow: overflow.q(),
    }
}
