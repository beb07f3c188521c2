//! Testbenches of the widget library: random gaps and back-pressure, scoreboards, per-cycle
//! invariants against a model, and co-simulation of a prefix of each run.

mod arbiter;
mod credit;
mod fifo;
mod mux;
mod ram;
mod skid;
