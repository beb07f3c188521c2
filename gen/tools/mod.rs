//! External tool flows: lint ([`lint`]: Verilator, Yosys, iverilog) and synthesis ([`synth`]:
//! Yosys generic / iCE40 / ECP5) of an emitted design, plus the process runner shared with
//! co-simulation and benchmarking (timeouts, temporary directories, missing-tool messages).

pub mod cache;
mod lint;
mod run;
pub(crate) mod synth;

pub use lint::{lint, LintReport, ToolOutput};
pub use run::{run_tool, write_design, ToolError, WorkDir};
pub use synth::{synth, synth_per_module, ModuleArea, SynthReport, SynthTarget};
