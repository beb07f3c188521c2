//! `rendergen sim pbru`: builds the PBRU, runs a workload on it with the agents (SM,
//! TTU, L1; `rendergen_sim::agents::pbru`), checks every finished ray against the
//! golden interpreter, and reports throughput and pipeline activity.

mod report;
pub mod workload;

use rendergen_hdl::{Design, ElabErrors};
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_rtl::pbru::top::pbru_top;
use rendergen_sim::agents::pbru::{default_watchdog, L1Cfg, Report, SmLoad, System, SystemCfg};
use rendergen_sim::kit::TbError;
use rendergen_sim::models::astc::AstcFile;
use rendergen_sim::{Eval, Simulator};
pub use report::{to_json, to_text, Outcome, Steady};
use std::collections::BTreeMap;
pub use workload::Workload;

/// Everything `rendergen sim pbru` takes.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Engine parameters.
    pub cfg: PbruCfg,
    /// Rays to send (≤ 65536: ids are 16 bits).
    pub rays: u32,
    /// Seed of the workload and the agents.
    pub seed: u64,
    /// Built-in workload.
    pub workload: Workload,
    /// A program to run instead (assembly text).
    pub program: Option<String>,
    /// A texture to use instead of the generated one.
    pub texture: Option<AstcFile>,
    /// Probability per cycle of a direct SM pipeline request on each SM port.
    pub sm_load: f64,
    /// Instances the SM requests go to (indices into `cfg.pipes`; empty: all).
    pub sm_targets: Vec<u32>,
    /// L1 latency in cycles.
    pub l1_latency: u32,
    /// If non-zero: every texture block misses in the L1 on first use and is present this many
    /// cycles later (rays park at the TTU when it exceeds MISS_THRESH).
    pub texture_miss_cycles: u64,
    /// Write a waveform here.
    pub vcd: Option<crate::output::VcdOut>,
    /// Cycles without progress (no ray in or out, no SM result, no L1 request) before the run
    /// is reported as hung; `None`: [`default_watchdog`] of the L1 latency and texture misses.
    pub watchdog: Option<u64>,
    /// The simulator's evaluation mode.
    pub eval: Eval,
    /// Generated code of this configuration built into the program
    /// (`Simulator::with_compiled`); `None` interprets.
    pub code: Option<rendergen_sim::codegen::Compiled>,
    /// Record the engine's inputs on every cycle into this stimulus file
    /// ([`crate::bench::replay`]), for `rendergen bench pbru --replay`.
    pub record_stimulus: Option<std::path::PathBuf>,
}

/// The engine: [`pbru_top`] (its cores are child modules).
pub fn build_engine(cfg: &PbruCfg) -> Result<Design, ElabErrors> {
    pbru_top(cfg)
}

/// Builds the engine, runs the workload, and returns the report (mismatches included; the
/// caller decides whether they fail) with the rays' average time in the engine.
pub fn run(opts: &SimOptions) -> Result<Outcome, String> {
    if opts.rays > 1 << 16 {
        return Err(format!(
            "--rays {} exceeds 65536 (16-bit ray ids)",
            opts.rays
        ));
    }
    let setup = workload::setup(
        opts.workload,
        opts.program.as_deref(),
        opts.texture.clone(),
        opts.rays,
        opts.seed,
    )?;
    let design = build_engine(&opts.cfg).map_err(|e| format!("elaboration failed:\n{e}"))?;
    let mut sim = match opts.code {
        Some(code) => Simulator::with_compiled(&design, opts.eval, code),
        None => Simulator::with_eval(&design, opts.eval),
    }
    .map_err(|e| e.to_string())?;
    if let Some(vcd) = &opts.vcd {
        vcd.start(&mut sim)?;
    }
    if opts.record_stimulus.is_some() {
        sim.start_recording();
    }
    sim.reset(2);
    let sys_cfg = SystemCfg {
        seed: opts.seed,
        sm_load: SmLoad {
            prob: opts.sm_load,
            targets: opts.sm_targets.clone(),
            ..SmLoad::default()
        },
        pipes: opts.cfg.pipes.iter().map(|p| p.kind).collect(),
        fixtures: opts.cfg.fixture_kinds(),
        l1: L1Cfg {
            latency: opts.l1_latency,
            misses: (0..setup.texture.blocks.len() as u32)
                .filter(|_| opts.texture_miss_cycles > 0)
                .map(|b| ((workload::TEXTURE_BASE + b) * 16, opts.texture_miss_cycles))
                .collect(),
        },
        hang_cycles: (opts.watchdog)
            .unwrap_or_else(|| default_watchdog(opts.l1_latency.into(), opts.texture_miss_cycles)),
        ..SystemCfg::default()
    };
    let mut system = System::new(&sim, setup.mem, &sys_cfg).map_err(|e| e.to_string())?;
    for r in &setup.rays {
        (system.send(&r.ray, r.mode, r.ret_dst)).map_err(|e| e.to_string())?;
    }
    let start = std::time::Instant::now();
    let outcome = measure(&mut system, &mut sim).map_err(|e| format!("{e} (seed {})", opts.seed));
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &opts.record_stimulus {
        crate::bench::replay::Stimulus::from_trace(&sim.take_trace()).write(path)?;
    }
    sim.finish_vcd()
        .map_err(|e| format!("writing the VCD: {e}"))?;
    if let Some(v) = &opts.vcd {
        v.finish()?;
    }
    outcome.map(|mut o| {
        o.report.pipelines = rename_instances(std::mem::take(&mut o.report.pipelines), &opts.cfg);
        if let Some(st) = &mut o.steady {
            st.grants = rename_instances(std::mem::take(&mut st.grants), &opts.cfg);
        }
        o.seconds = seconds;
        o.eval = sim.eval_mode();
        o.activity = sim.activity();
        o
    })
}

/// [`System::run`] that also integrates the rays inside the engine over the cycles: a ray is
/// inside from its intake handshake (`sm_ray_in` or `ttu_ray_in`) to its return handshake
/// (finished, parked or call-out), so by Little's law `ray_cycles / passes` is the average
/// latency of one pass through the engine.
///
/// It also snapshots the pipelines' grant counters when the first quarter and the first three
/// quarters of the rays have finished: [`Outcome::steady`], the middle half of the run, free of
/// the cold start and the drain.
fn measure(system: &mut System, sim: &mut Simulator) -> Result<Outcome, TbError> {
    let (mut ray_cycles, mut idle, mut last) = (0u64, 0u64, system.progress());
    let mut finished_all = false;
    let rays = system.ray_counts().0;
    let edges = [rays.div_ceil(4), (3 * rays).div_ceil(4)];
    let mut snaps: Vec<(u64, Report)> = Vec::new();
    let progress = crate::progress::Progress::bar("simulating the PBRU", rays, "rays");
    while !system.is_done() {
        if finished_all && !system.sm_pipes.scripted_pending() {
            system.sm_pipes.stop();
        }
        system.cycle(sim)?;
        let (rays_in, rays_out) = system.ray_counts();
        finished_all = rays_out >= rays_in;
        if snaps.len() < 2 && rays_out >= edges[snaps.len()] {
            snaps.push((sim.cycle(), system.report(sim)));
        }
        if sim.cycle() & 0x3FF == 0 {
            progress.set(rays_out);
        }
        let now = system.progress();
        ray_cycles += now[0].saturating_sub(now[1]);
        idle = if now == last { idle + 1 } else { 0 };
        last = now;
        if idle > system.hang_cycles() {
            return Err(system.hung(sim));
        }
    }
    system.sm.output.protocol_result()?;
    system.ttu.output.protocol_result()?;
    let steady = match snaps.as_slice() {
        [(from, a), (to, b)] if to > from => Some(Steady {
            from: *from,
            to: *to,
            grants: (b.pipelines.iter())
                .map(|(name, p)| {
                    let before = a
                        .pipelines
                        .get(name)
                        .map_or(0, |q| q.sm_grants + q.core_grants);
                    (name.clone(), p.sm_grants + p.core_grants - before)
                })
                .collect(),
        }),
        _ => None,
    };
    Ok(Outcome {
        report: system.report(sim),
        steady,
        ray_cycles,
        passes: last[1],
        seconds: 0.0,
        eval: Eval::Full,
        activity: Default::default(),
    })
}

/// The report's name of an instance: its type (`astc_a`) when the type has one instance, else
/// the instance name (`astc_a0`, …).
pub fn instance_key(name: String, cfg: &PbruCfg) -> String {
    let count = |kind| cfg.pipes.iter().filter(|p| p.kind == kind).count();
    let kind = (cfg.pipes.iter()).find(|p| {
        name.strip_prefix(p.kind.name())
            .is_some_and(|i| i.parse::<u32>().is_ok())
    });
    match kind {
        Some(p) if count(p.kind) == 1 => p.kind.name().to_string(),
        _ => name,
    }
}

/// Renames the keys of a map by instance name with [`instance_key`].
fn rename_instances<V>(map: BTreeMap<String, V>, cfg: &PbruCfg) -> BTreeMap<String, V> {
    (map.into_iter())
        .map(|(name, v)| (instance_key(name, cfg), v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 11 §2: with plentiful rays (8 cores × 8 slots), the bottleneck pipeline of a
    /// pipeline-bound workload accepts a request in ≥ 95 % of the steady-state cycles, for
    /// several seeds: ASTC_DP on `texture-lean`, Oren-Nayar on `shade-lean`. Before each (pipe, core)
    /// result lane had its holding register (`core_scheduler`'s `route`), a result that lost the
    /// core's `crsp` to another pipe stalled its whole pipeline and ASTC_DP reached 0.90 here.
    #[test]
    fn bottleneck_pipelines_accept_a_request_in_95_percent_of_cycles() {
        for (workload, pipe) in [
            (Workload::TextureLean, "astc_dp"),
            (Workload::ShadeLean, "oren_nayar"),
        ] {
            for seed in [1, 5, 12] {
                let opts = SimOptions {
                    cfg: PbruCfg {
                        cores: 8,
                        slots: 8,
                        ..PbruCfg::default()
                    },
                    rays: 1536,
                    seed,
                    workload,
                    program: None,
                    texture: None,
                    sm_load: 0.0,
                    sm_targets: Vec::new(),
                    l1_latency: 4,
                    texture_miss_cycles: 0,
                    vcd: None,
                    watchdog: None,
                    eval: Eval::Active,
                    code: None,
                    record_stimulus: None,
                };
                let o = run(&opts).unwrap();
                assert_eq!((o.mismatches, o.rays_out), (0, 1536));
                let st = o.steady.as_ref().expect("a steady window");
                let u = st.utilization(pipe);
                assert!(
                    u >= 0.95,
                    "{workload:?} seed {seed}: {pipe} accepted a request in {:.1} % of cycles \
                     {}..{}",
                    100.0 * u,
                    st.from,
                    st.to
                );
            }
        }
    }
}
