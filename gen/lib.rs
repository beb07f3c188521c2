//! rendergen's back end: Verilog emitter, co-simulation, external tool flows, command line.
//!
//! * [`astc`] — whole-image ASTC decoding through the ASTC_DP RTL or the reference model;
//! * [`verilog`] — prints a design as lint-clean Verilog-2005;
//! * [`bench`](mod@bench) — the same seeded benchmark in the Rust simulator, Verilator and iverilog;
//! * [`pbru`] — `rendergen sim pbru`: the PBRU with its SM, TTU and L1 agents, checked against the
//!   interpreter;
//! * [`cosim`] — replays Rust simulator traces through the emitted Verilog (iverilog, Verilator);
//! * [`tools`] — Verilator lint, Yosys synthesis and iverilog compile flows;
//! * [`shade`] — `rendergen shade eval`: one shading pipeline on CSV rows (RTL, model, f64);
//! * [`shader`](mod@shader) — `rendergen shader compile` / `run`: the shader compiler and engines.

pub mod astc;
pub mod bench;
pub mod conv;
pub mod cosim;
pub mod fpga;
pub mod fuzz;
pub mod output;
pub mod pbru;
pub mod progress;
pub mod raster;
pub mod render;
pub mod shade;
pub mod shader;
pub mod tools;
pub mod verilog;
