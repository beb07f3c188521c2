//! The tile engine's external memory port: one per engine, a valid/ready read/write protocol
//! with bursts (a single-ID subset of AXI4's semantics on two streams).
//!
//! # Protocol
//! Two streams, both keeping the transfer rules of `rendergen_hdl::stream`:
//! * `mem_req` ([`MemReq`], engine → memory): requests and write data.
//!   * A **read** is one transfer with `write = 0`, a byte address `addr` aligned to
//!     [`MEM_BEAT_BYTES`] and `beats` = burst length − 1 (1 ..= [`MEM_MAX_BEATS`] beats of
//!     [`MEM_BEAT_BYTES`] bytes at consecutive addresses); `data` and `last` are ignored.
//!     A single-beat read may mark the bytes it needs in `strobe` (a **narrow read**, as
//!     AXI4's `ARSIZE` below the bus width): the whole beat is answered, and the memory's
//!     traffic counters count only the marked bytes; `strobe = 0` (and every burst) counts
//!     every byte.
//!   * A **write burst** is `beats + 1` consecutive transfers with `write = 1`, each carrying
//!     one beat of `data` (little-endian: byte `k` of the beat is `data[8k+7:8k]` at address
//!     `addr + 8·beat + k`) and its byte `strobe`s; `addr` and `beats` are the burst's, the
//!     same in every beat; `last` is 1 on the final beat only. No read or other burst is
//!     interleaved with it (an arbiter in front of the port switches only after `last`).
//!   * A burst never crosses a 4 KiB boundary.
//! * `mem_resp` ([`MemResp`], memory → engine): answers **in request order**: a read is
//!   answered by `beats + 1` transfers with its data (`write = 0`, `last` on the final beat); a
//!   write burst by one transfer with `write = 1`, `last = 1` once every byte of it is stored
//!   (the AXI B response). A write response means later reads see the data.
//!
//! The simulation agent `rendergen_sim::agents::memory` implements the memory side
//! byte-accurately, with latency, back-pressure, per-region counters and a poison value.
use rendergen_hdl::{Bundle, Sig};

/// Bits of a byte address.
pub const MEM_ADDR_BITS: u32 = 32;
/// Bits of a data beat.
pub const MEM_DATA_BITS: u32 = 64;
/// Bytes of a data beat.
pub const MEM_BEAT_BYTES: u32 = MEM_DATA_BITS / 8;
/// Longest burst, in beats.
pub const MEM_MAX_BEATS: u32 = 16;
/// Bits of [`MemReq::beats`].
pub const MEM_BEATS_BITS: u32 = 4;

/// A request beat on the memory port (module docs: the protocol).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct MemReq<T = Sig> {
    /// Write (else read).
    pub write: T,
    /// Byte address of the burst's first beat, aligned to [`MEM_BEAT_BYTES`].
    pub addr: T,
    /// Beats of the burst − 1, [`MEM_BEATS_BITS`] bits.
    pub beats: T,
    /// Write data of this beat.
    pub data: T,
    /// Byte enables of this beat (bit `k`: byte `k`).
    pub strobe: T,
    /// Final beat of a write burst.
    pub last: T,
}

impl MemReq<u32> {
    /// The shape.
    pub const SHAPE: MemReq<u32> = MemReq {
        write: 1,
        addr: MEM_ADDR_BITS,
        beats: MEM_BEATS_BITS,
        data: MEM_DATA_BITS,
        strobe: MEM_BEAT_BYTES,
        last: 1,
    };
}

/// A response beat on the memory port.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct MemResp<T = Sig> {
    /// Read data (0 on a write response).
    pub data: T,
    /// Final beat of a read, or a write response.
    pub last: T,
    /// This is a write response.
    pub write: T,
}

impl MemResp<u32> {
    /// The shape.
    pub const SHAPE: MemResp<u32> = MemResp {
        data: MEM_DATA_BITS,
        last: 1,
        write: 1,
    };
}
