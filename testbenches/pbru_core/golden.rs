//! The golden checks of a ray leaving the core, against `rendergen_sim::models::pbru`.

use rendergen_hdl::Bits;
use rendergen_rtl::pbru::ports::isa::{RayError, Reason};
use rendergen_sim::kit::TbError;
use rendergen_sim::models::pbru::{passes_through, run, FinalRay, Memory, Ray};
use std::collections::HashMap;

/// Decodes a departure and checks it against the model run from the ray's latest entry.
pub fn check(
    mem: &Memory,
    o: &[Bits],
    latest: &HashMap<u32, Ray>,
    depth: u32,
) -> Result<FinalRay, TbError> {
    let [ray_id, inst_addr, index, sp, stack, _ret, reason] = o else {
        return Err(TbError::new(format!("done has {} fields", o.len())));
    };
    let id = ray_id.to_u64() as u32;
    let bytes = stack.to_le_bytes();
    let sp = sp.to_u64() as usize;
    let words = (0..sp).map(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()));
    let fin = FinalRay {
        ray_id: id,
        inst_addr: inst_addr.to_u64() as u32,
        index: index.to_u64() as u32,
        stack: words.collect(),
        reason: Reason::from_code(reason.to_u64() as u32)
            .ok_or_else(|| TbError::new(format!("reason code {}", reason.to_u64())))?,
    };
    let from = latest
        .get(&id)
        .ok_or_else(|| TbError::new(format!("unknown ray {id}")))?;
    if !fin.inst_addr.is_multiple_of(32) || fin.index >= 32 {
        return Err(TbError::new(format!("ray {id}: bad position {fin:x?}")));
    }
    if from.stack.len() as u32 > depth {
        // The core refuses a stack deeper than its slots: StackOverflow, empty stack.
        let ok = fin.reason == Reason::Error(RayError::StackOverflow)
            && fin.stack.is_empty()
            && fin.pc() == from.pc();
        return if ok {
            Ok(fin)
        } else {
            Err(TbError::new(format!("deep ray {id}: {fin:x?}")))
        };
    }
    if fin.reason == Reason::Parked {
        if !passes_through(mem, from, depth, fin.pc(), &fin.stack) {
            return Err(TbError::new(format!(
                "ray {id} parked off the model's path: {fin:x?}\n  from {from:x?}"
            )));
        }
        return Ok(fin);
    }
    let want = run(mem, from, depth).map_err(|e| TbError::new(format!("model: {e}")))?;
    if want != fin {
        return Err(TbError::new(format!(
            "ray {id}:\n  core  {fin:x?}\n  model {want:x?}\n  from {from:x?}"
        )));
    }
    Ok(fin)
}
