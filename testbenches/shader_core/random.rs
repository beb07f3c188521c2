//! Random structured programs (nested if/else, loops with brk/cont, every ALU opcode, every
//! port) on one warp and on many warps at once, on one and two quads.

use super::programs::port_env;
use super::*;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_shader_isa::asm::assemble;
use rendergen_shader_isa::disasm::format_inst;
use rendergen_shader_isa::Inst;
use rendergen_sim::agents::shader_core::AgentCfg;
use rendergen_sim::kit::{seed_from_env_or, Rng};
use rendergen_sim::models::shader::{run, Launch};

/// Registers random code may write: r1..=r15 (r0 and r16.. are kept for loop counters,
/// addresses and a zero).
const DATA: u64 = 16;

/// A random program: returns its assembly text.
pub fn random_program(rng: &mut Rng, ports: bool) -> String {
    let mut out = Vec::new();
    let mut budget = 50 + rng.below(100) as i64;
    block(rng, 0, 0, ports, &mut budget, &mut out);
    for k in 0..4 {
        out.push(format!("export {}, r{}, 4", 10 + k, 4 * k));
    }
    out.push("end".into());
    out.join("\n")
}

fn reg(rng: &mut Rng) -> u64 {
    rng.below(DATA)
}

fn dest(rng: &mut Rng) -> u64 {
    1 + rng.below(DATA - 1)
}

fn block(
    rng: &mut Rng,
    depth: u64,
    loops: u64,
    ports: bool,
    budget: &mut i64,
    out: &mut Vec<String>,
) {
    let alu = alu_opcodes();
    let n = if depth == 0 {
        u64::MAX
    } else {
        1 + rng.below(8)
    };
    for _ in 0..n {
        if *budget <= 0 {
            return;
        }
        *budget -= 1;
        match rng.below(20) {
            0..=1 if depth < 5 => {
                out.push(format!("if r{}", reg(rng)));
                block(rng, depth + 1, loops, ports, budget, out);
                if rng.chance(0.6) {
                    out.push("else".into());
                    block(rng, depth + 1, loops, ports, budget, out);
                }
                out.push("endif".into());
            }
            2 if depth < 5 && loops < 3 => {
                let (counter, test) = (16 + loops, 20 + loops);
                out.push(format!("movi r{counter}, {}", 1 + rng.below(4)));
                out.push("loop".into());
                out.push(format!("iaddi r{counter}, r{counter}, -1"));
                out.push(format!("ilt r{test}, r{counter}, r31"));
                out.push(format!("brk r{test}"));
                block(rng, depth + 1, loops + 1, ports, budget, out);
                out.push("endloop".into());
            }
            3 if loops > 0 => {
                let kind = if rng.chance(0.5) { "brk" } else { "cont" };
                out.push(format!("{kind} r{}", reg(rng)));
            }
            4..=5 if ports => {
                let (d, a, b) = (dest(rng), reg(rng), reg(rng));
                match rng.below(6) {
                    0 => {
                        // Loads read 0..140, stores write 256..348: warps running at once never see each
                        // other's stores (the interpreter runs each launch alone).
                        out.push(format!("andi r24, r{a}, 124"));
                        out.push(format!("ldg r{d}, r24, {}", 4 * rng.below(4)));
                    }
                    1 => {
                        out.push(format!("andi r24, r{a}, 60"));
                        out.push(format!("stg r24, r{b}, {}", 256 + 4 * rng.below(8)));
                    }
                    2 => out.push(format!("ldu r{d}, {}", rng.below(20))),
                    3 => out.push(format!(
                        "tex r{}, r{}, {}",
                        1 + rng.below(12),
                        rng.below(15),
                        rng.below(4)
                    )),
                    4 => out.push(format!("spec r{d}, r{a}, r{b}, {}", rng.below(8))),
                    _ => out.push(format!(
                        "export {}, r{a}, {}",
                        rng.below(4),
                        1 + rng.below(4).min(15 - a)
                    )),
                }
            }
            6 if depth > 0 => out.push(format!("export {}, r{}, 1", rng.below(6), reg(rng))),
            _ => {
                let op = alu[rng.below(alu.len() as u64) as usize];
                let word = inst(
                    op,
                    dest(rng) as u8,
                    reg(rng) as u8,
                    reg(rng) as u8,
                    reg(rng) as u8,
                    special_word(rng),
                );
                out.push(format_inst(&Inst::decode(word).unwrap()));
            }
        }
    }
}

/// Lane-varying initial registers r0..r15 (a third zero, for divergence).
fn random_launch(rng: &mut Rng, quads: usize, warp: u32) -> Launch {
    let mut l = launch_with(quads, 16, |_, _| {
        if rng.chance(0.33) {
            0
        } else {
            special_word(rng)
        }
    });
    l.helpers = if rng.chance(0.3) {
        rng.next_u64() & ((1 << (4 * quads)) - 1)
    } else {
        0
    };
    l.warp_id = warp;
    l
}

fn random_runs(cfg: ShaderCfg, programs: usize, launches: usize, base: u64) {
    let mut b = Bench::new(cfg);
    let seed = seed_from_env_or(base);
    let mut rng = Rng::new(seed);
    let (mut executed, mut errors, mut total) = (0u64, 0u64, 0u64);
    for p in 0..programs {
        let ports = p % 2 == 1;
        let src = random_program(&mut rng, ports);
        let prog = assemble(&src).unwrap_or_else(|e| panic!("generated program: {e}\n{src}"));
        let env = port_env(&mut rng);
        let ls: Vec<Launch> = (0..launches)
            .map(|w| random_launch(&mut rng, cfg.quads as usize, w as u32))
            .collect();
        let acfg = AgentCfg {
            seed: rng.next_u64(),
            min_latency: 1,
            max_latency: 1 + rng.below(12),
            stall: 0.2,
            gap: 0.2,
            launch_gap: 0.3,
            ..AgentCfg::default()
        };
        let (_, core_env, outcomes) = b.check_outcomes(
            &format!("random program {p} (base seed {seed})"),
            &acfg,
            &prog,
            &ls,
            &env,
        );
        for o in &outcomes {
            executed += o.executed;
            errors += o.error.is_some() as u64;
            total += 1;
        }
        // Stores: the same multiset as the launches' own runs (warps interleave on the core).
        let mut want = Vec::new();
        for l in &ls {
            let mut e = env.clone();
            run(&prog, &b.model_cfg(), l, &mut e);
            want.extend(e.store_log);
        }
        let mut got = core_env.store_log.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "random program {p}: stores");
    }
    // The generator must make programs that do something: most warps reach `end` (the rest
    // hit the watchdog in long loops) after tens of instructions.
    assert!(
        errors * 4 <= total,
        "{errors} of {total} warps ended in an error"
    );
    assert!(
        executed >= 60 * total,
        "{executed} instructions over {total} warps"
    );
    eprintln!("random: {total} warps, {errors} errors, {executed} instructions");
}

#[test]
fn random_programs_one_warp() {
    random_runs(
        ShaderCfg {
            watchdog: 5000,
            ..ShaderCfg::default()
        },
        40,
        1,
        0xACE,
    );
}

#[test]
fn random_programs_many_warps_concurrently() {
    random_runs(
        ShaderCfg {
            watchdog: 5000,
            ..ShaderCfg::default()
        },
        16,
        12,
        0xBEE,
    );
}

#[test]
fn random_programs_two_quads_three_warps() {
    random_runs(
        ShaderCfg {
            quads: 2,
            warps: 3,
            regs: 40,
            watchdog: 5000,
            ..ShaderCfg::default()
        },
        12,
        5,
        0xD0E,
    );
}

/// A longer sweep (`cargo test -p rendergen-testbenches --test testbenches -- --ignored
/// shader_core::random::sweep`).
#[test]
#[ignore]
fn sweep() {
    for k in 0..20 {
        random_runs(
            ShaderCfg {
                watchdog: 5000,
                ..ShaderCfg::default()
            },
            20,
            12,
            0x1000 + k,
        );
        random_runs(
            ShaderCfg {
                quads: 4,
                warps: 4,
                regs: 32,
                watchdog: 5000,
                ..ShaderCfg::default()
            },
            10,
            6,
            0x2000 + k,
        );
    }
}

#[test]
fn random_programs_four_quads_one_warp() {
    random_runs(
        ShaderCfg {
            quads: 4,
            warps: 1,
            regs: 32,
            watchdog: 5000,
            ..ShaderCfg::default()
        },
        6,
        2,
        0xF00,
    );
}
