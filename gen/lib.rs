//! rendergen's back end: Verilog emitter, co-simulation, external tool flows, command line.
//!
//! * [`verilog`] — prints a design as lint-clean Verilog-2005;
//! * [`tools`] — Verilator lint, Yosys synthesis and iverilog compile flows.

pub mod tools;
pub mod verilog;
