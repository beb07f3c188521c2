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
pub mod stages;

use rendergen_hdl::{name_lets, pack, Bundle, ReadyDriver, Sig, Stream};
use std::ops::RangeInclusive;

/// Legal payload width of the stand-alone widgets (`*_top`), in bits.
pub const WIDTH: RangeInclusive<u64> = 1..=4096;
/// Legal lane count of the stand-alone arbiters, mux and demux (the round-robin arbiter keeps
/// an `n`-bit grant register with a 64-bit reset value).
pub const LANES: RangeInclusive<u64> = 1..=64;

/// Several streams of one payload taken apart for a many-to-one widget: their valids, their
/// payloads packed into one signal each, and the readies still to drive.
pub(crate) struct Lanes<T: Bundle> {
    /// Payload shape (of the first lane; elaboration reports lanes that differ when unpacked).
    pub shape: T::Shape,
    /// `valid` of each lane.
    pub valids: Vec<Sig>,
    /// Packed payload of each lane.
    pub datas: Vec<Sig>,
    /// Ready of each lane, to drive once.
    pub readies: Vec<ReadyDriver>,
}

impl<T: Bundle> Lanes<T> {
    /// Splits `lanes` (at least one).
    #[name_lets]
    pub fn split(lanes: Vec<Stream<T>>) -> Lanes<T> {
        let shape = lanes[0].shape();
        let mut split = Lanes {
            shape,
            valids: Vec::new(),
            datas: Vec::new(),
            readies: Vec::new(),
        };
        for lane in lanes {
            let (v, d, r) = lane.split();
            split.valids.push(v);
            split.datas.push(pack(&d));
            split.readies.push(r);
        }
        split
    }
}
