//! Synchronous FIFO.

use rendergen_hdl::{
    clog2, name_lets, pack, unpack, Bundle, Design, ElabErrors, Module, Sig, Stream,
};
use std::ops::RangeInclusive;

/// Legal [`FifoCfg::depth`] of [`fifo_top`] (0 makes a wire).
pub const DEPTH: RangeInclusive<u64> = 0..=65536;

/// Parameters of [`fifo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FifoCfg {
    /// Number of entries, 0 ..= 65536 (0 makes a wire). Default 16.
    pub depth: u32,
}

impl Default for FifoCfg {
    fn default() -> Self {
        FifoCfg { depth: 16 }
    }
}

/// What [`fifo`] returns.
pub struct FifoOut<T: Bundle> {
    /// The oldest entry.
    pub pop: Stream<T>,
    /// Number of entries held, `clog2(depth + 1)` bits.
    pub count: Sig,
    /// No room for a push.
    pub full: Sig,
    /// Nothing to pop.
    pub empty: Sig,
}

/// First-in first-out queue of `cfg.depth` entries of any bundle.
///
/// * **Protocol:** `push` and `pop` keep the stream rules; order is preserved; nothing is dropped
///   (`push.ready = !full`).
/// * **Timing:** an entry pushed in cycle *t* can pop in *t + 1*; one push and one pop per cycle;
///   no combinational path from `pop.ready` to `push.ready` or from `push.valid` to `pop.valid`.
/// * **Cost:** `depth × width` bits of memory (combinational read), two pointers and a counter.
/// * **Degenerate sizes:** depth 0 is a wire (`count` 0, `full` and `empty` 1).
/// * **Errors:** none beyond the payload's own; [`fifo_top`] rejects a depth outside
///   [`DEPTH`].
#[name_lets]
pub fn fifo<T: Bundle>(m: &mut Module, cfg: &FifoCfg, push: Stream<T>) -> FifoOut<T> {
    if cfg.depth == 0 {
        let one = m.lit(1, 1);
        return FifoOut {
            pop: push,
            count: m.lit(0, 1),
            full: one,
            empty: one,
        };
    }
    let depth = cfg.depth as u64;
    let shape = push.shape();
    let (in_valid, in_data, in_ready) = push.split();
    let aw = clog2(depth);
    let cw = clog2(depth + 1);
    let mem = m.memory("entries", T::total_width(&shape), cfg.depth);
    let wr_ptr = m.reg("wr_ptr", aw).reset(0);
    let rd_ptr = m.reg("rd_ptr", aw).reset(0);
    let count = m.reg("count", cw).reset(0);
    let full = count.q().eq(depth).named("full");
    let empty = count.q().eq(0).named("empty");

    let (pop, pop_ready) = Stream::offer(
        m,
        "pop",
        !empty,
        unpack::<T>(&shape, mem.read_comb(rd_ptr.q())),
    );
    let do_push = (in_valid & !full).named("do_push");
    let do_pop = (!empty & pop_ready).named("do_pop");
    in_ready.drive(!full);
    mem.write(do_push, wr_ptr.q(), pack(&in_data));

    // Pointers wrap by overflow when the depth fills the pointer width, else explicitly.
    let wraps_naturally = depth == 1 << aw;
    let advance = |p: Sig| {
        if wraps_naturally {
            p + 1
        } else {
            p.eq(depth - 1).mux(0, p + 1)
        }
    };
    wr_ptr.next_when(do_push, advance(wr_ptr.q()));
    rd_ptr.next_when(do_pop, advance(rd_ptr.q()));
    let up = do_push & !do_pop;
    let down = do_pop & !do_push;
    count.next(up.mux(count.q() + 1, down.mux(count.q() - 1, count.q())));
    FifoOut {
        pop,
        count: count.q(),
        full,
        empty,
    }
}

/// Stand-alone FIFO of `width`-bit words with ports `push_*`, `pop_*`, `count`, `full`, `empty`.
#[name_lets]
pub fn fifo_top(width: u32, cfg: &FifoCfg) -> Result<Design, ElabErrors> {
    let params = format!("width={width} depth={}", cfg.depth);
    Design::build_with_params("fifo", &params, |m| {
        let width_ok = m.check_param("width", width.into(), super::WIDTH);
        if !(width_ok & m.check_param("depth", cfg.depth.into(), DEPTH)) {
            return;
        }
        let push = m.input_stream::<Sig>("push", &width);
        let out = fifo(m, cfg, push);
        m.output_stream("pop", out.pop);
        m.output("count", out.count);
        m.output("full", out.full);
        m.output("empty", out.empty);
    })
}
