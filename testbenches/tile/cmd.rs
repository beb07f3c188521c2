//! `tile_cmd`: command lists in the memory agent (encoded here from the README's table),
//! the rasteriser and fragment shader played by the testbench (each DRAW gives 0–5 quads that
//! leave at random times and retire 5–200 cycles later; the fence's quad leaves after every
//! earlier one), the tile shader answering launches after random delays with random write-out
//! flags. Checks: every output stream in order against the list (scoreboards); the drain
//! barrier (a launch or write-out only when every quad out has retired and none is still to
//! leave); no triangle from a fence until the tile shader is done (resume after RESOLVE); the
//! write-out carries the last tile shader's flags, or the defaults.
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_rtl::tile::cmd::{TsLaunch, CMD_BYTES, FENCE_PRIM};
use rendergen_rtl::tile::top::tile_cmd_top;
use rendergen_rtl::tile::writeout::{WoFlags, WoStart};
use rendergen_rtl::tile::{EdgeSetup, TileBegin, TileCfg, TriSetup};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const M48: u64 = (1 << 48) - 1;
const M24: u64 = (1 << 24) - 1;

/// One command of a list, as the testbench knows it.
#[derive(Clone, Debug)]
pub(super) enum Cmd {
    Begin(TileBegin<u64>),
    Draw(TriSetup<u64>),
    Resolve {
        xthreads: u64,
        ythreads: u64,
        program: u64,
    },
    End,
}

/// The 16 words of a command (README of `rtl/tile/`: "Command lists").
pub(super) fn encode(c: &Cmd) -> [u64; 16] {
    let mut w = [0u64; 16];
    match c {
        Cmd::Begin(b) => {
            w[0] = 1 | b.tile_x << 8 | b.tile_y << 17 | b.clear_mask << 32;
            for (p, v) in b.clear.iter().enumerate() {
                w[1 + p] = *v;
            }
        }
        Cmd::Draw(t) => {
            w[0] = 2 | t.depth_op << 20 | t.depth_write << 23 | t.prim << 24;
            for (k, b) in t.bbox.iter().enumerate() {
                w[0] |= b << (8 + 3 * k);
            }
            for (i, e) in t.edge.iter().enumerate() {
                w[1 + 2 * i] = e.a & M24 | (e.b & M24) << 24 | e.top_left << 48;
                w[2 + 2 * i] = e.c & M48;
            }
            w[7] = t.z_c;
            w[8] = t.dzdx & M48;
            w[9] = t.dzdy & M48;
        }
        Cmd::Resolve {
            xthreads,
            ythreads,
            program,
        } => w[0] = 3 | xthreads << 8 | ythreads << 16 | program << 32,
        Cmd::End => w[0] = 4,
    }
    w
}

fn random_tri(rng: &mut Rng) -> TriSetup<u64> {
    let e = |r: &mut Rng| EdgeSetup {
        a: r.bits_u64(24),
        b: r.bits_u64(24),
        c: r.bits_u64(48),
        top_left: r.bits_u64(1),
    };
    TriSetup {
        edge: [e(rng), e(rng), e(rng)],
        bbox: std::array::from_fn(|_| rng.below(8)),
        z_c: rng.next_u64(),
        dzdx: rng.bits_u64(48),
        dzdy: rng.bits_u64(48),
        depth_op: rng.below(8),
        depth_write: rng.below(2),
        prim: rng.below(FENCE_PRIM),
    }
}

fn fence_tri() -> TriSetup<u64> {
    let e = EdgeSetup {
        a: 0,
        b: 0,
        c: 1,
        top_left: 0,
    };
    TriSetup {
        edge: [e.clone(), e.clone(), e],
        bbox: [0; 4],
        z_c: 0,
        dzdx: 0,
        dzdy: 0,
        depth_op: 7,
        depth_write: 0,
        prim: FENCE_PRIM,
    }
}

/// A random tile list: TILE_BEGIN, DRAWs with `resolves` RESOLVEs among them, END_TILE.
fn random_list(rng: &mut Rng, cfg: &TileCfg, tile: (u64, u64), resolves: usize) -> Vec<Cmd> {
    let mask = |w: u32| if w == 64 { u64::MAX } else { (1 << w) - 1 };
    let mut l = vec![Cmd::Begin(TileBegin {
        tile_x: tile.0,
        tile_y: tile.1,
        clear_mask: rng.below(1 << cfg.planes()),
        clear: (0..cfg.planes())
            .map(|_| rng.next_u64() & mask(cfg.data_bits()))
            .collect(),
    })];
    for r in 0..=resolves {
        for _ in 0..rng.below(5) {
            l.push(Cmd::Draw(random_tri(rng)));
        }
        if r < resolves {
            l.push(Cmd::Resolve {
                xthreads: 1 + rng.below(16),
                ythreads: 1 + rng.below(16),
                program: rng.next_u64() & 0xFFFF_FFFF,
            });
        }
    }
    l.push(Cmd::End);
    l
}

/// What a run measured.
pub struct CmdRun {
    /// Cycles until the last tile was taken.
    pub cycles: u64,
    /// Tile-shader launches.
    pub launches: usize,
}

/// Runs `lists` through `tile_cmd`; with `cosim`, replays the start in iverilog and Verilator.
pub fn run(
    cfg: &TileCfg,
    seed: u64,
    tiles: usize,
    (gap, stall): (f64, f64),
    cosim: bool,
) -> CmdRun {
    let design = tile_cmd_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_cmd", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, cfg, seed, tiles, (gap, stall));
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
    tiles: usize,
    (gap, stall): (f64, f64),
) -> Result<CmdRun, TbError> {
    let mut rng = Rng::new(seed);
    let mut mem = MemoryAgent::new(
        sim,
        "mem",
        MemCfg {
            size: 1 << 16,
            min_latency: 1,
            max_latency: 10,
            stall,
            gap,
            max_outstanding: 2,
            seed: rng.next_u64(),
            ..MemCfg::default()
        },
    )?;
    mem.region("lists", 0, 1 << 16);
    let mut list_src = StreamSource::new(sim, "list", rng.next_u64())?.gap_prob(gap);
    let mut ts_done = StreamSource::new(sim, "ts_done", rng.next_u64())?.gap_prob(0.9);
    let names = ["tile_begin", "tri", "ts_launch", "wo_start"];
    let mut sinks: Vec<StreamSink> = names
        .iter()
        .map(|n| Ok(StreamSink::new(sim, n, rng.next_u64())?.stall_prob(stall)))
        .collect::<Result<_, TbError>>()?;
    let mut boards: Vec<InOrder<Vec<u64>>> = (0..4).map(|_| InOrder::new()).collect();
    let (quad_out, quad_retired, fence_seen) = (
        sim.input("quad_out")?,
        sim.input("quad_retired")?,
        sim.input("fence_seen")?,
    );
    // Lists in memory, expected outputs.
    let mut addr = 0u64;
    let mut flags_per_launch = VecDeque::new();
    let mut launches = 0;
    for t in 0..tiles {
        let list = random_list(&mut rng, cfg, (t as u64 % 7, t as u64 / 7), t % 3);
        list_src.send(&[addr])?;
        let mut flags = WoFlags {
            enable: (1 << cfg.planes()) - 1,
            select: 0,
            sample: vec![0; cfg.planes()],
        };
        let mut tile = (0, 0);
        for c in &list {
            let bytes: Vec<u8> = encode(c).iter().flat_map(|w| w.to_le_bytes()).collect();
            mem.load(addr, &bytes);
            addr += u64::from(CMD_BYTES);
            match c {
                Cmd::Begin(b) => {
                    tile = (b.tile_x, b.tile_y);
                    boards[0].expect(flatten(b, &TileBegin::shape(cfg)));
                }
                Cmd::Draw(t) => boards[1].expect(flatten(t, &TriSetup::shape())),
                Cmd::Resolve {
                    xthreads,
                    ythreads,
                    program,
                } => {
                    launches += 1;
                    boards[1].expect(flatten(&fence_tri(), &TriSetup::shape()));
                    let l = TsLaunch {
                        tile_x: tile.0,
                        tile_y: tile.1,
                        xthreads: *xthreads,
                        ythreads: *ythreads,
                        program: *program,
                    };
                    boards[2].expect(flatten(&l, &TsLaunch::SHAPE));
                    flags = WoFlags {
                        enable: rng.below(1 << cfg.planes()),
                        select: rng.below(1 << cfg.planes()),
                        sample: (0..cfg.planes()).map(|_| rng.below(4)).collect(),
                    };
                    flags_per_launch.push_back(flags.clone());
                }
                Cmd::End => {
                    boards[1].expect(flatten(&fence_tri(), &TriSetup::shape()));
                    let s = WoStart {
                        tile_x: tile.0,
                        tile_y: tile.1,
                        flags: flags.clone(),
                    };
                    boards[3].expect(flatten(&s, &WoStart::shape(cfg)));
                }
            }
        }
    }
    // The rasteriser and shader of the testbench.
    let mut quads: VecDeque<u64> = VecDeque::new(); // times quads leave
    let mut fences: VecDeque<u64> = VecDeque::new(); // times fences leave
    let mut retire: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let mut out_count = 0u64;
    let mut retired = 0u64;
    let mut in_barrier = false;
    sim.reset(1);
    let begin = sim.cycle();
    let dog = Watchdog::new(3000 * tiles as u64 + 1000, seed);
    let fence = flatten(&fence_tri(), &TriSetup::shape());
    dog.run_until(sim, "every tile list", |sim| {
        let now = sim.cycle();
        let q = quads.front().is_some_and(|&t| t <= now);
        if q {
            quads.pop_front();
            out_count += 1;
            retire.push(Reverse(now + 5 + rng.below(196)));
        }
        let r = retire.peek().is_some_and(|&Reverse(t)| t <= now);
        if r {
            retire.pop();
            retired += 1;
        }
        // A fence leaves after every quad before it.
        let f = fences.front().is_some_and(|&t| t <= now) && quads.front().is_none_or(|&t| t > now);
        if f {
            fences.pop_front();
        }
        sim.poke(quad_out, q as u64);
        sim.poke(quad_retired, r as u64);
        sim.poke(fence_seen, f as u64);
        list_src.drive(sim);
        ts_done.drive(sim);
        for s in sinks.iter_mut() {
            s.drive(sim);
        }
        mem.drive(sim);
        list_src.sample(sim);
        let done_before = ts_done.sent();
        ts_done.sample(sim);
        if ts_done.sent() != done_before {
            in_barrier = false;
        }
        for s in sinks.iter_mut() {
            s.sample(sim);
            s.protocol_result()?;
        }
        mem.sample(sim);
        let drained = quads.is_empty() && out_count == retired;
        for (k, s) in sinks.iter_mut().enumerate() {
            for item in s.take_items() {
                let item: Vec<u64> = item.iter().map(|b| b.to_u64()).collect();
                match k {
                    1 if item == fence => {
                        in_barrier = true;
                        let last = quads.back().copied().unwrap_or(now).max(now);
                        fences.push_back(last + 1 + rng.below(10));
                    }
                    1 => {
                        if in_barrier {
                            return Err(TbError::new(format!(
                                "cycle {now}: a triangle during the barrier"
                            )));
                        }
                        let mut t = quads.back().copied().unwrap_or(now).max(now + 2);
                        for _ in 0..rng.below(6) {
                            t += 1 + rng.below(4);
                            quads.push_back(t);
                        }
                    }
                    2 | 3 if !drained => {
                        return Err(TbError::new(format!(
                            "cycle {now}: {} with {} quads out and not retired, {} to come",
                            names[k],
                            out_count - retired,
                            quads.len()
                        )));
                    }
                    2 => {
                        let f = flags_per_launch
                            .pop_front()
                            .ok_or_else(|| TbError::new("extra launch"))?;
                        ts_done.send(&flatten(&f, &WoFlags::shape(cfg)))?;
                    }
                    3 => in_barrier = false,
                    _ => {}
                }
                boards[k].observe(item)?;
            }
        }
        Ok(list_src.is_idle() && boards.iter().all(|b| b.outstanding() == 0))
    })?;
    for b in &boards {
        b.check_complete()?;
    }
    mem.check()?;
    let bad = sim.output("bad_op")?;
    if sim.peek(bad) != 0 {
        return Err(TbError::new("bad_op set"));
    }
    mem.assert_not_written("lists")?;
    Ok(CmdRun {
        cycles: sim.cycle() - begin,
        launches,
    })
}

/// Default configuration: 12 tiles with 0, 1 or 2 RESOLVEs each (A1 drain, A2 resume, two
/// RESOLVEs in a tile), random back-pressure everywhere.
#[test]
fn command_lists_run_with_barriers() {
    let mut rng = Rng::from_env_or(0xc3d);
    let r = run(&TileCfg::default(), rng.next_u64(), 12, (0.3, 0.3), false);
    assert_eq!(r.launches, 12);
    assert!(r.cycles > 0);
}

/// The small configuration, co-simulated in iverilog and Verilator.
#[test]
fn command_lists_small_config_cosimulate() {
    let mut rng = Rng::from_env_or(0xc3e);
    run(&super::small_cfg(), rng.next_u64(), 3, (0.2, 0.2), true);
}

#[test]
fn tile_cmd_lint_clean() {
    let design = tile_cmd_top(&super::small_cfg()).unwrap_or_else(|e| panic!("{e}"));
    assert_lint_clean(&design);
}
