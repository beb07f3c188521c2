//! rendergen's simulation layer: the cycle simulator compiled from a netlist, the VCD writer,
//! the testbench kit (stream drivers, monitors, scoreboards, watchdog), the reference models
//! (golden models that RTL is checked against; they never depend on the RTL they check) and the
//! agents (transaction-level SM, TTU and L1 that drive a simulated PBRU and check it against the
//! golden models).

pub mod agents;
pub mod codegen;
pub mod engine;
pub mod kit;
pub mod models;
pub mod vcd;

pub use engine::{
    ActivityStats, Eval, InputId, OutputId, PortInfo, SignalId, SimError, Simulator, Trace,
    TraceCycle,
};
