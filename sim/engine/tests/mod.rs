//! Unit tests of the engine: every IR operation against a straightforward model at many widths,
//! registers, reset, memories, hierarchy.

mod activity;
mod batch;
pub mod hier;
mod model;
mod ops;
mod runs;
mod simplify;
mod state;
