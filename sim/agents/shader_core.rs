//! The driver of a simulated shader core (`rtl/shader`, catalogue `shader_core`): loads a
//! program, launches the warps (each launch's non-zero registers, then its start; the core
//! picks the slot and the agent learns it from `launch_slot`) as the core takes them, answers
//! every port from an [`Env`] (the interpreter's trait) with seeded random latency, reordering
//! and back-pressure, collects exports and each warp's end, and returns one [`WarpOutcome`] per
//! launch plus [`CoreStats`].
//!
//! The simulator never sees generator code: the agent takes the core's [`Design`] and its
//! [`CoreShape`] (checked against the port widths) and resolves every port once.
//!
//! With several warps in flight the [`Env`] sees their requests interleaved; each warp's own
//! requests keep the interpreter's order (lane order, quad order for `tex`).

use crate::engine::{InputId, OutputId, SimError, Simulator};
use crate::kit::Rng;
use crate::models::shader::{Env, Launch, SpecRequest, TexRequest};
use rendergen_hdl::Design;
use rendergen_shader_isa::WarpError;
use std::collections::BTreeMap;

/// The parameters of the core the agent drives (the generator's `quads`, `warps`, `regs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreShape {
    /// Quads per warp.
    pub quads: usize,
    /// Warp slots.
    pub warps: usize,
    /// Registers per lane.
    pub regs: usize,
}

/// Timing of the agent's answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentCfg {
    /// Seed of every random choice.
    pub seed: u64,
    /// Fewest cycles from a request to its answer (≥ 1).
    pub min_latency: u64,
    /// Most cycles from a request to its answer.
    pub max_latency: u64,
    /// Probability of holding `ready` low on a request or export stream in a cycle.
    pub stall: f64,
    /// Probability of not offering a due answer in a cycle.
    pub gap: f64,
    /// Give up after this many cycles (a hang of the core).
    pub max_cycles: u64,
    /// Probability of not offering the next launch transfer in a cycle.
    pub launch_gap: f64,
}

impl Default for AgentCfg {
    fn default() -> Self {
        AgentCfg {
            seed: 1,
            min_latency: 1,
            max_latency: 1,
            stall: 0.0,
            gap: 0.0,
            max_cycles: 2_000_000,
            launch_gap: 0.0,
        }
    }
}

/// What one launch left, in the interpreter's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpOutcome {
    /// Per lane, the exported words by location.
    pub exports: Vec<BTreeMap<u32, Vec<u32>>>,
    /// The error and the pc it names, `None` if the warp reached `end`.
    pub error: Option<(WarpError, u32)>,
    /// Instructions executed (the faulting one included).
    pub executed: u64,
}

/// Statistics of a run.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct CoreStats {
    /// Cycles from the first launch to the last warp's end.
    pub cycles: u64,
    /// Warp instructions issued.
    pub issued: u64,
    /// `issued / cycles`.
    pub ipc: f64,
    /// Cycles from the first issue to the last, inclusive.
    pub issue_window: u64,
    /// `issued / issue_window`: the issue rate once warps run.
    pub window_ipc: f64,
    /// Cycles from the first launch transfer offered to the first issue (launch latency of
    /// the first warp).
    pub first_issue: u64,
    /// Cycles in which a texture request was taken.
    pub tex_requests: u64,
}

/// A stream into the core: valid, ready, payload fields.
struct In<const N: usize> {
    valid: InputId,
    ready: OutputId,
    fields: [InputId; N],
}

/// A stream out of the core.
struct Out<const N: usize> {
    valid: OutputId,
    ready: InputId,
    fields: [OutputId; N],
}

fn input<const N: usize>(
    sim: &Simulator,
    name: &str,
    fields: [&str; N],
) -> Result<In<N>, SimError> {
    let mut ids = [InputId(0); N];
    for (id, f) in ids.iter_mut().zip(fields) {
        *id = sim.input(&format!("{name}_{f}"))?;
    }
    Ok(In {
        valid: sim.input(&format!("{name}_valid"))?,
        ready: sim.output(&format!("{name}_ready"))?,
        fields: ids,
    })
}

fn output<const N: usize>(
    sim: &Simulator,
    name: &str,
    fields: [&str; N],
) -> Result<Out<N>, SimError> {
    let mut ids = [OutputId(0); N];
    for (id, f) in ids.iter_mut().zip(fields) {
        *id = sim.output(&format!("{name}_{f}"))?;
    }
    Ok(Out {
        valid: sim.output(&format!("{name}_valid"))?,
        ready: sim.input(&format!("{name}_ready"))?,
        fields: ids,
    })
}

fn vec_in(sim: &Simulator, name: &str, n: usize) -> Result<Vec<InputId>, SimError> {
    (0..n).map(|i| sim.input(&format!("{name}_{i}"))).collect()
}

fn vec_out(sim: &Simulator, name: &str, n: usize) -> Result<Vec<OutputId>, SimError> {
    (0..n).map(|i| sim.output(&format!("{name}_{i}"))).collect()
}

/// An answer waiting for its cycle.
#[derive(Clone, Copy, Debug)]
struct Answer {
    due: u64,
    slot: u64,
    /// Lane (ldg, spec) or quad (tex).
    index: u64,
    words: [u32; 16],
}

/// One answer stream: answers not yet offered and the one being offered.
#[derive(Default)]
struct AnswerQueue {
    waiting: Vec<Answer>,
    offered: Option<Answer>,
}

impl AnswerQueue {
    /// Picks a due answer at random if none is offered (answers overtake each other).
    fn choose(&mut self, now: u64, rng: &mut Rng, gap: f64) {
        if self.offered.is_some() || self.waiting.is_empty() || rng.chance(gap) {
            return;
        }
        let due = self.waiting.iter().filter(|a| a.due <= now).count();
        if due == 0 {
            return;
        }
        let mut k = rng.below(due as u64) as usize;
        let i = (0..self.waiting.len())
            .find(|&i| {
                if self.waiting[i].due <= now {
                    if k == 0 {
                        return true;
                    }
                    k -= 1;
                }
                false
            })
            .expect("a due answer");
        self.offered = Some(self.waiting.swap_remove(i));
    }
}

/// The stream rule on an output the agent stalled: the next cycle offers the same payload.
#[derive(Clone, Copy)]
struct Held<const N: usize> {
    stalled: bool,
    payload: [u64; N],
}

impl<const N: usize> Held<N> {
    fn new() -> Self {
        Held {
            stalled: false,
            payload: [0; N],
        }
    }

    /// Checks `valid`/`payload` against a stall in the previous cycle, then records this one.
    fn check(
        &mut self,
        name: &str,
        valid: bool,
        taken: bool,
        payload: [u64; N],
    ) -> Result<(), String> {
        if self.stalled && (!valid || payload != self.payload) {
            return Err(format!(
                "stream `{name}` broke the stream rules: a stalled item was withdrawn or changed"
            ));
        }
        self.stalled = valid && !taken;
        self.payload = payload;
        Ok(())
    }
}

/// A simulated shader core and the agent around it.
pub struct ShaderCoreAgent {
    sim: Simulator,
    shape: CoreShape,
    prog: In<2>,
    launch: In<6>,
    launch_data: Vec<InputId>,
    launch_slot: OutputId,
    ldg_req: Out<3>,
    stg_req: Out<4>,
    ldu_req: Out<2>,
    /// The texture port, absent in a design that answers `tex` inside (e.g. `tex_system`).
    tex: Option<TexPorts>,
    spec_req: Out<6>,
    export: Out<4>,
    export_data: Vec<OutputId>,
    done: Out<4>,
    ldg_resp: In<3>,
    spec_resp: In<3>,
    ldu_resp: In<2>,
    issue: OutputId,
}

/// The core's texture port.
struct TexPorts {
    req: Out<4>,
    coords: Vec<OutputId>,
    resp: In<2>,
    texels: Vec<InputId>,
}

/// Ports of a design beyond the core's own (a texture unit's memory, say), driven by the
/// caller of [`ShaderCoreAgent::run_with`] once per cycle.
pub trait ExtraPorts {
    /// Called every cycle after the agent has poked its inputs and before the clock edge:
    /// poke this cycle's inputs, then observe this cycle's transfers.
    fn cycle(&mut self, sim: &mut Simulator) -> Result<(), String>;
}

/// No extra ports.
pub struct NoExtraPorts;

impl ExtraPorts for NoExtraPorts {
    fn cycle(&mut self, _sim: &mut Simulator) -> Result<(), String> {
        Ok(())
    }
}

impl ShaderCoreAgent {
    /// Compiles `design` (a `shader_core` of `shape`) and resolves its ports.
    pub fn new(design: &Design, shape: CoreShape) -> Result<ShaderCoreAgent, String> {
        let sim = Simulator::new(design).map_err(|e| e.to_string())?;
        let lanes = 4 * shape.quads;
        let e = |e: SimError| e.to_string();
        let agent = ShaderCoreAgent {
            prog: input(&sim, "prog", ["addr", "word"]).map_err(e)?,
            launch: input(
                &sim,
                "launch",
                ["write", "reg", "last", "pc", "helpers", "warp_id"],
            )
            .map_err(e)?,
            launch_data: vec_in(&sim, "launch_data", lanes).map_err(e)?,
            launch_slot: sim.output("launch_slot").map_err(e)?,
            ldg_req: output(&sim, "ldg_req", ["slot", "lane", "addr"]).map_err(e)?,
            stg_req: output(&sim, "stg_req", ["slot", "lane", "addr", "data"]).map_err(e)?,
            ldu_req: output(&sim, "ldu_req", ["slot", "index"]).map_err(e)?,
            tex: match sim.output("tex_req_valid") {
                Err(_) => None,
                Ok(_) => Some(TexPorts {
                    req: output(&sim, "tex_req", ["slot", "quad", "sampler", "mask"]).map_err(e)?,
                    coords: vec_out(&sim, "tex_req_coords", 8).map_err(e)?,
                    resp: input(&sim, "tex_resp", ["slot", "quad"]).map_err(e)?,
                    texels: vec_in(&sim, "tex_resp_texels", 16).map_err(e)?,
                }),
            },
            spec_req: output(
                &sim,
                "spec_req",
                ["slot", "lane", "func", "a", "b", "helper"],
            )
            .map_err(e)?,
            export: output(&sim, "export", ["slot", "lane", "loc", "count"]).map_err(e)?,
            export_data: vec_out(&sim, "export_data", 4).map_err(e)?,
            done: output(&sim, "done", ["slot", "code", "pc", "executed"]).map_err(e)?,
            ldg_resp: input(&sim, "ldg_resp", ["slot", "lane", "data"]).map_err(e)?,
            spec_resp: input(&sim, "spec_resp", ["slot", "lane", "data"]).map_err(e)?,
            ldu_resp: input(&sim, "ldu_resp", ["slot", "data"]).map_err(e)?,
            issue: sim.output("issue").map_err(e)?,
            sim,
            shape,
        };
        let helpers = agent.sim.inputs()[agent.launch.fields[4].0 as usize].width as usize;
        if helpers != lanes {
            return Err(format!(
                "the design has {helpers} lanes per warp, the shape says {lanes}"
            ));
        }
        Ok(agent)
    }

    /// The simulator (for VCD tracing and co-simulation recordings).
    pub fn sim_mut(&mut self) -> &mut Simulator {
        &mut self.sim
    }

    /// Resets the core, loads `program`, runs every launch (in order, as the core takes them;
    /// each writes its non-zero registers, the rest read 0) and returns each launch's outcome, in launch order, and the statistics.
    pub fn run(
        &mut self,
        cfg: &AgentCfg,
        program: &[u64],
        launches: &[Launch],
        env: &mut dyn Env,
    ) -> Result<(Vec<WarpOutcome>, CoreStats), String> {
        self.run_with(cfg, program, launches, env, &mut NoExtraPorts)
    }

    /// [`ShaderCoreAgent::run`] with `extra` driving the design's other ports every cycle.
    pub fn run_with<X: ExtraPorts>(
        &mut self,
        cfg: &AgentCfg,
        program: &[u64],
        launches: &[Launch],
        env: &mut dyn Env,
        extra: &mut X,
    ) -> Result<(Vec<WarpOutcome>, CoreStats), String> {
        let shape = self.shape;
        let lanes = 4 * shape.quads;
        for l in launches {
            if l.quads != shape.quads {
                return Err(format!(
                    "a launch of {} quads on a core of {}",
                    l.quads, shape.quads
                ));
            }
        }
        let mut rng = Rng::new(cfg.seed);
        let sim = &mut self.sim;
        sim.reset(2);
        // Program.
        for (addr, &word) in program.iter().enumerate() {
            sim.poke(self.prog.valid, 1);
            sim.poke(self.prog.fields[0], addr as u64);
            sim.poke(self.prog.fields[1], word);
            if sim.peek(self.prog.ready) != 1 {
                return Err("the core refuses program words while idle".into());
            }
            sim.step();
        }
        sim.poke(self.prog.valid, 0);

        let mut results: Vec<WarpOutcome> = launches
            .iter()
            .map(|_| WarpOutcome {
                exports: vec![BTreeMap::new(); lanes],
                error: None,
                executed: 0,
            })
            .collect();
        let mut finished = vec![false; launches.len()];
        let mut slot_of: Vec<Option<usize>> = vec![None; shape.warps];
        // Per launch, the registers it writes: those with a non-zero word in some lane.
        let writes: Vec<Vec<usize>> = launches
            .iter()
            .map(|l| {
                let n = l
                    .regs
                    .iter()
                    .map(Vec::len)
                    .max()
                    .unwrap_or(0)
                    .min(shape.regs);
                (0..n)
                    .filter(|&r| l.regs.iter().any(|x| x.get(r).is_some_and(|&v| v != 0)))
                    .collect()
            })
            .collect();
        let mut next_launch = 0usize;
        // The next transfer of launch `next_launch`.
        let mut transfer = 0usize;
        // A launch transfer offered and not taken stays offered (stream rules).
        let mut launch_stalled = false;
        let (mut ldg_q, mut spec_q, mut ldu_q, mut tex_q) = (
            AnswerQueue::default(),
            AnswerQueue::default(),
            AnswerQueue::default(),
            AnswerQueue::default(),
        );
        let mut left = launches.len();
        let start = sim.cycle();
        let mut issued = 0u64;
        let mut tex_requests = 0u64;
        let mut held = ([Held::<6>::new(); 5], Held::<12>::new(), Held::<8>::new());
        let (mut first_issue, mut last_issue) = (None, 0u64);
        let latency = |rng: &mut Rng| {
            cfg.min_latency.max(1) + rng.below(cfg.max_latency.saturating_sub(cfg.min_latency) + 1)
        };
        while left > 0 {
            let now = sim.cycle() - start;
            if now > cfg.max_cycles {
                return Err(format!(
                    "the core hung: {left} warps unfinished after {now} cycles"
                ));
            }
            // The next launch transfer: a register, or the start.
            let mut launch_last = false;
            let launch_on =
                next_launch < launches.len() && (launch_stalled || !rng.chance(cfg.launch_gap));
            if launch_on {
                let l = &launches[next_launch];
                let regs = &writes[next_launch];
                launch_last = transfer + 1 >= regs.len();
                let write = regs.get(transfer).copied();
                sim.poke(self.launch.fields[0], write.is_some() as u64);
                sim.poke(self.launch.fields[1], write.unwrap_or(0) as u64);
                for (lane, &id) in self.launch_data.iter().enumerate() {
                    let v = write
                        .and_then(|r| l.regs.get(lane).and_then(|x| x.get(r)))
                        .copied()
                        .unwrap_or(0);
                    sim.poke(id, v as u64);
                }
                sim.poke(self.launch.fields[2], launch_last as u64);
                sim.poke(self.launch.fields[3], 0);
                sim.poke(self.launch.fields[4], l.helpers);
                sim.poke(self.launch.fields[5], l.warp_id as u64);
            }
            sim.poke(self.launch.valid, launch_on as u64);
            // Answers.
            ldg_q.choose(now, &mut rng, cfg.gap);
            spec_q.choose(now, &mut rng, cfg.gap);
            ldu_q.choose(now, &mut rng, cfg.gap);
            tex_q.choose(now, &mut rng, cfg.gap);
            for (q, port) in [(&ldg_q, &self.ldg_resp), (&spec_q, &self.spec_resp)] {
                sim.poke(port.valid, q.offered.is_some() as u64);
                if let Some(a) = q.offered {
                    sim.poke(port.fields[0], a.slot);
                    sim.poke(port.fields[1], a.index);
                    sim.poke(port.fields[2], a.words[0] as u64);
                }
            }
            sim.poke(self.ldu_resp.valid, ldu_q.offered.is_some() as u64);
            if let Some(a) = ldu_q.offered {
                sim.poke(self.ldu_resp.fields[0], a.slot);
                sim.poke(self.ldu_resp.fields[1], a.words[0] as u64);
            }
            if let Some(t) = &self.tex {
                sim.poke(t.resp.valid, tex_q.offered.is_some() as u64);
                if let Some(a) = tex_q.offered {
                    sim.poke(t.resp.fields[0], a.slot);
                    sim.poke(t.resp.fields[1], a.index);
                    for (&id, &w) in t.texels.iter().zip(&a.words) {
                        sim.poke(id, w as u64);
                    }
                }
            }
            // Readiness of the request streams.
            let mut take = [false; 7];
            for (t, ready) in take.iter_mut().zip([
                Some(self.ldg_req.ready),
                Some(self.stg_req.ready),
                Some(self.ldu_req.ready),
                self.tex.as_ref().map(|t| t.req.ready),
                Some(self.spec_req.ready),
                Some(self.export.ready),
                Some(self.done.ready),
            ]) {
                *t = !rng.chance(cfg.stall);
                if let Some(ready) = ready {
                    sim.poke(ready, *t as u64);
                }
            }
            extra.cycle(sim)?;
            // Transfers into the core.
            let launch_taken = launch_on && sim.peek(self.launch.ready) == 1;
            launch_stalled = launch_on && !launch_taken;
            if launch_taken {
                if launch_last {
                    let slot = sim.peek(self.launch_slot) as usize;
                    let owner = slot_of
                        .get_mut(slot)
                        .ok_or(format!("a launch into slot {slot} of {}", shape.warps))?;
                    if owner.is_some() {
                        return Err(format!("a launch into busy slot {slot}"));
                    }
                    *owner = Some(next_launch);
                    next_launch += 1;
                    transfer = 0;
                } else {
                    transfer += 1;
                }
            }
            for (q, ready) in [
                (&mut ldg_q, Some(self.ldg_resp.ready)),
                (&mut spec_q, Some(self.spec_resp.ready)),
                (&mut ldu_q, Some(self.ldu_resp.ready)),
                (&mut tex_q, self.tex.as_ref().map(|t| t.resp.ready)),
            ] {
                if let Some(ready) = ready {
                    if q.offered.is_some() && sim.peek(ready) == 1 {
                        q.offered = None;
                    }
                }
            }
            // Requests out of the core.
            let peek = |sim: &mut Simulator, id: OutputId| sim.peek(id);
            {
                let small: [(&str, OutputId, &[OutputId], bool); 5] = [
                    ("ldg_req", self.ldg_req.valid, &self.ldg_req.fields, take[0]),
                    ("stg_req", self.stg_req.valid, &self.stg_req.fields, take[1]),
                    ("ldu_req", self.ldu_req.valid, &self.ldu_req.fields, take[2]),
                    (
                        "spec_req",
                        self.spec_req.valid,
                        &self.spec_req.fields[..4],
                        take[4],
                    ),
                    ("done", self.done.valid, &self.done.fields, take[6]),
                ];
                for (h, (name, valid, fields, taken)) in held.0.iter_mut().zip(small) {
                    let mut p = [0u64; 6];
                    for (x, &id) in p.iter_mut().zip(fields) {
                        *x = peek(sim, id);
                    }
                    let v = peek(sim, valid) == 1;
                    h.check(name, v, taken, p)?;
                }
                if let Some(t) = &self.tex {
                    let mut p = [0u64; 12];
                    for (x, &id) in p.iter_mut().zip(t.req.fields.iter().chain(&t.coords)) {
                        *x = peek(sim, id);
                    }
                    let v = peek(sim, t.req.valid) == 1;
                    held.1.check("tex_req", v, take[3], p)?;
                }
                let mut p = [0u64; 8];
                for (x, &id) in p
                    .iter_mut()
                    .zip(self.export.fields.iter().chain(&self.export_data))
                {
                    *x = peek(sim, id);
                }
                let v = peek(sim, self.export.valid) == 1;
                held.2.check("export", v, take[5], p)?;
            }
            if take[0] && peek(sim, self.ldg_req.valid) == 1 {
                let f = self.ldg_req.fields.map(|id| peek(sim, id));
                let v = env.load(f[1] as usize, f[2] as u32);
                let mut words = [0; 16];
                words[0] = v;
                ldg_q.waiting.push(Answer {
                    due: now + latency(&mut rng),
                    slot: f[0],
                    index: f[1],
                    words,
                });
            }
            if take[1] && peek(sim, self.stg_req.valid) == 1 {
                let f = self.stg_req.fields.map(|id| peek(sim, id));
                env.store(f[1] as usize, f[2] as u32, f[3] as u32);
            }
            if take[2] && peek(sim, self.ldu_req.valid) == 1 {
                let f = self.ldu_req.fields.map(|id| peek(sim, id));
                let mut words = [0; 16];
                words[0] = env.uniform(f[1] as u32);
                ldu_q.waiting.push(Answer {
                    due: now + latency(&mut rng),
                    slot: f[0],
                    index: 0,
                    words,
                });
            }
            let tex_taken = self
                .tex
                .as_ref()
                .filter(|t| take[3] && peek(sim, t.req.valid) == 1);
            if let Some(t) = tex_taken {
                tex_requests += 1;
                let f = t.req.fields.map(|id| peek(sim, id));
                let mut coords = [[0u32; 2]; 4];
                for (i, &id) in t.coords.iter().enumerate() {
                    coords[i / 2][i % 2] = peek(sim, id) as u32;
                }
                let texels = env.texture(&TexRequest {
                    quad: f[1] as usize,
                    sampler: f[2] as u32,
                    coords,
                    mask: f[3] as u8,
                });
                let mut words = [0; 16];
                for (k, t) in texels.iter().enumerate() {
                    words[4 * k..4 * k + 4].copy_from_slice(t);
                }
                tex_q.waiting.push(Answer {
                    due: now + latency(&mut rng),
                    slot: f[0],
                    index: f[1],
                    words,
                });
            }
            if take[4] && peek(sim, self.spec_req.valid) == 1 {
                let f = self.spec_req.fields.map(|id| peek(sim, id));
                let mut words = [0; 16];
                words[0] = env.special(&SpecRequest {
                    lane: f[1] as usize,
                    func: f[2] as u32,
                    a: f[3] as u32,
                    b: f[4] as u32,
                    helper: f[5] == 1,
                });
                spec_q.waiting.push(Answer {
                    due: now + latency(&mut rng),
                    slot: f[0],
                    index: f[1],
                    words,
                });
            }
            if take[5] && peek(sim, self.export.valid) == 1 {
                let f = self.export.fields.map(|id| peek(sim, id));
                let li = slot_of[f[0] as usize].ok_or("an export from a free slot")?;
                let n = (f[3] as usize).min(4);
                let words: Vec<u32> = self.export_data[..n]
                    .iter()
                    .map(|&id| peek(sim, id) as u32)
                    .collect();
                results[li].exports[f[1] as usize].insert(f[2] as u32, words);
            }
            if take[6] && peek(sim, self.done.valid) == 1 {
                let f = self.done.fields.map(|id| peek(sim, id));
                let slot = f[0] as usize;
                let li = slot_of[slot]
                    .take()
                    .ok_or("a done record from a free slot")?;
                if finished[li] {
                    return Err(format!("launch {li} finished twice"));
                }
                finished[li] = true;
                left -= 1;
                results[li].executed = f[3];
                results[li].error = match f[1] {
                    0 => None,
                    c => Some((
                        WarpError::from_code(c as u32).ok_or(format!("error code {c}"))?,
                        f[2] as u32,
                    )),
                };
            }
            if sim.peek(self.issue) == 1 {
                issued += 1;
                first_issue.get_or_insert(now);
                last_issue = now;
            }
            sim.step();
        }
        let cycles = sim.cycle() - start;
        let issue_window = first_issue.map_or(0, |f| last_issue - f + 1);
        Ok((
            results,
            CoreStats {
                cycles,
                issued,
                ipc: issued as f64 / cycles.max(1) as f64,
                issue_window,
                window_ipc: issued as f64 / issue_window.max(1) as f64,
                first_issue: first_issue.unwrap_or(0),
                tex_requests,
            },
        ))
    }
}
