//! rendergen's hardware generators. The folder tree mirrors the block diagram:
//! * [`astc`] — ASTC texture pipelines (ASTC_A address, ASTC_DP texel decode);
//! * [`stream`] — valid/ready widgets (FIFO, skid buffer, arbiters, mux/demux, credits);
//! * [`mem`] — RAMs;
//! * [`synthetic`] — benchmark designs (counter, multiply-add mesh);
//! * [`catalog`] — the top-level generators the command line lists, with their parameters.

pub mod astc;
pub mod catalog;
pub mod mem;
pub mod pbru;
pub mod stream;
pub mod synthetic;
