//! The waveform options shared by `sim pbru`, `bench` and `astc decode`.

use crate::Failure;
use clap::Args;
use rendergen_gen::output::VcdOut;
use rendergen_sim::vcd::VcdFilter;
use std::path::PathBuf;

/// `--vcd FILE [--vcd-scope PATTERN]... [--vcd-window FROM:TO]`.
#[derive(Args, Clone, Debug)]
pub struct VcdArgs {
    /// Write a waveform of the simulation: VCD, or FST when the name ends in .fst (converted
    /// with GTKWave's vcd2fst).
    #[arg(long, value_name = "FILE.vcd|FILE.fst")]
    vcd: Option<PathBuf>,
    /// Keep only signals whose hierarchical path below the top (`core_0`, `core_0.stack_q`,
    /// `'*.valid*'`; `*` any run, `?` one character) or a scope containing them matches;
    /// repeatable or comma-separated.
    #[arg(long, value_name = "PATTERN", value_delimiter = ',', requires = "vcd")]
    vcd_scope: Vec<String>,
    /// Keep only these cycles: FROM:TO (inclusive), FROM: or :TO.
    #[arg(long, value_name = "FROM:TO", requires = "vcd")]
    vcd_window: Option<String>,
}

impl VcdArgs {
    /// The waveform to write, if any.
    pub fn out(&self) -> Result<Option<VcdOut>, Failure> {
        let Some(path) = &self.vcd else {
            return Ok(None);
        };
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase());
        if !matches!(ext.as_deref(), Some("vcd" | "fst")) {
            return Err(Failure::usage(format!(
                "--vcd {}: name the waveform *.vcd or *.fst",
                path.display()
            )));
        }
        let window = (self.vcd_window.as_deref())
            .map(VcdFilter::parse_window)
            .transpose()
            .map_err(Failure::usage)?;
        Ok(Some(VcdOut {
            path: path.clone(),
            filter: VcdFilter {
                scopes: self.vcd_scope.clone(),
                window,
            },
        }))
    }
}
