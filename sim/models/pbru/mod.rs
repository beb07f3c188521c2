//! Instruction-level golden model of the PBRU (`pbru.md` §3, `rtl/isa/ISA.md`): what one ray's
//! program computes, independent of cores, slots, caches and timing.
//!
//! * [`Memory`]: the bytes behind the SM's L1 (programs and ASTC blocks).
//! * [`Machine`]: one ray's stack, position and PRNG; [`Machine::step`] runs one instruction.
//! * [`run`]: a ray from assignment to the moment it leaves a core ([`FinalRay`]).
//! * [`callout`]: the SM call-out convention (a RAYSTOP followed by a marker), and [`golden`],
//!   a ray's end result through any number of call-outs: what the engine plus the SM returns.
//!
//! The agents that drive a simulated `pbru` top (SM, TTU, L1) are in
//! [`agents::pbru`](crate::agents::pbru); they use this model to check every ray.
//!
//! ```
//! use rendergen_isa::{asm::assemble, Reason};
//! use rendergen_sim::models::pbru::{run, Memory, Ray};
//! let mut mem = Memory::new();
//! mem.write(0x100, &assemble("PUSH 1.5q\nPUSH 2.0q\nMUL\nRAYSTOP").unwrap());
//! let out = run(&mem, &Ray::new(7, 0x100, vec![]), 32).unwrap();
//! assert_eq!((out.reason, out.stack), (Reason::Done, vec![0x3_0000]));
//! assert_eq!((out.inst_addr, out.index), (0x100, 11));
//! ```

pub mod callout;
pub mod control;
pub mod exec;
pub mod memory;
pub mod pipes;
pub mod shading;
pub mod shading_ref;

#[cfg(test)]
mod shading_tests;
#[cfg(test)]
mod tests;

pub use callout::{golden, golden_with, CALLOUT_MARKER};
pub use exec::{Machine, Stop};
pub use memory::Memory;
pub use pipes::PipeSetup;
use rendergen_isa::{Reason, CHUNK_BYTES};

/// A ray as the SM or TTU sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ray {
    /// Ray id (16 bits on the ports).
    pub ray_id: u32,
    /// Program base address.
    pub inst_addr: u32,
    /// Offset of the next instruction from `inst_addr`.
    pub index: u32,
    /// The stack, bottom first.
    pub stack: Vec<u32>,
}

impl Ray {
    /// A ray starting at `inst_addr` (index 0) with `stack`.
    pub fn new(ray_id: u32, inst_addr: u32, stack: Vec<u32>) -> Ray {
        Ray {
            ray_id,
            inst_addr,
            index: 0,
            stack,
        }
    }

    /// Byte address of the next instruction.
    pub fn pc(&self) -> u32 {
        self.inst_addr.wrapping_add(self.index)
    }
}

/// A ray as it leaves a core (the engine's `RayOut` without `ret_dst`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalRay {
    /// Ray id.
    pub ray_id: u32,
    /// Base of the 32-byte chunk holding the instruction at which it stopped.
    pub inst_addr: u32,
    /// Offset of that instruction in the chunk (0..=31).
    pub index: u32,
    /// The stack, bottom first (`sp` = its length).
    pub stack: Vec<u32>,
    /// Why it left.
    pub reason: Reason,
}

impl FinalRay {
    /// Byte address of the instruction at which it stopped.
    pub fn pc(&self) -> u32 {
        self.inst_addr.wrapping_add(self.index)
    }

    /// The ray sent back in from where it left (a parked ray resent by the TTU).
    pub fn resumed(&self) -> Ray {
        Ray {
            ray_id: self.ray_id,
            inst_addr: self.inst_addr,
            index: self.index,
            stack: self.stack.clone(),
        }
    }
}

/// Why the model has no answer for a ray.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoAnswer {
    /// The program reached something the ISA leaves undefined.
    Undefined {
        /// Where.
        pc: u32,
        /// What.
        what: String,
    },
    /// It ran more than the step budget without stopping.
    StepLimit {
        /// Where it was.
        pc: u32,
    },
    /// A call-out the SM model cannot run (see [`callout`]).
    BadCallOut(String),
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoAnswer::Undefined { pc, what } => write!(f, "undefined at {pc:#x}: {what}"),
            NoAnswer::StepLimit { pc } => write!(f, "step limit reached at {pc:#x}"),
            NoAnswer::BadCallOut(e) => write!(f, "bad call-out: {e}"),
        }
    }
}

/// Does the interpreter, running `ray` until it leaves the core, stand at `pc` with `stack`
/// before one of its instructions? A parked ray must have left at such a state.
pub fn passes_through(mem: &Memory, ray: &Ray, stack_depth: u32, pc: u32, stack: &[u32]) -> bool {
    passes_through_with(mem, ray, stack_depth, pc, stack, &PipeSetup::default())
}

/// [`passes_through`] on an engine whose pipes are set up as `setup` says.
pub fn passes_through_with(
    mem: &Memory,
    ray: &Ray,
    stack_depth: u32,
    pc: u32,
    stack: &[u32],
    setup: &PipeSetup,
) -> bool {
    let mut m = Machine::new(ray.ray_id, ray.pc(), ray.stack.clone(), stack_depth);
    m.setup = setup.clone();
    loop {
        if m.pc == pc && m.stack == stack {
            return true;
        }
        if m.step(mem).is_err() {
            return false;
        }
    }
}

/// Runs `ray` on a slot of `stack_depth` words until it leaves the core.
///
/// # Panics
/// If the ray's stack is deeper than `stack_depth`.
pub fn run(mem: &Memory, ray: &Ray, stack_depth: u32) -> Result<FinalRay, NoAnswer> {
    run_with(mem, ray, stack_depth, &PipeSetup::default())
}

/// [`run`] on an engine whose pipes are set up as `setup` says (test fixtures, cel table).
///
/// # Panics
/// If the ray's stack is deeper than `stack_depth`.
pub fn run_with(
    mem: &Memory,
    ray: &Ray,
    stack_depth: u32,
    setup: &PipeSetup,
) -> Result<FinalRay, NoAnswer> {
    assert!(
        ray.stack.len() as u32 <= stack_depth,
        "stack deeper than the slot"
    );
    let mut m = Machine::new(ray.ray_id, ray.pc(), ray.stack.clone(), stack_depth);
    m.setup = setup.clone();
    let stop = loop {
        if let Err(s) = m.step(mem) {
            break s;
        }
    };
    match stop {
        Stop::Leave { reason, pc } => Ok(FinalRay {
            ray_id: ray.ray_id,
            inst_addr: pc & !(CHUNK_BYTES - 1),
            index: pc & (CHUNK_BYTES - 1),
            stack: m.stack,
            reason,
        }),
        Stop::Undefined { pc, what } => Err(NoAnswer::Undefined { pc, what }),
        Stop::StepLimit { pc } => Err(NoAnswer::StepLimit { pc }),
    }
}
