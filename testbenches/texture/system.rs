//! `tex_system` (shader core + sampler bridge + texture unit, `rendergen_rtl::texture::system`)
//! against the shader interpreter whose `tex` is answered by the texture unit's golden model
//! (`rendergen_sim::models::texture::system::TexEnv`): several warps in flight with random
//! back-pressure on the core's ports and on the unit's memory (random latency, stalls), every
//! warp's exports equal to the interpreter's (each `tex` answer lands in its warp's registers,
//! so a lost, duplicated or misrouted answer changes an export or hangs the run), the unit's
//! and the bridge's counters equal to the model's totals; co-simulation of the emitted Verilog;
//! lint.
//!
//! Run: `cargo test -p rendergen-testbenches --test testbenches texture::system`.

use rendergen_gen::conv::rtl::TexMemory;
use rendergen_hdl::Design;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_rtl::texture::system::{tex_bridge_top, tex_system_top, TexSysCfg};
use rendergen_rtl::texture::TexCfg;
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::agents::shader_core::{AgentCfg, CoreShape, ShaderCoreAgent};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::shader::{run, Config, Launch};
use rendergen_sim::models::texture::system::{Sampler, TexEnv};
use rendergen_sim::models::texture::{TexDesc, Wrap};

/// Every request form through one program: filtered with the quad's LOD, raw at integer
/// coordinates, a broadcast, a gather, nearest at an explicit level, trilinear with a bias.
fn program() -> String {
    let s = |x: Sampler| format!("0x{:08x}", x.encode());
    let filtered = s(Sampler {
        linear: true,
        mip: 1,
        ..Sampler::default()
    });
    let raw = s(Sampler {
        mode: 1,
        int_coords: true,
        ..Sampler::default()
    });
    let bcast = s(Sampler {
        mode: 1,
        int_coords: true,
        broadcast: true,
        source: 2,
        patch: 1,
        subop: 3,
        ..Sampler::default()
    });
    let gather = s(Sampler {
        mode: 2,
        comp: 1,
        linear: true,
        ..Sampler::default()
    });
    let nearest = s(Sampler {
        mip: 1,
        explicit_lod: true,
        lod: 256,
        ..Sampler::default()
    });
    let trilinear = s(Sampler {
        linear: true,
        mip: 2,
        lod: 128,
        ..Sampler::default()
    });
    // Broadcast modes (bits 15:14 of a raw broadcast): selective on each sideband layout,
    // shared, and a gather broadcast whose bits 15:14 stay `comp` (mode all).
    let mode = |comp: u32, patch: u32, subop: u32, source: u32| {
        s(Sampler {
            mode: 1,
            int_coords: true,
            broadcast: true,
            source,
            patch,
            subop,
            comp,
            ..Sampler::default()
        })
    };
    let sel_4x4 = mode(1, 1, 0, 1);
    let sel_2x8 = mode(1, 2, 0, 3);
    let sel_8x2 = mode(1, 3, 0, 2);
    let sel_19 = mode(1, 3, 2, 0);
    // 19×1 strips 2 and 3 from lane 0: their left column repeats strip 1's / 2's right one
    // and is dropped in every mode (`duplicate_words`)
    let all_19 = mode(0, 3, 3, 0);
    let shared_19 = mode(2, 3, 2, 0);
    let shared = mode(2, 1, 0, 3);
    let reserved = mode(3, 1, 0, 2);
    let gather_bcast = s(Sampler {
        mode: 2,
        broadcast: true,
        source: 1,
        comp: 2,
        linear: true,
        ..Sampler::default()
    });
    format!(
        "tex r4, r0, {filtered}\n\
         tex r8, r2, {raw}\n\
         tex r12, r2, {bcast}\n\
         tex r16, r0, {gather}\n\
         tex r20, r0, {nearest}\n\
         tex r24, r0, {trilinear}\n\
         export 0, r4, 4\nexport 1, r8, 4\nexport 2, r12, 4\n\
         export 3, r16, 4\nexport 4, r20, 4\nexport 5, r24, 4\n\
         tex r28, r2, {sel_4x4}\nexport 6, r28, 4\n\
         tex r28, r2, {shared}\nexport 7, r28, 4\n\
         qget r4, r29, 3\nqget r5, r28, 1\nexport 8, r4, 2\n\
         tex r28, r2, {sel_2x8}\nexport 9, r28, 4\n\
         tex r28, r2, {sel_8x2}\nexport 10, r28, 4\n\
         tex r28, r2, {sel_19}\nexport 11, r28, 4\n\
         tex r28, r2, {reserved}\nexport 12, r28, 4\n\
         tex r28, r0, {gather_bcast}\nexport 13, r28, 4\n\
         tex r28, r2, {all_19}\nexport 14, r28, 4\n\
         tex r28, r2, {shared_19}\nexport 15, r28, 4\nend"
    )
}

fn desc(rng: &mut Rng) -> TexDesc {
    let wraps = [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror, Wrap::Border];
    TexDesc {
        base: 64,
        log2_w: 5,
        log2_h: 4,
        width: 32,
        height: 16,
        mips: 6,
        srgb: rng.chance(0.5),
        tiled: rng.chance(0.5),
        wrap: [wraps[rng.below(4) as usize], wraps[rng.below(4) as usize]],
        border: rng.next_u64() as u32,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    }
}

/// Launches with random float coordinates (a random derivative scale per quad, so the LOD
/// varies) and random integer coordinates around the texture.
fn launches(rng: &mut Rng, n: usize, quads: usize) -> Vec<Launch> {
    (0..n)
        .map(|w| {
            let mut l = Launch::new(quads);
            l.warp_id = w as u32;
            for _q in 0..quads {
                let (s0, t0) = (
                    rng.below(1000) as f32 / 700.0 - 0.2,
                    rng.below(1000) as f32 / 900.0,
                );
                let scale = [0.0, 1.0 / 64.0, 1.0 / 16.0, 0.2][rng.below(4) as usize];
                let (x0, y0) = (rng.below(48) as i32 - 8, rng.below(32) as i32 - 8);
                for i in 0..4u32 {
                    let (dx, dy) = ((i & 1) as f32, (i >> 1) as f32);
                    l.regs.push(vec![
                        (s0 + scale * dx).to_bits(),
                        (t0 + scale * dy).to_bits(),
                        (x0 + (i & 1) as i32) as u32,
                        (y0 + (i >> 1) as i32) as u32,
                    ]);
                }
            }
            l
        })
        .collect()
}

fn memory(d: &TexDesc) -> Vec<u32> {
    (0..d.base + d.words())
        .map(|a| a.wrapping_mul(0x9E37_79B9).rotate_left(11) ^ 0x0F0F_3C3C)
        .collect()
}

fn small_cfg(quads: u32) -> TexSysCfg {
    TexSysCfg {
        core: ShaderCfg {
            quads,
            warps: 4,
            regs: 32,
            imem_depth: 64,
            ..ShaderCfg::default()
        },
        tex: TexCfg {
            cache_lines: 8,
            max_log2: 6,
            ..TexCfg::default()
        },
        order_depth: 8,
    }
}

/// Runs `launches` of the hand-written program on the RTL and the model; checks exports and
/// counters; returns the cycles.
fn check(
    design: &Design,
    cfg: &TexSysCfg,
    seed: u64,
    n: usize,
    pressure: (f64, f64),
    record: bool,
) -> u64 {
    let prog = assemble(&program()).unwrap();
    let (cycles, dup_dropped) = check_prog(design, cfg, &prog, launches, seed, n, pressure, record);
    assert!(dup_dropped > 0, "the program's 19×1 strips drop duplicates");
    cycles
}

/// Runs program `prog` on `n` warps of launches from `make` on the RTL and the model; checks
/// exports and counters; returns the cycles and the duplicates dropped.
#[allow(clippy::too_many_arguments)]
fn check_prog(
    design: &Design,
    cfg: &TexSysCfg,
    prog: &[u64],
    make: fn(&mut Rng, usize, usize) -> Vec<Launch>,
    seed: u64,
    n: usize,
    pressure: (f64, f64),
    record: bool,
) -> (u64, u64) {
    let mut rng = Rng::new(seed);
    let d = desc(&mut rng);
    let mem = memory(&d);
    let ls = make(&mut rng, n, cfg.core.quads as usize);
    let mut env = TexEnv::new(d, &mem);
    let want: Vec<_> = ls
        .iter()
        .map(|l| {
            run(
                prog,
                &Config {
                    regs: 32,
                    ..Config::default()
                },
                l,
                &mut env,
            )
        })
        .collect();
    let mut agent = ShaderCoreAgent::new(
        design,
        CoreShape {
            quads: cfg.core.quads as usize,
            warps: cfg.core.warps as usize,
            regs: cfg.core.regs as usize,
        },
    )
    .unwrap();
    if record {
        agent.sim_mut().start_recording();
    }
    let mut memory =
        TexMemory::new(agent.sim_mut(), &mem, &d, (1, 20), pressure.1, seed ^ 0x55).unwrap();
    let acfg = AgentCfg {
        seed,
        stall: pressure.0,
        gap: pressure.0,
        launch_gap: pressure.0,
        max_cycles: 400_000,
        ..AgentCfg::default()
    };
    let (got, stats) = agent
        .run_with(
            &acfg,
            prog,
            &ls,
            &mut rendergen_sim::models::shader::MemoryEnv::default(),
            &mut memory,
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.error, None, "seed {seed} warp {i}");
        assert_eq!(
            g.exports, w.exports,
            "seed {seed} warp {i}: exports differ from the model"
        );
    }
    let sim = agent.sim_mut();
    let counter = |sim: &mut rendergen_sim::Simulator, n: &str| {
        let id = sim.output(&format!("counters_{n}")).unwrap();
        sim.peek(id)
    };
    let c = &env.stats;
    assert_eq!(
        [
            counter(sim, "requests"),
            counter(sim, "reg_writes"),
            counter(sim, "footprints"),
            counter(sim, "texel_reads"),
            counter(sim, "filter_active"),
            counter(sim, "filter_idle"),
            counter(sim, "dup_dropped"),
        ],
        [
            c.requests,
            c.reg_writes,
            c.counts.footprints,
            c.counts.texel_reads,
            c.counts.filter_active,
            c.counts.filter_idle,
            c.dup_dropped,
        ],
        "seed {seed}: counters (requests, register writes, footprints, texel reads, filter active, idle, duplicates dropped)"
    );
    if record {
        rendergen_testbenches::cosim_prefix(design, agent.sim_mut());
    }
    (stats.cycles, c.dup_dropped)
}

/// The duplicate rule of overlapping sub-operations, three times written: the bridge's
/// table (`duplicate_words`, from its sideband geometry), the model system's
/// (`duplicate_mask`, from the frame model's `patch_position`) and the shader compiler's
/// (`abi::tex_duplicate_texels`) agree on every (patch, sub-operation, source) and broadcast
/// mode: only lane 0 of the 19×1 strips 2 and 3 repeats a column (texels 0 and 2).
#[test]
fn duplicate_rule_is_the_same_in_the_bridge_the_model_and_the_compiler() {
    use rendergen_rtl::texture::system::duplicate_words;
    use rendergen_shader_compiler::abi::tex_duplicate_texels;
    use rendergen_sim::models::texture::system::duplicate_mask;
    let mut strips = 0;
    for patch in 0..4 {
        for subop in 0..4 {
            for source in 0..4 {
                let rtl = duplicate_words(patch, subop, source);
                let want = match (patch, subop >= 2, source) {
                    (3, true, 0) => 0x5555,
                    _ => 0,
                };
                assert_eq!(rtl, want, "bridge ({patch}, {subop}, {source})");
                for comp in 0..4 {
                    let word = Sampler {
                        mode: 1,
                        int_coords: true,
                        broadcast: true,
                        source,
                        patch,
                        subop,
                        comp,
                        ..Sampler::default()
                    }
                    .encode();
                    assert_eq!(duplicate_mask(word), rtl, "model {word:#x}");
                    assert_eq!(
                        tex_duplicate_texels(word) * 0x1111,
                        rtl as u32,
                        "compiler {word:#x}"
                    );
                    // not a raw broadcast: nothing is a duplicate
                    for other in [word & !8, (word & !3) | 2] {
                        assert_eq!(duplicate_mask(other), 0);
                        assert_eq!(tex_duplicate_texels(other), 0);
                    }
                }
                strips += (rtl != 0) as u32;
            }
        }
    }
    assert_eq!(strips, 2);
}

/// Several warps, two quads each, random back-pressure everywhere, several seeds.
#[test]
fn system_matches_interpreter_and_texture_model_under_back_pressure() {
    let cfg = small_cfg(2);
    let design = tex_system_top(&cfg).unwrap();
    for seed in 1..=4 {
        let pressure = if seed % 2 == 0 {
            (0.3, 0.4)
        } else {
            (0.0, 0.0)
        };
        let cycles = check(&design, &cfg, seed, 12, pressure, false);
        assert!(cycles > 0);
    }
}

/// A GLSL fragment shader sampling a texture through the ABI (`compiler/shader/ABI.md`
/// "Sampled textures": `texture`, a bias, `textureLod`, `texelFetch`, each answer converted
/// from UNORM16 by `u2f` and a multiply), compiled by the shader compiler and run on
/// `tex_system` under back-pressure: the same bits as the interpreter with `TexEnv`.
const GLSL_TEXTURED: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) flat in ivec2 p;
layout(location = 0) out vec4 c;
layout(location = 1) out vec4 d;
layout(binding = 1) uniform texture2D img;
layout(binding = 2) uniform sampler smp;
void main() {
    vec4 a = texture(sampler2D(img, smp), uv);
    vec4 b = texture(sampler2D(img, smp), uv * 0.5, 1.0);
    c = a * 0.75 + b * 0.25;
    d = textureLod(sampler2D(img, smp), uv, 1.5) - texelFetch(sampler2D(img, smp), p, 1);
}";

/// Launches of [`GLSL_TEXTURED`]: `uv` at location 0 (r8, r9), `p` at location 1 (r12, r13)
/// (the ABI's launch registers), from [`launches`]' coordinates.
fn glsl_launches(rng: &mut Rng, n: usize, quads: usize) -> Vec<Launch> {
    let mut ls = launches(rng, n, quads);
    for l in &mut ls {
        for r in &mut l.regs {
            let (s, t, x, y) = (r[0], r[1], r[2], r[3]);
            *r = vec![0; 14];
            r[8] = s;
            r[9] = t;
            r[12] = x >> 1;
            r[13] = y >> 1;
        }
    }
    ls
}

#[test]
fn system_runs_a_compiled_glsl_texture_shader_bit_for_bit() {
    use rendergen_shader_compiler::{compile, Lang, Options, ShaderStage};
    let mut o = Options::new(Lang::Glsl(ShaderStage::Fragment));
    o.regs = 32;
    let c = compile(GLSL_TEXTURED, "textured.frag", &o).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.asm.matches("tex ").count(), 4, "{}", c.asm);
    let cfg = small_cfg(2);
    let design = tex_system_top(&cfg).unwrap();
    for seed in [21, 22] {
        let pressure = if seed % 2 == 0 {
            (0.3, 0.4)
        } else {
            (0.0, 0.0)
        };
        check_prog(
            &design,
            &cfg,
            &c.words,
            glsl_launches,
            seed,
            6,
            pressure,
            false,
        );
    }
}

/// The emitted Verilog in iverilog and Verilator against the Rust simulation of a recorded run.
#[test]
fn system_cosim_iverilog_and_verilator() {
    let cfg = TexSysCfg {
        core: ShaderCfg {
            warps: 2,
            ..small_cfg(1).core
        },
        tex: TexCfg {
            cache_lines: 4,
            max_log2: 5,
            ..TexCfg::default()
        },
        order_depth: 4,
    };
    let design = tex_system_top(&cfg).unwrap();
    check(&design, &cfg, 11, 3, (0.2, 0.2), true);
}

#[test]
fn system_lint_clean() {
    let cfg = TexSysCfg {
        core: ShaderCfg {
            warps: 1,
            regs: 8,
            imem_depth: 16,
            ..ShaderCfg::default()
        },
        tex: TexCfg {
            cache_lines: 4,
            max_log2: 4,
            ..TexCfg::default()
        },
        order_depth: 2,
    };
    let design = tex_system_top(&cfg).unwrap();
    let report = rendergen_gen::tools::lint(&design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// The bridge alone (its broadcast-mode tables and order FIFO) lints clean.
#[test]
fn bridge_lint_clean() {
    let design = tex_bridge_top(&small_cfg(2)).unwrap();
    let report = rendergen_gen::tools::lint(&design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// Yosys area of the bridge at the catalogue's defaults (figures in `rtl/texture/system.rs`):
/// `cargo test -p rendergen-testbenches --test testbenches texture::system::bridge_area --
/// --ignored --nocapture`.
#[test]
#[ignore]
fn bridge_area() {
    let design = tex_bridge_top(&TexSysCfg::default()).unwrap();
    let r = rendergen_gen::tools::synth(&design, rendergen_gen::tools::SynthTarget::Generic)
        .unwrap_or_else(|e| panic!("{e}"));
    println!("{r:?}");
}

#[test]
fn system_rejects_bad_parameters() {
    let bad = |c: TexSysCfg, name: &str| {
        let e = tex_system_top(&c).unwrap_err().to_string();
        assert!(e.contains(name), "{name}: {e}");
    };
    bad(
        TexSysCfg {
            order_depth: 65,
            ..TexSysCfg::default()
        },
        "order_depth",
    );
    bad(
        TexSysCfg {
            tex: TexCfg {
                cache_lines: 12,
                ..TexCfg::default()
            },
            ..TexSysCfg::default()
        },
        "cache_lines",
    );
    bad(
        TexSysCfg {
            core: ShaderCfg {
                warps: 0,
                ..ShaderCfg::default()
            },
            ..TexSysCfg::default()
        },
        "warps",
    );
}
