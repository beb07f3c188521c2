//! Shader-core benchmarks the command line can run (issue 12 §2): issue rate (IPC) of one core
//! on an ALU-bound shader with 1, 2, 4, 8 warps, and the latency of each instruction class.
//! Both drive the RTL simulation of `shader_core` through
//! `rendergen_sim::agents::shader_core`, and check every warp's exports against the
//! interpreter.

use rendergen_rtl::shader::{shader_core_top, ShaderCfg};
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::agents::shader_core::{AgentCfg, CoreShape, CoreStats, ShaderCoreAgent};
use rendergen_sim::models::shader::{run, Config, Launch, MemoryEnv};

/// One row of the IPC table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IpcRow {
    /// Warps running the shader at once (= the core's warp slots).
    pub warps: u32,
    /// The run's statistics (`window_ipc`: warp instructions per clock from the first issue to
    /// the last).
    pub stats: CoreStats,
}

/// The ALU-bound shader: `fmas` independent `ffma`s (16 accumulators, each updated every 16
/// instructions, so one warp never waits on a result), then its accumulators exported.
pub fn alu_shader(fmas: usize) -> String {
    let mut s = String::from("movi r20, 1.0001\nmovi r21, 0.5\nlane r0\ni2f r0, r0\n");
    for i in 1..=16 {
        s += &format!("mov r{i}, r0\n");
    }
    for k in 0..fmas {
        let i = 1 + k % 16;
        s += &format!("ffma r{i}, r{i}, r20, r21\n");
    }
    for k in 0..4 {
        s += &format!("export {k}, r{}, 4\n", 1 + 4 * k);
    }
    s + "end"
}

fn core(warps: u32) -> Result<ShaderCoreAgent, String> {
    let cfg = ShaderCfg {
        warps,
        ..ShaderCfg::default()
    };
    let design = shader_core_top(&cfg).map_err(|e| e.to_string())?;
    ShaderCoreAgent::new(
        &design,
        CoreShape {
            quads: 1,
            warps: warps as usize,
            regs: cfg.regs as usize,
        },
    )
}

/// Runs `src` on `launches` warps of a core with `warps` slots; checks every warp against the
/// interpreter.
fn measure(agent: &mut ShaderCoreAgent, src: &str, launches: usize) -> Result<CoreStats, String> {
    measure_with(agent, &AgentCfg::default(), src, launches)
}

/// [`measure`] with the agent's timing `acfg`.
fn measure_with(
    agent: &mut ShaderCoreAgent,
    acfg: &AgentCfg,
    src: &str,
    launches: usize,
) -> Result<CoreStats, String> {
    let prog = assemble(src).map_err(|e| e.to_string())?;
    let ls: Vec<Launch> = (0..launches)
        .map(|w| Launch {
            warp_id: w as u32,
            ..Launch::new(1)
        })
        .collect();
    let (got, stats) = agent.run(acfg, &prog, &ls, &mut MemoryEnv::default())?;
    for (i, l) in ls.iter().enumerate() {
        let want = run(&prog, &Config::default(), l, &mut MemoryEnv::default());
        if got[i].exports != want.exports || got[i].error.is_some() {
            return Err(format!("warp {i} differs from the interpreter"));
        }
    }
    Ok(stats)
}

/// IPC of one core with `warps` slots all running the ALU-bound shader of `fmas` FMAs.
pub fn ipc(warps: u32, fmas: usize) -> Result<IpcRow, String> {
    let mut agent = core(warps)?;
    let stats = measure(&mut agent, &alu_shader(fmas), warps as usize)?;
    Ok(IpcRow { warps, stats })
}

/// The table for 1, 2, 4 and 8 warps.
pub fn ipc_table(fmas: usize) -> Result<Vec<IpcRow>, String> {
    [1, 2, 4, 8].into_iter().map(|w| ipc(w, fmas)).collect()
}

/// Instruction classes whose latency [`latencies`] measures, with a dependent instruction of
/// each (`r1 ← f(r1)`).
pub const CLASSES: &[(&str, &str)] = &[
    ("int", "iaddi r1, r1, 1"),
    ("fp-misc", "fabs r1, r1"),
    ("fma", "fmuli r1, r1, 1.0"),
    ("derivative", "ddxc r1, r1"),
    ("recip", "sqrt r1, r1"),
    ("transc", "exp2 r1, r1"),
    ("ldu (port, answer after 1 clock)", "ldu r1, 0"),
    ("if/endif (control)", "if r1\nendif"),
];

/// Clocks per instruction of a chain of dependent instructions of each class on one warp
/// (issue to the dependent's issue; for control, to the next issue): the difference between
/// chains of 64 and 32 over 32.
pub fn latencies() -> Result<Vec<(&'static str, f64)>, String> {
    let mut agent = core(1)?;
    CLASSES
        .iter()
        .map(|&(name, inst)| {
            let mut chain = |n: usize| -> Result<u64, String> {
                let body: Vec<&str> = (0..n).map(|_| inst).collect();
                let src = format!("movi r1, 1.5\n{}\nexport 0, r1, 1\nend", body.join("\n"));
                Ok(measure(&mut agent, &src, 1)?.cycles)
            };
            let (short, long) = (chain(32)?, chain(64)?);
            Ok((name, (long - short) as f64 / 32.0))
        })
        .collect()
}

/// The report `rendergen bench shader` can print.
pub fn report(fmas: usize) -> Result<String, String> {
    let mut out =
        String::from("shader_core (1 quad, 64 registers): ALU-bound shader, independent ffma\n");
    out += &format!(
        "{:>6} {:>8} {:>8} {:>10}\n",
        "warps", "issued", "window", "IPC"
    );
    for r in ipc_table(fmas)? {
        out += &format!(
            "{:>6} {:>8} {:>8} {:>10.3}\n",
            r.warps, r.stats.issued, r.stats.issue_window, r.stats.window_ipc
        );
    }
    out += "texture-bound shader (tex + 6 ALU/control per iteration, 64 iterations), fixed \
            texture latency\n";
    out += &format!(
        "{:>8} {:>6} {:>10} {:>10} {:>8}\n",
        "latency", "warps", "tex/clock", "IPC", "cycles"
    );
    for r in tex_table(64)? {
        out += &format!(
            "{:>8} {:>6} {:>10.3} {:>10.3} {:>8}\n",
            r.latency, r.warps, r.tex_per_clock, r.stats.window_ipc, r.stats.cycles
        );
    }
    out += "launch latency (first transfer to first issue), by registers sent\n";
    for sent in [0, 8, 64] {
        out += &format!("{sent:>8} {:>6}\n", launch_latency(sent)?);
    }
    out += "latency (clocks from an instruction's issue to its dependent's issue, one warp)\n";
    for (name, l) in latencies()? {
        out += &format!("{name:>34} {l:>6.2}\n");
    }
    Ok(out)
}

/// The texture-bound shader (issue 12 §5): a loop of `iters` iterations whose body is one
/// `tex` and six ALU/control instructions (counter, coordinate step, exit test, two
/// accumulations, `brk`) plus `endloop`; the accumulators are exported.
pub fn tex_shader(iters: u32) -> String {
    format!(
        "movi r1, 0.25\nmovi r2, 0.75\nmovi r11, {iters}\nloop\ntex r4, r1, 0\n\
         iaddi r11, r11, -1\nfaddi r1, r1, 0.125\nieq r14, r11, r15\nfadd r12, r12, r4\n\
         fadd r13, r13, r5\nbrk r14\nendloop\nexport 0, r12, 2\nend"
    )
}

/// One row of the texture-bound table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexRow {
    /// Warps running the shader at once (= the core's warp slots).
    pub warps: u32,
    /// Clocks from a texture request to its answer (the texture model's fixed latency).
    pub latency: u64,
    /// The run's statistics.
    pub stats: CoreStats,
    /// Texture requests per clock from the first issue to the last.
    pub tex_per_clock: f64,
}

/// The texture-bound shader of `iters` iterations on `warps` warps of a one-quad core whose
/// texture model answers every request after exactly `latency` clocks and takes one request
/// per clock (no back-pressure); every warp checked against the interpreter.
pub fn tex_bound(warps: u32, latency: u64, iters: u32) -> Result<TexRow, String> {
    let mut agent = core(warps)?;
    let acfg = AgentCfg {
        min_latency: latency,
        max_latency: latency,
        ..AgentCfg::default()
    };
    let stats = measure_with(&mut agent, &acfg, &tex_shader(iters), warps as usize)?;
    Ok(TexRow {
        warps,
        latency,
        stats,
        tex_per_clock: stats.tex_requests as f64 / stats.issue_window.max(1) as f64,
    })
}

/// The texture-bound table: latency 20 and 100, 1, 2, 4 and 8 warps.
pub fn tex_table(iters: u32) -> Result<Vec<TexRow>, String> {
    let mut rows = Vec::new();
    for latency in [20, 100] {
        for warps in [1, 2, 4, 8] {
            rows.push(tex_bound(warps, latency, iters)?);
        }
    }
    Ok(rows)
}

/// Clocks from a launch's first transfer to its warp's first issue, for a launch that sends
/// `sent` registers (non-zero in some lane; the rest read 0), on a one-warp core.
pub fn launch_latency(sent: usize) -> Result<u64, String> {
    let mut agent = core(1)?;
    let prog = assemble("lane r1\nexport 0, r1, 1\nend").map_err(|e| e.to_string())?;
    let mut l = Launch::new(1);
    l.regs = (0..4).map(|lane| vec![lane + 1; sent]).collect();
    let (_, stats) = agent.run(&AgentCfg::default(), &prog, &[l], &mut MemoryEnv::default())?;
    Ok(stats.first_issue)
}

/// Runs `launches` of `prog` on a simulated `shader_core` of `cfg` with `env` (what
/// `rendergen shader run --engine rtl` needs): one outcome per launch, in launch order, and the
/// run's statistics.
pub fn run_rtl(
    cfg: &ShaderCfg,
    acfg: &AgentCfg,
    prog: &[u64],
    launches: &[Launch],
    env: &mut dyn rendergen_sim::models::shader::Env,
) -> Result<
    (
        Vec<rendergen_sim::agents::shader_core::WarpOutcome>,
        CoreStats,
    ),
    String,
> {
    let design = shader_core_top(cfg).map_err(|e| e.to_string())?;
    let mut agent = ShaderCoreAgent::new(
        &design,
        CoreShape {
            quads: cfg.quads as usize,
            warps: cfg.warps as usize,
            regs: cfg.regs as usize,
        },
    )?;
    agent.run(acfg, prog, launches, env)
}

#[cfg(test)]
mod tests {
    /// `cargo test --release -p rendergen-gen shader::rtl::tests::ipc_report -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn ipc_report() {
        println!("{}", super::report(512).unwrap());
    }

    /// `cargo test --release -p rendergen-gen shader::tests::tex_report -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn tex_report() {
        for r in super::tex_table(64).unwrap() {
            println!(
                "latency {:>3} warps {} tex/clock {:.3} IPC {:.3} cycles {}",
                r.latency, r.warps, r.tex_per_clock, r.stats.window_ipc, r.stats.cycles
            );
        }
        for sent in [0, 8, 64] {
            println!(
                "launch of {sent} registers: first issue after {} clocks",
                super::launch_latency(sent).unwrap()
            );
        }
    }

    /// The texture-bound shader keeps the texture port busy as the arithmetic allows: each
    /// iteration issues 8 warp instructions per `tex`, so at most 1/8 request per clock at
    /// IPC 1; one warp alone needs `T1` clocks per iteration (latency + the body), so `W`
    /// warps at most `W / T1`; the register file's write port takes a one-quad answer in 4
    /// clocks, at most 1/4. With latency 20, 8 warps reach ≥ 80 % of the smallest bound.
    #[test]
    fn eight_warps_keep_the_texture_port_busy() {
        let iters = 32;
        let one = super::tex_bound(1, 20, iters).unwrap();
        let t1 = one.stats.cycles as f64 / iters as f64;
        assert!(
            t1 > 20.0,
            "an iteration cannot beat the texture latency: {one:?}"
        );
        let eight = super::tex_bound(8, 20, iters).unwrap();
        let bound = (1.0f64 / 8.0).min(8.0 / t1).min(0.25);
        assert!(
            eight.tex_per_clock <= bound * 1.02,
            "{eight:?} above {bound}"
        );
        assert!(eight.tex_per_clock >= 0.8 * bound, "{eight:?} vs {bound}");
        assert_eq!(eight.stats.tex_requests, 8 * iters as u64);
    }

    /// A launch sends only the registers it sets: the first issue follows its last transfer
    /// by two clocks (start, fetch), whatever the slot's register count.
    #[test]
    fn launch_costs_a_clock_per_register_sent() {
        assert_eq!(super::launch_latency(0).unwrap(), 2);
        assert_eq!(super::launch_latency(8).unwrap(), 9);
    }

    /// Four warps issue at least 0.95 instructions per clock on independent FMAs (issue 12's
    /// performance target; a small run).
    #[test]
    fn four_warps_reach_the_ipc_target() {
        let row = super::ipc(4, 512).unwrap();
        assert!(row.stats.window_ipc >= 0.95, "{row:?}");
    }
}
