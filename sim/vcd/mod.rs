//! Value Change Dump output: a small dependency-free [`VcdWriter`], and the glue that dumps a
//! simulator's named signals with their module hierarchy (`Simulator::trace_vcd`).
//!
//! Conventions: timescale 1 ns, clock period 10; `clk_i` rises at every multiple of 10 (where
//! the values of the new cycle appear) and falls at +5; values are written only when they
//! change. Names follow `rendergen_hdl::naming`, so a signal is called the same in Rust, in the
//! emitted Verilog and in the waveform viewer.

mod dump;
mod filter;
#[cfg(test)]
mod tests;
mod writer;

pub(crate) use dump::{DumpSignal, SimDump};
pub use filter::VcdFilter;
pub use writer::{VarId, VcdWriter};

/// Nanoseconds per clock period in dumps.
pub const CLOCK_PERIOD: u64 = 10;
