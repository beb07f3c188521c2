//! The shader core (`rendergen_rtl::shader`) against the interpreter
//! `rendergen_sim::models::shader`, bit for bit: exports per lane, error code and pc, executed
//! count, for every opcode, control flow, derivatives, every port under random latency,
//! reordering and back-pressure, helper lanes, several warps at once, quads > 1, every error
//! code and random structured programs; then co-simulation and lint.

mod cosim;
mod faults;
mod harness;
mod programs;
mod random;

pub use harness::*;
