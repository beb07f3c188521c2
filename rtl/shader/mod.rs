//! The shader core (issue 12 §2): SIMT over 2×2 quads, several warps switched every clock,
//! bit-exact with the instruction-level model `rendergen_sim::models::shader` on the ISA of
//! `rtl/shader-isa/ISA.md`.
//!
//! # Block diagram
//! ```text
//!  prog ─▶ imem ─▶ fetch (round-robin over warps) ─▶ decode ─▶ per-warp instruction buffer
//!                                                                   │ checks, scoreboard
//!  launch ────▶ warp slots (pc, mask stack, pending bits) ◀── issue (round-robin, 1/clk)
//!                                                                   │ register read (4 ports)
//!          ┌──────────────────────────────┬──────────────────────────┤
//!          ▼                              ▼                          ▼
//!   lanes: fma/misc/recip/transc/int   control (mask stack)     port sequencer ─▶ ldg/stg/ldu/
//!          │ (write-back booked at issue)                            tex/spec/export requests
//!          ▼                                                          ▲ answers by tag
//!   register file write port ◀── ALU results > ldg > spec > ldu > tex > launch
//! ```
//!
//! # Hierarchy
//! `shader_core` instantiates one `warp_slot` per warp (`warp_<i>`: fetch pc, instruction
//! buffer, fault checks, scoreboard, counters; its child `mask_stack`), `reg_file`, one
//! `lane_exec` per lane (`lane_<l>`: the `rtl/fp` units), `port_seq` (the port
//! sequencer) and `write_back` (the register file's write port: ALU results, answers by tag,
//! launch transfers); itself it keeps fetch, issue, the write-back bookings and the launch.
//! Default core, `rendergen verilog shader_core -o DIR`: `shader_core.v` 2,965 lines,
//! `warp_slot.v` 445, `mask_stack.v` 1,093, `reg_file.v` 297, `port_seq.v` 291,
//! `write_back.v` 262, `lane_exec.v` 1,101 (the flat core was one file of 12,589 lines).
//!
//! # Design choices
//! * **Fetch** reads one 64-bit word per clock from `imem` for a warp whose one-entry buffer
//!   is empty (or being issued), round-robin; the word is decoded on its way into the buffer
//!   (one decoder for all warps); it may also issue in the clock it arrives, while the warp's
//!   next word is fetched, so a warp can issue every clock on its own.
//! * **Issue** picks round-robin among warps whose buffered instruction has no hazard: a
//!   per-warp pending bit per register (set at issue of an ALU instruction, cleared at its
//!   write-back) covers every register the instruction reads or writes; a warp with a control
//!   instruction or a port instruction outstanding waits. Faults (ISA.md's list, in the
//!   interpreter's order) end the warp without issuing.
//! * **Write-back slots are booked at issue**: a shift register one entry per future cycle;
//!   an ALU instruction of latency L issues only if the slot L + 1 cycles ahead is free, so
//!   units never collide and never stall. Port answers take the cycles no ALU result uses.
//! * **Register file**: per lane one RAM of `warps × regs` words (each rounded up to a power
//!   of two) with four synchronous read ports (`ffma`/`sel` read three, `export` four) and one
//!   write port. A `tex` answer's `skip` mask leaves some of its words unwritten (selective
//!   and shared texture broadcasts, `compiler/shader/ABI.md` "Sampled textures").
//! * **Quad reads**: `ddxc`…`ddyf` and `qget` take operand `a` from another lane of the
//!   quad through one 4-way mux per lane. `qget t, r, s` is how a lane reads the
//!   **quad-shared register set** a shared texture broadcast leaves: the footprint fetched by
//!   lane `s` sits once in lane `s`'s registers, and every lane of the quad reads it from
//!   there (no extra storage: the shared set is the four lanes' own registers).
//! * **Control** resolves one clock after issue, when the condition register has been read;
//!   the mask stack (16 frames of two lane masks) is in flip-flops, one per warp. A jump's
//!   target is checked when it is fetched (its opcode must be the one the jump expects).
//! * **Ports**: one shared sequencer takes a port instruction's operands of all lanes and
//!   sends one request per clock (per lane; per quad for `tex`; one for `ldu`), tagged with
//!   the warp slot and lane/quad; answers return in any order and are written by tag. The warp
//!   waits until its port instruction has sent everything and every answer is written.
//! * **Units**: every lane has its own instance of each `rtl/fp` unit (simplest; a
//!   quad-shared quarter-rate special-function unit would save area).
//!
//! # Ports (streams, valid/ready)
//! Inputs: `prog` ([`ProgWrite`], only accepted while no warp runs or is being launched),
//! `launch` ([`LaunchRec`]), `ldg_resp`/`spec_resp` ([`LaneData`]), `ldu_resp`
//! ([`WarpData`]), `tex_resp` ([`TexResp`]). Outputs: `ldg_req` ([`LoadReq`]), `stg_req`
//! ([`StoreReq`]), `ldu_req` ([`UniformReq`]), `tex_req` ([`TexReq`]), `spec_req`
//! ([`SpecReq`]), `export` ([`ExportRec`]), `done` ([`DoneRec`]); `launch_slot` (the slot the
//! launch on `launch` goes into: the lowest free one, or the one its first transfer took);
//! and `issue` (1 in a cycle in which a warp instruction issues, for statistics).
//!
//! A launch: one transfer per register the launch sets (those the program reads before writing
//! them and that are not zero), the last with `last` (a launch that sets no register is one
//! transfer with `write` low). The core takes the lowest free slot — the launcher names no
//! slot — and reports it on `launch_slot` and in every request, export and `done` of the warp
//! (their `slot` field); with every slot busy `launch.ready` is low until a `done` transfer
//! frees one. Unwritten registers read 0 (a `written` bit per slot and register, cleared by
//! the first transfer), so a launch of `k` registers takes `k` clocks (at least one) instead
//! of one per register of the slot. The program is loaded through `prog` while no warp runs.
//! The driver `rendergen_sim::agents::shader_core` does all of this from the interpreter's
//! `Launch` and `Env`.
//!
//! # Performance (IPC, one core, one quad)
//! An ALU-bound shader of 512 independent `ffma` per warp, all warps launched at once
//! (`cargo test --release -p rendergen-gen shader::rtl::tests::ipc_report -- --ignored
//! --nocapture`; issue rate from the first issue to the last):
//!
//! | warps | 1 | 2 | 4 | 8 |
//! |---|---|---|---|---|
//! | IPC | 0.945 | 0.960 | 0.965 | 0.965 |
//!
//! What is lost is the start (fetch, register read) and the four exports at the end of each
//! warp (the port sequencer sends one lane per clock; a warp waits until its export is sent). `cargo test -p rendergen-gen
//! four_warps_reach_the_ipc_target` checks ≥ 0.95 with 4 warps.
//!
//! **Texture-bound shader** (`rendergen_gen::shader::rtl::tex_shader`: a 64-iteration loop of
//! `tex` and six ALU/control instructions, plus `endloop`; the texture model answers after a
//! fixed latency and takes a request every clock; `cargo test --release -p rendergen-gen
//! shader::rtl::tests::tex_report -- --ignored --nocapture`, texture requests and warp
//! instructions per clock from the first issue to the last):
//!
//! | latency | warps | 1 | 2 | 4 | 8 |
//! |---|---|---|---|---|---|
//! | 20 | tex/clock | 0.023 | 0.043 | 0.082 | 0.109 |
//! | 20 | IPC | 0.187 | 0.349 | 0.664 | 0.883 |
//! | 100 | tex/clock | 0.008 | 0.016 | 0.032 | 0.062 |
//! | 100 | IPC | 0.066 | 0.128 | 0.255 | 0.505 |
//!
//! One warp takes latency + 23 clocks per iteration (request sent 2 clocks after issue, the
//! answer's four registers written in 4 clocks, then the body with its dependences and two
//! control instructions of 6 clocks each). The bounds: `W / (L + 23)` from latency, 1/8 from
//! issue (8 instructions per request), 1/4 from the register file's write port (a one-quad
//! answer is 16 words, 4 per clock). At latency 20, 8 warps reach 87 % of the issue bound; at
//! 100 they are latency-bound (8 / 123 = 0.065) — 16 warp slots would help there, a wider
//! answer write port only for shaders with fewer instructions per `tex`.
//! `cargo test -p rendergen-gen eight_warps_keep_the_texture_port_busy` checks ≥ 80 % of the
//! smallest bound at latency 20.
//!
//! **Launch latency** (first `launch` transfer to the warp's first issue,
//! `shader::rtl::launch_latency`): 2 clocks with no register sent, `k + 1` with `k` registers
//! sent (`launch_costs_a_clock_per_register_sent`). Before launches named their slot, every
//! register of the slot was written first: 64 `regw` transfers, the `launch`, then 2 clocks:
//! 66 clocks at the default 64 registers.
//!
//! # Cost
//! `rendergen synth shader_core -p warps=2 -p regs=16 -p imem_depth=16 --per-module` (Yosys
//! generic, measured on the hierarchical core with the write port as a child, before the
//! `written` bits became one register per slot): 322,690 cells, 16,548 flip-flops, 62 gate
//! levels; the same on the flat core before this hierarchy and the fast launch: 321,748
//! cells, 16,494 flip-flops, 62 levels (+0.3 %: the `written` bits and their look-up).
//! Per module: `reg_file` 21,624 cells (4,644 flip-flops), `shader_core` 6,479, `port_seq`
//! 2,004, `write_back` 1,517, per warp `warp_slot` 1,182 + `mask_stack` 1,327, per lane
//! `lane_exec` 71,512 with its units.
//!
//! `rendergen synth shader_core -p warps=2 -p regs=16 --per-module` (Yosys generic `synth`,
//! measured before the fetch bypass and the `done` hold were added, which add a few hundred
//! cells): 452,624 cells, 81,010 flip-flops, 62 gate levels on the longest path.
//! * The lanes: 286,188 cells (63 %), 71,500 per lane: every lane has its own FMA, misc,
//!   reciprocal, transcendental and integer unit (the largest modules are `post` and `reduce` of
//!   `fp_transc` and `recip_decode`/`recip_round`; reciprocal and transcendental units are three
//!   quarters of a lane, which a quad-shared quarter-rate special-function unit would cut by
//!   four); 2,235 stage flip-flops per lane.
//! * The rest (`shader_core` itself): 166,436 cells, 72,070 flip-flops, of which 65,536 are
//!   the instruction memory (1,024 × 64 bits) and 4,096 the register files, which the generic
//!   library cannot map to RAM: on an FPGA or with a RAM macro they are block RAMs (the register
//!   file is read through four ports, so it is four copies of `32 × warps × regs` bits per lane,
//!   both counts rounded up to powers of two). Per warp slot: the mask stack
//!   `16 × (2 + 2·lanes)` flip-flops, the instruction buffer (≈ 190), pc, counters and the
//!   scoreboard (`regs` rounded up to a power of two); shared: the port sequencer's operands
//!   (`4 · 32 · lanes`) and the write-back bookings.
//!
//! # Verification
//! `cargo test -p rendergen-testbenches --test testbenches shader_core` (≈ 12 s once the
//! Verilator model is cached): every ALU opcode on FP specials, divergent control flow,
//! derivatives on two quads, every port under random latency, reordering and back-pressure with
//! helper lanes, every error code, random structured programs on one warp, twelve warps at once
//! and two quads, all bit for bit against the interpreter (exports, error and pc, executed
//! count, stores and port requests); co-simulation of a recorded run in iverilog and Verilator;
//! Verilator and iverilog lint. Ignored (long): `shader_core::random::sweep`,
//! `shader_core::cosim::lint_clean_with_yosys`.

pub mod control;
pub mod core;
pub mod decode;
pub mod exec;
pub mod ports;
pub mod regfile;
pub mod slot;
pub mod writeback;

pub use self::core::{shader_core, shader_core_top};
use rendergen_hdl::{clog2, Bundle, Sig};
use std::ops::RangeInclusive;

/// Legal [`ShaderCfg::quads`].
pub const QUADS: RangeInclusive<u64> = 1..=16;
/// Legal [`ShaderCfg::warps`].
pub const WARPS: RangeInclusive<u64> = 1..=16;
/// Legal [`ShaderCfg::regs`].
pub const REGS: RangeInclusive<u64> = 4..=256;
/// Legal [`ShaderCfg::imem_depth`] (powers of two).
pub const IMEM_DEPTH: RangeInclusive<u64> = 16..=65536;
/// Legal [`ShaderCfg::watchdog`].
pub const WATCHDOG: RangeInclusive<u64> = 1..=0xFFFF_FFFF;

/// Parameters of the shader core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaderCfg {
    /// Quads per warp, 1..=16 (default 1): a warp has `4 · quads` lanes.
    pub quads: u32,
    /// Warp slots, 1..=16 (default 8).
    pub warps: u32,
    /// 32-bit registers per lane, 4..=256 (default 64).
    pub regs: u32,
    /// Instruction memory words, a power of two in 16..=65536 (default 1024).
    pub imem_depth: u32,
    /// The most instructions a warp may execute before it ends with `watchdog`, 1..=2³²−1
    /// (default 10⁶, the interpreter's default).
    pub watchdog: u64,
}

impl Default for ShaderCfg {
    fn default() -> Self {
        ShaderCfg {
            quads: 1,
            warps: 8,
            regs: 64,
            imem_depth: 1024,
            watchdog: 1_000_000,
        }
    }
}

impl ShaderCfg {
    /// Lanes per warp.
    pub fn lanes(&self) -> u32 {
        4 * self.quads
    }
    /// Width of a warp slot index.
    pub fn slot_bits(&self) -> u32 {
        clog2(self.warps as u64)
    }
    /// Width of a lane index.
    pub fn lane_bits(&self) -> u32 {
        clog2(self.lanes() as u64)
    }
    /// Width of a quad index.
    pub fn quad_bits(&self) -> u32 {
        clog2(self.quads as u64)
    }
    /// Width of a register index inside a lane's file.
    pub fn reg_bits(&self) -> u32 {
        clog2(self.regs as u64)
    }
    /// Width of an instruction address.
    pub fn imem_bits(&self) -> u32 {
        clog2(self.imem_depth as u64)
    }
}

/// A program word written into instruction memory (`prog`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct ProgWrite<T = Sig> {
    /// Word index (`imem_bits`); the program's length becomes `addr + 1`.
    pub addr: T,
    /// The 64-bit instruction.
    pub word: T,
}

/// One transfer of a warp launch (`launch`). A launch is one or more transfers: each may
/// write one register in every lane; the one with `last` starts the warp. The core puts the
/// warp into the lowest free slot (output `launch_slot` names it while `launch` is offered)
/// and keeps that slot for every transfer of the launch; with no slot free, `ready` is low.
/// Registers the launch does not write read 0 (the interpreter's start), at no cost in clocks.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LaunchRec<T = Sig> {
    /// This transfer writes register `reg` of every lane with `data`.
    pub write: T,
    /// Register index (`reg_bits`).
    pub reg: T,
    /// One 32-bit word per lane.
    pub data: Vec<T>,
    /// The launch's last transfer: the warp starts.
    pub last: T,
    /// First pc (32 bits; read with `last`).
    pub pc: T,
    /// Helper lanes (one bit per lane; read with `last`).
    pub helpers: T,
    /// The id `warp` reads (32 bits; read with `last`).
    pub warp_id: T,
}

/// A per-lane load request (`ldg_req`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LoadReq<T = Sig> {
    /// Warp slot (tag).
    pub slot: T,
    /// Lane (tag).
    pub lane: T,
    /// Byte address.
    pub addr: T,
}

/// A per-lane store (`stg_req`), never for helper lanes.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct StoreReq<T = Sig> {
    /// Warp slot.
    pub slot: T,
    /// Lane.
    pub lane: T,
    /// Byte address.
    pub addr: T,
    /// The word.
    pub data: T,
}

/// A uniform read, one per warp instruction (`ldu_req`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct UniformReq<T = Sig> {
    /// Warp slot (tag).
    pub slot: T,
    /// Uniform word index.
    pub index: T,
}

/// A texture request, one per quad with an active lane (`tex_req`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct TexReq<T = Sig> {
    /// Warp slot (tag).
    pub slot: T,
    /// Quad (tag).
    pub quad: T,
    /// Sampler.
    pub sampler: T,
    /// Coordinates: lane `k` of the quad has `s` at `2k`, `t` at `2k + 1`.
    pub coords: Vec<T>,
    /// Active lanes of the quad (4 bits).
    pub mask: T,
}

/// A special-port request, one per active lane (`spec_req`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct SpecReq<T = Sig> {
    /// Warp slot (tag).
    pub slot: T,
    /// Lane (tag).
    pub lane: T,
    /// Function code.
    pub func: T,
    /// Operand a.
    pub a: T,
    /// Operand b.
    pub b: T,
    /// The lane is a helper lane.
    pub helper: T,
}

/// An answer for one lane (`ldg_resp`, `spec_resp`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct LaneData<T = Sig> {
    /// Warp slot of the request.
    pub slot: T,
    /// Lane of the request.
    pub lane: T,
    /// The word.
    pub data: T,
}

/// An answer for a warp (`ldu_resp`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct WarpData<T = Sig> {
    /// Warp slot of the request.
    pub slot: T,
    /// The word.
    pub data: T,
}

/// A texture answer (`tex_resp`).
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct TexResp<T = Sig> {
    /// Warp slot of the request.
    pub slot: T,
    /// Quad of the request.
    pub quad: T,
    /// Lane `k`'s word `j` at `4k + j` (16 words).
    pub texels: Vec<T>,
    /// Words not written (16 bits, lane `k`'s word `j` at bit `4k + j`): a selective or
    /// shared texture broadcast writes only some of its words (`compiler/shader/ABI.md`
    /// "Sampled textures"); 0 writes every word of the active lanes.
    pub skip: T,
}

/// One lane's export (`export`), never for helper lanes.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct ExportRec<T = Sig> {
    /// Warp slot.
    pub slot: T,
    /// Lane.
    pub lane: T,
    /// Output location.
    pub loc: T,
    /// Words 1..=4 (3 bits).
    pub count: T,
    /// The words (4; the first `count` are meaningful).
    pub data: Vec<T>,
}

/// A warp's end (`done`): after every write and port answer of the warp.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
pub struct DoneRec<T = Sig> {
    /// Warp slot (free again after this transfer).
    pub slot: T,
    /// 0 = `end` reached, else the error code of `WarpError::code` (4 bits).
    pub code: T,
    /// pc of the faulting instruction (32 bits).
    pub pc: T,
    /// Instructions executed, the faulting one included (32 bits).
    pub executed: T,
}

#[cfg(test)]
mod tests;
