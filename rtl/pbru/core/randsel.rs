//! RANDSEL's choice (`rtl/isa/ISA.md`, "Random select"): a sum pass and a scan pass over the
//! weights on the stack, one weight per cycle.

use super::control::prng_next;
use super::operands::Phase;
use rendergen_hdl::{name_lets, Module, Sig};

/// What [`randsel`] reads.
pub(super) struct RandselIn {
    /// A RANDSEL passed its checks (Execute state): draw, and start the sum pass.
    pub start: Sig,
    /// The execute stage's phase (Sum and Scan are RANDSEL's passes).
    pub phase: Phase,
    /// The number of weights `n` (8 bits).
    pub count: Sig,
    /// The current weight: the stack word `sp − n + step` (a negative weight counts as 0).
    pub weight: Sig,
    /// The slot's PRNG state.
    pub prng: Sig,
}

/// What [`randsel`] decides.
pub(super) struct Randsel {
    /// The new PRNG state, drawn at `start` (written back to the slot).
    pub drawn: Sig,
    /// The sum pass reads its last weight (the scan starts next).
    pub sum_done: Sig,
    /// The scan reached the chosen case `k = step`: the first `i` with `w0 + … + wi > r`, or
    /// `n − 1`.
    pub found: Sig,
}

/// Chooses RANDSEL's case: at `start` draws `x' = xorshift32(x)`; the sum pass adds the `n`
/// weights into `total`, then `r = ⌊x' · total / 2^32⌋`, and the scan pass adds them again until
/// the prefix sum exceeds `r`.
///
/// * **Timing:** `n` cycles of sum, then `k + 1` cycles of scan; `found` is combinational from
///   the current weight.
/// * **Cost:** 112 flops (40-bit total, 40-bit prefix, 32-bit draw), a 32×40 multiplier and two
///   40-bit adders.
#[name_lets]
pub(super) fn randsel(m: &mut Module, i: RandselIn) -> Randsel {
    let total = m.reg("total", 40);
    let prefix = m.reg("prefix", 40);
    let draw = m.reg("draw", 32);
    let drawn = prng_next(i.prng).named("drawn");
    let weight = i
        .weight
        .msb()
        .mux(m.lit(0, 32), i.weight)
        .zext(40)
        .named("weight");
    let last_weight = i.phase.step.eq(i.count - 1);
    let r = draw.q().mul_full(total.q()).bits(71, 32).named("r");
    let prefix_next = prefix.q() + weight;
    let found = (i.phase.scan & (r.lt(prefix_next) | last_weight)).named("found");
    let (sum, scan) = (i.phase.sum, i.phase.scan);
    total.next(
        i.start
            .mux(m.lit(0, 40), sum.mux(total.q() + weight, total.q())),
    );
    prefix.next(sum.mux(m.lit(0, 40), scan.mux(prefix_next, prefix.q())));
    draw.next_when(i.start, drawn);
    Randsel {
        drawn,
        sum_done: (sum & last_weight).named("sum_done"),
        found,
    }
}
