//! A byte-accurate external memory on a simulated design's memory port (the tile engine's
//! `mem_req`/`mem_resp` protocol, `rendergen_rtl::tile::mem_port`): reads and write bursts of
//! 64-bit little-endian beats, answers in request order after a seeded random latency, with
//! random back-pressure on requests and gaps on answers.
//!
//! * **Ordering:** a read returns the bytes as they were when it was accepted (every write
//!   beat accepted before it is stored, none after).
//! * **Poison:** every byte starts as [`MemCfg::poison`]; [`MemoryAgent::was_written`] tells a
//!   byte the design (or [`MemoryAgent::load`]) stored from one still poisoned.
//! * **Regions:** named address ranges ([`MemoryAgent::region`]) count the bytes read and
//!   written through the port (a write counts the bytes whose strobe is set, and so does a
//!   single-beat read with a nonzero strobe, a narrow read; other reads count every byte of
//!   their beats); loads through
//!   [`MemoryAgent::load`] are not traffic. [`MemoryAgent::assert_not_written`] is the
//!   assertion "no byte written in region R"; [`MemoryAgent::stray_writes`] counts the bytes
//!   written outside every region (once regions are declared, a design that writes there has
//!   overrun a buffer).
//! * **Protocol checks** (reported by [`MemoryAgent::check`]): beat alignment, bursts inside
//!   the memory and not crossing 4 KiB, write bursts contiguous with a constant address and
//!   length and `last` exactly on the final beat, the transfer rules on `mem_resp`'s consumer
//!   side are the design's business (the agent holds each answer until taken).
//!
//! Per cycle the agent only pokes and peeks resolved ports; its queues are allocated once.
use crate::engine::{InputId, OutputId, Simulator};
use crate::kit::{Rng, TbError};
use std::collections::VecDeque;

/// Bytes of a beat.
pub const BEAT_BYTES: u64 = 8;

/// Timing and contents of the memory.
#[derive(Clone, Debug, PartialEq)]
pub struct MemCfg {
    /// Bytes of memory, addresses `0 .. size`.
    pub size: usize,
    /// Fewest cycles from a request's acceptance (a write burst's last beat) to its answer (≥ 1).
    pub min_latency: u64,
    /// Most cycles from a request to its answer.
    pub max_latency: u64,
    /// Probability of holding `mem_req_ready` low in a cycle.
    pub stall: f64,
    /// Probability of not offering a due answer beat in a cycle.
    pub gap: f64,
    /// Value of never-written bytes.
    pub poison: u8,
    /// Requests (reads or write bursts) accepted and not yet answered, at most.
    pub max_outstanding: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for MemCfg {
    fn default() -> Self {
        MemCfg {
            size: 1 << 20,
            min_latency: 1,
            max_latency: 1,
            stall: 0.0,
            gap: 0.0,
            poison: 0xA5,
            max_outstanding: 8,
            seed: 1,
        }
    }
}

/// A named address range and its traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Name (in messages).
    pub name: String,
    /// First byte.
    pub base: u64,
    /// Bytes.
    pub len: u64,
    /// Bytes read through the port.
    pub read_bytes: u64,
    /// Bytes written through the port.
    pub written_bytes: u64,
    /// The first byte written through the port, if any.
    pub first_write: Option<u64>,
}

/// An accepted request waiting for its answer.
#[derive(Clone, Copy, Debug)]
struct Pending {
    due: u64,
    write: bool,
    beats: u64,
    next_beat: u64,
    /// A read's beats, taken when it was accepted.
    data: [u64; 16],
}

/// A write burst being received.
#[derive(Clone, Copy, Debug)]
struct Burst {
    addr: u64,
    beats: u64,
    beat: u64,
}

/// Resolved ports (the design's side: `mem_req` is its output stream, `mem_resp` its input).
struct Ports {
    req_valid: OutputId,
    req_ready: InputId,
    req_write: OutputId,
    req_addr: OutputId,
    req_beats: OutputId,
    req_data: OutputId,
    req_strobe: OutputId,
    req_last: OutputId,
    resp_valid: InputId,
    resp_ready: OutputId,
    resp_data: InputId,
    resp_last: InputId,
    resp_write: InputId,
}

/// The memory agent (module docs).
pub struct MemoryAgent {
    cfg: MemCfg,
    ports: Ports,
    bytes: Vec<u8>,
    written: Vec<u64>,
    regions: Vec<Region>,
    pending: VecDeque<Pending>,
    burst: Option<Burst>,
    rng: Rng,
    cycle: u64,
    last_due: u64,
    ready_now: bool,
    offering: bool,
    errors: Vec<String>,
    write_bursts: u64,
    reads: u64,
    stray: (u64, Option<u64>),
}

impl MemoryAgent {
    /// The memory on the ports `prefix_req_*` and `prefix_resp_*` of `sim` (`prefix` is
    /// usually `mem`).
    pub fn new(sim: &Simulator, prefix: &str, cfg: MemCfg) -> Result<MemoryAgent, TbError> {
        let o = |f: &str| sim.output(&format!("{prefix}_req_{f}"));
        let i = |f: &str| sim.input(&format!("{prefix}_resp_{f}"));
        let ports = Ports {
            req_valid: o("valid")?,
            req_ready: sim.input(&format!("{prefix}_req_ready"))?,
            req_write: o("write")?,
            req_addr: o("addr")?,
            req_beats: o("beats")?,
            req_data: o("data")?,
            req_strobe: o("strobe")?,
            req_last: o("last")?,
            resp_valid: i("valid")?,
            resp_ready: sim.output(&format!("{prefix}_resp_ready"))?,
            resp_data: i("data")?,
            resp_last: i("last")?,
            resp_write: i("write")?,
        };
        if cfg.min_latency == 0 || cfg.max_latency < cfg.min_latency || cfg.max_outstanding == 0 {
            return Err(TbError::new(format!(
                "memory agent: latency {}..={} and max_outstanding {} (need 1 ≤ min ≤ max, ≥ 1)",
                cfg.min_latency, cfg.max_latency, cfg.max_outstanding
            )));
        }
        Ok(MemoryAgent {
            bytes: vec![cfg.poison; cfg.size],
            written: vec![0; cfg.size.div_ceil(64)],
            regions: Vec::new(),
            pending: VecDeque::with_capacity(cfg.max_outstanding + 1),
            burst: None,
            rng: Rng::new(cfg.seed),
            cycle: 0,
            last_due: 0,
            ready_now: false,
            offering: false,
            errors: Vec::new(),
            write_bursts: 0,
            reads: 0,
            stray: (0, None),
            ports,
            cfg,
        })
    }

    /// Declares a named region `base .. base + len`; returns its index.
    pub fn region(&mut self, name: &str, base: u64, len: u64) -> usize {
        self.regions.push(Region {
            name: name.to_string(),
            base,
            len,
            read_bytes: 0,
            written_bytes: 0,
            first_write: None,
        });
        self.regions.len() - 1
    }

    /// Every region with its counters.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The region called `name`.
    pub fn region_named(&self, name: &str) -> Result<&Region, TbError> {
        (self.regions.iter().find(|r| r.name == name))
            .ok_or_else(|| TbError::new(format!("memory agent: no region `{name}`")))
    }

    /// The assertion "no byte written in region `name`" (through the port).
    pub fn assert_not_written(&self, name: &str) -> Result<(), TbError> {
        let r = self.region_named(name)?;
        match r.first_write {
            None => Ok(()),
            Some(a) => Err(TbError::new(format!(
                "memory: {} bytes written in region `{name}` ({:#x}..{:#x}), the first at {a:#x}",
                r.written_bytes,
                r.base,
                r.base + r.len
            ))),
        }
    }

    /// Bytes written through the port outside every declared region, and the first such
    /// address (none when no region is declared: then nothing is "outside").
    pub fn stray_writes(&self) -> (u64, Option<u64>) {
        self.stray
    }

    /// The assertion "every byte written through the port lies in a declared region".
    pub fn assert_no_stray_writes(&self) -> Result<(), TbError> {
        match self.stray {
            (_, None) => Ok(()),
            (n, Some(a)) => {
                let near = (self.regions.iter())
                    .filter(|r| r.base + r.len <= a)
                    .max_by_key(|r| r.base + r.len)
                    .map_or(String::new(), |r| {
                        format!(
                            " ({} bytes past the end of region `{}`)",
                            a + 1 - (r.base + r.len),
                            r.name
                        )
                    });
                Err(TbError::new(format!(
                    "memory: {n} bytes written outside every region, the first at {a:#x}{near}"
                )))
            }
        }
    }

    /// Stores `data` at `addr` without traffic (a preloaded buffer: command lists, inputs).
    pub fn load(&mut self, addr: u64, data: &[u8]) {
        for (k, b) in data.iter().enumerate() {
            self.store(addr + k as u64, *b);
        }
    }

    /// The bytes `addr .. addr + len`.
    pub fn bytes(&self, addr: u64, len: usize) -> &[u8] {
        &self.bytes[addr as usize..addr as usize + len]
    }

    /// Whether byte `addr` was ever stored (else it holds the poison value).
    pub fn was_written(&self, addr: u64) -> bool {
        self.written[addr as usize / 64] >> (addr % 64) & 1 != 0
    }

    /// Write bursts and reads answered so far.
    pub fn transactions(&self) -> (u64, u64) {
        (self.write_bursts, self.reads)
    }

    /// Requests accepted and not yet answered (a write burst counts once it is complete).
    pub fn outstanding(&self) -> usize {
        self.pending.len() + self.burst.is_some() as usize
    }

    /// The protocol violations seen, if any (the first few, with cycles).
    pub fn check(&self) -> Result<(), TbError> {
        match self.errors.first() {
            None => Ok(()),
            Some(_) => Err(TbError::new(format!(
                "memory protocol: {}",
                self.errors.join("; ")
            ))),
        }
    }

    fn store(&mut self, addr: u64, b: u8) {
        self.bytes[addr as usize] = b;
        self.written[addr as usize / 64] |= 1 << (addr % 64);
    }

    fn error(&mut self, message: String) {
        if self.errors.len() < 8 {
            self.errors.push(format!("cycle {}: {message}", self.cycle));
        }
    }

    fn count(&mut self, addr: u64, n: u64, write: bool) {
        let mut inside = 0;
        for r in &mut self.regions {
            let lo = addr.max(r.base);
            let hi = (addr + n).min(r.base + r.len);
            if lo < hi {
                inside += hi - lo;
                if write {
                    r.written_bytes += hi - lo;
                    r.first_write.get_or_insert(lo);
                } else {
                    r.read_bytes += hi - lo;
                }
            }
        }
        if write && inside < n && !self.regions.is_empty() {
            self.stray.0 += n - inside;
            self.stray.1.get_or_insert(addr);
        }
    }

    /// Checks a burst's address; false (and an error) when it cannot be served.
    fn burst_ok(&mut self, addr: u64, beats: u64) -> bool {
        let end = addr + beats * BEAT_BYTES;
        let bad = if !addr.is_multiple_of(BEAT_BYTES) {
            "is not aligned to 8 bytes"
        } else if end > self.cfg.size as u64 {
            "ends outside the memory"
        } else if addr / 4096 != (end - 1) / 4096 {
            "crosses a 4 KiB boundary"
        } else {
            return true;
        };
        self.error(format!("a burst of {beats} beats at {addr:#x} {bad}"));
        false
    }

    fn due(&mut self) -> u64 {
        let lat = self.cfg.min_latency
            + self
                .rng
                .below(self.cfg.max_latency - self.cfg.min_latency + 1);
        self.last_due = (self.cycle + lat).max(self.last_due);
        self.last_due
    }

    /// Phase 1: drives `mem_req_ready` and the answer on offer.
    pub fn drive(&mut self, sim: &mut Simulator) {
        let room = self.pending.len() < self.cfg.max_outstanding;
        self.ready_now = room && !self.rng.chance(self.cfg.stall);
        sim.poke(self.ports.req_ready, self.ready_now as u64);
        if !self.offering {
            if let Some(&p) = self.pending.front() {
                if p.due <= self.cycle && !self.rng.chance(self.cfg.gap) {
                    self.offering = true;
                    let (data, last) = match p.write {
                        true => (0, true),
                        false => (p.data[p.next_beat as usize], p.next_beat == p.beats - 1),
                    };
                    sim.poke(self.ports.resp_data, data);
                    sim.poke(self.ports.resp_last, last as u64);
                    sim.poke(self.ports.resp_write, p.write as u64);
                }
            }
        }
        sim.poke(self.ports.resp_valid, self.offering as u64);
    }

    /// Phase 2: takes this cycle's request beat and sees whether the answer was taken; then
    /// counts the cycle.
    pub fn sample(&mut self, sim: &mut Simulator) {
        if self.offering && sim.peek(self.ports.resp_ready) != 0 {
            self.offering = false;
            let p = self
                .pending
                .front_mut()
                .expect("an answer on offer is pending");
            p.next_beat += 1;
            if p.write {
                self.write_bursts += 1;
                self.pending.pop_front();
            } else if p.next_beat == p.beats {
                self.reads += 1;
                self.pending.pop_front();
            }
        }
        if self.ready_now && sim.peek(self.ports.req_valid) != 0 {
            self.request(sim);
        }
        self.cycle += 1;
    }

    fn request(&mut self, sim: &mut Simulator) {
        let write = sim.peek(self.ports.req_write) != 0;
        let addr = sim.peek(self.ports.req_addr);
        let beats = sim.peek(self.ports.req_beats) + 1;
        if !write {
            if let Some(b) = self.burst {
                self.error(format!(
                    "a read interleaved with the write burst at {:#x} (beat {})",
                    b.addr, b.beat
                ));
            }
            if self.burst_ok(addr, beats) {
                // A single-beat read with a nonzero strobe is a narrow read: only the bytes it
                // marks count (`rtl/tile/mem_port.rs`).
                let strobe = sim.peek(self.ports.req_strobe);
                if beats == 1 && strobe != 0 {
                    for k in (0..BEAT_BYTES).filter(|k| strobe >> k & 1 != 0) {
                        self.count(addr + k, 1, false);
                    }
                } else {
                    self.count(addr, beats * BEAT_BYTES, false);
                }
                let mut data = [0u64; 16];
                for (k, d) in data.iter_mut().enumerate().take(beats as usize) {
                    let a = addr as usize + 8 * k;
                    let mut w = [0u8; 8];
                    w.copy_from_slice(&self.bytes[a..a + 8]);
                    *d = u64::from_le_bytes(w);
                }
                let due = self.due();
                self.pending.push_back(Pending {
                    due,
                    write,
                    beats,
                    next_beat: 0,
                    data,
                });
            }
            return;
        }
        let data = sim.peek(self.ports.req_data);
        let strobe = sim.peek(self.ports.req_strobe);
        let last = sim.peek(self.ports.req_last) != 0;
        let mut b = match self.burst {
            Some(b) => b,
            None => Burst {
                addr,
                beats,
                beat: 0,
            },
        };
        if (b.addr, b.beats) != (addr, beats) {
            self.error(format!(
                "beat {} of the write burst at {:#x} ({} beats) says {addr:#x} ({beats} beats)",
                b.beat, b.addr, b.beats
            ));
        }
        if last != (b.beat + 1 == b.beats) {
            self.error(format!(
                "beat {} of {} of the write burst at {:#x} has last = {last}",
                b.beat, b.beats, b.addr
            ));
        }
        if b.beat == 0 && !self.burst_ok(b.addr, b.beats) {
            b.addr = u64::MAX;
        }
        if b.addr != u64::MAX {
            let base = b.addr + b.beat * BEAT_BYTES;
            for k in 0..BEAT_BYTES {
                if strobe >> k & 1 != 0 {
                    self.store(base + k, (data >> (8 * k)) as u8);
                    self.count(base + k, 1, true);
                }
            }
        }
        b.beat += 1;
        if last || b.beat == b.beats {
            self.burst = None;
            let due = self.due();
            self.pending.push_back(Pending {
                due,
                write: true,
                beats: b.beats,
                next_beat: 0,
                data: [0; 16],
            });
        } else {
            self.burst = Some(b);
        }
    }
}
