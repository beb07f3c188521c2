//! ASTC textures in the texture unit (`rendergen_rtl::texture::astc`, issue 14 §1/§4) and the
//! filter's accuracy against f64:
//! * `astc_random_traffic_matches_the_model`: random requests (every mode, filter, mip mode,
//!   wrap, sRGB) on astcenc-compressed mipmapped textures with some random (often illegal)
//!   blocks, under random gaps, back-pressure, flushes and memory latency; every answer in
//!   order against `rendergen_sim::models::texture::astc` (nothing lost, duplicated or
//!   reordered), counters against the model's; one run co-simulated in iverilog and Verilator.
//! * `astc_sampling_equals_astcenc_filtered_by_f64`: bilinear and trilinear answers of the RTL
//!   against texels decoded by the `astcenc` tool (`-dl`/`-ds`), filtered by an f64 evaluation
//!   of the filter formula.
//! * `rgba8_filter_accuracy_against_f64`: the RGBA8 unit's bilinear and trilinear answers
//!   against the same f64 reference (the figures quoted in `rendergen_rtl::texture`).
//! * `astc_unit_lint_clean`.
//!
//! Run: `cargo test -p rendergen-testbenches --test testbenches texture_astc:: -- --nocapture`.

use crate::astc_model::astcenc;
use crate::texture::req_item;
use rendergen_hdl::Design;
use rendergen_rtl::astc::dp::Footprint as RtlFootprint;
use rendergen_rtl::texture::astc::{texture_unit_astc_top, TexAstcCfg};
use rendergen_rtl::texture::{texture_unit_top, TexCfg};
use rendergen_sim::kit::{Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::astc::file::AstcFile;
use rendergen_sim::models::astc::{Footprint, Profile};
use rendergen_sim::models::ktx;
use rendergen_sim::models::texture::astc::{block_of, decoded, level_blocks, words};
use rendergen_sim::models::texture::cache::{CacheCounts, TexCache};
use rendergen_sim::models::texture::{
    footprint, sample, select_levels, Answer, Counts, Filter, MipMode, Mode, Request, TexDesc, Wrap,
};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};
use std::collections::VecDeque;

/// The configuration the tests use (textures up to 64×64).
fn unit_cfg() -> TexCfg {
    TexCfg {
        slot_width: 3,
        quad_width: 2,
        cache_lines: 16,
        max_log2: 6,
        ..TexCfg::default()
    }
}

fn astc_cfg(w: u32, h: u32) -> TexAstcCfg {
    TexAstcCfg {
        unit: unit_cfg(),
        footprint: RtlFootprint { w, h },
        block_lines: 4,
    }
}

/// Which memory port the design has.
#[derive(Clone, Copy, PartialEq)]
enum Port {
    /// `mem_req` (four texel words) / `mem_resp`: the RGBA8 unit.
    Texels,
    /// `blk_req` (one block's first word) / `blk_resp` (four words): the ASTC unit.
    Blocks,
}

#[derive(Clone, Copy)]
struct Pressure {
    gap: f64,
    stall: f64,
    mem_stall: f64,
    mem_latency: (u64, u64),
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

fn tex(log2_w: u32, log2_h: u32, srgb: bool, wrap: [Wrap; 2]) -> TexDesc {
    TexDesc {
        base: 64,
        log2_w,
        log2_h,
        width: 1 << log2_w,
        height: 1 << log2_h,
        mips: log2_w.max(log2_h) + 1,
        srgb,
        tiled: false,
        wrap,
        border: 0x80FF_2010,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    }
}

/// An ASTC texture in memory and astcenc's own decode of each level.
struct AstcTex {
    desc: TexDesc,
    fp: Footprint,
    mem: Vec<u32>,
    /// astcenc's RGBA8 output per level (row-major, 4 bytes per texel as u16 values).
    astcenc: Vec<ktx::KtxImage>,
}

/// A smooth picture with edges and noise, different per level (so trilinear blends differ).
fn picture(w: u32, h: u32, level: u32, rng: &mut Rng) -> Vec<u8> {
    let mut px = Vec::with_capacity((4 * w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f64 / w as f64, y as f64 / h as f64);
            let r = 127.0 + 120.0 * (6.0 * fx + level as f64).sin();
            let g = if (x / 3 + y / 5) % 2 == 0 {
                40.0
            } else {
                210.0
            };
            let b = 255.0 * fy;
            let a = 255.0 - 100.0 * fx * fy;
            for c in [r, g, b, a] {
                let noise = rng.below(9) as f64 - 4.0;
                px.push((c + noise).clamp(0.0, 255.0) as u8);
            }
        }
    }
    px
}

/// Compresses every level with astcenc at `fp`, replaces every seventh block with random
/// bits (illegal, void-extent and odd encodings), places the blocks as the model's layout
/// says, and decodes each level with astcenc.
fn astc_texture(desc: TexDesc, w: u8, h: u8, seed: u64) -> AstcTex {
    let fp = Footprint::new(w, h).unwrap();
    let profile = match desc.srgb {
        false => Profile::LdrLinear,
        true => Profile::LdrSrgb,
    };
    let scratch = astcenc::Scratch::new(&format!("tex-astc-{fp}-{seed:x}"));
    let mut rng = Rng::new(seed);
    let mut mem = vec![0u32; (desc.base + words(&desc, fp)) as usize];
    let mut decoded_levels = Vec::new();
    for l in 0..desc.mips {
        let (lw, lh) = desc.level_log2(l);
        let (sw, sh) = (1u32 << lw, 1u32 << lh);
        let src = ktx::write_rgba8(sw, sh, &picture(sw, sh, l, &mut rng));
        let file = astcenc::compress(&scratch, &format!("l{l}"), &src, fp, profile, "-fast");
        let (bx, by) = level_blocks(&desc, fp, l);
        assert_eq!((file.blocks_x(), file.blocks_y()), (bx, by));
        let mut blocks = Vec::new();
        for j in 0..by {
            for i in 0..bx {
                let mut b = *file.block(i, j);
                if rng.below(7) == 0 {
                    for byte in b.iter_mut() {
                        *byte = rng.below(256) as u8;
                    }
                }
                let (addr, _, _) = block_of(&desc, fp, l, i * fp.w(), j * fp.h());
                for k in 0..4 {
                    let word = u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
                    mem[addr as usize + k] = word;
                }
                blocks.push(b);
            }
        }
        let changed = AstcFile::new(fp, sw, sh, blocks);
        decoded_levels.push(astcenc::decompress(
            &scratch,
            &format!("l{l}"),
            &changed,
            profile,
        ));
    }
    AstcTex {
        desc,
        fp,
        mem,
        astcenc: decoded_levels,
    }
}

/// What a run observed.
struct Outcome {
    answers: Vec<[u32; 16]>,
    /// footprints, texel reads, hits, misses, filter active, filter idle (and, for the ASTC
    /// unit, decodes and block fills).
    counters: Vec<u64>,
    cycles: u64,
}

/// Runs `reqs` on `design` (memory `mem` behind `port`), checks the answers in order against
/// `want`; co-simulates the start when `cosim`.
#[allow(clippy::too_many_arguments)]
fn run(
    design: &Design,
    port: Port,
    d: &TexDesc,
    mem: &[u32],
    reqs: &[Request],
    want: &[Answer],
    p: Pressure,
    seed: u64,
    cosim: bool,
) -> Outcome {
    let mut sim = Simulator::new(design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, design.top().name.as_str(), seed);
    if cosim {
        sim.start_recording();
    }
    let result = drive(&mut sim, port, d, mem, reqs, want, p, seed);
    let (answers, cycles) = tb.check(&mut sim, result);
    let mut names = vec![
        "footprints",
        "texel_reads",
        "cache_hits",
        "cache_misses",
        "filter_active",
        "filter_idle",
    ];
    if port == Port::Blocks {
        names.extend(["astc_decodes", "astc_block_fills"]);
    }
    let counters = names
        .iter()
        .map(|n| {
            let o = sim.output(&format!("counters_{n}")).unwrap();
            sim.peek(o)
        })
        .collect();
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
    port: Port,
    d: &TexDesc,
    mem: &[u32],
    reqs: &[Request],
    want: &[Answer],
    p: Pressure,
    seed: u64,
) -> Result<(Vec<[u32; 16]>, u64), TbError> {
    let (req_name, resp_name) = match port {
        Port::Texels => ("mem_req", "mem_resp"),
        Port::Blocks => ("blk_req", "blk_resp"),
    };
    let mut rng = Rng::new(seed);
    let mut src = [
        StreamSource::new(sim, "req", rng.next_u64())?.gap_prob(p.gap),
        StreamSource::new(sim, resp_name, rng.next_u64())?.gap_prob(p.gap / 2.0),
    ];
    let mut sink = [
        StreamSink::new(sim, "answer", rng.next_u64())?.stall_prob(p.stall),
        StreamSink::new(sim, req_name, rng.next_u64())?.stall_prob(p.mem_stall),
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
    for (name, v) in d.port_values() {
        let p = sim.input(name).map_err(|e| TbError::new(e.to_string()))?;
        sim.poke(p, v);
    }
    sim.reset(1);
    let flush = sim
        .input("flush")
        .map_err(|e| TbError::new(e.to_string()))?;
    let mut pending: VecDeque<(u64, Vec<u64>)> = VecDeque::new();
    let (mut seen_mem, mut seen) = (0usize, 0usize);
    let mut got = Vec::new();
    let mut last_due = 0u64;
    let dog = Watchdog::new(400 * reqs.len() as u64 + 4_000, seed);
    let word = |a: u64| mem[a as usize % mem.len()] as u64;
    let cycles = dog.run_until(sim, "every answer", |sim| {
        let now = sim.cycle();
        while pending.front().is_some_and(|(due, _)| *due <= now) {
            let (_, line) = pending.pop_front().unwrap();
            src[1].send(&line)?;
        }
        sim.poke(flush, rng.chance(p.flush) as u64);
        agents_cycle(sim, &mut src, &mut sink)?;
        for item in &sink[1].items()[seen_mem..] {
            let line: Vec<u64> = match port {
                Port::Texels => item.iter().map(|a| word(a.to_u64())).collect(),
                Port::Blocks => (0..4).map(|k| word(item[0].to_u64() + k)).collect(),
            };
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
            let wt = [w.slot, w.quad, w.mask, w.mode as u32, w.patch, w.subop, w.level]
                .map(|v| v as u64);
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
    for k in 0..4 {
        r.offsets[k] = if rng.chance(0.3) {
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
    quad_coords(rng, d, &mut r);
    r
}

/// A quad footprint: a base point and a random scale (minification up to 2^6, magnification).
fn quad_coords(rng: &mut Rng, d: &TexDesc, r: &mut Request) {
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
}

/// The model's answers and counts for `reqs` on the RGBA8 texture `(d, mem)`, with the texel
/// cache's hits and fills.
fn model(
    d: &TexDesc,
    mem: &[u32],
    reqs: &[Request],
    lines: u32,
) -> (Vec<Answer>, Counts, CacheCounts) {
    let mut counts = Counts::default();
    let mut cache = TexCache::new(lines);
    let mut cached = CacheCounts::default();
    let mut want = Vec::new();
    for r in reqs {
        let (a, c, _) = sample(d, mem, r);
        counts += c;
        cached += cache.request(d, r);
        want.push(a);
    }
    (want, counts, cached)
}

/// Random traffic on two ASTC textures (6x6 UNORM with repeat/mirror; sRGB with border and
/// clamp) under random back-pressure, flushes and memory latency, against the model; the
/// unflushed run's counters exactly (decodes = 4 per texel-cache fill); the sRGB run is
/// co-simulated.
#[test]
fn astc_random_traffic_matches_the_model() {
    let design = texture_unit_astc_top(&astc_cfg(6, 6)).unwrap_or_else(|e| panic!("{e}"));
    let seed = rendergen_sim::kit::seed_from_env_or(0xA57C);
    let mut rng = Rng::new(seed);
    let textures = [
        (tex(5, 4, false, [Wrap::Repeat, Wrap::Mirror]), ROUGH),
        (
            tex(4, 5, true, [Wrap::Border, Wrap::Clamp]),
            Pressure {
                flush: 0.0,
                ..ROUGH
            },
        ),
    ];
    for (n, (d, p)) in textures.into_iter().enumerate() {
        let t = astc_texture(d, 6, 6, seed + n as u64);
        let (rgba, texels) = decoded(&t.desc, t.fp, &t.mem);
        let reqs: Vec<Request> = (0..250).map(|i| random_request(&mut rng, &d, i)).collect();
        let (want, counts, cached) = model(&rgba, &texels, &reqs, unit_cfg().cache_lines);
        let out = run(
            &design,
            Port::Blocks,
            &d,
            &t.mem,
            &reqs,
            &want,
            p,
            seed + n as u64,
            n == 1,
        );
        let c = &out.counters;
        assert_eq!(
            c[..2],
            [counts.footprints, counts.texel_reads],
            "footprints, texel reads"
        );
        assert_eq!(
            c[4..6],
            [counts.filter_active, counts.filter_idle],
            "filter counts"
        );
        if p.flush == 0.0 {
            assert_eq!(
                c[2..4],
                [cached.hits, cached.fills],
                "texel-cache hits, fills"
            );
        }
        assert_eq!(c[6], 4 * c[3], "four decodes per texel-cache fill");
        assert!(
            c[7] >= 1 && c[7] <= c[6],
            "block fills {} of {} decodes",
            c[7],
            c[6]
        );
        eprintln!(
            "texture_unit_astc 6x6 run {n}: {} footprints, texel cache {} hits / {} fills, {} decodes, {} block fills ({:.3} block-cache hit rate), {} cycles",
            c[0],
            c[2],
            c[3],
            c[6],
            c[7],
            1.0 - c[7] as f64 / c[6] as f64,
            out.cycles
        );
    }
}

/// f64 value of one channel of texel `t` (16-bit expansion: UNORM `c·257`, sRGB colour by the
/// sRGB EOTF, rounded to 16 bits).
fn expand_f64(rgba8: [u8; 4], j: usize, srgb: bool) -> f64 {
    let c = rgba8[j] as f64;
    if srgb && j < 3 {
        let v = c / 255.0;
        let l = if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        };
        (l * 65535.0).round()
    } else {
        c * 257.0
    }
}

/// The f64 reference of one lane's filtered answer (bilinear with the 8-bit fractions, then the
/// trilinear blend with δ/256), with `texel(level, x, y)` giving RGBA8 texels.
fn reference(
    d: &TexDesc,
    r: &Request,
    lane: usize,
    texel: &dyn Fn(u32, u32, u32) -> [u8; 4],
) -> [f64; 4] {
    let (level, delta, two) = select_levels(d, r);
    let one = |l: u32| -> [f64; 4] {
        let (t, fx, fy) = footprint(d, r, lane, l);
        let (a, b) = (fx as f64 / 256.0, fy as f64 / 256.0);
        let w = [(1.0 - a) * (1.0 - b), a * (1.0 - b), (1.0 - a) * b, a * b];
        std::array::from_fn(|j| {
            (0..4)
                .map(|p| {
                    let px = if t[p].border {
                        d.border.to_le_bytes()
                    } else {
                        texel(t[p].level, t[p].x, t[p].y)
                    };
                    w[p] * expand_f64(px, j, d.srgb)
                })
                .sum()
        })
    };
    let lo = one(level);
    if !two {
        return lo;
    }
    let hi = one(level + 1);
    let f = delta as f64 / 256.0;
    std::array::from_fn(|j| lo[j] + (hi[j] - lo[j]) * f)
}

/// Filtered bilinear requests (level 0) and trilinear ones (explicit fractional LOD).
fn filtered_requests(rng: &mut Rng, d: &TexDesc, n: usize) -> Vec<Request> {
    (0..n)
        .map(|i| {
            let tri = i % 2 == 1;
            let mut r = Request {
                quad: (i % 4) as u32,
                mode: Mode::Filtered,
                filter: Filter::Linear,
                mip: if tri { MipMode::Linear } else { MipMode::Base },
                mask: 0xF,
                explicit_lod: tri,
                lod: if tri { rng.below(4 * 256) as i32 } else { 0 },
                ..Request::default()
            };
            quad_coords(rng, d, &mut r);
            r
        })
        .collect()
}

/// Largest error (in 16-bit LSB) of each answer below / above the f64 reference, separately
/// for bilinear (one level) and trilinear (two levels) lanes: `[bilinear below, above,
/// trilinear below, above]`, and the lanes of each kind.
fn errors(
    d: &TexDesc,
    reqs: &[Request],
    answers: &[[u32; 16]],
    texel: &dyn Fn(u32, u32, u32) -> [u8; 4],
) -> ([f64; 4], [usize; 2]) {
    let mut e = [0f64; 4];
    let mut n = [0usize; 2];
    for (r, a) in reqs.iter().zip(answers) {
        let (_, _, two) = select_levels(d, r);
        let k = two as usize;
        for lane in 0..4 {
            let want = reference(d, r, lane, texel);
            n[k] += 1;
            for j in 0..4 {
                let got = a[4 * lane + j] as f64;
                e[2 * k] = e[2 * k].max(want[j] - got);
                e[2 * k + 1] = e[2 * k + 1].max(got - want[j]);
            }
        }
    }
    (e, n)
}

/// The filter's integer form `a + (((b − a)·f) >> 8)` truncates once per lerp: a bilinear
/// answer lies in `(ref − 2, ref]`, a trilinear one in `(ref − 3, ref]` 16-bit LSB of the f64
/// value of the same formula. Checked on the ASTC unit's answers with texels decoded by the
/// astcenc tool (`-dl` UNORM 6x6 and `-ds` sRGB 5x4), independently of the model's decoder.
#[test]
fn astc_sampling_equals_astcenc_filtered_by_f64() {
    let seed = rendergen_sim::kit::seed_from_env_or(0xF64A);
    let mut rng = Rng::new(seed);
    for (n, (fw, fh, d)) in [
        (6u8, 6u8, tex(5, 5, false, [Wrap::Repeat, Wrap::Mirror])),
        (5, 4, tex(5, 4, true, [Wrap::Clamp, Wrap::Repeat])),
    ]
    .into_iter()
    .enumerate()
    {
        let design = texture_unit_astc_top(&astc_cfg(fw as u32, fh as u32))
            .unwrap_or_else(|e| panic!("{e}"));
        let t = astc_texture(d, fw, fh, seed + 10 + n as u64);
        let (rgba, texels) = decoded(&t.desc, t.fp, &t.mem);
        let reqs = filtered_requests(&mut rng, &d, 200);
        let (want, _, _) = model(&rgba, &texels, &reqs, unit_cfg().cache_lines);
        let out = run(
            &design,
            Port::Blocks,
            &d,
            &t.mem,
            &reqs,
            &want,
            CALM,
            seed + n as u64,
            false,
        );
        let texel = |l: u32, x: u32, y: u32| {
            let v = t.astcenc[l as usize].texel(x, y);
            v.map(|c| c as u8)
        };
        let (e, lanes) = errors(&d, &reqs, &out.answers, &texel);
        eprintln!(
            "texture_unit_astc {fw}x{fh} {} vs astcenc + f64: bilinear {} lanes, error below {:.4} / above {:.4} LSB; trilinear {} lanes, below {:.4} / above {:.4} LSB",
            if d.srgb { "sRGB" } else { "UNORM" },
            lanes[0], e[0], e[1], lanes[1], e[2], e[3]
        );
        assert!(lanes[0] > 0 && lanes[1] > 0);
        assert!(e[0] < 2.0 && e[1] <= 0.0, "bilinear error {e:?}");
        assert!(e[2] < 3.0 && e[3] <= 0.0, "trilinear error {e:?}");
    }
}

/// The RGBA8 unit's bilinear and trilinear answers against the f64 reference (UNORM and sRGB
/// textures of random texels): the bounds of `astc_sampling_equals_astcenc_filtered_by_f64`.
#[test]
fn rgba8_filter_accuracy_against_f64() {
    let design = texture_unit_top(&unit_cfg()).unwrap_or_else(|e| panic!("{e}"));
    let seed = rendergen_sim::kit::seed_from_env_or(0xF640);
    let mut rng = Rng::new(seed);
    for (n, srgb) in [false, true].into_iter().enumerate() {
        let d = TexDesc {
            tiled: n == 1,
            ..tex(5, 5, srgb, [Wrap::Repeat, Wrap::Mirror])
        };
        let mem: Vec<u32> = (0..d.base + d.words())
            .map(|_| rng.next_u64() as u32)
            .collect();
        let reqs = filtered_requests(&mut rng, &d, 250);
        let (want, _, _) = model(&d, &mem, &reqs, unit_cfg().cache_lines);
        let out = run(
            &design,
            Port::Texels,
            &d,
            &mem,
            &reqs,
            &want,
            CALM,
            seed + n as u64,
            false,
        );
        let texel = |l: u32, x: u32, y: u32| mem[d.texel_addr(l, x, y) as usize].to_le_bytes();
        let (e, lanes) = errors(&d, &reqs, &out.answers, &texel);
        eprintln!(
            "texture_unit RGBA8 {}: bilinear {} lanes, error below {:.4} / above {:.4} LSB; trilinear {} lanes, below {:.4} / above {:.4} LSB",
            if srgb { "sRGB" } else { "UNORM" },
            lanes[0], e[0], e[1], lanes[1], e[2], e[3]
        );
        assert!(lanes[0] > 0 && lanes[1] > 0);
        assert!(e[0] < 2.0 && e[1] <= 0.0, "bilinear error {e:?}");
        assert!(e[2] < 3.0 && e[3] <= 0.0, "trilinear error {e:?}");
    }
}

/// The emitted Verilog of the ASTC unit passes Verilator `-Wall`, Yosys `check -assert` and
/// iverilog.
#[test]
fn astc_unit_lint_clean() {
    let design = texture_unit_astc_top(&TexAstcCfg {
        unit: TexCfg {
            cache_lines: 4,
            max_log2: 4,
            ..unit_cfg()
        },
        footprint: RtlFootprint { w: 4, h: 4 },
        block_lines: 2,
    })
    .unwrap();
    let report = rendergen_gen::tools::lint(&design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// Yosys generic synthesis per module of the unit without ASTC (`texture_unit`) and with it
/// (`texture_unit_astc`), default parameters (figures in `rendergen_rtl::texture::astc`).
/// The same as `rendergen synth texture_unit --per-module` and
/// `rendergen synth texture_unit_astc --per-module`.
#[test]
#[ignore = "slow: Yosys synthesis of two large designs (many minutes)"]
fn astc_unit_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    for design in [
        texture_unit_top(&TexCfg::default()).unwrap(),
        texture_unit_astc_top(&TexAstcCfg::default()).unwrap(),
    ] {
        let report =
            synth_per_module(&design, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{}\n{report}", design.top().name);
    }
}
