//! The processing core (`rtl/pbru/core`) alone, against the instruction-level model
//! (`rendergen_sim::models::pbru`): a scheduler stand-in with random delays and back-pressure,
//! programs covering every opcode, chunk boundaries, inline chunks, slot interleaving, RANDSEL,
//! self-stop after MISS_THRESH, external stops, every error outcome; co-simulation and lint.

mod harness;
mod programs;

use harness::{build, Bench, Knobs, Report};
use programs::{asm, random_program, word};
use rendergen_rtl::pbru::ports::isa::{Opcode, RayError, Reason};
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng, TestRun};
use rendergen_sim::models::pbru::{Memory, Ray};

/// Runs `rays` over `mem` on a core of `cfg`; panics with the seed on failure.
fn go(cfg: &PbruCfg, mem: Memory, rays: &[Ray], knobs: Knobs, name: &str, seed: u64) -> Report {
    let (_, mut sim) = build(cfg);
    let seed = seed_from_env_or(seed);
    let test = TestRun::start(&mut sim, name, seed);
    let mut bench = Bench::new(&sim, cfg, mem, knobs, seed);
    let r = bench.run(&mut sim, rays, 200_000);
    test.check(&mut sim, r)
}

fn small() -> PbruCfg {
    PbruCfg {
        slots: 2,
        stack_depth: 16,
        miss_thresh: 64,
        ..PbruCfg::default()
    }
}

#[test]
fn local_program_by_hand() {
    let mut mem = Memory::new();
    let src = "PUSH 1.5q\nPUSH 2.0q\nMUL\nLOAD 0\nADD\nRAYSTOP";
    mem.write(0x100, &asm(src));
    let rays = [Ray::new(7, 0x100, vec![0x1_0000])];
    let r = go(
        &small(),
        mem,
        &rays,
        Knobs::default(),
        "pbru_core_by_hand",
        1,
    );
    let f = &r.left[0];
    assert_eq!(f.reason, Reason::Done);
    assert_eq!(f.stack, vec![0x1_0000, 0x4_0000]);
    assert_eq!((f.inst_addr, f.index), (0x100, 14));
}
