//! The SM, TTU and L1 agents (`rendergen_sim::agents::pbru`) against the whole `pbru` top:
//! every finished ray equals the golden interpreter's, with back-pressure, L1 misses that park
//! rays at the TTU, SM call-outs, and direct SM pipeline traffic.

mod cli;
mod randsel;

use rendergen_gen::pbru::build_engine;
use rendergen_gen::pbru::workload::{program_addr, setup, Workload, TEXTURE_BASE};
use rendergen_rtl::pbru::ports::isa::asm::assemble;
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::agents::pbru::{L1Cfg, RayMode, Report, SmLoad, System, SystemCfg};
use rendergen_sim::kit::{seed_from_env_or, TestRun};
use rendergen_sim::models::pbru::{Memory, Ray};
use rendergen_sim::{Eval, Simulator};

/// The engine of these tests: the configuration `rendergen-compiled` builds as Rust.
pub(super) fn cfg() -> PbruCfg {
    rendergen_compiled::pbru_tb_cfg()
}

/// Runs `rays` from `mem` on a fresh engine; panics with the seed (and a VCD if asked) on failure.
pub(super) fn run(name: &str, mem: Memory, rays: &[(Ray, RayMode, u32)], sys: SystemCfg) -> Report {
    let cfg = cfg();
    let sys = SystemCfg {
        fixtures: cfg.fixture_kinds(),
        ..sys
    };
    let design = build_engine(&cfg).expect("elaborates");
    // Generated Rust with activity-aware evaluation, or the interpreter in the same mode
    // (`RENDERGEN_TB_ENGINE=interpreter`).
    let mut sim = if rendergen_testbenches::compiled_from_env() {
        let code = rendergen_compiled::pbru_tb_active::code();
        Simulator::with_compiled(&design, Eval::Active, code)
    } else {
        Simulator::with_eval(&design, Eval::Active)
    }
    .expect("simulator");
    run_on(&mut sim, name, mem, rays, sys)
}

/// Runs `rays` from `mem` on the engine in `sim`, checked against the interpreter.
fn run_on(
    sim: &mut Simulator,
    name: &str,
    mem: Memory,
    rays: &[(Ray, RayMode, u32)],
    sys: SystemCfg,
) -> Report {
    let t = TestRun::start(sim, name, sys.seed);
    sim.reset(2);
    let result = (|| {
        let mut system = System::new(sim, mem, &sys)?;
        for (ray, mode, dst) in rays {
            system.send(ray, *mode, *dst)?;
        }
        let r = system.run(sim)?;
        if r.mismatches > 0 {
            return Err(rendergen_sim::kit::TbError::new(format!(
                "{:#?}",
                r.mismatch_details
            )));
        }
        Ok(r)
    })();
    t.check(sim, result)
}

fn workload(w: Workload, n: u32, seed: u64) -> (Memory, Vec<(Ray, RayMode, u32)>) {
    let s = setup(w, None, None, n, seed).expect("setup");
    let rays = s
        .rays
        .into_iter()
        .map(|r| (r.ray, r.mode, r.ret_dst))
        .collect();
    (s.mem, rays)
}

#[test]
fn mixed_rays_match_the_interpreter_under_back_pressure() {
    let seed = seed_from_env_or(11);
    let (mem, rays) = workload(Workload::Mixed, 48, seed);
    let sys = SystemCfg {
        seed,
        ray_gap: 0.3,
        out_stall: 0.3,
        ..SystemCfg::default()
    };
    let r = run("pbru_system_mixed", mem, &rays, sys);
    assert_eq!((r.rays_in, r.rays_out, r.unchecked), (48, 48, 0));
    assert!(r.callouts > 0, "no call-outs exercised");
}

#[test]
fn l1_misses_park_rays_at_the_ttu_and_they_resume() {
    let seed = seed_from_env_or(12);
    let (mem, rays) = workload(Workload::Texture, 16, seed);
    // Every texture block, and the second chunk of the texture program, miss for 300 cycles
    // (beyond MISS_THRESH = 64).
    let mut l1 = L1Cfg::default();
    for b in 0..32 {
        l1.misses.insert((TEXTURE_BASE + b) * 16, 300);
    }
    l1.misses.insert(program_addr(0) + 32, 300);
    let sys = SystemCfg {
        seed,
        l1,
        ..SystemCfg::default()
    };
    let r = run("pbru_system_misses", mem, &rays, sys);
    assert_eq!(r.rays_out, 16);
    assert!(r.parked > 0, "no ray parked");
}

#[test]
fn sm_bursts_share_the_pipelines_with_cores() {
    let seed = seed_from_env_or(13);
    let (mem, rays) = workload(Workload::Mixed, 24, seed);
    let sys = SystemCfg {
        seed,
        sm_load: SmLoad {
            prob: 0.05,
            bursts: vec![(30, 12), (150, 6)],
            cycles: vec![100, 101, 103],
            // ASTC_A and the shading test pipelines (ASTC_DP has its own test below).
            targets: vec![0, 2, 3, 4, 5, 6, 7],
            ..SmLoad::default()
        },
        ..SystemCfg::default()
    };
    let r = run("pbru_system_sm", mem, &rays, sys);
    assert!(r.sm_results >= 21, "{} SM results", r.sm_results);
    let sm: u64 = r.pipelines.values().map(|p| p.sm_grants).sum();
    assert_eq!(sm, r.sm_results);
}

/// Direct ASTC_DP requests in every profile, on random blocks (mostly the error colour).
#[test]
fn sm_astc_dp_requests_in_every_profile() {
    let seed = seed_from_env_or(14);
    let sys = SystemCfg {
        seed,
        sm_load: SmLoad {
            bursts: vec![(5, 40)],
            targets: vec![1],
            ..SmLoad::default()
        },
        ..SystemCfg::default()
    };
    let r = run("pbru_system_sm_dp", Memory::new(), &[], sys);
    assert_eq!(r.sm_results, 40);
}

#[test]
fn bad_programs_return_their_error_like_the_interpreter() {
    let seed = seed_from_env_or(15);
    let mut mem = Memory::new();
    let programs = [
        "PUSH 1\n.byte 0xEE",                                   // unknown opcode
        "ADD",                                                  // underflow
        "PUSH 0\nPUSH 1.0q\nRANDSEL 2\nCASE\nENDCASE\nRAYSTOP", // too few cases
        "CASE",                                                 // CASE executed
    ];
    let mut rays = Vec::new();
    for (i, p) in programs.iter().enumerate() {
        let at = 0x4000 + 0x40 * i as u32;
        mem.write(at, &assemble(p).expect("assembles"));
        rays.push((Ray::new(i as u32, at, vec![]), RayMode::Address, 0));
    }
    let r = run(
        "pbru_system_errors",
        mem,
        &rays,
        SystemCfg {
            seed,
            ..SystemCfg::default()
        },
    );
    assert_eq!(r.rays_out, 4);
}

/// The long stress (`pbru.md` T-STRESS, issue §4): 4000 mixed rays (ALU, texture,
/// call-outs, inline and by-address programs) under random SM traffic on every pipeline,
/// back-pressure on ray intake and return, and L1 misses beyond MISS_THRESH on every texture
/// block and on the texture program's second chunk, so rays park, resume, and land in slots
/// whose earlier occupants still have answers in flight. The system's watchdog fails the run if
/// nothing moves for `hang_cycles`; every ray must return exactly once (a second return or an
/// unknown ray is a mismatch) and equal the interpreter's result.
#[test]
fn long_random_stress_with_sm_traffic_misses_and_back_pressure() {
    let seed = seed_from_env_or(16);
    let n = 4000;
    let (mem, rays) = workload(Workload::Mixed, n, seed);
    let mut l1 = L1Cfg {
        latency: 9,
        ..L1Cfg::default()
    };
    for b in 0..32 {
        l1.misses.insert((TEXTURE_BASE + b) * 16, 150);
    }
    l1.misses.insert(program_addr(0) + 32, 150);
    let sys = SystemCfg {
        seed,
        l1,
        ray_gap: 0.2,
        out_stall: 0.3,
        sm_load: SmLoad {
            prob: 0.2,
            ..SmLoad::default()
        },
        ..SystemCfg::default()
    };
    let r = run("pbru_system_stress", mem, &rays, sys);
    assert_eq!(
        (r.rays_in, r.rays_out, r.unchecked),
        (n as u64, n as u64, 0)
    );
    assert!(r.parked > 0, "no ray parked");
    assert!(r.callouts > 0, "no call-out");
    assert!(r.sm_results > 100, "{} SM results", r.sm_results);
}

/// A ray that parks between two RANDSELs resumes with its PRNG restarted from the seed
/// (`rtl/isa/ISA.md`: the PRNG state is not part of the ray descriptor), so its second draw
/// differs from an uninterrupted run. The checker must follow the ray from where it parked
/// (after checking that the parked state is on the interpreter's path), not report a mismatch.
#[test]
fn a_ray_parked_between_two_randsels_is_checked_from_its_park() {
    let seed = seed_from_env_or(17);
    let at = 0x4000;
    // RANDSEL in chunk 0; NOPs up to chunk 1, whose fetch misses beyond MISS_THRESH (the ray
    // parks there); a second RANDSEL in chunk 1.
    let draw = "PUSH 1.0q\nPUSH 1.0q\nPUSH 1.0q\nRANDSEL 3\n\
                CASE\nPUSH 10\nENDCASE\nCASE\nPUSH 20\nENDCASE\nCASE\nPUSH 30\nENDCASE\n";
    let first = assemble(draw).expect("assembles");
    let pad = "NOP\n".repeat(32 - first.len() % 32);
    let program = format!("{draw}{pad}{draw}RAYSTOP");
    let mut mem = Memory::new();
    mem.write(at, &assemble(&program).expect("assembles"));
    let mut l1 = L1Cfg::default();
    l1.misses
        .insert(at + 32 * (first.len() as u32 / 32 + 1), 300);
    let rays: Vec<_> = (0..24)
        .map(|i| (Ray::new(i, at, vec![]), RayMode::Address, 0))
        .collect();
    let sys = SystemCfg {
        seed,
        l1,
        ..SystemCfg::default()
    };
    let r = run("pbru_system_randsel_park", mem, &rays, sys);
    assert_eq!(r.rays_out, 24);
    assert!(r.parked > 0, "no ray parked");
}

/// The real shading units inside the whole engine (the compiled engine of the other tests holds
/// test fixtures in the shading pipes): shading and sampling rays from the cores and random SM
/// requests to every pipe, all equal to the interpreter's units. Interpreted with
/// activity-aware evaluation, one core.
#[test]
fn real_shading_units_in_the_engine() {
    let seed = seed_from_env_or(17);
    let cfg = PbruCfg {
        cores: 1,
        ..PbruCfg::default()
    };
    assert!(
        cfg.fixture_kinds().is_empty(),
        "every default pipe is its unit"
    );
    let (mem, rays) = workload(Workload::Mixed, 24, seed);
    let design = build_engine(&cfg).expect("elaborates");
    let mut sim = Simulator::with_eval(&design, Eval::Active).expect("simulator");
    let sys = SystemCfg {
        seed,
        sm_load: SmLoad {
            prob: 0.05,
            ..SmLoad::default()
        },
        ray_gap: 0.2,
        ..SystemCfg::default()
    };
    let r = run_on(&mut sim, "pbru_system_real_shading", mem, &rays, sys);
    assert_eq!((r.rays_in, r.rays_out, r.unchecked), (24, 24, 0));
    assert!(r.sm_results > 20, "{} SM results", r.sm_results);
}
