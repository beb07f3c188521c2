//! `rendergen demo`: the end-to-end demonstration run by the README's main command.
//!
//! Part 1 ([`engine`]): textures an image through the PBRU. A procedural RGBA image is
//! compressed to ASTC ([`texture`]); one ray per pixel runs the `texture` program
//! (`gen/pbru/programs/texture.asm`: TEX_A → TEX_READ through the L1 → TEX_DP, then each channel
//! times the ray's scale) on the cycle-simulated engine with its SM, TTU and L1 agents; every
//! ray is checked against the golden interpreter; the returned colours become `textured.png`,
//! which must equal `reference.png` from the reference ASTC decoder. The engine's Verilog and a
//! VCD of its first cycles are written next to them.
//!
//! Part 2 ([`widgets`]): the widget library — simulated with VCDs, emitted, linted, and
//! co-simulated through iverilog and Verilator.

mod engine;
mod texture;
mod widgets;

use crate::Failure;
use std::path::Path;

/// A failed file operation as a check failure.
fn io(what: &str, path: &Path, e: std::io::Error) -> Failure {
    Failure::check(format!("cannot {what} {}: {e}", path.display()))
}

/// Runs the demonstration into `out`: the textured image through the engine, then the widgets.
/// Both parts run; the demo fails if either does.
pub fn run(out: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(out).map_err(|e| io("create", out, e))?;
    println!("== part 1: texturing an image through the PBRU ==");
    let engine = engine::run(out);
    if let Err(f) = &engine {
        eprintln!("rendergen: engine demo failed: {}", f.message);
    }
    println!("\n== part 2: the widget library ==");
    let widgets = widgets::run(out);
    engine?;
    widgets?;
    println!("\ndemo: passed (textured image equal to the reference, every widget equal in iverilog and Verilator)");
    Ok(())
}
