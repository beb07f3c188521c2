//! The random design generator: a seeded [`Spec`] elaborates into a module of random logic
//! through the public builder API only.
//!
//! A module starts from its inputs, some constants and the outputs of its registers and
//! memory read ports (declared first, driven last, so every cycle through logic passes a
//! register or a memory), then applies random operations to a pool of signals, matching
//! widths by slicing at a random offset or zero/sign extending. Child modules (up to two
//! levels below a fuzz design) are further specs, sometimes instantiated twice (one
//! definition, two instances). The outputs are a few random pool entries plus a digest: the
//! XOR of every pool entry cut into 128-bit chunks, so every node is observed.

use rendergen_hdl::{cat, lut, lut_wide, select, Bits, Mem, Module, Reg, Sig};
use rendergen_sim::kit::Rng;

/// The seed and shape of one random module: the generator's `cfg` (`Module::child` keys its
/// definitions on it, so equal specs share a definition).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    /// Seed of everything inside the module.
    pub seed: u64,
    /// Nesting depth (0 for a fuzz design; children are made while `depth < MAX_DEPTH`).
    pub depth: u32,
    /// Widths of the inputs.
    pub inputs: Vec<u32>,
    /// Also make the shapes of known, reported emitter bugs ([`KNOWN_BUGS_ENV`]); off, the
    /// generator steers around them so the fuzzer keeps finding new ones.
    pub known_bugs: bool,
}

/// Set to `1` to generate the shapes of the known emitter bugs too (see the module docs of
/// [`crate::fuzz`]): a lookup table whose entries are all zero (a `reg` driven by `assign`,
/// which iverilog rejects), a `case` on a constant index over constant values (an
/// `always @*` without sensitivities, which iverilog never runs: X), and memories whose depth
/// is not a power of two (a read beyond the depth: 0 in the simulator, X in iverilog), and a
/// shift by a constant amount wider than 32 bits (Verilator: "Value too wide for 32-bits").
pub const KNOWN_BUGS_ENV: &str = "RENDERGEN_FUZZ_KNOWN_BUGS";

/// True when [`KNOWN_BUGS_ENV`] is `1`.
pub fn known_bugs_from_env() -> bool {
    std::env::var(KNOWN_BUGS_ENV).is_ok_and(|v| v.trim() == "1")
}

/// Deepest child level.
const MAX_DEPTH: u32 = 2;
/// Widest signal the generator makes on purpose (widening operations may go further).
pub const MAX_WIDTH: u32 = 200;

impl Spec {
    /// The spec of fuzz design `index` of the batch seeded `seed`: 1–5 inputs of 1–200 bits.
    pub fn design(seed: u64, index: usize) -> Spec {
        let mut rng = Rng::new(seed ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407));
        let seed = rng.next_u64();
        let n = 1 + rng.below(5) as usize;
        let inputs = (0..n).map(|_| random_width(&mut rng)).collect();
        Spec {
            seed,
            depth: 0,
            inputs,
            known_bugs: known_bugs_from_env(),
        }
    }
}

/// 1–200 bits, biased towards the word edges (1, 63, 64, 65, 127, 128, 129) and small widths.
pub fn random_width(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0 => [1, 2, 8, 32, 63, 64, 65, 127, 128, 129, 191, 192, 200][rng.below(13) as usize],
        1..=4 => 1 + rng.below(16) as u32,
        5..=6 => 1 + rng.below(70) as u32,
        _ => 1 + rng.below(MAX_WIDTH as u64) as u32,
    }
}

struct Gen<'a> {
    m: &'a mut Module,
    rng: Rng,
    pool: Vec<Sig>,
    depth: u32,
    known_bugs: bool,
    children: Vec<Spec>,
    n_inst: usize,
}

/// The generator: a random module from `spec` with `inputs` (of `spec.inputs` widths).
pub fn fuzz_module(m: &mut Module, spec: &Spec, inputs: Vec<Sig>) -> Vec<Sig> {
    let mut g = Gen {
        m,
        rng: Rng::new(spec.seed),
        pool: inputs,
        depth: spec.depth,
        known_bugs: spec.known_bugs,
        children: Vec::new(),
        n_inst: 0,
    };
    g.body()
}

impl Gen<'_> {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    fn width(&mut self) -> u32 {
        random_width(&mut self.rng)
    }

    fn pick(&mut self) -> Sig {
        // Favour recent signals, so chains grow deep.
        let n = self.pool.len() as u64;
        let i = if self.rng.chance(0.5) {
            n - 1 - self.below(n.min(6))
        } else {
            self.below(n)
        };
        self.pool[i as usize]
    }

    /// `s` made `w` bits wide: a slice at a random offset, or a zero/sign extension.
    fn fit(&mut self, s: Sig, w: u32) -> Sig {
        let sw = s.width();
        if sw == w {
            s
        } else if sw > w {
            let lo = match self.below(3) {
                0 => 0,
                1 => sw - w,
                _ => self.below((sw - w + 1) as u64) as u32,
            };
            s.slice(lo, w)
        } else if self.rng.chance(0.5) {
            s.zext(w)
        } else {
            s.sext(w)
        }
    }

    fn pick_w(&mut self, w: u32) -> Sig {
        let s = self.pick();
        self.fit(s, w)
    }

    fn bit(&mut self) -> Sig {
        let s = self.pick();
        match self.below(4) {
            0 => s.any(),
            1 => s.parity(),
            _ => {
                let i = self.below(s.width() as u64) as u32;
                s.bit(i)
            }
        }
    }

    fn konst(&mut self, w: u32) -> Sig {
        let b = self.rng.interesting_bits(w);
        if w <= 64 && self.rng.chance(0.5) {
            self.m.lit(b.to_u64(), w)
        } else {
            self.m.constant(b)
        }
    }

    /// A literal operand that fits `w` bits.
    fn literal(&mut self, w: u32) -> u64 {
        self.rng.interesting_bits(w.min(64)).to_u64()
    }

    /// The index of a `select` or lookup table: sometimes a plain constant (the emitter folds
    /// it), otherwise mixed with the first input. An index computed from constants only would
    /// leave an `always @*` that an event-driven simulator (iverilog) never runs: the emitter
    /// does not fold constant expressions (known limitation), so that shape is avoided unless
    /// `known_bugs`.
    fn case_index(&mut self, w: u32) -> Sig {
        if self.known_bugs {
            return self.pick_w(w);
        }
        if self.rng.chance(0.1) {
            return self.konst(w);
        }
        let idx = self.pick_w(w);
        let i0 = self.pool[0];
        let i0 = self.fit(i0, w);
        idx ^ i0
    }

    /// A shift amount: a narrow slice (in range mostly) or a whole signal (often far out).
    fn amount(&mut self) -> Sig {
        let s = self.pick();
        if self.rng.chance(0.6) {
            let w = 1 + self.below(9) as u32;
            self.fit(s, w)
        } else {
            s
        }
    }

    fn body(&mut self) -> Vec<Sig> {
        for _ in 0..self.below(3) {
            let w = self.width();
            let k = self.konst(w);
            self.pool.push(k);
        }
        let regs: Vec<(Reg, u32)> = (0..self.below(5))
            .map(|i| {
                let w = self.width();
                let mut r = self.m.reg(&format!("r{i}"), w);
                match self.below(3) {
                    0 => {}
                    1 if w <= 64 => r = r.reset(self.literal(w)),
                    _ => r = r.reset_bits(self.rng.interesting_bits(w)),
                }
                self.pool.push(r.q());
                (r, self.below(2) as u32)
            })
            .collect();
        let mems: Vec<Mem> = (0..self.below(3))
            .map(|i| {
                let w = self.width();
                let depth = if self.known_bugs {
                    1 + self.below(40) as u32
                } else {
                    // A read beyond the depth (a depth that is not a power of two) is
                    // undefined (`rendergen_hdl` memory semantics): 0 in the simulator, X in
                    // iverilog; only `known_bugs` makes such depths.
                    2 << self.below(5)
                };
                let mut mem = self.m.memory(&format!("mem{i}"), w, depth);
                if self.rng.chance(0.5) {
                    let n = 1 + self.below(depth as u64) as usize;
                    let init: Vec<Bits> = (0..n).map(|_| self.rng.interesting_bits(w)).collect();
                    mem = if w <= 64 && self.rng.chance(0.5) {
                        mem.init(&init.iter().map(|b| b.to_u64()).collect::<Vec<_>>())
                    } else {
                        mem.init_wide(init)
                    };
                }
                if self.rng.chance(0.2) {
                    mem = mem.collisions_undefined();
                }
                mem
            })
            .collect();
        for mem in &mems {
            for _ in 0..1 + self.below(2) {
                let a = self.pick_w(mem.addr_width());
                let en = if self.rng.chance(0.5) {
                    Some(self.bit())
                } else {
                    None
                };
                let rd = mem.read_sync(a, en);
                self.pool.push(rd);
            }
        }
        let ops = 10 + self.below(25);
        for _ in 0..ops {
            let s = self.op(&mems);
            self.pool.push(s);
        }
        for (r, enable) in regs {
            let w = r.q().width();
            let v = self.pick_w(w);
            if enable == 1 {
                let en = self.bit();
                r.next_when(en, v);
            } else {
                r.next(v);
            }
        }
        for mem in &mems {
            for _ in 0..1 + self.below(3) {
                let en = if self.rng.chance(0.2) {
                    self.m.lit(1, 1)
                } else {
                    self.bit()
                };
                let a = self.pick_w(mem.addr_width());
                let d = self.pick_w(mem.width());
                mem.write(en, a, d);
            }
        }
        let mut outs: Vec<Sig> = (0..self.below(4)).map(|_| self.pick()).collect();
        outs.push(self.digest());
        outs
    }

    /// XOR of every pool entry, cut into 128-bit chunks (the last zero-extended).
    fn digest(&mut self) -> Sig {
        let mut acc: Option<Sig> = None;
        for s in self.pool.clone() {
            let mut lo = 0;
            while lo < s.width() {
                let w = (s.width() - lo).min(128);
                let chunk = s.slice(lo, w).zext(128);
                acc = Some(match acc {
                    None => chunk,
                    Some(a) => a ^ chunk,
                });
                lo += w;
            }
        }
        acc.expect("the pool is never empty")
    }

    fn op(&mut self, mems: &[Mem]) -> Sig {
        let a = self.pick();
        let w = a.width();
        match self.below(22) {
            0 => {
                let b = self.pick_w(w);
                match self.below(3) {
                    0 => a + b,
                    1 => a - b,
                    _ => a * b,
                }
            }
            1 => {
                let b = self.pick_w(w);
                match self.below(3) {
                    0 => a & b,
                    1 => a | b,
                    _ => a ^ b,
                }
            }
            2 => {
                let k = self.literal(w);
                match self.below(6) {
                    0 => a + k,
                    1 => a - k,
                    2 => a * k,
                    3 => a & k,
                    4 => a ^ k,
                    _ => a.eq(k),
                }
            }
            3 => {
                if self.rng.chance(0.5) {
                    !a
                } else {
                    -a
                }
            }
            4 => match self.below(3) {
                0 => a.any(),
                1 => a.all(),
                _ => a.parity(),
            },
            5 | 6 => {
                let n = self.amount();
                match self.below(3) {
                    0 => a.shl(n),
                    1 => a.shr(n),
                    _ => a.sra(n),
                }
            }
            7 => {
                let n = self.below(w as u64 + 3) as u32;
                match self.below(3) {
                    0 => a << n,
                    1 => a >> n,
                    _ => a.sra_const(n),
                }
            }
            8 | 9 => {
                let b = self.pick_w(w);
                match self.below(10) {
                    0 => a.eq(b),
                    1 => a.ne(b),
                    2 => a.lt(b),
                    3 => a.le(b),
                    4 => a.gt(b),
                    5 => a.ge(b),
                    6 => a.slt(b),
                    7 => a.sle(b),
                    8 => a.sgt(b),
                    _ => a.sge(b),
                }
            }
            10 => {
                let sel = self.bit();
                let b = self.pick_w(w);
                if self.rng.chance(0.2) && w <= 64 {
                    let k = self.literal(w);
                    sel.mux(k, b)
                } else {
                    sel.mux(a, b)
                }
            }
            11 => {
                let iw = 1 + self.below(3) as u32;
                let idx = self.case_index(iw);
                let n = 1 + self.below(5) as usize;
                let cases: Vec<Sig> = (0..n).map(|_| self.pick_w(w)).collect();
                let default = self.pick_w(w);
                select(idx, &cases, default)
            }
            12 => {
                let iw = 1 + self.below(4) as u32;
                let idx = self.case_index(iw);
                let n = 1 + self.below(1 << iw) as usize;
                let ow = self.width();
                let table: Vec<Bits> = (0..n).map(|_| self.rng.interesting_bits(ow)).collect();
                if ow <= 64 && self.rng.chance(0.5) {
                    let table: Vec<u64> = table.iter().map(|b| b.to_u64()).collect();
                    lut(idx, &table, ow)
                } else {
                    lut_wide(idx, table, ow)
                }
            }
            13 => {
                let n = 2 + self.below(3) as usize;
                let mut parts = vec![a];
                let mut total = w;
                for _ in 1..n {
                    let p = self.pick();
                    let p = if total + p.width() > 256 {
                        let room = 256u32.saturating_sub(total).max(1);
                        self.fit(p, room.min(p.width()))
                    } else {
                        p
                    };
                    total += p.width();
                    parts.push(p);
                }
                cat(&parts)
            }
            14 => {
                let nw = 1 + self.below(w as u64) as u32;
                let lo = self.below((w - nw + 1) as u64) as u32;
                match self.below(4) {
                    0 => a.slice(lo, nw),
                    1 => a.bits(lo + nw - 1, lo),
                    2 => a.msb(),
                    _ => a.bit(lo),
                }
            }
            15 => {
                let nw = w + self.below((MAX_WIDTH + 20 - w.min(MAX_WIDTH)) as u64) as u32;
                match self.below(4) {
                    0 => a.zext(nw),
                    1 => a.sext(nw),
                    2 => {
                        let r = self.width();
                        a.resize(r)
                    }
                    _ => {
                        let n = 1 + self.below((256 / w).clamp(1, 5) as u64) as u32;
                        a.repeat(n)
                    }
                }
            }
            16 => {
                let a = self.fit(a, w.min(100));
                let bw = 1 + self.below(100) as u32;
                let b = self.pick_w(bw);
                match self.below(3) {
                    0 => a.add_full(b),
                    1 => a.mul_full(b),
                    _ => a.smul_full(b),
                }
            }
            17 => {
                let w = self.width();
                self.konst(w)
            }
            18 if !mems.is_empty() => {
                let mem = mems[self.below(mems.len() as u64) as usize];
                let addr = self.pick_w(mem.addr_width());
                if self.rng.chance(0.6) {
                    mem.read_comb(addr)
                } else {
                    let en = if self.rng.chance(0.5) {
                        Some(self.bit())
                    } else {
                        None
                    };
                    mem.read_sync(addr, en)
                }
            }
            19 if self.depth < MAX_DEPTH => self.child(),
            20 => {
                let n = self.n_inst;
                a.named(&format!("n{n}"))
            }
            _ => {
                let b = self.pick_w(w);
                let c = self.pick_w(w);
                let sel = self.bit();
                sel.mux(a ^ b, c - a)
            }
        }
    }

    /// A child module instance (a new spec, or again one already instantiated here); returns
    /// one of its outputs and adds the others to the pool.
    fn child(&mut self) -> Sig {
        let spec = if !self.children.is_empty() && self.rng.chance(0.3) {
            let i = self.below(self.children.len() as u64) as usize;
            self.children[i].clone()
        } else {
            let n = 1 + self.below(4) as usize;
            let spec = Spec {
                seed: self.rng.next_u64(),
                depth: self.depth + 1,
                inputs: (0..n).map(|_| self.width()).collect(),
                known_bugs: self.known_bugs,
            };
            self.children.push(spec.clone());
            spec
        };
        let ins: Vec<Sig> = spec.inputs.iter().map(|&w| self.pick_w(w)).collect();
        let name = format!("sub[{}]", self.n_inst);
        self.n_inst += 1;
        let mut outs: Vec<Sig> = self.m.child(&name, &spec, ins, fuzz_module);
        let last = outs.pop().expect("a fuzz module has a digest output");
        self.pool.extend(outs);
        last
    }
}
