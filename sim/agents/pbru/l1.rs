//! The SM's L1 as the engine sees it: answers `l1_req` on `l1_resp` after a fixed latency from a
//! backing [`Memory`], with scripted misses (¶75): the first request to a scripted line is
//! answered `miss`, and the line becomes present a given number of cycles later.

use crate::engine::{InputId, OutputId, Simulator};
use crate::kit::{StreamSource, TbError};
use crate::models::pbru::Memory;
use rendergen_hdl::Bits;
use std::collections::{HashMap, VecDeque};

/// L1 parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L1Cfg {
    /// Cycles from a request transfer to its answer being offered (≥ 1).
    pub latency: u32,
    /// Scripted misses: line base address (a chunk's 32-byte base or a block's 16-byte byte
    /// address) → cycles from the first request until the line is present.
    pub misses: HashMap<u32, u64>,
}

impl Default for L1Cfg {
    fn default() -> Self {
        L1Cfg {
            latency: 4,
            misses: HashMap::new(),
        }
    }
}

/// The L1 agent.
pub struct L1 {
    cfg: L1Cfg,
    /// Owned memory (programs and textures).
    pub mem: Memory,
    req_valid: OutputId,
    req_ready: InputId,
    req_addr: OutputId,
    req_kind: OutputId,
    req_id: OutputId,
    resp: StreamSource,
    resp_data_w: u32,
    /// Answers waiting for their cycle: (due cycle, id, miss, data).
    due: VecDeque<(u64, u64, bool, Bits)>,
    /// Line → the cycle it becomes present (scripted lines once requested).
    present_at: HashMap<u32, u64>,
    now: u64,
    /// Requests served, misses answered.
    pub requests: u64,
    /// Misses answered.
    pub misses: u64,
}

/// The line an L1 request names.
fn line(addr: u32, kind: u64) -> u32 {
    if kind == 0 {
        addr & !31
    } else {
        addr & !15
    }
}

impl L1 {
    /// The agent on the top's `l1_req`/`l1_resp`.
    pub fn new(sim: &Simulator, mem: Memory, cfg: L1Cfg, seed: u64) -> Result<L1, TbError> {
        let resp = StreamSource::new(sim, "l1_resp", seed)?;
        let resp_data_w =
            (sim.inputs().iter().find(|p| p.name == "l1_resp_data")).map_or(256, |p| p.width);
        Ok(L1 {
            cfg,
            mem,
            req_valid: sim.output("l1_req_valid")?,
            req_ready: sim.input("l1_req_ready")?,
            req_addr: sim.output("l1_req_addr")?,
            req_kind: sim.output("l1_req_kind")?,
            req_id: sim.output("l1_req_id")?,
            resp,
            resp_data_w,
            due: VecDeque::new(),
            present_at: HashMap::new(),
            now: 0,
            requests: 0,
            misses: 0,
        })
    }

    /// True when the line holding byte address `addr` (`kind` 0 chunk, 1 block) is present now.
    pub fn is_present(&self, addr: u32, kind: u64) -> bool {
        let l = line(addr, kind);
        match (self.cfg.misses.contains_key(&l), self.present_at.get(&l)) {
            (false, _) => true,
            (true, Some(t)) => *t <= self.now,
            (true, None) => false,
        }
    }

    /// Answers scheduled or offered but not yet taken by the engine.
    pub fn pending(&self) -> usize {
        self.due.len() + self.resp.pending()
    }

    /// True when nothing is waiting to be answered.
    pub fn is_idle(&self) -> bool {
        self.due.is_empty() && self.resp.is_idle()
    }

    /// Phase 1: offers due answers, and always accepts requests.
    pub fn drive(&mut self, sim: &mut Simulator) {
        while let Some((t, ..)) = self.due.front() {
            if *t > self.now {
                break;
            }
            let (_, id, miss, data) = self.due.pop_front().expect("front");
            let item = vec![Bits::from_u64(id, 64), Bits::from_u64(miss as u64, 1), data];
            // Put into the port order of the fields (id, miss, data by name).
            self.resp.send_bits(order(&self.resp, item)).expect("fits");
        }
        self.resp.drive(sim);
        sim.poke(self.req_ready, 1);
    }

    /// Phase 2: records a request transfer and schedules its answer.
    pub fn sample(&mut self, sim: &mut Simulator) {
        self.resp.sample(sim);
        if sim.peek(self.req_valid) != 0 {
            let addr = sim.peek(self.req_addr) as u32;
            let kind = sim.peek(self.req_kind);
            let id = sim.peek(self.req_id);
            self.requests += 1;
            let l = line(addr, kind);
            if let Some(delay) = self.cfg.misses.get(&l) {
                self.present_at.entry(l).or_insert(self.now + delay);
            }
            let miss = !self.is_present(addr, kind);
            self.misses += miss as u64;
            let n = if kind == 0 { 32 } else { 16 };
            let data = Bits::from_le_bytes(&self.mem.read(l, n), self.resp_data_w);
            let due = self.now + self.cfg.latency.max(1) as u64;
            self.due.push_back((due, id, miss, data));
        }
        self.now += 1;
    }
}

/// Puts (id, miss, data) into the source's field order.
fn order(src: &StreamSource, item: Vec<Bits>) -> Vec<Bits> {
    let names = src.fields();
    let pick = |suffix: &str| names.iter().position(|n| n.ends_with(suffix));
    let mut out = vec![Bits::zero(1); names.len()];
    for (v, s) in item.into_iter().zip(["_id", "_miss", "_data"]) {
        if let Some(i) = pick(s) {
            out[i] = v;
        }
    }
    out
}
