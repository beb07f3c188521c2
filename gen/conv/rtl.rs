//! `rendergen conv --engine rtl`: the convolution on the cycle-accurate `tex_system` top (a
//! shader core whose `tex` port is wired to the texture unit through the sampler bridge,
//! `rendergen_rtl::texture::system`), driven by `rendergen_sim::agents::shader_core` with a
//! memory agent behind the unit's `mem_req`/`mem_resp`. Every warp's exports are the image.
//!
//! Warps run in batches ([`RtlOptions::batch`] warps per run of the agent; progress on stderr
//! between batches when asked); each batch starts from reset (cold texture cache), so the
//! figures add up the batches. Speed on this machine: about 6 k clocks/s for the default
//! 4-quad core (a 64×64 image with gauss3: collective 66 k clocks, baseline 90 k, each well
//! under a minute; a 256×256 image takes minutes), 0.7 k clocks/s with 16 quads; see the
//! README section.

use super::{launches, program, ConvStats, Convolved, Image, Kernel, Mode, Texture};
use crate::progress::Progress;
use rendergen_hdl::Design;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_rtl::texture::system::{tex_system_top, TexSysCfg};
use rendergen_rtl::texture::TexCfg;
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::agents::shader_core::{AgentCfg, CoreShape, ExtraPorts, ShaderCoreAgent};
use rendergen_sim::engine::{InputId, OutputId};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::shader::MemoryEnv;
use rendergen_sim::models::texture::TexDesc;
use rendergen_sim::Simulator;
use std::collections::{HashSet, VecDeque};

/// How the RTL run is set up.
#[derive(Clone, Debug)]
pub struct RtlOptions {
    /// Quads per warp (1 ..= 16).
    pub quads: u32,
    /// Warp slots of the core (1 ..= 16).
    pub warps: u32,
    /// Warps per agent run.
    pub batch: usize,
    /// Texture-cache lines (power of two, 4 ..= 256).
    pub cache_lines: u32,
    /// Memory latency in clocks (line request to its data), fewest and most.
    pub mem_latency: (u64, u64),
    /// Probability of holding `mem_req.ready` low in a cycle.
    pub mem_stall: f64,
    /// Seed of the memory agent's and the core agent's random choices.
    pub seed: u64,
    /// Show progress on stderr (as `--progress` decides: a bar on a terminal, lines with
    /// `always`).
    pub progress: bool,
}

impl Default for RtlOptions {
    fn default() -> Self {
        RtlOptions {
            quads: 4,
            warps: 8,
            batch: 256,
            cache_lines: 64,
            mem_latency: (8, 8),
            mem_stall: 0.0,
            seed: 1,
            progress: false,
        }
    }
}

/// The `tex_system` configuration for a program of `regs` registers and `words` instructions.
pub fn system_cfg(o: &RtlOptions, regs: u32, words: usize) -> TexSysCfg {
    TexSysCfg {
        core: ShaderCfg {
            quads: o.quads,
            warps: o.warps,
            regs: regs.max(8),
            imem_depth: words.next_power_of_two().max(16) as u32,
            ..ShaderCfg::default()
        },
        tex: TexCfg {
            cache_lines: o.cache_lines,
            ..TexCfg::default()
        },
        order_depth: 32,
    }
}

/// The memory agent behind the texture unit: answers each line read in order after a random
/// latency, with random back-pressure on `mem_req`.
pub struct TexMemory<'a> {
    mem: &'a [u32],
    req_valid: OutputId,
    req_ready: InputId,
    req_addr: [OutputId; 4],
    resp_valid: InputId,
    resp_ready: OutputId,
    resp_data: [InputId; 4],
    pending: VecDeque<(u64, [u32; 4])>,
    latency: (u64, u64),
    stall: f64,
    rng: Rng,
    now: u64,
    last_due: u64,
    /// Line reads answered.
    pub lines: u64,
    /// Distinct word addresses read.
    pub addresses: HashSet<u32>,
}

impl<'a> TexMemory<'a> {
    /// Resolves the ports of `sim` and pokes the descriptor `desc` (flush low).
    pub fn new(
        sim: &mut Simulator,
        mem: &'a [u32],
        desc: &TexDesc,
        latency: (u64, u64),
        stall: f64,
        seed: u64,
    ) -> Result<TexMemory<'a>, String> {
        let e = |e: rendergen_sim::engine::SimError| e.to_string();
        let out = |sim: &Simulator, n: &str| sim.output(n).map_err(e);
        let inp = |sim: &Simulator, n: &str| sim.input(n).map_err(e);
        for (name, v) in desc.port_values() {
            let p = inp(sim, name)?;
            sim.poke(p, v);
        }
        let mut req_addr = Vec::new();
        let mut resp_data = Vec::new();
        for k in 0..4 {
            req_addr.push(out(sim, &format!("mem_req_addr_{k}"))?);
            resp_data.push(inp(sim, &format!("mem_resp_data_{k}"))?);
        }
        let req_addr: [OutputId; 4] = req_addr.try_into().expect("four");
        let resp_data: [InputId; 4] = resp_data.try_into().expect("four");
        Ok(TexMemory {
            mem,
            req_valid: out(sim, "mem_req_valid")?,
            req_ready: inp(sim, "mem_req_ready")?,
            req_addr,
            resp_valid: inp(sim, "mem_resp_valid")?,
            resp_ready: out(sim, "mem_resp_ready")?,
            resp_data,
            pending: VecDeque::new(),
            latency,
            stall,
            rng: Rng::new(seed),
            now: 0,
            last_due: 0,
            lines: 0,
            addresses: HashSet::new(),
        })
    }
}

impl ExtraPorts for TexMemory<'_> {
    fn cycle(&mut self, sim: &mut Simulator) -> Result<(), String> {
        let now = self.now;
        self.now += 1;
        let head = self.pending.front().filter(|(due, _)| *due <= now).copied();
        sim.poke(self.resp_valid, head.is_some() as u64);
        if let Some((_, line)) = head {
            for (id, w) in self.resp_data.iter().zip(line) {
                sim.poke(*id, w as u64);
            }
        }
        let ready = !self.rng.chance(self.stall);
        sim.poke(self.req_ready, ready as u64);
        if head.is_some() && sim.peek(self.resp_ready) == 1 {
            self.pending.pop_front();
        }
        if ready && sim.peek(self.req_valid) == 1 {
            let mut line = [0u32; 4];
            for (w, id) in line.iter_mut().zip(self.req_addr) {
                let a = sim.peek(id) as u32;
                self.addresses.insert(a);
                *w = self.mem.get(a as usize).copied().unwrap_or(0);
            }
            let (lo, hi) = self.latency;
            let due = now + lo.max(1) + self.rng.below(hi.saturating_sub(lo) + 1);
            self.last_due = self.last_due.max(due); // in order
            self.pending.push_back((self.last_due, line));
            self.lines += 1;
        }
        Ok(())
    }
}

/// The counters of `tex_system` at the end of a run.
fn counters(sim: &mut Simulator) -> Result<[u64; 9], String> {
    let names = [
        "requests",
        "reg_writes",
        "footprints",
        "texel_reads",
        "cache_hits",
        "cache_misses",
        "filter_active",
        "filter_idle",
        "dup_dropped",
    ];
    let mut v = [0u64; 9];
    for (x, n) in v.iter_mut().zip(names) {
        let id = sim
            .output(&format!("counters_{n}"))
            .map_err(|e| e.to_string())?;
        *x = sim.peek(id);
    }
    Ok(v)
}

/// Elaborates the `tex_system` for `kernel`'s `mode` program.
pub fn design_for(
    kernel: &Kernel,
    mode: Mode,
    o: &RtlOptions,
) -> Result<(Design, Vec<u64>), String> {
    let (src, regs) = program(kernel, mode);
    let prog = assemble(&src).map_err(|e| e.to_string())?;
    let cfg = system_cfg(o, regs, prog.len());
    let design = tex_system_top(&cfg).map_err(|e| e.to_string())?;
    Ok((design, prog))
}

/// Convolves `img` on the RTL (see the module docs).
pub fn run_rtl(
    img: &Image,
    kernel: &Kernel,
    mode: Mode,
    border: super::Border,
    o: &RtlOptions,
) -> Result<Convolved, String> {
    let tex: Texture = super::texture(img, kernel, border);
    let (design, prog) = design_for(kernel, mode, o)?;
    let (_, regs) = program(kernel, mode);
    let cfg = system_cfg(o, regs, prog.len());
    let mut agent = ShaderCoreAgent::new(
        &design,
        CoreShape {
            quads: o.quads as usize,
            warps: o.warps as usize,
            regs: cfg.core.regs as usize,
        },
    )?;
    let all = launches(img, &tex, o.quads as usize);
    let mut out = vec![0u32; img.texels.len()];
    let mut stats = ConvStats::default();
    let mut unique = HashSet::new();
    let (mut cycles, mut busy, mut lines) = (0u64, 0u64, 0u64);
    let bar = o
        .progress
        .then(|| Progress::bar("conv (rtl)", all.len() as u64, "warps"));
    for (bi, batch) in all.chunks(o.batch.max(1)).enumerate() {
        let ls: Vec<_> = batch.iter().map(|(l, _)| l.clone()).collect();
        let mut memory = TexMemory::new(
            agent.sim_mut(),
            &tex.mem,
            &tex.desc,
            o.mem_latency,
            o.mem_stall,
            o.seed ^ bi as u64,
        )?;
        let acfg = AgentCfg {
            seed: o.seed.wrapping_add(bi as u64),
            max_cycles: 50_000_000,
            ..AgentCfg::default()
        };
        let (res, cs) =
            agent.run_with(&acfg, &prog, &ls, &mut MemoryEnv::default(), &mut memory)?;
        lines += memory.lines;
        unique.extend(memory.addresses.iter().copied());
        let c = counters(agent.sim_mut())?;
        stats.requests += c[0];
        stats.reg_writes += c[1];
        stats.footprints += c[2];
        stats.texel_reads += c[3];
        stats.filter_active += c[6];
        stats.dup_dropped += c[8];
        stats.instructions += cs.issued;
        cycles += cs.cycles;
        busy += cs.issued;
        for (wi, (w, (_, pix))) in res.iter().zip(batch).enumerate() {
            if let Some(e) = w.error {
                return Err(format!("warp {}: {e:?}", bi * o.batch + wi));
            }
            for (lane, p) in pix.iter().enumerate() {
                if let Some(p) = p {
                    out[*p] = w.exports[lane]
                        .get(&0)
                        .and_then(|x| x.first().copied())
                        .ok_or(format!("warp {} lane {lane}: no export", bi * o.batch + wi))?;
                }
            }
        }
        if let Some(p) = &bar {
            p.set((bi * o.batch + batch.len()).min(all.len()) as u64);
        }
    }
    stats.unique_texels = unique.len() as u64;
    stats.macs = img.width as u64 * img.height as u64 * mode.macs_per_pixel(kernel);
    stats.cycles = Some(cycles);
    stats.texel_bytes = lines * 16;
    stats.core_busy = Some(busy);
    stats.unit_busy = Some(stats.footprints);
    Ok(Convolved {
        image: Image {
            width: img.width,
            height: img.height,
            texels: out,
        },
        stats,
    })
}
