//! The write-out unit (`tile_writeout`, unit 13 of the source; `tiles-and-allocation.md`
//! A.5.6, A.7, A.10.2 §5): reads every pixel of every enabled plane from the tile buffer's
//! write-out port, resolves its samples ([`super::resolve`]), packs it by format and writes
//! each tile row as one burst on the memory port ([`super::mem_port`]).
use super::geometry::clip::SIZE_BITS;
use super::mem_port::{MemReq, MemResp, MEM_ADDR_BITS, MEM_BEATS_BITS, MEM_BEAT_BYTES};
use super::resolve::resolve;
use super::{visible_extent, RtFormat, TileCfg, VisibleExtent, WoReq, WoResp, TILE_COORD_BITS};
use crate::stream::credit::credit_counter;
use crate::stream::fifo::{fifo, FifoCfg};
use crate::stream::stages::pipeline;
use rendergen_hdl::{cat, index_select, lut, Bundle, Io, Module, Sig, Stream};

/// Bits of a plane's base address.
pub const BASE_BITS: u32 = MEM_ADDR_BITS;
/// Bits of a plane's row pitch in bytes.
pub const PITCH_BITS: u32 = 16;
/// Bits of a plane's byte counter.
pub const BYTES_BITS: u32 = 32;
/// Write-out reads in flight between the tile buffer's port and the resolve.
pub const IN_FLIGHT: u32 = 4;

/// A tile's dynamic write-out choices (the tile shader's `WOC`/`WOZ`; all planes on, with
/// their static resolve, when no tile shader ran).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoFlags<T = Sig> {
    /// Plane `p` is written out (bit `p`; planes are the colour targets, then depth).
    pub enable: T,
    /// The tile shader set plane `p`'s resolve (bit `p`): `select` and `sample` replace the
    /// static choice (`WoConfig::select`, `WoConfig::sample`) for this tile; else they are
    /// ignored and the static choice stands.
    pub set: T,
    /// Plane `p` writes one chosen sample instead of the mean (bit `p`).
    pub select: T,
    /// The chosen sample of each plane, 2 bits.
    pub sample: Vec<T>,
}

impl WoFlags<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoFlags<u32> {
        let planes = cfg.planes() as u32;
        WoFlags {
            enable: planes,
            set: planes,
            select: planes,
            sample: vec![2; cfg.planes()],
        }
    }
}

/// Write-out of one tile: its position and the dynamic flags.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoStart<T = Sig> {
    /// Tile column (in tiles).
    pub tile_x: T,
    /// Tile row.
    pub tile_y: T,
    /// Dynamic choices.
    pub flags: WoFlags<T>,
}

impl WoStart<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoStart<u32> {
        WoStart {
            tile_x: TILE_COORD_BITS,
            tile_y: TILE_COORD_BITS,
            flags: WoFlags::shape(cfg),
        }
    }
}

/// The write-out's configuration registers (static for a frame): per plane the static mode
/// of `WriteMode` in `sim/models/tile/port.rs` — off (`enable` clear), average, sample `s`
/// (`select`, `sample`) or every sample (`all`) — and where its surface is.
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct WoConfig<T = Sig> {
    /// Static enable of plane `p` (bit `p`): a cleared bit suppresses the plane in every tile.
    pub enable: T,
    /// Plane `p` stores every sample (bit `p`; 4 samples only, ignored with one): a
    /// multisampled surface, pixel `(x, y)` sample `s` at `base + y·pitch + (4x + s)·bpp`.
    /// The tile's dynamic sample choice does not apply to such a plane.
    pub all: T,
    /// Plane `p` writes sample `sample[p]` instead of the mean (bit `p`) unless the tile
    /// shader set the plane's resolve (`flags.set`).
    pub select: T,
    /// The statically chosen sample of each plane, 2 bits.
    pub sample: Vec<T>,
    /// Byte address of each plane's image (pixel (0, 0)), a multiple of 8.
    pub base: Vec<T>,
    /// Bytes from one image row to the next, a multiple of the plane's bytes per pixel (and
    /// of 8 for RGBA16F): any width, no padding needed.
    pub pitch: Vec<T>,
    /// Screen width in pixels: columns at or beyond it are not written (the right edge's
    /// partial tiles).
    pub width: T,
    /// Screen height in pixels: rows at or beyond it are not written.
    pub height: T,
}

impl WoConfig<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &TileCfg) -> WoConfig<u32> {
        WoConfig {
            enable: cfg.planes() as u32,
            all: cfg.planes() as u32,
            select: cfg.planes() as u32,
            sample: vec![2; cfg.planes()],
            base: vec![BASE_BITS; cfg.planes()],
            pitch: vec![PITCH_BITS; cfg.planes()],
            width: SIZE_BITS,
            height: SIZE_BITS,
        }
    }
}

/// What [`tile_writeout`] takes.
#[derive(Io)]
pub struct WriteoutIn {
    /// One write-out per tile; taken when its last write is acknowledged.
    pub start: Stream<WoStart>,
    /// Configuration registers.
    pub config: WoConfig,
    /// The tile buffer's answers to `wo_req`.
    pub wo_resp: Stream<WoResp>,
    /// Memory answers (write acknowledgements).
    pub mem_resp: Stream<MemResp>,
}

/// What [`tile_writeout`] gives.
#[derive(Io)]
pub struct WriteoutOut {
    /// Reads of the tile buffer's write-out port.
    pub wo_req: Stream<WoReq>,
    /// Write bursts to memory.
    pub mem_req: Stream<MemReq>,
    /// Bytes written per plane since reset (wrapping).
    pub bytes: Vec<Sig>,
}

/// A pixel read in flight: which plane and pixel, and which of its samples it stands for when
/// the plane stores every sample (the pixel is then read once per sample).
#[derive(Bundle, Clone, Debug, PartialEq)]
struct PixelTag<T = Sig> {
    plane: T,
    pixel: T,
    sample: T,
}

/// A pixel to resolve.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Unresolved<T = Sig> {
    tag: PixelTag<T>,
    samples: Vec<T>,
    select: T,
    sample: T,
}

/// A resolved pixel.
#[derive(Bundle, Clone, Debug, PartialEq)]
struct Resolved<T = Sig> {
    tag: PixelTag<T>,
    value: T,
}

/// Bytes per pixel in memory of each plane (4, or 8 for RGBA16F; depth is 4: D24 in bits 23:0).
pub fn pixel_bytes(cfg: &TileCfg, plane: usize) -> u32 {
    match cfg.formats.get(plane) {
        Some(RtFormat::Rgba16f) => 8,
        _ => 4,
    }
}

/// The sequencer: walks the enabled planes' pixels inside the screen in row order, one
/// `wo_req` per clock while credits last (a plane in `all` asks for each pixel four times,
/// once per sample it stands for); gives the reads' tags, whether issuing, and the reads sent
/// since `begin`.
struct Sequence {
    wo_req: Stream<WoReq>,
    tags: Stream<PixelTag>,
    issuing: Sig,
    sent: Sig,
    count: Sig,
}

/// Bits of the burst counters (a tile has at most 9 planes × 16 rows × 5 bursts).
const BURST_BITS: u32 = 10;
/// Bits of the value counters (at most 9 planes × 256 pixels × 4 samples).
const VALUE_BITS: u32 = 14;

/// Whether plane `plane` stores every sample (`all`, only with 4 samples).
fn every_sample(m: &mut Module, cfg: &TileCfg, plane: Sig, all: Sig) -> Sig {
    match cfg.samples {
        4 => index_select(plane, &bits_of(all)),
        _ => m.lit(0, 1),
    }
}

/// Whether plane `plane`'s pixels are 8 bytes (RGBA16F).
fn wide_plane(cfg: &TileCfg, plane: Sig) -> Sig {
    let wide_table: Vec<u64> = (0..cfg.planes())
        .map(|k| (pixel_bytes(cfg, k) == 8) as u64)
        .collect();
    lut(plane, &wide_table, 1)
}

fn sequence(
    m: &mut Module,
    cfg: &TileCfg,
    begin: Sig,
    (enabled, all, ext): (Sig, Sig, &VisibleExtent),
    credit: Sig,
) -> Sequence {
    let pb = cfg.plane_bits();
    let last_plane = cfg.planes() as u64 - 1;
    let issuing = m.reg("issuing", 1).reset(0);
    let plane = m.reg("plane", pb).reset(0);
    let pixel = m.reg("pixel", 8).reset(0);
    let sample = m.reg("sample", 2).reset(0);
    let count = m.reg("values_sent", VALUE_BITS).reset(0);
    let on = issuing.q() & index_select(plane.q(), &bits_of(enabled)) & !ext.outside;
    let every = every_sample(m, cfg, plane.q(), all);
    let (px, py) = (pixel.q().bits(3, 0), pixel.q().bits(7, 4));
    let req = WoReq {
        plane: plane.q(),
        px,
        py,
    };
    let (wo_req, ready) = Stream::offer(m, "wo_req", on & credit, req);
    let send = on & credit & ready;
    let tag = PixelTag {
        plane: plane.q(),
        pixel: pixel.q(),
        sample: sample.q(),
    };
    let (tags, _never_full) = Stream::offer(m, "tags", send, tag);
    let skip = issuing.q() & !on;
    let pixel_done = send & (!every | sample.q().eq(3u64));
    // The last column of a row goes on to the next row; the last row ends the plane.
    let row_end = px.eq(ext.last_col);
    let next_plane = skip | (pixel_done & row_end & py.eq(ext.last_row));
    let done = next_plane & plane.q().eq(last_plane);
    issuing.next(begin | (issuing.q() & !done));
    plane.next(begin.mux(0u64, next_plane.mux(plane.q() + 1u64, plane.q())));
    let next_pixel = row_end.mux(cat(&[py + 1u64, m.lit(0, 4)]), pixel.q() + 1u64);
    let pixel_next = pixel_done.mux(next_pixel, pixel.q());
    pixel.next((begin | next_plane).mux(0u64, pixel_next));
    let sample_next = (send & every).mux(sample.q() + 1u64, sample.q());
    sample.next(begin.mux(0u64, sample_next));
    count.next(begin.mux(0u64, send.mux(count.q() + 1u64, count.q())));
    Sequence {
        wo_req,
        tags,
        issuing: issuing.q(),
        sent: send,
        count: count.q(),
    }
}

fn bits_of(x: Sig) -> Vec<Sig> {
    (0..x.width()).map(|i| x.bit(i)).collect()
}

/// What [`pack`] gives: the bursts, the bytes written per plane, and since `begin` the values
/// taken and the bursts completed.
struct Packed {
    mem_req: Stream<MemReq>,
    bytes: Vec<Sig>,
    values: Sig,
    bursts: Sig,
}

/// Packs resolved values into 64-bit beats by their byte address and offers them as write
/// bursts. A tile row of a plane (its pixels inside the screen, every sample of each with
/// `all`) is one run of consecutive bytes, `row·pitch + index·bpp` on; its beats go out in
/// bursts that end at the run's last beat or at a 128-byte boundary, whichever comes first
/// (so none crosses 4 KiB, and none is longer than 16 beats). A 4-byte value at an address
/// ≡ 0 (mod 8) waits in `hold` for its neighbour unless it ends the run; a beat's strobes mark
/// only the bytes of its values. Counts the strobed bytes per plane.
fn pack(
    m: &mut Module,
    cfg: &TileCfg,
    (start, config, ext): (&WoStart, &WoConfig, &VisibleExtent),
    begin: Sig,
    px: Stream<Resolved>,
) -> Packed {
    let (valid, p, ready) = px.split();
    let aw = MEM_ADDR_BITS;
    let wide = wide_plane(cfg, p.tag.plane);
    let every = every_sample(m, cfg, p.tag.plane, config.all);
    let (px, py) = (p.tag.pixel.bits(3, 0), p.tag.pixel.bits(7, 4));
    // The value's byte address and the end of its run (one past its last byte).
    let row = cat(&[start.tile_y, py]);
    let base = index_select(p.tag.plane, &config.base);
    let pitch = index_select(p.tag.plane, &config.pitch);
    let row_addr = base + row.mul_full(pitch).resize(aw);
    let x0 = cat(&[start.tile_x, m.lit(0, 4)]).zext(aw);
    let col = x0 + px.zext(aw);
    let end_col = x0 + ext.last_col.zext(aw) + 1u64;
    let index = every.mux((col << 2) + p.tag.sample.zext(aw), col);
    let end_index = every.mux(end_col << 2, end_col);
    let addr = row_addr + wide.mux(index << 3, index << 2);
    let end = row_addr + wide.mux(end_index << 3, end_index << 2);
    let run_last = px.eq(ext.last_col) & (!every | p.tag.sample.eq(3u64));
    let beat_mask = m.lit((1u64 << aw) - 8, aw);
    let beat = addr & beat_mask;
    let end_beat = (end - 1u64) & beat_mask;
    // A 4-byte value in the beat's high half goes out with the held low half, if any; one in
    // the low half waits unless it ends the run.
    let high = !wide & addr.bit(2);
    let emit = wide | high | run_last;
    let hold = m.reg("hold", 32);
    let held = m.reg("held", 1).reset(0);
    let v32 = p.value.bits(31, 0);
    let data = wide.mux(p.value, high.mux(cat(&[v32, hold.q()]), v32.zext(64)));
    let full = wide | (high & held.q());
    let strobe = full.mux(m.lit(0xFF, 8), high.mux(m.lit(0xF0, 8), m.lit(0x0F, 8)));
    // Bursts: a new one runs to the run's last beat or the 128-byte block's, whichever first.
    let in_burst = m.reg("in_burst", 1).reset(0);
    let burst_addr = m.reg("burst_addr", aw);
    let burst_beats = m.reg("burst_beats", MEM_BEATS_BITS);
    let block_end = beat | m.lit(0x78, aw);
    let stop = end_beat.lt(block_end).mux(end_beat, block_end);
    let beats_now = (stop - beat).bits(6, 3);
    let last = beat.eq(end_beat) | beat.bits(6, 3).eq(15u64);
    let req = MemReq {
        write: m.lit(1, 1),
        addr: in_burst.q().mux(burst_addr.q(), beat),
        beats: in_burst.q().mux(burst_beats.q(), beats_now),
        data,
        strobe: strobe.resize(MEM_BEAT_BYTES),
        last,
    };
    let (out, out_ready) = Stream::offer(m, "mem_req", valid & emit, req);
    let taken = !emit | out_ready;
    ready.drive(taken);
    let fire = valid & emit & out_ready;
    let keep = valid & !emit;
    hold.next_when(keep, v32);
    held.next(fire.mux(0u64, keep.mux(1u64, held.q())));
    in_burst.next(fire.mux(!last, in_burst.q()));
    burst_addr.next_when(fire & !in_burst.q(), beat);
    burst_beats.next_when(fire & !in_burst.q(), beats_now);
    let values = m.reg("values_packed", VALUE_BITS).reset(0);
    let took = valid & taken;
    values.next(begin.mux(0u64, took.mux(values.q() + 1u64, values.q())));
    let bursts = m.reg("bursts_written", BURST_BITS).reset(0);
    let ended = fire & last;
    bursts.next(begin.mux(0u64, ended.mux(bursts.q() + 1u64, bursts.q())));
    let beat_bytes = full.mux(m.lit(8, BYTES_BITS), m.lit(4, BYTES_BITS));
    let bytes: Vec<Sig> = (0..cfg.planes())
        .map(|k| {
            let r = m.reg(&format!("bytes_{k}"), BYTES_BITS).reset(0);
            let hit = fire & p.tag.plane.eq(k as u64);
            r.next_when(hit, r.q() + beat_bytes);
            r.q()
        })
        .collect();
    Packed {
        mem_req: out,
        bytes,
        values: values.q(),
        bursts: bursts.q(),
    }
}

/// The write-out unit.
///
/// * **Ports:** `start` ([`WoStart`]: tile position, dynamic flags), `config`
///   ([`WoConfig`]: static modes, per-plane base address and pitch, the screen size),
///   `wo_req` → `wo_resp` (the tile buffer's write-out port), `mem_req` → `mem_resp` (write
///   bursts), `bytes` (per plane, bytes written since reset).
/// * **What it writes:** plane `p` of a tile is written when `config.enable[p] &
///   flags.enable[p]` (static and dynamic suppression), only its pixels inside the screen
///   (`x < config.width`, `y < config.height`: partial tiles at the right and bottom edges
///   write their visible part, a tile wholly outside nothing). With `config.all[p]` (4
///   samples) every sample is written: pixel `(x, y)` sample `s` at `base[p] + y·pitch[p] +
///   (4x + s)·bpp`, the frame model's multisampled surface (`Surface::offset` with a pitch of
///   `4·width·bpp`). Otherwise one value per pixel: where the tile shader set the plane's
///   resolve (`flags.set[p]`) sample `flags.sample[p]` if `flags.select[p]`, else the mean;
///   elsewhere sample `config.sample[p]` if `config.select[p]`, else the mean (the mean as
///   [`super::resolve`] defines it per format); pixel `(x, y)` goes to `base[p] +
///   y·pitch[p] + x·bpp`. `bpp` is 8 for RGBA16F, else 4; RGBA8 bytes R, G, B, A; binary16
///   and binary32 little-endian; depth a 32-bit word with D24 in bits 23:0. These are the
///   modes of the frame model's `WriteMode` (off, average, sample, all), static per frame and
///   replaced per tile by the tile shader's.
/// * **Bursts:** each tile row of a plane is one run of consecutive bytes (16 pixels, or the
///   visible ones, × the samples stored × `bpp`), written in bursts that end at the run's end
///   or at a 128-byte boundary: one or two bursts of up to 8 beats (4-byte formats) or 16
///   (RGBA16F) per row, four or five of up to 16 with every sample stored. Pitches need not
///   be padded: a run may start in the middle of a beat (a 4-byte format at an odd pixel
///   address), and the beat's strobes then mark only the bytes written; no byte outside the
///   visible pixels is ever written, and `bytes` counts the strobed bytes.
/// * **Protocol:** stream rules; `start` is taken in the cycle its tile's last write is
///   acknowledged on `mem_resp` (so a taken `start` means the tile is in memory); a tile with
///   every plane suppressed is taken after `planes` + 1 cycles without a memory access.
///   The bursts of `mem_req` follow the memory port's rules (module [`super::mem_port`]).
///   At most [`IN_FLIGHT`] reads wait on `wo_resp` (credits), so the tile buffer is never
///   stalled by the write-out.
/// * **Timing:** one pixel per clock when nothing stalls: an enabled plane of a 4-byte format
///   takes 256 clocks plus the resolve latency, 128 beats (136 when the rows start in the
///   middle of a beat); RGBA16F 256 beats. A plane storing
///   every sample reads each pixel four times (one sample per clock): 1,024 clocks, 512 beats
///   (1,024 for RGBA16F). The resolve
///   adds 10 stages when an R32F target exists with 4 samples, else 2 when an RGBA16F or
///   RG16F target does, else 0 ([`super::resolve::resolve_stages`]);
///   each pipeline ends in a skid buffer.
/// * **Parameters:** [`TileCfg`] (samples 1 or 4, 1 ..= 8 targets).
/// * **Cost:** measured in [`super::top::tile_writeout_top`]'s docs (48,772 cells by default,
///   2,518 with one sample and no RGBA16F/R32F means); with the static modes at 4× (a 2-bit
///   sample counter, the sample in the tags, 10-bit burst counters) 48,989 cells, 4,339
///   flip-flops, 62 gate levels by default; with the screen clip, the byte-addressed packing
///   (bursts split at 128-byte boundaries, half-beat strobes) and the `set` flags (session 17)
///   50,234 cells, 4,407 flip-flops, 66 gate levels (`rendergen synth tile_writeout
///   --per-module --json`; `tile::writeout::measure_writeout_area`).
pub fn tile_writeout(m: &mut Module, cfg: &TileCfg, i: WriteoutIn) -> WriteoutOut {
    let WriteoutIn {
        start,
        config,
        wo_resp,
        mem_resp,
    } = i;
    let (start_valid, start_data, start_ready) = start.split();
    let active = m.reg("active", 1).reset(0);
    let begin = start_valid & !active.q();
    let enabled = config.enable & start_data.flags.enable;
    let ext = visible_extent(
        m,
        (start_data.tile_x, start_data.tile_y),
        (config.width, config.height),
    );
    let take = m.wire("credit_take", 1);
    let give = m.wire("credit_give", 1);
    let credits = credit_counter(m, IN_FLIGHT, take.sig(), give.sig());
    let seq = sequence(
        m,
        cfg,
        begin,
        (enabled, config.all, &ext),
        credits.available,
    );
    take.drive(seq.sent);
    let tags = fifo(m, &FifoCfg { depth: IN_FLIGHT }, seq.tags);
    let (tag_valid, tag, tag_ready) = tags.pop.split();
    let (resp_valid, resp, resp_ready) = wo_resp.split();
    let both = tag_valid & resp_valid;
    // Every sample stored: read once per sample, each written as "sample s"; else the tile
    // shader's resolve where it set one, else the static one (a sample or the mean).
    let every = every_sample(m, cfg, tag.plane, config.all);
    let set = index_select(tag.plane, &bits_of(start_data.flags.set));
    let dynamic = index_select(tag.plane, &bits_of(start_data.flags.select));
    let fixed = index_select(tag.plane, &bits_of(config.select));
    let select = every | set.mux(dynamic, fixed);
    let sample = every.mux(
        tag.sample,
        set.mux(
            index_select(tag.plane, &start_data.flags.sample),
            index_select(tag.plane, &config.sample),
        ),
    );
    let unresolved = Unresolved {
        tag,
        samples: resp.samples,
        select,
        sample,
    };
    let (joined, joined_ready) = Stream::offer(m, "unresolved", both, unresolved);
    tag_ready.drive(both & joined_ready);
    resp_ready.drive(both & joined_ready);
    give.drive(both & joined_ready);
    let resolved = pipeline(m, "resolve", joined, |m, st, u: Unresolved| {
        let value = resolve(m, cfg, st, &u.samples, (u.tag.plane, u.select, u.sample));
        let tag = PixelTag {
            plane: st.delay(m, "tag_plane", u.tag.plane, st_count(cfg)),
            pixel: st.delay(m, "tag_pixel", u.tag.pixel, st_count(cfg)),
            sample: st.delay(m, "tag_sample", u.tag.sample, st_count(cfg)),
        };
        Resolved { tag, value }
    });
    let packed = pack(m, cfg, (&start_data, &config, &ext), begin, resolved);
    let (ack_valid, ack, ack_ready) = mem_resp.split();
    ack_ready.drive(m.lit(1, 1));
    let acked = m.reg("bursts_acked", BURST_BITS).reset(0);
    let ack = ack_valid & ack.write;
    acked.next(begin.mux(0u64, ack.mux(acked.q() + 1u64, acked.q())));
    // Done when every read was packed and every burst written is acknowledged.
    let finish =
        active.q() & !seq.issuing & seq.count.eq(packed.values) & packed.bursts.eq(acked.q());
    start_ready.drive(finish);
    active.next(begin | (active.q() & !finish));
    WriteoutOut {
        wo_req: seq.wo_req,
        mem_req: packed.mem_req,
        bytes: packed.bytes,
    }
}

fn st_count(cfg: &TileCfg) -> u32 {
    super::resolve::resolve_stages(cfg)
}
