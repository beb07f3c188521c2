//! Testbenches of the PBRU core scheduler (`pbru.md` §4, §9.4; D3), run on `pbru_shell`: the
//! scheduler with its pipes and L0 caches, the testbench playing the cores, the SM,
//! the TTU and the L1.
//!
//! [`Tb`] resolves every port once; a cycle drives every agent, samples every agent, steps the
//! clock and reads the per-instance grant counters, so each test knows in which cycle each
//! instance took an SM or a core request.

mod cosim;
mod dispatch;
mod memory;
mod priority;
mod rays;
mod sm_ready;
mod top;

use rendergen_hdl::{Bits, Design};
use rendergen_rtl::pbru::ports::isa::{Opcode, PipeKind};
use rendergen_rtl::pbru::ports::{PbruCfg, PipeInst};
use rendergen_rtl::pbru::top::pbru_shell_top;
use rendergen_sim::kit::{StreamSink, StreamSource, TbError};
use rendergen_sim::{InputId, OutputId, Simulator};

/// A small configuration: test pipelines of the given types and latencies, 4-word stacks.
pub fn small_cfg(cores: u32, slots: u32, pipes: &[(PipeKind, u32)]) -> PbruCfg {
    PbruCfg {
        cores,
        slots,
        stack_depth: 4,
        icache_chunks: 4,
        tcache_blocks: 4,
        pipes: pipes
            .iter()
            .map(|&(kind, l)| PipeInst {
                kind,
                test_latency: Some(l),
            })
            .collect(),
        ..PbruCfg::default()
    }
}

/// The contract's test function (independent of the RTL).
pub fn test_fn(op: u8, imm: u8, args: &[u32]) -> Vec<u32> {
    let o = Opcode::from_byte(op).expect("an opcode");
    let sum = (0..o.pops() as usize).fold(0u32, |s, j| {
        s.wrapping_add((j as u32 + 1).wrapping_mul(args.get(j).copied().unwrap_or(0)))
    });
    (0..4)
        .map(|i| {
            if i < o.pushes() {
                sum.wrapping_add((i + 1).wrapping_mul(0x0001_0001))
                    .wrapping_add(imm as u32)
            } else {
                0
            }
        })
        .collect()
}

/// Words (word 0 lowest) as a bit vector of `width` bits.
pub fn words(ws: &[u32], width: u32) -> Bits {
    let mut v = vec![0u64; width.div_ceil(64) as usize];
    for (i, w) in ws.iter().enumerate() {
        v[i / 2] |= (*w as u64) << (32 * (i % 2));
    }
    Bits::from_words(&v, width)
}

/// The 32-bit words of `b`.
pub fn to_words(b: &Bits, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| (b.words().get(i / 2).copied().unwrap_or(0) >> (32 * (i % 2))) as u32)
        .collect()
}

/// Grant counters of one instance.
struct PerfIds {
    sm: OutputId,
    core: OutputId,
    last: (u64, u64),
}

/// The shell under test and every agent around it.
pub struct Tb {
    pub sim: Simulator,
    pub creq: Vec<StreamSource>,
    pub crsp: Vec<StreamSink>,
    pub done: Vec<StreamSource>,
    pub assign: Vec<StreamSink>,
    pub busy: Vec<InputId>,
    pub stop: Vec<(OutputId, OutputId, OutputId)>,
    pub sm_req: Vec<StreamSource>,
    pub sm_resp: Vec<StreamSink>,
    pub ray_in: [StreamSource; 2],
    pub ray_out: [StreamSink; 2],
    pub l1_req: StreamSink,
    pub l1_resp: StreamSource,
    perf: Vec<PerfIds>,
    /// Per cycle, per instance: (SM grant, core grant).
    pub grants: Vec<Vec<(bool, bool)>>,
    /// Per cycle, per core: the stop command, if any (its slot and epoch).
    pub stops: Vec<Vec<Option<(u64, u64)>>>,
}

impl Tb {
    /// Builds the shell of `cfg` and resets it.
    pub fn new(cfg: &PbruCfg) -> Tb {
        let design = Self::design(cfg);
        Self::with_design(cfg, &design, false)
    }

    /// The elaborated shell.
    pub fn design(cfg: &PbruCfg) -> Design {
        pbru_shell_top(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds the simulator for `design` (the shell of `cfg`); `record`: record the trace
    /// from the first cycle, reset included (for co-simulation).
    pub fn with_design(cfg: &PbruCfg, design: &Design, record: bool) -> Tb {
        let mut sim = Simulator::new(design).expect("simulates");
        if record {
            sim.start_recording();
        }
        let s = &sim;
        let src = |n: &str| StreamSource::new(s, n, 1).expect("port");
        let sink = |n: &str| StreamSink::new(s, n, 2).expect("port");
        let cores = 0..cfg.cores;
        let mut names = Vec::new();
        let mut seen = [0u32; 8];
        for p in &cfg.pipes {
            let t = p.kind.index() as usize;
            names.push(format!("perf_{}{}", p.kind.name(), seen[t]));
            seen[t] += 1;
        }
        // The testbench's cores always report an open intake; `assign`'s sink applies the
        // back-pressure.
        let open: Vec<_> = cores
            .clone()
            .map(|c| s.input(&format!("core{c}_open")).unwrap())
            .collect();
        let mut tb = Tb {
            creq: cores
                .clone()
                .map(|c| src(&format!("core{c}_creq")))
                .collect(),
            crsp: cores
                .clone()
                .map(|c| sink(&format!("core{c}_crsp")))
                .collect(),
            done: cores
                .clone()
                .map(|c| src(&format!("core{c}_done")))
                .collect(),
            assign: cores
                .clone()
                .map(|c| sink(&format!("core{c}_assign")))
                .collect(),
            busy: cores
                .clone()
                .map(|c| s.input(&format!("core{c}_busy")).unwrap())
                .collect(),
            stop: cores
                .clone()
                .map(|c| {
                    let port = |f: &str| s.output(&format!("core{c}_stop_{f}")).unwrap();
                    (port("valid"), port("slot"), port("epoch"))
                })
                .collect(),
            sm_req: (0..cfg.sm_ports)
                .map(|k| src(&format!("sm{k}_req")))
                .collect(),
            sm_resp: (0..cfg.sm_ports)
                .map(|k| sink(&format!("sm{k}_resp")))
                .collect(),
            ray_in: [src("sm_ray_in"), src("ttu_ray_in")],
            ray_out: [sink("sm_ray_out"), sink("ttu_ray_out")],
            l1_req: sink("l1_req"),
            l1_resp: src("l1_resp"),
            perf: names
                .iter()
                .map(|n| PerfIds {
                    sm: s.output(&format!("{n}_sm_grants")).unwrap(),
                    core: s.output(&format!("{n}_core_grants")).unwrap(),
                    last: (0, 0),
                })
                .collect(),
            grants: Vec::new(),
            stops: Vec::new(),
            sim,
        };
        for o in open {
            tb.sim.poke(o, 1);
        }
        tb.sim.reset(2);
        tb
    }

    /// Queues a core request: kind, slot, ray id, op, imm, args, addr. The slot's epoch is the
    /// ray id's low bit, so [`Tb::protocol`] can check that every answer carries it back.
    #[allow(clippy::too_many_arguments)]
    pub fn send_creq(
        &mut self,
        c: usize,
        kind: u64,
        slot: u64,
        ray: u64,
        op: u8,
        imm: u8,
        args: &[u32],
        addr: u64,
    ) {
        let item = vec![
            Bits::from_u64(kind, 2),
            Bits::from_u64(slot, 8),
            Bits::from_u64(ray, 16),
            Bits::from_u64(op as u64, 8),
            Bits::from_u64(imm as u64, 8),
            words(args, 320),
            Bits::from_u64(addr, 32),
            Bits::from_u64(ray & 1, 1),
        ];
        self.creq[c].send_bits(item).expect("fits");
    }

    /// Queues an SM request to instance `pipe`.
    pub fn send_sm(&mut self, k: usize, pipe: u64, op: u8, imm: u8, args: &[u32], tag: u64) {
        let item = vec![
            Bits::from_u64(pipe, 5),
            Bits::from_u64(op as u64, 8),
            Bits::from_u64(imm as u64, 8),
            words(args, 320),
            Bits::from_u64(tag, 16),
        ];
        self.sm_req[k].send_bits(item).expect("fits");
    }

    /// One clock cycle: every agent drives, every agent samples, the clock steps, and the
    /// grant counters are read.
    pub fn cycle(&mut self) {
        let sim = &mut self.sim;
        macro_rules! each {
            ($method:ident) => {
                for a in (self.creq.iter_mut())
                    .chain(self.done.iter_mut())
                    .chain(self.sm_req.iter_mut())
                    .chain(self.ray_in.iter_mut())
                    .chain(std::iter::once(&mut self.l1_resp))
                {
                    a.$method(sim);
                }
                for a in (self.crsp.iter_mut())
                    .chain(self.assign.iter_mut())
                    .chain(self.sm_resp.iter_mut())
                    .chain(self.ray_out.iter_mut())
                    .chain(std::iter::once(&mut self.l1_req))
                {
                    a.$method(sim);
                }
            };
        }
        each!(drive);
        each!(sample);
        let stops = (self.stop.iter())
            .map(|(v, s, e)| (sim.peek(*v) != 0).then(|| (sim.peek(*s), sim.peek(*e))))
            .collect();
        self.stops.push(stops);
        sim.step();
        let mut g = Vec::new();
        for p in &mut self.perf {
            let now = (sim.peek(p.sm), sim.peek(p.core));
            g.push((now.0 != p.last.0, now.1 != p.last.1));
            p.last = now;
        }
        self.grants.push(g);
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: usize) {
        for _ in 0..n {
            self.cycle();
        }
    }

    /// Cycles (since the start) in which instance `p` took a core request.
    pub fn core_grants(&self, p: usize) -> Vec<usize> {
        (self.grants.iter().enumerate())
            .filter(|(_, g)| g[p].1)
            .map(|(t, _)| t)
            .collect()
    }

    /// Cycles in which instance `p` took an SM request.
    pub fn sm_grants(&self, p: usize) -> Vec<usize> {
        (self.grants.iter().enumerate())
            .filter(|(_, g)| g[p].0)
            .map(|(t, _)| t)
            .collect()
    }

    /// Every sink's protocol check, and every core answer carries its request's epoch (the ray
    /// id's low bit, see [`Tb::send_creq`]).
    pub fn protocol(&mut self) -> Result<(), TbError> {
        for (c, sink) in self.crsp.iter().enumerate() {
            for item in sink.items() {
                let (ray, epoch) = (item[2].to_u64(), item[4].to_u64());
                if epoch != ray & 1 {
                    return Err(TbError::new(format!(
                        "core {c}: answer for ray {ray} carries epoch {epoch}"
                    )));
                }
            }
        }
        let sinks: Vec<&StreamSink> = (self.crsp.iter())
            .chain(&self.assign)
            .chain(&self.sm_resp)
            .chain(&self.ray_out)
            .chain(std::iter::once(&self.l1_req))
            .collect();
        sinks.iter().try_for_each(|s| s.protocol_result())
    }
}
