//! The SM's direct pipeline requests (§6.4, Figs. 8–9): per SM port `k`, requests on
//! `sm{k}_req` in a configurable pattern, results on `sm{k}_resp` checked against the golden
//! pipeline models by tag.

use crate::engine::Simulator;
use crate::kit::{Rng, StreamSink, StreamSource, TbError};
use crate::models::pbru::pipes::{tex_a, tex_dp_block, PipeSetup};
use crate::models::texture_address::FOOTPRINTS;
use rendergen_hdl::Bits;
use rendergen_isa::{Class, Opcode, PipeKind};
use std::collections::HashMap;

/// When an SM port issues direct requests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SmLoad {
    /// Probability of a new request in each cycle.
    pub prob: f64,
    /// Cycles in which a request is queued.
    pub cycles: Vec<u64>,
    /// Back-to-back bursts: (first cycle, requests), one queued per cycle.
    pub bursts: Vec<(u64, u32)>,
    /// Target instances (indices into the engine's pipe list); empty = all.
    pub targets: Vec<u32>,
    /// Stop issuing after this many requests per port (0 = no limit).
    pub max_requests: u64,
}

impl SmLoad {
    /// The cycle after the last scripted request (cycles and bursts).
    pub fn scripted_end(&self) -> u64 {
        let c = self.cycles.iter().map(|c| c + 1);
        let b = self.bursts.iter().map(|(s, n)| s + *n as u64);
        c.chain(b).max().unwrap_or(0)
    }

    fn fires(&self, now: u64, rng: &mut Rng) -> bool {
        let burst = (self.bursts.iter()).any(|(s, n)| now >= *s && now < s + *n as u64);
        burst || self.cycles.contains(&now) || (self.prob > 0.0 && rng.chance(self.prob))
    }
}

struct Port {
    req: StreamSource,
    resp: StreamSink,
    req_names: Vec<String>,
    resp_names: Vec<String>,
    expected: HashMap<u64, (u32, Vec<u32>, String)>,
    next_tag: u64,
    issued: u64,
}

/// The SM direct-request agent over every `sm{k}_req`/`sm{k}_resp` port of the top.
pub struct SmPipes {
    ports: Vec<Port>,
    pipes: Vec<PipeKind>,
    /// Test fixtures and the cel table of the engine (for the expected results).
    setup: PipeSetup,
    load: SmLoad,
    rng: Rng,
    now: u64,
    /// Results received and matching.
    pub matched: u64,
    /// Results wrong, unexpected or for an unknown tag; the first few, described.
    pub mismatches: Vec<String>,
    /// Mismatch count.
    pub mismatch_count: u64,
}

/// Packs 32-bit words (word 0 in bits 31..0).
fn pack(words: &[u32], width: u32) -> Bits {
    let w64: Vec<u64> = (words.chunks(2))
        .map(|p| p[0] as u64 | (p.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect();
    Bits::from_words(&w64, width)
}

impl SmPipes {
    /// The agent on every SM port found (`sm0_req`, `sm1_req`, …); `pipes` are the engine's
    /// instances in order (the `pipe` field indexes them).
    pub fn new(
        sim: &Simulator,
        pipes: Vec<PipeKind>,
        load: SmLoad,
        seed: u64,
    ) -> Result<SmPipes, TbError> {
        let mut ports = Vec::new();
        for k in 0.. {
            let name = format!("sm{k}_req");
            if sim.input(&format!("{name}_valid")).is_err() {
                break;
            }
            let req = StreamSource::new(sim, &name, seed + k)?;
            let resp = StreamSink::new(sim, &format!("sm{k}_resp"), seed + 100 + k)?;
            let strip =
                |v: Vec<&str>, p: &str| v.iter().map(|n| n[p.len() + 1..].to_string()).collect();
            ports.push(Port {
                req_names: strip(req.fields(), &name),
                resp_names: strip(resp.fields(), &format!("sm{k}_resp")),
                req,
                resp,
                expected: HashMap::new(),
                next_tag: 0,
                issued: 0,
            });
        }
        Ok(SmPipes {
            ports,
            pipes,
            setup: PipeSetup::default(),
            load,
            rng: Rng::new(seed ^ 0x5A5A),
            now: 0,
            matched: 0,
            mismatches: Vec::new(),
            mismatch_count: 0,
        })
    }

    /// The same agent for an engine whose instances of the kinds in `fixtures` hold the test
    /// fixture (their answers are checked against it).
    pub fn with_fixtures(self, fixtures: &[PipeKind]) -> SmPipes {
        self.with_setup(&PipeSetup::with_fixtures(fixtures))
    }

    /// The same agent for an engine set up as `setup` says (test fixtures, cel table).
    pub fn with_setup(mut self, setup: &PipeSetup) -> SmPipes {
        self.setup = setup.clone();
        self
    }

    /// The engine's pipeline instances, in order.
    pub fn pipes(&self) -> &[PipeKind] {
        &self.pipes
    }

    /// Queues one request on SM port 0 to instance `pipe`: `op` with immediate `imm` and
    /// arguments `args` (`[0]` pushed first), whose result words must equal `expected`.
    pub fn queue(
        &mut self,
        pipe: u32,
        op: Opcode,
        imm: u32,
        args: Vec<u32>,
        expected: Vec<u32>,
    ) -> Result<(), TbError> {
        if pipe as usize >= self.pipes.len() {
            return Err(TbError::new(format!(
                "SM request to pipe {pipe}; the engine has {} instances",
                self.pipes.len()
            )));
        }
        let Some(port) = self.ports.first_mut() else {
            return Err(TbError::new("the engine has no SM request port (sm0_req)"));
        };
        Self::push(port, pipe, op, imm, args, expected)
    }

    /// Queues a request on `port`, expecting `out` from instance `pipe`.
    fn push(
        port: &mut Port,
        pipe: u32,
        op: Opcode,
        imm: u32,
        args: Vec<u32>,
        out: Vec<u32>,
    ) -> Result<(), TbError> {
        let tag = port.next_tag & 0xFFFF;
        port.next_tag += 1;
        port.issued += 1;
        let what = format!("{} imm {imm} args {args:x?}", op.mnemonic());
        port.expected.insert(tag, (pipe, out, what));
        let item = port.req_names.iter().map(|n| match n.as_str() {
            "pipe" => Bits::from_u64(pipe as u64, 64),
            "op" => Bits::from_u64(op as u64, 64),
            "imm" => Bits::from_u64(imm as u64, 64),
            "tag" => Bits::from_u64(tag, 64),
            _ => pack(&args, 32 * args.len() as u32),
        });
        port.req.send_bits(item.collect())
    }

    /// Issues no further requests.
    pub fn stop(&mut self) {
        self.load = SmLoad::default();
    }

    /// True until every scripted request has been queued.
    pub fn scripted_pending(&self) -> bool {
        self.now < self.load.scripted_end()
    }

    /// Requests still unanswered (queued or in flight).
    pub fn outstanding(&self) -> usize {
        self.ports.iter().map(|p| p.expected.len()).sum()
    }

    /// Requests issued so far.
    pub fn issued(&self) -> u64 {
        self.ports.iter().map(|p| p.issued).sum()
    }

    /// A random request to instance `pipe`: (op, imm, args, expected words).
    fn request(&mut self, pipe: u32) -> (Opcode, u32, Vec<u32>, Vec<u32>) {
        let kind = self.pipes[pipe as usize];
        let ops: Vec<Opcode> = (Opcode::ALL.iter().copied())
            .filter(|o| matches!(o.class(), Class::Pipeline { kind: k, .. } if k == kind))
            .collect();
        let op = ops[self.rng.below(ops.len() as u64) as usize];
        let r = &mut self.rng;
        let (fw, fh) = FOOTPRINTS[r.below(14) as usize];
        match kind {
            PipeKind::AstcA => {
                let dims = (1 + r.below(2048) as u32) << 16 | (1 + r.below(2048) as u32);
                let format = fw | fh << 4 | (1 + r.below(12) as u32) << 8;
                let a = vec![
                    r.next_u64() as u32,
                    r.next_u64() as u32,
                    r.below(0x1_0000) as u32,
                    r.next_u64() as u32,
                    dims,
                    format,
                ];
                let out = tex_a(&a).to_vec();
                (op, 0, a, out)
            }
            PipeKind::AstcDp => {
                let block: [u8; 16] = std::array::from_fn(|_| r.below(256) as u8);
                let (tx, ty) = (r.below(fw as u64) as u32, r.below(fh as u64) as u32);
                let p = r.below(3) as u32;
                let out = tex_dp_block(p, &block, tx, ty, fw | fh << 4)
                    .expect("legal footprint")
                    .to_vec();
                let mut a: Vec<u32> = block
                    .chunks(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                a.extend([tx, ty, fw | fh << 4]);
                (op, p, a, out)
            }
            _ => {
                let a: Vec<u32> = (0..op.pops()).map(|_| r.next_u64() as u32).collect();
                let out = self.setup.shade(op, 0, &a);
                (op, 0, a, out)
            }
        }
    }

    /// Phase 1: queues this cycle's requests, drives the ports.
    pub fn drive(&mut self, sim: &mut Simulator) -> Result<(), TbError> {
        for k in 0..self.ports.len() {
            let limit = self.load.max_requests;
            if (limit > 0 && self.ports[k].issued >= limit)
                || !self.load.fires(self.now, &mut self.rng)
            {
                continue;
            }
            let targets: Vec<u32> = if self.load.targets.is_empty() {
                (0..self.pipes.len() as u32).collect()
            } else {
                self.load.targets.clone()
            };
            let pipe = targets[self.rng.below(targets.len() as u64) as usize];
            let (op, imm, args, out) = self.request(pipe);
            Self::push(&mut self.ports[k], pipe, op, imm, args, out)?;
        }
        for p in &mut self.ports {
            p.req.drive(sim);
            p.resp.drive(sim);
        }
        Ok(())
    }

    /// Phase 2: records transfers and checks results.
    pub fn sample(&mut self, sim: &mut Simulator) {
        self.now += 1;
        for p in &mut self.ports {
            p.req.sample(sim);
            p.resp.sample(sim);
            for item in p.resp.take_items() {
                let get = |n: &str| p.resp_names.iter().position(|x| x == n).map(|i| &item[i]);
                let tag = get("tag").map_or(0, |b| b.to_u64());
                let pipe = get("pipe").map_or(0, |b| b.to_u64() as u32);
                let words = get("data").map(|b| b.words().to_vec()).unwrap_or_default();
                let word =
                    |i: usize| (words.get(i / 2).copied().unwrap_or(0) >> (32 * (i % 2))) as u32;
                let problem = match p.expected.remove(&tag) {
                    None => Some(format!("result for unknown tag {tag}")),
                    Some((want_pipe, want, what)) => {
                        let got: Vec<u32> = (0..want.len()).map(word).collect();
                        (got != want || pipe != want_pipe).then(|| format!("tag {tag} ({what}): pipe {pipe} words {got:x?}, expected pipe {want_pipe} words {want:x?}"))
                    }
                };
                match problem {
                    None => self.matched += 1,
                    Some(m) => {
                        self.mismatch_count += 1;
                        if self.mismatches.len() < 8 {
                            self.mismatches.push(m);
                        }
                    }
                }
            }
        }
    }
}
