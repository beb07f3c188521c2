//! The report of `rendergen sim pbru`, as JSON and as text.
//!
//! A pipeline instance's `utilization` is the fraction of cycles in which it accepted a
//! request, `(sm_grants + core_grants) / cycles` (at most 1.0: one request per clock); `busy` is
//! the fraction of cycles in which it held at least one request in flight
//! (`perf_<instance>_busy / cycles`), which a pipeline of latency L reaches at 1/L of full rate.
//! `steady_utilization` is the utilization over [`Steady`]'s window, the middle half of the run
//! (`steady_window`: its first and last cycle), which leaves out the cold start and the drain.

use rendergen_isa::RayError;
use rendergen_sim::agents::pbru::{PipeStats, Report};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::ops::Deref;

/// The middle half of a run (from the cycle the first quarter of the rays had finished to the
/// cycle three quarters had): the steady state, without the cold start and the drain.
#[derive(Clone, Debug, PartialEq)]
pub struct Steady {
    /// First cycle of the window.
    pub from: u64,
    /// Last cycle of the window.
    pub to: u64,
    /// Requests each instance accepted in the window (SM and core).
    pub grants: BTreeMap<String, u64>,
}

impl Steady {
    /// Requests accepted per cycle by `instance` in the window.
    pub fn utilization(&self, instance: &str) -> f64 {
        self.grants.get(instance).copied().unwrap_or(0) as f64 / (self.to - self.from) as f64
    }
}

/// A run's report with the rays' average time in the engine.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The agents' report (`pipelines.*.busy` there is the busy fraction).
    pub report: Report,
    /// The steady-state window (`None` when the run is too short to have one).
    pub steady: Option<Steady>,
    /// Σ over cycles of the rays inside the engine (taken in, not yet returned).
    pub ray_cycles: u64,
    /// Passes through the engine: rays returned finished, parked or for a call-out.
    pub passes: u64,
    /// Wall-clock seconds of the simulation loop (agents included).
    pub seconds: f64,
    /// The simulator's evaluation mode and activity counters.
    pub eval: rendergen_sim::Eval,
    /// Activity counters (zero under full evaluation).
    pub activity: rendergen_sim::ActivityStats,
}

impl Outcome {
    /// One line on the simulation's speed: cycles per second, mode, active fraction.
    pub fn speed_line(&self) -> String {
        let a = &self.activity;
        let active = if a.groups > 0 && a.settles > 0 {
            format!(
                ", {:.1} % of {} groups evaluated per settle",
                100.0 * a.evaluated as f64 / (a.settles as f64 * a.groups as f64),
                a.groups
            )
        } else {
            String::new()
        };
        format!(
            "simulated {} cycles in {:.3} s ({:.0} cycles/s, {:?} evaluation{active})",
            self.report.cycles,
            self.seconds,
            self.report.cycles as f64 / self.seconds.max(1e-9),
            self.eval
        )
    }
}

impl Deref for Outcome {
    type Target = Report;
    fn deref(&self) -> &Report {
        &self.report
    }
}

impl Outcome {
    /// Rays finished per cycle.
    pub fn rays_per_cycle(&self) -> f64 {
        self.rays_out as f64 / self.cycles.max(1) as f64
    }

    /// Average rays inside the engine per cycle.
    pub fn in_flight(&self) -> f64 {
        self.ray_cycles as f64 / self.cycles.max(1) as f64
    }

    /// Average cycles of one pass through the engine (intake handshake to return handshake).
    pub fn latency(&self) -> f64 {
        self.ray_cycles as f64 / self.passes.max(1) as f64
    }

    /// Rays ended by an error of their program.
    pub fn fault_count(&self) -> u64 {
        self.faults.iter().sum()
    }

    /// The faults as `3 (stack_underflow 2, unknown_opcode 1)`, or `0`.
    pub fn faults_text(&self) -> String {
        let kinds: Vec<String> = (RayError::ALL.iter().zip(self.faults))
            .filter(|(_, n)| *n > 0)
            .map(|(e, n)| format!("{} {n}", e.name()))
            .collect();
        match kinds.is_empty() {
            true => "0".into(),
            false => format!("{} ({})", self.fault_count(), kinds.join(", ")),
        }
    }

    /// Requests accepted per cycle by instance `p`: `(sm_grants + core_grants) / cycles`.
    pub fn utilization(&self, p: &PipeStats) -> f64 {
        (p.sm_grants + p.core_grants) as f64 / self.cycles.max(1) as f64
    }
}

/// The report as one JSON object.
pub fn to_json(o: &Outcome) -> String {
    let r = &o.report;
    let mut s = format!(
        "{{\"rays_in\":{},\"rays_out\":{},\"cycles\":{},\"rays_per_cycle\":{:.6},\
         \"rays_in_flight\":{:.4},\"latency_per_ray\":{:.3},\"mismatches\":{},\
         \"unchecked\":{},\"callouts\":{},\"parked\":{},\"sm_results\":{},\"faults\":{{\"total\":{}",
        r.rays_in,
        r.rays_out,
        r.cycles,
        o.rays_per_cycle(),
        o.in_flight(),
        o.latency(),
        r.mismatches,
        r.unchecked,
        r.callouts,
        r.parked,
        r.sm_results,
        o.fault_count()
    );
    for (e, n) in RayError::ALL.iter().zip(r.faults) {
        let _ = write!(s, ",\"{}\":{n}", e.name());
    }
    s += "},\"pipelines\":{";
    for (i, (name, p)) in r.pipelines.iter().enumerate() {
        let sep = if i > 0 { "," } else { "" };
        let _ = write!(
            s,
            "{sep}\"{name}\":{{\"utilization\":{:.6},\"busy\":{:.6},\"sm_grants\":{},\
             \"core_grants\":{}",
            o.utilization(p),
            p.busy,
            p.sm_grants,
            p.core_grants
        );
        if let Some(st) = &o.steady {
            let _ = write!(s, ",\"steady_utilization\":{:.6}", st.utilization(name));
        }
        s += "}";
    }
    s += "}";
    if let Some(st) = &o.steady {
        let _ = write!(s, ",\"steady_window\":[{},{}]", st.from, st.to);
    }
    s + "}"
}

/// The report as text.
pub fn to_text(o: &Outcome) -> String {
    let r = &o.report;
    let mut s = format!(
        "rays in {}, out {}, in {} cycles ({:.4} rays/cycle)\n\
         rays in flight {:.2} on average, {:.1} cycles per pass through the engine\n\
         mismatches {} (unchecked {}), call-outs {}, parked {}, SM pipeline results {}\n\
         rays ended by a fault {}\n",
        r.rays_in,
        r.rays_out,
        r.cycles,
        o.rays_per_cycle(),
        o.in_flight(),
        o.latency(),
        r.mismatches,
        r.unchecked,
        r.callouts,
        r.parked,
        r.sm_results,
        o.faults_text()
    );
    if let Some(st) = &o.steady {
        let _ = writeln!(
            s,
            "steady state: cycles {}..{} (the middle half of the rays finishing)",
            st.from, st.to
        );
    }
    for (name, p) in &r.pipelines {
        let steady = match &o.steady {
            Some(st) => format!("  steady {:>6.2}%", 100.0 * st.utilization(name)),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "  {name:<12} utilization {:>6.2}%{steady}  busy {:>6.2}%  sm grants {:>6}  core grants {:>6}",
            100.0 * o.utilization(p),
            100.0 * p.busy,
            p.sm_grants,
            p.core_grants
        );
    }
    for d in &r.fault_details {
        let _ = writeln!(s, "  fault: {d}");
    }
    for d in &r.mismatch_details {
        let _ = writeln!(s, "  mismatch: {d}");
    }
    s
}
