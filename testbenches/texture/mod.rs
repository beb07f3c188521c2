//! The texture unit (`rendergen_rtl::texture`) against the golden model
//! `rendergen_sim::models::texture`: random traffic with random gaps and back-pressure on every
//! stream and a memory of random latency, answers checked in order (nothing lost, duplicated or
//! reordered), counters checked exactly; the unit-level scenarios of the spec (T1–T5, T9, T11,
//! T12, T13, T18, T19); throughput and latency; co-simulation; lint.
//!
//! Run: `cargo test -p rendergen-testbenches --test testbenches texture::` (6 tests, about
//! 60 s wall on this machine, most of it the lint's Verilator/Yosys run and the co-simulation);
//! the model's own tests: `cargo test -p rendergen-sim --lib models::texture`. With
//! `-- --nocapture`, `texture::latency_and_throughput` prints the figures quoted in
//! `rendergen_rtl::texture` (one footprint per clock once warm; latency 15 clocks).

mod system;

use rendergen_hdl::Design;
use rendergen_rtl::texture::{texture_unit_top, TexCfg};
use rendergen_sim::engine::SignalId;
use rendergen_sim::kit::{Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::texture::cache::{CacheCounts, TexCache};
use rendergen_sim::models::texture::collective::{
    baseline_requests, broadcast, collective_requests, Broadcast, Kernel, Method,
};
use rendergen_sim::models::texture::{
    expand, footprint, sample, select_levels, Counts, Filter, MipMode, Mode, Request, TexDesc, Wrap,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};
use std::collections::{HashMap, VecDeque};

/// Cycles from a request's transfer to its answer's with no miss and no stall (module docs of
/// `rendergen_rtl::texture`): 15 since the non-blocking cache's in-order queue (one clock more
/// than the blocking cache's 14).
const LATENCY: u64 = 15;

/// Words of the simulated memory.
const MEM_WORDS: usize = 1 << 14;

/// A memory whose word `a` is a distinct hash of `a` (so a returned texel names its address).
fn memory() -> Vec<u32> {
    (0..MEM_WORDS as u32)
        .map(|a| a.wrapping_mul(0x9E37_79B9).rotate_left(7) ^ 0x5A5A_0000)
        .collect()
}

/// The small configuration the tests use (textures up to 64×64).
fn small_cfg() -> TexCfg {
    TexCfg {
        slot_width: 3,
        quad_width: 2,
        cache_lines: 16,
        max_log2: 6,
        ..TexCfg::default()
    }
}

/// Random gaps, stalls and memory latency of a run.
#[derive(Clone, Copy)]
struct Pressure {
    gap: f64,
    stall: f64,
    mem_stall: f64,
    mem_latency: (u64, u64),
    /// Probability of a `flush` pulse in a cycle (the cache forgets every line).
    flush: f64,
}

const CALM: Pressure = Pressure {
    gap: 0.0,
    stall: 0.0,
    mem_stall: 0.0,
    mem_latency: (4, 4),
    flush: 0.0,
};
const ROUGH: Pressure = Pressure {
    gap: 0.3,
    stall: 0.4,
    mem_stall: 0.3,
    mem_latency: (1, 24),
    flush: 0.01,
};

/// What a run observed.
struct Outcome {
    /// Answers' words in order.
    answers: Vec<[u32; 16]>,
    /// The RTL's counters: footprints, texel reads, hits, misses, filter active, filter idle.
    counters: [u64; 6],
    /// Cycles from reset to the last answer.
    cycles: u64,
}

/// A request's port values in the order of the stream's `fields` (also the ASTC unit's).
pub(crate) fn req_item(fields: &[String], r: &Request) -> Vec<u64> {
    fields
        .iter()
        .map(|f| {
            let f = f.strip_prefix("req_").unwrap_or(f);
            if let Some(k) = f.strip_prefix("coords_") {
                return r.coords[k.parse::<usize>().unwrap()] as u64;
            }
            if let Some(k) = f.strip_prefix("offsets_") {
                let k: usize = k.parse().unwrap();
                let o = r.offsets[k / 2];
                return ([o.0, o.1][k % 2] & 0xF) as u64;
            }
            match f {
                "slot" => r.slot as u64,
                "quad" => r.quad as u64,
                "int_coords" => r.int_coords as u64,
                "lod" => (r.lod & 0xFFFF) as u64,
                "explicit_lod" => r.explicit_lod as u64,
                "mode" => r.mode as u64,
                "filter" => r.filter as u64,
                "mip" => r.mip as u64,
                "comp" => r.comp as u64,
                "mask" => r.mask as u64,
                "patch" => r.patch as u64,
                "subop" => r.subop as u64,
                other => panic!("unknown request field {other}"),
            }
        })
        .collect()
}

fn poke_desc(sim: &mut Simulator, d: &TexDesc) {
    for (name, v) in d.port_values() {
        let p = sim.input(name).unwrap_or_else(|e| panic!("{e}"));
        sim.poke(p, v);
    }
}

/// Runs `reqs` through the unit on texture `d`, checks every answer against the model in order
/// and the counters against the model's counts; co-simulates the start when `cosim`.
fn run(
    design: &Design,
    d: &TexDesc,
    reqs: &[Request],
    p: Pressure,
    seed: u64,
    cosim: bool,
) -> Outcome {
    run_with(
        design,
        small_cfg().cache_lines,
        d,
        reqs,
        p,
        seed,
        cosim,
        None,
    )
}

/// [`run`] on a unit of `lines` cache lines, observing its cache through `probe` when given.
#[allow(clippy::too_many_arguments)]
fn run_with(
    design: &Design,
    lines: u32,
    d: &TexDesc,
    reqs: &[Request],
    p: Pressure,
    seed: u64,
    cosim: bool,
    probe: Option<&mut CacheProbe>,
) -> Outcome {
    let mem = memory();
    let mut want = Vec::new();
    let mut counts = Counts::default();
    let mut cache = TexCache::new(lines);
    let mut cached = CacheCounts::default();
    for r in reqs {
        let (a, c, _) = sample(d, &mem, r);
        counts += c;
        cached += cache.request(d, r);
        want.push(a);
    }
    let mut sim = Simulator::new(design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "texture_unit", seed);
    if cosim {
        sim.start_recording();
    }
    let result = drive(&mut sim, d, &mem, reqs, &want, p, seed, probe);
    let (answers, cycles) = tb.check(&mut sim, result);
    let names = [
        "footprints",
        "texel_reads",
        "cache_hits",
        "cache_misses",
        "filter_active",
        "filter_idle",
    ];
    let counters = names.map(|n| {
        let o = sim.output(&format!("counters_{n}")).unwrap();
        sim.peek(o)
    });
    // With flushes at random cycles the model cannot know the cache's state, but a flushed
    // line only ever turns a hit into a fill: the RTL's hits are at most the model's, its
    // fills at least the model's. Without flushes they are equal.
    let flushed = p.flush > 0.0;
    let model = [
        counts.footprints,
        counts.texel_reads,
        if flushed { counters[2] } else { cached.hits },
        if flushed { counters[3] } else { cached.fills },
        counts.filter_active,
        counts.filter_idle,
    ];
    assert_eq!(
        counters, model,
        "counters (footprints, texel reads, hits, misses, filter active, idle)"
    );
    assert!(
        counters[2] <= cached.hits,
        "hits ≤ the model's unflushed hits"
    );
    assert!(
        counters[3] >= cached.fills,
        "fills ≥ the model's unflushed fills"
    );
    if cosim {
        cosim_prefix(design, &mut sim);
    }
    Outcome {
        answers,
        counters,
        cycles,
    }
}

#[allow(clippy::too_many_arguments)]
fn drive(
    sim: &mut Simulator,
    d: &TexDesc,
    mem: &[u32],
    reqs: &[Request],
    want: &[rendergen_sim::models::texture::Answer],
    p: Pressure,
    seed: u64,
    mut probe: Option<&mut CacheProbe>,
) -> Result<(Vec<[u32; 16]>, u64), TbError> {
    let mut rng = Rng::new(seed);
    let mut src = [
        StreamSource::new(sim, "req", rng.next_u64())?.gap_prob(p.gap),
        StreamSource::new(sim, "mem_resp", rng.next_u64())?.gap_prob(p.gap / 2.0),
    ];
    let mut sink = [
        StreamSink::new(sim, "answer", rng.next_u64())?.stall_prob(p.stall),
        StreamSink::new(sim, "mem_req", rng.next_u64())?.stall_prob(p.mem_stall),
    ];
    let fields: Vec<String> = src[0].fields().iter().map(|s| s.to_string()).collect();
    for r in reqs {
        src[0].send(&req_item(&fields, r))?;
    }
    let afields: Vec<String> = sink[0].fields().iter().map(|s| s.to_string()).collect();
    let at = |name: &str| afields.iter().position(|f| f == name).unwrap();
    let word_at: Vec<usize> = (0..16).map(|k| at(&format!("answer_words_{k}"))).collect();
    let tag_at = [
        at("answer_slot"),
        at("answer_quad"),
        at("answer_mask"),
        at("answer_mode"),
        at("answer_patch"),
        at("answer_subop"),
        at("answer_level"),
    ];
    poke_desc(sim, d);
    sim.reset(1);
    let flush = sim
        .input("flush")
        .map_err(|e| TbError::new(e.to_string()))?;
    let mut pending: VecDeque<(u64, Vec<u64>)> = VecDeque::new();
    let (mut seen_mem, mut seen) = (0usize, 0usize);
    let mut got = Vec::new();
    let mut last_due = 0u64;
    let dog = Watchdog::new(
        (200 + 8 * p.mem_latency.1) * reqs.len() as u64 + 2_000,
        seed,
    );
    if let Some(pr) = probe.as_deref_mut() {
        pr.resolve(sim)?;
    }
    let cycles = dog.run_until(sim, "every answer", |sim| {
        let now = sim.cycle();
        while pending.front().is_some_and(|(due, _)| *due <= now) {
            let (_, line) = pending.pop_front().unwrap();
            src[1].send(&line)?;
        }
        sim.poke(flush, rng.chance(p.flush) as u64);
        agents_cycle(sim, &mut src, &mut sink)?;
        if let Some(pr) = probe.as_deref_mut() {
            pr.sample(sim);
        }
        for item in &sink[1].items()[seen_mem..] {
            let line: Vec<u64> = item.iter().map(|a| mem[a.to_u64() as usize % mem.len()] as u64).collect();
            let lat = p.mem_latency.0 + rng.below(p.mem_latency.1 - p.mem_latency.0 + 1);
            last_due = last_due.max(now + lat);
            pending.push_back((last_due, line));
        }
        seen_mem = sink[1].items().len();
        for item in &sink[0].items()[seen..] {
            let Some(w) = want.get(seen) else {
                return Err(TbError::new(format!("answer #{seen}: one too many")));
            };
            let tags: Vec<u64> = tag_at.iter().map(|&i| item[i].to_u64()).collect();
            let wt = [w.slot, w.quad, w.mask, w.mode as u32, w.patch, w.subop, w.level].map(|v| v as u64);
            if tags != wt {
                return Err(TbError::new(format!(
                    "answer #{seen}: tags (slot quad mask mode patch subop level) {tags:?}, expected {wt:?} (lost, duplicated or reordered?)"
                )));
            }
            let words: [u32; 16] = std::array::from_fn(|k| item[word_at[k]].to_u64() as u32);
            if words != w.words {
                return Err(TbError::new(format!(
                    "answer #{seen} ({:?}): words {words:08x?}, model {:08x?}; request {:?}",
                    w.mode, w.words, reqs[seen]
                )));
            }
            got.push(words);
            seen += 1;
        }
        Ok(seen == reqs.len())
    })?;
    Ok((got, cycles))
}

/// The non-blocking cache's activity, observed every cycle through its internal signals
/// (`texture_unit.cache.*`, names as in the Verilog and VCD).
#[derive(Default)]
struct CacheProbe {
    /// outstanding_q, alloc, alloc_idx, line_valid_q, accept, started_q, leave.
    ids: Vec<SignalId>,
    /// Footprints in the queue (entered at `accept`, left at `leave`).
    queued: u64,
    /// Most line fills in flight at once.
    max_outstanding: u64,
    /// Cycles with two or more line fills in flight.
    overlapped_cycles: u64,
    /// Footprints that hit every line at the look-up while a fill was in flight.
    hits_under_miss: u64,
    /// Footprints that left the cache (answered) while a fill was in flight.
    served_under_miss: u64,
    /// Lines claimed for a new block while they held a valid block and footprints were queued.
    evicted_while_queued: u64,
}

impl CacheProbe {
    fn resolve(&mut self, sim: &Simulator) -> Result<(), TbError> {
        self.queued = 0;
        let names = [
            "outstanding_q",
            "alloc",
            "alloc_idx",
            "line_valid_q",
            "accept",
            "started_q",
            "leave",
        ];
        self.ids = names
            .iter()
            .map(|n| sim.signal(&format!("texture_unit.cache.{n}")))
            .collect::<Result<_, _>>()
            .map_err(|e| TbError::new(e.to_string()))?;
        Ok(())
    }

    fn sample(&mut self, sim: &mut Simulator) {
        let mut v = [0u64; 7];
        for (x, id) in v.iter_mut().zip(&self.ids) {
            *x = sim.peek_signal(*id).to_u64();
        }
        let [outstanding, alloc, alloc_idx, valid, accept, started, leave] = v;
        let queued = (self.queued > 0) as u64;
        self.queued = self.queued + accept - leave;
        self.max_outstanding = self.max_outstanding.max(outstanding);
        self.overlapped_cycles += (outstanding >= 2) as u64;
        let in_flight = outstanding > 0;
        self.hits_under_miss += (accept == 1 && started == 0 && in_flight) as u64;
        self.served_under_miss += (leave == 1 && in_flight) as u64;
        self.evicted_while_queued +=
            (alloc == 1 && valid >> alloc_idx & 1 == 1 && queued == 1) as u64;
    }
}

fn design() -> Design {
    texture_unit_top(&small_cfg()).unwrap_or_else(|e| panic!("{e}"))
}

fn tex(log2_w: u32, log2_h: u32, tiled: bool, srgb: bool, wrap: [Wrap; 2]) -> TexDesc {
    TexDesc {
        base: 40,
        log2_w,
        log2_h,
        width: 1 << log2_w,
        height: 1 << log2_h,
        mips: log2_w.max(log2_h) + 1,
        srgb,
        tiled,
        wrap,
        border: 0x80FF_2000 | log2_w << 4 | log2_h,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    }
}

/// A random request: every mode, filter, mip mode, LOD form, offsets and masks.
fn random_request(rng: &mut Rng, d: &TexDesc, i: usize) -> Request {
    let mode = [Mode::Filtered, Mode::Filtered, Mode::Raw, Mode::Gather][rng.below(4) as usize];
    let int_coords = rng.chance(0.15);
    let mut r = Request {
        slot: rng.below(8) as u32,
        quad: (i % 4) as u32,
        int_coords,
        mode,
        filter: [Filter::Nearest, Filter::Linear][rng.below(2) as usize],
        mip: [MipMode::Base, MipMode::Nearest, MipMode::Linear][rng.below(3) as usize],
        comp: rng.below(4) as u32,
        mask: if rng.chance(0.7) {
            0xF
        } else {
            rng.below(16) as u32
        },
        patch: rng.below(4) as u32,
        subop: rng.below(4) as u32,
        explicit_lod: rng.chance(0.3),
        lod: rng.below(6 * 256) as i32 - 512,
        ..Request::default()
    };
    if rng.chance(0.5) {
        r.lod = 0;
    }
    for k in 0..4 {
        r.offsets[k] = if rng.chance(0.4) {
            (rng.below(16) as i32 - 8, rng.below(16) as i32 - 8)
        } else {
            (0, 0)
        };
    }
    if int_coords {
        for c in r.coords.iter_mut() {
            *c = (rng.below(160) as i32 - 48) as u32;
        }
        return r;
    }
    // A quad footprint: a base point and a random scale (minification up to 2^6, magnification).
    let scale = 2f32.powf(rng.below(900) as f32 / 100.0 - 3.0) / (1 << d.log2_w) as f32;
    let base = [
        rng.below(3000) as f32 / 1000.0 - 1.0,
        rng.below(3000) as f32 / 1000.0 - 1.0,
    ];
    let aniso = rng.below(100) as f32 / 50.0;
    for k in 0..4 {
        let (a, b) = ((k & 1) as f32, (k >> 1) as f32);
        r.coords[2 * k] = (base[0] + a * scale).to_bits();
        r.coords[2 * k + 1] = (base[1] + b * scale * aniso + a * scale * 0.1).to_bits();
    }
    if rng.chance(0.05) {
        r.coords[0] = [0x7FC0_0000, 0x0000_0001, 0x7F80_0000, 0xFF80_0000][rng.below(4) as usize];
    }
    r
}

/// Random requests on textures of every layout, format and wrap mode, under random gaps and
/// back-pressure on `req`, `answer` and `mem_req`, and random memory latency; the run on the
/// sRGB texture with clamp-to-border columns, mirrored rows, a LOD clamp and a base level is
/// co-simulated in iverilog and Verilator.
#[test]
fn random_traffic_matches_the_model() {
    let design = design();
    let seed = rendergen_sim::kit::seed_from_env_or(0x7E57);
    let mut rng = Rng::new(seed);
    let mut textures = [
        tex(5, 4, false, false, [Wrap::Repeat, Wrap::Mirror]),
        tex(4, 6, true, true, [Wrap::Clamp, Wrap::Repeat]),
        tex(6, 6, true, false, [Wrap::Mirror, Wrap::Clamp]),
        tex(0, 3, false, true, [Wrap::Mirror, Wrap::Mirror]),
        tex(3, 5, false, true, [Wrap::Border, Wrap::Mirror]),
        tex(5, 2, true, false, [Wrap::Repeat, Wrap::Border]),
        tex(4, 4, false, false, [Wrap::Border; 2]),
    ];
    // Sampler LOD clamps and base levels (λ clamped to [0.78, 3.5] above level 1, λ ≤ 1.2
    // above level 2, λ ≥ 1 above level 0).
    (
        textures[1].min_lod,
        textures[1].max_lod,
        textures[1].base_level,
    ) = (200, 896, 1);
    (textures[2].max_lod, textures[2].base_level) = (300, 2);
    textures[5].min_lod = 256;
    // The co-simulated run: λ ≥ 0.5 above level 1.
    (textures[4].min_lod, textures[4].base_level) = (128, 1);
    let mut cover = [0u32; 6];
    for (n, d) in textures.iter().enumerate() {
        let reqs: Vec<Request> = (0..300).map(|i| random_request(&mut rng, d, i)).collect();
        // Coverage (over all textures): trilinear pairs, minified levels, modes, integers.
        for r in &reqs {
            let (level, _, two) = select_levels(d, r);
            cover[0] += two as u32;
            cover[1] += (level > 0) as u32;
            cover[2] += (r.mode == Mode::Raw) as u32;
            cover[3] += (r.mode == Mode::Gather) as u32;
            cover[4] += r.int_coords as u32;
            for lane in 0..4 {
                let (t, _, _) = footprint(d, r, lane, level);
                cover[5] += t.iter().any(|t| t.border) as u32;
            }
        }
        // Odd textures without flushes: hit and fill counts exactly as the model's cache.
        let p = match n % 2 {
            0 => ROUGH,
            _ => Pressure {
                flush: 0.0,
                ..ROUGH
            },
        };
        run(&design, d, &reqs, p, seed + n as u64, n == 4);
    }
    assert!(
        cover.iter().all(|&c| c >= 40),
        "coverage (trilinear, levels > 0, raw, gather, integer, border): {cover:?}"
    );
}

fn raw_texel_histogram(answers: &[[u32; 16]], masks: &[u32]) -> HashMap<u32, u32> {
    let addr_of: HashMap<u32, u32> = memory()
        .iter()
        .enumerate()
        .map(|(a, &v)| (v, a as u32))
        .collect();
    let mut h = HashMap::new();
    for (w, mask) in answers.iter().zip(masks) {
        for lane in 0..4 {
            if mask >> lane & 1 == 1 {
                for k in 0..4 {
                    *h.entry(addr_of[&w[4 * lane + k]]).or_insert(0) += 1;
                }
            }
        }
    }
    h
}

/// A collective-fetch scenario and its expected counts.
type Case = (Kernel, [u64; 3], u64, u64, [u64; 3]);

/// T1–T4, T7, T9, T12, T18: collective fetches through the RTL with the spec's exact counts
/// (3×3: 4 footprints, 16 texel reads, each texel once, against 36; 1×7 and 7×1: 16 against
/// 28; 19×1: 11 footprints, 44 reads, 40 unique, against 76), the filter idle while bypassed,
/// register writes of the broadcast modes (64 / 36 / 16 for 3×3) from the RTL's raw answers,
/// and every lane's kernel window equal to the per-pixel filtered baseline; baseline and
/// collective traffic interleaved in one run under back-pressure.
#[test]
fn collective_fetch_counts_and_equal_outputs() {
    let design = design();
    let d = tex(5, 5, false, false, [Wrap::Clamp; 2]);
    // (kernel, [footprints, texel reads, unique], baseline footprints, baseline reads, writes)
    let cases: [Case; 4] = [
        (Kernel { w: 3, h: 3 }, [4, 16, 16], 36, 36, [64, 36, 16]),
        (Kernel { w: 1, h: 7 }, [4, 16, 16], 28, 28, [64, 28, 16]),
        (Kernel { w: 7, h: 1 }, [4, 16, 16], 28, 28, [64, 28, 16]),
        (Kernel { w: 19, h: 1 }, [11, 44, 40], 76, 76, [160, 76, 40]),
    ];
    for (n, (kernel, [fp, reads, unique], base_fp, base_reads, writes)) in
        cases.into_iter().enumerate()
    {
        let method = if kernel.w == 19 {
            Method::IntCoords
        } else {
            Method::GatherOffsets
        };
        let group = (10, 12);
        let coll = collective_requests(&d, kernel, group, 0, method);
        let out = run(&design, &d, &coll, ROUGH, 0x100 + n as u64, false);
        let [f, t, _, _, active, idle] = out.counters;
        assert_eq!(
            (f, t, active, idle),
            (fp, reads, 0, fp),
            "{kernel:?} collective"
        );
        assert_eq!(
            coll.iter().map(|r| r.mask.count_ones() as u64).sum::<u64>(),
            fp,
            "requests"
        );
        let masks: Vec<u32> = coll.iter().map(|r| r.mask).collect();
        let h = raw_texel_histogram(&out.answers, &masks);
        assert_eq!(h.len() as u64, unique, "{kernel:?} unique texels");
        if kernel.w != 19 {
            assert!(
                h.values().all(|&c| c == 1),
                "{kernel:?}: each texel read once"
            );
        }
        let base = baseline_requests(&d, kernel, group, 0);
        let bout = run(&design, &d, &base, ROUGH, 0x200 + n as u64, false);
        let [f, t, _, _, active, idle] = bout.counters;
        assert_eq!(
            (f, t, active, idle),
            (base_fp, base_reads, base_fp, 0),
            "{kernel:?} baseline"
        );
        let raw: Vec<_> = coll
            .iter()
            .zip(&out.answers)
            .map(|(r, w)| (r.patch, r.subop, r.mask, *w))
            .collect();
        for (i, mode) in [Broadcast::All, Broadcast::Selective, Broadcast::Shared]
            .into_iter()
            .enumerate()
        {
            let b = broadcast(kernel, &raw, mode);
            assert_eq!(
                b.reg_writes, writes[i],
                "{kernel:?} {mode:?} register writes"
            );
            if kernel.w == 19 {
                assert!(b.dup_dropped > 0);
            }
            for lane in 0..4 {
                for (tap, texel) in b.windows[lane].iter().enumerate() {
                    let texel = texel.expect("window complete");
                    assert_eq!(
                        expand(texel, false)[..],
                        bout.answers[tap][4 * lane..4 * lane + 4],
                        "{kernel:?} lane {lane} tap {tap}"
                    );
                }
            }
        }
        // Mixed: baseline and collective interleaved in one stream, answers in order.
        let mixed: Vec<Request> = base
            .iter()
            .zip(coll.iter().cycle())
            .flat_map(|(a, b)| [*a, *b])
            .collect();
        run(&design, &d, &mixed, ROUGH, 0x300 + n as u64, false);
    }
}

/// T5, T6, T11, T13: method 1 with coordinates nudged by ±1/8 texel reads the same texels as
/// method 2; gathers from levels 1 and 2; groups on the image borders in every wrap mode
/// (RTL = model, which the model tests tie to Vulkan's wrap rules).
#[test]
fn shifted_coordinates_mip_levels_and_borders() {
    let design = design();
    let k = Kernel { w: 3, h: 3 };
    let d = tex(5, 5, true, false, [Wrap::Clamp; 2]);
    let g = run(
        &design,
        &d,
        &collective_requests(&d, k, (6, 8), 0, Method::GatherOffsets),
        CALM,
        1,
        false,
    );
    for nudge in [-32, 0, 32] {
        let s = run(
            &design,
            &d,
            &collective_requests(&d, k, (6, 8), 0, Method::Shifted { nudge }),
            CALM,
            2,
            false,
        );
        assert_eq!(s.answers, g.answers, "method 1 nudged by {nudge}/256");
    }
    // T6: a bilinear fetch half-way between two texel centres on a row reads 2 texels (n = 2).
    let mut pair = Request {
        explicit_lod: true,
        mip: MipMode::Base,
        ..Request::default()
    };
    for lane in 0..4 {
        let (x, y) = (4 + 2 * (lane & 1) as u32, 6 + (lane >> 1) as u32);
        pair.coords[2 * lane] = ((x as f32 + 1.0) / 32.0).to_bits();
        pair.coords[2 * lane + 1] = ((y as f32 + 0.5) / 32.0).to_bits();
    }
    let out = run(&design, &d, &[pair], ROUGH, 7, false);
    assert_eq!(
        (out.counters[0], out.counters[1]),
        (4, 8),
        "4 footprints of 2 texels"
    );
    for level in 1..=2 {
        let reqs = collective_requests(&d, k, (2, 4), level, Method::GatherOffsets);
        let out = run(&design, &d, &reqs, ROUGH, 3, false);
        assert_eq!(
            out.answers[0][0],
            memory()[d.texel_addr(level, 1, 3) as usize]
        );
    }
    for wrap in [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror, Wrap::Border] {
        let d = tex(4, 3, false, false, [wrap, wrap]);
        let mut reqs = Vec::new();
        for group in [(0, 0), (14, 6), (0, 6), (14, 0)] {
            reqs.extend(collective_requests(&d, k, group, 0, Method::GatherOffsets));
            reqs.extend(baseline_requests(&d, k, group, 0));
        }
        run(&design, &d, &reqs, ROUGH, 4 + wrap as u64, false);
    }
}

/// T19: a hitting workload (raw footprints over a small area, cache warm) without back-pressure
/// sustains one footprint per clock; latency of one quad through a warm unit.
#[test]
fn latency_and_throughput() {
    let design = design();
    let d = tex(4, 4, false, false, [Wrap::Repeat; 2]);
    let group = collective_requests(&d, Kernel { w: 3, h: 3 }, (4, 4), 0, Method::GatherOffsets);
    let n = 1500;
    let reqs: Vec<Request> = (0..n).map(|i| group[i % group.len()]).collect();
    let out = run(&design, &d, &reqs, CALM, 5, false);
    let footprints = out.counters[0];
    assert_eq!(footprints, 4 * n as u64);
    let rate = footprints as f64 / out.cycles as f64;
    eprintln!(
        "texture_unit: {footprints} footprints in {} cycles = {rate:.3} footprints/clock; {} hits ({:.4} hit rate), {} fills",
        out.cycles,
        out.counters[2],
        out.counters[2] as f64 / footprints as f64,
        out.counters[3]
    );
    // Beyond the warm-up (pipeline fill and the misses of the first quads) one per clock.
    assert!(
        out.cycles <= footprints + 100,
        "{rate} footprints per clock"
    );
    // Latency: a quad with no active lane passes every stage as one empty footprint and
    // touches no memory: the answer's transfer cycle, the request's being cycle 0.
    let empty = Request {
        mask: 0,
        ..group[0]
    };
    let one = run(&design, &d, &[empty], CALM, 6, false);
    eprintln!(
        "texture_unit: latency {} cycles (request transfer → answer transfer)",
        one.cycles
    );
    assert_eq!(one.cycles, LATENCY, "documented latency");
}

/// The cache's hit and fill counters on traffic whose counts are known by construction (16
/// cache lines; raw footprints at even integer coordinates read one aligned 2×2 block each):
/// an 8×8 patch (16 blocks, 16 distinct lines) read cold (16 fills), again (16 hits), then
/// unaligned footprints inside it (4 blocks each, all present: hits), then the patch 8 texels
/// to the right (same lines: 16 fills), then the first patch again (16 fills). The model's
/// cache gives the same numbers (checked in `run`).
#[test]
fn cache_hits_and_fills_known_by_construction() {
    let design = design();
    let d = tex(5, 5, false, false, [Wrap::Repeat; 2]);
    let patch = |x0: i32, y0: i32, step: i32| -> Vec<Request> {
        let mut reqs = Vec::new();
        let mut spots = Vec::new();
        for by in 0..4 {
            for bx in 0..4 {
                spots.push((x0 + step * bx, y0 + step * by));
            }
        }
        for quad in spots.chunks(4) {
            let mut r = Request {
                int_coords: true,
                mode: Mode::Raw,
                ..Request::default()
            };
            for (k, &(x, y)) in quad.iter().enumerate() {
                r.coords[2 * k] = x as u32;
                r.coords[2 * k + 1] = y as u32;
            }
            reqs.push(r);
        }
        reqs
    };
    let mut reqs = patch(0, 0, 2); // cold: 16 fills
    reqs.extend(patch(0, 0, 2)); // warm: 16 hits
    reqs.extend(&patch(1, 1, 1)[..2]); // unaligned inside the patch: 8 hits
    reqs.extend(patch(8, 0, 2)); // the same 16 lines: 16 fills
    reqs.extend(patch(0, 0, 2)); // evicted: 16 fills
    for p in [
        CALM,
        Pressure {
            flush: 0.0,
            ..ROUGH
        },
    ] {
        let out = run(&design, &d, &reqs, p, 0x0CAC4E, false);
        let [footprints, _, hits, fills, _, _] = out.counters;
        assert_eq!(
            (footprints, hits, fills),
            (72, 24, 48),
            "footprints, hits, fills"
        );
    }
}

/// Raw integer-coordinate quads reading the aligned 2×2 blocks `(bx, by)` (one footprint and
/// one line each), four blocks per quad.
fn block_quads(blocks: &[(u32, u32)]) -> Vec<Request> {
    blocks
        .chunks(4)
        .map(|quad| {
            let mut r = Request {
                int_coords: true,
                mode: Mode::Raw,
                mask: (1 << quad.len()) - 1,
                ..Request::default()
            };
            for (k, &(bx, by)) in quad.iter().enumerate() {
                r.coords[2 * k] = 2 * bx;
                r.coords[2 * k + 1] = 2 * by;
            }
            r
        })
        .collect()
}

/// The non-blocking cache overlaps fills and serves hits under a miss. A warm quad of four
/// blocks (lines 0–3 of 16) alternates with a cold quad of four blocks in lines 4–7 (a new
/// block row each round, so four fills); memory answers after 20 clocks. The counts are known
/// by construction (and equal the model's, checked in `run`): 4 + 4·R fills and 12·R hits.
/// Observed through the cache's signals: the cold quad's four lines are in flight together,
/// the warm footprints behind it are looked up as hits while they are in flight, and
/// footprints leave the cache while the next round's lines are in flight; the run takes less
/// than half the clocks a blocking cache needs for its fills alone (fills × latency).
#[test]
fn cache_fills_overlap_and_hits_pass_under_a_miss() {
    const ROUNDS: u32 = 8;
    const MEM_LATENCY: u64 = 20;
    let design = design();
    let d = tex(6, 6, false, false, [Wrap::Repeat; 2]);
    let warm: Vec<(u32, u32)> = (0..4).map(|bx| (bx, 0)).collect();
    let mut reqs = block_quads(&warm);
    for r in 0..ROUNDS {
        let cold: Vec<(u32, u32)> = (0..4).map(|bx| (bx, 4 * r + 5)).collect();
        reqs.extend(block_quads(&cold));
        for _ in 0..3 {
            reqs.extend(block_quads(&warm));
        }
    }
    let p = Pressure {
        mem_latency: (MEM_LATENCY, MEM_LATENCY),
        ..CALM
    };
    let mut probe = CacheProbe::default();
    let lines = small_cfg().cache_lines;
    let out = run_with(
        &design,
        lines,
        &d,
        &reqs,
        p,
        0x0FE7,
        false,
        Some(&mut probe),
    );
    let [footprints, _, hits, fills, _, _] = out.counters;
    let r = ROUNDS as u64;
    assert_eq!(
        (footprints, hits, fills),
        (4 + 16 * r, 12 * r, 4 + 4 * r),
        "footprints, hits, fills"
    );
    eprintln!(
        "texture cache: {} cycles for {fills} fills of {MEM_LATENCY} clocks; at most {} in flight, {} cycles with ≥ 2, {} hits looked up and {} footprints answered under a miss",
        out.cycles,
        probe.max_outstanding,
        probe.overlapped_cycles,
        probe.hits_under_miss,
        probe.served_under_miss
    );
    assert!(
        probe.max_outstanding >= 4,
        "a cold quad's four lines in flight together"
    );
    assert!(probe.overlapped_cycles >= r * MEM_LATENCY, "fills overlap");
    assert!(
        probe.hits_under_miss >= 12 * r,
        "every warm footprint looked up under a miss"
    );
    assert!(
        probe.served_under_miss >= 8 * r,
        "footprints answered under a miss"
    );
    assert!(
        out.cycles < fills * MEM_LATENCY / 2,
        "{} cycles: a blocking cache needs ≥ {}",
        out.cycles,
        fills * MEM_LATENCY
    );
}

/// Replacement while footprints are queued: the smallest cache (4 lines), the fewest fills in
/// flight (4), a 16-deep queue and memory answering after 40–64 clocks, on random traffic with
/// random gaps and back-pressure; answers and counters equal the model's, and lines holding a
/// valid block were claimed by a miss while footprints waited in the queue (counted).
#[test]
fn tiny_cache_long_latency_replaces_lines_under_queued_footprints() {
    let cfg = TexCfg {
        cache_lines: 4,
        max_fills: 4,
        queue_depth: 16,
        ..small_cfg()
    };
    let design = texture_unit_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let seed = rendergen_sim::kit::seed_from_env_or(0x71CE);
    let mut rng = Rng::new(seed);
    let p = Pressure {
        mem_latency: (40, 64),
        flush: 0.0,
        ..ROUGH
    };
    let mut probe = CacheProbe::default();
    for (n, d) in [
        tex(5, 5, true, false, [Wrap::Repeat, Wrap::Mirror]),
        tex(6, 4, false, true, [Wrap::Clamp, Wrap::Border]),
    ]
    .iter()
    .enumerate()
    {
        let reqs: Vec<Request> = (0..120).map(|i| random_request(&mut rng, d, i)).collect();
        run_with(
            &design,
            cfg.cache_lines,
            d,
            &reqs,
            p,
            seed + n as u64,
            false,
            Some(&mut probe),
        );
    }
    eprintln!(
        "tiny cache: {} lines evicted while footprints were queued; at most {} fills in flight",
        probe.evicted_while_queued, probe.max_outstanding
    );
    assert!(
        probe.evicted_while_queued >= 50,
        "replacement under queued footprints exercised"
    );
    assert_eq!(probe.max_outstanding, 4, "max_fills reached");
}

/// The emitted Verilog passes Verilator `-Wall`, Yosys `check -assert` and iverilog.
#[test]
fn texture_unit_lint_clean() {
    let design = texture_unit_top(&TexCfg {
        cache_lines: 4,
        max_log2: 4,
        ..small_cfg()
    })
    .unwrap();
    let report = rendergen_gen::tools::lint(&design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// Parameters outside their ranges are elaboration errors naming the parameter.
#[test]
fn texture_unit_rejects_bad_parameters() {
    for (cfg, name) in [
        (
            TexCfg {
                cache_lines: 12,
                ..small_cfg()
            },
            "cache_lines",
        ),
        (
            TexCfg {
                cache_lines: 512,
                ..small_cfg()
            },
            "cache_lines",
        ),
        (
            TexCfg {
                max_log2: 11,
                ..small_cfg()
            },
            "max_log2",
        ),
        (
            TexCfg {
                slot_width: 0,
                ..small_cfg()
            },
            "slot_width",
        ),
        (
            TexCfg {
                quad_width: 5,
                ..small_cfg()
            },
            "quad_width",
        ),
        (
            TexCfg {
                max_fills: 3,
                ..small_cfg()
            },
            "max_fills",
        ),
        (
            TexCfg {
                queue_depth: 65,
                ..small_cfg()
            },
            "queue_depth",
        ),
    ] {
        let Err(e) = texture_unit_top(&cfg) else {
            panic!("{name} accepted")
        };
        assert!(e.to_string().contains(name), "{e}");
    }
}

/// Cycles of a VCD in which the top-level 1-bit signals `valid` and `ready` are both 1,
/// sampled once per clock (at each rising `clk_i`).
fn vcd_handshakes(text: &str, valid: &str, ready: &str) -> usize {
    let (mut depth, mut ids) = (0usize, HashMap::new());
    let mut lines = text.lines();
    for line in lines.by_ref() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.first().copied() {
            Some("$scope") => depth += 1,
            Some("$upscope") => depth -= 1,
            Some("$var") if depth == 1 && f.len() >= 5 => {
                ids.insert(f[4].to_string(), f[3].to_string());
            }
            Some("$enddefinitions") => break,
            _ => {}
        }
    }
    let id = |n: &str| {
        ids.get(n)
            .unwrap_or_else(|| panic!("no `{n}` in the VCD"))
            .clone()
    };
    let (clk, v, r) = (id("clk_i"), id(valid), id(ready));
    let mut value: HashMap<String, char> = HashMap::new();
    let (mut rising, mut count) = (false, 0);
    let mut close = |value: &HashMap<String, char>, rising: bool| {
        if rising && value.get(&v) == Some(&'1') && value.get(&r) == Some(&'1') {
            count += 1;
        }
    };
    for line in lines {
        if line.starts_with('#') {
            close(&value, rising);
            rising = false;
        } else if let Some(c @ ('0' | '1' | 'x' | 'z')) = line.chars().next() {
            let name = line[1..].to_string();
            rising |= name == clk && c == '1';
            value.insert(name, c);
        }
    }
    close(&value, rising);
    count
}

/// T20: waveforms of T1 (3×3 collective: 4 raw footprints) and T2 (its baseline: 36 filtered
/// fetches) for GTKWave. The VCD holds the unit's hierarchy and, at the top, as many answer
/// handshakes (`answer_valid_o` ∧ `answer_ready_i` at a rising clock) as requests answered;
/// the Verilog export, Verilator lint and Yosys of the same unit are
/// `texture_unit_lint_clean`, `cosim_*` and `yosys_area`.
#[test]
fn t20_waveforms_of_t1_and_t2() {
    let design = design();
    let d = tex(5, 5, false, false, [Wrap::Clamp; 2]);
    let kernel = Kernel { w: 3, h: 3 };
    let dir = std::env::temp_dir().join(format!("rendergen-t20-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "t1",
            collective_requests(&d, kernel, (10, 12), 0, Method::GatherOffsets),
            4,
        ),
        ("t2", baseline_requests(&d, kernel, (10, 12), 0), 36),
    ];
    for (name, reqs, footprints) in cases {
        let mem = memory();
        let want: Vec<_> = reqs.iter().map(|r| sample(&d, &mem, r).0).collect();
        let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join(format!("{name}.vcd"));
        let file = std::fs::File::create(&path).unwrap();
        sim.trace_vcd(std::io::BufWriter::new(file)).unwrap();
        let (answers, _) = drive(&mut sim, &d, &mem, &reqs, &want, ROUGH, 0x7020, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        sim.finish_vcd().unwrap();
        let fp: u64 = reqs.iter().map(|r| r.mask.count_ones() as u64).sum();
        assert_eq!(fp, footprints, "{name}: footprints requested");
        assert_eq!(answers.len(), reqs.len(), "{name}: answers");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("$scope module texture_unit $end"), "{name}");
        assert_eq!(
            vcd_handshakes(&text, "answer_valid_o", "answer_ready_i"),
            reqs.len(),
            "{name}: answer handshakes in the waveform"
        );
        assert_eq!(
            vcd_handshakes(&text, "req_valid_i", "req_ready_o"),
            reqs.len(),
            "{name}: request handshakes in the waveform"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
