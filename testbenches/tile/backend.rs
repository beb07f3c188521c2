//! `tile_backend` end to end on several tiles: command lists in the memory agent, the
//! testbench as fragment shader (RGBA8 colour from position and primitive, one pixel write
//! per quad, `quad_retired` after it was taken) and as tile shader (reads every pixel of RT0
//! through `ts_req`, writes RT1 = a function of it, sets the dynamic write-out flags), random
//! back-pressure on every stream and the memory. The reference is computed here from the
//! golden models (`sim/models/tile`: set-up, rasterisation, depth test, tile buffer) and the
//! spec's write-out layout; the memory image is compared byte for byte (poison where nothing
//! may be written), with the per-region byte counts.
use super::buffer::assert_lint_clean;
use super::cmd::load_list;
use super::{flatten, random_triangle};
use rendergen_rtl::tile::cmd::TsLaunch;
use rendergen_rtl::tile::top::tile_backend_top;
use rendergen_rtl::tile::writeout::WoFlags;
use rendergen_rtl::tile::{BlendBits, PixelReq, RtFormat, TileCfg, TsReq};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::buffer::{BlendState, Format, TileBuffer};
use rendergen_sim::models::tile::command::Command;
use rendergen_sim::models::tile::raster::rasterise;
use rendergen_sim::models::tile::setup::{setup, RasterState};
use rendergen_sim::models::tile::DEPTH_MAX;
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;
use std::collections::VecDeque;

/// 1 sample; RT0 RGBA8 (the G-buffer), RT1 R32F (the output), D24.
fn cfg() -> TileCfg {
    TileCfg {
        samples: 1,
        formats: vec![RtFormat::Rgba8, RtFormat::R32f],
    }
}

const TILES: (u32, u32) = (2, 2);
const WIDTH: usize = 16 * TILES.0 as usize;
const PITCH: usize = WIDTH * 4;
const LISTS: u64 = 0x1_0000;
const POISON: u8 = 0xC7;

/// Plane `p`'s image.
fn base(p: usize) -> u64 {
    0x2_0000 + 0x1_0000 * p as u64
}

/// The fragment shader's colour of pixel (x, y) of primitive `prim` (RGBA8).
fn colour(x: u32, y: u32, prim: u32) -> u64 {
    let r = (x * 7 + prim) & 0xFF;
    let g = (y * 13) & 0xFF;
    let b = (prim * 29) & 0xFF;
    (r | g << 8 | b << 16 | 0xFF << 24) as u64
}

/// The tile shader's output of pixel (x, y) from RT0's value `v` (binary32 bits).
fn lit(v: u64, x: u32, y: u32) -> u64 {
    ((v & 0xFF) as f32 * 0.25 + (v >> 8 & 0xFF) as f32 + x as f32 * 0.5 - y as f32).to_bits() as u64
}

/// The tile shader's write-out choice for tile `k`: only the output RT1 (A6), or RT0 and RT1
/// on odd tiles.
fn flags_of(k: usize) -> WoFlags<u64> {
    WoFlags {
        enable: if k.is_multiple_of(2) { 0b010 } else { 0b011 },
        set: 0,
        select: 0,
        sample: vec![0; 3],
    }
}

fn no_blend() -> BlendBits<u64> {
    BlendBits {
        enable: 0,
        colour_op: 0,
        src_colour: 0,
        dst_colour: 0,
        alpha_op: 0,
        src_alpha: 0,
        dst_alpha: 0,
    }
}

/// What a run measured.
pub struct BackendRun {
    /// Cycles until every tile was written out.
    pub cycles: u64,
    /// Bytes read from the command lists, written per plane.
    pub traffic: (u64, Vec<u64>),
}

/// Runs `TILES` tiles with `draws` triangles before and `overlay` after each RESOLVE
/// (`resolves` per tile); static enable `static_enable`.
pub fn run(
    seed: u64,
    (draws, overlay, resolves): (usize, usize, usize),
    static_enable: u64,
    (gap, stall): (f64, f64),
    cosim: bool,
) -> BackendRun {
    let cfg = cfg();
    let design = tile_backend_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_backend", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(
        &mut sim,
        &cfg,
        seed,
        (draws, overlay, resolves),
        static_enable,
        (gap, stall),
    );
    let run = tb.check(&mut sim, r);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    run
}

/// The expected tile-shader reads of one launch (RT0 of every pixel, in order).
struct Launch {
    reads: Vec<u64>,
}

fn drive(
    sim: &mut Simulator,
    cfg: &TileCfg,
    seed: u64,
    (draws, overlay, resolves): (usize, usize, usize),
    static_enable: u64,
    (gap, stall): (f64, f64),
) -> Result<BackendRun, TbError> {
    let mut rng = Rng::new(seed);
    let planes = cfg.planes();
    let mut mem = MemoryAgent::new(
        sim,
        "mem",
        MemCfg {
            size: 0x6_0000,
            min_latency: 1,
            max_latency: 16,
            stall,
            gap,
            poison: POISON,
            max_outstanding: 4,
            seed: rng.next_u64(),
        },
    )?;
    mem.region("lists", LISTS, 0x1_0000);
    for p in 0..planes {
        mem.region(&format!("plane{p}"), base(p), 0x1_0000);
    }
    sim.poke(sim.input("config_enable")?, static_enable);
    sim.poke(sim.input("config_width")?, WIDTH as u64);
    sim.poke(sim.input("config_height")?, 16 * TILES.1 as u64);
    for p in 0..planes {
        sim.poke(sim.input(&format!("config_base_{p}"))?, base(p));
        sim.poke(sim.input(&format!("config_pitch_{p}"))?, PITCH as u64);
    }
    let mut list_src = StreamSource::new(sim, "list", rng.next_u64())?.gap_prob(gap);
    let mut pixel = StreamSource::new(sim, "pixel", rng.next_u64())?.gap_prob(gap);
    let mut ts_req = StreamSource::new(sim, "ts_req", rng.next_u64())?.gap_prob(gap);
    let mut ts_done = StreamSource::new(sim, "ts_done", rng.next_u64())?.gap_prob(gap);
    let mut quad = StreamSink::new(sim, "quad", rng.next_u64())?.stall_prob(stall);
    let mut ts_resp = StreamSink::new(sim, "ts_resp", rng.next_u64())?.stall_prob(stall);
    let mut ts_launch = StreamSink::new(sim, "ts_launch", rng.next_u64())?.stall_prob(stall);
    let retired = sim.input("quad_retired")?;
    let outstanding = sim.output("outstanding")?;

    // The lists and the reference.
    let formats = [Format::Rgba8, Format::R32f];
    let mut image: Vec<Vec<u8>> = vec![vec![POISON; PITCH * 16 * TILES.1 as usize]; planes];
    let mut expected_bytes = vec![0u64; planes];
    let mut launches_expected = InOrder::new();
    let mut launches: VecDeque<Launch> = VecDeque::new();
    let mut addr = LISTS;
    let mut list_words = 0u64;
    let tiles = (TILES.0 * TILES.1) as usize;
    for k in 0..tiles {
        let tile = (k as u32 % TILES.0, k as u32 / TILES.0);
        let mut model = TileBuffer::new(cfg.samples, &formats);
        let clear = vec![0x8040_2010, 0, DEPTH_MAX as u64];
        model.tile_begin(tile, 0b111, &clear);
        let mut list = vec![Command::TileBegin {
            x: tile.0,
            y: tile.1,
            clear_mask: 0b111,
            clears: clear,
        }];
        let mut prim = 0u32;
        let mut draw =
            |list: &mut Vec<Command>, model: &mut TileBuffer, rng: &mut Rng, n: usize| {
                let mut done = 0;
                while done < n {
                    let v = random_triangle(rng, tile);
                    let Ok(t) = setup(&v, tile, &RasterState::default(), prim) else {
                        continue;
                    };
                    prim += 1;
                    done += 1;
                    for q in rasterise(&t, cfg.samples) {
                        let pass = model.depth_test(&q, t.depth_op, t.depth_write);
                        if pass != 0 {
                            let c = std::array::from_fn(|i| {
                                let x = tile.0 * 16 + 2 * q.qx + (i as u32 & 1);
                                let y = tile.1 * 16 + 2 * q.qy + (i as u32 >> 1);
                                colour(x, y, t.prim)
                            });
                            model.write_quad(0, (q.qx, q.qy), pass, c, &BlendState::default());
                        }
                    }
                    list.push(Command::Draw { state: 0, tri: t });
                }
            };
        draw(&mut list, &mut model, &mut rng, draws);
        let mut flags = WoFlags {
            enable: 0b111,
            set: 0,
            select: 0,
            sample: vec![0; 3],
        };
        for _ in 0..resolves {
            list.push(Command::Resolve {
                xthreads: 16,
                ythreads: 16,
                program: 0x400,
            });
            launches_expected.expect(flatten(
                &TsLaunch {
                    tile_x: tile.0 as u64,
                    tile_y: tile.1 as u64,
                    xthreads: 16,
                    ythreads: 16,
                    program: 0x400,
                },
                &TsLaunch::SHAPE,
            ));
            let mut reads = Vec::new();
            for p in 0..256u32 {
                let (x, y) = (tile.0 * 16 + p % 16, tile.1 * 16 + p / 16);
                let v = model
                    .ts_read(0, x, y, 0)
                    .map_err(|_| TbError::new("model"))?;
                reads.push(v);
                let _ = model.ts_write(1, x, y, 0, lit(v, x, y));
            }
            launches.push_back(Launch { reads });
            flags = flags_of(k);
            draw(&mut list, &mut model, &mut rng, overlay);
        }
        list.push(Command::EndTile);
        let words = load_list(&mut mem, addr, &list).len() as u64;
        list_src.send(&[addr, words])?;
        addr += 8 * words;
        list_words += words;
        for p in 0..planes {
            if (static_enable & flags.enable) >> p & 1 == 0 {
                continue;
            }
            expected_bytes[p] += 256 * 4;
            for pix in 0..256u32 {
                let v = model.read_pixel(p, pix % 16, pix / 16)[0];
                let x = tile.0 as usize * 16 + (pix % 16) as usize;
                let y = tile.1 as usize * 16 + (pix / 16) as usize;
                let at = y * PITCH + x * 4;
                image[p][at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
            }
        }
    }

    sim.reset(1);
    let begin = sim.cycle();
    let mut to_retire = 0u64;
    let mut retire_after = 0u64; // pixel writes taken so far
    let mut launched: Option<(usize, [u32; 2])> = None; // (answers seen, tile origin)
    let mut launch_count = 0usize;
    let dog = Watchdog::new(200_000, seed);
    dog.run_until(sim, "every tile written out", |sim| {
        let r = to_retire > 0 && !rng.chance(0.3);
        if r {
            to_retire -= 1;
        }
        sim.poke(retired, r as u64);
        list_src.drive(sim);
        pixel.drive(sim);
        ts_req.drive(sim);
        ts_done.drive(sim);
        quad.drive(sim);
        ts_resp.drive(sim);
        ts_launch.drive(sim);
        mem.drive(sim);
        list_src.sample(sim);
        pixel.sample(sim);
        ts_req.sample(sim);
        ts_done.sample(sim);
        quad.sample(sim);
        ts_resp.sample(sim);
        ts_launch.sample(sim);
        mem.sample(sim);
        for s in [&quad, &ts_resp, &ts_launch] {
            s.protocol_result()?;
        }
        // Quads retire once their pixel write was taken.
        to_retire += pixel.sent() - retire_after;
        retire_after = pixel.sent();
        let tile_k = list_src.sent() as u32;
        let origin = [tile_k % TILES.0 * 16, tile_k / TILES.0 * 16];
        for q in quad.take_items() {
            let (prim, qx, qy, coverage) = (
                q[0].to_u64() as u32,
                q[1].to_u64() as u32,
                q[2].to_u64() as u32,
                q[3].to_u64(),
            );
            let c = std::array::from_fn(|i| {
                colour(
                    origin[0] + 2 * qx + (i as u32 & 1),
                    origin[1] + 2 * qy + (i as u32 >> 1),
                    prim,
                )
            });
            let req = PixelReq {
                rt: 0,
                addr: (qy * 8 + qx) as u64,
                mask: coverage,
                colour: c,
                blend: no_blend(),
                zop: 0,
                zwrite: 0,
                late: 0,
            };
            pixel.send(&flatten(&req, &PixelReq::shape(cfg)))?;
        }
        for l in ts_launch.take_items() {
            let l: Vec<u64> = l.iter().map(|b| b.to_u64()).collect();
            if sim.peek(outstanding) != 0 || to_retire != 0 || !pixel.is_idle() {
                return Err(TbError::new("a launch before every fragment was committed"));
            }
            launches_expected.observe(l.clone())?;
            let o = [l[0] as u32 * 16, l[1] as u32 * 16];
            for p in 0..256u32 {
                let req = TsReq {
                    write: 0,
                    plane: 0,
                    x: (o[0] + p % 16) as u64,
                    y: (o[1] + p / 16) as u64,
                    sample: 0,
                    data: 0,
                    tag: p as u64 & 0xFF,
                };
                ts_req.send(&flatten(&req, &TsReq::shape(cfg)))?;
            }
            launched = Some((0, o));
        }
        for a in ts_resp.take_items() {
            let (data, error, tag) = (a[0].to_u64(), a[1].to_u64(), a[2].to_u64());
            let Some((seen, o)) = launched.as_mut() else {
                return Err(TbError::new("a tile-shader answer without a launch"));
            };
            if error != 0 {
                return Err(TbError::new(format!("tile-shader access {tag} failed")));
            }
            if *seen < 256 {
                let l = launches
                    .front()
                    .ok_or_else(|| TbError::new("extra launch"))?;
                if data != l.reads[*seen] {
                    return Err(TbError::new(format!(
                        "tile-shader read {seen}: {data:#x}, expected {:#x}; seed {seed:#x}",
                        l.reads[*seen]
                    )));
                }
                let (x, y) = (o[0] + tag as u32 % 16, o[1] + tag as u32 / 16);
                let req = TsReq {
                    write: 1,
                    plane: 1,
                    x: x as u64,
                    y: y as u64,
                    sample: 0,
                    data: lit(data, x, y),
                    tag,
                };
                ts_req.send(&flatten(&req, &TsReq::shape(cfg)))?;
            }
            *seen += 1;
            if *seen == 512 {
                launches.pop_front();
                let k = (o[1] / 16 * TILES.0 + o[0] / 16) as usize;
                ts_done.send(&flatten(&flags_of(k), &WoFlags::shape(cfg)))?;
                launched = None;
                launch_count += 1;
            }
        }
        Ok(list_src.is_idle() && launches.is_empty() && ts_done.is_idle())
    })?;
    launches_expected.check_complete()?;
    mem.check()?;
    let cycles = sim.cycle() - begin;
    for p in 0..planes {
        let got = mem.bytes(base(p), image[p].len());
        if let Some(at) = (0..got.len()).find(|&a| got[a] != image[p][a]) {
            return Err(TbError::new(format!(
                "plane {p}: byte {at} (pixel ({}, {})) is {:#04x}, expected {:#04x}; seed {seed:#x}",
                at % PITCH / 4,
                at / PITCH,
                got[at],
                image[p][at]
            )));
        }
        let r = mem.region_named(&format!("plane{p}"))?;
        if r.written_bytes != expected_bytes[p] {
            return Err(TbError::new(format!(
                "plane {p}: {} bytes written, expected {}",
                r.written_bytes, expected_bytes[p]
            )));
        }
        if expected_bytes[p] == 0 {
            mem.assert_not_written(&format!("plane{p}"))?;
        }
    }
    let lists = mem.region_named("lists")?;
    if lists.read_bytes != 8 * list_words || lists.written_bytes != 0 {
        return Err(TbError::new(format!(
            "command lists: {} bytes read, expected {}",
            lists.read_bytes,
            8 * list_words
        )));
    }
    if launch_count != tiles * resolves {
        return Err(TbError::new("launch count"));
    }
    Ok(BackendRun {
        cycles,
        traffic: (lists.read_bytes, expected_bytes),
    })
}

/// Four tiles: G-buffer draws, RESOLVE, overlay draws (A1 drain, A2 resume), depth statically
/// suppressed, the G-buffer dynamically suppressed on even tiles (A6, A8).
#[test]
fn tiles_end_to_end_with_resolve() {
    let mut rng = Rng::from_env_or(0xbe0d);
    let r = run(rng.next_u64(), (6, 2, 1), 0b011, (0.3, 0.3), false);
    eprintln!(
        "tile_backend: 4 tiles in {} cycles under back-pressure",
        r.cycles
    );
    // RT0 on odd tiles only, RT1 everywhere, depth never.
    assert_eq!(r.traffic.1, vec![2 * 1024, 4 * 1024, 0]);
}

/// Two RESOLVEs in one tile (A10): the second reads RT0 after the overlay draws.
#[test]
fn two_resolves_per_tile() {
    let mut rng = Rng::from_env_or(0x2e5);
    run(rng.next_u64(), (4, 3, 2), 0b111, (0.2, 0.3), false);
}

/// No RESOLVE: everything written out (flags at their defaults) except what is statically
/// suppressed; co-simulated in iverilog and Verilator.
#[test]
fn backend_without_resolve_cosimulates() {
    let mut rng = Rng::from_env_or(0xc0b);
    let r = run(rng.next_u64(), (3, 0, 0), 0b101, (0.1, 0.1), true);
    assert_eq!(r.traffic.1, vec![4 * 1024, 0, 4 * 1024]);
}

#[test]
fn backend_lint_clean() {
    let design = tile_backend_top(&cfg()).unwrap_or_else(|e| panic!("{e}"));
    assert_lint_clean(&design);
}
