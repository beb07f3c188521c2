//! The TTU's temporary ray array (¶76): takes parked rays from `ttu_ray_out`, holds each until
//! the L1 has the data it waits for, and resends it on `ttu_ray_in`. Finished rays sent to the
//! TTU (`ret_dst` 1) are handed to the caller.

use super::{RaySink, RaySource, Returned, L1};
use crate::engine::Simulator;
use crate::kit::TbError;
use crate::models::pbru::{FinalRay, Memory};
use rendergen_isa::Opcode;

/// The TTU agent.
pub struct Ttu {
    /// Resends parked rays.
    pub input: RaySource,
    /// Receives rays.
    pub output: RaySink,
    held: Vec<Returned>,
    /// Rays parked so far.
    pub parked: u64,
}

/// The L1 lines (byte address, kind) a parked ray waits for: the block of a `TEX_READ` (two below
/// the top) or `TEX_DP` (four below), else the chunk(s) of the instruction at its position.
pub fn waits_for(mem: &Memory, ray: &FinalRay) -> Vec<(u32, u64)> {
    let pc = ray.pc();
    let sp = ray.stack.len();
    let block = |k: usize| (sp >= k).then(|| (ray.stack[sp - k].wrapping_mul(16), 1));
    match Opcode::from_byte(mem.byte(pc)) {
        Some(Opcode::TexRead) => block(3).into_iter().collect(),
        Some(Opcode::TexDp) => block(4).into_iter().collect(),
        op => {
            let last = pc.wrapping_add(op.map_or(0, |o| o.imm_bytes()));
            vec![(pc, 0), (last, 0)]
        }
    }
}

impl Ttu {
    /// The agent on `ttu_ray_out`/`ttu_ray_in`.
    pub fn new(sim: &Simulator, seed: u64, stall: f64) -> Result<Ttu, TbError> {
        Ok(Ttu {
            input: RaySource::new(sim, "ttu_ray_in", seed, 0.0)?,
            output: RaySink::new(sim, "ttu_ray_out", seed ^ 0x77, stall)?,
            held: Vec::new(),
            parked: 0,
        })
    }

    /// Takes a parked ray into the array.
    pub fn hold(&mut self, r: Returned) {
        self.parked += 1;
        self.held.push(r);
    }

    /// Rays held or waiting to be resent.
    pub fn in_flight(&self) -> usize {
        self.held.len() + self.input.pending()
    }

    /// Resends every held ray whose data the L1 now has.
    pub fn release(&mut self, l1: &L1) -> Result<(), TbError> {
        let mut i = 0;
        while i < self.held.len() {
            let r = &self.held[i].ray;
            if waits_for(&l1.mem, r)
                .iter()
                .all(|(a, k)| l1.is_present(*a, *k))
            {
                let r = self.held.swap_remove(i);
                self.input.send(&r.ray.resumed(), r.ret_dst, None)?;
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Phase 1.
    pub fn drive(&mut self, sim: &mut Simulator) {
        self.input.drive(sim);
        self.output.drive(sim);
    }

    /// Phase 2: returns the rays received this cycle (parked ones too: the caller checks them
    /// and hands them to [`Ttu::hold`]).
    pub fn sample(&mut self, sim: &mut Simulator) -> Result<Vec<Returned>, TbError> {
        self.input.sample(sim);
        self.output.sample(sim);
        self.output.take()
    }
}
