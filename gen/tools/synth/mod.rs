//! The synthesis flow: Yosys `synth` / `synth_ice40` / `synth_ecp5` on the emitted design, with
//! cell, LUT, flip-flop and RAM counts from `stat`, and the longest combinational path from
//! `ltp -noff`.
//!
//! The path is measured on the generic gate netlist (`synth -flatten`, cells such as `$_AND_`,
//! `$_MUX_`, `$_XOR_`) for every target: `ltp -noff` only recognises Yosys's own flip-flop
//! types, and would see loops through `SB_DFF`/`TRELLIS_FF`. It is a depth in gate levels
//! between registers, memories and ports, not a delay.
//!
//! # Per module
//! [`synth_per_module`] synthesises *without flattening* (`synth`, `synth_ice40 -noflatten`,
//! `synth_ecp5 -noflatten`) and adds one [`ModuleArea`] row per module definition from
//! `stat -top` (see [`per_module`](self::per_module) for how rows and instance counts are
//! derived). It costs no second synthesis: for the generic target the path is measured after
//! `flatten` of the same gate netlist; the FPGA targets run the generic flat pass for the path
//! exactly as [`synth`] does. Totals are those of the unflattened netlist, so they can be a
//! little larger than [`synth`]'s: nothing is optimised across module boundaries.

mod per_module;

use super::run::{run_tool, write_design, ToolError, WorkDir};
use crate::verilog::top_name;
pub use per_module::ModuleArea;
use rendergen_hdl::ir::Design;
use std::fmt;
use std::process::Command;
use std::time::Duration;

/// Environment variable: the seconds Yosys may take before it is killed (whole engines such
/// as the PBRU take longer than the default on a loaded machine).
pub const TIMEOUT_ENV: &str = "RENDERGEN_SYNTH_TIMEOUT";

/// Default of [`TIMEOUT_ENV`]: 30 minutes.
pub const DEFAULT_TIMEOUT_S: u64 = 1800;

/// The time Yosys may take: `$RENDERGEN_SYNTH_TIMEOUT` seconds (a positive integer), else the
/// default.
fn timeout() -> Duration {
    let s = std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| *s > 0);
    Duration::from_secs(s.unwrap_or(DEFAULT_TIMEOUT_S))
}

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
    /// The Yosys command, flattening or keeping the hierarchy.
    fn command(self, flatten: bool) -> &'static str {
        match (self, flatten) {
            (SynthTarget::Generic, true) => "synth -flatten",
            (SynthTarget::Generic, false) => "synth",
            (SynthTarget::Ice40, true) => "synth_ice40",
            (SynthTarget::Ice40, false) => "synth_ice40 -noflatten",
            (SynthTarget::Ecp5, true) => "synth_ecp5",
            (SynthTarget::Ecp5, false) => "synth_ecp5 -noflatten",
        }
    }
}

/// Results of [`synth`] and [`synth_per_module`].
#[derive(Clone, Debug, Default)]
pub struct SynthReport {
    /// Top module.
    pub top: String,
    /// Yosys command used.
    pub command: String,
    /// Total cells of the design (flattened, or summed over the hierarchy).
    pub cells: u64,
    /// LUT cells (`SB_LUT4`, `LUT4`; 0 for the generic target, which maps to gates).
    pub luts: u64,
    /// Flip-flop cells.
    pub flip_flops: u64,
    /// FPGA targets: the capacity of the block and distributed RAM cells used (a 512-bit
    /// memory in one `SB_RAM40_4K` counts 4096). Generic target: the bits of memories left as
    /// `$mem` cells (the generic library has no RAM).
    pub ram_bits: u64,
    /// Gate levels on the longest combinational path (see the module docs).
    pub longest_path: u64,
    /// DSP blocks (iCE40 `SB_MAC16`, ECP5 `MULT18X18D`/`ALU54B`; 0 for the generic target).
    pub dsps: u64,
    /// Every cell type with its count.
    pub cell_types: Vec<(String, u64)>,
    /// One row per module definition, largest `cells × instances` first; empty for [`synth`].
    pub modules: Vec<ModuleArea>,
    /// Remarks on the mapping (a memory that became logic), one line each.
    pub notes: Vec<String>,
}

impl fmt::Display for SynthReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "synthesis of `{}` ({})", self.top, self.command)?;
        writeln!(f, "  {:<24} {:>10}", "cells", self.cells)?;
        writeln!(f, "  {:<24} {:>10}", "LUTs", self.luts)?;
        writeln!(f, "  {:<24} {:>10}", "flip-flops", self.flip_flops)?;
        let ram_note = match self.command.as_str() {
            c if c.starts_with("synth_") => "(capacity of the block/distributed RAM cells used)",
            _ => "(memory bits left as $mem cells; the generic library has no RAM)",
        };
        writeln!(f, "  {:<24} {:>10}  {ram_note}", "RAM bits", self.ram_bits)?;
        if self.command.starts_with("synth_") {
            writeln!(f, "  {:<24} {:>10}", "DSP blocks", self.dsps)?;
        }
        writeln!(
            f,
            "  {:<24} {:>10}  (gate levels of Yosys's generic library, yosys ltp -noff, for \
             every target; not a delay: see `rendergen fpga` for Fmax)",
            "longest comb. path", self.longest_path
        )?;
        if !self.modules.is_empty() {
            write!(
                f,
                "{}",
                per_module::Table {
                    modules: &self.modules,
                    total: self.cells
                }
            )?;
        }
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        writeln!(f, "  cell types:")?;
        for (t, n) in &self.cell_types {
            writeln!(f, "    {t:<22} {n:>10}")?;
        }
        Ok(())
    }
}

/// `s` as a JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON object of `(name, count)` pairs.
fn json_counts(pairs: &[(String, u64)]) -> String {
    let items: Vec<String> = pairs
        .iter()
        .map(|(t, n)| format!("{}: {n}", json_str(t)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

impl SynthReport {
    /// The report as one JSON object: the totals, `cell_types` as an object, and `modules` as
    /// an array of per-module rows (empty unless from [`synth_per_module`]).
    pub fn to_json(&self) -> String {
        let modules: Vec<String> = self
            .modules
            .iter()
            .map(|m| {
                format!(
                    "{{\"name\": {}, \"instances\": {}, \"cells\": {}, \"luts\": {}, \
                     \"flip_flops\": {}, \"ram_bits\": {}, \"cells_with_children\": {}, \
                     \"total_cells\": {}, \"total_with_children\": {}, \"children\": {}}}",
                    json_str(&m.name),
                    m.instances,
                    m.cells,
                    m.luts,
                    m.flip_flops,
                    m.ram_bits,
                    m.cells_with_children,
                    m.total_cells(),
                    m.total_with_children(),
                    json_counts(&m.children)
                )
            })
            .collect();
        format!(
            "{{\"top\": {}, \"command\": {}, \"cells\": {}, \"luts\": {}, \"flip_flops\": {}, \
             \"ram_bits\": {}, \"dsps\": {}, \"longest_path\": {}, \"cell_types\": {}, \
             \"modules\": [{}], \"notes\": [{}]}}",
            json_str(&self.top),
            json_str(&self.command),
            self.cells,
            self.luts,
            self.flip_flops,
            self.ram_bits,
            self.dsps,
            self.longest_path,
            json_counts(&self.cell_types),
            modules.join(", "),
            (self.notes.iter().map(|n| json_str(n)))
                .collect::<Vec<_>>()
                .join(", ")
        )
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

/// One `stat` section: the last `Number of cells:` of `text` and the cell list under it.
#[derive(Debug, Default)]
struct Section {
    cells: u64,
    memory_bits: u64,
    cell_types: Vec<(String, u64)>,
}

impl Section {
    fn parse(text: &str) -> Section {
        let mut s = Section {
            cells: number_after(text, "Number of cells:").unwrap_or(0),
            memory_bits: number_after(text, "Number of memory bits:").unwrap_or(0),
            cell_types: Vec::new(),
        };
        let mut in_cells = false;
        for line in text.lines() {
            if line.trim_start().starts_with("Number of cells:") {
                in_cells = true;
                s.cell_types.clear();
                continue;
            }
            let parts: Vec<&str> = line.split_whitespace().collect();
            match (in_cells, parts.as_slice()) {
                (true, [t, n]) => match n.parse::<u64>() {
                    Ok(n) => s.cell_types.push((t.to_string(), n)),
                    Err(_) => in_cells = false,
                },
                _ => in_cells = false,
            }
        }
        s
    }
}

/// LUT, flip-flop and RAM-bit counts of a cell list.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    luts: u64,
    flip_flops: u64,
    ram_bits: u64,
}

/// Classifies cell types (shared by the totals and the per-module rows): LUTs are `*LUT*`;
/// flip-flops are the `$_DFF*`/`$_SDFF*`/`$dff`/`$adff`… families, `SB_DFF*`, `TRELLIS_FF` and
/// latches; RAM bits are from [`ram_bits_of`].
fn classify(cell_types: &[(String, u64)]) -> Counts {
    let mut c = Counts::default();
    for (t, n) in cell_types {
        let upper = t.to_ascii_uppercase();
        if upper.contains("LUT") {
            c.luts += n;
        }
        if upper.contains("DFF") || upper.contains("TRELLIS_FF") || upper.contains("DLATCH") {
            c.flip_flops += n;
        }
        c.ram_bits += n * ram_bits_of(t);
    }
    c
}

/// Parses `stat` output into `report`'s totals: the last section, which is the flattened
/// design, a single module, or the `design hierarchy` total of an unflattened one.
pub(crate) fn parse_stat(text: &str, report: &mut SynthReport) {
    let s = Section::parse(text);
    let c = classify(&s.cell_types);
    report.cells = s.cells;
    report.luts = c.luts;
    report.flip_flops = c.flip_flops;
    report.ram_bits = c.ram_bits + s.memory_bits;
    report.dsps = (s.cell_types.iter())
        .filter(|(t, _)| matches!(t.as_str(), "SB_MAC16" | "MULT18X18D" | "ALU54B"))
        .map(|(_, n)| n)
        .sum();
    report.cell_types = s.cell_types;
}

/// Synthesises the emitted Verilog of `design` for `target` with Yosys, flattened.
pub fn synth(design: &Design, target: SynthTarget) -> Result<SynthReport, ToolError> {
    run(design, target, true)
}

/// Synthesises `design` for `target` without flattening and reports the area of every module
/// definition as well as the totals: one [`ModuleArea`] per definition, largest
/// `cells × instances` first. Totals are those of the unflattened netlist (nothing is optimised
/// across module boundaries); the path is measured after `flatten` (generic target) or by the
/// same generic flat pass as [`synth`] (FPGA targets), so this costs no extra synthesis.
pub fn synth_per_module(design: &Design, target: SynthTarget) -> Result<SynthReport, ToolError> {
    run(design, target, false)
}

fn run(design: &Design, target: SynthTarget, flatten: bool) -> Result<SynthReport, ToolError> {
    let dir = WorkDir::new("synth")?;
    let files = write_design(design, dir.path())?;
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let top = top_name(design);
    let read = format!("read_verilog {}", names.join(" "));
    let command = target.command(flatten);
    let stat = if flatten {
        "stat".to_string()
    } else {
        format!("stat -top {top}")
    };
    // The generic target already is the gate netlist `ltp` needs: one synthesis, not two.
    let path_pass = match (target, flatten) {
        (SynthTarget::Generic, true) => String::new(),
        (SynthTarget::Generic, false) => "flatten; ".to_string(),
        _ => format!("design -reset; {read}; synth -flatten -top {top}; "),
    };
    let script = format!(
        "{read}; {command} -top {top}; tee -q -o stat.txt {stat}; \
         {path_pass}tee -q -o ltp.txt ltp -noff"
    );
    run_tool(
        Command::new("yosys").args(["-q", "-p", &script]),
        dir.path(),
        timeout(),
    )?
    .success("yosys")?;
    let stat = std::fs::read_to_string(dir.path().join("stat.txt"))?;
    let ltp = std::fs::read_to_string(dir.path().join("ltp.txt"))?;
    let mut report = SynthReport {
        modules: if flatten {
            Vec::new()
        } else {
            per_module::parse_per_module(&stat, &top).map_err(|message| ToolError::Parse {
                tool: "yosys stat".into(),
                message,
            })?
        },
        top,
        command: command.to_string(),
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
    let mems: Vec<String> = (design.modules.iter())
        .flat_map(|m| m.mems.iter().map(move |x| (m, x)))
        .map(|(m, x)| format!("`{}.{}` ({} × {} bits)", m.name, x.name, x.depth, x.width))
        .collect();
    if target != SynthTarget::Generic && report.ram_bits == 0 && !mems.is_empty() {
        report.notes.push(format!(
            "no RAM cell was used: memories {} became flip-flops and LUTs ({}). A memory maps \
             to block RAM when its ports fit the target's RAM: iCE40 SB_RAM40_4K has one read \
             and one write port; ECP5 DP16KD also takes two read/write ports when cross-port \
             collisions may be undefined",
            mems.join(", "),
            command
        ));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rendergen_hdl::{Design, Io, Module, Sig};

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

    /// Ports of a counter child.
    #[derive(Io)]
    struct En {
        en: Sig,
    }
    #[derive(Io)]
    struct Value {
        value: Sig,
    }

    /// A counter child: `width` bits, counting while `en`.
    fn count(m: &mut Module, width: &u32, i: En) -> Value {
        let count = m.reg("count", *width).reset(0);
        count.next_when(i.en, count.q() + 1);
        Value { value: count.q() }
    }

    /// Two 8-bit counters whose values are added.
    fn pair(m: &mut Module, _cfg: &(), i: En) -> Value {
        let a = m.child("lo", &8u32, En { en: i.en }, count);
        let b = m.child("hi", &8u32, En { en: !i.en }, count);
        Value {
            value: a.value + b.value,
        }
    }

    /// `top` → two `pair`s (each two `count` 8-bit) and one 4-bit `count` (`count_1`).
    fn hierarchy() -> Design {
        Design::build("synth_hier", |m| {
            let en = m.input("en", 1);
            let x = m.child("p0", &(), En { en }, pair);
            let y = m.child("p1", &(), En { en: !en }, pair);
            let z = m.child("small", &4u32, En { en }, count);
            m.output("sum", x.value ^ y.value);
            m.output("small", z.value);
        })
        .unwrap()
    }

    fn have_yosys() -> bool {
        let found = Command::new("yosys").arg("-V").output().is_ok();
        if !found {
            eprintln!("note: `yosys` is not on PATH; skipping the synthesis run");
        }
        found
    }

    #[test]
    fn per_module_rows_sum_to_the_hierarchical_total() {
        if !have_yosys() {
            return;
        }
        for target in [SynthTarget::Generic, SynthTarget::Ice40] {
            let r = synth_per_module(&hierarchy(), target).unwrap();
            println!("{r}");
            let inst: Vec<(&str, u64)> = r
                .modules
                .iter()
                .map(|m| (m.name.as_str(), m.instances))
                .collect();
            for expected in [("count", 4), ("pair", 2), ("count_1", 1), ("synth_hier", 1)] {
                assert!(inst.contains(&expected), "{expected:?} in {inst:?}");
            }
            let sum = |f: fn(&ModuleArea) -> u64| -> u64 {
                r.modules.iter().map(|m| f(m) * m.instances).sum()
            };
            assert_eq!(sum(|m| m.cells), r.cells, "{r}");
            assert_eq!(sum(|m| m.flip_flops), r.flip_flops, "{r}");
            assert_eq!(sum(|m| m.luts), r.luts, "{r}");
            assert_eq!(r.flip_flops, 4 * 8 + 4, "{r}");
            let top = r.modules.iter().find(|m| m.name == "synth_hier").unwrap();
            assert_eq!(top.total_with_children(), r.cells);
            assert!(r.longest_path > 1, "{r}");
            assert!(r.to_string().contains("incl. children"));
            assert!(r.to_json().contains("\"name\": \"pair\", \"instances\": 2"));
        }
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

    #[test]
    fn classification_covers_word_level_flip_flops() {
        let cells: Vec<(String, u64)> = [("$dff", 2), ("$adffe", 1), ("$_SDFF_PP0_", 4)]
            .iter()
            .map(|(t, n)| (t.to_string(), *n))
            .collect();
        assert_eq!(classify(&cells).flip_flops, 7);
    }

    #[test]
    fn json_report() {
        let r = SynthReport {
            top: "t\"op".into(),
            command: "synth".into(),
            cells: 3,
            cell_types: vec![("$_AND_".into(), 3)],
            modules: vec![ModuleArea {
                name: "m".into(),
                instances: 2,
                cells: 1,
                cells_with_children: 1,
                ..ModuleArea::default()
            }],
            ..SynthReport::default()
        };
        let j = r.to_json();
        assert!(
            j.starts_with("{\"top\": \"t\\\"op\", \"command\": \"synth\", \"cells\": 3"),
            "{j}"
        );
        assert!(j.contains("\"cell_types\": {\"$_AND_\": 3}"), "{j}");
        assert!(
            j.contains("\"total_cells\": 2, \"total_with_children\": 2, \"children\": {}"),
            "{j}"
        );
    }
}
