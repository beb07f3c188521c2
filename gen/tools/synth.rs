//! The synthesis flow: Yosys `synth` / `synth_ice40` / `synth_ecp5` on the emitted design, with
//! cell, LUT, flip-flop and RAM counts from `stat`, and the longest combinational path from
//! `ltp -noff`.
//!
//! The path is measured on the generic gate netlist (`synth -flatten`, cells such as `$_AND_`,
//! `$_MUX_`, `$_XOR_`) for every target: `ltp -noff` only recognises Yosys's own flip-flop
//! types, and would see loops through `SB_DFF`/`TRELLIS_FF`. It is a depth in gate levels
//! between registers, memories and ports, not a delay.

use super::run::{run_tool, write_design, ToolError, WorkDir};
use crate::verilog::top_name;
use rendergen_hdl::ir::Design;
use std::fmt;
use std::process::Command;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(1800);

/// Synthesis target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthTarget {
    /// Yosys's generic gate library (`synth`).
    Generic,
    /// Lattice iCE40 (`synth_ice40`).
    Ice40,
    /// Lattice ECP5 (`synth_ecp5`).
    Ecp5,
}

impl SynthTarget {
    fn command(self) -> &'static str {
        match self {
            SynthTarget::Generic => "synth -flatten",
            SynthTarget::Ice40 => "synth_ice40",
            SynthTarget::Ecp5 => "synth_ecp5",
        }
    }
}

/// Results of [`synth`].
#[derive(Clone, Debug, Default)]
pub struct SynthReport {
    /// Top module.
    pub top: String,
    /// Yosys command used.
    pub command: String,
    /// Total cells of the flattened netlist.
    pub cells: u64,
    /// LUT cells (`SB_LUT4`, `LUT4`; 0 for the generic target, which maps to gates).
    pub luts: u64,
    /// Flip-flop cells.
    pub flip_flops: u64,
    /// Bits of block and distributed RAM cells (or of unmapped memories).
    pub ram_bits: u64,
    /// Gate levels on the longest combinational path (see the module docs).
    pub longest_path: u64,
    /// Every cell type with its count.
    pub cell_types: Vec<(String, u64)>,
}

impl fmt::Display for SynthReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "synthesis of `{}` ({})", self.top, self.command)?;
        writeln!(f, "  {:<24} {:>10}", "cells", self.cells)?;
        writeln!(f, "  {:<24} {:>10}", "LUTs", self.luts)?;
        writeln!(f, "  {:<24} {:>10}", "flip-flops", self.flip_flops)?;
        writeln!(f, "  {:<24} {:>10}", "RAM bits", self.ram_bits)?;
        writeln!(
            f,
            "  {:<24} {:>10}  (generic gate levels, yosys ltp -noff)",
            "longest comb. path", self.longest_path
        )?;
        writeln!(f, "  cell types:")?;
        for (t, n) in &self.cell_types {
            writeln!(f, "    {t:<22} {n:>10}")?;
        }
        Ok(())
    }
}

/// Bits of one RAM primitive.
fn ram_bits_of(cell: &str) -> u64 {
    match cell {
        "SB_RAM40_4K" => 4096,
        "DP16KD" | "PDPW16KD" => 18432,
        "TRELLIS_DPR16X4" => 64,
        _ => 0,
    }
}

fn number_after(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
}

/// Parses `stat` output of a flattened design into `report`.
fn parse_stat(text: &str, report: &mut SynthReport) {
    report.cells = number_after(text, "Number of cells:").unwrap_or(0);
    let mem_bits = number_after(text, "Number of memory bits:").unwrap_or(0);
    let mut in_cells = false;
    for line in text.lines() {
        if line.trim_start().starts_with("Number of cells:") {
            in_cells = true;
            report.cell_types.clear();
            continue;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        match (in_cells, parts.as_slice()) {
            (true, [t, n]) if n.parse::<u64>().is_ok() => {
                report.cell_types.push((t.to_string(), n.parse().unwrap()))
            }
            _ => in_cells = false,
        }
    }
    for (t, n) in &report.cell_types {
        if t.contains("LUT") {
            report.luts += n;
        }
        if t.contains("DFF") || t.contains("TRELLIS_FF") || t.contains("DLATCH") {
            report.flip_flops += n;
        }
        report.ram_bits += n * ram_bits_of(t);
    }
    report.ram_bits += mem_bits;
}

/// Synthesises the emitted Verilog of `design` for `target` with Yosys.
pub fn synth(design: &Design, target: SynthTarget) -> Result<SynthReport, ToolError> {
    let dir = WorkDir::new("synth")?;
    let files = write_design(design, dir.path())?;
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let top = top_name(design);
    let read = format!("read_verilog {}", names.join(" "));
    // The generic target already is the gate netlist `ltp` needs: one synthesis, not two.
    let path_pass = match target {
        SynthTarget::Generic => String::new(),
        _ => format!("design -reset; {read}; synth -flatten -top {top}; "),
    };
    let script = format!(
        "{read}; {} -top {top}; tee -q -o stat.txt stat; \
         {path_pass}tee -q -o ltp.txt ltp -noff",
        target.command()
    );
    run_tool(
        Command::new("yosys").args(["-q", "-p", &script]),
        dir.path(),
        TIMEOUT,
    )?
    .success("yosys")?;
    let stat = std::fs::read_to_string(dir.path().join("stat.txt"))?;
    let ltp = std::fs::read_to_string(dir.path().join("ltp.txt"))?;
    let mut report = SynthReport {
        top,
        command: target.command().to_string(),
        ..SynthReport::default()
    };
    parse_stat(&stat, &mut report);
    report.longest_path = ltp
        .split("(length=")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ToolError::Parse {
            tool: "yosys ltp".into(),
            message: format!("no path length in:\n{ltp}"),
        })?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rendergen_hdl::Design;

    fn counter() -> Design {
        Design::build("synth_counter", |m| {
            let en = m.input("en", 1);
            let count = m.reg("count", 16).reset(0);
            count.next_when(en, count.q() + 1);
            let ram = m.memory("ram", 16, 256);
            ram.write(en, count.q().slice(0, 8), count.q());
            m.output("rd", ram.read_sync(count.q().slice(8, 8), None));
            m.output("value", count.q());
        })
        .unwrap()
    }

    #[test]
    fn generic_and_ice40_reports() {
        let d = counter();
        let g = synth(&d, SynthTarget::Generic).unwrap();
        assert!(g.flip_flops >= 16, "{g}");
        assert!(g.longest_path > 1, "{g}");
        let i = synth(&d, SynthTarget::Ice40).unwrap();
        assert!(i.luts > 0 && i.flip_flops >= 16, "{i}");
        assert!(i.ram_bits >= 4096, "{i}");
        assert!(i.to_string().contains("RAM bits"));
    }

    #[test]
    fn stat_parsing() {
        let text = "   Number of memory bits:            0\n   Number of cells:  5\n     \
                    SB_LUT4   3\n     SB_DFF  1\n     SB_RAM40_4K 1\n\n";
        let mut r = SynthReport::default();
        parse_stat(text, &mut r);
        assert_eq!((r.cells, r.luts, r.flip_flops, r.ram_bits), (5, 3, 1, 4096));
    }
}
