//! `tile_writeout`: the write-out unit against a reference of the packed bytes written here
//! from the spec (resolve rules of `rtl/tile/resolve.rs`' table, the image layout of
//! `tile_writeout`'s docs), with the tile buffer's write-out port played by the testbench
//! (random answer gaps, random stalls on `wo_req`) and the memory agent (random latency and
//! back-pressure). Static and dynamic suppression; the suppressed planes' regions are never
//! written. The static modes at 4× (every sample — the frame model's multisampled surface
//! layout —, a fixed sample, the mean).
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_hdl::Bits;
use rendergen_rtl::tile::top::tile_writeout_top;
use rendergen_rtl::tile::writeout::{WoFlags, WoStart};
use rendergen_rtl::tile::{RtFormat, TileCfg};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

/// The screen: 4 × 2 tiles.
const TILES: (u32, u32) = (4, 2);
const POISON: u8 = 0xEE;

/// Bytes per pixel of plane `p` in memory.
fn bpp(cfg: &TileCfg, p: usize) -> usize {
    match cfg.formats.get(p) {
        Some(RtFormat::Rgba16f) => 8,
        _ => 4,
    }
}

/// Bits stored per sample of plane `p`.
fn sample_mask(cfg: &TileCfg, p: usize) -> u64 {
    match cfg.plane_width(p) {
        64 => u64::MAX,
        w => (1 << w) - 1,
    }
}

/// The reference binary16 of `x` (round to nearest even), computed through f64 scaling.
pub fn f16_of_f64(x: f64) -> u16 {
    let sign = if x.is_sign_negative() && x != 0.0 {
        0x8000
    } else {
        0
    };
    let a = x.abs();
    if a == 0.0 {
        return 0;
    }
    if a < 2f64.powi(-14) {
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let mut e = a.log2().floor() as i32;
    // log2 may be off by one near powers of two.
    if 2f64.powi(e) > a {
        e -= 1;
    }
    if 2f64.powi(e + 1) <= a {
        e += 1;
    }
    let mut q = (a / 2f64.powi(e) * 1024.0).round_ties_even() as u32;
    if q == 2048 {
        q = 1024;
        e += 1;
    }
    if e > 15 {
        return sign | 0x7C00;
    }
    sign | (((e + 15) as u16) << 10) | (q - 1024) as u16
}

/// The value of binary16 `h` (None for NaN).
fn f16_value(h: u16) -> Option<f64> {
    let (s, e, f) = (h >> 15, (h >> 10) & 31, h & 1023);
    let mag = match e {
        31 if f != 0 => return None,
        31 => f64::INFINITY,
        0 => f as f64 * 2f64.powi(-24),
        _ => (1024 + f) as f64 * 2f64.powi(e as i32 - 25),
    };
    Some(if s == 1 { -mag } else { mag })
}

/// The reference mean of four binary16 values (the spec's rule).
pub fn f16_mean_ref(h: [u16; 4]) -> u16 {
    let v: Vec<Option<f64>> = h.iter().map(|&x| f16_value(x)).collect();
    if v.iter().any(|x| x.is_none()) {
        return 0x7E00;
    }
    let v: Vec<f64> = v.into_iter().flatten().collect();
    let (pinf, ninf) = (v.contains(&f64::INFINITY), v.contains(&f64::NEG_INFINITY));
    match (pinf, ninf) {
        (true, true) => 0x7E00,
        (true, false) => 0x7C00,
        (false, true) => 0xFC00,
        // The sum of four binary16 values is exact in f64, and so is the division by 4.
        _ => f16_of_f64((v[0] + v[1] + v[2] + v[3]) / 4.0),
    }
}

fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn canon(x: f32) -> u32 {
    if x.is_nan() {
        0x7FC0_0000
    } else {
        ftz(x).to_bits()
    }
}

/// The reference binary32 mean: `((s0 + s1) + (s2 + s3)) · 0.25` on the host's f32 with the
/// shader core's flushing and canonical NaN.
pub fn f32_mean_ref(s: [u32; 4]) -> u32 {
    let f = |b: u32| ftz(f32::from_bits(b));
    let add = |a: f32, b: f32| f32::from_bits(canon(ftz(a) + ftz(b)));
    let sum = add(add(f(s[0]), f(s[1])), add(f(s[2]), f(s[3])));
    canon(sum * 0.25)
}

/// The resolved value of one pixel as the spec defines it (bits as written to memory).
fn resolve_ref(cfg: &TileCfg, p: usize, samples: &[u64], select: Option<usize>) -> u64 {
    if cfg.samples == 1 {
        return samples[0];
    }
    if let Some(s) = select {
        return samples[s];
    }
    let unorm = |lo: u32, w: u32| -> u64 {
        let sum: u64 = samples.iter().map(|v| v >> lo & ((1 << w) - 1)).sum();
        (sum + 2) >> 2
    };
    let f16s = |n: u32| -> u64 {
        (0..n)
            .map(|c| {
                let h = std::array::from_fn(|k| (samples[k] >> (16 * c)) as u16);
                (f16_mean_ref(h) as u64) << (16 * c)
            })
            .sum()
    };
    match cfg.formats.get(p) {
        Some(RtFormat::Rgba8) => (0..4).map(|c| unorm(8 * c, 8) << (8 * c)).sum(),
        Some(RtFormat::Rgba16f) => f16s(4),
        Some(RtFormat::Rg16f) => f16s(2),
        Some(RtFormat::R32f) => f32_mean_ref(std::array::from_fn(|k| samples[k] as u32)) as u64,
        None => unorm(0, 24),
    }
}

/// A random sample value for plane `p`: random bits, or for float formats often a special
/// value (zeros, infinities, NaNs, subnormals, values close to each other).
fn random_sample(rng: &mut Rng, cfg: &TileCfg, p: usize) -> u64 {
    let special16 = [
        0x0000u64, 0x8000, 0x7C00, 0xFC00, 0x7E01, 0x0001, 0x03FF, 0x7BFF, 0xFBFF, 0x3C00,
    ];
    let special32 = [
        0u64,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC1_0000,
        0x0000_0001,
        0x0080_0000,
        0x0100_0000,
        0x017F_FFFF,
        0x7F7F_FFFF,
        0x3F80_0000,
    ];
    let v = match cfg.formats.get(p) {
        Some(RtFormat::Rgba16f | RtFormat::Rg16f) => (0..4)
            .map(|c| {
                let h = match rng.below(4) {
                    0 => special16[rng.below(special16.len() as u64) as usize],
                    1 => 0x3C00 + rng.below(64), // near 1.0: sums that round
                    _ => rng.below(0x10000),
                };
                h << (16 * c)
            })
            .sum(),
        Some(RtFormat::R32f) => match rng.below(4) {
            0 => special32[rng.below(special32.len() as u64) as usize],
            1 => 0x3F80_0000 + rng.below(1 << 10),
            _ => rng.below(1 << 32),
        },
        _ => rng.next_u64(),
    };
    v & sample_mask(cfg, p)
}

/// One tile's write-out: position and dynamic flags.
#[derive(Clone, Debug)]
pub struct TileJob {
    /// Tile column and row.
    pub tile: (u32, u32),
    /// Dynamic enable per plane.
    pub enable: u64,
    /// The tile's own resolve of each plane where it set one (`set`): a sample, or `None`
    /// for the mean.
    pub select: Vec<Option<usize>>,
    /// Planes whose resolve the tile set (bit `p`, `WoFlags::set`); the others keep their
    /// static choice.
    pub set: u64,
}

/// The static write-out configuration (`WoConfig`'s modes).
#[derive(Clone, Debug)]
pub struct Statics {
    /// Static enable per plane.
    pub enable: u64,
    /// Planes storing every sample (4 samples only).
    pub all: u64,
    /// Static sample select per plane (else the mean), where the tile did not set its own.
    pub select: Vec<Option<usize>>,
    /// Screen width and height in pixels (`config_width`, `config_height`): tiles at the
    /// right and bottom edges may be partial, tiles beyond them are not written at all.
    pub screen: (u32, u32),
    /// Bytes of padding at the end of each image row (0: rows of exactly `width` pixels).
    pub pad: usize,
}

/// The whole `TILES` grid on screen.
const FULL: (u32, u32) = (TILES.0 * 16, TILES.1 * 16);

impl Statics {
    /// Only enables: every other plane averaged; the whole grid on screen, rows padded by
    /// 128 bytes.
    pub fn enables(cfg: &TileCfg, enable: u64) -> Statics {
        Statics {
            enable,
            all: 0,
            select: vec![None; cfg.planes()],
            screen: FULL,
            pad: 128,
        }
    }

    /// Whether plane `p` stores every sample.
    fn every(&self, cfg: &TileCfg, p: usize) -> bool {
        cfg.samples == 4 && self.all >> p & 1 != 0
    }

    /// Bytes from one image row to the next (`width` pixels and the padding).
    fn pitch(&self, cfg: &TileCfg, p: usize) -> usize {
        let per_pixel = bpp(cfg, p) * if self.every(cfg, p) { 4 } else { 1 };
        self.screen.0 as usize * per_pixel + self.pad
    }
}

/// What a run saw.
pub struct WoRun {
    /// Cycles from reset until the last tile was taken.
    pub cycles: u64,
    /// Bytes written per plane (the design's counters).
    pub bytes: Vec<u64>,
}

/// Runs `jobs` through `tile_writeout` with static modes `statics`; checks the memory image
/// byte for byte (poison where nothing was written), the counters, and that planes never
/// enabled left their regions untouched. With `cosim`, replays the start in iverilog and
/// Verilator.
pub fn run(
    cfg: &TileCfg,
    seed: u64,
    statics: &Statics,
    jobs: &[TileJob],
    (gap, stall): (f64, f64),
    cosim: bool,
) -> WoRun {
    let design = tile_writeout_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_writeout", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, cfg, seed, statics, jobs, (gap, stall));
    let run = tb.check(&mut sim, r);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    run
}

fn drive(
    sim: &mut Simulator,
    cfg: &TileCfg,
    seed: u64,
    statics: &Statics,
    jobs: &[TileJob],
    (gap, stall): (f64, f64),
) -> Result<WoRun, TbError> {
    let static_enable = statics.enable;
    let mut rng = Rng::new(seed);
    let planes = cfg.planes();
    let (width, height) = (statics.screen.0 as usize, statics.screen.1 as usize);
    // Plane p's image at (p + 1) · 128 KiB, rows padded by `statics.pad` bytes.
    let base: Vec<usize> = (0..planes).map(|p| 0x2_0000 * (p + 1)).collect();
    let pitch: Vec<usize> = (0..planes).map(|p| statics.pitch(cfg, p)).collect();
    let mem_cfg = MemCfg {
        size: 0x2_0000 * (planes + 2),
        min_latency: 1,
        max_latency: 20,
        stall,
        gap,
        poison: POISON,
        max_outstanding: 4,
        seed: rng.next_u64(),
    };
    let mut mem = MemoryAgent::new(sim, "mem", mem_cfg)?;
    // Each plane's region is exactly its image: a byte written past it is a stray write.
    for (p, b) in base.iter().enumerate() {
        mem.region(&format!("plane{p}"), *b as u64, (pitch[p] * height) as u64);
    }
    // Configuration registers.
    sim.poke(sim.input("config_width")?, statics.screen.0.into());
    sim.poke(sim.input("config_height")?, statics.screen.1.into());
    let en = sim.input("config_enable")?;
    sim.poke(en, static_enable);
    let all = sim.input("config_all")?;
    sim.poke(all, statics.all);
    let select = sim.input("config_select")?;
    let select_bits = (0..planes).map(|p| (statics.select[p].is_some() as u64) << p);
    sim.poke(select, select_bits.sum());
    for p in 0..planes {
        let s = sim.input(&format!("config_sample_{p}"))?;
        sim.poke(s, statics.select[p].unwrap_or(0) as u64);
        let b = sim.input(&format!("config_base_{p}"))?;
        sim.poke(b, base[p] as u64);
        let pi = sim.input(&format!("config_pitch_{p}"))?;
        sim.poke(pi, pitch[p] as u64);
    }
    let bytes_ports: Vec<_> = (0..planes)
        .map(|p| sim.output(&format!("bytes_{p}")))
        .collect::<Result<_, _>>()?;
    let mut start = StreamSource::new(sim, "start", rng.next_u64())?.gap_prob(gap);
    let mut wo_resp = StreamSource::new(sim, "wo_resp", rng.next_u64())?.gap_prob(gap);
    let mut wo_req = StreamSink::new(sim, "wo_req", rng.next_u64())?.stall_prob(stall);
    // Tile contents and the reference image.
    let mut image: Vec<Vec<u8>> = (0..planes)
        .map(|p| vec![POISON; pitch[p] * height])
        .collect();
    let mut contents = Vec::new();
    let mut expected_bytes = vec![0u64; planes];
    for job in jobs {
        let tile: Vec<Vec<Vec<u64>>> = (0..planes)
            .map(|p| {
                (0..256)
                    .map(|_| {
                        (0..cfg.samples)
                            .map(|_| random_sample(&mut rng, cfg, p))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        for p in 0..planes {
            if (static_enable & job.enable) >> p & 1 == 0 {
                continue;
            }
            let n = bpp(cfg, p);
            for (pix, samples) in tile[p].iter().enumerate() {
                let x = job.tile.0 as usize * 16 + pix % 16;
                let y = job.tile.1 as usize * 16 + pix / 16;
                if x >= width || y >= height {
                    continue;
                }
                // Every sample: the model's `((y·W + x)·S + s)·bytes` (rows padded here).
                let values = match statics.every(cfg, p) {
                    true => samples.clone(),
                    false => {
                        let select = match job.set >> p & 1 {
                            1 => job.select[p],
                            _ => statics.select[p],
                        };
                        vec![resolve_ref(cfg, p, samples, select)]
                    }
                };
                for (s, v) in values.iter().enumerate() {
                    let at = y * pitch[p] + (x * values.len() + s) * n;
                    image[p][at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
                    expected_bytes[p] += n as u64;
                }
            }
        }
        let flags = WoFlags {
            enable: job.enable,
            set: (0..planes).map(|p| (job.set >> p & 1) << p).sum(),
            select: (0..planes)
                .map(|p| (job.select[p].is_some() as u64) << p)
                .sum(),
            sample: (0..planes)
                .map(|p| job.select[p].unwrap_or(0) as u64)
                .collect(),
        };
        let s = WoStart {
            tile_x: job.tile.0 as u64,
            tile_y: job.tile.1 as u64,
            flags,
        };
        start.send(&flatten(&s, &WoStart::shape(cfg)))?;
        contents.push(tile);
    }
    sim.reset(1);
    let begin = sim.cycle();
    let dog = Watchdog::new(16_000 * jobs.len() as u64 + 1000, seed);
    let mut job = 0usize;
    dog.run_until(sim, "every tile written out", |sim| {
        start.drive(sim);
        wo_resp.drive(sim);
        wo_req.drive(sim);
        mem.drive(sim);
        start.sample(sim);
        wo_resp.sample(sim);
        wo_req.sample(sim);
        mem.sample(sim);
        wo_req.protocol_result()?;
        for item in wo_req.take_items() {
            // A read of the tile being written out (the one `start` offers).
            let (plane, px, py) = (item[0].to_u64(), item[1].to_u64(), item[2].to_u64());
            let j = start.sent() as usize;
            let tile = contents
                .get(j)
                .ok_or_else(|| TbError::new("a read after every tile"))?;
            let samples = tile
                .get(plane as usize)
                .ok_or_else(|| TbError::new(format!("read of plane {plane}")))?
                .get((py * 16 + px) as usize)
                .ok_or_else(|| TbError::new("bad pixel"))?;
            let bits = samples.iter().map(|&v| Bits::from_u64(v, 64)).collect();
            wo_resp.send_bits(bits)?;
        }
        job = start.sent() as usize;
        Ok(job == jobs.len())
    })?;
    let cycles = sim.cycle() - begin;
    if !wo_resp.is_idle() || mem.outstanding() != 0 {
        return Err(TbError::new("a tile was taken with work left"));
    }
    mem.check()?;
    mem.assert_no_stray_writes()?;
    for p in 0..planes {
        let got = mem.bytes(base[p] as u64, image[p].len());
        if let Some(at) = (0..got.len()).find(|&a| got[a] != image[p][a]) {
            let (y, x) = (at / pitch[p], (at % pitch[p]) / bpp(cfg, p));
            return Err(TbError::new(format!(
                "plane {p}: byte {at} (pixel ({x}, {y})) is {:#04x}, expected {:#04x}; seed {seed:#x}",
                got[at], image[p][at]
            )));
        }
        let r = mem.region_named(&format!("plane{p}"))?;
        if r.written_bytes != expected_bytes[p] {
            return Err(TbError::new(format!(
                "plane {p}: {} bytes written, expected {}",
                r.written_bytes, expected_bytes[p]
            )));
        }
        let counter = sim.peek(bytes_ports[p]);
        if counter != expected_bytes[p] {
            return Err(TbError::new(format!(
                "plane {p}: counter says {counter} bytes, expected {}",
                expected_bytes[p]
            )));
        }
        if jobs
            .iter()
            .all(|j| (static_enable & j.enable) >> p & 1 == 0)
        {
            mem.assert_not_written(&format!("plane{p}"))?;
        }
    }
    Ok(WoRun {
        cycles,
        bytes: expected_bytes,
    })
}

/// `n` tiles in screen order with random dynamic flags: a plane's resolve set by the tile in
/// about half of them (a chosen sample, or the mean over a static sample choice).
fn random_jobs(rng: &mut Rng, cfg: &TileCfg, n: usize) -> Vec<TileJob> {
    (0..n)
        .map(|k| {
            let select: Vec<Option<usize>> = (0..cfg.planes())
                .map(|_| {
                    rng.chance(0.4)
                        .then(|| rng.below(cfg.samples as u64) as usize)
                })
                .collect();
            let set = (0..cfg.planes())
                .map(|p| ((select[p].is_some() || rng.chance(0.2)) as u64) << p)
                .sum();
            TileJob {
                tile: (k as u32 % TILES.0, k as u32 / TILES.0 % TILES.1),
                enable: rng.below(1 << cfg.planes()) | 1,
                select,
                set,
            }
        })
        .collect()
}

#[test]
fn f16_reference_rounds_to_nearest_even() {
    assert_eq!(f16_of_f64(1.0), 0x3C00);
    assert_eq!(f16_of_f64(1.0 + 2f64.powi(-11)), 0x3C00); // tie to even
    assert_eq!(f16_of_f64(1.0 + 3.0 * 2f64.powi(-11)), 0x3C02);
    assert_eq!(f16_of_f64(2f64.powi(-24)), 0x0001);
    assert_eq!(f16_of_f64(2f64.powi(-25)), 0x0000); // tie to even (zero)
    assert_eq!(f16_of_f64(65504.0), 0x7BFF);
    assert_eq!(f16_of_f64(-2.0), 0xC000);
    assert_eq!(f16_mean_ref([0x3C00, 0x3C00, 0x3C00, 0x3C01]), 0x3C00);
    assert_eq!(f16_mean_ref([0x3C00, 0x3C01, 0x3C01, 0x3C01]), 0x3C01);
    assert_eq!(f16_mean_ref([0x7C00, 0x0000, 0x0000, 0xFC00]), 0x7E00);
    assert_eq!(f32_mean_ref([0x3F80_0000; 4]), 0x3F80_0000);
    // e = 2 with an all-ones fraction: a quarter rounds (ties to even) up to the least normal.
    assert_eq!(f32_mean_ref([0x017F_FFFF, 0, 0, 0]), 0x0080_0000);
    assert_eq!(f32_mean_ref([0x017F_FFFE, 0, 0, 0]), 0x0000_0000);
}

/// Default configuration (4× MSAA; RGBA8, RGBA16F, R32F, RG16F, depth): every resolve, static
/// and dynamic suppression, random back-pressure everywhere.
#[test]
fn writeout_matches_reference_default_config() {
    let mut rng = Rng::from_env_or(0x3071);
    let cfg = TileCfg::default();
    let jobs = random_jobs(&mut rng, &cfg, 6);
    // Plane 2 (R32F) statically suppressed.
    let seed = rng.next_u64();
    run(
        &cfg,
        seed,
        &Statics::enables(&cfg, 0b11011),
        &jobs,
        (0.3, 0.3),
        false,
    );
}

/// Only the output target written (A6): the G-buffer planes and depth suppressed dynamically
/// in every tile are never written; bytes = 16·16·bpp per tile.
#[test]
fn suppressed_planes_are_never_written() {
    let mut rng = Rng::from_env_or(0x5e9);
    let cfg = TileCfg::default();
    let jobs: Vec<TileJob> = (0..3)
        .map(|k| TileJob {
            tile: (k, 1),
            enable: 0b00001,
            select: vec![None; 5],
            set: 0,
        })
        .collect();
    let r = run(
        &cfg,
        rng.next_u64(),
        &Statics::enables(&cfg, 0b11111),
        &jobs,
        (0.2, 0.4),
        false,
    );
    assert_eq!(r.bytes, vec![3 * 256 * 4, 0, 0, 0, 0]);
    assert!(r.cycles >= 3 * 128, "{} cycles", r.cycles);
}

/// Everything suppressed: tiles are taken without any memory access.
#[test]
fn all_suppressed_tile_writes_nothing() {
    let mut rng = Rng::from_env_or(0xa11);
    let cfg = super::small_cfg();
    let jobs = random_jobs(&mut rng, &cfg, 4);
    let r = run(
        &cfg,
        rng.next_u64(),
        &Statics::enables(&cfg, 0),
        &jobs,
        (0.2, 0.2),
        false,
    );
    assert_eq!(r.bytes, vec![0; 3]);
}

/// The small configuration (1 sample; RGBA8, R32F): co-simulated in iverilog and Verilator.
#[test]
fn writeout_small_config_cosimulates() {
    let mut rng = Rng::from_env_or(0xc051);
    let cfg = super::small_cfg();
    let jobs = random_jobs(&mut rng, &cfg, 2);
    run(
        &cfg,
        rng.next_u64(),
        &Statics::enables(&cfg, 0b111),
        &jobs,
        (0.2, 0.2),
        true,
    );
}

/// 4× MSAA with only the 16-bit float formats and RGBA8 (no binary32 stages), co-simulated.
#[test]
fn writeout_msaa_cosimulates() {
    let mut rng = Rng::from_env_or(0xc4a5);
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8, RtFormat::Rg16f],
    };
    let jobs = random_jobs(&mut rng, &cfg, 1);
    run(
        &cfg,
        rng.next_u64(),
        &Statics::enables(&cfg, 0b111),
        &jobs,
        (0.2, 0.2),
        true,
    );
}

/// The static modes at 4× MSAA (the frame model's `WriteMode`): RGBA8 and RGBA16F storing
/// every sample (multisampled surfaces in the model's layout, 128-byte bursts), R32F sample 2
/// statically (a tile's own choice wins), RG16F off, depth every sample; random dynamic
/// flags and back-pressure everywhere. The statically suppressed plane is never written.
#[test]
fn writeout_static_modes_at_4x() {
    let mut rng = Rng::from_env_or(0x5a4);
    let cfg = TileCfg::default();
    let jobs = random_jobs(&mut rng, &cfg, 4);
    let statics = Statics {
        enable: 0b10111,
        all: 0b10011,
        select: vec![None, None, Some(2), Some(1), None],
        ..Statics::enables(&cfg, 0)
    };
    let r = run(&cfg, rng.next_u64(), &statics, &jobs, (0.3, 0.3), false);
    assert_eq!(r.bytes[3], 0, "RG16F is statically off");
    let on = |p: usize| jobs.iter().filter(|j| j.enable >> p & 1 != 0).count() as u64;
    // Every sample: 256 pixels × 4 samples × bpp per tile it is on in.
    assert_eq!(r.bytes[0], on(0) * 256 * 4 * 4);
    assert_eq!(r.bytes[1], on(1) * 256 * 4 * 8);
    assert_eq!(r.bytes[2], on(2) * 256 * 4);
    assert_eq!(r.bytes[4], on(4) * 256 * 4 * 4);
}

/// Every sample stored, with no tile shader choice: each tile takes at least its 1,024 reads
/// of the plane (one sample per clock), and the beats are exactly the samples' bytes.
#[test]
fn writeout_every_sample_counts_bytes() {
    let mut rng = Rng::from_env_or(0xa77);
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8],
    };
    let jobs: Vec<TileJob> = (0..2)
        .map(|k| TileJob {
            tile: (k + 1, 0),
            enable: 0b11,
            select: vec![None; 2],
            set: 0,
        })
        .collect();
    let statics = Statics {
        enable: 0b01,
        all: 0b01,
        select: vec![None; 2],
        ..Statics::enables(&cfg, 0)
    };
    let r = run(&cfg, rng.next_u64(), &statics, &jobs, (0.0, 0.0), false);
    assert_eq!(r.bytes, vec![2 * 256 * 16, 0]);
    assert!(r.cycles >= 2 * 1024, "{} cycles", r.cycles);
}

/// Every sample, a static sample choice and the mean side by side at 4×, co-simulated in
/// iverilog and Verilator.
#[test]
fn writeout_static_modes_cosimulate() {
    let mut rng = Rng::from_env_or(0xc5a);
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8, RtFormat::Rg16f, RtFormat::Rgba8],
    };
    let jobs = random_jobs(&mut rng, &cfg, 1);
    let statics = Statics {
        enable: 0b1111,
        all: 0b1001,
        select: vec![None, Some(3), None, None],
        ..Statics::enables(&cfg, 0)
    };
    run(&cfg, rng.next_u64(), &statics, &jobs, (0.2, 0.2), true);
}

/// Screens that are not whole tiles, with rows of exactly `width` pixels: 37×21 at 4× (every
/// format; planes storing every sample, a static sample choice, the mean; tiles (3, _) wholly
/// off screen) and 23×9 at 1× co-simulated. Only the visible pixels are written — each
/// plane's region is exactly its image, so a byte past a row's end or the last row is a
/// stray write — and rows starting in the middle of a beat (odd pixel addresses), bursts
/// split at 128-byte boundaries and the strobed byte counts all hold.
#[test]
fn partial_tiles_write_only_the_screen() {
    let mut rng = Rng::from_env_or(0x9a27);
    let cfg = TileCfg::default();
    let jobs = random_jobs(&mut rng, &cfg, 8);
    let statics = Statics {
        enable: 0b11111,
        all: 0b10010,
        select: vec![Some(1), None, Some(3), None, None],
        screen: (37, 21),
        pad: 0,
    };
    let r = run(&cfg, rng.next_u64(), &statics, &jobs, (0.3, 0.3), false);
    assert!(r.bytes.iter().all(|&b| b > 0), "{:?}", r.bytes);
    let small = super::small_cfg();
    let jobs = random_jobs(&mut rng, &small, 8);
    let statics = Statics {
        screen: (23, 9),
        pad: 0,
        ..Statics::enables(&small, 0b111)
    };
    let r = run(&small, rng.next_u64(), &statics, &jobs, (0.2, 0.2), true);
    // RGBA8 plane 0: its 23×9 pixels over the tiles (0, 0) and (1, 0) of the jobs.
    let on = |t: (u32, u32)| jobs.iter().any(|j| j.tile == t && j.enable & 1 != 0);
    let want = (on((0, 0)) as u64 * 16 + on((1, 0)) as u64 * 7) * 9 * 4;
    assert_eq!(r.bytes[0], want);
}

#[test]
fn writeout_lint_clean() {
    let design = tile_writeout_top(&super::small_cfg()).unwrap_or_else(|e| panic!("{e}"));
    assert_lint_clean(&design);
}

/// Yosys area of `tile_writeout` (default configuration: 4 samples; RGBA8, RGBA16F, R32F,
/// RG16F and depth), the cost figure of `rtl/tile/README.md`; `rendergen synth tile_writeout`
/// runs the same flow.
/// `cargo test -p rendergen-testbenches --test testbenches tile::writeout::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_writeout_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = tile_writeout_top(&TileCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}

/// The frame model's resolve (`sim/models/tile/pack.rs`, `average`) and this testbench's
/// reference of the write-out's rule agree on every format, special values included: the
/// model that the engine tests compare whole frames against averages as the RTL does.
#[test]
fn the_frame_models_average_is_the_write_outs_rule() {
    use rendergen_sim::models::tile::buffer::Format;
    use rendergen_sim::models::tile::pack::average;
    let cfg = TileCfg {
        samples: 4,
        formats: vec![
            RtFormat::Rgba8,
            RtFormat::Rgba16f,
            RtFormat::R32f,
            RtFormat::Rg16f,
        ],
    };
    let model_format = |p: usize| match cfg.formats.get(p) {
        Some(RtFormat::Rgba8) => Some(Format::Rgba8),
        Some(RtFormat::Rgba16f) => Some(Format::Rgba16f),
        Some(RtFormat::R32f) => Some(Format::R32f),
        Some(RtFormat::Rg16f) => Some(Format::Rg16f),
        None => None,
    };
    let mut rng = Rng::from_env_or(0xA7E);
    for i in 0..20_000 {
        let p = i % (cfg.formats.len() + 1);
        let samples: Vec<u64> = (0..4).map(|_| random_sample(&mut rng, &cfg, p)).collect();
        let want = resolve_ref(&cfg, p, &samples, None);
        let got = average(model_format(p), &samples);
        assert_eq!(
            got,
            want,
            "plane {p} ({:?}) samples {samples:x?}: model {got:#x}, write-out rule {want:#x}",
            cfg.formats.get(p)
        );
    }
}
