//! Driving and receiving valid/ready streams of a simulated design.
//!
//! A stream `req` of the top module has the ports `req_valid`, `req_ready` and one port per
//! payload field (`req_addr`, `req_tag`, or `req_data` for a plain payload). Ports are resolved
//! once at construction; the per-cycle calls only poke and peek by handle.
//!
//! Each cycle, call every agent's `drive` (inputs for this cycle), then every agent's `sample`
//! (reads settled outputs, records transfers), then `Simulator::step`. Two phases are needed
//! because `ready` may depend combinationally on `valid` and on other streams.

use super::error::TbError;
use super::protocol::ProtocolChecker;
use super::rng::Rng;
use crate::engine::{InputId, OutputId, PortInfo, Simulator};
use rendergen_hdl::Bits;
use std::collections::VecDeque;

/// Payload ports called `prefix_*` among `ports` (the design's inputs or outputs) other than
/// valid and ready, in port order. Ports of another stream whose name extends the prefix (a
/// `ts_resp` beside a stream `ts`: `ts_resp_valid`, `ts_resp_ready`, `ts_resp_*`) are not the
/// prefix's payload.
fn field_ports<'a>(
    sim: &Simulator,
    ports: &'a [PortInfo],
    prefix: &str,
) -> Vec<(usize, &'a PortInfo)> {
    let p = format!("{prefix}_");
    let (valid, ready) = (format!("{p}valid"), format!("{p}ready"));
    let all: Vec<&str> = (sim.inputs().iter().chain(sim.outputs()))
        .map(|x| x.name.as_str())
        .collect();
    // Other streams under the prefix: names with both a `_valid` and a `_ready` port.
    let nested: Vec<String> = (all.iter())
        .filter_map(|n| n.strip_suffix("_valid"))
        .filter(|n| n.starts_with(&p) && all.contains(&format!("{n}_ready").as_str()))
        .map(|n| format!("{n}_"))
        .collect();
    (ports.iter().enumerate())
        .filter(|(_, x)| x.name.starts_with(&p) && x.name != valid && x.name != ready)
        .filter(|(_, x)| !nested.iter().any(|n| x.name.starts_with(n.as_str())))
        .collect()
}

/// Drives an input stream of the design with queued items, with seeded random gaps, keeping the
/// transfer rules (valid stays high and the payload stable until the transfer).
pub struct StreamSource {
    valid: InputId,
    ready: OutputId,
    fields: Vec<(InputId, PortInfo)>,
    queue: VecDeque<Vec<Bits>>,
    gap_prob: f64,
    rng: Rng,
    offering: bool,
    sent: u64,
}

impl StreamSource {
    /// Source for the input stream `prefix` (payload fields found by name), seeded with `seed`.
    pub fn new(sim: &Simulator, prefix: &str, seed: u64) -> Result<StreamSource, TbError> {
        let fields = field_ports(sim, sim.inputs(), prefix);
        Ok(StreamSource {
            valid: sim.input(&format!("{prefix}_valid"))?,
            ready: sim.output(&format!("{prefix}_ready"))?,
            fields: (fields.into_iter())
                .map(|(i, p)| (sim.input_at(i), p.clone()))
                .collect(),
            queue: VecDeque::new(),
            gap_prob: 0.0,
            rng: Rng::new(seed),
            offering: false,
            sent: 0,
        })
    }

    /// Probability of leaving a cycle idle before offering the next item (default 0).
    pub fn gap_prob(mut self, p: f64) -> StreamSource {
        self.gap_prob = p;
        self
    }

    /// Names of the payload fields, in the order `send` takes them.
    pub fn fields(&self) -> Vec<&str> {
        self.fields.iter().map(|(_, p)| p.name.as_str()).collect()
    }

    /// Queues an item: one value per field (field order), each fitting its port.
    pub fn send(&mut self, item: &[u64]) -> Result<(), TbError> {
        let bits = item.iter().map(|v| Bits::from_u64(*v, 64)).collect();
        self.send_bits(bits)
    }

    /// Queues an item of any widths; values wider than their port are an error.
    pub fn send_bits(&mut self, item: Vec<Bits>) -> Result<(), TbError> {
        if item.len() != self.fields.len() {
            return Err(TbError::new(format!(
                "item has {} values but the stream has fields {:?}",
                item.len(),
                self.fields()
            )));
        }
        let mut fitted = Vec::with_capacity(item.len());
        for (v, (_, port)) in item.iter().zip(&self.fields) {
            let used = (0..v.width())
                .rev()
                .find(|i| v.bit(*i))
                .map_or(0, |i| i + 1);
            if used > port.width {
                return Err(crate::engine::SimError::Width {
                    name: port.name.clone(),
                    width: port.width,
                    value_width: used,
                }
                .into());
            }
            fitted.push(v.resized(port.width));
        }
        self.queue.push_back(fitted);
        Ok(())
    }

    /// Items still to transfer (including the one on offer).
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Items transferred so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// True when every queued item has been transferred.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
    }

    /// Phase 1: drives valid and the payload for this cycle.
    pub fn drive(&mut self, sim: &mut Simulator) {
        if !self.offering && !self.queue.is_empty() && !self.rng.chance(self.gap_prob) {
            self.offering = true;
            for ((id, _), v) in self.fields.iter().zip(&self.queue[0]) {
                sim.poke_bits(*id, v);
            }
        }
        sim.poke(self.valid, self.offering as u64);
    }

    /// Phase 2: sees whether the offered item was taken this cycle.
    pub fn sample(&mut self, sim: &mut Simulator) {
        if self.offering && sim.peek(self.ready) != 0 {
            self.queue.pop_front();
            self.offering = false;
            self.sent += 1;
        }
    }
}

/// Receives an output stream of the design with seeded random back-pressure, collects the
/// transferred items and checks the producer's transfer rules.
pub struct StreamSink {
    valid: OutputId,
    ready: InputId,
    fields: Vec<(OutputId, PortInfo)>,
    stall_prob: f64,
    rng: Rng,
    ready_now: bool,
    checker: ProtocolChecker,
    words: Vec<u64>,
    items: Vec<Vec<Bits>>,
    first_error: Option<TbError>,
}

impl StreamSink {
    /// Sink for the output stream `prefix`, seeded with `seed`.
    pub fn new(sim: &Simulator, prefix: &str, seed: u64) -> Result<StreamSink, TbError> {
        let fields = field_ports(sim, sim.outputs(), prefix);
        Ok(StreamSink {
            valid: sim.output(&format!("{prefix}_valid"))?,
            ready: sim.input(&format!("{prefix}_ready"))?,
            fields: (fields.into_iter())
                .map(|(i, p)| (sim.output_at(i), p.clone()))
                .collect(),
            stall_prob: 0.0,
            rng: Rng::new(seed),
            ready_now: false,
            checker: ProtocolChecker::new(prefix),
            words: Vec::new(),
            items: Vec::new(),
            first_error: None,
        })
    }

    /// Probability of holding ready low in a cycle (default 0).
    pub fn stall_prob(mut self, p: f64) -> StreamSink {
        self.stall_prob = p;
        self
    }

    /// Names of the payload fields, in item order.
    pub fn fields(&self) -> Vec<&str> {
        self.fields.iter().map(|(_, p)| p.name.as_str()).collect()
    }

    /// Phase 1: drives ready for this cycle.
    pub fn drive(&mut self, sim: &mut Simulator) {
        self.ready_now = !self.rng.chance(self.stall_prob);
        sim.poke(self.ready, self.ready_now as u64);
    }

    /// Phase 2: checks the protocol and records a transfer.
    pub fn sample(&mut self, sim: &mut Simulator) {
        let valid = sim.peek(self.valid) != 0;
        self.words.clear();
        for (id, _) in &self.fields {
            self.words.extend_from_slice(sim.peek_words(*id));
        }
        let cycle = sim.cycle();
        if let Err(e) = self
            .checker
            .observe(cycle, valid, self.ready_now, &self.words)
        {
            self.first_error.get_or_insert(e);
        }
        if valid && self.ready_now {
            let item = (self.fields.iter())
                .map(|(id, _)| sim.peek_bits(*id))
                .collect();
            self.items.push(item);
        }
    }

    /// Items received so far, each one value per field.
    pub fn items(&self) -> &[Vec<Bits>] {
        &self.items
    }

    /// Items received so far with each field's low 64 bits.
    pub fn items_u64(&self) -> Vec<Vec<u64>> {
        (self.items.iter())
            .map(|i| i.iter().map(|b| b.to_u64()).collect())
            .collect()
    }

    /// Takes the received items out of the sink.
    pub fn take_items(&mut self) -> Vec<Vec<Bits>> {
        std::mem::take(&mut self.items)
    }

    /// The first transfer-rule violation seen, if any.
    pub fn protocol_result(&self) -> Result<(), TbError> {
        self.first_error.clone().map_or(Ok(()), Err)
    }
}
