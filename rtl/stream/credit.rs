//! Credit counter for credit-based flow control.

use rendergen_hdl::{clog2, name_lets, Design, ElabErrors, Module, Sig};
use std::ops::RangeInclusive;

/// Legal `max` of [`credit_counter_top`].
pub const MAX: RangeInclusive<u64> = 1..=1 << 31;

/// What [`credit_counter`] returns.
pub struct Credits {
    /// Credits held, `clog2(max + 1)` bits.
    pub count: Sig,
    /// At least one credit is held (a send may happen this cycle).
    pub available: Sig,
}

/// Counts credits for a sender: starts full (`max`) at reset, `take` spends one (ignored when
/// none is available), `give` returns one (ignored at `max`, which would mean a credit returned
/// twice). Both may happen in one cycle.
///
/// * **Timing:** `count` and `available` are registered (no combinational path from `take` or
///   `give`).
/// * **Parameters:** `max` 1 ..= 2^31.
/// * **Cost:** one `clog2(max + 1)`-bit register and an adder.
#[name_lets]
pub fn credit_counter(m: &mut Module, max: u32, take: Sig, give: Sig) -> Credits {
    let w = clog2(max as u64 + 1);
    let count = m.reg("credits", w).reset(max as u64);
    let available = count.q().ne(0).named("available");
    let spend = take & available;
    let refund = give & count.q().ne(max as u64);
    let next = (spend & !refund).mux(
        count.q() - 1,
        (refund & !spend).mux(count.q() + 1, count.q()),
    );
    count.next(next);
    Credits {
        count: count.q(),
        available,
    }
}

/// Stand-alone credit counter: inputs `take`, `give`; outputs `count`, `available`.
#[name_lets]
pub fn credit_counter_top(max: u32) -> Result<Design, ElabErrors> {
    Design::build_with_params("credit_counter", &format!("max={max}"), |m| {
        if !m.check_param("max", max.into(), MAX) {
            return;
        }
        let take = m.input("take", 1);
        let give = m.input("give", 1);
        let c = credit_counter(m, max, take, give);
        m.output("count", c.count);
        m.output("available", c.available);
    })
}
