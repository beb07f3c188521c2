//! The Verilog emitter: prints a [`Design`] as Verilog-2005 that is clean under
//! `verilator --lint-only -Wall`, synthesises with Yosys and compiles with `iverilog -g2005`.
//!
//! # Output
//! [`emit`] returns **one file per module**, `<module>.v`, children first and the top last. One
//! module per file is the lowRISC/PULP convention and what Verilator's `DECLFILENAME` lint
//! expects; [`emit_single`] concatenates the same texts for tools that want one file.
//!
//! # Conventions
//! * ANSI port lists with `clk_i` and `rst_i` first on every module, then inputs (`x_i`) and
//!   outputs (`x_o`) in declaration order ([`rendergen_hdl::naming`]); explicit widths on every
//!   declaration (1-bit signals are scalars).
//! * Registers are `x_q`, one `always @(posedge clk_i)` each, synchronous reset first:
//!   `if (rst_i) x_q <= R; else if (en) x_q <= x_d;` (no reset branch without a reset value).
//! * Names from the IR are kept (designer names, then `#[name_lets]` variable names); unnamed
//!   values used once are printed inside their consumer's expression, others get short names
//!   (`add17`); see `names.rs`. A register's next value is `x_d`.
//! * Dead logic (reaching no output or instance input, even through registers and memories) is
//!   pruned. A signal that is still partly unread (an input bit, the top bits of a product, the
//!   clock of a module without state) carries a comment listing the bits, and those bits meet
//!   in one signal per module named `unused`, which Verilator's `UNUSEDSIGNAL` ignores by name:
//!   no `lint_off` waivers.
//! * `Select` and `Lut` are `case` statements in `always @*` with a `default`.
//! * Memories follow Yosys's block-RAM templates (see `memory.rs`).

mod body;
mod expr;
mod memory;
mod names;
mod plan;
mod state;
pub mod stats;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ops;

use names::{port_names, Scope};
use rendergen_hdl::ir::Design;
pub use state::{state_vars, top_ports, StateVar};

/// One emitted Verilog source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerilogFile {
    /// File name, `<module>.v`.
    pub name: String,
    /// Verilog source text.
    pub text: String,
}

/// Verilog names of every module (sanitised, unique).
pub(crate) fn module_names(design: &Design) -> Vec<String> {
    let mut scope = Scope::default();
    design
        .modules
        .iter()
        .map(|m| scope.claim(&m.name))
        .collect()
}

/// Emits one file per module, children first and the top module last.
pub fn emit(design: &Design) -> Vec<VerilogFile> {
    let modules = module_names(design);
    let ports: Vec<_> = design
        .modules
        .iter()
        .map(|m| port_names(m, &mut Scope::default()))
        .collect();
    design
        .modules
        .iter()
        .zip(&modules)
        .map(|(def, name)| VerilogFile {
            name: format!("{name}.v"),
            text: body::module_text(design, def, name, &modules, &ports),
        })
        .collect()
}

/// Emits every module into one text, children first and the top module last.
pub fn emit_single(design: &Design) -> String {
    emit(design)
        .into_iter()
        .map(|f| f.text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Verilog name of the top module (the name the tools are given with `-top`).
pub fn top_name(design: &Design) -> String {
    module_names(design)
        .pop()
        .expect("a design has a top module")
}
