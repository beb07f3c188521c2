//! Faults, co-simulation and lint of the core.

use super::harness::{build, Bench, Knobs};
use super::programs::{asm, random_program, word};
use super::{go, small};
use rendergen_rtl::pbru::ports::isa::{RayError, Reason};
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::kit::Rng;
use rendergen_sim::models::pbru::{Memory, Ray};

/// Every error outcome returns the ray with its reason at the faulting instruction.
#[test]
fn every_error_returns_the_ray() {
    use RayError::*;
    let cases: &[(&str, Vec<u32>, RayError)] = &[
        ("NOP\n.byte 0xFF", vec![], UnknownOpcode),
        ("ADD", vec![1], StackUnderflow),
        ("LOAD 2", vec![1, 2], StackUnderflow),
        ("PICK 2", vec![1, 2], StackUnderflow),
        ("STORE 1", vec![1, 2], StackUnderflow),
        ("TEX_READ", vec![1, 2], StackUnderflow),
        ("GGX", vec![0; 9], StackUnderflow),
        ("DUP", vec![3; 16], StackOverflow),
        ("PUSH 7", vec![3; 16], StackOverflow),
        ("SCHLICK", vec![1; 16], StackOverflow),
        ("CASE", vec![], BadControl),
        ("RANDSEL 0", vec![], BadControl),
        ("PUSH 1.0q\nRANDSEL 1\nNOP\nRAYSTOP", vec![], BadControl),
        (
            "PUSH 0\nPUSH 1.0q\nRANDSEL 2\nCASE\nCASE\nENDCASE\nCASE\nENDCASE\nRAYSTOP",
            vec![],
            BadControl,
        ),
        (
            "PUSH 0\nPUSH 1.0q\nRANDSEL 2\nCASE\n.byte 0xEE\nENDCASE\nCASE\nENDCASE\nRAYSTOP",
            vec![],
            UnknownOpcode,
        ),
        ("ENDCASE\nCASE\nENDCASE\nCASE", vec![], BadControl),
        ("ENDCASE\nCASE\nCASE", vec![], BadControl),
        ("PUSH 3", vec![0; 17], StackOverflow),
    ];
    let mut mem = Memory::new();
    let mut rays = Vec::new();
    for (i, (src, stack, _)) in cases.iter().enumerate() {
        let addr = 0x100 * (i as u32 + 1) + 29;
        mem.write(addr, &asm(&format!("PUSH 0x55\nPOP\n{src}\nRAYSTOP")));
        rays.push(Ray::new(i as u32 + 1, addr, stack.clone()));
    }
    let r = go(
        &small(),
        mem,
        &rays,
        Knobs::default(),
        "pbru_core_errors",
        31,
    );
    for f in &r.left {
        let want = cases[f.ray_id as usize - 1].2;
        assert_eq!(
            f.reason,
            Reason::Error(want),
            "case {}",
            cases[f.ray_id as usize - 1].0
        );
    }
}

/// A recorded run of random programs replayed through iverilog and Verilator.
#[test]
fn cosimulation_in_iverilog_and_verilator() {
    let cfg = small();
    let (design, mut sim) = build(&cfg);
    let mut rng = Rng::new(41);
    let mut mem = Memory::new();
    let mut rays = Vec::new();
    for id in 1..=6u32 {
        let src = random_program(&mut rng, 1, cfg.stack_depth, 25, id % 2 == 0);
        let addr = 0x400 * id + rng.below(32) as u32;
        mem.write(addr, &asm(&src));
        rays.push(Ray::new(id, addr, vec![word(&mut rng)]));
    }
    let knobs = Knobs {
        stop_prob: 0.005,
        ..Knobs::default()
    };
    let mut bench = Bench::new(&sim, &cfg, mem, knobs, 42);
    sim.start_recording();
    bench
        .run(&mut sim, &rays, 50_000)
        .unwrap_or_else(|e| panic!("{e}"));
    let trace = sim.take_trace();
    rendergen_gen::cosim::cosim_both(&design, &trace).unwrap_or_else(|e| panic!("{e}"));
}

/// Verilator `-Wall`, Yosys, iverilog on the emitted Verilog.
#[test]
fn emitted_verilog_is_lint_clean() {
    let cfg = PbruCfg {
        stack_depth: 4,
        ..small()
    };
    let report = rendergen_gen::tools::lint(&build(&cfg).0).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}
