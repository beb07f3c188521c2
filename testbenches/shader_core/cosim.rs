//! The emitted Verilog of the core in iverilog and Verilator against the Rust simulation
//! (a recorded run with every port, control flow and two warps), and lint.

use super::programs::port_env;
use super::*;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::agents::shader_core::AgentCfg;
use rendergen_sim::kit::Rng;

/// A small core (2 warps, 16 registers: a short register set-up per launch).
fn small() -> ShaderCfg {
    ShaderCfg {
        warps: 2,
        regs: 16,
        imem_depth: 64,
        watchdog: 400,
        ..ShaderCfg::default()
    }
}

#[test]
fn cosim_iverilog_and_verilator() {
    let mut b = Bench::new(small());
    let prog = assemble(
        "lane r1
        shli r2, r1, 2
        ldg r3, r2, 16
        andi r4, r1, 1
        loop
          iaddi r5, r5, 1
          ilt r6, r4, r5
          brk r6
          if r4
            ldu r7, 2
            spec r8, r3, r1, 9
          else
            tex r8, r2, 3
          endif
          stg r2, r3, 128
          ffma r9, r3, r3, r8
          rcp r10, r9
          sin r11, r10
          ddxf r12, r11
        endloop
        export 0, r3, 4
        export 1, r8, 4
        export 2, r12, 1
        end",
    )
    .unwrap();
    let mut rng = Rng::new(3);
    let env = port_env(&mut rng);
    let launches: Vec<_> = (0..2)
        .map(|w| {
            let mut l = launch_with(1, 2, |lane, r| (lane + r + w) as u32);
            l.warp_id = w as u32;
            l.helpers = if w == 1 { 0b0010 } else { 0 };
            l
        })
        .collect();
    let acfg = AgentCfg {
        seed: 5,
        max_latency: 4,
        stall: 0.2,
        gap: 0.2,
        ..AgentCfg::default()
    };
    b.agent.sim_mut().start_recording();
    let (stats, _) = b.check("cosim run", &acfg, &prog, &launches, &env);
    assert!(stats.cycles > 100, "{stats:?}");
    let design = b.design.clone();
    rendergen_testbenches::cosim_prefix(&design, b.agent.sim_mut());
}

fn assert_lint_clean(cfg: &ShaderCfg) {
    let design = rendergen_rtl::shader::shader_core_top(cfg).unwrap();
    let report = rendergen_gen::tools::lint(&design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// Verilator `--lint-only -Wall` and iverilog `-Wall` on the small core, each with no message
/// (the Yosys part of `rendergen lint` takes longer than its 300 s limit on this machine for the
/// whole core: [`lint_clean_with_yosys`]).
#[test]
fn lint_clean_verilator_and_iverilog() {
    use rendergen_gen::tools::{run_tool, write_design, WorkDir};
    use std::process::Command;
    use std::time::Duration;
    let design = rendergen_rtl::shader::shader_core_top(&small()).unwrap();
    let dir = WorkDir::new("shader_lint").unwrap();
    let files = write_design(&design, dir.path()).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let limit = Duration::from_secs(600);
    let v = run_tool(
        Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "shader_core"])
            .args(&names),
        dir.path(),
        limit,
    )
    .unwrap();
    assert!(
        v.code == Some(0) && !v.combined().contains("%Warning"),
        "{}",
        v.combined()
    );
    let i = run_tool(
        Command::new("iverilog")
            .args(["-g2005", "-Wall", "-o", "/dev/null", "-s", "shader_core"])
            .args(&names),
        dir.path(),
        limit,
    )
    .unwrap();
    assert!(
        i.code == Some(0) && i.combined().trim().is_empty(),
        "{}",
        i.combined()
    );
}

/// `rendergen_gen::tools::lint` (Verilator, Yosys `check -assert`, iverilog) on the small core
/// and on two quads: minutes of Yosys.
#[test]
#[ignore]
fn lint_clean_with_yosys() {
    assert_lint_clean(&small());
    assert_lint_clean(&ShaderCfg {
        quads: 2,
        ..small()
    });
}
