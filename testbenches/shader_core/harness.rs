//! Runs a program on the RTL core through the agent and on the interpreter, and compares.

use rendergen_hdl::Design;
use rendergen_rtl::shader::{shader_core_top, ShaderCfg};
use rendergen_sim::agents::shader_core::{
    AgentCfg, CoreShape, CoreStats, ShaderCoreAgent, WarpOutcome,
};
use rendergen_sim::models::shader::{run, Config, Launch, MemoryEnv};

/// A core under test: its configuration, design and agent.
pub struct Bench {
    pub cfg: ShaderCfg,
    pub design: Design,
    pub agent: ShaderCoreAgent,
}

impl Bench {
    /// Builds the core of `cfg`.
    pub fn new(cfg: ShaderCfg) -> Bench {
        let design = shader_core_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
        let shape = CoreShape {
            quads: cfg.quads as usize,
            warps: cfg.warps as usize,
            regs: cfg.regs as usize,
        };
        let agent = ShaderCoreAgent::new(&design, shape).unwrap_or_else(|e| panic!("{e}"));
        Bench { cfg, design, agent }
    }

    /// The interpreter's configuration for this core.
    pub fn model_cfg(&self) -> Config {
        Config {
            regs: self.cfg.regs as usize,
            watchdog: self.cfg.watchdog,
        }
    }

    /// Runs `launches` of `prog` on the core with `env` and on the interpreter, each launch
    /// with its own copy of `env` (so the launches must not depend on each other's stores);
    /// panics with `what` and the first difference. Returns the statistics and the core's
    /// environment afterwards.
    pub fn check(
        &mut self,
        what: &str,
        acfg: &AgentCfg,
        prog: &[u64],
        launches: &[Launch],
        env: &MemoryEnv,
    ) -> (CoreStats, MemoryEnv) {
        let (stats, env, _) = self.check_outcomes(what, acfg, prog, launches, env);
        (stats, env)
    }

    /// [`Bench::check`], also returning the (agreeing) outcomes.
    pub fn check_outcomes(
        &mut self,
        what: &str,
        acfg: &AgentCfg,
        prog: &[u64],
        launches: &[Launch],
        env: &MemoryEnv,
    ) -> (CoreStats, MemoryEnv, Vec<WarpOutcome>) {
        let mut core_env = env.clone();
        let (got, stats) = self
            .agent
            .run(acfg, prog, launches, &mut core_env)
            .unwrap_or_else(|e| panic!("{what} (seed {}): {e}", acfg.seed));
        for (i, l) in launches.iter().enumerate() {
            let mut model_env = env.clone();
            let want = run(prog, &self.model_cfg(), l, &mut model_env);
            let want = WarpOutcome {
                exports: want.exports,
                error: want.error.map(|f| (f.error, f.pc)),
                executed: want.executed,
            };
            if got[i] != want {
                panic!(
                    "{what} (seed {}), launch {i}:\n core  {:?}\n model {:?}\n program:\n{}",
                    acfg.seed,
                    got[i],
                    want,
                    rendergen_shader_isa::disasm::disassemble(prog)
                );
            }
        }
        (stats, core_env, got)
    }
}

/// A launch of `quads` quads whose lane `l` has registers `regs(l, r)` for `r < n`.
pub fn launch_with(quads: usize, n: usize, mut regs: impl FnMut(usize, usize) -> u32) -> Launch {
    Launch {
        quads,
        regs: (0..4 * quads)
            .map(|l| (0..n).map(|r| regs(l, r)).collect())
            .collect(),
        helpers: 0,
        warp_id: 0,
    }
}

use rendergen_shader_isa::{Format, Inst, Opcode, Unit};
use rendergen_sim::kit::Rng;

/// A binary32 (or integer) operand biased to special values: zeros, infinities, NaNs,
/// subnormals, ones, small integers, powers of two, random bits.
pub fn special_word(rng: &mut Rng) -> u32 {
    const SPECIAL: [u32; 16] = [
        0,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x0000_0001,
        0x807F_FFFF,
        0x3F80_0000,
        0xBF80_0000,
        0x4B00_0000,
        0x3F00_0000,
        0x7F7F_FFFF,
        1,
        31,
        0xFFFF_FFFF,
    ];
    match rng.below(4) {
        0 => SPECIAL[rng.below(16) as usize],
        1 => (rng.below(200) as f32 - 100.0).to_bits() ^ (rng.below(2) as u32 * 0x0040_0000),
        _ => rng.next_u64() as u32,
    }
}

/// Every ALU opcode (the table's non-port, non-control units).
pub fn alu_opcodes() -> Vec<Opcode> {
    (Opcode::ALL.iter().copied())
        .filter(|o| !matches!(o.unit(), Unit::Port | Unit::Control))
        .collect()
}

/// `op` with destination `d`, sources `a`, `b`, `c` (where its format has them) and `imm`.
pub fn inst(op: Opcode, d: u8, a: u8, b: u8, c: u8, imm: u32) -> u64 {
    let f = op.format();
    let used = f.used_bits();
    let mut i = Inst::new(op);
    if used >> 48 & 0xFF != 0 {
        i.d = d;
    }
    if used >> 40 & 0xFF != 0 {
        i.a = a;
    }
    if used >> 32 & 0xFF != 0 {
        i.b = b;
    }
    if f == Format::Dabc {
        i.c = c;
    } else if used & 0xFFFF_FFFF != 0 {
        i.imm = imm;
    }
    i.encode()
}

/// The assembled `export loc, a, n`.
pub fn export(loc: u32, a: u8, n: u8) -> u64 {
    Inst {
        imm: loc,
        a,
        b: n,
        ..Inst::new(Opcode::Export)
    }
    .encode()
}

/// The assembled `end`.
pub fn end() -> u64 {
    Inst::new(Opcode::End).encode()
}
