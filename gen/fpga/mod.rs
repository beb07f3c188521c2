//! `rendergen fpga`: the iCE40 place-and-route flow. Emits the Verilog, synthesises it with
//! Yosys `synth_ice40`, checks that it fits the device before placing (logic cells, block RAMs,
//! I/O pins), places and routes it with `nextpnr-ice40` against a clock target, packs the
//! bitstream with `icepack`, and reports utilisation and Fmax per clock.
//!
//! A top with more I/O bits than the package has pins can be wrapped ([`serial_wrapper`]): its
//! inputs are fed from a shift register and its outputs captured into one, so the design sits
//! between registers on five pins (`clk_i`, `rst_i`, `sdi_i`, `capture_i`, `sdo_o`) — for
//! timing and area studies, not for driving the design from pins at speed. Board pin maps for
//! the wrapper are in `constraints/<board>/serial_wrap.pcf`.

mod wrap;

use crate::tools::synth::parse_stat;
use crate::tools::{run_tool, write_design, SynthReport, ToolError};
use crate::verilog::top_name;
use rendergen_hdl::Design;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
pub use wrap::serial_wrapper;

/// Limit on each tool run.
const TIMEOUT: Duration = Duration::from_secs(3600);

/// An iCE40 device in the package of its usual board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpgaTarget {
    /// iCE40HX8K in the CT256 package (the iCE40-HX8K breakout board).
    Ice40Hx8k,
    /// iCE40UP5K in the SG48 package (the iCEBreaker board).
    Ice40Up5k,
}

impl FpgaTarget {
    /// Every target.
    pub const ALL: [FpgaTarget; 2] = [FpgaTarget::Ice40Hx8k, FpgaTarget::Ice40Up5k];

    /// Name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            FpgaTarget::Ice40Hx8k => "ice40-hx8k",
            FpgaTarget::Ice40Up5k => "ice40-up5k",
        }
    }

    /// Device and package as the vendor names them.
    pub fn device(self) -> &'static str {
        match self {
            FpgaTarget::Ice40Hx8k => "iCE40HX8K-CT256",
            FpgaTarget::Ice40Up5k => "iCE40UP5K-SG48",
        }
    }

    /// `synth_ice40` options: the UP5K's SB_MAC16 DSP blocks are used for multipliers.
    fn synth_options(self) -> &'static str {
        match self {
            FpgaTarget::Ice40Hx8k => "",
            FpgaTarget::Ice40Up5k => " -dsp",
        }
    }

    fn nextpnr_args(self) -> [&'static str; 3] {
        match self {
            FpgaTarget::Ice40Hx8k => ["--hx8k", "--package", "ct256"],
            FpgaTarget::Ice40Up5k => ["--up5k", "--package", "sg48"],
        }
    }

    /// Logic cells (one LUT4 and one flip-flop each).
    pub fn logic_cells(self) -> u64 {
        match self {
            FpgaTarget::Ice40Hx8k => 7680,
            FpgaTarget::Ice40Up5k => 5280,
        }
    }

    /// 4-kbit block RAMs (`SB_RAM40_4K`).
    pub fn block_rams(self) -> u64 {
        match self {
            FpgaTarget::Ice40Hx8k => 32,
            FpgaTarget::Ice40Up5k => 30,
        }
    }

    /// DSP blocks (`SB_MAC16`).
    pub fn dsp_blocks(self) -> u64 {
        match self {
            FpgaTarget::Ice40Hx8k => 0,
            FpgaTarget::Ice40Up5k => 8,
        }
    }

    /// User I/O pins of the package.
    pub fn io_pins(self) -> u64 {
        match self {
            FpgaTarget::Ice40Hx8k => 206,
            FpgaTarget::Ice40Up5k => 39,
        }
    }

    /// The board this package is on, and its folder under `constraints/`.
    pub fn board(self) -> &'static str {
        match self {
            FpgaTarget::Ice40Hx8k => "ice40-hx8k-breakout",
            FpgaTarget::Ice40Up5k => "icebreaker",
        }
    }

    /// The board's pin map for the serial wrapper (`constraints/<board>/serial_wrap.pcf`).
    pub fn wrapper_pcf(self) -> &'static str {
        match self {
            FpgaTarget::Ice40Hx8k => {
                include_str!("../../constraints/ice40-hx8k-breakout/serial_wrap.pcf")
            }
            FpgaTarget::Ice40Up5k => include_str!("../../constraints/icebreaker/serial_wrap.pcf"),
        }
    }

    /// The target named `s`.
    pub fn parse(s: &str) -> Option<FpgaTarget> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// When `rendergen fpga` puts the top behind the serial wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// Only when the top has more I/O bits than the package has pins (with a note).
    Auto,
    /// Always (timing and area of the design alone, registers on every port).
    Always,
    /// Never: a top with too many I/O bits is refused with the numbers.
    Never,
}

/// What `rendergen fpga` takes.
#[derive(Clone, Debug)]
pub struct FpgaOptions {
    /// Device.
    pub target: FpgaTarget,
    /// A pin map (`.pcf`); `None`: nextpnr places the pins (or, with `wrap`, the board's map
    /// for the wrapper).
    pub pcf: Option<PathBuf>,
    /// Clock target in MHz for timing-driven placement and the timing verdict.
    pub freq_mhz: f64,
    /// Where the Verilog, netlist, placed design, bitstream and reports go.
    pub out_dir: PathBuf,
    /// When to wrap the top in [`serial_wrapper`].
    pub wrap: Wrap,
}

/// One clock's timing after place and route.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockTiming {
    /// Clock net.
    pub clock: String,
    /// Maximum frequency nextpnr achieved, MHz.
    pub fmax_mhz: f64,
    /// The target, MHz.
    pub target_mhz: f64,
}

/// The figures of one run.
#[derive(Clone, Debug)]
pub struct FpgaReport {
    /// The top module placed (the wrapper's name when wrapped).
    pub top: String,
    /// Device.
    pub target: FpgaTarget,
    /// Yosys `synth_ice40` cell counts.
    pub synth: SynthReport,
    /// Logic cells used and available (nextpnr's `ICESTORM_LC`).
    pub logic_cells: (u64, u64),
    /// Block RAMs used and available (`ICESTORM_RAM`).
    pub block_rams: (u64, u64),
    /// DSP blocks used and available (`ICESTORM_DSP`; the HX8K has none).
    pub dsps: (u64, u64),
    /// I/O pins used and available in the package.
    pub io_pins: (u64, u64),
    /// Timing per clock.
    pub clocks: Vec<ClockTiming>,
    /// True when every clock meets its target.
    pub timing_met: bool,
    /// Whether the pins came from a `.pcf` (else nextpnr placed them).
    pub pins_constrained: bool,
    /// Why the top was wrapped without being asked (`--wrap auto`).
    pub note: Option<String>,
    /// The bitstream.
    pub bitstream: PathBuf,
}

impl FpgaReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        let clocks: Vec<serde_json::Value> = (self.clocks.iter())
            .map(|c| {
                serde_json::json!({"clock": c.clock, "fmax_mhz": c.fmax_mhz,
                    "target_mhz": c.target_mhz, "met": c.fmax_mhz >= c.target_mhz})
            })
            .collect();
        serde_json::json!({
            "top": self.top, "target": self.target.name(), "device": self.target.device(),
            "lut4": self.synth.luts, "flip_flops": self.synth.flip_flops,
            "logic_cells": {"used": self.logic_cells.0, "available": self.logic_cells.1},
            "block_rams": {"used": self.block_rams.0, "available": self.block_rams.1},
            "dsps": {"used": self.dsps.0, "available": self.dsps.1},
            "io_pins": {"used": self.io_pins.0, "available": self.io_pins.1},
            "clocks": clocks, "timing_met": self.timing_met,
            "pins_constrained": self.pins_constrained, "note": self.note,
            "bitstream": self.bitstream.display().to_string(),
        })
        .to_string()
    }
}

fn pct(used: u64, avail: u64) -> f64 {
    100.0 * used as f64 / avail.max(1) as f64
}

impl fmt::Display for FpgaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = |f: &mut fmt::Formatter<'_>, what: &str, (u, a): (u64, u64)| {
            writeln!(f, "{what:<14} {u:>6} / {a:<6} ({:.1} %)", pct(u, a))
        };
        writeln!(
            f,
            "{} on {} ({})",
            self.top,
            self.target.device(),
            self.target.board()
        )?;
        if let Some(n) = &self.note {
            writeln!(f, "note: {n}")?;
        }
        row(f, "logic cells", self.logic_cells)?;
        writeln!(
            f,
            "  (Yosys: {} LUT4, {} flip-flops)",
            self.synth.luts, self.synth.flip_flops
        )?;
        row(f, "block RAMs", self.block_rams)?;
        if self.dsps.1 > 0 {
            row(f, "DSP blocks", self.dsps)?;
        }
        row(f, "I/O pins", self.io_pins)?;
        if !self.pins_constrained {
            writeln!(f, "  (no --pcf: nextpnr chose the pins)")?;
        }
        for c in &self.clocks {
            let verdict = if c.fmax_mhz >= c.target_mhz {
                "met"
            } else {
                "NOT met"
            };
            writeln!(
                f,
                "clock {:<20} Fmax {:.1} MHz, target {:.1} MHz: {verdict}",
                c.clock, c.fmax_mhz, c.target_mhz
            )?;
        }
        if self.clocks.is_empty() {
            writeln!(f, "no clocked paths (combinational design)")?;
        }
        write!(f, "bitstream {}", self.bitstream.display())
    }
}

/// Errors of the flow that are the user's to fix (the design does not fit, too many pins)
/// are [`ToolError::Parse`]-free plain messages; tool failures keep their output.
#[derive(Debug)]
pub enum FpgaError {
    /// The design cannot go on the device as asked (with the numbers).
    DoesNotFit(String),
    /// A tool failed.
    Tool(ToolError),
}

impl fmt::Display for FpgaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FpgaError::DoesNotFit(m) => f.write_str(m),
            FpgaError::Tool(e) => write!(f, "{e}"),
        }
    }
}

impl From<ToolError> for FpgaError {
    fn from(e: ToolError) -> FpgaError {
        FpgaError::Tool(e)
    }
}

impl From<std::io::Error> for FpgaError {
    fn from(e: std::io::Error) -> FpgaError {
        FpgaError::Tool(ToolError::Io(e))
    }
}

/// I/O bits of the top: every input and output bit plus the clock and reset.
pub fn io_bits(design: &Design) -> u64 {
    let top = design.top();
    let bits = |ps: &[rendergen_hdl::ir::Port]| ps.iter().map(|p| p.width as u64).sum::<u64>();
    bits(&top.inputs) + bits(&top.outputs) + 2
}

/// Runs the flow; see the module documentation.
pub fn fpga(design: &Design, opts: &FpgaOptions) -> Result<FpgaReport, FpgaError> {
    let t = opts.target;
    let dir = &opts.out_dir;
    let vdir = dir.join("verilog");
    std::fs::create_dir_all(&vdir)?;
    let mut files: Vec<String> = (write_design(design, &vdir)?.into_iter())
        .map(|f| format!("verilog/{}", f.name))
        .collect();
    let mut top = top_name(design);
    let bits = io_bits(design);
    let too_many = bits > t.io_pins();
    let wrap = match opts.wrap {
        Wrap::Always => true,
        Wrap::Never => false,
        Wrap::Auto => too_many,
    };
    let note = (opts.wrap == Wrap::Auto && too_many).then(|| {
        format!(
            "{top} has {bits} I/O bits (ports, clock and reset) for the {} user I/O pins of the \
             {}: placed behind the serial wrapper (5 pins; --wrap never refuses instead)",
            t.io_pins(),
            t.device()
        )
    });
    if wrap {
        let (name, text) = serial_wrapper(design);
        std::fs::write(vdir.join(format!("{name}.v")), text)?;
        files.push(format!("verilog/{name}.v"));
        top = name;
    } else if too_many {
        return Err(FpgaError::DoesNotFit(format!(
            "{top} has {bits} I/O bits (ports, clock and reset); the {} has {} user I/O pins. \
             Use --wrap (or --wrap auto) to feed the ports through shift registers on 5 pins \
             (for timing and area studies), or choose a configuration with narrower ports",
            t.device(),
            t.io_pins()
        )));
    }
    let pcf = match (&opts.pcf, wrap) {
        (Some(p), _) => Some(p.clone()),
        (None, true) => {
            let p = dir.join(format!("{}.pcf", t.board()));
            std::fs::write(&p, t.wrapper_pcf())?;
            Some(p)
        }
        (None, false) => None,
    };

    let synth = {
        let _p = crate::progress::Progress::spinner(&format!("synth_ice40 of {top}"));
        let script = format!(
            "read_verilog {}; synth_ice40{} -top {top} -json {top}.json; tee -q -o synth_stat.txt stat",
            files.join(" "),
            t.synth_options()
        );
        run_tool(
            Command::new("yosys").args(["-q", "-l", "yosys.log", "-p", &script]),
            dir,
            TIMEOUT,
        )?
        .success("yosys")?;
        let mut r = SynthReport {
            top: top.clone(),
            command: "synth_ice40".into(),
            ..SynthReport::default()
        };
        parse_stat(
            &std::fs::read_to_string(dir.join("synth_stat.txt"))?,
            &mut r,
        );
        r
    };
    let count = |name: &str| {
        (synth.cell_types.iter())
            .filter(|(c, _)| c == name)
            .map(|(_, n)| *n)
            .sum::<u64>()
    };
    let rams = count("SB_RAM40_4K");
    let mut over = Vec::new();
    if synth.luts > t.logic_cells() {
        over.push(format!(
            "{} LUT4 for {} logic cells",
            synth.luts,
            t.logic_cells()
        ));
    }
    if synth.flip_flops > t.logic_cells() {
        over.push(format!(
            "{} flip-flops for {} logic cells",
            synth.flip_flops,
            t.logic_cells()
        ));
    }
    if rams > t.block_rams() {
        over.push(format!("{rams} block RAMs of {}", t.block_rams()));
    }
    let dsps = count("SB_MAC16");
    if dsps > t.dsp_blocks() {
        over.push(format!(
            "{dsps} DSP blocks (SB_MAC16) of {}",
            t.dsp_blocks()
        ));
    }
    if !over.is_empty() {
        return Err(FpgaError::DoesNotFit(format!(
            "{top} does not fit the {}: {} (Yosys synth_ice40; nothing was placed)",
            t.device(),
            over.join(", ")
        )));
    }

    let freq = format!("{}", opts.freq_mhz);
    let mut cmd = Command::new("nextpnr-ice40");
    cmd.args(t.nextpnr_args())
        .args([
            "--json",
            &format!("{top}.json"),
            "--asc",
            &format!("{top}.asc"),
        ])
        .args([
            "--freq",
            &freq,
            "--report",
            "pnr_report.json",
            "--timing-allow-fail",
        ])
        .args(["--log", "nextpnr.log", "-q"]);
    match &pcf {
        Some(p) => cmd.arg("--pcf").arg(absolute(p)?),
        None => cmd.arg("--pcf-allow-unconstrained"),
    };
    {
        let _p = crate::progress::Progress::spinner(&format!("nextpnr-ice40 of {top}"));
        run_tool(&mut cmd, dir, TIMEOUT)?.success("nextpnr-ice40")?;
    }
    let bitstream = dir.join(format!("{top}.bin"));
    run_tool(
        Command::new("icepack").args([format!("{top}.asc"), format!("{top}.bin")]),
        dir,
        TIMEOUT,
    )?
    .success("icepack")?;

    let report = std::fs::read_to_string(dir.join("pnr_report.json"))?;
    let parse = |message: &str| {
        FpgaError::Tool(ToolError::Parse {
            tool: "nextpnr-ice40".into(),
            message: message.into(),
        })
    };
    let v: serde_json::Value =
        serde_json::from_str(&report).map_err(|e| parse(&format!("report JSON: {e}")))?;
    let util = |k: &str| {
        let u = &v["utilization"][k];
        (
            u["used"].as_u64().unwrap_or(0),
            u["available"].as_u64().unwrap_or(0),
        )
    };
    let mut clocks: Vec<ClockTiming> = (v["fmax"].as_object())
        .ok_or_else(|| parse("no `fmax` in the report"))?
        .iter()
        .map(|(clock, f)| ClockTiming {
            clock: clock.split('$').next().unwrap_or(clock).to_string(),
            fmax_mhz: f["achieved"].as_f64().unwrap_or(0.0),
            target_mhz: f["constraint"].as_f64().unwrap_or(opts.freq_mhz),
        })
        .collect();
    clocks.sort_by(|a, b| a.clock.cmp(&b.clock));
    let timing_met = clocks.iter().all(|c| c.fmax_mhz >= c.target_mhz);
    let ios = util("SB_IO");
    Ok(FpgaReport {
        top,
        target: t,
        synth,
        logic_cells: util("ICESTORM_LC"),
        block_rams: util("ICESTORM_RAM"),
        dsps: util("ICESTORM_DSP"),
        io_pins: (ios.0, t.io_pins()),
        clocks,
        timing_met,
        pins_constrained: pcf.is_some(),
        note,
        bitstream,
    })
}

fn absolute(p: &Path) -> std::io::Result<PathBuf> {
    std::path::absolute(p)
}
