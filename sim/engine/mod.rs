//! The cycle simulator: a [`Design`] is flattened and compiled once into a levelised program
//! over a flat vector of `u64` places; `step` then evaluates it and applies the clock edge.
//!
//! # Cycle semantics
//! Values poked stay until poked again. [`Simulator::step`] settles combinational logic with the
//! current inputs and state, records the trace / samples the VCD if enabled, applies the rising
//! edge (memory writes, synchronous reads read-first, register loads, synchronous reset of
//! registers that have a reset value while `rst` is high) and increments the cycle count. `peek`
//! after `step` shows the new state with the current inputs (settling lazily).
//!
//! # Performance
//! The per-cycle path does no allocation, hashing, string look-up or dynamic dispatch: ports and
//! signals are resolved to `Copy` handles once; wires cost nothing (aliases); values ≤ 64 bits
//! take one word and one compact instruction per operation; wider values use a multi-word path.
//! Tracing costs one predictable branch per step while off.
//!
//! ```
//! use rendergen_hdl::Design;
//! use rendergen_sim::engine::Simulator;
//! let design = Design::build("counter", |m| {
//!     let en = m.input("en", 1);
//!     let count = m.reg("count", 8).reset(0);
//!     count.next_when(en, count.q() + 1);
//!     m.output("value", count.q());
//! })
//! .unwrap();
//! let mut sim = Simulator::new(&design).unwrap();
//! let (en, value) = (sim.input("en").unwrap(), sim.output("value").unwrap());
//! sim.reset(1);
//! sim.poke(en, 1);
//! sim.run(5);
//! assert_eq!(sim.peek(value), 5);
//! ```

pub(crate) mod activity;
mod compile;
mod error;
pub(crate) mod exec;
mod fuse;
pub(crate) mod layout;
mod lower;
mod names;
pub(crate) mod place_visit;
pub(crate) mod program;
mod records;
pub(crate) mod reg_wake;
pub(crate) mod runs;
pub(crate) mod schedule;
pub(crate) mod simplify;
mod simulator;
mod state;
mod strided;
mod trace;
mod wide;

#[cfg(test)]
pub(crate) mod tests;

pub use error::SimError;
pub use rendergen_hdl::ir::Design;
pub use simulator::{ActivityStats, Eval, Simulator};
pub use trace::{Trace, TraceCycle};

/// Handle of a top-level input port (resolve once with [`Simulator::input`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputId(pub(crate) u32);

/// Handle of a top-level output port (resolve once with [`Simulator::output`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutputId(pub(crate) u32);

/// Handle of a named internal signal (resolve once with [`Simulator::signal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SignalId(pub(crate) u32);

/// A top-level port: its Rust name (no `_i`/`_o` suffix) and width.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortInfo {
    /// Name as declared in the generator.
    pub name: String,
    /// Width in bits.
    pub width: u32,
}
