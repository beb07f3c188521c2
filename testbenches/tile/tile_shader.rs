//! `spec_bridge` (the tile shader's special port, `rtl/tile/tile_shader.rs`) alone, against
//! a model of the port written here from the frame model's conversions (`pack::load_channel`,
//! `pack::store_channel`, the D24 rules of `port`) on the model's tile buffer
//! (`TileBuffer::ts_read`/`ts_write`), applied one request at a time in request order — the
//! sequential meaning the pipelined bridge must keep.
//!
//! The testbench plays the tile buffer behind `ts_req`/`ts_resp` with a second `TileBuffer`
//! (answers in order, a write answered with the old value, an access outside the tile or to a
//! missing sample answered `error`, nothing written), with random back-pressure on `ts_req`
//! and random gaps (latency) on `ts_resp`; random gaps on `spec_req` and back-pressure on
//! `spec_resp`. Requests: loads and stores of every channel of every plane (RGBA8, RGBA16F,
//! R32F, RG16F, D24; 4 samples), half of them on three "hot" samples so that stores and loads
//! of one sample follow each other closely (the read-after-write hold), write-out controls,
//! helper lanes, and bad requests (outside the tile, a sample above 3, a missing plane, op 0,
//! a bad write-out control). Scoreboards: every answer (slot, lane, data) in request order;
//! at the end the tile buffer's every sample, the write-out flags, the sticky error and the
//! first error's record. Co-simulation (iverilog + Verilator), lint, parameter errors.
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_rtl::shader::{ShaderCfg, SpecReq};
use rendergen_rtl::tile::frag::FragCfg;
use rendergen_rtl::tile::tile_shader::spec_bridge_top;
use rendergen_rtl::tile::{RtFormat, TileCfg};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::buffer::{Format, TileBuffer};
use rendergen_sim::models::tile::pack;
use rendergen_sim::models::tile::port;
use rendergen_sim::Simulator;

/// The tile the bridge's accesses are checked against (in tiles).
const TILE: (u32, u32) = (1, 2);

fn model_format(f: RtFormat) -> Format {
    match f {
        RtFormat::Rgba8 => Format::Rgba8,
        RtFormat::Rgba16f => Format::Rgba16f,
        RtFormat::R32f => Format::R32f,
        RtFormat::Rg16f => Format::Rg16f,
    }
}

/// One request of the test: the port's fields.
#[derive(Clone, Copy, Debug)]
struct Req {
    slot: u64,
    lane: u64,
    func: u32,
    a: u32,
    b: u32,
    helper: bool,
}

/// The write-out flags as the bridge keeps them: enable and select bits, sample per plane.
#[derive(Clone, Debug, PartialEq)]
struct Flags {
    enable: u64,
    set: u64,
    select: u64,
    sample: Vec<u64>,
}

/// The port's meaning, one request at a time (`sim/models/tile/frame/env.rs` `tile_port`,
/// with the RTL's documented limits: write-out modes 0..=5, plane in the address's low 6 bits).
struct PortModel {
    tb: TileBuffer,
    formats: Vec<Format>,
    flags: Flags,
    error: Option<[u64; 6]>,
}

impl PortModel {
    /// The answer to `r`.
    fn apply(&mut self, r: &Req) -> u64 {
        let (op, binding, ch) = port::decode(r.func);
        let (x, y, s) = port::split_address(r.a);
        let rts = self.formats.len() as u32;
        let at = [r.slot, r.lane, binding as u64, x as u64, y as u64, s as u64];
        let fail = |e: &mut Option<[u64; 6]>| {
            if e.is_none() {
                *e = Some(at);
            }
        };
        if r.helper {
            return 0;
        }
        match op {
            port::OP_LOAD | port::OP_STORE => {
                let plane = match binding {
                    port::DEPTH_PLANE => Some(rts as usize),
                    b if b < rts => Some(b as usize),
                    _ => None,
                };
                let Some(plane) = plane.filter(|_| s < 4) else {
                    fail(&mut self.error);
                    return 0;
                };
                let fmt = self.formats.get(plane).copied();
                let Ok(stored) = self.tb.ts_read(plane, x, y, s) else {
                    fail(&mut self.error);
                    return 0;
                };
                if op == port::OP_LOAD {
                    return match fmt {
                        Some(f) => pack::load_channel(f, stored, ch as usize) as u64,
                        None => [stored & 0xFF_FFFF, 0, 0, 1][ch as usize],
                    };
                }
                let v = match fmt {
                    Some(f) => pack::store_channel(f, stored, ch as usize, r.b),
                    None if ch == 0 => (r.b & 0xFF_FFFF) as u64,
                    None => stored,
                };
                self.tb.ts_write(plane, x, y, s, v).expect("read succeeded");
                0
            }
            port::OP_WRITEOUT => {
                let p = r.a & 0x3F;
                let idx = match p {
                    port::DEPTH_PLANE => Some(rts as usize),
                    p if p < rts => Some(p as usize),
                    _ => None,
                };
                match idx.filter(|_| r.b <= 5) {
                    Some(i) => {
                        let bit = 1u64 << i;
                        let f = &mut self.flags;
                        f.enable = (f.enable & !bit) | ((r.b != 0) as u64) << i;
                        f.set |= bit;
                        f.select = (f.select & !bit) | ((r.b >= 2) as u64) << i;
                        if r.b >= 2 {
                            f.sample[i] = (r.b - 2) as u64;
                        }
                    }
                    None => fail(&mut self.error),
                }
                0
            }
            _ => {
                fail(&mut self.error);
                0
            }
        }
    }
}

/// A random value for a store: binary32 in and around each format's range, or random bits.
fn store_value(rng: &mut Rng) -> u32 {
    match rng.below(6) {
        0 => rng.next_u64() as u32,
        1 => (rng.below(1001) as f32 / 1000.0).to_bits(),
        2 => ((rng.below(4001) as f32 - 2000.0) / 7.0).to_bits(),
        3 => {
            [0.0f32, -0.0, 1.0, 0.5, 65504.0, 1e-6, f32::INFINITY][rng.below(7) as usize].to_bits()
        }
        4 => rng.below(1 << 24) as u32,
        _ => (rng.below(256) as f32 / 255.0).to_bits(),
    }
}

/// `n` requests over `cfg`'s planes: half on three hot samples, a few bad ones.
fn requests(rng: &mut Rng, cfg: &TileCfg, n: usize) -> Vec<Req> {
    let rts = cfg.formats.len() as u64;
    let (ox, oy) = (TILE.0 * 16, TILE.1 * 16);
    let pick_binding = |rng: &mut Rng| match rng.below(rts + 1) {
        k if k == rts => port::DEPTH_PLANE,
        k => k as u32,
    };
    let hot: Vec<(u32, u32, u32, u32)> = (0..3)
        .map(|_| {
            (
                pick_binding(rng),
                ox + rng.below(16) as u32,
                oy + rng.below(16) as u32,
                rng.below(cfg.samples as u64) as u32,
            )
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (mut binding, mut x, mut y, mut s) = match rng.chance(0.5) {
            true => hot[rng.below(3) as usize],
            false => (
                pick_binding(rng),
                ox + rng.below(16) as u32,
                oy + rng.below(16) as u32,
                rng.below(cfg.samples as u64) as u32,
            ),
        };
        let mut op = match rng.below(100) {
            0..=44 => port::OP_LOAD,
            45..=89 => port::OP_STORE,
            90..=96 => port::OP_WRITEOUT,
            _ => 0,
        };
        let mut b = store_value(rng);
        let mut a;
        if op == port::OP_WRITEOUT {
            a = [0, 1, 2, 3, 8, rts as u32, 9, 15][rng.below(8) as usize].min(63);
            if rng.chance(0.9) {
                a = pick_binding(rng);
            }
            b = rng.below(8) as u32;
        } else {
            // Occasionally bad: outside the tile, a sample that does not exist, a plane the
            // buffer lacks.
            match rng.below(40) {
                0 => x = ox + 16 + rng.below(4) as u32,
                1 => y = oy.wrapping_sub(1 + rng.below(3) as u32),
                2 => s = cfg.samples + rng.below(16 - cfg.samples as u64) as u32,
                3 => binding = [rts as u32, 9, 12, 63][rng.below(4) as usize].max(rts as u32),
                4 if op == port::OP_LOAD => op = 0,
                _ => {}
            }
            a = port::address(x, y, s);
        }
        out.push(Req {
            slot: rng.below(8),
            lane: rng.below(4),
            func: port::function(op, binding, rng.below(4) as u32),
            a,
            b,
            helper: rng.chance(0.05),
        });
    }
    out
}

/// Fills every sample of every plane of both buffers with the same random values.
fn fill(rng: &mut Rng, cfg: &TileCfg, a: &mut TileBuffer, b: &mut TileBuffer) {
    let (ox, oy) = (TILE.0 * 16, TILE.1 * 16);
    for p in 0..cfg.planes() {
        for y in oy..oy + 16 {
            for x in ox..ox + 16 {
                for s in 0..cfg.samples {
                    let v = rng.next_u64();
                    a.ts_write(p, x, y, s, v).expect("inside");
                    b.ts_write(p, x, y, s, v).expect("inside");
                }
            }
        }
    }
}

/// Back-pressure of one run: gaps on `spec_req`, stalls on `spec_resp`, stalls on `ts_req`,
/// gaps on `ts_resp`.
#[derive(Clone, Copy)]
struct Pressure {
    req_gap: f64,
    resp_stall: f64,
    ts_stall: f64,
    ts_gap: f64,
}

const NONE: Pressure = Pressure {
    req_gap: 0.0,
    resp_stall: 0.0,
    ts_stall: 0.0,
    ts_gap: 0.0,
};

const RANDOM: Pressure = Pressure {
    req_gap: 0.3,
    resp_stall: 0.3,
    ts_stall: 0.3,
    ts_gap: 0.4,
};

fn frag_cfg(tile: TileCfg) -> FragCfg {
    FragCfg {
        tile,
        core: ShaderCfg::default(),
        entry_log2: 8,
        states: 1,
    }
}

/// Runs `n` random requests (or `reqs` when given); returns the cycles from reset to the
/// last answer.
fn run(
    cfg: &TileCfg,
    seed: u64,
    n: usize,
    pressure: Pressure,
    reqs: Option<Vec<Req>>,
    cosim: bool,
) -> Result<u64, String> {
    let design = spec_bridge_top(&frag_cfg(cfg.clone())).map_err(|e| e.to_string())?;
    let mut sim = Simulator::new(&design).map_err(|e| e.to_string())?;
    if cosim {
        sim.start_recording();
    }
    let tb = TestRun::start(&mut sim, "spec_bridge", seed);
    let r = drive(&mut sim, cfg, seed, n, pressure, reqs);
    let cycles = tb.finish(&mut sim, r)?;
    if cosim {
        let mut trace = sim.take_trace();
        trace.cycles.truncate(1_500);
        rendergen_gen::cosim::cosim_both(&design, &trace).map_err(|e| e.to_string())?;
    }
    Ok(cycles)
}

fn drive(
    sim: &mut Simulator,
    cfg: &TileCfg,
    seed: u64,
    n: usize,
    p: Pressure,
    reqs: Option<Vec<Req>>,
) -> Result<u64, TbError> {
    let mut rng = Rng::new(seed);
    let formats: Vec<Format> = cfg.formats.iter().map(|&f| model_format(f)).collect();
    let planes = cfg.planes();
    let mut agent = TileBuffer::new(cfg.samples, &formats);
    let mut refb = TileBuffer::new(cfg.samples, &formats);
    agent.tile_begin(TILE, 0, &[]);
    refb.tile_begin(TILE, 0, &[]);
    fill(&mut rng, cfg, &mut agent, &mut refb);
    let mut model = PortModel {
        tb: refb,
        formats: formats.clone(),
        flags: Flags {
            enable: (1 << planes) - 1,
            set: 0,
            select: 0,
            sample: vec![0; planes],
        },
        error: None,
    };
    let reqs = reqs.unwrap_or_else(|| requests(&mut rng, cfg, n));
    let mut src = StreamSource::new(sim, "spec_req", rng.next_u64())?.gap_prob(p.req_gap);
    let mut sink = StreamSink::new(sim, "spec_resp", rng.next_u64())?.stall_prob(p.resp_stall);
    let mut ts_sink = StreamSink::new(sim, "ts_req", rng.next_u64())?.stall_prob(p.ts_stall);
    let mut ts_src = StreamSource::new(sim, "ts_resp", rng.next_u64())?.gap_prob(p.ts_gap);
    let want = ["write", "plane", "x", "y", "sample", "data", "tag"];
    let got: Vec<String> = ts_sink.fields().iter().map(|f| f.to_string()).collect();
    if got.iter().zip(want).any(|(g, w)| !g.ends_with(w)) || got.len() != want.len() {
        return Err(TbError::new(format!("ts_req fields {got:?}")));
    }
    let shape = SpecReq {
        slot: cfg_slot_bits(),
        lane: 2,
        func: 32,
        a: 32,
        b: 32,
        helper: 1,
    };
    let mut board = InOrder::new();
    for r in &reqs {
        let v = SpecReq {
            slot: r.slot,
            lane: r.lane,
            func: r.func as u64,
            a: r.a as u64,
            b: r.b as u64,
            helper: r.helper as u64,
        };
        src.send(&flatten(&v, &shape))?;
        let answer = model.apply(r);
        board.expect(vec![r.slot, r.lane, answer]);
    }
    let tile_begin = sim.input("tile_begin")?;
    let ts_resp_ready = sim.output("ts_resp_ready")?;
    sim.poke(tile_begin, 0);
    sim.reset(1);
    let start = sim.cycle();
    let dog = Watchdog::new(40 * reqs.len() as u64 + 1_000, seed);
    let mut accesses = 0u64;
    dog.run_until(sim, "every answer", |sim| {
        src.drive(sim);
        sink.drive(sim);
        ts_sink.drive(sim);
        ts_src.drive(sim);
        if ts_src.pending() > 0 && sim.peek(ts_resp_ready) == 0 {
            return Err(TbError::new(
                "ts_resp not ready (the bridge documents it always is)",
            ));
        }
        src.sample(sim);
        sink.sample(sim);
        ts_sink.sample(sim);
        ts_src.sample(sim);
        sink.protocol_result()?;
        ts_sink.protocol_result()?;
        for item in sink.take_items() {
            board.observe(item.iter().map(|b| b.to_u64()).collect())?;
        }
        for item in ts_sink.take_items() {
            let v: Vec<u64> = item.iter().map(|b| b.to_u64()).collect();
            let (write, plane, x, y, s, data, tag) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
            accesses += 1;
            let (x, y, s) = (x as u32, y as u32, s as u32);
            let answer = match agent.ts_read(plane as usize, x, y, s) {
                Ok(old) => {
                    if write != 0 {
                        agent
                            .ts_write(plane as usize, x, y, s, data)
                            .expect("inside");
                    }
                    [old, 0, tag]
                }
                Err(_) => [0, 1, tag],
            };
            ts_src.send(&answer)?;
        }
        Ok(src.is_idle() && board.outstanding() == 0 && ts_src.is_idle())
    })?;
    let cycles = sim.cycle() - start;
    board.check_complete()?;
    // The tile buffer, sample by sample.
    let (ox, oy) = (TILE.0 * 16, TILE.1 * 16);
    for pl in 0..planes {
        for y in oy..oy + 16 {
            for x in ox..ox + 16 {
                for s in 0..cfg.samples {
                    let (g, w) = (agent.ts_read(pl, x, y, s), model.tb.ts_read(pl, x, y, s));
                    if g != w {
                        return Err(TbError::new(format!(
                            "plane {pl} ({x}, {y}) sample {s}: the bridge left {g:?}, the \
                             port's meaning {w:?} (seed {seed:#x})"
                        )));
                    }
                }
            }
        }
    }
    // Flags, error.
    let peek = |sim: &mut Simulator, name: &str| -> Result<u64, TbError> {
        let o = sim.output(name)?;
        Ok(sim.peek(o))
    };
    let got = Flags {
        enable: peek(sim, "flags_enable")?,
        set: peek(sim, "flags_set")?,
        select: peek(sim, "flags_select")?,
        sample: (0..planes)
            .map(|k| peek(sim, &format!("flags_sample_{k}")))
            .collect::<Result<_, _>>()?,
    };
    let mut want = model.flags.clone();
    for (k, (g, w)) in got.sample.iter().zip(want.sample.iter_mut()).enumerate() {
        if want.select >> k & 1 == 0 {
            *w = *g; // the sample of an averaged plane is not used
        }
    }
    if got != want {
        return Err(TbError::new(format!("flags {got:?}, expected {want:?}")));
    }
    let error = peek(sim, "error")? != 0;
    let at: Vec<u64> = (0..6)
        .map(|k| peek(sim, &format!("error_at_{k}")))
        .collect::<Result<_, _>>()?;
    let got_err = error.then(|| [at[0], at[1], at[2], at[3], at[4], at[5]]);
    if got_err != model.error {
        return Err(TbError::new(format!(
            "error {got_err:?}, expected the first bad request's {:?}",
            model.error
        )));
    }
    eprintln!(
        "spec_bridge: {} requests, {accesses} tile-buffer accesses, {cycles} cycles",
        reqs.len()
    );
    Ok(cycles)
}

fn cfg_slot_bits() -> u32 {
    ShaderCfg::default().slot_bits()
}

/// The small configuration of the co-simulation: 1 sample, RGBA8 and R32F.
fn small() -> TileCfg {
    TileCfg {
        samples: 1,
        formats: vec![RtFormat::Rgba8, RtFormat::R32f],
    }
}

#[test]
fn spec_bridge_matches_the_port_model() {
    let mut rng = Rng::from_env_or(0x75b0);
    run(
        &TileCfg::default(),
        rng.next_u64(),
        1_500,
        NONE,
        None,
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn spec_bridge_under_back_pressure() {
    let mut rng = Rng::from_env_or(0x75b1);
    for cfg in [TileCfg::default(), small()] {
        run(&cfg, rng.next_u64(), 1_500, RANDOM, None, false).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Dense read-after-write on one sample: merged stores of each channel of one RGBA8 and one
/// RGBA16F sample, each followed at once by loads of it, no back-pressure (the tightest
/// spacing) and then with it.
#[test]
fn spec_bridge_same_sample_store_load_chains() {
    let (x, y) = (TILE.0 * 16 + 5, TILE.1 * 16 + 9);
    let mut rng = Rng::from_env_or(0x75b2);
    let mut reqs = Vec::new();
    for k in 0..200u32 {
        let binding = [0, 1, 3][k as usize % 3];
        let ch = rng.below(4) as u32;
        let a = port::address(x, y, k % 2);
        let lane = (k % 4) as u64;
        reqs.push(Req {
            slot: 1,
            lane,
            func: port::function(port::OP_STORE, binding, ch),
            a,
            b: store_value(&mut rng),
            helper: false,
        });
        for c in 0..1 + rng.below(3) as u32 {
            reqs.push(Req {
                slot: 2,
                lane,
                func: port::function(port::OP_LOAD, binding, (ch + c) % 4),
                a,
                b: 0,
                helper: false,
            });
        }
    }
    for p in [NONE, RANDOM] {
        run(
            &TileCfg::default(),
            rng.next_u64(),
            0,
            p,
            Some(reqs.clone()),
            false,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn spec_bridge_cosimulates() {
    run(&small(), 0x75b3, 300, RANDOM, None, true).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn spec_bridge_lint_clean() {
    assert_lint_clean(
        &spec_bridge_top(&frag_cfg(TileCfg::default())).unwrap_or_else(|e| panic!("{e}")),
    );
}

#[test]
fn spec_bridge_bad_parameters_are_named() {
    let e = spec_bridge_top(&frag_cfg(TileCfg {
        samples: 2,
        formats: vec![RtFormat::Rgba8],
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("samples"), "{e}");
}

/// Throughput (not asserted): cycles for streams of loads, whole-sample stores and merged
/// stores on distinct samples, with no back-pressure.
/// `cargo test -p rendergen-testbenches --test testbenches tile::tile_shader::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_spec_bridge_throughput() {
    let n = 512u32;
    for (what, op, binding) in [
        ("loads (RGBA8)", port::OP_LOAD, 0),
        ("whole-sample stores (R32F)", port::OP_STORE, 2),
        ("merged stores (RGBA8)", port::OP_STORE, 0),
    ] {
        let reqs: Vec<Req> = (0..n)
            .map(|k| Req {
                slot: (k / 4 % 8) as u64,
                lane: (k % 4) as u64,
                func: port::function(op, binding, 0),
                a: port::address(TILE.0 * 16 + k % 16, TILE.1 * 16 + k / 16 % 16, k / 256),
                b: 0.5f32.to_bits(),
                helper: false,
            })
            .collect();
        let cycles = run(&TileCfg::default(), 1, 0, NONE, Some(reqs), false)
            .unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{what}: {n} requests in {cycles} cycles ({:.3} per clock)",
            n as f64 / cycles as f64
        );
    }
}

/// Yosys area of `spec_bridge` per module (default configuration: 4 samples, RGBA8,
/// RGBA16F, R32F, RG16F + D24), the cost figure of `rtl/tile/README.md`.
/// `cargo test -p rendergen-testbenches --test testbenches tile::tile_shader::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_spec_bridge_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = spec_bridge_top(&frag_cfg(TileCfg::default())).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}
