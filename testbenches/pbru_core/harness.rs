//! The bench around one `pbru_core_top`: a scheduler stand-in (IFETCH from the model's memory,
//! TEXREAD hits and misses, pipeline results from the model's pipelines, all after random
//! delays), a TTU stand-in that re-sends parked rays, random back-pressure, random stops, and
//! the golden checks (`rendergen_sim::models::pbru`).

use super::golden::check;
use rendergen_hdl::{Bits, Design};
use rendergen_rtl::pbru::core::pbru_core_top;
use rendergen_rtl::pbru::ports::isa::{Opcode, Reason};
use rendergen_rtl::pbru::ports::{PbruCfg, CREQ_IFETCH, CREQ_PIPE, CREQ_TEXREAD};
use rendergen_rtl::pbru::ports::{CRSP_CANCEL, CRSP_CHUNK, CRSP_PIPE, CRSP_TEXREADY};
use rendergen_sim::kit::{Rng, StreamSink, StreamSource, TbError, Watchdog};
use rendergen_sim::models::pbru::pipes::pipeline;
use rendergen_sim::models::pbru::{FinalRay, Memory, Ray};
use rendergen_sim::{InputId, OutputId, Simulator};
use std::collections::HashMap;

/// Timing and traffic of a run.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// IFETCH answer delay, cycles (inclusive range).
    pub fetch_delay: (u64, u64),
    /// TEXREAD: probability of an L0 hit (answer after 0..=1 cycles).
    pub tex_hit: f64,
    /// TEXREAD miss delay.
    pub tex_delay: (u64, u64),
    /// Probability that a fetch (IFETCH or TEXREAD) misses in the L1: `miss_delay` more cycles.
    pub miss_prob: f64,
    /// Extra delay of an L1 miss.
    pub miss_delay: u64,
    /// Pipeline latency.
    pub pipe_delay: (u64, u64),
    /// Probability per cycle of holding `creq.ready` low.
    pub creq_stall: f64,
    /// Probability per cycle of holding `done.ready` low.
    pub done_stall: f64,
    /// Probability per cycle of a stop command to a random slot.
    pub stop_prob: f64,
    /// Probability that a ray comes with its chunk inline.
    pub inline_prob: f64,
    /// Probability that an L1 miss is answered with `CRSP_CANCEL` (after its delay) instead of
    /// the data, as the scheduler does on the SM's miss notice.
    pub cancel_prob: f64,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            fetch_delay: (1, 12),
            tex_hit: 0.5,
            tex_delay: (3, 20),
            miss_prob: 0.0,
            miss_delay: 0,
            pipe_delay: (2, 16),
            creq_stall: 0.3,
            done_stall: 0.3,
            stop_prob: 0.0,
            inline_prob: 0.5,
            cancel_prob: 0.0,
        }
    }
}

/// What a run observed.
#[derive(Debug, Default)]
pub struct Report {
    /// Every ray as it left the core, in order: (ray id, reason, pc, stack).
    pub left: Vec<FinalRay>,
    /// Requests by kind: IFETCH, PIPE, TEXREAD.
    pub requests: HashMap<u64, u64>,
    /// Pipeline requests by opcode.
    pub ops: HashMap<u8, u64>,
    /// Cycle at which each ray left (same order as `left`).
    pub left_at: Vec<u64>,
    /// Cycles the run took.
    pub cycles: u64,
}

/// A pending answer.
struct Answer {
    due: u64,
    item: Vec<Bits>,
}

/// The bench.
pub struct Bench {
    pub cfg: PbruCfg,
    pub mem: Memory,
    pub knobs: Knobs,
    rng: Rng,
    assign: StreamSource,
    crsp: StreamSource,
    creq: StreamSink,
    done: StreamSink,
    stop_valid: InputId,
    stop_slot: InputId,
    stop_epoch: InputId,
    busy: OutputId,
}

/// The design and a simulator for it.
pub fn build(cfg: &PbruCfg) -> (Design, Simulator) {
    let design = pbru_core_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    (design, sim)
}

/// The stack as port bits (word 0 lowest).
fn stack_bits(stack: &[u32], depth: u32) -> Bits {
    let bytes: Vec<u8> = stack.iter().flat_map(|w| w.to_le_bytes()).collect();
    Bits::from_le_bytes(&bytes, 32 * depth)
}

impl Bench {
    /// A bench for `cfg` with `mem` as the SM's memory.
    pub fn new(sim: &Simulator, cfg: &PbruCfg, mem: Memory, knobs: Knobs, seed: u64) -> Bench {
        let mut rng = Rng::new(seed);
        let s = sim;
        fn ok<T>(r: Result<T, TbError>) -> T {
            r.unwrap_or_else(|e| panic!("{e}"))
        }
        let creq = ok(StreamSink::new(s, "creq", rng.next_u64())).stall_prob(knobs.creq_stall);
        let done = ok(StreamSink::new(s, "done", rng.next_u64())).stall_prob(knobs.done_stall);
        Bench {
            assign: ok(StreamSource::new(s, "assign", rng.next_u64())),
            crsp: ok(StreamSource::new(s, "crsp", rng.next_u64())),
            creq,
            done,
            stop_valid: s.input("stop_valid").unwrap(),
            stop_slot: s.input("stop_slot").unwrap(),
            stop_epoch: s.input("stop_epoch").unwrap(),
            busy: s.output("busy").unwrap(),
            cfg: cfg.clone(),
            mem,
            knobs,
            rng,
        }
    }

    fn send(&mut self, ray: &Ray) -> Result<(), TbError> {
        let inline = self.rng.chance(self.knobs.inline_prob);
        let chunk = self.mem.chunk(ray.pc());
        let item = vec![
            Bits::from_u64(ray.ray_id as u64, 16),
            Bits::from_u64(ray.inst_addr as u64, 32),
            Bits::from_u64(ray.index as u64, 16),
            Bits::from_u64(ray.stack.len() as u64, self.cfg.sp_w()),
            stack_bits(&ray.stack, self.cfg.stack_depth),
            Bits::from_u64((ray.ray_id & 1) as u64, 1),
            Bits::from_u64(inline as u64, 1),
            Bits::from_le_bytes(&chunk, 256),
        ];
        self.assign.send_bits(item)
    }

    fn delay(&mut self, (lo, hi): (u64, u64)) -> u64 {
        lo + self.rng.below(hi - lo + 1)
    }

    /// The scheduler's answer to a request.
    fn answer(&mut self, req: &[Bits], now: u64, report: &mut Report) -> Result<Answer, TbError> {
        let [kind, slot, ray_id, op, imm, args, addr, epoch] = req else {
            return Err(TbError::new(format!(
                "creq has fields {:?}",
                self.creq.fields()
            )));
        };
        let kind = kind.to_u64();
        *report.requests.entry(kind).or_default() += 1;
        let resp = |k: u64, data: Bits| {
            let head = [Bits::from_u64(k, 2), slot.clone(), ray_id.clone()];
            [&head[..], &[data, epoch.clone()]].concat()
        };
        let missed = self.rng.chance(self.knobs.miss_prob);
        let miss = missed as u64 * self.knobs.miss_delay;
        let cancel = missed && self.rng.chance(self.knobs.cancel_prob);
        let cancelled = |r: (u64, Vec<Bits>)| {
            if cancel {
                (r.0, resp(CRSP_CANCEL, Bits::zero(256)))
            } else {
                r
            }
        };
        let (due, item) = match kind {
            CREQ_IFETCH => {
                let a = addr.to_u64() as u32;
                if !a.is_multiple_of(32) {
                    return Err(TbError::new(format!("IFETCH of unaligned {a:#x}")));
                }
                let d = self.delay(self.knobs.fetch_delay) + miss;
                cancelled((
                    d,
                    resp(CRSP_CHUNK, Bits::from_le_bytes(&self.mem.chunk(a), 256)),
                ))
            }
            CREQ_TEXREAD => {
                let hit = self.rng.chance(self.knobs.tex_hit);
                if hit {
                    (self.rng.below(2), resp(CRSP_TEXREADY, Bits::zero(256)))
                } else {
                    let d = self.delay(self.knobs.tex_delay) + miss;
                    cancelled((d, resp(CRSP_TEXREADY, Bits::zero(256))))
                }
            }
            CREQ_PIPE => {
                let byte = op.to_u64() as u8;
                let opcode = Opcode::from_byte(byte)
                    .ok_or_else(|| TbError::new(format!("PIPE op {byte:#x}")))?;
                *report.ops.entry(byte).or_default() += 1;
                let bytes = args.to_le_bytes();
                let words: Vec<u32> = (0..10)
                    .map(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
                    .collect();
                let n = opcode.pops() as usize;
                if words[n..].iter().any(|w| *w != 0) {
                    return Err(TbError::new(format!(
                        "{opcode:?}: args beyond {n} not zero: {words:x?}"
                    )));
                }
                let out = pipeline(opcode, imm.to_u64() as u32, &words[..n], &self.mem)
                    .map_err(|e| TbError::new(format!("{opcode:?} undefined: {e}")))?;
                let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
                (
                    self.delay(self.knobs.pipe_delay),
                    resp(CRSP_PIPE, Bits::from_le_bytes(&bytes, 256)),
                )
            }
            k => return Err(TbError::new(format!("creq kind {k}"))),
        };
        Ok(Answer {
            due: now + due,
            item,
        })
    }

    /// Sends `rays` into the core and runs until each has left with a final reason (parked rays
    /// are re-sent from where they stopped once nothing is in flight for them); checks every
    /// departure against the model.
    pub fn run(
        &mut self,
        sim: &mut Simulator,
        rays: &[Ray],
        max_cycles: u64,
    ) -> Result<Report, TbError> {
        let depth = self.cfg.stack_depth;
        let mut latest: HashMap<u32, Ray> = HashMap::new();
        for r in rays {
            if latest.insert(r.ray_id, r.clone()).is_some() {
                return Err(TbError::new(format!("ray id {} twice", r.ray_id)));
            }
            self.send(r)?;
        }
        let mut report = Report::default();
        let mut answers: Vec<Answer> = Vec::new();
        let mut parked: Vec<Ray> = Vec::new();
        let (mut seen_req, mut seen_done, mut finished) = (0, 0, 0);
        sim.reset(2);
        let start = sim.cycle();
        let wd = Watchdog::new(max_cycles, 0);
        let result = wd.run_until(sim, "every ray to finish", |sim| {
            let now = sim.cycle();
            // Due answers go to crsp in due order. Parked rays go back at once, while answers
            // to their earlier requests may still be due: those carry the slot's earlier epoch
            // and must be dropped, even when the ray lands in the same slot again.
            answers.sort_by_key(|a| a.due);
            while answers.first().is_some_and(|a| a.due <= now) {
                let a = answers.remove(0);
                self.crsp.send_bits(a.item)?;
            }
            for r in parked.drain(..) {
                self.send(&r)?;
            }
            let stop = self.rng.chance(self.knobs.stop_prob);
            sim.poke(self.stop_valid, stop as u64);
            sim.poke(self.stop_slot, self.rng.below(self.cfg.slots as u64));
            // Either epoch: a stop for the slot's earlier occupant must be dropped.
            sim.poke(self.stop_epoch, self.rng.below(2));
            self.assign.drive(sim);
            self.crsp.drive(sim);
            self.creq.drive(sim);
            self.done.drive(sim);
            self.assign.sample(sim);
            self.crsp.sample(sim);
            self.creq.sample(sim);
            self.done.sample(sim);
            self.creq.protocol_result()?;
            self.done.protocol_result()?;
            if sim.peek(self.busy) >> self.cfg.slots != 0 {
                return Err(TbError::new("busy has bits beyond the slots"));
            }
            let reqs: Vec<Vec<Bits>> = self.creq.items()[seen_req..].to_vec();
            seen_req += reqs.len();
            for r in &reqs {
                let a = self.answer(r, now, &mut report)?;
                answers.push(a);
            }
            let outs: Vec<Vec<Bits>> = self.done.items()[seen_done..].to_vec();
            seen_done += outs.len();
            for o in &outs {
                let fin = check(&self.mem, o, &latest, depth)?;
                if fin.reason == Reason::Parked {
                    let r = Ray {
                        ray_id: fin.ray_id,
                        inst_addr: fin.inst_addr,
                        index: fin.index,
                        stack: fin.stack.clone(),
                    };
                    latest.insert(r.ray_id, r.clone());
                    parked.push(r);
                } else {
                    finished += 1;
                }
                report.left.push(fin);
                report.left_at.push(now);
            }
            Ok(finished == rays.len())
        });
        report.cycles = sim.cycle() - start;
        result.map(|_| report)
    }
}
