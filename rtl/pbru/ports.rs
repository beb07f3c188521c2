//! Configuration, tags and port bundles of the PBRU (the contract between the core, the
//! scheduler, the top level, the SM/TTU/L1 agents and the testbenches).
//!
//! # Tags (D3: results are routed by tag)
//! A pipeline request carries a [`TAG_W`]-bit tag, returned unchanged with its result:
//! * core request: bit 23 = 0, bits 22..20 core, bits 19..17 slot, bit 16 the slot's epoch,
//!   bits 15..0 ray id;
//! * SM request: bit 23 = 1, bits 17..16 SM port, bits 15..0 the SM's own tag.
//!
//! # Rays
//! A ray enters with `ray_id`, its program position (the next instruction is at byte address
//! `pc = inst_addr + index`), its stack (`sp` words valid, word 0 in bits 31..0 of `stack`),
//! where it returns (`ret_dst`: 0 SM, 1 TTU), and optionally the chunk holding `pc` inline
//! (`has_chunk`, `chunk`, byte 0 in bits 7..0). It leaves with `inst_addr` = the base of the
//! 32-byte chunk holding the instruction to execute next (for RAYSTOP: the RAYSTOP itself, for a
//! parked ray: the instruction to re-execute), `index` = its offset in that chunk (0..=31), the
//! stack, and a `reason` ([`rendergen_isa::Reason::code`]).
//!
//! # Test pipelines
//! A pipe whose [`PipeInst::test_latency`] is set holds a test fixture of that latency instead
//! of its unit (a cheap stand-in for scheduler tests), computing, for the popped arguments `a`
//! (`a[0]` pushed first) of opcode `op` with immediate `imm`, result word `i` (of
//! `op.pushes()`) = `Σ_j (j + 1)·a[j] + (i + 1)·0x0001_0001 + imm`, wrapping at 32 bits. The
//! RTL fixture and the scheduler testbenches implement it independently. The interpreter
//! (`rendergen_sim::models::pbru`) computes the real units, so a whole-engine run checked
//! against it needs the real pipes (the default).
//!
//! # Texture addresses (scheduler conventions, added with the scheduler)
//! * A texture block is named by its **block address** in block units, the word TEX_A pushes:
//!   `CoreReq::addr` of a TEXREAD and word 0 of a TEX_DP request's `args`. The L0 texture cache
//!   is keyed by it; the scheduler asks the L1 for the byte address `block_addr · 16`.
//! * An instruction chunk is named by its 32-byte-aligned byte address (`CoreReq::addr` of an
//!   IFETCH, and `L1Req::addr`).
//! * **ASTC_DP pipe requests.** A core's TEX_DP (`block_addr tx ty format`, `imm` = profile) is
//!   rewritten by the scheduler, after reading the block from the L0 texture cache, into the
//!   words the ASTC_DP pipe takes, which are also what an SM sends to an ASTC_DP instance
//!   directly: `args` words 0..=3 the 128-bit block (word 0 = block bits 31..0), word 4 tx,
//!   word 5 ty, word 6 format; `imm` the profile.

use rendergen_hdl::{bundle, Io, Sig, Stream};
/// The ISA crate, re-exported for users of the contract (opcodes, pipeline kinds).
pub use rendergen_isa as isa;
use rendergen_isa::{PipeKind, MAX_PIPE_ARGS, MAX_PIPE_RESULTS};

/// Bits of a pipeline-request tag.
pub const TAG_W: u32 = 24;
/// Bits of a ray id.
pub const RAY_ID_W: u32 = 16;
/// Bits of an instruction or block byte address.
pub const ADDR_W: u32 = 32;
/// Bits of an instruction chunk (32 bytes).
pub const CHUNK_W: u32 = 256;
/// Bits of an ASTC block.
pub const BLOCK_W: u32 = 128;
/// Bits of a pipeline request's argument vector.
pub const ARGS_W: u32 = 32 * MAX_PIPE_ARGS;
/// Bits of a pipeline result vector.
pub const RESULTS_W: u32 = 32 * MAX_PIPE_RESULTS;
/// Bits of an L1 request id.
pub const L1_ID_W: u32 = 8;

/// One pipeline instance plugged into the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipeInst {
    /// Its type.
    pub kind: PipeKind,
    /// For a test pipeline (types whose real unit is not built yet, or a cheap stand-in): its
    /// latency in cycles. `None` for the real unit (where one is built).
    pub test_latency: Option<u32>,
}

/// Parameters of the PBRU (defaults from D3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PbruCfg {
    /// Processing cores, 1..=8. Default 4.
    pub cores: u32,
    /// Ray slots per core, 1..=8. Default 2.
    pub slots: u32,
    /// Stack words per slot, 4..=64. Default 32.
    pub stack_depth: u32,
    /// L0 instruction-cache lines (32-byte chunks), ≥ 1. Default 16.
    pub icache_chunks: u32,
    /// L0 texture-cache lines (16-byte blocks), ≥ 1. Default 16.
    pub tcache_blocks: u32,
    /// SM ports for direct pipeline requests, 1..=4. Default 1.
    pub sm_ports: u32,
    /// Cycles a core request to an instance stays blocked after a cycle with an SM request to
    /// it (claim 1), ≥ 1. Default 1.
    pub sm_block_cycles: u32,
    /// Cycles a slot waits on a pending L1 fetch before stopping itself (¶75). Default 64.
    pub miss_thresh: u32,
    /// Pipeline instances; default one of each type, each its real unit.
    pub pipes: Vec<PipeInst>,
}

impl Default for PbruCfg {
    fn default() -> Self {
        let pipes = PipeKind::ALL
            .iter()
            .map(|&kind| PipeInst {
                kind,
                test_latency: None,
            })
            .collect();
        PbruCfg {
            cores: 4,
            slots: 2,
            stack_depth: 32,
            icache_chunks: 16,
            tcache_blocks: 16,
            sm_ports: 1,
            sm_block_cycles: 1,
            miss_thresh: 64,
            pipes,
        }
    }
}

impl PbruCfg {
    /// The pipe kinds whose instances hold the test fixture (a [`PipeInst::test_latency`]), in
    /// [`PipeKind::ALL`] order: what a golden model must compute for them instead of the unit.
    pub fn fixture_kinds(&self) -> Vec<PipeKind> {
        (PipeKind::ALL.iter().copied())
            .filter(|k| {
                self.pipes
                    .iter()
                    .any(|p| p.kind == *k && p.test_latency.is_some())
            })
            .collect()
    }

    /// Bits of a stack.
    pub fn stack_w(&self) -> u32 {
        32 * self.stack_depth
    }

    /// Bits of a stack pointer (0..=stack_depth).
    pub fn sp_w(&self) -> u32 {
        rendergen_hdl::clog2(self.stack_depth as u64 + 1)
    }

    /// The shape of a ray entering the engine.
    pub fn ray_in_shape(&self) -> RayIn<u32> {
        RayIn {
            ray_id: RAY_ID_W,
            inst_addr: ADDR_W,
            index: 16,
            sp: self.sp_w(),
            stack: self.stack_w(),
            ret_dst: 1,
            has_chunk: 1,
            chunk: CHUNK_W,
        }
    }

    /// The shape of a ray leaving the engine.
    pub fn ray_out_shape(&self) -> RayOut<u32> {
        RayOut {
            ray_id: RAY_ID_W,
            inst_addr: ADDR_W,
            index: 16,
            sp: self.sp_w(),
            stack: self.stack_w(),
            ret_dst: 1,
            reason: 3,
        }
    }
}

bundle! {
    /// A ray entering the engine (from the SM or the TTU).
    pub struct RayIn { pub ray_id, pub inst_addr, pub index, pub sp, pub stack, pub ret_dst, pub has_chunk, pub chunk }
}

bundle! {
    /// A ray leaving the engine.
    pub struct RayOut { pub ray_id, pub inst_addr, pub index, pub sp, pub stack, pub ret_dst, pub reason }
}

bundle! {
    /// A request to a pipeline instance: the opcode byte (the instance derives its function and
    /// direction variant), its immediate, the popped arguments (`a[0]`, pushed first, in bits
    /// 31..0), and the tag.
    pub struct PipeReq { pub op, pub imm, pub args, pub tag }
}

bundle! {
    /// A pipeline result: the pushed words (`r[0]`, pushed first, in bits 31..0) and the tag.
    pub struct PipeResp { pub data, pub tag }
}

bundle! {
    /// A direct pipeline request from an SM port: the target instance, and the request.
    pub struct SmReq { pub pipe, pub op, pub imm, pub args, pub tag }
}

bundle! {
    /// A result returned to an SM port: the instance that computed it, the words and the tag.
    pub struct SmResp { pub pipe, pub data, pub tag }
}

bundle! {
    /// A request to the SM's L1: a 32-byte instruction chunk (`kind` 0) or a 16-byte texture
    /// block (`kind` 1) at byte address `addr`.
    pub struct L1Req { pub addr, pub kind, pub id }
}

bundle! {
    /// The L1's answer: the data (a chunk, or a block in bits 127..0), or `miss` (the SM's miss
    /// notice, ¶75: the scheduler parks the waiting ray).
    pub struct L1Resp { pub id, pub miss, pub data }
}

impl PipeReq<u32> {
    /// The request shape.
    pub const SHAPE: PipeReq<u32> = PipeReq {
        op: 8,
        imm: 8,
        args: ARGS_W,
        tag: TAG_W,
    };
}

impl PipeResp<u32> {
    /// The result shape.
    pub const SHAPE: PipeResp<u32> = PipeResp {
        data: RESULTS_W,
        tag: TAG_W,
    };
}

impl L1Req<u32> {
    /// The request shape.
    pub const SHAPE: L1Req<u32> = L1Req {
        addr: ADDR_W,
        kind: 1,
        id: L1_ID_W,
    };
}

impl L1Resp<u32> {
    /// The answer shape.
    pub const SHAPE: L1Resp<u32> = L1Resp {
        id: L1_ID_W,
        miss: 1,
        data: CHUNK_W,
    };
}

impl SmReq<u32> {
    /// The SM request shape.
    pub const SHAPE: SmReq<u32> = SmReq {
        pipe: 5,
        op: 8,
        imm: 8,
        args: ARGS_W,
        tag: 16,
    };
}

impl SmResp<u32> {
    /// The SM result shape.
    pub const SHAPE: SmResp<u32> = SmResp {
        pipe: 5,
        data: RESULTS_W,
        tag: 16,
    };
}

// ---- The core ↔ scheduler interface -------------------------------------------------------
//
// Per core: `assign` (scheduler → core, a `RayIn`; the core picks a free slot), `busy` (core →
// scheduler, one bit per slot, from registers: the assignment policy counts it), `creq` (core →
// scheduler), `crsp` (scheduler → core), `stop_valid`/`stop_slot`/`stop_epoch` (scheduler →
// core, a [`StopCmd`]), `done` (core → scheduler, a `RayOut`).
// A slot has at most one request outstanding. Each slot has a one-bit **epoch** that toggles
// whenever a ray enters it; requests carry it, and answers and stops carry it back, with the slot
// and the ray id, so an answer or stop meant for an earlier occupant (a ray that parked
// meanwhile, even the same ray returned to the same slot) is recognised and dropped. Every
// IFETCH and TEXREAD gets exactly one answer (its data, or `CRSP_CANCEL`); a ray that parks
// while one is outstanding leaves its slot owing that answer, and the slot takes no ray whose
// epoch would equal the owed one until it has arrived, so one bit always tells them apart.

/// `CoreReq::kind`: a pipeline request (`op`, `imm`, `args`).
pub const CREQ_PIPE: u64 = 0;
/// `CoreReq::kind`: fetch the instruction chunk at `addr` (32-byte aligned).
pub const CREQ_IFETCH: u64 = 1;
/// `CoreReq::kind`: make sure the texture block at `addr` is in the L0 texture cache (TEX_READ);
/// answered at once on an L0 hit, after an L1 fetch otherwise.
pub const CREQ_TEXREAD: u64 = 2;

/// `CoreResp::kind`: pipeline results in `data[127:0]`.
pub const CRSP_PIPE: u64 = 0;
/// `CoreResp::kind`: the requested instruction chunk in `data`.
pub const CRSP_CHUNK: u64 = 1;
/// `CoreResp::kind`: the texture block is in the L0 texture cache.
pub const CRSP_TEXREADY: u64 = 2;
/// `CoreResp::kind`: the IFETCH or TEXREAD will not be answered (the SM's L1 missed): the
/// occupant that sent it parks at once if it is still waiting; no other answer follows.
pub const CRSP_CANCEL: u64 = 3;

bundle! {
    /// A request from a core's slot. For TEX_DP the scheduler reads the block at `args` word 0
    /// from the L0 texture cache (fetching it if it was evicted) and sends block + coordinates to
    /// ASTC_DP.
    pub struct CoreReq { pub kind, pub slot, pub ray_id, pub op, pub imm, pub args, pub addr, pub epoch }
}

bundle! {
    /// The scheduler's one-cycle command to park the ray in `slot` (¶75) if the slot is still in
    /// epoch `epoch` (a stop meant for an earlier occupant is dropped).
    pub struct StopCmd {
        /// Command present this cycle.
        pub valid,
        /// Slot.
        pub slot,
        /// Epoch of the occupant to stop.
        pub epoch,
    }
}

/// What the scheduler gives a core (the core's inputs).
#[derive(Io)]
pub struct ToCore {
    /// Rays to start.
    pub assign: Stream<RayIn>,
    /// Answers and results.
    pub crsp: Stream<CoreResp>,
    /// One-cycle command: park the ray of a slot (¶75).
    pub stop: StopCmd,
}

/// What a core gives the scheduler (the core's outputs).
#[derive(Io)]
pub struct FromCore {
    /// Occupied slots, one bit per slot (slot 0 in bit 0; from registers).
    pub busy: Sig,
    /// The core takes a ray offered on `assign` this cycle (`assign.ready`, from registers).
    pub open: Sig,
    /// Requests to the scheduler.
    pub creq: Stream<CoreReq>,
    /// Finished or parked rays.
    pub done: Stream<RayOut>,
}

impl PbruCfg {
    /// The shape of what the scheduler gives a core.
    pub fn to_core_shape(&self) -> ToCoreShape {
        ToCoreShape {
            assign: self.ray_in_shape(),
            crsp: self.core_resp_shape(),
            stop: StopCmd {
                valid: 1,
                slot: self.slot_w(),
                epoch: 1,
            },
        }
    }

    /// The shape of what a core gives the scheduler.
    pub fn from_core_shape(&self) -> FromCoreShape {
        FromCoreShape {
            busy: self.slots,
            open: 1,
            creq: self.core_req_shape(),
            done: self.ray_out_shape(),
        }
    }
}

// ---- Pipes and caches ----------------------------------------------------------------------

/// What a pipe gives the scheduler.
#[derive(Io)]
pub struct PipeOut {
    /// Results, in request order, with their tags (the head of the output FIFO).
    pub resp: Stream<PipeResp>,
    /// Something is in flight or buffered; for the busy counter.
    pub busy: Sig,
}

impl PipeOut {
    /// The shape of a pipe's outputs.
    pub fn shape() -> PipeOutShape {
        PipeOutShape {
            resp: PipeResp::SHAPE,
            busy: 1,
        }
    }
}

bundle! {
    /// A cache's answer to one lookup: `hit`, and the line's `data` (meaningful with `hit`).
    pub struct CacheAnswer { pub hit, pub data }
}

bundle! {
    /// A cache fill: when `valid`, line `key` becomes `data` at the clock edge.
    pub struct CacheFill { pub valid, pub key, pub data }
}

/// What an L0 cache takes: one key per lookup port, and the fill.
#[derive(Io)]
pub struct CacheIn {
    /// Line addresses looked up (one read port each).
    pub lookup: Vec<Sig>,
    /// The fill.
    pub fill: CacheFill,
}

bundle! {
    /// Performance counters of one pipeline instance (32 bits each, wrapping).
    pub struct PerfCounters {
        /// Cycles in which the instance took an SM request.
        pub sm_grants,
        /// Cycles in which it took a core request.
        pub core_grants,
        /// Cycles with a request in flight or a result buffered.
        pub busy,
    }
}

impl PbruCfg {
    /// The L0 instruction cache: 32-byte chunks keyed by chunk number (byte address >> 5).
    pub fn icache_cfg(&self) -> crate::pbru::cache::CacheCfg {
        crate::pbru::cache::CacheCfg {
            lines: self.icache_chunks,
            key_w: ADDR_W - 5,
            data_w: CHUNK_W,
        }
    }

    /// The L0 texture cache: 16-byte blocks keyed by block address.
    pub fn tcache_cfg(&self) -> crate::pbru::cache::CacheCfg {
        crate::pbru::cache::CacheCfg {
            lines: self.tcache_blocks,
            key_w: 32,
            data_w: BLOCK_W,
        }
    }

    /// Each pipeline instance's name, `<kind><i>` in `cfg.pipes` order (e.g. `astc_a0`).
    pub fn pipe_names(&self) -> Vec<String> {
        let mut seen = [0u32; 8];
        self.pipes
            .iter()
            .map(|p| {
                let t = p.kind.index() as usize;
                seen[t] += 1;
                format!("{}{}", p.kind.name(), seen[t] - 1)
            })
            .collect()
    }
}

bundle! {
    /// An answer to a core's slot (for the occupant of epoch `epoch`).
    pub struct CoreResp { pub kind, pub slot, pub ray_id, pub data, pub epoch }
}

impl PbruCfg {
    /// Bits of a slot index.
    pub fn slot_w(&self) -> u32 {
        rendergen_hdl::clog2(self.slots as u64)
    }

    /// The shape of a core request.
    pub fn core_req_shape(&self) -> CoreReq<u32> {
        CoreReq {
            kind: 2,
            slot: self.slot_w(),
            epoch: 1,
            ray_id: RAY_ID_W,
            op: 8,
            imm: 8,
            args: ARGS_W,
            addr: ADDR_W,
        }
    }

    /// The shape of a core response.
    pub fn core_resp_shape(&self) -> CoreResp<u32> {
        CoreResp {
            kind: 2,
            slot: self.slot_w(),
            epoch: 1,
            ray_id: RAY_ID_W,
            data: CHUNK_W,
        }
    }
}
