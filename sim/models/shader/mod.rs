//! Instruction-level golden model of the shader core (issue 12, `rtl/shader-isa/ISA.md`): what
//! one warp's program computes, independent of warp scheduling, pipelines and port timing. The
//! RTL core is checked against it bit for bit.
//!
//! * [`run`]: a program on one warp from its [`Launch`] to `end` or an error ([`Outcome`]).
//! * [`Env`]: the warp's ports (global memory, uniforms, texture, the special port); exports
//!   are collected in the outcome. [`MemoryEnv`] is a plain one for tests and the command line.
//! * Arithmetic is only [`crate::models::fp32`] (FP) and wrapping `u32` (integer).
//!
//! Port requests are made in lane order (per quad for `tex`), so an `Env` sees a deterministic
//! sequence; two lanes storing to one address leave the higher lane's word.
//!
//! ```
//! use rendergen_shader_isa::asm::assemble;
//! use rendergen_sim::models::shader::{run, Config, Launch, MemoryEnv};
//! let prog = assemble("movi r0, 1.5\nlane r1\ni2f r1, r1\nfmul r2, r0, r1\nexport 0, r2, 1\nend")
//!     .unwrap();
//! let out = run(&prog, &Config::default(), &Launch::new(1), &mut MemoryEnv::default());
//! assert_eq!(out.error, None);
//! assert_eq!(out.exports[3][&0], [4.5f32.to_bits()]);
//! ```

use crate::models::fp32::{basic, basic::Cmp, recip, transc};
use rendergen_shader_isa::{Inst, Opcode, WarpError, MAX_DEPTH, MAX_QUADS, QUAD_LANES};
use std::collections::BTreeMap;

#[cfg(test)]
mod tests;

/// Core parameters the model needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// 32-bit registers per lane, 1..=256 (default 64).
    pub regs: usize,
    /// The most instructions a warp may execute; the next one ends it with
    /// [`WarpError::Watchdog`] (default 10⁶).
    pub watchdog: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            regs: rendergen_shader_isa::DEFAULT_REGS,
            watchdog: 1_000_000,
        }
    }
}

/// A warp's inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Quads in the warp, 1..=16.
    pub quads: usize,
    /// Initial registers per lane (`4 · quads` lists; a short list is padded with zeros,
    /// missing lanes are all zero).
    pub regs: Vec<Vec<u32>>,
    /// Helper lanes (bit `l` = lane `l`): they execute but do not store or export.
    pub helpers: u64,
    /// The warp id `warp` reads.
    pub warp_id: u32,
}

impl Launch {
    /// A warp of `quads` quads, registers zero, no helper lanes, id 0.
    pub fn new(quads: usize) -> Launch {
        Launch {
            quads,
            regs: Vec::new(),
            helpers: 0,
            warp_id: 0,
        }
    }

    /// Lanes in the warp.
    pub fn lanes(&self) -> usize {
        self.quads * QUAD_LANES
    }
}

/// A texture request: one per quad with an active lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexRequest {
    /// Quad index in the warp.
    pub quad: usize,
    /// Sampler (the immediate).
    pub sampler: u32,
    /// Coordinates `(a, a+1)` of the quad's four lanes (all four, for the level of detail).
    pub coords: [[u32; 2]; 4],
    /// Active lanes of the quad (bit `i` = lane `i`).
    pub mask: u8,
}

/// A special-port request (the tile engine's instructions), one per active lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecRequest {
    /// Lane index in the warp.
    pub lane: usize,
    /// Function code (the immediate).
    pub func: u32,
    /// Operand `a`.
    pub a: u32,
    /// Operand `b`.
    pub b: u32,
    /// Whether the lane is a helper lane (the port decides whether it has effects).
    pub helper: bool,
}

/// The ports of a warp.
pub trait Env {
    /// The global word at byte address `addr` (for `lane`).
    fn load(&mut self, lane: usize, addr: u32) -> u32;
    /// Writes the global word at byte address `addr` (never called for helper lanes).
    fn store(&mut self, lane: usize, addr: u32, value: u32);
    /// Uniform word `index`.
    fn uniform(&mut self, index: u32) -> u32;
    /// Four words per lane of the quad (only the active lanes' are used).
    fn texture(&mut self, req: &TexRequest) -> [[u32; 4]; 4];
    /// The words of [`Env::texture`]'s answer to `req` the core writes (lane `k`'s word `j` at
    /// bit `4k + j`, of the active lanes): all of them unless the port says otherwise (a
    /// selective or shared texture broadcast, `compiler/shader/ABI.md` "Sampled textures").
    fn texture_keep(&mut self, _req: &TexRequest) -> u16 {
        0xFFFF
    }
    /// The special port's answer.
    fn special(&mut self, req: &SpecRequest) -> u32;
}

/// A plain [`Env`]: word-addressed memory (missing words read 0), a uniform array (reads
/// beyond it give 0), a texture that answers like the texture unit's filtered mode, 16-bit
/// UNORM words (`compiler/shader/ABI.md` "Sampled textures"), `(unorm16(s), unorm16(t),
/// 0xFFFF, 0xFFFF)` per lane ([`unorm16`]; a compiled program reads `(s, t, 1, 1)` clamped
/// to 0..1), and a special port
/// that returns `a ^ b ^ func`. Every request is logged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryEnv {
    /// Global memory by byte address (of a word).
    pub memory: BTreeMap<u32, u32>,
    /// Uniform words.
    pub uniforms: Vec<u32>,
    /// Texture requests received.
    pub tex_log: Vec<TexRequest>,
    /// Special-port requests received.
    pub spec_log: Vec<SpecRequest>,
    /// Stores received: (lane, address, value).
    pub store_log: Vec<(usize, u32, u32)>,
}

impl Env for MemoryEnv {
    fn load(&mut self, _lane: usize, addr: u32) -> u32 {
        self.memory.get(&addr).copied().unwrap_or(0)
    }
    fn store(&mut self, lane: usize, addr: u32, value: u32) {
        self.store_log.push((lane, addr, value));
        self.memory.insert(addr, value);
    }
    fn uniform(&mut self, index: u32) -> u32 {
        self.uniforms.get(index as usize).copied().unwrap_or(0)
    }
    fn texture(&mut self, req: &TexRequest) -> [[u32; 4]; 4] {
        self.tex_log.push(*req);
        req.coords
            .map(|[s, t]| [unorm16(s), unorm16(t), 0xFFFF, 0xFFFF])
    }
    fn special(&mut self, req: &SpecRequest) -> u32 {
        self.spec_log.push(*req);
        req.a ^ req.b ^ req.func
    }
}

/// The 16-bit UNORM word of binary32 `x` (as bits): `round(clamp(x, 0, 1) · 65535)`, NaN 0;
/// [`MemoryEnv`]'s test texture.
pub fn unorm16(x: u32) -> u32 {
    let x = f64::from(f32::from_bits(x));
    if x.is_nan() {
        return 0;
    }
    (x.clamp(0.0, 1.0) * 65535.0).round() as u32
}

/// An error and the pc of the instruction that raised it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong.
    pub error: WarpError,
    /// The pc (for [`WarpError::PcOutOfRange`] the pc that left the program).
    pub pc: u32,
}

/// What a warp leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Per lane, the exported words by location (empty for helper lanes).
    pub exports: Vec<BTreeMap<u32, Vec<u32>>>,
    /// The final registers per lane.
    pub regs: Vec<Vec<u32>>,
    /// Instructions executed (the faulting one included).
    pub executed: u64,
    /// `None` if the warp reached `end`.
    pub error: Option<Fault>,
}

/// A mask-stack frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// An `if`: the mask at the `if`, the lanes that still run the `else`, whether it ran.
    If {
        outer: u64,
        rest: u64,
        in_else: bool,
    },
    /// A `loop`: the mask at the `loop` and the lanes still in the loop.
    Loop { outer: u64, live: u64 },
}

/// A warp in flight.
struct Warp<'a> {
    prog: &'a [u64],
    regs: Vec<Vec<u32>>,
    mask: u64,
    helpers: u64,
    lanes: usize,
    warp_id: u32,
    stack: Vec<Frame>,
    exports: Vec<BTreeMap<u32, Vec<u32>>>,
}

/// What an instruction does to the pc.
enum Next {
    /// pc + 1.
    Step,
    /// A jump to a target, which must hold one of the opcodes.
    Jump(u32, &'static [Opcode]),
    /// `endloop` back to the instruction after the `loop` at the target.
    Back(u32),
    /// `end`.
    Done,
}

/// Runs `prog` on one warp (see the module documentation).
///
/// # Panics
/// If `launch.quads` is not 1..=16, `cfg.regs` not 1..=256, or a lane's initial registers
/// outnumber `cfg.regs`: caller errors, not program errors.
pub fn run(prog: &[u64], cfg: &Config, launch: &Launch, env: &mut dyn Env) -> Outcome {
    assert!((1..=MAX_QUADS).contains(&launch.quads), "1..=16 quads");
    assert!((1..=256).contains(&cfg.regs), "1..=256 registers");
    let lanes = launch.lanes();
    let regs = (0..lanes)
        .map(|l| {
            let mut r = launch.regs.get(l).cloned().unwrap_or_default();
            assert!(
                r.len() <= cfg.regs,
                "lane {l}: more initial registers than cfg.regs"
            );
            r.resize(cfg.regs, 0);
            r
        })
        .collect();
    let all = if lanes == 64 {
        u64::MAX
    } else {
        (1 << lanes) - 1
    };
    let mut w = Warp {
        prog,
        regs,
        mask: all,
        helpers: launch.helpers & all,
        lanes,
        warp_id: launch.warp_id,
        stack: Vec::new(),
        exports: vec![BTreeMap::new(); lanes],
    };
    let mut pc = 0u32;
    let mut executed = 0u64;
    let error = loop {
        if executed >= cfg.watchdog {
            break Some(Fault {
                error: WarpError::Watchdog,
                pc,
            });
        }
        let Some(&word) = prog.get(pc as usize) else {
            break Some(Fault {
                error: WarpError::PcOutOfRange,
                pc,
            });
        };
        executed += 1;
        let fault = |error| Some(Fault { error, pc });
        let inst = match Inst::decode(word) {
            Ok(i) => i,
            Err(e) => break fault(e.into()),
        };
        if inst.regs_needed() > cfg.regs {
            break fault(WarpError::RegisterOutOfRange);
        }
        match w.execute(&inst, env) {
            Err(e) => break fault(e),
            Ok(Next::Done) => break None,
            Ok(Next::Step) => pc += 1,
            Ok(Next::Jump(t, want)) => match w.land(t, want) {
                Ok(()) => pc = t,
                Err(e) => break fault(e),
            },
            Ok(Next::Back(t)) => match w.land(t, &[Opcode::Loop]) {
                Ok(()) => pc = t + 1,
                Err(e) => break fault(e),
            },
        }
    };
    Outcome {
        exports: w.exports,
        regs: w.regs,
        executed,
        error,
    }
}

/// A lane's operation `f(a, b, c, imm)`.
type LaneOp = fn(u32, u32, u32, u32) -> u32;

/// The per-lane operation of an ALU opcode.
fn alu(op: Opcode) -> Option<LaneOp> {
    use Opcode::*;
    Some(match op {
        Fadd => |a, b, _, _| basic::add(a, b),
        Fsub => |a, b, _, _| basic::sub(a, b),
        Fmul => |a, b, _, _| basic::mul(a, b),
        Ffma => |a, b, c, _| basic::fma(a, b, c),
        Fmin => |a, b, _, _| basic::min(a, b),
        Fmax => |a, b, _, _| basic::max(a, b),
        Faddi => |a, _, _, i| basic::add(a, i),
        Fmuli => |a, _, _, i| basic::mul(a, i),
        Feq => |a, b, _, _| basic::cmp(Cmp::Eq, a, b),
        Fne => |a, b, _, _| basic::cmp(Cmp::Ne, a, b),
        Flt => |a, b, _, _| basic::cmp(Cmp::Lt, a, b),
        Fle => |a, b, _, _| basic::cmp(Cmp::Le, a, b),
        Fgt => |a, b, _, _| basic::cmp(Cmp::Gt, a, b),
        Fge => |a, b, _, _| basic::cmp(Cmp::Ge, a, b),
        F2i => |a, _, _, _| basic::f2i(a),
        F2u => |a, _, _, _| basic::f2u(a),
        I2f => |a, _, _, _| basic::i2f(a),
        U2f => |a, _, _, _| basic::u2f(a),
        Floor => |a, _, _, _| basic::floor(a),
        Ceil => |a, _, _, _| basic::ceil(a),
        Trunc => |a, _, _, _| basic::trunc(a),
        Fract => |a, _, _, _| basic::fract(a),
        Rndeven => |a, _, _, _| basic::round_even(a),
        Fabs => |a, _, _, _| basic::abs(a),
        Fneg => |a, _, _, _| basic::neg(a),
        Rcp => |a, _, _, _| recip::rcp(a),
        Rsqrt => |a, _, _, _| recip::rsqrt(a),
        Sqrt => |a, _, _, _| recip::sqrt(a),
        Exp2 => |a, _, _, _| transc::exp2(a),
        Log2 => |a, _, _, _| transc::log2(a),
        Sin => |a, _, _, _| transc::sin(a),
        Cos => |a, _, _, _| transc::cos(a),
        Iadd => |a, b, _, _| a.wrapping_add(b),
        Isub => |a, b, _, _| a.wrapping_sub(b),
        Imul => |a, b, _, _| a.wrapping_mul(b),
        Shl => |a, b, _, _| a << (b & 31),
        Shr => |a, b, _, _| a >> (b & 31),
        Sar => |a, b, _, _| ((a as i32) >> (b & 31)) as u32,
        And => |a, b, _, _| a & b,
        Or => |a, b, _, _| a | b,
        Xor => |a, b, _, _| a ^ b,
        Not => |a, _, _, _| !a,
        Iaddi => |a, _, _, i| a.wrapping_add(i),
        Imuli => |a, _, _, i| a.wrapping_mul(i),
        Andi => |a, _, _, i| a & i,
        Ori => |a, _, _, i| a | i,
        Xori => |a, _, _, i| a ^ i,
        Shli => |a, _, _, i| a << (i & 31),
        Shri => |a, _, _, i| a >> (i & 31),
        Sari => |a, _, _, i| ((a as i32) >> (i & 31)) as u32,
        Ieq => |a, b, _, _| (a == b) as u32,
        Ine => |a, b, _, _| (a != b) as u32,
        Ilt => |a, b, _, _| ((a as i32) < (b as i32)) as u32,
        Ile => |a, b, _, _| ((a as i32) <= (b as i32)) as u32,
        Ult => |a, b, _, _| (a < b) as u32,
        Ule => |a, b, _, _| (a <= b) as u32,
        Sel => |a, b, c, _| if a != 0 { b } else { c },
        Mov => |a, _, _, _| a,
        Movi => |_, _, _, i| i,
        _ => return None,
    })
}

impl Warp<'_> {
    /// Active lanes, in order.
    fn active(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.lanes).filter(move |&l| self.mask >> l & 1 == 1)
    }

    /// Lanes of `m` whose register `r` is non-zero.
    fn nonzero(&self, m: u64, r: u8) -> u64 {
        (0..self.lanes)
            .filter(|&l| m >> l & 1 == 1 && self.regs[l][r as usize] != 0)
            .fold(0, |acc, l| acc | 1 << l)
    }

    /// Checks a jump target: inside the program and holding one of `want`.
    fn land(&self, t: u32, want: &[Opcode]) -> Result<(), WarpError> {
        let word = *self.prog.get(t as usize).ok_or(WarpError::PcOutOfRange)?;
        match Inst::decode(word) {
            Ok(i) if want.contains(&i.op) => Ok(()),
            _ => Err(WarpError::BadControl),
        }
    }

    /// Pushes a frame, or reports the overflow.
    fn push(&mut self, f: Frame) -> Result<(), WarpError> {
        if self.stack.len() == MAX_DEPTH {
            return Err(WarpError::MaskStackOverflow);
        }
        self.stack.push(f);
        Ok(())
    }

    /// Removes `lanes` from the if-frames above the innermost loop-frame; returns that frame's
    /// index.
    fn leave(&mut self, lanes: u64) -> Result<usize, WarpError> {
        let at = (self.stack.iter())
            .rposition(|f| matches!(f, Frame::Loop { .. }))
            .ok_or(WarpError::BadControl)?;
        for f in &mut self.stack[at + 1..] {
            if let Frame::If { outer, rest, .. } = f {
                *outer &= !lanes;
                *rest &= !lanes;
            }
        }
        self.mask &= !lanes;
        Ok(at)
    }

    /// Executes one instruction (registers already checked).
    fn execute(&mut self, i: &Inst, env: &mut dyn Env) -> Result<Next, WarpError> {
        use Opcode::*;
        let (d, a, b) = (i.d as usize, i.a as usize, i.b as usize);
        if let Some(f) = alu(i.op) {
            let c = i.c as usize;
            for l in 0..self.lanes {
                if self.mask >> l & 1 == 1 {
                    let r = &mut self.regs[l];
                    r[d] = f(r[a], r[b], r[c], i.imm);
                }
            }
            return Ok(Next::Step);
        }
        match i.op {
            Nop => {}
            End if self.stack.is_empty() => return Ok(Next::Done),
            End => return Err(WarpError::BadControl),
            If => {
                let cond = self.nonzero(self.mask, i.a);
                let rest = self.mask & !cond;
                self.push(Frame::If {
                    outer: self.mask,
                    rest,
                    in_else: false,
                })?;
                self.mask = cond;
                if cond == 0 {
                    return Ok(Next::Jump(i.imm, &[Else, Endif]));
                }
            }
            Else => match self.stack.last_mut() {
                Some(Frame::If { rest, in_else, .. }) if !*in_else => {
                    self.mask = std::mem::take(rest);
                    *in_else = true;
                    if self.mask == 0 {
                        return Ok(Next::Jump(i.imm, &[Endif]));
                    }
                }
                _ => return Err(WarpError::BadControl),
            },
            Endif => match self.stack.last() {
                Some(&Frame::If { outer, .. }) => {
                    self.mask = outer;
                    self.stack.pop();
                }
                _ => return Err(WarpError::BadControl),
            },
            Loop => {
                self.push(Frame::Loop {
                    outer: self.mask,
                    live: self.mask,
                })?;
                if self.mask == 0 {
                    return Ok(Next::Jump(i.imm, &[Endloop]));
                }
            }
            Brk | Cont => {
                let lanes = self.nonzero(self.mask, i.a);
                let at = self.leave(lanes)?;
                if let (Brk, Frame::Loop { live, .. }) = (i.op, &mut self.stack[at]) {
                    *live &= !lanes;
                }
            }
            Endloop => match self.stack.last() {
                Some(&Frame::Loop { live, .. }) if live != 0 => {
                    self.mask = live;
                    return Ok(Next::Back(i.imm));
                }
                Some(&Frame::Loop { outer, .. }) => {
                    self.mask = outer;
                    self.stack.pop();
                }
                _ => return Err(WarpError::BadControl),
            },
            Ddxc | Ddyc | Ddxf | Ddyf => {
                for q in 0..self.lanes / QUAD_LANES {
                    let v: Vec<u32> = (0..4).map(|k| self.regs[4 * q + k][a]).collect();
                    for k in 0..4 {
                        let (hi, lo) = match i.op {
                            Ddxc => (1, 0),
                            Ddyc => (2, 0),
                            Ddxf => (k | 1, k & 2),
                            _ => (k | 2, k & 1),
                        };
                        let l = 4 * q + k;
                        if self.mask >> l & 1 == 1 {
                            self.regs[l][d] = basic::sub(v[hi], v[lo]);
                        }
                    }
                }
            }
            Qget => {
                for q in 0..self.lanes / QUAD_LANES {
                    let v = self.regs[4 * q + (i.imm & 3) as usize][a];
                    for l in 4 * q..4 * q + 4 {
                        if self.mask >> l & 1 == 1 {
                            self.regs[l][d] = v;
                        }
                    }
                }
            }
            Lane | Quad | Warp => {
                for l in 0..self.lanes {
                    if self.mask >> l & 1 == 1 {
                        self.regs[l][d] = match i.op {
                            Lane => l as u32,
                            Quad => (l / QUAD_LANES) as u32,
                            _ => self.warp_id,
                        };
                    }
                }
            }
            Ldg => {
                for l in self.active().collect::<Vec<_>>() {
                    let addr = self.regs[l][a].wrapping_add(i.imm);
                    self.regs[l][d] = env.load(l, addr);
                }
            }
            Stg => {
                for l in self.active().filter(|l| self.helpers >> l & 1 == 0) {
                    let addr = self.regs[l][a].wrapping_add(i.imm);
                    env.store(l, addr, self.regs[l][b]);
                }
            }
            Ldu => {
                if self.mask != 0 {
                    let v = env.uniform(i.imm);
                    for l in self.active().collect::<Vec<_>>() {
                        self.regs[l][d] = v;
                    }
                }
            }
            Tex => {
                for q in 0..self.lanes / QUAD_LANES {
                    let mask = (self.mask >> (4 * q)) as u8 & 0xF;
                    if mask == 0 {
                        continue;
                    }
                    let coords = [0, 1, 2, 3].map(|k| {
                        let r = &self.regs[4 * q + k];
                        [r[a], r[a + 1]]
                    });
                    let req = TexRequest {
                        quad: q,
                        sampler: i.imm,
                        coords,
                        mask,
                    };
                    let texels = env.texture(&req);
                    let keep = env.texture_keep(&req);
                    for (k, texel) in texels.iter().enumerate() {
                        if mask >> k & 1 == 1 {
                            for (j, &w) in texel.iter().enumerate() {
                                if keep >> (4 * k + j) & 1 == 1 {
                                    self.regs[4 * q + k][d + j] = w;
                                }
                            }
                        }
                    }
                }
            }
            Spec => {
                for l in self.active().collect::<Vec<_>>() {
                    let r = &self.regs[l];
                    let v = env.special(&SpecRequest {
                        lane: l,
                        func: i.imm,
                        a: r[a],
                        b: r[b],
                        helper: self.helpers >> l & 1 == 1,
                    });
                    self.regs[l][d] = v;
                }
            }
            Export => {
                let lanes: Vec<usize> = self.active().collect();
                for l in lanes.into_iter().filter(|l| self.helpers >> l & 1 == 0) {
                    let words = self.regs[l][a..a + b].to_vec();
                    self.exports[l].insert(i.imm, words);
                }
            }
            _ => unreachable!("{:?} has no semantics", i.op),
        }
        Ok(Next::Step)
    }
}
