//! `tile_raster`: set-up triangles in, quads out, against the model's setup, rasterisation and
//! early depth test; the final depth plane read back through write-out.
use super::{flatten, mesh, port_names, quad_record, random_triangle, small_cfg, tri_record};
use rendergen_hdl::Design;
use rendergen_rtl::tile::top::tile_raster_top;
use rendergen_rtl::tile::{
    BlendBits, PixelReq, QuadFrag, RtFormat, TileBegin, TileCfg, TriSetup, WoReq,
};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::buffer::{Format, TileBuffer};
use rendergen_sim::models::tile::raster::{rasterise, rasterise_visible, visible_lanes};
use rendergen_sim::models::tile::setup::{self as model, setup, CompareOp, RasterState};
use rendergen_sim::models::tile::DEPTH_MAX;
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

/// The model's formats for `cfg`.
pub fn model_formats(cfg: &TileCfg) -> Vec<Format> {
    (cfg.formats.iter())
        .map(|f| match f {
            RtFormat::Rgba8 => Format::Rgba8,
            RtFormat::Rgba16f => Format::Rgba16f,
            RtFormat::R32f => Format::R32f,
            RtFormat::Rg16f => Format::Rg16f,
        })
        .collect()
}

/// What a run measured.
#[derive(Debug)]
pub struct RasterRun {
    /// Cycles from reset until the last quad left.
    pub cycles: u64,
    /// Cycle of the first quad.
    pub first_quad: Option<u64>,
    /// Cycle of the first triangle transfer.
    pub first_tri: Option<u64>,
    /// Quads received.
    pub quads: usize,
    /// Coverage of every received quad: `(qx, qy, coverage)`.
    pub coverage: Vec<(u32, u32, u32)>,
}

/// Runs `tris` (set up for `tile`) through `tile_raster` and checks every quad against the
/// model, then reads the depth plane back through `wo`. With `cosim`, replays the start of the
/// run in iverilog and Verilator.
pub fn run(
    cfg: &TileCfg,
    seed: u64,
    tile: (u32, u32),
    tris: &[model::TriSetup],
    (gap, stall): (f64, f64),
    cosim: bool,
) -> RasterRun {
    run_late(cfg, seed, tile, tris, (gap, stall), cosim, 0)
}

/// [`run`] with the late-depth flags `late` (bit `s`: draw state `s`, the `late_depth`
/// input): quads of those states pass the early test untested and leave the depth plane
/// alone (the frame model's `run_pass`), and carry `late`.
pub fn run_late(
    cfg: &TileCfg,
    seed: u64,
    tile: (u32, u32),
    tris: &[model::TriSetup],
    (gap, stall): (f64, f64),
    cosim: bool,
    late: u16,
) -> RasterRun {
    run_visible(cfg, seed, tile, tris, (gap, stall), cosim, late, (15, 15))
}

/// [`run_late`] on a tile of which only columns `0..=visible.0` and rows `0..=visible.1` are
/// on screen (the `visible_col`/`visible_row` inputs): against the model's
/// `rasterise_visible`.
#[allow(clippy::too_many_arguments)]
pub fn run_visible(
    cfg: &TileCfg,
    seed: u64,
    tile: (u32, u32),
    tris: &[model::TriSetup],
    (gap, stall): (f64, f64),
    cosim: bool,
    late: u16,
    visible: (u32, u32),
) -> RasterRun {
    let design = tile_raster_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_raster", seed);
    if cosim {
        sim.start_recording();
    }
    let result = drive(
        &mut sim,
        cfg,
        seed,
        (tile, visible),
        tris,
        (gap, stall),
        late,
    );
    let r = tb.check(&mut sim, result);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    r
}

/// The draw state the testbench gives triangle `t` (varied, so a dropped field shows); with
/// late-depth flags, states 0..32: half of them in the 16-entry `late_depth` table.
fn draw_state(t: &model::TriSetup, late: u16) -> u32 {
    let mask = if late != 0 { 0x1F } else { 0xFF };
    t.prim.wrapping_mul(37) & mask
}

fn drive(
    sim: &mut Simulator,
    cfg: &TileCfg,
    seed: u64,
    (tile, visible): ((u32, u32), (u32, u32)),
    tris: &[model::TriSetup],
    (gap, stall): (f64, f64),
    late: u16,
) -> Result<RasterRun, TbError> {
    let state = |t: &model::TriSetup| draw_state(t, late);
    let is_late = |t: &model::TriSetup| state(t) < 16 && late >> state(t) & 1 != 0;
    let mut rng = Rng::new(seed);
    let mut buffer = TileBuffer::new(cfg.samples, &model_formats(cfg));
    let depth_plane = buffer.depth_plane();
    let mut clear: Vec<u64> = (0..cfg.planes())
        .map(|_| rng.next_u64() & 0xFFFF_FFFF)
        .collect();
    clear[depth_plane] = DEPTH_MAX as u64;
    let mask = (1u64 << cfg.planes()) - 1;
    buffer.tile_begin(tile, mask as u32, &clear);
    let mut board = InOrder::new();
    let mut expected = 0;
    for t in tris {
        for mut q in rasterise_visible(t, cfg.samples, visible) {
            let pass = match is_late(t) {
                true => q.coverage,
                false => buffer.depth_test(&q, t.depth_op, t.depth_write),
            };
            if pass != 0 {
                q.coverage = pass;
                board.expect(quad_record(&q, t, state(t), is_late(t), cfg));
                if is_late(t) {
                    // The late test the testbench sends back when the quad leaves (a shader
                    // that keeps its rasterised depth: each pixel's sample 0 for its lanes).
                    let mut z = q.clone();
                    let s = cfg.samples as usize;
                    z.depth = (0..cfg.lanes()).map(|l| q.depth[l / s * s]).collect();
                    buffer.depth_test(&z, t.depth_op, t.depth_write);
                }
                expected += 1;
            }
        }
    }
    let mut src = [
        StreamSource::new(sim, "tri", rng.next_u64())?.gap_prob(gap),
        StreamSource::new(sim, "tile_begin", rng.next_u64())?,
        StreamSource::new(sim, "wo_req", rng.next_u64())?.gap_prob(gap),
        StreamSource::new(sim, "pixel", rng.next_u64())?,
        StreamSource::new(sim, "ts_req", rng.next_u64())?,
    ];
    let mut sink = [
        StreamSink::new(sim, "quad", rng.next_u64())?.stall_prob(stall),
        StreamSink::new(sim, "wo_resp", rng.next_u64())?.stall_prob(stall),
        StreamSink::new(sim, "ts_resp", rng.next_u64())?,
    ];
    assert_eq!(
        src[0].fields(),
        port_names::<TriSetup>("tri", &TriSetup::shape())
    );
    assert_eq!(
        sink[0].fields(),
        port_names::<QuadFrag>("quad", &QuadFrag::shape(cfg))
    );
    let begin = TileBegin {
        tile_x: tile.0 as u64,
        tile_y: tile.1 as u64,
        clear_mask: mask,
        clear: clear.clone(),
    };
    src[1].send(&flatten(&begin, &TileBegin::shape(cfg)))?;
    let late_in = sim
        .input("late_depth")
        .map_err(|e| TbError::new(e.to_string()))?;
    sim.poke(late_in, late as u64);
    for (name, v) in [("visible_col", visible.0), ("visible_row", visible.1)] {
        let port = sim.input(name).map_err(|e| TbError::new(e.to_string()))?;
        sim.poke(port, v.into());
    }
    sim.reset(1);
    // The triangles follow the TILE_BEGIN once it is taken (its 64 clear cycles are done).
    Watchdog::new(200, seed).run_until(sim, "TILE_BEGIN taken", |sim| {
        agents_cycle(sim, &mut src, &mut sink)?;
        Ok(src[1].is_idle())
    })?;
    sim.step();
    for t in tris {
        src[0].send(&flatten(&tri_record(t, state(t)), &TriSetup::shape()))?;
    }
    let start = sim.cycle();
    let (mut first_tri, mut first_quad) = (None, None);
    let mut coverage = Vec::new();
    let mut seen = 0;
    let dog = Watchdog::new(200 * tris.len() as u64 + 80 * expected as u64 + 2_000, seed);
    dog.run_until(sim, "every quad at `quad`", |sim| {
        agents_cycle(sim, &mut src, &mut sink)?;
        if first_tri.is_none() && src[0].sent() > 0 {
            first_tri = Some(sim.cycle() - start);
        }
        for item in &sink[0].items()[seen..] {
            let v: Vec<u64> = item.iter().map(|b| b.to_u64()).collect();
            first_quad.get_or_insert(sim.cycle() - start);
            coverage.push((v[1] as u32, v[2] as u32, v[3] as u32));
            let n = v.len();
            if v[n - 1] != 0 {
                // A late quad: its late test on `pixel` (fields: prim, qx, qy, coverage,
                // depth per lane, …, depth_op, depth_write, late).
                let s = cfg.samples as usize;
                let req = PixelReq {
                    rt: cfg.formats.len() as u64,
                    addr: v[2] * 8 + v[1],
                    mask: v[3],
                    colour: std::array::from_fn(|p| v[4 + p * s]),
                    blend: BlendBits {
                        enable: 0,
                        colour_op: 0,
                        src_colour: 0,
                        dst_colour: 0,
                        alpha_op: 0,
                        src_alpha: 0,
                        dst_alpha: 0,
                    },
                    zop: v[n - 3],
                    zwrite: v[n - 2],
                    late: 0,
                };
                src[3].send(&flatten(&req, &PixelReq::shape(cfg)))?;
            }
            board.observe(v)?;
        }
        seen = sink[0].items().len();
        Ok(src[0].is_idle() && src[1].is_idle() && src[3].is_idle() && board.outstanding() == 0)
    })?;
    let cycles = sim.cycle() - start;
    sim.step(); // this cycle's transfers are sampled; the next phase starts at the next edge
                // The depth plane through write-out, every pixel.
    for p in 0..256u64 {
        let req = WoReq {
            plane: depth_plane as u64,
            px: p % 16,
            py: p / 16,
        };
        src[2].send(&flatten(&req, &WoReq::shape(cfg)))?;
    }
    let mut read = 0;
    let dog = Watchdog::new(20_000, seed);
    dog.run_until(sim, "256 depth read-backs at `wo_resp`", |sim| {
        agents_cycle(sim, &mut src, &mut sink)?;
        for item in &sink[1].items()[read..] {
            let (px, py) = (read as u32 % 16, read as u32 / 16);
            let want = buffer.read_pixel(depth_plane, px, py);
            let got: Vec<u64> = item.iter().map(|b| b.to_u64()).collect();
            if got != want {
                return Err(TbError::new(format!(
                    "depth of pixel ({px}, {py}): RTL {got:x?}, model {want:x?}"
                )));
            }
            read += 1;
        }
        Ok(read == 256)
    })?;
    board.check_complete()?;
    if sink[0].items().len() != expected {
        let extra: Vec<Vec<u64>> = sink[0].items()[expected..]
            .iter()
            .map(|i| i.iter().map(|b| b.to_u64()).take(4).collect())
            .collect();
        return Err(TbError::new(format!(
            "{} quads, expected {expected} (duplicated): extra {extra:x?}",
            sink[0].items().len()
        )));
    }
    Ok(RasterRun {
        cycles,
        first_quad,
        first_tri,
        quads: expected,
        coverage,
    })
}

/// Random depth state: LESS most often, every compare op, writes on or off.
fn random_state(rng: &mut Rng) -> RasterState {
    RasterState {
        depth_op: match rng.below(3) {
            0 => CompareOp::ALL[rng.below(8) as usize],
            _ => CompareOp::Less,
        },
        depth_write: rng.below(4) != 0,
        ..RasterState::default()
    }
}

/// Late depth (draw states whose shader writes depth): their quads pass the early test with
/// their coverage and write no depth; the others are tested against what the early tests
/// wrote; the depth plane read back equals the model's. Draw states are `prim · 37 mod 32`:
/// those below 16 with their bit set are late (a quarter of the triangles), 16..32 lie
/// beyond the table and are early-tested.
#[test]
fn late_depth_states_skip_the_early_test_under_back_pressure() {
    let mut rng = Rng::from_env_or(0x1a7e);
    let tile = (1, 2);
    let tris = random_tris(&mut rng, tile, 80);
    let late = 0b1010_0110_1101_0011u16;
    let n_late = tris
        .iter()
        .filter(|t| draw_state(t, late) < 16 && late >> draw_state(t, late) & 1 != 0)
        .count();
    assert!(n_late > 3, "only {n_late} late triangles");
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8],
    };
    let r = run_late(&cfg, rng.next_u64(), tile, &tris, (0.3, 0.3), false, late);
    assert!(r.quads > 100, "only {} quads", r.quads);
    run_late(
        &small_cfg(),
        rng.next_u64(),
        tile,
        &tris,
        (0.2, 0.3),
        true,
        late,
    );
}

/// `n` random triangles set up for `tile` (rejected ones skipped).
fn random_tris(rng: &mut Rng, tile: (u32, u32), n: usize) -> Vec<model::TriSetup> {
    let mut tris = Vec::new();
    while tris.len() < n {
        let v = random_triangle(rng, tile);
        let state = random_state(rng);
        if let Ok(t) = setup(&v, tile, &state, tris.len() as u32) {
            tris.push(t);
        }
    }
    tris
}

#[test]
fn random_triangles_4x_msaa_match_model_under_back_pressure() {
    let mut rng = Rng::from_env_or(0x7a57);
    let tile = (3, 1);
    let tris = random_tris(&mut rng, tile, 120);
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8],
    };
    let r = run(&cfg, rng.next_u64(), tile, &tris, (0.3, 0.3), false);
    assert!(r.quads > 300, "only {} quads", r.quads);
}

#[test]
fn random_triangles_1x_match_model_and_cosimulate() {
    let mut rng = Rng::from_env_or(0x1a57);
    let tile = (0, 2);
    let tris = random_tris(&mut rng, tile, 40);
    let r = run(&small_cfg(), rng.next_u64(), tile, &tris, (0.2, 0.3), true);
    assert!(r.quads > 60, "only {} quads", r.quads);
}

/// The screen's scissor: on the partial tiles of a 37×21 screen (and a one-pixel column and
/// row), no lane beyond the tile's last visible column or row is covered, quads left empty are
/// dropped, and the rest equals the model's `rasterise_visible`; at 1× co-simulated.
#[test]
fn partial_tiles_cover_only_the_screen() {
    let mut rng = Rng::from_env_or(0x5c15);
    let cfg4 = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8],
    };
    for (k, (visible, cfg, cosim)) in [
        ((4, 15), &cfg4, false),
        ((15, 4), &cfg4, false),
        ((4, 4), &small_cfg(), true),
        ((0, 0), &cfg4, false),
    ]
    .into_iter()
    .enumerate()
    {
        let tile = (2, 1);
        let tris = random_tris(&mut rng, tile, 30);
        let r = run_visible(
            cfg,
            rng.next_u64(),
            tile,
            &tris,
            (0.2, 0.3),
            cosim,
            0,
            visible,
        );
        assert!(r.quads > 0, "case {k}: no quad on screen");
        for &(qx, qy, cov) in &r.coverage {
            let lanes = visible_lanes(qx, qy, cfg.samples, visible);
            assert_eq!(cov & !lanes, 0, "case {k}: quad ({qx}, {qy}) off screen");
        }
    }
}

#[test]
fn shared_edge_mesh_covers_every_sample_exactly_once() {
    let mut rng = Rng::from_env_or(0x3e5);
    let tile = (2, 5);
    for (samples, n) in [(4, 5), (1, 7)] {
        let state = RasterState {
            depth_op: CompareOp::Always,
            depth_write: false,
            ..RasterState::default()
        };
        let tris: Vec<model::TriSetup> = (mesh(&mut rng, tile, n).iter().enumerate())
            .filter_map(|(i, v)| setup(v, tile, &state, i as u32).ok())
            .collect();
        let cfg = TileCfg {
            samples,
            formats: vec![RtFormat::R32f],
        };
        let r = run(&cfg, rng.next_u64(), tile, &tris, (0.2, 0.2), false);
        let mut hits = vec![0u32; 64 * 4 * samples as usize];
        for (qx, qy, cov) in r.coverage {
            for lane in 0..4 * samples {
                hits[((qy * 8 + qx) * 4 * samples + lane) as usize] += cov >> lane & 1;
            }
        }
        let bad: Vec<usize> = (0..hits.len()).filter(|&i| hits[i] != 1).collect();
        assert!(
            bad.is_empty(),
            "{samples}x: samples drawn other than once: {bad:?}"
        );
    }
}

#[test]
fn triangles_covering_nothing_produce_no_quads() {
    // Slivers between sample rows, corners brushing the tile from outside, and tiny triangles
    // between samples: set up (bounding box inside the tile) yet no sample covered.
    let mut rng = Rng::from_env_or(0xe0);
    let tile = (1, 1);
    let mut tris = Vec::new();
    let state = RasterState::default();
    while tris.len() < 30 {
        let mut v = random_triangle(&mut rng, tile);
        if rng.chance(0.5) {
            // Shrink towards the first vertex: small triangles that often miss every sample.
            for k in 1..3 {
                v[k].x = v[0].x + (v[k].x - v[0].x) / 64;
                v[k].y = v[0].y + (v[k].y - v[0].y) / 64;
            }
        }
        if let Ok(t) = setup(&v, tile, &state, tris.len() as u32) {
            if rasterise(&t, 4).is_empty() {
                tris.push(t);
            }
        }
    }
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8],
    };
    let r = run(&cfg, rng.next_u64(), tile, &tris, (0.3, 0.3), false);
    assert_eq!(r.quads, 0);
    // Degenerate, culled and off-tile triangles never reach the rasteriser (setup rejects them).
    let v = |x: i64, y: i64| model::Vertex {
        x: x * 256,
        y: y * 256,
        z: 0,
        rw: 1.0,
    };
    assert_eq!(
        setup(&[v(16, 16), v(20, 20), v(24, 24)], tile, &state, 0),
        Err(model::Reject::Degenerate)
    );
    assert_eq!(
        setup(&[v(40, 16), v(44, 16), v(40, 20)], tile, &state, 0),
        Err(model::Reject::OffTile)
    );
}

/// Quads per clock and latency: triangles covering the whole tile, no gaps or stalls.
#[test]
fn full_tile_runs_one_quad_per_clock() {
    let tile = (4, 4);
    let o = 64 * 256;
    let v = |x: i64, y: i64| model::Vertex {
        x: o + x * 256,
        y: o + y * 256,
        z: DEPTH_MAX / 2,
        rw: 1.0,
    };
    let state = RasterState {
        depth_op: CompareOp::Always,
        ..RasterState::default()
    };
    let big = [v(-1, -1), v(-1, 40), v(40, -1)];
    let tris: Vec<model::TriSetup> = (0..4)
        .map(|i| setup(&big, tile, &state, i).expect("set up"))
        .collect();
    for cfg in [
        TileCfg {
            samples: 4,
            formats: vec![RtFormat::Rgba8],
        },
        small_cfg(),
    ] {
        let r = run(&cfg, 1, tile, &tris, (0.0, 0.0), false);
        let (first_tri, first_quad) = (r.first_tri.unwrap(), r.first_quad.unwrap());
        let busy = r.cycles - first_quad + 1;
        let rate = r.quads as f64 / busy as f64;
        eprintln!(
            "tile_raster {}x: {} quads in {busy} cycles from the first ({rate:.3} quads/clock); latency tri → first quad {} cycles",
            cfg.samples,
            r.quads,
            first_quad - first_tri
        );
        assert_eq!(r.quads, 4 * 64);
        assert!(rate > 0.99, "{rate} quads/clock");
    }
}

/// Quads per clock on random triangles without gaps or stalls, against the quads covered.
#[test]
fn random_triangles_throughput() {
    let mut rng = Rng::new(0x7407);
    let tile = (3, 1);
    let state = RasterState {
        depth_op: CompareOp::Always,
        ..RasterState::default()
    };
    let mut tris = Vec::new();
    while tris.len() < 60 {
        let v = random_triangle(&mut rng, tile);
        if let Ok(t) = setup(&v, tile, &state, tris.len() as u32) {
            tris.push(t);
        }
    }
    let cfg = TileCfg {
        samples: 4,
        formats: vec![RtFormat::Rgba8],
    };
    let bbox_quads: u32 = (tris.iter())
        .map(|t| (t.bbox[2] - t.bbox[0] + 1) * (t.bbox[3] - t.bbox[1] + 1))
        .sum();
    let r = run(&cfg, 2, tile, &tris, (0.0, 0.0), false);
    let rate = r.quads as f64 / r.cycles as f64;
    eprintln!(
        "tile_raster 4x, 60 random triangles: {} covered quads ({bbox_quads} in the bounding boxes) in {} cycles: {rate:.3} quads/clock",
        r.quads, r.cycles
    );
    assert!(rate > 0.85, "{rate} quads/clock");
}

/// The binary32 conversion of edge functions rounds like Rust's `i64 as f32` (nearest even).
#[test]
fn int_to_f32_rounds_to_nearest_even() {
    use rendergen_rtl::tile::raster::int_to_f32;
    let design = Design::build("int_to_f32", |m| {
        let x = m.input("x", 48);
        let f = int_to_f32(m, x);
        m.output("f", f);
    })
    .unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let (x, f) = (sim.input("x").unwrap(), sim.output("f").unwrap());
    let mut rng = Rng::new(0xf32);
    let mut values: Vec<i64> = vec![
        0,
        1,
        -1,
        (1 << 47) - 1,
        -(1 << 47),
        (1 << 24) + 1,
        (1 << 25) + 3,
        -(1 << 24) - 3,
        0x7FFF_FF80_0000,
    ];
    for k in 0..47 {
        values.extend([
            1i64 << k,
            (1i64 << k) + 1,
            (3i64 << k) >> 1,
            -(1i64 << k) - 1,
        ]);
    }
    for _ in 0..20_000 {
        let bits = rng.next_u64() >> (16 + rng.below(40));
        values.push(if rng.chance(0.5) {
            bits as i64
        } else {
            -(bits as i64)
        });
    }
    for v in values {
        let v = v.clamp(-(1 << 47), (1 << 47) - 1);
        sim.poke(x, v as u64 & ((1 << 48) - 1));
        assert_eq!(sim.peek(f) as u32, (v as f32).to_bits(), "{v}");
    }
}

/// Verilator, Yosys and iverilog accept the Verilog of every tile module (`raster`,
/// `tile_buffer`, `blend_rgba8`; `tile_buffer_top` is a wrapper of the same `tile_buffer`).
/// Yosys's synthesis takes most of its ~50 s of CPU.
#[test]
fn lint_is_clean() {
    let design = tile_raster_top(&small_cfg()).unwrap();
    super::buffer::assert_lint_clean(&design);
}

#[test]
fn bad_parameters_are_elaboration_errors() {
    let bad = [
        TileCfg {
            samples: 2,
            formats: vec![RtFormat::Rgba8],
        },
        TileCfg {
            samples: 4,
            formats: vec![],
        },
        TileCfg {
            samples: 1,
            formats: vec![RtFormat::R32f; 9],
        },
    ];
    for cfg in bad {
        let e: rendergen_hdl::ElabErrors = match tile_raster_top(&cfg) {
            Err(e) => e,
            Ok(_) => panic!("{cfg:?} accepted"),
        };
        assert!(e.only_params(), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("`samples`") || text.contains("`rts`"),
            "{text}"
        );
    }
    let _: fn(&TileCfg) -> Result<Design, rendergen_hdl::ElabErrors> = tile_raster_top;
}
