//! One ray's machine: the stack, the program position, the PRNG, and one instruction per step.

use super::control;
use super::memory::Memory;
use super::pipes::{pipeline_with, PipeSetup};
use rendergen_isa::{prng_next, prng_seed, Class, Opcode, RayError, Reason};

/// Why a step did not simply continue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The ray leaves the engine with this reason; `pc` is the RAYSTOP or the faulting
    /// instruction.
    Leave {
        /// Reason sent with the ray.
        reason: Reason,
        /// Byte address of the instruction.
        pc: u32,
    },
    /// The ISA leaves the result undefined here (the RTL may do anything).
    Undefined {
        /// Byte address of the instruction.
        pc: u32,
        /// What is undefined.
        what: String,
    },
    /// The step budget ran out (a program that never stops).
    StepLimit {
        /// Where it was.
        pc: u32,
    },
}

/// The architectural state of one ray in a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The ray's id.
    pub ray_id: u32,
    /// Byte address of the next instruction.
    pub pc: u32,
    /// The stack, bottom first.
    pub stack: Vec<u32>,
    /// Stack capacity in words.
    pub depth: u32,
    /// The PRNG state (see [`rendergen_isa::prng_seed`]).
    pub prng: u32,
    /// Instructions executed or skipped so far.
    pub steps: u64,
    /// How the modelled engine's pipes are set up (test fixtures, cel table; see
    /// [`pipeline_with`]).
    pub setup: PipeSetup,
    /// Budget of [`steps`](Self::steps).
    pub max_steps: u64,
}

/// The fault of an instruction at `pc`.
pub(crate) fn fault(e: RayError, pc: u32) -> Stop {
    Stop::Leave {
        reason: Reason::Error(e),
        pc,
    }
}

/// Decodes the instruction at `pc`: opcode and immediate (zero-extended), or the fault.
pub fn decode(mem: &Memory, pc: u32) -> Result<(Opcode, u32), Stop> {
    let op = Opcode::from_byte(mem.byte(pc)).ok_or(fault(RayError::UnknownOpcode, pc))?;
    let mut b = [0u8; 4];
    for (i, x) in b.iter_mut().enumerate().take(op.imm_bytes() as usize) {
        *x = mem.byte(pc.wrapping_add(1 + i as u32));
    }
    Ok((op, u32::from_le_bytes(b)))
}

impl Machine {
    /// A ray assigned to a slot: position `pc`, stack `stack` (bottom first), PRNG seeded.
    pub fn new(ray_id: u32, pc: u32, stack: Vec<u32>, depth: u32) -> Machine {
        Machine {
            ray_id,
            pc,
            stack,
            depth,
            prng: prng_seed(ray_id),
            steps: 0,
            max_steps: 1 << 20,
            setup: PipeSetup::default(),
        }
    }

    /// Counts one instruction against the budget.
    pub(crate) fn tick(&mut self, pc: u32) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(Stop::StepLimit { pc });
        }
        Ok(())
    }

    /// Checks that `op` may pop `pops` and push `pushes` words now.
    fn room(&self, pops: u32, pushes: u32, pc: u32) -> Result<(), Stop> {
        let sp = self.stack.len() as u32;
        if sp < pops {
            return Err(fault(RayError::StackUnderflow, pc));
        }
        if sp - pops + pushes > self.depth {
            return Err(fault(RayError::StackOverflow, pc));
        }
        Ok(())
    }

    /// Pops `n` words, the deepest first.
    fn pop_n(&mut self, n: u32) -> Vec<u32> {
        let at = self.stack.len() - n as usize;
        self.stack.split_off(at)
    }

    /// Executes one instruction; `Ok` to continue, `Err` when the ray stops.
    pub fn step(&mut self, mem: &Memory) -> Result<(), Stop> {
        let pc = self.pc;
        self.tick(pc)?;
        let (op, imm) = decode(mem, pc)?;
        let next = pc.wrapping_add(1 + op.imm_bytes());
        let sp = self.stack.len() as u32;
        let i = imm as usize;
        let pops = if op == Opcode::RandSel {
            imm
        } else {
            op.pops()
        };
        // Index operands are checked like pops: LOAD/PICK n need n < sp, STORE n < sp − 1.
        let need = match op {
            Opcode::Load | Opcode::Pick => imm.saturating_add(1),
            Opcode::Store => imm.saturating_add(2),
            Opcode::TexRead => 3,
            _ => pops,
        };
        if op == Opcode::RandSel && imm == 0 {
            return Err(fault(RayError::BadControl, pc));
        }
        self.room(need.max(pops), 0, pc)?;
        self.room(pops, op.pushes(), pc)?;
        self.pc = next;
        let w = |s: &Machine, k: usize| s.stack[s.stack.len() - 1 - k];
        use Opcode::*;
        let r: u32 = match op {
            Nop | TexRead => return Ok(()),
            RayStop => {
                self.pc = pc;
                return Err(Stop::Leave {
                    reason: Reason::Done,
                    pc,
                });
            }
            Case => {
                self.pc = pc;
                return Err(fault(RayError::BadControl, pc));
            }
            EndCase => {
                self.pc = control::exit(self, mem, next)?;
                return Ok(());
            }
            RandSel => {
                let weights = self.pop_n(imm);
                let x = prng_next(&mut self.prng);
                let k = control::choose(&weights, x);
                self.pc = control::seek(self, mem, next, k)?;
                return Ok(());
            }
            Push => imm,
            Load => self.stack[i],
            Pick => w(self, i),
            Store => {
                let a = self.stack.pop().expect("checked");
                self.stack[i] = a;
                return Ok(());
            }
            Pop => {
                self.stack.pop();
                return Ok(());
            }
            Dup => w(self, 0),
            Swap => {
                let n = sp as usize;
                self.stack.swap(n - 1, n - 2);
                return Ok(());
            }
            _ if matches!(op.class(), Class::Pipeline { .. }) => {
                let args = self.pop_n(op.pops());
                match pipeline_with(op, imm, &args, mem, &self.setup) {
                    Ok(out) => self.stack.extend(out),
                    Err(what) => return Err(Stop::Undefined { pc, what }),
                }
                return Ok(());
            }
            _ => {
                let a = self.pop_n(op.pops());
                alu(op, &a)
            }
        };
        self.stack.push(r);
        Ok(())
    }
}

/// Q16.16 product, rounded half up, wrapped.
pub fn q_mul(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64 + 0x8000) >> 16) as u32
}

/// The local arithmetic opcodes on their popped words (`a[0]` deepest).
fn alu(op: Opcode, a: &[u32]) -> u32 {
    let s = |k: usize| a[k] as i32;
    use Opcode::*;
    match op {
        Add => a[0].wrapping_add(a[1]),
        Sub => a[0].wrapping_sub(a[1]),
        Mul => q_mul(a[0], a[1]),
        Lerp => a[0].wrapping_add(q_mul(a[1].wrapping_sub(a[0]), a[2])),
        Min => s(0).min(s(1)) as u32,
        Max => s(0).max(s(1)) as u32,
        Clamp => s(0).max(s(1)).min(s(2)) as u32,
        SelLt => {
            if s(0) < s(1) {
                a[2]
            } else {
                a[3]
            }
        }
        Neg => a[0].wrapping_neg(),
        Abs => s(0).wrapping_abs() as u32,
        _ => unreachable!("{op:?} is not an ALU opcode"),
    }
}
