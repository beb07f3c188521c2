//! The SM call-out convention (`pbru.md` §3.7) and the golden end result of a ray.
//!
//! A program calls a function the PBRU cannot run with three bytes: `RAYSTOP`, the marker byte
//! [`CALLOUT_MARKER`] (0xFC, no opcode, so a core never executes it) and a function number:
//!
//! ```text
//! RAYSTOP
//! .byte 0xFC, 1      ; call SM function 1
//! ```
//!
//! A ray that leaves with reason `Done` at a RAYSTOP followed by the marker is a call-out: the SM
//! runs the function on the stack (it pops its arguments and pushes one result), advances the
//! index by 3 (past the RAYSTOP and the two marker bytes) and sends the ray back. Any other
//! `Done` ray is finished. Functions ([`sm_function`]), Q16.16:
//! * 0 `a → a·a`
//! * 1 `a b → 2·max(a, b)`
//! * 2 `→ ray_id` (the ray id as an integer word)

use super::PipeSetup;
use super::{run_with, FinalRay, Memory, NoAnswer, Ray};
use crate::models::pbru::exec::q_mul;
use rendergen_isa::{Opcode, Reason};

/// The byte after a call-out's RAYSTOP.
pub const CALLOUT_MARKER: u8 = 0xFC;

/// Call-outs a ray may make before the model gives up.
pub const MAX_CALLOUTS: u32 = 64;

/// The function number if `ray` stopped at a call-out.
pub fn callout_of(mem: &Memory, ray: &FinalRay) -> Option<u8> {
    let pc = ray.pc();
    let at_stop = mem.byte(pc) == Opcode::RayStop as u8;
    let marked = mem.byte(pc.wrapping_add(1)) == CALLOUT_MARKER;
    (ray.reason == Reason::Done && at_stop && marked).then(|| mem.byte(pc.wrapping_add(2)))
}

/// Runs SM function `f` on `stack` (of capacity `depth`).
pub fn sm_function(f: u8, ray_id: u32, stack: &mut Vec<u32>, depth: u32) -> Result<(), String> {
    let pops = match f {
        0 => 1,
        1 => 2,
        2 => 0,
        _ => return Err(format!("unknown SM function {f}")),
    };
    if stack.len() < pops || stack.len() - pops >= depth as usize {
        return Err(format!("SM function {f}: stack of {} words", stack.len()));
    }
    let a = stack.split_off(stack.len() - pops);
    stack.push(match f {
        0 => q_mul(a[0], a[0]),
        1 => ((a[0] as i32).max(a[1] as i32) as u32).wrapping_mul(2),
        _ => ray_id,
    });
    Ok(())
}

/// The ray the SM sends back after running the call-out of `out` (function `f`).
pub fn resume_after_callout(f: u8, out: &FinalRay, stack_depth: u32) -> Result<Ray, String> {
    let mut stack = out.stack.clone();
    sm_function(f, out.ray_id, &mut stack, stack_depth)?;
    Ok(Ray {
        ray_id: out.ray_id,
        inst_addr: out.inst_addr,
        index: out.index + 3,
        stack,
    })
}

/// The end result of `ray` through the engine and the SM: [`run`](super::run), then every call-out run and
/// the ray resent (its PRNG starts again from its seed, as on any new assignment), until a ray
/// leaves that is no call-out. Also returns the number of call-outs.
pub fn golden(mem: &Memory, ray: &Ray, stack_depth: u32) -> Result<(FinalRay, u32), NoAnswer> {
    golden_with(mem, ray, stack_depth, &PipeSetup::default())
}

/// [`golden`] on an engine whose pipes are set up as `setup` says (test fixtures, cel table).
pub fn golden_with(
    mem: &Memory,
    ray: &Ray,
    stack_depth: u32,
    setup: &PipeSetup,
) -> Result<(FinalRay, u32), NoAnswer> {
    let mut ray = ray.clone();
    for calls in 0..=MAX_CALLOUTS {
        let out = run_with(mem, &ray, stack_depth, setup)?;
        match callout_of(mem, &out) {
            None => return Ok((out, calls)),
            Some(f) => {
                ray = resume_after_callout(f, &out, stack_depth).map_err(NoAnswer::BadCallOut)?
            }
        }
    }
    Err(NoAnswer::BadCallOut(format!(
        "more than {MAX_CALLOUTS} call-outs"
    )))
}
