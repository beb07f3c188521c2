//! rendergen's hardware generators. The folder tree mirrors the block diagram:
//! * [`astc`] — ASTC texture pipelines (ASTC_A address, ASTC_DP texel decode);
//! * [`stream`] — valid/ready widgets (FIFO, skid buffer, arbiters, mux/demux, credits);
//! * [`fp`] — IEEE-754 binary32 arithmetic units (FMA, compares and conversions, reciprocals, exp2/log2/sin/cos);
//! * [`mem`] — RAMs;
//! * [`texture`] — the texture unit (LOD, 4-bank texel cache, bilinear/trilinear filter, raw bypass);
//! * [`synthetic`] — benchmark designs (counter, multiply-add mesh);
//! * [`tile`] — the tile engine's rasteriser and tile buffer;
//! * [`catalog`] — the top-level generators the command line lists, with their parameters.

pub mod astc;
pub mod catalog;
pub mod fp;
pub mod mem;
pub mod pbru;
pub mod shader;
pub mod stream;
pub mod synthetic;
pub mod texture;
pub mod tile;
