//! The testbench kit: seeded randomness, valid/ready stream drivers and monitors with a protocol
//! checker, scoreboards, a watchdog, and VCD-on-failure. Resolve ports once, then drive them
//! every cycle without allocation.

pub mod rng;

pub use rng::{seed_from_env_or, Rng};
