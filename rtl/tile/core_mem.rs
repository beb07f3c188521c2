//! The shader core's memory side inside the tile engine: `ldg`/`stg` through the engine's one
//! memory port (`core_mem`), the merge of that traffic with the back end's (`mem_merge`, with
//! the answers routed back by request order), and the uniform memory that answers `ldu`
//! (`uniforms`).
//!
//! **Addresses.** A core address is a storage-buffer address of `compiler/shader/ABI.md`
//! ("Storage buffers": binding `b` at `b · 2^24`); the engine maps it to the memory port's
//! byte address `base[b] + (addr mod 2^24)` with a table of 16 bases (configuration inputs,
//! one per binding), so the driver places each buffer where its memory model put it.
use super::mem_port::{MemReq, MemResp};
use crate::shader::{LaneData, LoadReq, StoreReq, UniformReq, WarpData};
use crate::stream::fifo::{fifo, FifoCfg};
use rendergen_hdl::{cat, index_select, pack, unpack, Bundle, Io, Module, Sig, Stream};

/// Loads in flight through [`core_mem`].
pub const LOADS_IN_FLIGHT: u32 = 8;
/// Requests in flight on the merged port ([`mem_merge`]).
pub const MERGED_IN_FLIGHT: u32 = 32;

/// A load waiting for its answer.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct PendingLoad<T = Sig> {
    slot: T,
    lane: T,
    /// The word is the upper half of the beat.
    upper: T,
}

/// What [`core_mem`] takes.
#[derive(Io)]
pub struct CoreMemIn {
    /// The core's loads.
    pub ldg_req: Stream<LoadReq>,
    /// The core's stores.
    pub stg_req: Stream<StoreReq>,
    /// Answers to this bridge's requests, in order.
    pub mem_resp: Stream<MemResp>,
    /// Byte address of each storage binding 0..16 (configuration).
    pub bases: Vec<Sig>,
}

/// What [`core_mem`] gives.
#[derive(Io)]
pub struct CoreMemOut {
    /// Requests (single-beat reads and writes).
    pub mem_req: Stream<MemReq>,
    /// Load answers for the core.
    pub ldg_resp: Stream<LaneData>,
}

/// One 64-bit beat per load or store (module docs for the address map).
///
/// * **Protocol:** stream rules; stores before loads when both wait; loads answered in order
///   (the memory answers in order); a write's acknowledgement is taken and dropped (a later
///   read of the port sees the store: the memory keeps order).
/// * **Timing:** combinational request path; at most [`LOADS_IN_FLIGHT`] loads in flight.
/// * **Cost:** a FIFO of [`LOADS_IN_FLIGHT`] × (slot, lane, 1) bits, a 16-way base mux, a
///   32-bit adder.
pub fn core_mem(m: &mut Module, _cfg: &(), i: CoreMemIn) -> CoreMemOut {
    let CoreMemIn {
        ldg_req,
        stg_req,
        mem_resp,
        bases,
    } = i;
    let phys = |addr: Sig| {
        let base = index_select(addr.bits(27, 24), &bases);
        base + addr.bits(23, 0).zext(32)
    };
    let (lv, l, lr) = ldg_req.split();
    let (sv, st, sr) = stg_req.split();
    let load_addr = phys(l.addr);
    let store_addr = phys(st.addr);
    let upper = store_addr.bit(2);
    let store = MemReq {
        write: m.lit(1, 1),
        addr: cat(&[store_addr.bits(31, 3), m.lit(0, 3)]),
        beats: m.lit(0, 4),
        data: cat(&[st.data, st.data]),
        strobe: upper.mux(m.lit(0xF0, 8), m.lit(0x0F, 8)),
        last: m.lit(1, 1),
    };
    let load = MemReq {
        write: m.lit(0, 1),
        addr: cat(&[load_addr.bits(31, 3), m.lit(0, 3)]),
        beats: m.lit(0, 4),
        data: m.lit(0, 64),
        // A narrow read of the word (the traffic counters count its 4 bytes).
        strobe: load_addr.bit(2).mux(m.lit(0xF0, 8), m.lit(0x0F, 8)),
        last: m.lit(0, 1),
    };
    let mem_ready = m.wire("mem_ready", 1);
    let (push, push_ready) = Stream::offer(
        m,
        "pending",
        lv & !sv & mem_ready.sig(),
        PendingLoad {
            slot: l.slot,
            lane: l.lane,
            upper: load_addr.bit(2),
        },
    );
    let pending = fifo(
        m,
        &FifoCfg {
            depth: LOADS_IN_FLIGHT,
        },
        push,
    );
    let use_store = sv;
    let valid = sv | (lv & push_ready);
    let req = unpack(&MemReq::SHAPE, use_store.mux(pack(&store), pack(&load)));
    let (mem_req, ready) = Stream::offer(m, "mem_req", valid, req);
    mem_ready.drive(ready);
    sr.drive(ready);
    // The pending entry is pushed with the load's transfer (the FIFO's room is part of it).
    lr.drive(!sv & ready & push_ready);
    let (pv, p, pr) = pending.pop.split();
    let (rv, r, rr) = mem_resp.split();
    let answer = LaneData {
        slot: p.slot,
        lane: p.lane,
        data: p.upper.mux(r.data.bits(63, 32), r.data.bits(31, 0)),
    };
    let is_read = rv & !r.write;
    let (ldg_resp, resp_ready) = Stream::offer(m, "ldg_resp", is_read & pv, answer);
    rr.drive(r.write | (resp_ready & pv));
    pr.drive(is_read & resp_ready);
    CoreMemOut { mem_req, ldg_resp }
}

/// What [`mem_merge`] takes.
#[derive(Io)]
pub struct MergeIn {
    /// The back end's requests (command reads, write-out bursts).
    pub backend: Stream<MemReq>,
    /// The core's requests (single beats).
    pub core: Stream<MemReq>,
    /// The port's answers.
    pub mem_resp: Stream<MemResp>,
}

/// What [`mem_merge`] gives.
#[derive(Io)]
pub struct MergeOut {
    /// The port's requests.
    pub mem_req: Stream<MemReq>,
    /// Answers to the back end's requests.
    pub backend_resp: Stream<MemResp>,
    /// Answers to the core's requests.
    pub core_resp: Stream<MemResp>,
}

/// Merges two request streams onto the memory port and routes the in-order answers back.
///
/// * **Protocol:** stream rules; the grant alternates when both wait, and stays with a write
///   burst (of either side) until its `last` beat; a grant offered and not taken is kept. Every request that
///   is answered (a read; a write burst's last beat) pushes its owner into an order FIFO of
///   [`MERGED_IN_FLIGHT`] entries (requests wait when it is full); an answer goes to the
///   head's owner, popped at a read's last beat or a write's acknowledgement.
/// * **Timing:** combinational; `mem_resp.ready` follows the owner's `ready`.
/// * **Cost:** four flip-flops of grant state, the order FIFO (1 bit per entry).
pub fn mem_merge(m: &mut Module, _cfg: &(), i: MergeIn) -> MergeOut {
    let (bv, b, br) = i.backend.split();
    let (cv, c, cr) = i.core.split();
    let lock = m.reg("burst_lock", 1).reset(0);
    let lock_core = m.reg("burst_lock_core", 1).reset(0); // a core write burst under way
    let held = m.reg("held", 1).reset(0); // 1: the core holds an offered grant
    let waiting = m.reg("waiting", 1).reset(0);
    let last_core = m.reg("last_core", 1).reset(0);
    let fresh = cv & (!bv | !last_core.q());
    let to_core = lock_core.q() | (!lock.q() & waiting.q().mux(held.q(), fresh));
    let owner_core = to_core;
    let answered = to_core.mux(!c.write | c.last, !b.write | b.last);
    let order_depth = MERGED_IN_FLIGHT;
    let order = m.memory("order", 1, order_depth);
    let wr = m
        .reg("order_wr", rendergen_hdl::clog2(order_depth as u64))
        .reset(0);
    let rd = m
        .reg("order_rd", rendergen_hdl::clog2(order_depth as u64))
        .reset(0);
    let count = m
        .reg("order_count", rendergen_hdl::clog2(order_depth as u64 + 1))
        .reset(0);
    let room = count.q().lt(order_depth as u64);
    let valid = to_core.mux(cv, bv) & (room | !answered);
    let data = unpack(&MemReq::SHAPE, to_core.mux(pack(&c), pack(&b)));
    let (mem_req, ready) = Stream::offer(m, "mem_req", valid, data);
    let fire = valid & ready;
    cr.drive(to_core & ready & (room | !answered));
    br.drive(!to_core & ready & (room | !answered));
    let beat_b = fire & !to_core & b.write;
    lock.next((lock.q() | beat_b) & !(beat_b & b.last));
    let beat_c = fire & to_core & c.write;
    lock_core.next((lock_core.q() | beat_c) & !(beat_c & c.last));
    waiting.next(valid & !ready & !lock.q() & !lock_core.q());
    held.next(to_core);
    last_core.next_when(fire, to_core);
    let push = fire & answered;
    order.write(push, wr.q(), owner_core);
    wr.next_when(push, wr.q() + 1);
    // Answers.
    let head_core = order.read_comb(rd.q());
    let (rv, r, rr) = i.mem_resp.split();
    let (core_resp, core_ready) = Stream::offer(m, "core_resp", rv & head_core, r.clone());
    let (backend_resp, backend_ready) =
        Stream::offer(m, "backend_resp", rv & !head_core, r.clone());
    let take_ready = head_core.mux(core_ready, backend_ready);
    rr.drive(take_ready);
    let pop = rv & take_ready & (r.write | r.last);
    rd.next_when(pop, rd.q() + 1);
    count.next(count.q() + push.zext(count.q().width()) - pop.zext(count.q().width()));
    MergeOut {
        mem_req,
        backend_resp,
        core_resp,
    }
}

/// What [`uniforms`] takes.
#[derive(Io)]
pub struct UniformsIn {
    /// Writes of the uniform memory by the driver (`addr`, `word`).
    pub write: Stream<UniformWrite>,
    /// The core's uniform reads.
    pub ldu_req: Stream<UniformReq>,
}

/// A word written into the uniform memory.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct UniformWrite<T = Sig> {
    /// Word index.
    pub addr: T,
    /// The word.
    pub word: T,
}

/// The uniform memory: every program's uniform words in one table (the driver moves each
/// program's `ldu` indices by the program's offset, `frag::relocate`).
///
/// * **Protocol:** stream rules; `write` always ready; one `ldu` read per clock, answered
///   the next clock (a one-entry output register; `ldu_req.ready` when it is free or
///   leaving). **Cost:** a `words × 32` RAM (`words` = 2^`addr_bits`).
pub fn uniforms(m: &mut Module, addr_bits: &u32, i: UniformsIn) -> Stream<WarpData> {
    let words = 1u32 << *addr_bits;
    let ram = m.memory("uniform_ram", 32, words);
    let (wv, w, wr) = i.write.split();
    wr.drive(m.lit(1, 1));
    ram.write(wv, w.addr.resize(*addr_bits), w.word);
    let (qv, q, qr) = i.ldu_req.split();
    let full = m.reg("answer_valid", 1).reset(0);
    let slot = m.reg("answer_slot", q.slot.width());
    let in_range = q.index.lt(words as u64);
    let out_ready = m.wire("answer_ready", 1);
    let free = !full.q() | out_ready.sig();
    qr.drive(free);
    let take = qv & free;
    let data = ram.read_sync(q.index.resize(*addr_bits), Some(take));
    let ok = m.reg("answer_ok", 1);
    ok.next_when(take, in_range);
    slot.next_when(take, q.slot);
    full.next(take | (full.q() & !out_ready.sig()));
    let answer = WarpData {
        slot: slot.q(),
        data: ok.q().mux(data, m.lit(0, 32)),
    };
    let (out, ready) = Stream::offer(m, "ldu_resp", full.q(), answer);
    out_ready.drive(ready);
    out
}
