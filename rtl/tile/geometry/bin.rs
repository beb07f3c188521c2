//! `geom_bin`: the tiler's per-tile loop: for each set-up triangle, the depth slopes once, then
//! for every tile of its (screen-clamped) bounding box the per-tile part of the model's
//! `setup::setup` (edge constants at the tile origin, quad bounding box, off-tile test, the
//! depth constant) and the encoded `DRAW`.
use super::div::{geom_div, DivCfg, DivIn, DivReq};
use super::{DrawCmd, GeomCfg, SetupTri, DRAW_WORDS, KIND_RESOLVE, KIND_TRIANGLE, TILE_BITS};
use crate::tile::EDGE_BITS;
use rendergen_hdl::{cat, name_lets, HwEnum, Io, Module, Sig, Stream};

/// Bits of the divider's dividend: `2^17·N + area2` with `|N| < 2^75`.
pub const DIV_NUM_BITS: u32 = super::NUM_BITS + 18;
/// Bits of the divider's divisor `2·area2`.
pub const DIV_DEN_BITS: u32 = super::AREA_BITS + 1;

/// States of the tile loop.
#[derive(HwEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinState {
    /// Waiting for a triangle or marker.
    Idle,
    /// Dividing for dz/dx.
    SlopeX,
    /// Dividing for dz/dy.
    SlopeY,
    /// Testing the current tile.
    Tile,
    /// Dividing for the current tile's depth constant.
    Depth,
    /// Offering the current tile's `DRAW`.
    Emit,
    /// Offering a frame marker.
    Marker,
}

/// What [`geom_bin`] takes.
#[derive(Io)]
pub struct BinIn {
    /// Set-up triangles and markers.
    pub tri: Stream<SetupTri>,
    /// Tiles per row (1 ..= 512).
    pub tiles_x: Sig,
    /// Tile rows (1 ..= 512).
    pub tiles_y: Sig,
}

/// What [`geom_bin`] gives.
#[derive(Io)]
pub struct BinOut {
    /// `DRAW`s per tile and markers, in order (tiles of a triangle row-major).
    pub draw: Stream<DrawCmd>,
}

/// `floor(v / 2^shift)` of signed `v`, clamped to `0 ..= hi` (`hi` unsigned).
fn clamp_index(v: Sig, shift: u32, hi: Sig) -> Sig {
    let w = v.width();
    let q = v.bits(w - 1, shift); // arithmetic shift: the top bits stay
    let bits = hi.width();
    let qw = q.width();
    let qz = if qw > bits + 1 {
        // A positive quotient wider than `hi`: above `hi` when any high bit is set.
        let high = q.bits(qw - 2, bits).any();
        high.mux(hi, q.bits(bits - 1, 0))
    } else {
        q.bits(bits.min(qw - 1) - 1, 0).zext(bits)
    };
    q.msb().mux(0u64, qz.gt(hi).mux(hi, qz))
}

/// `floor(v / 512)` of signed `v` (a tile-local coordinate), clamped to the quads `0 ..= 7`.
fn quad_index(v: Sig) -> Sig {
    let q = v.bits(v.width() - 1, 9);
    let high = q.bits(q.width() - 2, 3).any();
    q.msb().mux(0u64, high.mux(7u64, q.bits(2, 0)))
}

/// The tile loop (module docs), with one [`geom_div`] for every division.
///
/// * **Protocol:** stream rules; a triangle is taken from `tri` after its last tile's `DRAW`
///   was taken (so `tri` holds it meanwhile); markers pass in order.
/// * **Timing:** per triangle 1 + 2·(division) clocks, then per tile of its clamped bounding
///   box 1 clock, plus a division and the `DRAW`'s hand-over for each tile it touches; a
///   division is `ceil(94 / div_steps) + 3` clocks (27 at the default).
/// * **Cost:** the divider; tile counters; `24 × 10` products for the edge constants and
///   `52 × 10` for the depth numerator; the clamps; the encoder is wiring.
#[name_lets]
pub fn geom_bin(m: &mut Module, cfg: &GeomCfg, i: BinIn) -> BinOut {
    let BinIn {
        tri,
        tiles_x,
        tiles_y,
    } = i;
    let (tri_valid, t, tri_ready) = tri.split();
    let state = m.enum_reg("state", BinState::Idle);
    let s = state.q();
    let tx = m.reg("tx", TILE_BITS).reset(0);
    let ty = m.reg("ty", TILE_BITS).reset(0);
    let pending = m.reg("pending", 1).reset(0);
    let dzdx = m.reg("dzdx", 48);
    let dzdy = m.reg("dzdy", 48);
    let z_c = m.reg("z_c", 64);

    // The tile range of the bounding box, clamped to the screen (the model's tiler).
    let last_x = (tiles_x - 1u64).bits(TILE_BITS - 1, 0);
    let last_y = (tiles_y - 1u64).bits(TILE_BITS - 1, 0);
    let tx0 = clamp_index(t.xmin, 12, last_x);
    let tx1 = clamp_index(t.xmax, 12, last_x);
    let ty0 = clamp_index(t.ymin, 12, last_y);
    let ty1 = clamp_index(t.ymax, 12, last_y);

    // The current tile: bounding box relative to its origin, quads, off-tile.
    let rel = |v: Sig, o: Sig| v.sext(24) - (o.zext(24) << 12);
    let (x_lo, x_hi) = (rel(t.xmin, tx.q()), rel(t.xmax, tx.q()));
    let (y_lo, y_hi) = (rel(t.ymin, ty.q()), rel(t.ymax, ty.q()));
    let off_tile = x_hi.msb()
        | !x_lo.msb() & x_lo.bits(23, 12).any()
        | y_hi.msb()
        | !y_lo.msb() & y_lo.bits(23, 12).any();
    let quad = quad_index;
    let bbox = cat(&[quad(y_hi), quad(x_hi), quad(y_lo), quad(x_lo)]);

    // Per-tile edge constants: c + (a·tx + b·ty)·2^12.
    let tile_term =
        |coef: Sig, at: Sig| coef.smul_full(at.zext(TILE_BITS + 1)).sext(EDGE_BITS) << 12;
    let c: Vec<Sig> = t
        .edge
        .iter()
        .map(|e| e.c + tile_term(e.a, tx.q()) + tile_term(e.b, ty.q()))
        .collect();

    // Divisions: floor((2^17·N + area2) / (2·area2)) = round_div(N·2^16, area2).
    let dividend = |n: Sig| (n.sext(DIV_NUM_BITS) << 17) + t.area2.zext(DIV_NUM_BITS);
    let wide = |coef: Sig, at: Sig| coef.smul_full(at.zext(TILE_BITS + 1)).sext(DIV_NUM_BITS) << 12;
    let n_tile = t.nc.sext(DIV_NUM_BITS) + wide(t.na, tx.q()) + wide(t.nb, ty.q());
    let in_slope_x = s.is(BinState::SlopeX);
    let in_slope_y = s.is(BinState::SlopeY);
    let in_depth = s.is(BinState::Depth);
    let num = in_slope_x.mux(
        dividend(t.na),
        in_slope_y.mux(dividend(t.nb), dividend(n_tile)),
    );
    let dividing = in_slope_x | in_slope_y | in_depth;
    let (req, req_ready) = Stream::offer(
        m,
        "div_req",
        dividing & !pending.q(),
        DivReq {
            num,
            den: t.area2.zext(DIV_DEN_BITS) << 1,
        },
    );
    let div_cfg = DivCfg {
        num_bits: DIV_NUM_BITS,
        den_bits: DIV_DEN_BITS,
        steps: cfg.div_steps,
    };
    let div = m.child("div", &div_cfg, DivIn { req }, geom_div);
    let (resp_valid, resp, resp_ready) = div.resp.split();
    resp_ready.drive(pending.q());
    let answered = pending.q() & resp_valid;
    pending.next((pending.q() | (dividing & req_ready)) & !answered);
    let q = resp.quot;
    let mut clamp = |q: Sig, lim: u64| {
        let hi = m.lit(lim, 64).sext(DIV_NUM_BITS);
        let lo = m.lit(lim.wrapping_neg(), 64).sext(DIV_NUM_BITS);
        q.sgt(hi).mux(hi, q.slt(lo).mux(lo, q))
    };
    let slope = clamp(q, (1 << 47) - 1).bits(47, 0);
    let depth = clamp(q, 1 << 62).bits(63, 0);
    dzdx.next_when(answered & in_slope_x, slope);
    dzdy.next_when(answered & in_slope_y, slope);
    z_c.next_when(answered & in_depth, depth);

    // The DRAW's words (the model's `Command::encode`).
    let tl = cat(&[t.edge[2].top_left, t.edge[1].top_left, t.edge[0].top_left]);
    let w0 = cat(&[
        t.prim,
        m.lit(0, 4),
        tl,
        t.front,
        t.depth_write,
        t.depth_op,
        bbox,
        t.state,
        m.lit(2, 8),
    ]);
    // A RESOLVE (`KIND_RESOLVE`): its one word, `OP_RESOLVE | xt << 8 | yt << 16 | program << 32`.
    let is_resolve = t.kind.eq(KIND_RESOLVE);
    let resolve_word = cat(&[t.prim.zext(32), t.rw[0].bits(15, 0).zext(24), m.lit(3, 8)]);
    let mut words = vec![is_resolve.mux(resolve_word, w0)];
    for (k, e) in t.edge.iter().enumerate() {
        words.push(cat(&[t.rw[k].bits(15, 0), e.b, e.a]));
    }
    for (k, ck) in c.iter().enumerate() {
        words.push(cat(&[t.rw[k].bits(31, 16), *ck]));
    }
    words.push(z_c.q());
    words.push(dzdx.q().zext(64));
    words.push(dzdy.q().zext(64));
    let words: [Sig; DRAW_WORDS] = words.try_into().expect("ten words");
    let emit = s.is(BinState::Emit);
    let marker = s.is(BinState::Marker);
    let (draw, draw_ready) = Stream::offer(
        m,
        "draw",
        emit | marker,
        DrawCmd {
            kind: t.kind,
            tile_x: tx.q(),
            tile_y: ty.q(),
            words,
        },
    );

    // The loop.
    let testing = s.is(BinState::Tile);
    let next_tile = (testing & off_tile) | (emit & draw_ready);
    let row_end = tx.q().eq(tx1);
    let all_done = row_end & ty.q().eq(ty1);
    let start = s.is(BinState::Idle) & tri_valid;
    let is_tri = t.kind.eq(KIND_TRIANGLE);
    tri_ready.drive((next_tile & all_done) | (marker & draw_ready));
    tx.next(start.mux(
        tx0,
        (next_tile & !all_done).mux(row_end.mux(tx0, tx.q() + 1u64), tx.q()),
    ));
    ty.next(start.mux(
        ty0,
        (next_tile & !all_done & row_end).mux(ty.q() + 1u64, ty.q()),
    ));
    let mut st = |v: BinState| m.enum_const(v);
    let after_tile = all_done.mux(st(BinState::Idle), st(BinState::Tile));
    let next = start.mux(
        is_tri.mux(
            st(BinState::SlopeX),
            is_resolve.mux(st(BinState::Tile), st(BinState::Marker)),
        ),
        (in_slope_x & answered).mux(
            st(BinState::SlopeY),
            (in_slope_y & answered).mux(
                st(BinState::Tile),
                (testing & !off_tile).mux(
                    is_resolve.mux(st(BinState::Emit), st(BinState::Depth)),
                    (in_depth & answered).mux(
                        st(BinState::Emit),
                        next_tile.mux(after_tile, (marker & draw_ready).mux(st(BinState::Idle), s)),
                    ),
                ),
            ),
        ),
    );
    state.next(next);
    BinOut { draw }
}
