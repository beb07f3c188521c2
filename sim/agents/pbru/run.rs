//! [`System`]: every agent on one simulated `pbru` top, the routing of returned rays (parked →
//! TTU, call-out → SM, finished → scoreboard), and the check of each finished ray against the
//! golden model ([`golden_with`]).

use super::{L1Cfg, RayMode, Returned, SmLoad, SmPipes, SmRays, Ttu, L1};
use crate::engine::{OutputId, Simulator};
use crate::kit::TbError;
use crate::models::pbru::shading::CelTable;
use crate::models::pbru::{
    golden_with, passes_through_with, FinalRay, Memory, NoAnswer, PipeSetup, Ray,
};
use rendergen_isa::{Opcode, PipeKind, RayError, Reason};
use std::collections::{BTreeMap, HashMap};

/// Parameters of the system around the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemCfg {
    /// Seed of every agent's randomness.
    pub seed: u64,
    /// The L1 model.
    pub l1: L1Cfg,
    /// Direct SM pipeline requests.
    pub sm_load: SmLoad,
    /// The engine's pipeline instances, in order.
    pub pipes: Vec<PipeKind>,
    /// Pipe kinds whose instances hold the test fixture instead of their units (the golden
    /// models compute the fixture for them; `PbruCfg::fixture_kinds`).
    pub fixtures: Vec<PipeKind>,
    /// The cel table [`System::program_cel`] writes into every cel instance (and the golden
    /// models use); the reset table needs no writes.
    pub cel: CelTable,
    /// Probability of an idle cycle between rays the SM sends.
    pub ray_gap: f64,
    /// Probability of back-pressure on the ray outputs.
    pub out_stall: f64,
    /// Cycles without any ray, SM result or L1 request moving before the run counts as hung
    /// (the watchdog; [`default_watchdog`] scales it to the configured latencies).
    pub hang_cycles: u64,
}

impl Default for SystemCfg {
    fn default() -> Self {
        SystemCfg {
            seed: 1,
            l1: L1Cfg::default(),
            sm_load: SmLoad::default(),
            pipes: PipeKind::ALL.to_vec(),
            fixtures: Vec::new(),
            cel: CelTable::default(),
            ray_gap: 0.0,
            out_stall: 0.0,
            hang_cycles: 20_000,
        }
    }
}

/// The watchdog for a run whose L1 answers after `l1_latency` cycles and whose scripted
/// texture misses resolve after `miss_cycles`: 20,000 idle cycles beyond the longest wait the
/// configuration itself can cause.
pub fn default_watchdog(l1_latency: u64, miss_cycles: u64) -> u64 {
    20_000u64
        .saturating_add(l1_latency.saturating_mul(2))
        .saturating_add(miss_cycles.saturating_mul(2))
}

/// Activity of one pipeline instance, from its `perf_*` counters.
#[derive(Clone, Debug, PartialEq)]
pub struct PipeStats {
    /// Cycles with a request in flight / cycles.
    pub busy: f64,
    /// Requests granted to the SM side.
    pub sm_grants: u64,
    /// Requests granted to cores.
    pub core_grants: u64,
}

/// What a run did.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Report {
    /// Rays the SM sent (call-outs and resent parked rays not counted).
    pub rays_in: u64,
    /// Rays finished (not parked, not a call-out).
    pub rays_out: u64,
    /// Clock cycles.
    pub cycles: u64,
    /// Finished rays and SM results that differ from the golden models (also lost or
    /// duplicated ones).
    pub mismatches: u64,
    /// The first few mismatches, described.
    pub mismatch_details: Vec<String>,
    /// Finished rays the golden model has no answer for (undefined behaviour), not compared.
    pub unchecked: u64,
    /// Call-outs the SM ran.
    pub callouts: u64,
    /// Rays parked at the TTU.
    pub parked: u64,
    /// Direct SM pipeline results checked.
    pub sm_results: u64,
    /// Finished rays the engine ended with an error (a bad program), per kind, in the order of
    /// [`RayError::ALL`]. They count in `rays_out` and are checked like any other ray.
    pub faults: [u64; 4],
    /// The first few faulted rays, described (ray id, error, program counter).
    pub fault_details: Vec<String>,
    /// Per pipeline instance (`astc_a0`, …).
    pub pipelines: BTreeMap<String, PipeStats>,
}

/// The agents on one simulator.
pub struct System {
    /// The SM's ray side.
    pub sm: SmRays,
    /// The SM's direct pipeline requests.
    pub sm_pipes: SmPipes,
    /// The TTU.
    pub ttu: Ttu,
    /// The L1 (owns the memory).
    pub l1: L1,
    expected: HashMap<u32, Result<(FinalRay, u32), NoAnswer>>,
    /// Each ray as it last entered the engine (sent, resent after a park or a call-out).
    entered: HashMap<u32, Ray>,
    finished: HashMap<u32, FinalRay>,
    perf: Vec<(String, [OutputId; 3])>,
    report: Report,
    hang_cycles: u64,
    setup: PipeSetup,
}

impl System {
    /// Resolves every agent's ports on `sim` (a `pbru` top) with `mem` behind the L1.
    pub fn new(sim: &Simulator, mem: Memory, cfg: &SystemCfg) -> Result<System, TbError> {
        let s = cfg.seed;
        let setup = PipeSetup {
            fixtures: cfg.fixtures.clone(),
            cel: cfg.cel,
        };
        let mut perf = Vec::new();
        for p in sim.outputs() {
            if let Some(name) =
                (p.name.strip_prefix("perf_")).and_then(|n| n.strip_suffix("_sm_grants"))
            {
                let o = |k: &str| sim.output(&format!("perf_{name}_{k}"));
                perf.push((
                    name.to_string(),
                    [o("sm_grants")?, o("core_grants")?, o("busy")?],
                ));
            }
        }
        Ok(System {
            sm: SmRays::new(sim, s, cfg.ray_gap, cfg.out_stall)?,
            sm_pipes: SmPipes::new(sim, cfg.pipes.clone(), cfg.sm_load.clone(), s ^ 0x1234)?
                .with_setup(&setup),
            ttu: Ttu::new(sim, s ^ 0x77, cfg.out_stall)?,
            l1: L1::new(sim, mem, cfg.l1.clone(), s ^ 0x99)?,
            expected: HashMap::new(),
            entered: HashMap::new(),
            finished: HashMap::new(),
            perf,
            report: Report::default(),
            hang_cycles: cfg.hang_cycles,
            setup,
        })
    }

    /// Writes [`SystemCfg::cel`] into every cel instance by direct SM requests (`CEL` with
    /// immediate `0x80 | e`, ISA.md), each checked, and runs the clock until all are answered:
    /// call it before the first [`send`](Self::send), so that no ray reads the table before
    /// it is written. Nothing is sent for the reset table.
    pub fn program_cel(&mut self, sim: &mut Simulator) -> Result<(), TbError> {
        if self.setup.cel == CelTable::default() {
            return Ok(());
        }
        let cels = (self.sm_pipes.pipes().iter().enumerate())
            .filter(|(_, k)| **k == PipeKind::Cel)
            .map(|(i, _)| i as u32)
            .collect::<Vec<_>>();
        if cels.is_empty() {
            return Err(TbError::new(
                "a cel table to program, but the engine has no cel pipeline instance",
            ));
        }
        for pipe in cels {
            for (e, &word) in self.setup.cel.0.iter().enumerate() {
                (self.sm_pipes).queue(
                    pipe,
                    Opcode::Cel,
                    0x80 | e as u32,
                    vec![word],
                    vec![word],
                )?;
            }
        }
        let mut idle = 0;
        while self.sm_pipes.outstanding() > 0 {
            let before = self.sm_pipes.matched + self.sm_pipes.mismatch_count;
            self.cycle(sim)?;
            let after = self.sm_pipes.matched + self.sm_pipes.mismatch_count;
            idle = if after == before { idle + 1 } else { 0 };
            if idle > self.hang_cycles {
                return Err(TbError::new(format!(
                    "hung programming the cel table: {} SM requests unanswered after {idle} cycles",
                    self.sm_pipes.outstanding()
                )));
            }
        }
        Ok(())
    }

    /// Queues a ray from the SM (its id must be unique in the run) and computes its golden end
    /// result.
    pub fn send(&mut self, ray: &Ray, mode: RayMode, ret_dst: u32) -> Result<(), TbError> {
        if self.expected.contains_key(&ray.ray_id) {
            return Err(TbError::new(format!("ray id {} sent twice", ray.ray_id)));
        }
        let depth = self.sm.input.stack_depth();
        self.expected.insert(
            ray.ray_id,
            golden_with(&self.l1.mem, ray, depth, &self.setup),
        );
        self.entered.insert(ray.ray_id, ray.clone());
        self.report.rays_in += 1;
        self.sm.send(&self.l1.mem, ray, mode, ret_dst)
    }

    fn mismatch(&mut self, m: String) {
        self.report.mismatches += 1;
        if self.report.mismatch_details.len() < 8 {
            self.report.mismatch_details.push(m);
        }
    }

    /// A parked ray: its state must be one the interpreter passes through from where the ray
    /// last entered; from there on it is checked as a new entry. (Its PRNG restarts from the
    /// seed when it is resent, `rtl/isa/ISA.md`, so the result of an uninterrupted run no
    /// longer applies after a RANDSEL.)
    fn rebase_at_park(&mut self, parked: &FinalRay) {
        let id = parked.ray_id;
        let depth = self.sm.input.stack_depth();
        let Some(from) = self.entered.get(&id) else {
            return self.mismatch(format!("ray {id} parked but was never sent"));
        };
        let (mem, setup) = (&self.l1.mem, &self.setup);
        let on_path = passes_through_with(mem, from, depth, parked.pc(), &parked.stack, setup);
        if !on_path {
            let m = format!(
                "ray {id} parked off the interpreter's path: {parked:?}, entered as {from:?}"
            );
            self.mismatch(m);
        }
        let resumed = parked.resumed();
        self.expected
            .insert(id, golden_with(&self.l1.mem, &resumed, depth, &self.setup));
        self.entered.insert(id, resumed);
    }

    /// Routes a returned ray: call-out → SM, parked → TTU, else the scoreboard.
    fn route(&mut self, r: Returned) -> Result<(), TbError> {
        if r.ray.reason == Reason::Parked {
            self.rebase_at_park(&r.ray);
            self.ttu.hold(r);
            return Ok(());
        }
        if let Some(again) = self.sm.callout(&self.l1.mem, &r)? {
            self.entered.insert(again.ray_id, again);
            return Ok(());
        }
        let id = r.ray.ray_id;
        self.report.rays_out += 1;
        if let Reason::Error(e) = r.ray.reason {
            let k = RayError::ALL.iter().position(|x| *x == e).expect("listed");
            self.report.faults[k] += 1;
            if self.report.fault_details.len() < 8 {
                let pc = r.ray.pc();
                (self.report.fault_details).push(format!("ray {id}: {} at pc {pc:#x}", e.name()));
            }
        }
        if self.finished.insert(id, r.ray.clone()).is_some() {
            self.mismatch(format!("ray {id} finished twice"));
            return Ok(());
        }
        match self.expected.get(&id) {
            None => self.mismatch(format!("ray {id} was never sent")),
            Some(Err(_)) => self.report.unchecked += 1,
            Some(Ok((want, _))) if *want == r.ray => {}
            Some(Ok((want, _))) => {
                let m = format!("ray {id}: got {:?}, expected {want:?}", r.ray);
                self.mismatch(m)
            }
        }
        Ok(())
    }

    /// One clock cycle: every agent drives, every agent samples, returned rays are routed, the
    /// TTU releases rays whose data is present, and the clock steps.
    pub fn cycle(&mut self, sim: &mut Simulator) -> Result<(), TbError> {
        self.sm.drive(sim);
        self.ttu.drive(sim);
        self.l1.drive(sim);
        self.sm_pipes.drive(sim)?;
        let mut back = self.sm.sample(sim)?;
        back.extend(self.ttu.sample(sim)?);
        self.l1.sample(sim);
        self.sm_pipes.sample(sim);
        for r in back {
            self.route(r)?;
        }
        self.ttu.release(&self.l1)?;
        sim.step();
        Ok(())
    }

    /// True when every ray sent has finished and every SM request was answered.
    pub fn is_done(&self) -> bool {
        self.finished.len() == self.expected.len()
            && self.sm_pipes.outstanding() == 0
            && !self.sm_pipes.scripted_pending()
    }

    /// Runs until done (no new SM requests once every ray has finished); errors if nothing moves
    /// for `hang_cycles` or a protocol rule breaks.
    pub fn run(&mut self, sim: &mut Simulator) -> Result<Report, TbError> {
        self.run_with(sim, |_| Ok(()))
    }

    /// The rays that finished (not parked, not a call-out), by ray id, as they left the engine.
    pub fn finished(&self) -> &HashMap<u32, FinalRay> {
        &self.finished
    }

    /// [`System::run`], calling `after_cycle` after every clock cycle (e.g. to stop a VCD).
    pub fn run_with(
        &mut self,
        sim: &mut Simulator,
        mut after_cycle: impl FnMut(&mut Simulator) -> Result<(), TbError>,
    ) -> Result<Report, TbError> {
        let (mut last, mut idle) = (self.progress(), 0);
        while !self.is_done() {
            if self.finished.len() == self.expected.len() && !self.sm_pipes.scripted_pending() {
                self.sm_pipes.stop();
            }
            self.cycle(sim)?;
            after_cycle(sim)?;
            let now = self.progress();
            idle = if now == last { idle + 1 } else { 0 };
            last = now;
            if idle > self.hang_cycles {
                return Err(self.hung(sim));
            }
        }
        self.sm.output.protocol_result()?;
        self.ttu.output.protocol_result()?;
        Ok(self.report(sim))
    }

    /// What the watchdog watches: rays taken in (from the SM and the TTU), rays returned
    /// (finished and parked), SM results, L1 requests. Nothing changing for the watchdog's
    /// cycles means a hang.
    pub fn progress(&self) -> [u64; 4] {
        [
            self.sm.input.sent() + self.ttu.input.sent(),
            self.report.rays_out + self.ttu.parked + self.sm.callouts,
            self.sm_pipes.matched + self.sm_pipes.mismatch_count,
            self.l1.requests,
        ]
    }

    /// Rays sent and rays finished so far (`Report::rays_in`, `Report::rays_out`), without
    /// building a [`Report`] (no allocation: callable every cycle).
    pub fn ray_counts(&self) -> (u64, u64) {
        (self.report.rays_in, self.report.rays_out)
    }

    /// The watchdog: idle cycles before [`System::hung`].
    pub fn hang_cycles(&self) -> u64 {
        self.hang_cycles
    }

    /// The watchdog's error: what was waiting on what when it fired.
    pub fn hung(&self, sim: &Simulator) -> TbError {
        let inside = self.progress()[0].saturating_sub(self.progress()[1]);
        TbError::new(format!(
            "hung at cycle {}: no ray entered or left the engine, no SM result came back and no L1 \
             request was made for {} cycles (the watchdog: --watchdog); {} of {} rays finished, \
             {} inside the engine, {} queued at the SM, {} held at the TTU waiting for texture data, \
             {} L1 answers pending, {} SM pipeline requests unanswered",
            sim.cycle(),
            self.hang_cycles,
            self.finished.len(),
            self.expected.len(),
            inside,
            self.sm.input.pending(),
            self.ttu.in_flight(),
            self.l1.pending(),
            self.sm_pipes.outstanding()
        ))
    }

    /// The report so far (reads the performance counters).
    pub fn report(&mut self, sim: &mut Simulator) -> Report {
        let mut r = self.report.clone();
        r.cycles = sim.cycle();
        r.callouts = self.sm.callouts;
        r.parked = self.ttu.parked;
        r.sm_results = self.sm_pipes.matched + self.sm_pipes.mismatch_count;
        r.mismatches += self.sm_pipes.mismatch_count;
        r.mismatch_details
            .extend(self.sm_pipes.mismatches.iter().cloned());
        let missing = self.expected.len() - self.finished.len();
        r.mismatches += missing as u64;
        for (name, [sm, core, busy]) in &self.perf {
            let busy = sim.peek(*busy);
            r.pipelines.insert(
                name.clone(),
                PipeStats {
                    busy: busy as f64 / r.cycles.max(1) as f64,
                    sm_grants: sim.peek(*sm),
                    core_grants: sim.peek(*core),
                },
            );
        }
        r
    }
}
