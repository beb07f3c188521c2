//! Stream widgets: generators that take valid/ready streams and return streams, and the
//! combinators ([`pipe::map`], [`pipe::pipe_reg`]) pipelines are built from.
//!
//! Every widget keeps the transfer rules written once in [`rendergen_hdl::stream`]: a transfer
//! happens when `valid && ready`; `valid` never waits for `ready`; payload is stable while
//! `valid && !ready`. Each file holds one generator family, with a `*_top` wrapper that gives it
//! module ports for the command line, the Verilog emitter and the testbenches.

pub mod arbiter;
pub mod credit;
pub mod fifo;
pub mod mux;
pub mod pipe;
pub mod skid;
