//! Where the material programs run: the cycle-accurate PBRU (`rtl`), the interpreter
//! (`model`), or the independent f64 evaluation (`f64`). The renderer hands each engine one
//! bounce's worth of jobs at once (so the PBRU is kept full) and reads back one result per job.

use super::material::{self, Continuation, Material};
use super::math::*;
use crate::progress::Progress;
use rendergen_isa::Reason;
use rendergen_mtlx_compiler::{abi, compile_file, Compiled, Options};
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::agents::pbru::SmLoad;
use rendergen_sim::agents::pbru::{default_watchdog, RayMode, System, SystemCfg};
use rendergen_sim::models::pbru::shading::CelTable;
use rendergen_sim::models::pbru::{run_with, FinalRay, Memory, PipeSetup, Ray};
use rendergen_sim::{Eval, Simulator};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which engine runs the materials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// `pbru_top` (default configuration) in cycle-accurate simulation, every ray checked
    /// against the interpreter.
    Rtl,
    /// The PBRU interpreter (`rendergen_sim::models::pbru`).
    Model,
    /// The f64 reference ([`material`]).
    F64,
}

impl EngineKind {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Rtl => "rtl",
            EngineKind::Model => "model",
            EngineKind::F64 => "f64",
        }
    }
}

/// What a job asks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JobKind {
    /// The shading program for light direction `l`.
    Shade {
        /// Unit direction towards the light.
        l: V3,
    },
    /// The importance-sampling program with these random numbers.
    Sample {
        /// ξ1 ξ2 (multiples of 2⁻¹⁶).
        xi: [f64; 2],
    },
}

/// One PBRU ray (or its f64 equivalent).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Job {
    /// What to run.
    pub kind: JobKind,
    /// The hit (unit N and V, uv).
    pub n: V3,
    /// Towards the viewer.
    pub v: V3,
    /// Texture coordinates.
    pub uv: [f64; 2],
    /// Material index.
    pub material: usize,
    /// The ray id (16 bits; seeds the lobe choice).
    pub ray_id: u32,
    /// Jobs of one group have distinct ray ids (the RTL runs one group at a time).
    pub group: u32,
}

/// A job's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JobResult {
    /// `BSDF·cos` in RGB.
    Shaded(V3),
    /// The sampled continuation, or `None` if the path ends.
    Sampled(Option<Continuation>),
}

/// Activity of one pipeline over the whole render.
#[derive(Clone, Debug, PartialEq)]
pub struct PipeUse {
    /// Requests accepted per cycle.
    pub utilization: f64,
    /// Cycles with a request in flight per cycle.
    pub busy: f64,
}

/// What the engine did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineStats {
    /// Shading rays run.
    pub shading_rays: u64,
    /// Sampling rays run.
    pub sampling_rays: u64,
    /// PBRU clock cycles (RTL only).
    pub cycles: u64,
    /// Rays whose RTL result differs from the interpreter's (RTL only).
    pub mismatches: u64,
    /// The first few mismatches.
    pub mismatch_details: Vec<String>,
    /// Per pipeline (RTL only).
    pub pipelines: BTreeMap<String, PipeUse>,
}

/// Where programs go: material `i` at `PROGRAM_BASE + i·PROGRAM_STRIDE` (shading), and half a
/// stride further (sampling).
pub const PROGRAM_BASE: u32 = 0x0010_0000;
/// Bytes reserved per material.
pub const PROGRAM_STRIDE: u32 = 0x2000;
/// Block address of the first texture.
pub const TEXTURE_BLOCK: u32 = 0x200;

struct Loaded {
    compiled: Compiled,
    tex_bases: Vec<u32>,
}

/// A running engine.
pub struct Engine {
    kind: EngineKind,
    f64_materials: Vec<Material>,
    loaded: Vec<Loaded>,
    mem: Memory,
    rtl: Option<(Simulator, PbruCfg)>,
    /// The cel table the materials' set-up writes (the reset table if none has a cel lobe).
    cel: CelTable,
    /// The first material with a cel lobe.
    cel_from: Option<String>,
    /// Statistics so far.
    pub stats: EngineStats,
}

impl Engine {
    /// Loads the materials (`paths`, by index) for `kind`: compiled with the MaterialX
    /// compiler for `rtl`/`model`, read by the f64 evaluator for `f64`. Builds the PBRU for
    /// `rtl` with `cores` × `slots` (the other parameters at their defaults).
    pub fn new(
        kind: EngineKind,
        paths: &[(String, PathBuf)],
        cores: u32,
        slots: u32,
    ) -> Result<Engine, String> {
        let mut e = Engine {
            kind,
            f64_materials: Vec::new(),
            loaded: Vec::new(),
            mem: Memory::new(),
            rtl: None,
            cel: CelTable::default(),
            cel_from: None,
            stats: EngineStats::default(),
        };
        let mut next_block = TEXTURE_BLOCK;
        for (i, (name, path)) in paths.iter().enumerate() {
            let at = |e: String| format!("material `{name}` ({}): {e}", path.display());
            if kind == EngineKind::F64 {
                let mut m = Material::load(path).map_err(at)?;
                m.load_images().map_err(at)?;
                e.f64_materials.push(m);
                continue;
            }
            let c = compile_file(path, &Options::default()).map_err(|x| at(x.to_string()))?;
            if let Some(table) = cel_table(&c).map_err(at)? {
                match &e.cel_from {
                    Some(first) if table != e.cel => {
                        return Err(at(format!(
                            "its cel band table differs from material `{first}`'s; the engine \
                             has one cel table (every cel instance holds the one the SM \
                             wrote), so the materials of a scene must agree on it"
                        )))
                    }
                    _ => (e.cel, e.cel_from) = (table, Some(name.clone())),
                }
            }
            let base = PROGRAM_BASE + i as u32 * PROGRAM_STRIDE;
            let half = PROGRAM_STRIDE / 2;
            if c.shading.code.len() as u32 > half || c.sampling.code.len() as u32 > half {
                return Err(at(format!("a program exceeds {half} bytes")));
            }
            e.mem.write(base, &c.shading.code);
            e.mem.write(base + half, &c.sampling.code);
            let mut tex_bases = Vec::new();
            for t in &c.textures {
                e.mem.write_blocks(next_block, &t.blocks);
                tex_bases.push(next_block);
                next_block += t.blocks.len() as u32;
            }
            e.loaded.push(Loaded {
                compiled: c,
                tex_bases,
            });
        }
        if kind == EngineKind::Rtl {
            let cfg = PbruCfg {
                cores,
                slots,
                ..PbruCfg::default()
            };
            let design = crate::pbru::build_engine(&cfg)
                .map_err(|x| format!("PBRU elaboration failed:\n{x}"))?;
            let mut sim = Simulator::with_eval(&design, Eval::Active).map_err(|x| x.to_string())?;
            sim.reset(2);
            e.rtl = Some((sim, cfg));
        }
        Ok(e)
    }

    /// Which engine this is.
    pub fn kind(&self) -> EngineKind {
        self.kind
    }

    /// Runs `jobs` and returns one result per job, in order.
    pub fn run(&mut self, jobs: &[Job]) -> Result<Vec<JobResult>, String> {
        for j in jobs {
            match j.kind {
                JobKind::Shade { .. } => self.stats.shading_rays += 1,
                JobKind::Sample { .. } => self.stats.sampling_rays += 1,
            }
        }
        if self.kind == EngineKind::F64 {
            return jobs.iter().map(|j| self.f64_job(j)).collect();
        }
        let rays: Vec<Ray> = jobs.iter().map(|j| self.ray(j)).collect();
        let finals: Vec<FinalRay> = if self.kind == EngineKind::Model {
            (rays.iter())
                .map(|r| {
                    let setup = PipeSetup {
                        cel: self.cel,
                        ..PipeSetup::default()
                    };
                    run_with(&self.mem, r, 32, &setup).map_err(|e| {
                        format!("the interpreter has no answer for ray {}: {e:?}", r.ray_id)
                    })
                })
                .collect::<Result<_, _>>()?
        } else {
            self.run_rtl(jobs, &rays)?
        };
        jobs.iter()
            .zip(finals)
            .map(|(j, f)| self.decode(j, &f))
            .collect()
    }

    fn f64_job(&self, j: &Job) -> Result<JobResult, String> {
        // The SM passes uv as Q16.16: the reference picks texels from the same coordinates.
        let uv = j.uv.map(|x| (x * 65536.0).round() / 65536.0);
        let lobes = self.f64_materials[j.material].lobes(uv)?;
        Ok(match j.kind {
            JobKind::Shade { l } => JobResult::Shaded(material::shade(&lobes, j.n, j.v, l)),
            JobKind::Sample { xi } => {
                JobResult::Sampled(material::sample(&lobes, j.n, j.v, xi, j.ray_id))
            }
        })
    }

    fn ray(&self, j: &Job) -> Ray {
        let m = &self.loaded[j.material];
        let hit = abi::Hit {
            n: j.n,
            v: j.v,
            uv: j.uv,
            sqrt_cov: 0.0,
        };
        let base = PROGRAM_BASE + j.material as u32 * PROGRAM_STRIDE;
        match j.kind {
            JobKind::Shade { l } => {
                Ray::new(j.ray_id, base, abi::shading_stack(&hit, l, &m.tex_bases))
            }
            JobKind::Sample { xi } => Ray::new(
                j.ray_id,
                base + PROGRAM_STRIDE / 2,
                abi::sampling_stack(&hit, xi, &m.tex_bases),
            ),
        }
    }

    fn decode(&self, j: &Job, f: &FinalRay) -> Result<JobResult, String> {
        let t = self.loaded[j.material].compiled.textures.len();
        let bad = || {
            format!(
                "ray {} of material {} ended with {:?} and {} stack words",
                f.ray_id,
                j.material,
                f.reason,
                f.stack.len()
            )
        };
        if f.reason != Reason::Done {
            return Err(bad());
        }
        Ok(match j.kind {
            JobKind::Shade { .. } => {
                JobResult::Shaded(abi::shaded(&f.stack, t).ok_or_else(bad)?.rgb)
            }
            JobKind::Sample { .. } => {
                let s = abi::sampled(&f.stack, t).ok_or_else(bad)?;
                let cont = s.throughput().and_then(|w| {
                    let d = normalize(s.dir);
                    (dot(d, j.n) > 0.0 && w.iter().all(|x| x.is_finite())).then_some((d, w))
                });
                JobResult::Sampled(cont)
            }
        })
    }

    /// Runs the rays on the RTL, one group (distinct ray ids) after another, each on a fresh
    /// set of agents around the same simulated engine.
    fn run_rtl(&mut self, jobs: &[Job], rays: &[Ray]) -> Result<Vec<FinalRay>, String> {
        let (sim, cfg) = self.rtl.as_mut().expect("built for rtl");
        let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, j) in jobs.iter().enumerate() {
            groups.entry(j.group).or_default().push(i);
        }
        let mut out: Vec<Option<FinalRay>> = vec![None; jobs.len()];
        let progress = Progress::bar("PBRU (RTL)", jobs.len() as u64, "rays");
        let mut done_before = 0u64;
        for idx in groups.values() {
            let sys_cfg = SystemCfg {
                seed: 1,
                sm_load: SmLoad {
                    prob: 0.0,
                    ..SmLoad::default()
                },
                pipes: cfg.pipes.iter().map(|p| p.kind).collect(),
                fixtures: cfg.fixture_kinds(),
                hang_cycles: default_watchdog(4, 0),
                cel: self.cel,
                ..SystemCfg::default()
            };
            let mut system =
                System::new(sim, self.mem.clone(), &sys_cfg).map_err(|e| e.to_string())?;
            system.program_cel(sim).map_err(|e| e.to_string())?;
            for &i in idx {
                system
                    .send(&rays[i], RayMode::Address, 0)
                    .map_err(|e| e.to_string())?;
            }
            let (mut last, mut idle) = (system.progress(), 0u64);
            while !system.is_done() {
                system.cycle(sim).map_err(|e| e.to_string())?;
                let now = system.progress();
                idle = if now == last { idle + 1 } else { 0 };
                last = now;
                if idle > system.hang_cycles() {
                    return Err(system.hung(sim).to_string());
                }
                if sim.cycle() & 0x3FF == 0 {
                    progress.set(done_before + system.ray_counts().1);
                }
            }
            done_before += idx.len() as u64;
            let report = system.report(sim);
            self.stats.mismatches += report.mismatches;
            for d in report.mismatch_details {
                if self.stats.mismatch_details.len() < 8 {
                    self.stats.mismatch_details.push(d);
                }
            }
            self.stats.cycles = report.cycles;
            self.stats.pipelines = (report.pipelines.into_iter())
                .map(|(name, p)| {
                    // `ggx0` is reported as `ggx` when it is the only instance of its type.
                    let name = crate::pbru::instance_key(name, cfg);
                    let u = (p.sm_grants + p.core_grants) as f64 / report.cycles.max(1) as f64;
                    (
                        name,
                        PipeUse {
                            utilization: u,
                            busy: p.busy,
                        },
                    )
                })
                .collect();
            let finished = system.finished();
            for &i in idx {
                out[i] = finished.get(&rays[i].ray_id).cloned();
            }
        }
        out.into_iter()
            .zip(rays)
            .map(|(f, r)| f.ok_or_else(|| format!("ray {} never finished", r.ray_id)))
            .collect()
    }
}

/// The cel table a compiled material's set-up writes (its seven `CEL` SM requests, ISA.md),
/// or `None` when it has no cel lobe.
fn cel_table(c: &Compiled) -> Result<Option<CelTable>, String> {
    if c.setup.is_empty() {
        return Ok(None);
    }
    let mut t = CelTable::default();
    for r in &c.setup {
        let e = (r.imm & 0x7F) as usize;
        if r.opcode != rendergen_isa::Opcode::Cel as u8 || r.imm & 0x80 == 0 || e >= t.0.len() {
            return Err(format!(
                "its set-up has a request the renderer does not know (opcode {:#04x}, immediate {:#04x}); only cel table writes are sent",
                r.opcode, r.imm
            ));
        }
        t.0[e] = r.arg;
    }
    Ok(Some(t))
}
