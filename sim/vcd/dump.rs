//! Dumping a simulator's named signals: the hierarchy as nested scopes, `clk_i` and `rst_i` at
//! the top, one sample per cycle.

use super::writer::{VarId, VcdWriter};
use super::{VcdFilter, CLOCK_PERIOD};
use rendergen_hdl::flatten::Scope;
use rendergen_hdl::naming;
use std::io::{self, Write};

/// A signal to dump: scope, name, first place, width, and the variant names of an enum.
pub(crate) type DumpSignal<'a> = (u32, &'a str, usize, u32, Option<&'static [&'static str]>);

/// A VCD dump in progress for one simulator.
pub(crate) struct SimDump {
    w: VcdWriter<Box<dyn Write>>,
    clk: VarId,
    rst: VarId,
    /// Per signal: variable, first place, word count.
    sigs: Vec<(VarId, usize, usize)>,
    /// Enum registers: the `<name>_state` string variable, place, variant names.
    states: Vec<(VarId, usize, &'static [&'static str])>,
    /// First I/O error (reported by `finish`).
    pub error: Option<io::Error>,
    /// Cycles sampled.
    window: Option<(u64, u64)>,
}

impl SimDump {
    /// Writes the header: `signals` are (scope, name, place, width), grouped by scope in scope
    /// order; `scopes` is the flattened hierarchy (parents before children, depth first).
    /// Scopes holding no signal (in themselves or below) are left out, except the top.
    pub(crate) fn new(
        out: Box<dyn Write>,
        scopes: &[Scope],
        signals: &[DumpSignal],
        filter: &VcdFilter,
    ) -> io::Result<SimDump> {
        let mut used = vec![false; scopes.len()];
        used[0] = true;
        for s in signals {
            used[s.0 as usize] = true;
        }
        for s in (1..scopes.len()).rev() {
            if used[s] {
                used[scopes[s].parent.unwrap_or(0) as usize] = true;
            }
        }
        let mut w = VcdWriter::new(out, "1ns")?;
        let mut open: Vec<u32> = Vec::new();
        let mut sigs = Vec::new();
        let mut states = Vec::new();
        let (mut clk, mut rst) = (None, None);
        let mut next = 0;
        for (s, scope) in scopes.iter().enumerate() {
            if !used[s] {
                continue;
            }
            while open.last().copied() != scope.parent && !open.is_empty() {
                open.pop();
                w.upscope()?;
            }
            w.scope(&scope.name)?;
            open.push(s as u32);
            if s == 0 {
                clk = Some(w.var(naming::CLOCK, 1)?);
                rst = Some(w.var(naming::RESET, 1)?);
            }
            while next < signals.len() && signals[next].0 == s as u32 {
                let (_, name, place, width, variants) = signals[next];
                let var = w.var(name, width)?;
                sigs.push((var, place, (width as usize).div_ceil(64)));
                if let Some(v) = variants {
                    let base = name.strip_suffix("_q").unwrap_or(name);
                    states.push((w.var_string(&format!("{base}_state"))?, place, v));
                }
                next += 1;
            }
        }
        for _ in open {
            w.upscope()?;
        }
        w.end_definitions()?;
        Ok(SimDump {
            w,
            clk: clk.expect("a top scope"),
            rst: rst.expect("a top scope"),
            sigs,
            states,
            error: None,
            window: filter.window,
        })
    }

    /// True if `cycle` is sampled.
    pub(crate) fn samples(&self, cycle: u64) -> bool {
        self.window.is_none_or(|(a, b)| (a..=b).contains(&cycle))
    }

    /// Samples the settled values of `cycle`: clock rising at `10 * cycle`, falling at +5.
    pub(crate) fn sample(&mut self, cycle: u64, rst: bool, v: &[u64]) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.write_sample(cycle, rst, v, true) {
            self.error = Some(e);
        }
    }

    fn write_sample(&mut self, cycle: u64, rst: bool, v: &[u64], fall: bool) -> io::Result<()> {
        self.w.time(cycle * CLOCK_PERIOD)?;
        self.w.change(self.clk, &[1])?;
        self.w.change(self.rst, &[rst as u64])?;
        for &(var, place, n) in &self.sigs {
            self.w.change(var, &v[place..place + n])?;
        }
        for &(var, place, names) in &self.states {
            let code = v[place];
            match names.get(code as usize) {
                Some(name) => self.w.change_str(var, code, name)?,
                None => self.w.change_str(var, code, &format!("?{code}"))?,
            }
        }
        if fall {
            self.w.time(cycle * CLOCK_PERIOD + CLOCK_PERIOD / 2)?;
            self.w.change(self.clk, &[0])?;
        }
        Ok(())
    }

    /// Writes the final state (after the last edge) and flushes.
    pub(crate) fn finish(mut self, cycle: u64, rst: bool, v: &[u64]) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.samples(cycle) {
            self.write_sample(cycle, rst, v, false)?;
        }
        self.w.flush()
    }
}
