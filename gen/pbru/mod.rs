//! `rendergen sim pbru`: builds the PBRU, runs a workload on it with the system models (SM,
//! TTU, L1; `rendergen_sim::models::pbru::system`), checks every finished ray against the
//! golden interpreter, and reports throughput and pipeline activity.

pub mod workload;

use rendergen_hdl::{Design, ElabErrors};
use rendergen_rtl::pbru::core::pbru_core;
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_rtl::pbru::scheduler::FromCore;
use rendergen_rtl::pbru::top::pbru_top_with;
use rendergen_sim::models::astc::AstcFile;
use rendergen_sim::models::pbru::system::{L1Cfg, Report, SmLoad, System, SystemCfg};
use rendergen_sim::Simulator;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;
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
    /// L1 latency in cycles.
    pub l1_latency: u32,
    /// If non-zero: every texture block misses in the L1 on first use and is present this many
    /// cycles later (rays park at the TTU when it exceeds MISS_THRESH).
    pub texture_miss_cycles: u64,
    /// Write a waveform here.
    pub vcd: Option<PathBuf>,
}

/// The engine: [`pbru_top_with`] with [`pbru_core`] cores.
pub fn build_engine(cfg: &PbruCfg) -> Result<Design, ElabErrors> {
    pbru_top_with(cfg, &mut |m, _c, to| {
        let out = pbru_core(m, cfg, to.assign, to.crsp, to.stop_valid, to.stop_slot);
        FromCore {
            busy: out.busy,
            creq: out.creq,
            done: out.done,
        }
    })
}

/// Builds the engine, runs the workload, and returns the report (mismatches included; the
/// caller decides whether they fail).
pub fn run(opts: &SimOptions) -> Result<Report, String> {
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
    let mut sim = Simulator::new(&design).map_err(|e| e.to_string())?;
    if let Some(path) = &opts.vcd {
        let f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        sim.trace_vcd(std::io::BufWriter::new(f))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    sim.reset(2);
    let sys_cfg = SystemCfg {
        seed: opts.seed,
        sm_load: SmLoad {
            prob: opts.sm_load,
            ..SmLoad::default()
        },
        pipes: opts.cfg.pipes.iter().map(|p| p.kind).collect(),
        l1: L1Cfg {
            latency: opts.l1_latency,
            misses: (0..setup.texture.blocks.len() as u32)
                .filter(|_| opts.texture_miss_cycles > 0)
                .map(|b| ((workload::TEXTURE_BASE + b) * 16, opts.texture_miss_cycles))
                .collect(),
        },
        ..SystemCfg::default()
    };
    let mut system = System::new(&sim, setup.mem, &sys_cfg).map_err(|e| e.to_string())?;
    for r in &setup.rays {
        (system.send(&r.ray, r.mode, r.ret_dst)).map_err(|e| e.to_string())?;
    }
    let report = system
        .run(&mut sim)
        .map_err(|e| format!("{e} (seed {})", opts.seed));
    sim.finish_vcd()
        .map_err(|e| format!("writing the VCD: {e}"))?;
    report.map(|r| rename_instances(r, &opts.cfg))
}

/// Names pipeline instances by type (`astc_a`) when a type has one instance, else `astc_a0`, ….
fn rename_instances(mut r: Report, cfg: &PbruCfg) -> Report {
    let count = |kind| cfg.pipes.iter().filter(|p| p.kind == kind).count();
    let mut out = BTreeMap::new();
    for (name, stats) in std::mem::take(&mut r.pipelines) {
        let kind = (cfg.pipes.iter()).find(|p| {
            name.strip_prefix(p.kind.name())
                .is_some_and(|i| i.parse::<u32>().is_ok())
        });
        let key = match kind {
            Some(p) if count(p.kind) == 1 => p.kind.name().to_string(),
            _ => name,
        };
        out.insert(key, stats);
    }
    r.pipelines = out;
    r
}

/// The report as one JSON object.
pub fn to_json(r: &Report) -> String {
    let mut s = format!(
        "{{\"rays_in\":{},\"rays_out\":{},\"cycles\":{},\"rays_per_cycle\":{:.6},\"mismatches\":{},\
         \"unchecked\":{},\"callouts\":{},\"parked\":{},\"sm_results\":{},\"pipelines\":{{",
        r.rays_in,
        r.rays_out,
        r.cycles,
        r.rays_out as f64 / r.cycles.max(1) as f64,
        r.mismatches,
        r.unchecked,
        r.callouts,
        r.parked,
        r.sm_results
    );
    for (i, (name, p)) in r.pipelines.iter().enumerate() {
        let sep = if i > 0 { "," } else { "" };
        let _ = write!(
            s,
            "{sep}\"{name}\":{{\"utilization\":{:.6},\"sm_grants\":{},\"core_grants\":{}}}",
            p.utilization, p.sm_grants, p.core_grants
        );
    }
    s + "}}"
}

/// The report as text.
pub fn to_text(r: &Report) -> String {
    let mut s = format!(
        "rays in {}, out {}, in {} cycles ({:.4} rays/cycle)\n\
         mismatches {} (unchecked {}), call-outs {}, parked {}, SM pipeline results {}\n",
        r.rays_in,
        r.rays_out,
        r.cycles,
        r.rays_out as f64 / r.cycles.max(1) as f64,
        r.mismatches,
        r.unchecked,
        r.callouts,
        r.parked,
        r.sm_results
    );
    for (name, p) in &r.pipelines {
        let _ = writeln!(
            s,
            "  {name:<12} utilization {:>6.2}%  sm grants {:>6}  core grants {:>6}",
            100.0 * p.utilization,
            p.sm_grants,
            p.core_grants
        );
    }
    for d in &r.mismatch_details {
        let _ = writeln!(s, "  mismatch: {d}");
    }
    s
}
