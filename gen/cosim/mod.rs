//! Co-simulation: the proof that the Rust simulation *is* the emitted hardware.
//!
//! [`cosim`] replays a [`Trace`] recorded by the Rust simulator through the emitted Verilog in
//! iverilog or Verilator and compares **every output on every cycle**, reporting the first
//! mismatch with its cycle, output name and both values in hex.
//!
//! How: the trace's reset and inputs are written one cycle per line as hex tokens
//! (`stim.hex`); a generated testbench (Verilog-2005 for iverilog, C++ for Verilator) reads a
//! line, applies it with the clock low, lets the logic settle, writes every output as hex
//! (`out.hex`), and raises the clock. Rust parses and compares, so X/Z from iverilog show up
//! as a clear mismatch. Every register and every memory without initial contents starts at
//! zero in both engines, as in the Rust simulator (hierarchical `initial` assignments in the
//! iverilog testbench; `--x-initial 0` for Verilator). Builds are cached by a hash of the
//! Verilog and the harness (see [`crate::tools::cache`]), so only the first run of a design
//! compiles.

mod iverilog;
mod verilator;
pub(crate) use verilator::COSIM_FLAGS;

pub(crate) use iverilog::{build as iverilog_build, dut_ports, zero_state};
pub(crate) use verilator::build as verilator_build;

pub use rendergen_sim::{PortInfo, Trace, TraceCycle};

use crate::tools::{ToolError, WorkDir};
use rendergen_hdl::ir::Design;
use rendergen_hdl::Bits;
use std::fmt;
use std::fmt::Write;

/// Which Verilog simulator replays the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CosimEngine {
    /// Icarus Verilog (`iverilog -g2005` + `vvp`).
    Iverilog,
    /// Verilator 5 with a generated C++ harness.
    Verilator,
}

impl fmt::Display for CosimEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CosimEngine::Iverilog => "iverilog",
            CosimEngine::Verilator => "verilator",
        })
    }
}

/// Why co-simulation failed.
#[derive(Debug)]
pub enum CosimError {
    /// A tool could not build or run the design.
    Tool(ToolError),
    /// The trace does not fit the design's ports.
    Shape(String),
    /// The Verilog disagrees with the trace.
    Mismatch {
        /// Engine that disagreed.
        engine: CosimEngine,
        /// Cycle index in the trace.
        cycle: usize,
        /// Output name (Rust name).
        signal: String,
        /// Value in the trace (the Rust simulator's value).
        expected: String,
        /// Value from the Verilog simulator (may contain `x`/`z`).
        actual: String,
    },
}

impl fmt::Display for CosimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CosimError::Tool(e) => write!(f, "{e}"),
            CosimError::Shape(m) => write!(f, "trace does not match the design: {m}"),
            CosimError::Mismatch {
                engine,
                cycle,
                signal,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "{engine}: cycle {cycle}, output `{signal}`: expected {expected}, got {actual}"
                )?;
                if actual.contains(['x', 'X', 'z', 'Z']) {
                    write!(f, " (X/Z: undriven or uninitialised in the Verilog)")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CosimError {}

impl From<ToolError> for CosimError {
    fn from(e: ToolError) -> Self {
        CosimError::Tool(e)
    }
}

impl From<std::io::Error> for CosimError {
    fn from(e: std::io::Error) -> Self {
        CosimError::Tool(ToolError::Io(e))
    }
}

/// Replays `trace` through the emitted Verilog of `design` in `engine` and compares every
/// output on every cycle.
pub fn cosim(design: &Design, trace: &Trace, engine: CosimEngine) -> Result<(), CosimError> {
    cosim_cxx(design, trace, engine, "-O1")
}

/// [`cosim`] with the Verilator model's C++ compiled at `-O0` rather than `-O1` (Verilator
/// itself still runs at `-O3`, where the faults the fuzzer finds are): on a batch of 100
/// random fuzz designs, about 30 MB of C++ in single functions of up to 2 MB, the compiler
/// needs about a third of the CPU time, and the runs are a few hundred cycles long
/// (`fuzz::check_batch`). iverilog is unchanged.
pub fn cosim_quick_build(
    design: &Design,
    trace: &Trace,
    engine: CosimEngine,
) -> Result<(), CosimError> {
    cosim_cxx(design, trace, engine, "-O0")
}

/// [`cosim`] with the Verilator model's C++ optimisation level `cxx_opt`.
fn cosim_cxx(
    design: &Design,
    trace: &Trace,
    engine: CosimEngine,
    cxx_opt: &str,
) -> Result<(), CosimError> {
    check_shape(design, trace)?;
    let dir = WorkDir::new("cosim")?;
    let stim = dir.path().join("stim.hex");
    let out = dir.path().join("out.hex");
    std::fs::write(&stim, stimulus(trace))?;
    match engine {
        CosimEngine::Iverilog => iverilog::run(design, &stim, &out, trace.cycles.len())?,
        CosimEngine::Verilator => verilator::run(design, &stim, &out, trace.cycles.len(), cxx_opt)?,
    }
    compare(trace, &std::fs::read_to_string(&out)?, engine)
}

/// [`cosim`] with iverilog, then with Verilator.
pub fn cosim_both(design: &Design, trace: &Trace) -> Result<(), CosimError> {
    cosim(design, trace, CosimEngine::Iverilog)?;
    cosim(design, trace, CosimEngine::Verilator)
}

fn check_shape(design: &Design, trace: &Trace) -> Result<(), CosimError> {
    let top = design.top();
    let ports = |ps: &[rendergen_hdl::ir::Port]| -> Vec<PortInfo> {
        ps.iter()
            .map(|p| PortInfo {
                name: p.name.clone(),
                width: p.width,
            })
            .collect()
    };
    if ports(&top.inputs) != trace.inputs || ports(&top.outputs) != trace.outputs {
        return Err(CosimError::Shape(format!(
            "ports of `{}` differ from the trace's",
            top.name
        )));
    }
    for (c, cy) in trace.cycles.iter().enumerate() {
        if cy.inputs.len() != trace.inputs.len() || cy.outputs.len() != trace.outputs.len() {
            return Err(CosimError::Shape(format!(
                "cycle {c} has the wrong number of values"
            )));
        }
    }
    Ok(())
}

/// One line per cycle: reset, then every input, as hex tokens.
fn stimulus(trace: &Trace) -> String {
    let mut s = String::new();
    for cy in &trace.cycles {
        s.push(if cy.reset { '1' } else { '0' });
        for v in &cy.inputs {
            write!(s, " {}", v.hex()).unwrap();
        }
        s.push('\n');
    }
    s
}

/// Parses hex digits into a value of `width` bits (`None` for X/Z or junk).
pub(crate) fn parse_hex(token: &str, width: u32) -> Option<Bits> {
    let mut words = vec![0u64; (width as usize).div_ceil(64).max(1)];
    for (i, c) in token.bytes().rev().enumerate() {
        let d = (c as char).to_digit(16)? as u64;
        if i / 16 < words.len() {
            words[i / 16] |= d << (4 * (i % 16));
        } else if d != 0 {
            return None;
        }
    }
    let value = Bits::from_words(&words, width);
    (value.words() == words.as_slice()).then_some(value)
}

/// Hex digits without leading zeros (`0` for zero).
fn trim_hex(token: &str) -> &str {
    match token.trim_start_matches('0') {
        "" => "0",
        t => t,
    }
}

fn compare(trace: &Trace, text: &str, engine: CosimEngine) -> Result<(), CosimError> {
    let mut lines = text.lines();
    for (c, cy) in trace.cycles.iter().enumerate() {
        let line = lines.next().ok_or_else(|| {
            CosimError::Tool(ToolError::Parse {
                tool: engine.to_string(),
                message: format!("output ends before cycle {c}"),
            })
        })?;
        let mut tokens = line.split_whitespace();
        for (o, port) in trace.outputs.iter().enumerate() {
            let token = tokens.next().unwrap_or("<missing>");
            let expected = &cy.outputs[o];
            if parse_hex(token, port.width).as_ref() != Some(expected) {
                return Err(CosimError::Mismatch {
                    engine,
                    cycle: c,
                    signal: port.name.clone(),
                    expected: expected.to_verilog(),
                    actual: format!("{}'h{}", port.width, trim_hex(token)),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
