//! Agents: transaction-level stand-ins for the parts of the system around a simulated design,
//! driving its ports and checking what comes back. Unlike [`models`](crate::models), they model
//! no RTL and are not golden: they produce stimulus and consume results, and they call the
//! golden models to check them.
//!
//! * [`pbru`]: the SM, the TTU and the SM's L1 around a simulated `pbru` top.
//! * [`shader_core`]: program, launches and every port of a simulated `shader_core`.
//! * [`memory`]: a byte-accurate external memory on the tile engine's memory port.

pub mod memory;
pub mod pbru;
pub mod shader_core;
