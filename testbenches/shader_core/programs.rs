//! Directed programs: the ISA example, control flow, derivatives, ports.

use super::*;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::agents::shader_core::AgentCfg;
use rendergen_sim::models::shader::MemoryEnv;

fn asm(src: &str) -> Vec<u64> {
    assemble(src).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn isa_example_matches_the_interpreter() {
    let mut b = Bench::new(ShaderCfg::default());
    let prog = asm(
        "movi r0, 0.5\nlane r1\ni2f r1, r1\nflt r2, r1, r0\nif r2\nfmuli r3, r1, 2.0\nelse\n\
         fadd r3, r1, r0\nendif\nexport 0, r3, 1\nend",
    );
    let l = launch_with(1, 0, |_, _| 0);
    b.check(
        "isa example",
        &AgentCfg::default(),
        &prog,
        &[l],
        &MemoryEnv::default(),
    );
}

/// Every ALU opcode on operands biased to FP specials, in four lanes and over several launches:
/// each result exported at its own location.
#[test]
fn every_alu_opcode_on_special_operands() {
    let mut b = Bench::new(ShaderCfg::default());
    let mut rng = Rng::new(rendergen_sim::kit::seed_from_env_or(0x5AD));
    let ops = alu_opcodes();
    for (round, chunk) in ops.chunks(28).enumerate() {
        let mut prog = Vec::new();
        for (k, &op) in chunk.iter().enumerate() {
            let d = 8 + 2 * k as u8;
            let (a, bb, c) = (rng.below(8) as u8, rng.below(8) as u8, rng.below(8) as u8);
            prog.push(inst(op, d, a, bb, c, special_word(&mut rng)));
            // A second, dependent use of the result (read-after-write through the scoreboard).
            prog.push(inst(op, d + 1, d, a, bb, special_word(&mut rng)));
        }
        for k in 0..(2 * chunk.len() as u32).div_ceil(4) {
            prog.push(export(k, 8 + 4 * k as u8, 4));
        }
        prog.push(end());
        let launches: Vec<Launch> = (0..6)
            .map(|w| {
                let mut l = launch_with(1, 8, |_, _| special_word(&mut rng));
                l.warp_id = rng.next_u64() as u32;
                l.helpers = if w == 5 { 0b0110 } else { 0 };
                l
            })
            .collect();
        let acfg = AgentCfg {
            seed: rng.next_u64(),
            ..AgentCfg::default()
        };
        b.check(
            &format!("ALU opcodes, part {round}"),
            &acfg,
            &prog,
            &launches,
            &MemoryEnv::default(),
        );
    }
}

/// Divergent if/else, nested, and loops with brk/cont whose lanes leave at different
/// iterations.
#[test]
fn divergent_control_flow() {
    let mut b = Bench::new(ShaderCfg::default());
    let prog = asm("
        lane r1
        movi r2, 0
        andi r3, r1, 1
        if r3
          iaddi r2, r2, 10
          andi r4, r1, 2
          if r4
            iaddi r2, r2, 100
          else
            iaddi r2, r2, 200
          endif
        else
          iaddi r2, r2, 1000
        endif
        movi r5, 0
        movi r6, 0
        loop
          iaddi r5, r5, 1
          ieq r7, r5, r1
          iaddi r8, r1, 2
          ilt r9, r8, r5
          brk r9
          andi r10, r5, 1
          cont r10
          iadd r6, r6, r5
          loop
            iaddi r6, r6, 7
            movi r11, 1
            brk r11
          endloop
          if r7
            iaddi r6, r6, 3
            brk r7
          endif
        endloop
        export 0, r2, 1
        export 1, r5, 2
        end");
    for seed in 0..3 {
        let acfg = AgentCfg {
            seed,
            ..AgentCfg::default()
        };
        b.check(
            "control flow",
            &acfg,
            &prog,
            &[launch_with(1, 0, |_, _| 0)],
            &MemoryEnv::default(),
        );
    }
}

/// Coarse and fine derivatives in every quad of a two-quad warp.
#[test]
fn derivatives_coarse_and_fine_two_quads() {
    let mut b = Bench::new(ShaderCfg {
        quads: 2,
        warps: 2,
        ..ShaderCfg::default()
    });
    let prog = asm("
        ddxc r4, r0
        ddyc r5, r0
        ddxf r6, r0
        ddyf r7, r0
        ddxf r8, r1
        ddyf r9, r1
        export 0, r4, 4
        export 1, r8, 2
        end");
    let mut rng = Rng::new(7);
    let launches: Vec<Launch> = (0..3)
        .map(|_| launch_with(2, 2, |_, _| special_word(&mut rng)))
        .collect();
    b.check(
        "derivatives",
        &AgentCfg::default(),
        &prog,
        &launches,
        &MemoryEnv::default(),
    );
}

/// A memory and uniforms for port tests: words at 0..256, uniforms 0..16.
pub fn port_env(rng: &mut Rng) -> MemoryEnv {
    let mut env = MemoryEnv::default();
    for a in (0..256).step_by(4) {
        env.memory.insert(a, rng.next_u64() as u32);
    }
    env.uniforms = (0..16).map(|_| rng.next_u64() as u32).collect();
    env
}

/// Every port (ldg, stg, ldu, tex, spec, export) with divergent lanes and helper lanes, under
/// random answer latency, reordering and back-pressure.
#[test]
fn every_port_under_random_latency_and_back_pressure() {
    let prog = asm("
        lane r1
        shli r2, r1, 2
        ldg r3, r2, 16
        andi r4, r1, 1
        if r4
          stg r2, r3, 128
          ldg r5, r2, 128
          ldu r6, 5
          spec r7, r3, r1, 9
        else
          ldu r6, 3
          spec r7, r1, r3, 2
        endif
        i2f r8, r1
        faddi r9, r8, 0.25
        tex r10, r8, 3
        if r4
          tex r12, r9, 1
        endif
        ldu r14, 40
        export 0, r3, 4
        export 1, r6, 2
        export 2, r10, 4
        end");
    for (quads, warps) in [(1, 4), (2, 2)] {
        let mut b = Bench::new(ShaderCfg {
            quads,
            warps,
            ..ShaderCfg::default()
        });
        let prog = prog.clone();
        for seed in 0..4u64 {
            let mut rng = Rng::new(seed);
            let env = port_env(&mut rng);
            let launches: Vec<Launch> = (0..3)
                .map(|w| {
                    let mut l = launch_with(quads as usize, 0, |_, _| 0);
                    l.helpers = [0, 0b1001, 0b0100_0010][w] & ((1 << (4 * quads)) - 1);
                    l.warp_id = w as u32;
                    l
                })
                .collect();
            let acfg = AgentCfg {
                seed,
                min_latency: 1,
                max_latency: 1 + 10 * seed,
                stall: 0.3,
                gap: 0.3,
                ..AgentCfg::default()
            };
            // Launches run one at a time here so that each sees the stores of none other.
            for (i, l) in launches.iter().enumerate() {
                let (_, core_env) = b.check(
                    &format!("ports, launch {i}"),
                    &acfg,
                    &prog,
                    std::slice::from_ref(l),
                    &env,
                );
                let mut model_env = env.clone();
                rendergen_sim::models::shader::run(&prog, &b.model_cfg(), l, &mut model_env);
                assert_eq!(core_env.memory, model_env.memory, "stores, seed {seed}");
                assert_eq!(
                    core_env.tex_log, model_env.tex_log,
                    "tex requests, seed {seed}"
                );
                assert_eq!(
                    core_env.spec_log, model_env.spec_log,
                    "spec requests, seed {seed}"
                );
                assert_eq!(
                    core_env.store_log, model_env.store_log,
                    "stores, seed {seed}"
                );
            }
        }
    }
}

use rendergen_sim::kit::Rng;
use rendergen_sim::models::shader::Launch;

/// Eight warps ending together under heavy back-pressure on `done`, `export` and the request
/// streams: a stalled item never changes (the agent checks the stream rules every cycle) and
/// every warp's end arrives once.
#[test]
fn outputs_keep_stalled_items_under_back_pressure() {
    let mut b = Bench::new(ShaderCfg::default());
    let prog = asm("lane r1\nldu r2, 1\nexport 0, r1, 2\nend");
    let short = asm("lane r1\nend");
    let launches: Vec<Launch> = (0..24)
        .map(|w| {
            let mut l = launch_with(1, 0, |_, _| 0);
            l.warp_id = w;
            l
        })
        .collect();
    for seed in 0..3 {
        let acfg = AgentCfg {
            seed,
            stall: 0.8,
            launch_gap: 0.5,
            ..AgentCfg::default()
        };
        b.check(
            "stalled outputs",
            &acfg,
            &prog,
            &launches,
            &MemoryEnv::default(),
        );
        b.check(
            "stalled done",
            &acfg,
            &short,
            &launches,
            &MemoryEnv::default(),
        );
    }
}

/// Launch into any free slot with fast launch: one warp slot runs three launches in turn, so
/// each finds the registers its predecessor wrote. Registers a launch does not write read 0
/// (before and after a divergent first write, which fills the inactive lanes with 0), and the
/// launch takes one clock per register it writes, not one per register of the slot.
#[test]
fn unwritten_registers_read_zero_after_a_previous_warp() {
    let mut b = Bench::new(ShaderCfg {
        warps: 1,
        regs: 16,
        ..ShaderCfg::default()
    });
    let prog = asm(
        "export 0, r5, 1\nexport 1, r6, 1\nif r0\nmovi r5, 7.0\nendif\nexport 2, r5, 1\n\
         movi r6, 3.0\nmovi r9, 1.0\nend",
    );
    let launches = [
        launch_with(1, 1, |_, _| 1),
        launch_with(1, 1, |lane, _| lane as u32 & 1),
        launch_with(1, 6, |lane, r| match r {
            0 => 1,
            5 => 10 + lane as u32,
            _ => 0,
        }),
    ];
    let (stats, _, outcomes) = b.check_outcomes(
        "unwritten registers",
        &AgentCfg {
            launch_gap: 0.3,
            ..AgentCfg::default()
        },
        &prog,
        &launches,
        &MemoryEnv::default(),
    );
    // The second warp: r5 and r6 read 0 although the first wrote them; after the divergent
    // write, r5 is 7.0 in the odd lanes and 0 in the even ones.
    let second = &outcomes[1].exports;
    for (lane, e) in second.iter().enumerate() {
        assert_eq!(e[&0], vec![0], "lane {lane}");
        assert_eq!(e[&1], vec![0], "lane {lane}");
        let want = if lane % 2 == 1 { 7.0f32.to_bits() } else { 0 };
        assert_eq!(e[&2], vec![want], "lane {lane}");
    }
    assert_eq!(outcomes[2].exports[3][&0], vec![13]);
    // Fast launch: a launch that writes no register starts the warp one clock after its
    // transfer; the first issue follows within a few clocks of the first transfer.
    assert!(stats.first_issue <= 5, "{stats:?}");
}

/// With every slot busy, a launch waits (`ready` low) and goes into the slot that frees first;
/// many launches on two slots under back-pressure and gaps all finish once.
#[test]
fn launches_wait_for_a_free_slot() {
    let mut b = Bench::new(ShaderCfg {
        warps: 2,
        regs: 16,
        ..ShaderCfg::default()
    });
    let prog = asm("warp r1\nlane r2\niadd r3, r1, r2\nexport 0, r3, 1\nend");
    let launches: Vec<Launch> = (0..12)
        .map(|w| {
            let mut l = launch_with(1, 4, |lane, r| (w * 16 + lane * 4 + r) as u32);
            l.warp_id = 100 + w as u32;
            l
        })
        .collect();
    for seed in 0..3 {
        b.check(
            "launches wait",
            &AgentCfg {
                seed,
                stall: 0.5,
                launch_gap: 0.3,
                ..AgentCfg::default()
            },
            &prog,
            &launches,
            &MemoryEnv::default(),
        );
    }
}
