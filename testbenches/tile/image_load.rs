//! `image_load` (the two-pass lighting pass's image loads) alone: random image loads of
//! surfaces of every format (RGBA8, RGBA16F, R32F, RG16F, D24; 1 and 4 samples) filled with
//! random bytes, helper lanes, out-of-bounds, unbound and non-load requests, the four channels
//! of each load interleaved across warp slots and lanes as the core issues them; random gaps
//! on the requests, back-pressure on the answers and a memory agent with random latency,
//! back-pressure and gaps. An in-order scoreboard checks every answer against a golden model
//! written here from the frame model's conversions (`pack::load_channel`, the texel read at
//! the request's own address, as `surface_port` does); the memory's per-region read counters
//! against the bytes the model counts (one texel per channel-0 load); the sticky error
//! against the first bad request. Co-simulation, lint and parameter errors.
use super::buffer::assert_lint_clean;
use super::flatten;
use rendergen_rtl::shader::SpecReq;
use rendergen_rtl::tile::image_load::{image_load_top, ImageCfg, ImageError, ImageTopCfg};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::models::tile::buffer::Format;
use rendergen_sim::models::tile::pack;
use rendergen_sim::models::tile::port;
use rendergen_sim::Simulator;

/// A surface of the test: binding, format (`None`: D24), width, height, samples, base.
#[derive(Clone, Copy)]
struct Surf {
    binding: u32,
    format: Option<Format>,
    size: (u32, u32, u32),
    base: u64,
}

impl Surf {
    fn bytes(&self) -> u64 {
        pack::bytes_per_sample(self.format) as u64
    }
    fn addr(&self, x: u32, y: u32, s: u32) -> u64 {
        let (w, _, n) = self.size;
        self.base + ((y as u64 * w as u64 + x as u64) * n as u64 + s as u64) * self.bytes()
    }
    fn code(&self) -> u64 {
        match self.format {
            Some(Format::Rgba8) => 0,
            Some(Format::Rgba16f) => 1,
            Some(Format::R32f) => 2,
            Some(Format::Rg16f) => 3,
            None => 4,
        }
    }
}

const SURFACES: [Surf; 5] = [
    Surf {
        binding: 0,
        format: Some(Format::Rgba8),
        size: (5, 3, 1),
        base: 0x1000,
    },
    Surf {
        binding: 1,
        format: Some(Format::Rgba16f),
        size: (3, 2, 4),
        base: 0x2000,
    },
    Surf {
        binding: 2,
        format: Some(Format::R32f),
        size: (4, 4, 4),
        base: 0x3000,
    },
    Surf {
        binding: 3,
        format: Some(Format::Rg16f),
        size: (2, 5, 1),
        base: 0x4008,
    },
    Surf {
        binding: 8,
        format: None,
        size: (3, 3, 4),
        base: 0x5000,
    },
];

/// The golden answer of channel `ch` of the texel at `addr` (`surface_port`).
fn golden(mem: &[u8], s: &Surf, addr: u64, ch: u32) -> u64 {
    let n = s.bytes() as usize;
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&mem[addr as usize..addr as usize + n]);
    let stored = u64::from_le_bytes(b);
    (match s.format {
        Some(f) => pack::load_channel(f, stored, ch as usize),
        None => match ch {
            0 => stored as u32,
            3 => 1,
            _ => 0,
        },
    }) as u64
}

/// One image load in flight in the generator: its lane and what it reads.
struct Group {
    slot: u64,
    lane: u64,
    func_base: u32,
    a: u32,
    helper: bool,
    next_ch: u32,
    /// The expected answers of channels 0..=3 and the bytes of a fetch (region, bytes).
    answers: [u64; 4],
    fetch: Option<(usize, u64)>,
    error: Option<(ImageError, [u64; 4])>,
}

fn make_group(rng: &mut Rng, mem: &[u8], slot: u64, lane: u64) -> Group {
    let k = rng.below(SURFACES.len() as u64) as usize;
    let s = SURFACES[k];
    let (w, h, n) = s.size;
    let mut binding = s.binding;
    let (mut x, mut y, mut smp) = (
        rng.below(w as u64) as u32,
        rng.below(h as u64) as u32,
        rng.below(n as u64) as u32,
    );
    let mut op = port::OP_LOAD;
    let mut error = None;
    match rng.below(20) {
        0 => match rng.below(3) {
            0 => x = w + rng.below(3) as u32,
            1 => y = h + rng.below(3) as u32,
            _ => smp = n + rng.below(4 - n as u64 + 1) as u32,
        },
        1 => binding = [5, 12, 4][rng.below(3) as usize],
        2 => op = port::OP_STORE,
        _ => {}
    }
    let smp = smp.min(15);
    let helper = rng.chance(0.1);
    let at = [binding as u64, x as u64, y as u64, smp as u64];
    if op != port::OP_LOAD {
        error = Some((ImageError::NotALoad, at));
    } else if binding != s.binding {
        error = Some((ImageError::Unbound, at));
    } else if x >= w || y >= h || smp >= n {
        error = Some((ImageError::OutOfBounds, at));
    }
    let fine = error.is_none() && !helper;
    let addr = s.addr(x, y, smp);
    Group {
        slot,
        lane,
        func_base: port::function(op, binding, 0),
        a: port::address(x, y, smp),
        helper,
        next_ch: 0,
        answers: std::array::from_fn(|ch| match fine {
            true => golden(mem, &s, addr, ch as u32),
            false => 0,
        }),
        fetch: fine.then_some((k, s.bytes())),
        error: if helper { None } else { error },
    }
}

fn run(seed: u64, loads: usize, (gap, stall): (f64, f64), cosim: bool) -> Result<(), String> {
    let cfg = ImageTopCfg::default();
    let design = image_load_top(&cfg).map_err(|e| e.to_string())?;
    let mut sim = Simulator::new(&design).map_err(|e| e.to_string())?;
    if cosim {
        sim.start_recording();
    }
    let tb = TestRun::start(&mut sim, "image_load", seed);
    let r = drive(&mut sim, seed, loads, (gap, stall));
    tb.finish(&mut sim, r)?;
    if cosim {
        let mut trace = sim.take_trace();
        trace.cycles.truncate(1_500);
        rendergen_gen::cosim::cosim_both(&design, &trace).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn drive(
    sim: &mut Simulator,
    seed: u64,
    loads: usize,
    (gap, stall): (f64, f64),
) -> Result<(), TbError> {
    let cfg = ImageTopCfg::default();
    let mut rng = Rng::new(seed);
    let size = 0x6000usize;
    let mut mem = MemoryAgent::new(
        sim,
        "mem",
        MemCfg {
            size,
            min_latency: 1,
            max_latency: 16,
            stall,
            gap,
            poison: 0xA5,
            max_outstanding: 8,
            seed: rng.next_u64(),
        },
    )?;
    let bytes: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
    for s in &SURFACES {
        let (w, h, n) = s.size;
        let len = w as u64 * h as u64 * n as u64 * s.bytes();
        mem.region(&format!("binding{}", s.binding), s.base, len);
        mem.load(s.base, &bytes[s.base as usize..(s.base + len) as usize]);
    }
    let mut enable = 0;
    for s in &SURFACES {
        enable |= 1 << s.binding;
        let b = s.binding;
        for (f, v) in [
            ("base", s.base),
            ("format", s.code()),
            ("width", s.size.0 as u64),
            ("height", s.size.1 as u64),
            ("samples", s.size.2 as u64),
        ] {
            let p = sim.input(&format!("table_{f}_{b}"))?;
            sim.poke(p, v);
        }
    }
    let p = sim.input("table_enable")?;
    sim.poke(p, enable);
    let mut src = StreamSource::new(sim, "spec_req", rng.next_u64())?.gap_prob(gap);
    let mut sink = StreamSink::new(sim, "spec_resp", rng.next_u64())?.stall_prob(stall);
    let mut board = InOrder::new();
    let mut expected_reads = vec![0u64; SURFACES.len()];
    let mut first_error = None;
    // Up to six loads open at once, each on its own (slot, lane), channels in turn.
    let mut open: Vec<Group> = Vec::new();
    let mut started = 0;
    let shape = SpecReq {
        slot: cfg.slot_bits,
        lane: cfg.lane_bits,
        func: 32,
        a: 32,
        b: 32,
        helper: 1,
    };
    while started < loads || !open.is_empty() {
        if started < loads && open.len() < 6 && rng.chance(0.5) {
            let (slot, lane) = loop {
                let c = (rng.below(8), rng.below(4));
                if !open.iter().any(|g| (g.slot, g.lane) == c) {
                    break c;
                }
            };
            open.push(make_group(&mut rng, &bytes, slot, lane));
            started += 1;
            continue;
        }
        if open.is_empty() {
            continue;
        }
        let k = rng.below(open.len() as u64) as usize;
        let g = &mut open[k];
        let ch = g.next_ch;
        let req = SpecReq {
            slot: g.slot,
            lane: g.lane,
            func: (g.func_base | ch) as u64,
            a: g.a as u64,
            b: rng.below(1 << 32),
            helper: g.helper as u64,
        };
        src.send(&flatten(&req, &shape))?;
        board.expect(vec![g.slot, g.lane, g.answers[ch as usize]]);
        if first_error.is_none() {
            first_error = g.error;
        }
        if let (0, Some((k, n))) = (ch, g.fetch) {
            expected_reads[k] += n;
        }
        g.next_ch += 1;
        if g.next_ch == 4 {
            open.swap_remove(k);
        }
    }
    sim.reset(1);
    let dog = Watchdog::new(100 * loads as u64 + 1000, seed);
    dog.run_until(sim, "every answer", |sim| {
        super::mem_unit_cycle(sim, &mut src, &mut sink, &mut mem, &mut board)?;
        Ok(src.is_idle() && board.outstanding() == 0)
    })?;
    board.check_complete()?;
    mem.check()?;
    for (k, r) in mem.regions().iter().enumerate() {
        if r.read_bytes != expected_reads[k] || r.written_bytes != 0 {
            return Err(TbError::new(format!(
                "region `{}`: read {} bytes, written {}; the model reads {}",
                r.name, r.read_bytes, r.written_bytes, expected_reads[k]
            )));
        }
    }
    let code = sim.peek(sim.output("error")?);
    let at: Vec<u64> = (0..4)
        .map(|k| sim.output(&format!("error_at_{k}")).map(|p| sim.peek(p)))
        .collect::<Result<_, _>>()?;
    let got = ImageError::from_code(code).map(|e| (e, [at[0], at[1], at[2], at[3]]));
    if got != first_error {
        return Err(TbError::new(format!(
            "sticky error {got:?}, expected the first bad request's {first_error:?}"
        )));
    }
    Ok(())
}

#[test]
fn image_loads_match_the_model() {
    let mut rng = Rng::from_env_or(0x1a9e);
    run(rng.next_u64(), 600, (0.0, 0.0), false).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn image_loads_under_back_pressure() {
    let mut rng = Rng::from_env_or(0x1a9f);
    for _ in 0..3 {
        run(rng.next_u64(), 400, (0.3, 0.3), false).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn image_load_cosimulates() {
    run(0x1aa0, 120, (0.2, 0.2), true).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn image_load_lint_clean() {
    assert_lint_clean(&image_load_top(&ImageTopCfg::default()).unwrap_or_else(|e| panic!("{e}")));
}

#[test]
fn image_load_bad_parameters_are_named() {
    let cfg = ImageTopCfg {
        image: ImageCfg { bindings: 17 },
        ..ImageTopCfg::default()
    };
    let e = image_load_top(&cfg).unwrap_err().to_string();
    assert!(e.contains("image.bindings") && e.contains("1..=16"), "{e}");
    let cfg = ImageTopCfg {
        lane_bits: 0,
        ..ImageTopCfg::default()
    };
    let e = image_load_top(&cfg).unwrap_err().to_string();
    assert!(e.contains("lane_bits"), "{e}");
}

/// `image_channel` exhaustively against the model's conversions: every binary16 (RGBA16F
/// channel 0, subnormals and NaNs included), every UNORM8 (RGBA8 channel 0), and the missing
/// channels of RG16F, R32F and D24. (The RTL's `f16_to_f32` once shifted a subnormal's
/// fraction by `lz + 14` in 4 bits, 0 for `lz ≥ 2`; the random test above found it.)
#[test]
fn image_channel_matches_the_model_exhaustively() {
    use rendergen_rtl::tile::image_load::image_channel;
    let design = rendergen_hdl::Design::build("image_channel_top", |m| {
        let format = m.input("format", 3);
        let stored = m.input("stored", 64);
        let c = m.input("c", 2);
        let out = image_channel(m, format, stored, c);
        m.output("out", out);
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let (f, s, c) = (
        sim.input("format").unwrap(),
        sim.input("stored").unwrap(),
        sim.input("c").unwrap(),
    );
    let out = sim.output("out").unwrap();
    let eval = |sim: &mut Simulator, format: u64, stored: u64, ch: u64| {
        sim.poke(f, format);
        sim.poke(s, stored);
        sim.poke(c, ch);
        sim.peek(out)
    };
    for h in 0..=0xFFFFu64 {
        let want = pack::load_channel(Format::Rgba16f, h << 16, 1) as u64;
        assert_eq!(eval(&mut sim, 1, h << 16, 1), want, "binary16 {h:#06x}");
    }
    for u in 0..=0xFFu64 {
        let want = pack::load_channel(Format::Rgba8, u << 24, 3) as u64;
        assert_eq!(eval(&mut sim, 0, u << 24, 3), want, "unorm8 {u:#04x}");
    }
    let word = 0x1234_5678_9ABC_DEF0u64;
    for ch in 0..4 {
        for (code, f) in [(2, Format::R32f), (3, Format::Rg16f)] {
            let want = pack::load_channel(f, word, ch as usize) as u64;
            assert_eq!(eval(&mut sim, code, word, ch), want, "{f:?} channel {ch}");
        }
        let d24 = [word & 0xFFFF_FFFF, 0, 0, 1][ch as usize];
        assert_eq!(eval(&mut sim, 4, word, ch), d24, "D24 channel {ch}");
    }
}

/// Yosys area of `image_load` per module (default configuration: 9 bindings, 3-bit slot,
/// 2-bit lane), the cost figure of its docs; the CLI's `rendergen synth image_load` runs the
/// same flow.
/// `cargo test -p rendergen-testbenches --test testbenches tile::image_load::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_image_load_area() {
    use rendergen_gen::tools::{synth_per_module, SynthTarget};
    let d = image_load_top(&ImageTopCfg::default()).unwrap_or_else(|e| panic!("{e}"));
    let r = synth_per_module(&d, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r}");
}
