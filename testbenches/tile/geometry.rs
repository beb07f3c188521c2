//! `tile_geometry`: screen-space triangles (random soups with off-screen, guard-band,
//! back-facing, culled and zero-area triangles; and the binned triangles of the frame model's
//! `lit_model` scene) through triangle setup, the tiler and the list writer, against the frame
//! model's tiler (`rendergen_sim::models::tile::frame::bin_triangle`, `setup.rs` and the
//! command encoder): every tile's list in memory equals the model's byte for byte; the lists
//! come out row-major with the right addresses and lengths (scoreboard); random input gaps,
//! memory latency, back-pressure and answer gaps; co-simulation; lint.
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_hdl::Bundle;
use rendergen_rtl::tile::geometry::{tile_geometry_top, GeomCfg, GeomPrim, KIND_BEGIN, KIND_END};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::command::Command;
use rendergen_sim::models::tile::frame::{bin_triangle, BinnedTriangle};
use rendergen_sim::models::tile::setup::{CompareOp, CullMode, FrontFace, RasterState, Vertex};
use rendergen_sim::models::tile::{DEPTH_MAX, PIXEL};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

/// A frame for the geometry front end.
pub struct GeomFrame {
    /// Tiles per row and rows.
    pub tiles: (u32, u32),
    /// Clear values of the planes (their count is the configuration's `planes`).
    pub clears: Vec<u64>,
    /// Triangles in primitive order.
    pub tris: Vec<BinnedTriangle>,
}

/// What a run measured.
pub struct GeomRun {
    /// Cycles from the first input to the last list.
    pub cycles: u64,
    /// `DRAW`s written.
    pub draws: usize,
}

/// The model's lists of `f`: per tile `TILE_BEGIN` (every plane cleared), the `DRAW`s of
/// [`bin_triangle`], `END_TILE`.
pub fn model_lists(f: &GeomFrame) -> Vec<Vec<u64>> {
    let (tx, ty) = f.tiles;
    let mask = (1u32 << f.clears.len()) - 1;
    let mut lists: Vec<Vec<u64>> = (0..tx * ty)
        .map(|t| {
            Command::TileBegin {
                x: t % tx,
                y: t / tx,
                clear_mask: mask,
                clears: f.clears.clone(),
            }
            .encode()
            .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    for (p, t) in f.tris.iter().enumerate() {
        for (tile, words) in bin_triangle(&t.v, &t.state, t.mesh, p as u32, f.tiles)
            .unwrap_or_else(|e| panic!("{e}"))
        {
            lists[tile].extend(words);
        }
    }
    for l in &mut lists {
        l.push(Command::EndTile.encode().expect("END_TILE")[0]);
    }
    lists
}

fn saturate(v: i64) -> u64 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as u64
}

/// The `prim` record of triangle `p`.
fn prim_record(p: usize, t: &BinnedTriangle) -> Vec<u64> {
    let r = GeomPrim {
        kind: 0,
        x: t.v.map(|v| saturate(v.x)),
        y: t.v.map(|v| saturate(v.y)),
        z: t.v.map(|v| u64::from(v.z)),
        rw: t.v.map(|v| u64::from(v.rw.to_bits())),
        prim: p as u64,
        state: u64::from(t.mesh),
        cull: match t.state.cull {
            CullMode::None => 0,
            CullMode::Front => 1,
            CullMode::Back => 2,
        },
        front_cw: u64::from(t.state.front_face == FrontFace::Clockwise),
        depth_op: t.state.depth_op as u64,
        depth_write: u64::from(t.state.depth_write),
    };
    flatten(&r, &GeomPrim::SHAPE)
}

fn marker(kind: u64) -> Vec<u64> {
    let mut r = vec![0; <GeomPrim as Bundle>::layout(&GeomPrim::SHAPE).len()];
    r[0] = kind;
    r
}

/// Runs `f` through `tile_geometry`; with `cosim`, replays the start in iverilog and Verilator.
pub fn run(
    cfg: &GeomCfg,
    f: &GeomFrame,
    seed: u64,
    (gap, stall): (f64, f64),
    cosim: bool,
) -> GeomRun {
    let design = tile_geometry_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, "tile_geometry", seed);
    if cosim {
        sim.start_recording();
    }
    let r = drive(&mut sim, cfg, f, seed, (gap, stall));
    let run = tb.check(&mut sim, r);
    if cosim {
        cosim_prefix(&design, &mut sim);
    }
    run
}

const BASE: u64 = 0x1000;

fn drive(
    sim: &mut Simulator,
    cfg: &GeomCfg,
    f: &GeomFrame,
    seed: u64,
    (gap, stall): (f64, f64),
) -> Result<GeomRun, TbError> {
    let mut rng = Rng::new(seed);
    let expected = model_lists(f);
    let ntiles = expected.len() as u64;
    let bin_bytes = 8 * u64::from(cfg.bin_words);
    let mut mem = MemoryAgent::new(
        sim,
        "mem",
        MemCfg {
            size: (BASE + ntiles * bin_bytes) as usize,
            min_latency: 1,
            max_latency: 12,
            stall,
            gap,
            max_outstanding: 4,
            seed: rng.next_u64(),
            ..MemCfg::default()
        },
    )?;
    mem.region("lists", BASE, ntiles * bin_bytes);
    mem.region("below", 0, BASE);
    for (name, v) in [
        ("cfg_tiles_x", u64::from(f.tiles.0)),
        ("cfg_tiles_y", u64::from(f.tiles.1)),
        ("cfg_base", BASE),
    ] {
        let p = sim.input(name)?;
        sim.poke(p, v);
    }
    for (p, v) in f.clears.iter().enumerate() {
        let port = sim.input(&format!("cfg_clear_{p}"))?;
        sim.poke(port, *v);
    }
    let overflow = sim.output("overflow")?;
    let mut src = StreamSource::new(sim, "prim", rng.next_u64())?.gap_prob(gap);
    let mut sink = StreamSink::new(sim, "list", rng.next_u64())?.stall_prob(stall);
    let mut board = InOrder::new();
    src.send(&marker(KIND_BEGIN))?;
    for (p, t) in f.tris.iter().enumerate() {
        src.send(&prim_record(p, t))?;
    }
    src.send(&marker(KIND_END))?;
    for (t, l) in expected.iter().enumerate() {
        board.expect(vec![BASE + t as u64 * bin_bytes, l.len() as u64]);
    }
    sim.reset(1);
    let begin = sim.cycle();
    let draws: usize = expected
        .iter()
        .map(|l| (l.len() - 2 - f.clears.len()) / 10)
        .sum();
    let budget = 40 * (ntiles + 4) * (1 + f.clears.len() as u64)
        + 200 * (draws as u64 + f.tris.len() as u64)
        + 2000;
    let dog = Watchdog::new(budget, seed);
    dog.run_until(sim, "every tile's list", |sim| {
        super::mem_unit_cycle(sim, &mut src, &mut sink, &mut mem, &mut board)?;
        if sim.peek(overflow) != 0 {
            return Err(TbError::new("overflow set: a DRAW did not fit its bin"));
        }
        Ok(board.outstanding() == 0)
    })?;
    board.check_complete()?;
    mem.check()?;
    mem.assert_not_written("below")?;
    let cycles = sim.cycle() - begin;
    for (t, l) in expected.iter().enumerate() {
        let want: Vec<u8> = l.iter().flat_map(|w| w.to_le_bytes()).collect();
        let got = mem.bytes(BASE + t as u64 * bin_bytes, want.len());
        if got != want.as_slice() {
            let word = (0..l.len())
                .find(|&k| got[8 * k..8 * k + 8] != want[8 * k..8 * k + 8])
                .unwrap_or(0);
            let g = u64::from_le_bytes(got[8 * word..8 * word + 8].try_into().expect("8"));
            return Err(TbError::new(format!(
                "tile {t} ({}, {}): list word {word} is 0x{g:016x}, the model's 0x{:016x} (list of {} words)",
                t as u32 % f.tiles.0,
                t as u32 / f.tiles.0,
                l[word],
                l.len()
            )));
        }
    }
    Ok(GeomRun { cycles, draws })
}

/// A random triangle soup over a `tiles` screen: small and large triangles on and off
/// screen, some beyond the guard band, some of zero area, random winding, cull mode, front
/// face and depth state; vertices sometimes snapped to pixel centres or shared.
pub fn random_soup(rng: &mut Rng, tiles: (u32, u32), n: usize) -> Vec<BinnedTriangle> {
    let (w, h) = (
        i64::from(tiles.0) * 16 * PIXEL,
        i64::from(tiles.1) * 16 * PIXEL,
    );
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let spread = [2 * PIXEL, 20 * PIXEL, 80 * PIXEL][rng.below(3) as usize];
        let (cx, cy) = (
            rng.below((w + 64 * PIXEL) as u64) as i64 - 32 * PIXEL,
            rng.below((h + 64 * PIXEL) as u64) as i64 - 32 * PIXEL,
        );
        let snap = rng.below(3);
        let mut v: [Vertex; 3] = std::array::from_fn(|_| {
            let mut c = |o: i64| {
                let p = o + rng.below(2 * spread as u64) as i64 - spread;
                match snap {
                    0 => p,
                    1 => p & !(PIXEL - 1) | 128,
                    _ => p & !31,
                }
            };
            Vertex {
                x: c(cx),
                y: c(cy),
                z: rng.below(u64::from(DEPTH_MAX) + 1) as u32,
                rw: 1.0 / (0.5 + rng.below(1000) as f32 / 100.0),
            }
        });
        match rng.below(12) {
            0 => {
                v[2] = Vertex {
                    x: 2 * v[1].x - v[0].x,
                    y: 2 * v[1].y - v[0].y,
                    ..v[2]
                }
            } // zero area
            1 => v[1].x = (1 << 21) + rng.below(1 << 22) as i64, // beyond the guard band
            2 => v[0].y = -(1 << 21) - rng.below(1 << 40) as i64,
            3 => v[1].x = (1 << 21) - 1 - rng.below(4) as i64, // at its edge (inside)
            4 => {
                // Huge, inside the guard band: many tiles, big edge constants.
                v[0].x = -(1 << 21) + 1;
                v[1].y = (1 << 21) - 1;
            }
            _ => {}
        }
        let state = RasterState {
            cull: [CullMode::None, CullMode::Front, CullMode::Back][rng.below(3) as usize],
            front_face: [FrontFace::CounterClockwise, FrontFace::Clockwise][rng.below(2) as usize],
            depth_op: CompareOp::ALL[rng.below(8) as usize],
            depth_write: rng.below(2) == 1,
        };
        out.push(BinnedTriangle {
            mesh: rng.below(256) as u32,
            state,
            v,
        });
    }
    out
}

/// A random soup frame with random clear values.
pub fn soup_frame(rng: &mut Rng, cfg: &GeomCfg, tiles: (u32, u32), n: usize) -> GeomFrame {
    GeomFrame {
        tiles,
        clears: (0..cfg.planes).map(|_| rng.next_u64()).collect(),
        tris: random_soup(rng, tiles, n),
    }
}

/// The smallest legal bin that holds the longest list of `f`.
pub fn bin_words_for(f: &GeomFrame) -> u32 {
    let longest = model_lists(f).iter().map(Vec::len).max().unwrap_or(0);
    (longest as u32).next_power_of_two().max(32)
}

#[test]
fn soup_lists_equal_the_model() {
    let mut rng = Rng::new(0x6E0);
    let base = GeomCfg::default();
    let f = soup_frame(&mut rng, &base, (5, 4), 120);
    let cfg = GeomCfg {
        bin_words: bin_words_for(&f),
        max_tiles: 32,
        ..base
    };
    let r = run(&cfg, &f, 0x6E01, (0.3, 0.3), false);
    assert!(r.draws > 100, "{} draws", r.draws);
}

#[test]
fn soup_lists_equal_the_model_one_step_divider_small_config() {
    let mut rng = Rng::new(0x6E1);
    let base = GeomCfg {
        planes: 2,
        div_steps: 1,
        ..GeomCfg::default()
    };
    let f = soup_frame(&mut rng, &base, (3, 2), 40);
    let cfg = GeomCfg {
        bin_words: bin_words_for(&f),
        max_tiles: 8,
        ..base
    };
    run(&cfg, &f, 0x6E11, (0.5, 0.5), false);
}

#[test]
fn cosim_and_lint() {
    let mut rng = Rng::new(0x6E2);
    let base = GeomCfg {
        planes: 2,
        ..GeomCfg::default()
    };
    let f = soup_frame(&mut rng, &base, (2, 2), 12);
    let cfg = GeomCfg {
        bin_words: 256,
        max_tiles: 4,
        ..base
    };
    run(&cfg, &f, 0x6E21, (0.2, 0.2), true);
    assert_lint_clean(&tile_geometry_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

#[test]
fn bad_parameters_are_elaboration_errors() {
    for (cfg, name) in [
        (
            GeomCfg {
                planes: 10,
                ..GeomCfg::default()
            },
            "`planes`",
        ),
        (
            GeomCfg {
                bin_words: 48,
                ..GeomCfg::default()
            },
            "`bin_words`",
        ),
        (
            GeomCfg {
                max_tiles: 0,
                ..GeomCfg::default()
            },
            "`max_tiles`",
        ),
        (
            GeomCfg {
                div_steps: 9,
                ..GeomCfg::default()
            },
            "`div_steps`",
        ),
    ] {
        let e = tile_geometry_top(&cfg).map(|_| ()).unwrap_err();
        assert!(e.only_params(), "{e}");
        assert!(e.to_string().contains(name), "{e}");
    }
}

/// The frame model's `forward` pass of `lit_model.json`: its binned triangles, and its lists
/// read back from its `command lists` region (table, then lists) with the clear values of
/// its `TILE_BEGIN`s.
fn lit_model_frame() -> (GeomFrame, Vec<Vec<u64>>) {
    use rendergen_gen::raster::{render, Mode, RasterScene};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gen/raster/scenes/lit_model.json");
    let sc = RasterScene::load(&path).unwrap_or_else(|e| panic!("{e:?}"));
    let frame = render(&sc, Mode::Forward, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e:?}"));
    let (_, pass) = &frame.passes[0];
    let tiles = (frame.width.div_ceil(16), frame.height.div_ceil(16));
    let region = frame
        .memory
        .regions()
        .iter()
        .find(|r| r.name.ends_with("command lists"))
        .expect("a command-list region");
    let words: Vec<u64> = region
        .bytes()
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
        .collect();
    let lists: Vec<Vec<u64>> = (0..(tiles.0 * tiles.1) as usize)
        .map(|t| {
            let (at, len) = ((words[t] & 0xFFFF_FFFF) as usize, (words[t] >> 32) as usize);
            words[at..at + len].to_vec()
        })
        .collect();
    let planes = Command::size(lists[0][0]).expect("TILE_BEGIN") - 1;
    let f = GeomFrame {
        tiles,
        clears: lists[0][1..=planes].to_vec(),
        tris: pass.triangles.clone(),
    };
    (f, lists)
}

#[test]
fn lit_model_lists_equal_the_frame_model() {
    let (f, model) = lit_model_frame();
    // The testbench's golden lists are the frame model's own.
    assert_eq!(
        model_lists(&f),
        model,
        "model_lists differs from run_pass's lists"
    );
    let cfg = GeomCfg {
        planes: f.clears.len() as u32,
        bin_words: bin_words_for(&f),
        max_tiles: 32,
        ..GeomCfg::default()
    };
    let r = run(&cfg, &f, 0x117, (0.2, 0.2), false);
    assert!(r.draws > 0);
    eprintln!(
        "lit_model forward: {} triangles, {} DRAWs, {} cycles ({:.4} triangles/clock, {:.3} DRAWs/clock)",
        f.tris.len(),
        r.draws,
        r.cycles,
        f.tris.len() as f64 / r.cycles as f64,
        r.draws as f64 / r.cycles as f64
    );
}

/// Area of the default configuration, per module (what `rendergen synth tile_geometry
/// --per-module` prints); slow (Yosys on the 94-bit divider and the products), so ignored.
#[test]
#[ignore]
fn measure_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = tile_geometry_top(&GeomCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}
