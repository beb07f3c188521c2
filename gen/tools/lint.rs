//! The lint flow: Verilator `--lint-only -Wall`, Yosys `prep` + `check -assert`, and
//! `iverilog -g2005` on the emitted files.

use super::run::{run_tool, write_design, ToolError, WorkDir};
use crate::verilog::top_name;
use rendergen_hdl::ir::Design;
use std::fmt;
use std::process::Command;
use std::time::Duration;

/// Environment variable: seconds each lint tool may run before it is killed (default
/// [`DEFAULT_TIMEOUT_S`]). Yosys's `synth` of the whole PBRU takes minutes, more on a loaded
/// machine.
pub const TIMEOUT_ENV: &str = "RENDERGEN_LINT_TIMEOUT";

/// Default of [`TIMEOUT_ENV`]: 15 minutes.
pub const DEFAULT_TIMEOUT_S: u64 = 900;

/// The time each lint tool may take: `$RENDERGEN_LINT_TIMEOUT` seconds, else the default.
fn timeout() -> Duration {
    let s = std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok());
    Duration::from_secs(s.unwrap_or(DEFAULT_TIMEOUT_S))
}

/// What one tool said.
#[derive(Clone, Debug)]
pub struct ToolOutput {
    /// Program name.
    pub tool: String,
    /// Exited successfully.
    pub passed: bool,
    /// Warning and error lines.
    pub messages: Vec<String>,
}

impl ToolOutput {
    /// Passed with no warnings.
    pub fn is_clean(&self) -> bool {
        self.passed && self.messages.is_empty()
    }
}

/// Results of [`lint`], one entry per tool.
#[derive(Clone, Debug)]
pub struct LintReport {
    /// Top module name.
    pub top: String,
    /// Verilator, Yosys, iverilog.
    pub tools: Vec<ToolOutput>,
}

impl LintReport {
    /// Every tool passed without a warning.
    pub fn is_clean(&self) -> bool {
        self.tools.iter().all(ToolOutput::is_clean)
    }
}

impl fmt::Display for LintReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for t in &self.tools {
            let state = match (t.passed, t.messages.is_empty()) {
                (true, true) => "clean".to_string(),
                (true, false) => format!("{} warning(s)", t.messages.len()),
                (false, _) => "FAILED".to_string(),
            };
            writeln!(f, "{:<10} {state}", t.tool)?;
            for m in &t.messages {
                writeln!(f, "    {m}")?;
            }
        }
        Ok(())
    }
}

fn output(tool: &str, code: Option<i32>, text: &str, keep: impl Fn(&str) -> bool) -> ToolOutput {
    ToolOutput {
        tool: tool.into(),
        passed: code == Some(0),
        messages: text
            .lines()
            .filter(|l| keep(l))
            .map(str::to_string)
            .collect(),
    }
}

/// Lints the emitted Verilog of `design` with the three tools. A tool that is not installed is
/// a [`ToolError::Missing`]; lint findings are in the report, not errors.
pub fn lint(design: &Design) -> Result<LintReport, ToolError> {
    let dir = WorkDir::new("lint")?;
    let files = write_design(design, dir.path())?;
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let top = top_name(design);
    let mut tools = Vec::new();

    let v = run_tool(
        Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", &top])
            .args(&names),
        dir.path(),
        timeout(),
    )?;
    tools.push(output("verilator", v.code, &v.combined(), |l| {
        l.starts_with("%Warning") || l.starts_with("%Error")
    }));

    // `prep` (hierarchy, proc, opt, memory collection) and not a whole `synth`: the check of
    // drivers, loops and latches is the same on the coarse netlist, and techmapping the whole
    // PBRU took more than 15 minutes where `prep` takes half a minute. `rendergen synth`
    // synthesises.
    let script = format!(
        "read_verilog {}; prep -top {top}; check -assert",
        names.join(" ")
    );
    let y = run_tool(
        Command::new("yosys").args(["-q", "-p", &script]),
        dir.path(),
        timeout(),
    )?;
    tools.push(output("yosys", y.code, &y.combined(), |l| {
        let l = l.to_ascii_lowercase();
        l.contains("warning") || l.contains("error")
    }));

    let i = run_tool(
        Command::new("iverilog")
            .args(["-g2005", "-Wall", "-o", "/dev/null", "-s", &top])
            .args(&names),
        dir.path(),
        timeout(),
    )?;
    tools.push(output("iverilog", i.code, &i.combined(), |l| {
        !l.trim().is_empty()
    }));
    Ok(LintReport { top, tools })
}
