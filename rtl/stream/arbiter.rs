//! Stream arbiters: many input streams, one output stream, one grant per cycle.

use super::{Lanes, LANES, WIDTH};
use rendergen_hdl::{
    cat_lsb_first, clog2, lowest_index, lowest_set, name_lets, onehot_mux, round_robin_pick,
    unpack, Bundle, Design, ElabErrors, Module, Sig, Stream,
};

/// Who wins when several inputs are valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbPolicy {
    /// The input after the last one granted goes first (fair).
    RoundRobin,
    /// The lowest-numbered input always wins (input 0 highest).
    Priority,
}

/// What [`arbiter`] returns.
pub struct Granted<T: Bundle> {
    /// The granted input's payload.
    pub out: Stream<T>,
    /// Index of the granted input, `clog2(n)` bits (meaningful while `out.valid`).
    pub grant: Sig,
}

/// Arbitrates `lanes` onto one output by `policy`.
///
/// * **Protocol:** stream rules on every side. A grant is *locked* while the output is valid and
///   not ready, so the output payload stays stable (rule 3) even if a higher-priority lane
///   becomes valid meanwhile. Per lane, order is preserved.
/// * **Timing:** latency 0; `out.ready → lane.ready` and `lane.valid → out.valid` are
///   combinational.
/// * **Cost:** a one-hot mux of the payload; round-robin adds an `n`-bit last-grant register;
///   both add an `n`-bit lock register.
/// * **Degenerate sizes:** one lane is a wire.
/// * **Errors:** lanes whose payload shapes differ (reported by elaboration). `lanes` must not
///   be empty (a caller whose lane count can be 0 branches to [`Stream::idle`] first) and holds
///   at most 64 lanes under [`ArbPolicy::RoundRobin`]; [`arbiter_top`] checks both.
#[name_lets]
pub fn arbiter<T: Bundle>(m: &mut Module, policy: ArbPolicy, lanes: Vec<Stream<T>>) -> Granted<T> {
    let n = lanes.len();
    assert!(n > 0, "arbiter needs at least one lane");
    if n == 1 {
        let lane = lanes.into_iter().next().expect("one lane");
        return Granted {
            out: lane,
            grant: m.lit(0, 1),
        };
    }
    let Lanes {
        shape,
        valids,
        datas,
        readies,
    } = Lanes::split(lanes);
    let req = cat_lsb_first(&valids).named("req");
    let mut last_grant = None;
    let fresh = match policy {
        ArbPolicy::Priority => lowest_set(req),
        ArbPolicy::RoundRobin => {
            let last = m.reg("last_grant", n as u32).reset(1 << (n - 1));
            // `last` moves only when a grant is taken, so a stalled output does not rotate it.
            last_grant = Some(last);
            round_robin_pick(req, last.q())
        }
    };
    let locked = m.reg("locked", 1).reset(0);
    let held = m.reg("held_grant", n as u32).reset(0);
    let onehot = locked.q().mux(held.q(), fresh).named("grant_onehot");
    let (out, out_ready) = Stream::offer(
        m,
        "out",
        req.any(),
        unpack(&shape, onehot_mux(onehot, &datas)),
    );
    for (i, r) in readies.into_iter().enumerate() {
        r.drive(onehot.bit(i as u32) & out_ready);
    }
    if let Some(last) = last_grant {
        last.next_when(req.any() & out_ready, onehot);
    }
    locked.next(req.any() & !out_ready);
    held.next(onehot);
    let grant = lowest_index(onehot).named("grant");
    debug_assert_eq!(grant.width(), clog2(n as u64));
    Granted { out, grant }
}

/// Stand-alone arbiter of `n` lanes of `width` bits: streams `lane<i>` and `out`, output `grant`.
#[name_lets]
pub fn arbiter_top(
    name: &str,
    policy: ArbPolicy,
    n: u32,
    width: u32,
) -> Result<Design, ElabErrors> {
    Design::build_with_params(name, &format!("n={n} width={width}"), |m| {
        if !(m.check_param("n", n.into(), LANES) & m.check_param("width", width.into(), WIDTH)) {
            return;
        }
        let lanes: Vec<_> = (0..n)
            .map(|i| m.input_stream::<Sig>(&format!("lane{i}"), &width))
            .collect();
        let g = arbiter(m, policy, lanes);
        m.output_stream("out", g.out);
        m.output("grant", g.grant);
    })
}
