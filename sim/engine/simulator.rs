//! [`Simulator`]: construction, port and signal handles, poke/peek, stepping, tracing.

use super::activity::{self, ActState};
use super::compile::compile;
use super::exec::{edge, edge_memories, edge_resets, eval, Machine};
use super::names::{named_signals, scope_path};
use super::program::{Ins, Place, Program};
use super::reg_wake;
use super::*;
use crate::vcd::{DumpSignal, SimDump, VcdFilter};
use rendergen_hdl::bits::words_for;
use rendergen_hdl::flatten::Scope;
use rendergen_hdl::{Bits, FlatNetlist};
use std::collections::HashMap;

/// How the simulator settles combinational logic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Eval {
    /// Every operation in every settle: the reference mode.
    #[default]
    Full,
    /// Activity-aware: operations are grouped, and a group runs only when one of its inputs
    /// changed since it last ran (the simulator's `engine/activity.rs` explains how). Same
    /// results as `Full`; faster when much of the design is idle.
    Active,
}

/// Activity counters of a simulation under [`Eval::Active`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActivityStats {
    /// Groups of operations in the design.
    pub groups: usize,
    /// Settles done.
    pub settles: u64,
    /// Groups evaluated over all settles (`evaluated / (settles × groups)` is the active
    /// fraction).
    pub evaluated: u64,
}

/// A compiled design being simulated. See the [module docs](super) for cycle semantics.
pub struct Simulator {
    prog: Program,
    m: Machine,
    /// Run-time state of activity-aware evaluation (empty under full evaluation).
    act: ActState,
    /// Generated code that settles and clocks instead of the interpreter.
    compiled: Option<crate::codegen::Compiled>,
    inputs: Vec<PortInfo>,
    outputs: Vec<PortInfo>,
    in_places: Vec<Place>,
    out_places: Vec<Place>,
    /// Per input: place, word count and top-word mask, together so a poke reads one entry.
    in_hot: Vec<(u32, u32, u64)>,
    /// Per output: first place and word count.
    out_hot: Vec<(u32, u32)>,
    /// Named signals: full path, place, width.
    signals: Vec<(String, Place, u32)>,
    /// Per named signal: its value comes from the observation program (it feeds no output
    /// or state), so peeking it runs that program first.
    signal_obs: Vec<bool>,
    signal_index: HashMap<String, u32>,
    /// Scope of each signal (for the VCD).
    signal_scope: Vec<u32>,
    /// Variant names of the signals that hold a hardware enum (for waveforms).
    signal_variants: Vec<Option<&'static [&'static str]>>,
    scopes: Vec<Scope>,
    node_count: usize,
    rst: bool,
    cycle: u64,
    /// Combinational values are stale (inputs or state changed since the last settle).
    dirty: bool,
    /// The observation program has not run since the last settle.
    obs_dirty: bool,
    recording: Option<Trace>,
    vcd: Option<Box<SimDump>>,
}

impl Simulator {
    /// Flattens and compiles `design` for full evaluation ([`Eval::Full`]).
    pub fn new(design: &Design) -> Result<Simulator, SimError> {
        Simulator::with_eval(design, Eval::Full)
    }

    /// Flattens and compiles `design` for the evaluation mode `eval`.
    pub fn with_eval(design: &Design, eval: Eval) -> Result<Simulator, SimError> {
        Simulator::with_options(design, eval, super::simplify::enabled())
    }

    /// [`with_eval`](Self::with_eval), with bit-shuffle [simplification](super::simplify) on or
    /// off (tests compare both).
    pub(crate) fn with_options(
        design: &Design,
        eval: Eval,
        simplify: bool,
    ) -> Result<Simulator, SimError> {
        let mut flat = FlatNetlist::new(design);
        let named = named_signals(design, &flat);
        if simplify {
            let stats = super::simplify::simplify(&mut flat);
            if std::env::var_os("RENDERGEN_SIM_OPS").is_some() {
                eprintln!("simplification: {stats:?}");
            }
        }
        let ids: Vec<_> = named.iter().map(|s| s.node).collect();
        let group_size = match eval {
            Eval::Full => 0,
            Eval::Active => super::activity::GROUP_SIZE,
        };
        let (prog, m) = compile(&flat, &ids, group_size)?;
        if std::env::var_os("RENDERGEN_SIM_OPS").is_some() {
            let counts = prog.op_counts();
            let total: u64 = counts.iter().map(|c| c.1).sum();
            eprintln!(
                "{} ({eval:?}): {total} operations per full evaluation",
                flat.scopes[0].name
            );
            for (k, n) in counts {
                eprintln!("  {k:<10} {n:>8}");
            }
            if let Some(a) = &prog.activity {
                let one: u32 = a.src_runs.iter().map(|r| r.2).sum();
                eprintln!(
                    "activity: {} groups ({} flag words), {} watched values, {} one-word sources \
                     in {} runs, {} wide sources, {} flag masks",
                    a.groups.len(),
                    a.flag_words(),
                    a.watches.len(),
                    one,
                    a.src_runs.len(),
                    a.wide_sources.len(),
                    a.acts.len()
                );
                let w = &a.wake;
                eprintln!(
                    "interpreter edge: {} registers in {} entries ({} visited every edge); \
                     {} one-word non-register sources in {} runs, {} wide",
                    w.registers,
                    w.regs.len(),
                    w.regs.len() - w.always as usize,
                    w.src_runs.iter().map(|r| r.2).sum::<u32>(),
                    w.src_runs.len(),
                    w.wide_sources.len()
                );
            }
        }
        let act = match &prog.activity {
            Some(a) => a.state(&m),
            None => ActState::default(),
        };
        let port = |p: &rendergen_hdl::ir::Port| PortInfo {
            name: p.name.clone(),
            width: p.width,
        };
        let mut signals = Vec::with_capacity(named.len());
        let mut signal_index = HashMap::new();
        for s in &named {
            let path = format!("{}.{}", scope_path(&flat, s.scope), s.name);
            signal_index.insert(path.clone(), signals.len() as u32);
            debug_assert!(
                prog.node_place[s.node as usize] != super::program::NONE,
                "named signal {path} has no place"
            );
            signals.push((path, prog.node_place[s.node as usize], s.width));
        }
        let mut obs_places = vec![false; m.v.len()];
        for ins in &prog.obs {
            super::layout::dests(&prog, ins, &mut |place, words| {
                obs_places[place..place + words].fill(true)
            });
        }
        let signal_obs = (signals.iter())
            .map(|&(_, place, w)| obs_places[place as usize..][..words_for(w)].contains(&true))
            .collect();
        Ok(Simulator {
            inputs: flat.inputs.iter().map(port).collect(),
            outputs: flat.outputs.iter().map(port).collect(),
            in_places: flat
                .inputs
                .iter()
                .map(|p| prog.node_place[p.node as usize])
                .collect(),
            out_places: flat
                .outputs
                .iter()
                .map(|p| prog.node_place[p.node as usize])
                .collect(),
            in_hot: flat
                .inputs
                .iter()
                .map(|p| {
                    let n = words_for(p.width) as u32;
                    (
                        prog.node_place[p.node as usize],
                        n,
                        rendergen_hdl::bits::top_mask(p.width),
                    )
                })
                .collect(),
            out_hot: flat
                .outputs
                .iter()
                .map(|p| (prog.node_place[p.node as usize], words_for(p.width) as u32))
                .collect(),
            signal_scope: named.iter().map(|s| s.scope).collect(),
            signal_variants: named.iter().map(|s| s.variants).collect(),
            signals,
            signal_obs,
            signal_index,
            scopes: flat.scopes.clone(),
            node_count: flat.nodes.len(),
            prog,
            m,
            act,
            compiled: None,
            rst: false,
            cycle: 0,
            dirty: true,
            obs_dirty: true,
            recording: None,
            vcd: None,
        })
    }

    /// A simulator that settles and clocks `design` through generated code built into the
    /// program (`crate::codegen::Compiled`, for example from the `rendergen-compiled` crate),
    /// with everything else as [`with_eval`](Self::with_eval): handles, records, named signals
    /// and waveforms work unchanged. The code must have been generated from this very design
    /// and mode: its fingerprint is checked, and a stale or foreign build is
    /// [`SimError::StaleCompiled`].
    pub fn with_compiled(
        design: &Design,
        eval: Eval,
        code: crate::codegen::Compiled,
    ) -> Result<Simulator, SimError> {
        let mut sim = Simulator::with_eval(design, eval)?;
        let g = crate::codegen::generate_from(&sim, crate::codegen::Observe::Signals);
        if g.fingerprint != code.fingerprint {
            return Err(SimError::StaleCompiled {
                top: design.top().name.clone(),
            });
        }
        if let Some(a) = &sim.prog.activity {
            sim.m.v = a.values_with_state(&sim.m);
        }
        debug_assert_eq!(sim.m.v.len(), g.places);
        sim.compiled = Some(code);
        Ok(sim)
    }

    /// Operations per full evaluation of the compiled program, by kind, most frequent first
    /// (a batch of `n` counts `n`; multi-word operations as `Wide` and their kind). Activity-
    /// aware evaluation runs a subset of them per settle. For measurements; the kinds are the
    /// interpreter's instruction names and may change.
    pub fn op_counts(&self) -> Vec<(String, u64)> {
        self.prog.op_counts()
    }

    /// Whether generated code settles and clocks this simulator.
    pub fn is_compiled(&self) -> bool {
        self.compiled.is_some()
    }

    /// Top-level inputs in declaration order.
    pub fn inputs(&self) -> &[PortInfo] {
        &self.inputs
    }

    /// Top-level outputs in declaration order.
    pub fn outputs(&self) -> &[PortInfo] {
        &self.outputs
    }

    /// The input port called `name` (Rust name, e.g. `push_valid`).
    pub fn input(&self, name: &str) -> Result<InputId, SimError> {
        match self.inputs.iter().position(|p| p.name == name) {
            Some(i) => Ok(InputId(i as u32)),
            None => Err(SimError::UnknownPort {
                name: name.into(),
                valid: self.inputs.iter().map(|p| p.name.clone()).collect(),
            }),
        }
    }

    /// The output port called `name`.
    pub fn output(&self, name: &str) -> Result<OutputId, SimError> {
        match self.outputs.iter().position(|p| p.name == name) {
            Some(i) => Ok(OutputId(i as u32)),
            None => Err(SimError::UnknownPort {
                name: name.into(),
                valid: self.outputs.iter().map(|p| p.name.clone()).collect(),
            }),
        }
    }

    /// Input number `index` (panics when out of range).
    pub fn input_at(&self, index: usize) -> InputId {
        assert!(
            index < self.inputs.len(),
            "input index {index} out of range"
        );
        InputId(index as u32)
    }

    /// Output number `index` (panics when out of range).
    pub fn output_at(&self, index: usize) -> OutputId {
        assert!(
            index < self.outputs.len(),
            "output index {index} out of range"
        );
        OutputId(index as u32)
    }

    /// Drives input `p` with `v` truncated to the port width (upper words of a wide port are 0).
    #[inline]
    pub fn poke(&mut self, p: InputId, v: u64) {
        let (s, n, mask) = self.in_hot[p.0 as usize];
        let s = s as usize;
        if n == 1 {
            self.m.v[s] = v & mask;
        } else {
            self.m.v[s] = v;
            self.m.v[s + 1..s + n as usize].fill(0);
        }
        self.dirty = true;
    }

    /// Drives input `p` with `v`, truncated or zero-extended to the port width.
    pub fn poke_bits(&mut self, p: InputId, v: &Bits) {
        let s = self.in_places[p.0 as usize] as usize;
        let w = self.inputs[p.0 as usize].width;
        let n = words_for(w);
        for (i, x) in self.m.v[s..s + n].iter_mut().enumerate() {
            *x = v.words().get(i).copied().unwrap_or(0);
        }
        self.m.v[s + n - 1] &= rendergen_hdl::bits::top_mask(w);
        self.dirty = true;
    }

    /// Settles combinational logic if inputs or state changed.
    #[inline]
    fn settle(&mut self) {
        if self.dirty {
            match (&self.compiled, &self.prog.activity) {
                (Some(c), a) => {
                    self.act.settles += a.is_some() as u64;
                    (c.settle)(&mut self.m.v, &self.m.mem)
                }
                (None, None) => eval(&self.prog, &self.prog.main, &mut self.m),
                (None, Some(a)) => activity::settle(&self.prog, a, &mut self.m, &mut self.act),
            }
            self.dirty = false;
            self.obs_dirty = true;
        }
    }

    /// Settles and runs the observation program (named signals that feed no output or state).
    fn settle_all(&mut self) {
        self.settle();
        if self.obs_dirty {
            eval(&self.prog, &self.prog.obs, &mut self.m);
            self.obs_dirty = false;
        }
    }

    /// The low 64 bits of output `p`, settled.
    #[inline]
    pub fn peek(&mut self, p: OutputId) -> u64 {
        self.settle();
        self.m.v[self.out_places[p.0 as usize] as usize]
    }

    /// Output `p` at full width, settled.
    pub fn peek_bits(&mut self, p: OutputId) -> Bits {
        let w = self.outputs[p.0 as usize].width;
        Bits::from_words(self.peek_words(p), w)
    }

    /// Output `p` as little-endian words, settled (no allocation).
    #[inline]
    pub fn peek_words(&mut self, p: OutputId) -> &[u64] {
        self.settle();
        let (s, n) = self.out_hot[p.0 as usize];
        &self.m.v[s as usize..(s + n) as usize]
    }

    /// The full paths of every named signal (as [`signal`](Self::signal) takes them), in
    /// declaration order.
    pub fn signal_paths(&self) -> impl Iterator<Item = &str> {
        self.signals.iter().map(|s| s.0.as_str())
    }

    /// The named signal at `path`, e.g. `top.u_fifo.count_q` (names as in the VCD and Verilog).
    pub fn signal(&self, path: &str) -> Result<SignalId, SimError> {
        if let Some(i) = self.signal_index.get(path) {
            return Ok(SignalId(*i));
        }
        let scope = path.rsplit_once('.').map(|(s, _)| s).unwrap_or("");
        let prefix = format!("{scope}.");
        let mut valid: Vec<String> = (self.signals.iter())
            .filter(|s| s.0.starts_with(&prefix) && !s.0[prefix.len()..].contains('.'))
            .map(|s| s.0.clone())
            .collect();
        if valid.is_empty() {
            valid = (0..self.scopes.len() as u32)
                .map(|s| format!("{}.", self.scope_name(s)))
                .collect();
        }
        Err(SimError::UnknownSignal {
            path: path.into(),
            valid,
        })
    }

    fn scope_name(&self, s: u32) -> String {
        let sc = &self.scopes[s as usize];
        match sc.parent {
            Some(p) => format!("{}.{}", self.scope_name(p), sc.name),
            None => sc.name.clone(),
        }
    }

    /// Current value of a named signal (settled).
    pub fn peek_signal(&mut self, s: SignalId) -> Bits {
        let w = self.signals[s.0 as usize].2;
        Bits::from_words(self.peek_signal_words(s), w)
    }

    /// Current value of a named signal as little-endian words (settled; no allocation, for
    /// a testbench that watches internal signals every cycle). A signal that feeds an output
    /// or state costs only the settle every cycle needs anyway; an observation-only one (it
    /// drives nothing the outputs depend on) runs the observation program once per settle.
    #[inline]
    pub fn peek_signal_words(&mut self, s: SignalId) -> &[u64] {
        if self.signal_obs[s.0 as usize] {
            self.settle_all();
        } else {
            self.settle();
        }
        let (_, place, w) = self.signals[s.0 as usize];
        let place = place as usize;
        &self.m.v[place..place + words_for(w)]
    }

    /// Whether named signal `s` comes from the observation program (for tests).
    #[cfg(test)]
    pub(crate) fn signal_is_observation_only(&self, s: SignalId) -> bool {
        self.signal_obs[s.0 as usize]
    }

    /// Sets the level of the synchronous reset input.
    pub fn set_reset(&mut self, on: bool) {
        self.rst = on;
    }

    /// Holds reset high for `cycles` edges, then releases it.
    pub fn reset(&mut self, cycles: u32) {
        self.set_reset(true);
        self.run(cycles as u64);
        self.set_reset(false);
    }

    /// One clock cycle: settle, record/sample if enabled, rising edge.
    #[inline]
    pub fn step(&mut self) {
        self.settle();
        if self.recording.is_some() || self.vcd.is_some() {
            self.observe();
        }
        if let Some(c) = &self.compiled {
            (c.edge)(&mut self.m.v, &mut self.m.mem, self.rst);
        } else if let Some(a) = &self.prog.activity {
            activity::before_edge(a, &self.m, &mut self.act);
            edge_memories(&self.prog, &mut self.m);
            reg_wake::load_registers(&a.wake, a, &mut self.m, &mut self.act);
            if self.rst {
                edge_resets(&self.prog, &mut self.m);
                reg_wake::after_reset(a, &mut self.act);
            }
        } else {
            edge(&self.prog, &mut self.m, self.rst);
        }
        self.dirty = true;
        self.cycle += 1;
    }

    #[cold]
    fn observe(&mut self) {
        if let Some(mut t) = self.recording.take() {
            let inputs = (0..self.inputs.len() as u32)
                .map(|i| self.bits_at(self.in_places[i as usize], self.inputs[i as usize].width))
                .collect();
            let outputs = (0..self.outputs.len() as u32)
                .map(|i| self.peek_bits(OutputId(i)))
                .collect();
            t.cycles.push(TraceCycle {
                reset: self.rst,
                inputs,
                outputs,
            });
            self.recording = Some(t);
        }
        if self.vcd.as_ref().is_some_and(|d| d.samples(self.cycle)) {
            self.settle_all();
            let dump = self.vcd.as_mut().expect("tracing");
            dump.sample(self.cycle, self.rst, &self.m.v);
        }
    }

    fn bits_at(&self, place: Place, w: u32) -> Bits {
        Bits::from_words(&self.m.v[place as usize..place as usize + words_for(w)], w)
    }

    /// Runs `cycles` steps with the current inputs.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Edges applied so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Starts a VCD dump of every named signal to `out` (replacing any dump in progress without
    /// finishing it). Samples are taken at each `step`; call [`finish_vcd`](Self::finish_vcd).
    pub fn trace_vcd<W: std::io::Write + 'static>(&mut self, out: W) -> std::io::Result<()> {
        self.trace_vcd_filtered(out, &VcdFilter::default())
    }

    /// [`trace_vcd`](Self::trace_vcd) of the signals and cycles `filter` keeps (scopes
    /// without a kept signal are left out; outside the window nothing is sampled or settled).
    pub fn trace_vcd_filtered<W: std::io::Write + 'static>(
        &mut self,
        out: W,
        filter: &VcdFilter,
    ) -> std::io::Result<()> {
        let sigs: Vec<DumpSignal> = (self.signals.iter().enumerate())
            .filter(|(_, (path, ..))| filter.keeps(path))
            .map(|(i, (path, place, w))| {
                let name = path.rsplit_once('.').map(|(_, n)| n).unwrap_or(path);
                let variants = self.signal_variants[i];
                (self.signal_scope[i], name, *place as usize, *w, variants)
            })
            .collect();
        let dump = SimDump::new(Box::new(out), &self.scopes, &sigs, filter)?;
        self.vcd = Some(Box::new(dump));
        Ok(())
    }

    /// Writes the final state, flushes and closes the VCD dump (no-op when not tracing).
    pub fn finish_vcd(&mut self) -> std::io::Result<()> {
        if self.vcd.is_none() {
            return Ok(());
        }
        self.settle_all();
        let dump = self.vcd.take().expect("tracing");
        dump.finish(self.cycle, self.rst, &self.m.v)
    }

    /// Starts recording port-level stimulus and responses (see [`Trace`]).
    pub fn start_recording(&mut self) {
        self.recording = Some(Trace {
            inputs: self.inputs.clone(),
            outputs: self.outputs.clone(),
            cycles: Vec::new(),
        });
    }

    /// Returns the recording so far and stops recording.
    pub fn take_trace(&mut self) -> Trace {
        self.recording.take().unwrap_or_default()
    }

    /// The compiled program, the machine state, and the places of the inputs and outputs, for
    /// the code generator ([`crate::codegen`]), which must be handed a fresh simulator.
    pub(crate) fn compiled(&self) -> (&Program, &Machine, &[Place], &[Place]) {
        (&self.prog, &self.m, &self.in_places, &self.out_places)
    }

    /// Place and width of every named signal (the compiled backend keeps them in the value
    /// array, where `peek_signal` and the VCD read them).
    pub(crate) fn signal_places(&self) -> impl Iterator<Item = (Place, u32)> + '_ {
        self.signals.iter().map(|s| (s.1, s.2))
    }

    /// The evaluation mode in effect ([`Eval::Full`] if activity-aware evaluation was asked for
    /// but the design could not be partitioned).
    pub fn eval_mode(&self) -> Eval {
        if self.prog.activity.is_some() {
            Eval::Active
        } else {
            Eval::Full
        }
    }

    /// Activity counters (all zero under full evaluation).
    pub fn activity(&self) -> ActivityStats {
        ActivityStats {
            groups: self.prog.activity.as_ref().map_or(0, |a| a.groups.len()),
            settles: self.act.settles,
            evaluated: match (&self.compiled, &self.prog.activity) {
                // Generated code counts in the last word of its value array.
                (Some(_), Some(_)) => self.m.v.last().copied().unwrap_or(0),
                _ => self.act.evaluated,
            },
        }
    }

    /// Number of nodes of the flattened design (before optimisation), for reports.
    pub fn node_count(&self) -> usize {
        self.node_count
    }

    /// The compiled combinational program, one instruction per line (batched operands
    /// indented), for inspecting what the simulator evaluates per cycle.
    pub fn program_listing(&self) -> String {
        let mut out = String::new();
        for ins in &self.prog.main {
            out.push_str(&format!("{ins:?}\n"));
            match *ins {
                Ins::Batch { start, n, .. } => {
                    for ops in &self.prog.batch[start as usize..(start + n) as usize] {
                        out.push_str(&format!("    {ops:?}\n"));
                    }
                }
                Ins::Run { run, .. } => {
                    out.push_str(&format!("    {:?}\n", self.prog.runs[run as usize]))
                }
                _ => {}
            }
        }
        out
    }

    /// Number of operations evaluated per settle (after aliasing, folding and dead-node
    /// elimination), for reports.
    pub fn instruction_count(&self) -> usize {
        (self.prog.main.iter())
            .map(|i| match i {
                Ins::Batch { n, .. } => *n as usize,
                Ins::Run { run, .. } => self.prog.runs[*run as usize].n as usize,
                _ => 1,
            })
            .sum()
    }
}
