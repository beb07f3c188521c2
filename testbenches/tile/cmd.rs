//! `tile_cmd`: command lists written by the frame model's encoder
//! (`rendergen_sim::models::tile::command`, the one encoding of model and RTL) into the memory
//! agent, one after another at 8-byte-aligned addresses (so bursts start anywhere in a 128-byte
//! block); the rasteriser and fragment shader played by the testbench (each DRAW gives 0–5
//! quads that leave at random times and retire 5–200 cycles later; the fence's quad leaves
//! after every earlier one), the tile shader answering launches after random delays with random
//! write-out flags. Checks: every output stream in order against the list (scoreboards; the
//! expected records are the model's commands' fields at the RTL's widths); the drain barrier (a
//! launch or write-out only when every quad out has retired and none is still to leave); no
//! triangle from a fence until the tile shader is done (resume after RESOLVE); the write-out
//! carries the last tile shader's flags, or the defaults; exactly the lists' bytes are read;
//! with `Faults::bad`, unknown opcodes (skipped, `bad_op` set) and words after END_TILE
//! (dropped, `bad_list` set); with `Faults::truncated`, lists cut short (before END_TILE, inside
//! a command, or empty): the complete commands run, the cut one is dropped, the tile ends as at
//! END_TILE when its TILE_BEGIN ran (else nothing), `bad_list` is set, and the next list runs.
use super::buffer::assert_lint_clean;
use super::{flatten, tri_record};
use rendergen_rtl::tile::cmd::{TsLaunch, FENCE_PRIM};
use rendergen_rtl::tile::top::tile_cmd_top;
use rendergen_rtl::tile::writeout::{WoFlags, WoStart};
use rendergen_rtl::tile::{EdgeSetup, TileBegin, TileCfg, TriSetup};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::command::{Command, PRIM_BITS};
use rendergen_sim::models::tile::setup::{self as model, CompareOp, Edge};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Encodes `list` with the frame model's encoder and loads it at `addr`; returns its words.
pub(super) fn load_list(mem: &mut MemoryAgent, addr: u64, list: &[Command]) -> Vec<u64> {
    let words: Vec<u64> = list
        .iter()
        .flat_map(|c| c.encode().unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.load(addr, &bytes);
    words
}

/// The `TileBegin` record `tile_cmd` gives for a model `TILE_BEGIN` (clear values of cleared
/// planes in plane order, 0 for the others; planes beyond the configuration dropped).
fn begin_record(cfg: &TileCfg, x: u32, y: u32, mask: u32, clears: &[u64]) -> TileBegin<u64> {
    let mut values = clears.iter();
    let mut clear = vec![0; cfg.planes()];
    for (p, v) in clear.iter_mut().enumerate() {
        if mask >> p & 1 != 0 {
            *v = *values.next().expect("a value per mask bit");
        }
    }
    TileBegin {
        tile_x: x as u64,
        tile_y: y as u64,
        clear_mask: mask as u64,
        clear,
    }
}

/// `bits`-bit two's-complement random value.
fn signed(rng: &mut Rng, bits: u32) -> i64 {
    ((rng.next_u64() << (64 - bits)) as i64) >> (64 - bits)
}

/// A random set-up triangle with every field over its whole encodable range.
fn random_tri(rng: &mut Rng) -> model::TriSetup {
    let edges: [Edge; 3] = std::array::from_fn(|_| Edge {
        a: signed(rng, 24),
        b: signed(rng, 24),
        c: signed(rng, 48),
        top_left: rng.below(2) == 1,
    });
    let prim = loop {
        let p = rng.below(1 << PRIM_BITS) as u32;
        if u64::from(p & 0xFFFF) != FENCE_PRIM {
            break p;
        }
    };
    model::TriSetup {
        area2: edges.iter().map(|e| e.c).sum(),
        edges,
        bbox: std::array::from_fn(|_| rng.below(8) as u32),
        z_c: rng.next_u64() as i64,
        dzdx: signed(rng, 48),
        dzdy: signed(rng, 48),
        depth_op: CompareOp::ALL[rng.below(8) as usize],
        depth_write: rng.below(2) == 1,
        prim,
        rw: std::array::from_fn(|_| f32::from_bits(rng.next_u64() as u32)),
        front: rng.below(2) == 1,
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
        state: 0,
        front: 0,
        rw: [0; 3],
    }
}

/// An entry of a test list: a command, or a raw word (a bad opcode, or junk after END_TILE).
#[derive(Clone, Debug)]
enum Entry {
    Cmd(Command),
    Raw(u64),
}

/// A random tile list: TILE_BEGIN, DRAWs with `resolves` RESOLVEs among them, END_TILE; with
/// `bad`, words with unknown opcodes among the commands and junk after END_TILE.
fn random_list(
    rng: &mut Rng,
    cfg: &TileCfg,
    tile: (u32, u32),
    resolves: usize,
    bad: bool,
) -> Vec<Entry> {
    let planes = cfg.planes() as u32;
    let mut mask = rng.below(1 << planes) as u32;
    if rng.below(4) == 0 {
        mask |= rng.below(1 << 16) as u32 & !((1 << planes) - 1);
    }
    let mut l = vec![Entry::Cmd(Command::TileBegin {
        x: tile.0,
        y: tile.1,
        clear_mask: mask,
        clears: (0..mask.count_ones()).map(|_| rng.next_u64()).collect(),
    })];
    let bad_word = |rng: &mut Rng| loop {
        let w = rng.next_u64();
        if !(1..=4).contains(&(w & 0xFF)) {
            break w;
        }
    };
    for r in 0..=resolves {
        for _ in 0..rng.below(5) {
            if bad && rng.below(3) == 0 {
                l.push(Entry::Raw(bad_word(rng)));
            }
            l.push(Entry::Cmd(Command::Draw {
                state: rng.below(256) as u32,
                tri: random_tri(rng),
            }));
        }
        if r < resolves {
            l.push(Entry::Cmd(Command::Resolve {
                xthreads: 1 + rng.below(16) as u32,
                ythreads: 1 + rng.below(16) as u32,
                program: rng.next_u64() as u32,
            }));
        }
    }
    l.push(Entry::Cmd(Command::EndTile));
    if bad {
        l.push(Entry::Raw(bad_word(rng)));
        for _ in 0..rng.below(20) {
            l.push(Entry::Raw(rng.next_u64()));
        }
    }
    l
}

/// Malformed lists a run makes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    /// Words with unknown opcodes among the commands, junk after END_TILE.
    pub bad: bool,
    /// Every list cut short at a random word before its END_TILE (half of them just before).
    pub truncated: bool,
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
    faults: Faults,
) -> CmdRun {
    let design = tile_cmd_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_cmd", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, cfg, seed, tiles, (gap, stall), faults);
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
    faults: Faults,
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
    let mut list_words = 0;
    let mut bad_ops = 0;
    let mut bad_lists = 0;
    for t in 0..tiles {
        let list = random_list(
            &mut rng,
            cfg,
            (t as u32 % 7, t as u32 / 7),
            t % 3,
            faults.bad,
        );
        addr += 8 * rng.below(4); // lists start anywhere in a 128-byte block
        let mut words = Vec::new();
        let mut ends = Vec::new(); // the word after each entry
        let mut end_tile_at = 0;
        for e in &list {
            if matches!(e, Entry::Cmd(Command::EndTile)) {
                end_tile_at = words.len();
            }
            match e {
                Entry::Cmd(c) => words.extend(load_list(
                    &mut mem,
                    addr + 8 * words.len() as u64,
                    std::slice::from_ref(c),
                )),
                Entry::Raw(w) => {
                    mem.load(addr + 8 * words.len() as u64, &w.to_le_bytes());
                    words.push(*w);
                }
            }
            ends.push(words.len());
        }
        // The words the list is said to have: a truncated list stops before its END_TILE.
        let keep = match faults.truncated {
            false => words.len(),
            true if rng.below(2) == 0 => end_tile_at,
            true => rng.below(end_tile_at as u64 + 1) as usize,
        };
        list_src.send(&[addr, keep as u64])?;
        addr += 8 * words.len() as u64;
        list_words += keep as u64;
        let complete = |k: usize| ends[k] <= keep; // entry k is wholly in the list
        let ended = list
            .iter()
            .enumerate()
            .any(|(k, e)| complete(k) && matches!(e, Entry::Cmd(Command::EndTile)));
        bad_lists += usize::from(!ended || keep > end_tile_at + 1);
        let mut after_end = false;
        for (k, e) in list.iter().enumerate() {
            after_end |= matches!(e, Entry::Cmd(Command::EndTile));
            bad_ops += usize::from(complete(k) && !after_end && matches!(e, Entry::Raw(_)));
        }
        let mut flags = WoFlags {
            enable: (1 << cfg.planes()) - 1,
            set: 0,
            select: 0,
            sample: vec![0; cfg.planes()],
        };
        let mut tile = (0, 0);
        let mut begun = false;
        for (k, e) in list.iter().enumerate() {
            let Entry::Cmd(c) = e else { continue };
            if !complete(k) {
                break;
            }
            match c {
                Command::TileBegin {
                    x,
                    y,
                    clear_mask,
                    clears,
                } => {
                    tile = (u64::from(*x), u64::from(*y));
                    begun = true;
                    let b = begin_record(cfg, *x, *y, *clear_mask, clears);
                    boards[0].expect(flatten(&b, &TileBegin::shape(cfg)));
                }
                Command::Draw { tri, state } => {
                    boards[1].expect(flatten(&tri_record(tri, *state), &TriSetup::shape()))
                }
                Command::Resolve {
                    xthreads,
                    ythreads,
                    program,
                } => {
                    launches += 1;
                    boards[1].expect(flatten(&fence_tri(), &TriSetup::shape()));
                    let l = TsLaunch {
                        tile_x: tile.0,
                        tile_y: tile.1,
                        xthreads: u64::from(*xthreads),
                        ythreads: u64::from(*ythreads),
                        program: u64::from(*program),
                    };
                    boards[2].expect(flatten(&l, &TsLaunch::SHAPE));
                    flags = WoFlags {
                        enable: rng.below(1 << cfg.planes()),
                        set: rng.below(1 << cfg.planes()),
                        select: rng.below(1 << cfg.planes()),
                        sample: (0..cfg.planes()).map(|_| rng.below(4)).collect(),
                    };
                    flags_per_launch.push_back(flags.clone());
                }
                Command::EndTile => {
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
        if !ended && begun {
            // Cut short after its TILE_BEGIN: the tile ends as at END_TILE.
            boards[1].expect(flatten(&fence_tri(), &TriSetup::shape()));
            let s = WoStart {
                tile_x: tile.0,
                tile_y: tile.1,
                flags: flags.clone(),
            };
            boards[3].expect(flatten(&s, &WoStart::shape(cfg)));
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
    let bad_op = sim.output("bad_op")?;
    if sim.peek(bad_op) != u64::from(bad_ops > 0) {
        return Err(TbError::new(format!(
            "bad_op = {} after {bad_ops} unknown opcodes",
            sim.peek(bad_op)
        )));
    }
    let bad_list = sim.output("bad_list")?;
    if sim.peek(bad_list) != u64::from(bad_lists > 0) {
        return Err(TbError::new(format!(
            "bad_list = {} after {bad_lists} malformed lists",
            sim.peek(bad_list)
        )));
    }
    mem.assert_not_written("lists")?;
    let read = mem.region_named("lists")?.read_bytes;
    if read != 8 * list_words {
        return Err(TbError::new(format!(
            "{read} list bytes read, the lists have {}",
            8 * list_words
        )));
    }
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
    let r = run(
        &TileCfg::default(),
        rng.next_u64(),
        12,
        (0.3, 0.3),
        false,
        Faults::default(),
    );
    assert_eq!(r.launches, 12);
    assert!(r.cycles > 0);
}

/// Unknown opcodes among the commands are skipped (one word each) and set `bad_op`; words
/// after END_TILE are read and dropped; everything else runs as without them.
#[test]
fn bad_opcodes_are_skipped_and_flagged() {
    let mut rng = Rng::from_env_or(0xc3f);
    let r = run(
        &TileCfg::default(),
        rng.next_u64(),
        9,
        (0.2, 0.2),
        false,
        Faults {
            bad: true,
            truncated: false,
        },
    );
    assert_eq!(r.launches, 9);
}

/// Lists cut short (no END_TILE at the last word: cut between commands, inside a TILE_BEGIN
/// or DRAW, or empty) end their tile cleanly (the write-out after a TILE_BEGIN, nothing
/// before), set `bad_list`, and the lists after them run: the engine never hangs.
#[test]
fn truncated_lists_end_the_tile_and_are_flagged() {
    let mut rng = Rng::from_env_or(0xc40);
    run(
        &TileCfg::default(),
        rng.next_u64(),
        14,
        (0.2, 0.2),
        false,
        Faults {
            bad: false,
            truncated: true,
        },
    );
}

/// Truncated lists with bad opcodes among their commands, in the small configuration,
/// co-simulated in iverilog and Verilator.
#[test]
fn truncated_lists_small_config_cosimulate() {
    let mut rng = Rng::from_env_or(0xc41);
    run(
        &super::small_cfg(),
        rng.next_u64(),
        4,
        (0.2, 0.2),
        true,
        Faults {
            bad: true,
            truncated: true,
        },
    );
}

/// The small configuration, co-simulated in iverilog and Verilator.
#[test]
fn command_lists_small_config_cosimulate() {
    let mut rng = Rng::from_env_or(0xc3e);
    run(
        &super::small_cfg(),
        rng.next_u64(),
        3,
        (0.2, 0.2),
        true,
        Faults {
            bad: true,
            truncated: false,
        },
    );
}

#[test]
fn tile_cmd_lint_clean() {
    let design = tile_cmd_top(&super::small_cfg()).unwrap_or_else(|e| panic!("{e}"));
    assert_lint_clean(&design);
}
