//! The testbench kit: seeded randomness, valid/ready stream drivers and monitors with a protocol
//! checker, scoreboards, a watchdog, and VCD-on-failure. Resolve ports once, then drive them
//! every cycle without allocation.
//!
//! A testbench cycle: every agent's `drive`, then every agent's `sample`, then `step` (see
//! [`stream`]); wrap the loop in [`Watchdog::run_until`] and the whole run in a [`TestRun`].

pub mod error;
pub mod protocol;
pub mod rng;
pub mod run;
pub mod scoreboard;
pub mod stream;
pub mod watchdog;

#[cfg(test)]
mod tests;

pub use error::TbError;
pub use protocol::ProtocolChecker;
pub use rng::{seed_from_env_or, Rng};
pub use run::TestRun;
pub use scoreboard::{ByTag, InOrder};
pub use stream::{StreamSink, StreamSource};
pub use watchdog::{run_until, Watchdog};
