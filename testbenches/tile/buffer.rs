//! `tile_buffer`: every port against the model's tile buffer, in phases (a TILE_BEGIN clear;
//! pixel writes with blending beside early depth tests; tile-shader accesses in and out of the
//! tile; write-out reads of every pixel of every plane), random gaps and back-pressure.
use super::raster::model_formats;
use super::{flatten, small_cfg};
use rendergen_hdl::Design;
use rendergen_rtl::tile::top::tile_buffer_top;
use rendergen_rtl::tile::{BlendBits, PixelReq, TileBegin, TileCfg, TsReq, WoReq, ZReq};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::buffer::{BlendOp, BlendState, Factor, TileBuffer};
use rendergen_sim::models::tile::raster::Quad;
use rendergen_sim::models::tile::setup::CompareOp;
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

/// Verilator `-Wall`, Yosys `check -assert` and iverilog accept the emitted Verilog.
pub fn assert_lint_clean(design: &Design) {
    let report = rendergen_gen::tools::lint(design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

const TILE: (u32, u32) = (5, 3);

/// Runs `n` accesses per phase through `tile_buffer`; with `cosim`, replays the start.
pub fn run(cfg: &TileCfg, seed: u64, n: usize, (gap, stall): (f64, f64), cosim: bool) -> u64 {
    let design = tile_buffer_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_buffer", seed);
    if cosim {
        sim.start_recording();
    }
    let result = drive(&mut sim, cfg, seed, n, (gap, stall));
    let cycles = tb.check(&mut sim, result);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    cycles
}

fn blend_record(b: &BlendState) -> BlendBits<u64> {
    BlendBits {
        enable: b.enable as u64,
        colour_op: b.colour_op as u64,
        src_colour: b.src_colour as u64,
        dst_colour: b.dst_colour as u64,
        alpha_op: b.alpha_op as u64,
        src_alpha: b.src_alpha as u64,
        dst_alpha: b.dst_alpha as u64,
    }
}

fn random_blend(rng: &mut Rng) -> BlendState {
    let op = |r: &mut Rng| {
        [
            BlendOp::Add,
            BlendOp::Subtract,
            BlendOp::ReverseSubtract,
            BlendOp::Min,
            BlendOp::Max,
        ][r.below(5) as usize]
    };
    let f = |r: &mut Rng| Factor::ALL[r.below(11) as usize];
    BlendState {
        enable: rng.below(4) != 0,
        colour_op: op(rng),
        src_colour: f(rng),
        dst_colour: f(rng),
        alpha_op: op(rng),
        src_alpha: f(rng),
        dst_alpha: f(rng),
    }
}

/// Ports of the design, agents in fixed slots.
const TILE_BEGIN: usize = 0;
const Z_REQ: usize = 1;
const PIXEL: usize = 2;
const TS: usize = 3;
const WO: usize = 4;
const Z_RESP: usize = 0;
const TS_RESP: usize = 1;
const WO_RESP: usize = 2;

fn drive(
    sim: &mut Simulator,
    cfg: &TileCfg,
    seed: u64,
    n: usize,
    (gap, stall): (f64, f64),
) -> Result<u64, TbError> {
    let mut rng = Rng::new(seed);
    let mut model = TileBuffer::new(cfg.samples, &model_formats(cfg));
    let lanes = cfg.lanes() as u32;
    let data_mask = match cfg.data_bits() {
        64 => u64::MAX,
        w => (1u64 << w) - 1,
    };
    let mut src: Vec<StreamSource> = ["tile_begin", "z_req", "pixel", "ts_req", "wo_req"]
        .iter()
        .map(|p| Ok(StreamSource::new(sim, p, rng.next_u64())?.gap_prob(gap)))
        .collect::<Result<_, TbError>>()?;
    let mut sink: Vec<StreamSink> = ["z_resp", "ts_resp", "wo_resp"]
        .iter()
        .map(|p| Ok(StreamSink::new(sim, p, rng.next_u64())?.stall_prob(stall)))
        .collect::<Result<_, TbError>>()?;
    let mut boards: [InOrder<Vec<u64>>; 3] = [InOrder::new(), InOrder::new(), InOrder::new()];
    sim.reset(1);
    let start = sim.cycle();

    // Phase 1: TILE_BEGIN clears a random subset of planes (the others keep their zeros).
    let mask = rng.below(1 << cfg.planes()) | 1 << (cfg.planes() - 1);
    let clear: Vec<u64> = (0..cfg.planes())
        .map(|_| rng.next_u64() & data_mask)
        .collect();
    model.tile_begin(TILE, mask as u32, &clear);
    let begin = TileBegin {
        tile_x: TILE.0 as u64,
        tile_y: TILE.1 as u64,
        clear_mask: mask,
        clear,
    };
    src[TILE_BEGIN].send(&flatten(&begin, &TileBegin::shape(cfg)))?;
    phase(sim, &mut src, &mut sink, &mut boards, seed, "TILE_BEGIN")?;

    // Phase 2: pixel writes (colour planes) beside early depth tests (the depth plane).
    for _ in 0..n {
        let (qx, qy) = (rng.below(8) as u32, rng.below(8) as u32);
        let rt = rng.below(cfg.formats.len() as u64) as usize;
        let colour: [u64; 4] = std::array::from_fn(|_| rng.next_u64() & data_mask);
        let wmask = rng.below(1 << lanes) as u32;
        let blend = random_blend(&mut rng);
        model.write_quad(rt, (qx, qy), wmask, colour, &blend);
        let req = PixelReq {
            rt: rt as u64,
            addr: (qy * 8 + qx) as u64,
            mask: wmask as u64,
            colour,
            blend: blend_record(&blend),
            zop: rng.below(8),
            zwrite: rng.below(2),
            late: 0,
        };
        src[PIXEL].send(&flatten(&req, &PixelReq::shape(cfg)))?;
        let q = Quad {
            prim: 0,
            qx: rng.below(8) as u32,
            qy: rng.below(8) as u32,
            coverage: rng.below(1 << lanes) as u32,
            depth: (0..lanes).map(|_| rng.below(1 << 24) as u32).collect(),
            edge: [[0; 3]; 4],
        };
        let op = CompareOp::ALL[rng.below(8) as usize];
        let write = rng.chance(0.7);
        let pass = model.depth_test(&q, op, write);
        boards[Z_RESP].expect(vec![pass as u64]);
        let z = ZReq {
            addr: (q.qy * 8 + q.qx) as u64,
            mask: q.coverage as u64,
            depth: q.depth.iter().map(|&d| d as u64).collect(),
            op: op as u64,
            write: write as u64,
        };
        src[Z_REQ].send(&flatten(&z, &ZReq::shape(cfg)))?;
    }
    phase(
        sim,
        &mut src,
        &mut sink,
        &mut boards,
        seed,
        "pixel writes and depth tests",
    )?;

    // Phase 2b: late depth on the pixel port alone (its order against the early tests of
    // `z_req` is the arbiter's): a late depth test of a quad, then colour writes marked `late`
    // (each with its own blend state: a blend state per draw state reaches the buffer per
    // write), and unmarked writes between, which the test must not gate.
    late_phase(&mut rng, &mut model, cfg, &mut src[PIXEL], n, data_mask)?;
    phase(
        sim,
        &mut src,
        &mut sink,
        &mut boards,
        seed,
        "late depth tests",
    )?;

    // Phase 3: tile-shader reads and writes, some outside the tile or of absent samples.
    let planes_range = 1u64 << cfg.plane_bits();
    for tag in 0..n as u64 {
        let plane = rng.below(planes_range) as usize;
        let x = (TILE.0 * 16) as i64 + rng.below(24) as i64 - 4;
        let y = (TILE.1 * 16) as i64 + rng.below(24) as i64 - 4;
        let sample = rng.below(4) as u32;
        let write = rng.chance(0.5);
        let data = rng.next_u64() & data_mask;
        let (x, y) = (x as u32, y as u32);
        let read = model.ts_read(plane, x, y, sample);
        if write {
            let _ = model.ts_write(plane, x, y, sample, data);
        }
        let (value, error) = match read {
            Ok(v) => (v, 0),
            Err(_) => (0, 1),
        };
        boards[TS_RESP].expect(vec![value, error, tag & 0xFF]);
        let req = TsReq {
            write: write as u64,
            plane: plane as u64,
            x: x as u64,
            y: y as u64,
            sample: sample as u64,
            data,
            tag: tag & 0xFF,
        };
        src[TS].send(&flatten(&req, &TsReq::shape(cfg)))?;
    }
    phase(
        sim,
        &mut src,
        &mut sink,
        &mut boards,
        seed,
        "tile-shader accesses",
    )?;

    // Phase 4: write-out reads of every pixel of every plane.
    for plane in 0..cfg.planes() {
        for p in 0..256u32 {
            boards[WO_RESP].expect(model.read_pixel(plane, p % 16, p / 16));
            let req = WoReq {
                plane: plane as u64,
                px: (p % 16) as u64,
                py: (p / 16) as u64,
            };
            src[WO].send(&flatten(&req, &WoReq::shape(cfg)))?;
        }
    }
    phase(
        sim,
        &mut src,
        &mut sink,
        &mut boards,
        seed,
        "write-out reads",
    )?;
    for b in &boards {
        b.check_complete()?;
    }
    Ok(sim.cycle() - start)
}

/// Sends `n` quads' late depth tests and their colour writes on `pixel`, doing the same on
/// the model as the frame model's `run_pass` does for a shader that writes depth.
fn late_phase(
    rng: &mut Rng,
    model: &mut TileBuffer,
    cfg: &TileCfg,
    pixel: &mut StreamSource,
    n: usize,
    data_mask: u64,
) -> Result<(), TbError> {
    let lanes = cfg.lanes() as u32;
    let rts = cfg.formats.len();
    let mut send = |req: PixelReq<u64>| pixel.send(&flatten(&req, &PixelReq::shape(cfg)));
    for _ in 0..n {
        let (qx, qy) = (rng.below(8) as u32, rng.below(8) as u32);
        // Depths near the stored ones' range at times, so every op both passes and fails.
        let z: [u64; 4] = std::array::from_fn(|_| match rng.below(3) {
            0 => 0,
            1 => (1 << 24) - 1,
            _ => rng.below(1 << 24),
        });
        let mask = rng.below(1 << lanes) as u32;
        let op = CompareOp::ALL[rng.below(8) as usize];
        let write = rng.chance(0.7);
        let q = Quad {
            prim: 0,
            qx,
            qy,
            coverage: mask,
            depth: (0..lanes)
                .map(|l| z[(l / cfg.samples) as usize] as u32)
                .collect(),
            edge: [[0; 3]; 4],
        };
        let pass = model.depth_test(&q, op, write);
        send(PixelReq {
            rt: rts as u64,
            addr: (qy * 8 + qx) as u64,
            mask: mask as u64,
            colour: z,
            blend: blend_record(&BlendState::default()),
            zop: op as u64,
            zwrite: write as u64,
            late: 0,
        })?;
        for rt in 0..rts {
            if rng.chance(0.25) {
                continue;
            }
            let late = rng.chance(0.8);
            let colour: [u64; 4] = std::array::from_fn(|_| rng.next_u64() & data_mask);
            let wmask = rng.below(1 << lanes) as u32;
            let blend = random_blend(rng);
            let (gated, at) = match late {
                true => (wmask & pass, (qx, qy)),
                false => (wmask, (rng.below(8) as u32, rng.below(8) as u32)),
            };
            model.write_quad(rt, at, gated, colour, &blend);
            send(PixelReq {
                rt: rt as u64,
                addr: (at.1 * 8 + at.0) as u64,
                mask: wmask as u64,
                colour,
                blend: blend_record(&blend),
                zop: rng.below(8),
                zwrite: rng.below(2),
                late: late as u64,
            })?;
        }
    }
    Ok(())
}

/// Runs until every source is idle and every answer expected so far arrived, then four more
/// clocks (pixel writes, which have no answer, leave the pipeline).
fn phase(
    sim: &mut Simulator,
    src: &mut [StreamSource],
    sink: &mut [StreamSink],
    boards: &mut [InOrder<Vec<u64>>; 3],
    seed: u64,
    what: &str,
) -> Result<(), TbError> {
    let mut tail = 0;
    let dog = Watchdog::new(40_000, seed);
    dog.run_until(sim, what, |sim| {
        agents_cycle(sim, src, sink)?;
        for (k, s) in sink.iter_mut().enumerate() {
            for item in s.take_items() {
                boards[k].observe(item.iter().map(|b| b.to_u64()).collect())?;
            }
        }
        let done = src.iter().all(|s| s.is_idle()) && boards.iter().all(|b| b.outstanding() == 0);
        tail = if done { tail + 1 } else { 0 };
        Ok(tail > 4)
    })?;
    sim.step(); // this cycle's transfers are sampled; the next phase starts at the next edge
    Ok(())
}

#[test]
fn ports_match_model_default_config() {
    let mut rng = Rng::from_env_or(0xb0ff);
    let cycles = run(&TileCfg::default(), rng.next_u64(), 300, (0.3, 0.3), false);
    assert!(cycles > 0);
}

#[test]
fn ports_match_model_small_config_and_cosimulate() {
    let mut rng = Rng::from_env_or(0x5b0f);
    run(&small_cfg(), rng.next_u64(), 120, (0.2, 0.3), true);
}
