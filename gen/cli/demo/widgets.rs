//! The second part of `rendergen demo`: the widget library. For each widget: elaborate,
//! simulate seeded random stimulus with a VCD, emit the Verilog, lint it with three tools,
//! replay the recorded stimulus through iverilog and Verilator and compare every output on every
//! cycle, then print a summary.

use super::io;
use crate::Failure;
use rendergen_gen::cosim::{cosim, CosimEngine};
use rendergen_gen::{tools, verilog};
use rendergen_hdl::Bits;
use rendergen_rtl::catalog::{self, WIDGETS};
use rendergen_sim::kit::rng::Rng;
use rendergen_sim::Simulator;
use std::path::Path;
use std::time::Instant;

const CYCLES: u64 = 2_000;

/// Runs the widget demonstration into `out` (`vcd/<widget>.vcd`, `verilog/<widget>/`).
pub fn run(out: &Path) -> Result<(), Failure> {
    let vcd_dir = out.join("vcd");
    std::fs::create_dir_all(&vcd_dir).map_err(|e| io("create", &vcd_dir, e))?;
    println!(
        "{:<17} {:>6} {:>7} {:>12}  {:<6} {:<8} {:<9}",
        "generator", "nodes", "cycles", "cyc/s (VCD)", "lint", "iverilog", "verilator"
    );
    let mut failures = Vec::new();
    for name in WIDGETS {
        let design = catalog::build(name, &[])?;
        let mut sim = Simulator::new(&design).map_err(Failure::check)?;
        let vcd = vcd_dir.join(format!("{name}.vcd"));
        let file = std::fs::File::create(&vcd).map_err(|e| io("create", &vcd, e))?;
        sim.trace_vcd(std::io::BufWriter::new(file))
            .map_err(|e| io("write", &vcd, e))?;
        sim.start_recording();
        let mut rng = Rng::new(0xDE30);
        let inputs: Vec<u32> = sim.inputs().iter().map(|p| p.width).collect();
        let started = Instant::now();
        for cycle in 0..CYCLES {
            sim.set_reset(cycle < 2);
            for (i, width) in inputs.iter().enumerate() {
                let words: Vec<u64> = (0..width.div_ceil(64)).map(|_| rng.next_u64()).collect();
                sim.poke_bits(sim.input_at(i), &Bits::from_words(&words, *width));
            }
            sim.step();
        }
        let rate = CYCLES as f64 / started.elapsed().as_secs_f64();
        sim.finish_vcd().map_err(|e| io("write", &vcd, e))?;
        let trace = sim.take_trace();

        let vdir = out.join("verilog").join(name);
        std::fs::create_dir_all(&vdir).map_err(|e| io("create", &vdir, e))?;
        for f in verilog::emit(&design) {
            let p = vdir.join(&f.name);
            std::fs::write(&p, &f.text).map_err(|e| io("write", &p, e))?;
        }
        let lint = tools::lint(&design).map_err(Failure::check)?;
        let mut verdicts = Vec::new();
        for engine in [CosimEngine::Iverilog, CosimEngine::Verilator] {
            match cosim(&design, &trace, engine) {
                Ok(()) => verdicts.push("match".to_string()),
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    verdicts.push("MISMATCH".to_string());
                }
            }
        }
        if !lint.is_clean() {
            failures.push(format!("{name}: lint\n{lint}"));
        }
        println!(
            "{:<17} {:>6} {:>7} {:>12.0}  {:<6} {:<8} {:<9}",
            name,
            design.flat_node_count(),
            CYCLES,
            rate,
            if lint.is_clean() { "clean" } else { "DIRTY" },
            verdicts[0],
            verdicts[1]
        );
    }
    println!(
        "\nVerilog: {}/verilog/<generator>/  VCD (open with gtkwave): {}/vcd/",
        out.display(),
        out.display()
    );
    if failures.is_empty() {
        println!("widgets: every one simulated, lint-clean, and equal in iverilog and Verilator");
        Ok(())
    } else {
        Err(Failure::check(failures.join("\n")))
    }
}
