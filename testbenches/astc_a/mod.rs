//! ASTC_A (texture-address pipeline) against its golden model
//! (`rendergen_sim::models::texture_address`): random requests with random valid gaps and
//! random back-pressure, an in-order scoreboard over every response field, latency and
//! throughput, co-simulation in iverilog and Verilator, lint.

mod kernels;
mod stimulus;

use rendergen_gen::cosim::cosim_both;
use rendergen_gen::tools::lint;
use rendergen_hdl::Design;
use rendergen_rtl::astc::a::{astc_a_top, AstcACfg, Pipelining};
use rendergen_sim::kit::{seed_from_env_or, InOrder, Rng, StreamSink, StreamSource, TbError};
use rendergen_sim::kit::{TestRun, Watchdog};
use rendergen_sim::models::texture_address::{footprint_width, mip_level, texture_address};
use rendergen_sim::models::texture_address::{AddressRequest, FOOTPRINTS};
use rendergen_sim::Simulator;

/// One response as the scoreboard compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rsp {
    block_address: u64,
    texel_x: u64,
    texel_y: u64,
    mip: u64,
    tag: u64,
}

const REQ_FIELDS: [&str; 10] = [
    "req_u",
    "req_v",
    "req_sqrt_coverage",
    "req_base",
    "req_width",
    "req_height",
    "req_bw",
    "req_bh",
    "req_mips",
    "req_tag",
];

/// The request's port values, in [`REQ_FIELDS`] order.
fn req_ports(r: &AddressRequest, tag: u64) -> Vec<u64> {
    let t = &r.tex;
    let word = |x: i32| x as u32 as u64;
    let (u, v, sc) = (word(r.u), word(r.v), word(r.sqrt_coverage));
    let desc = [t.base, t.width, t.height, t.bw, t.bh, t.mips].map(u64::from);
    [[u, v, sc].as_slice(), &desc, &[tag]].concat()
}

/// What the model says the pipeline must answer.
fn expected(r: &AddressRequest, tag: u64) -> Rsp {
    let a = texture_address(r);
    Rsp {
        block_address: a.block_address as u64,
        texel_x: a.texel_x as u64,
        texel_y: a.texel_y as u64,
        mip: a.mip as u64,
        tag,
    }
}

fn build(cfg: &AstcACfg) -> (Design, Simulator) {
    let design = astc_a_top(cfg).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    (design, sim)
}

/// Traffic shape of one run.
#[derive(Clone, Copy)]
struct Traffic {
    gap: f64,
    stall: f64,
}

/// Cycles at which each request went in and each response came out.
struct Timing {
    accepted: Vec<u64>,
    delivered: Vec<u64>,
}

/// Sends `reqs` (tag = index) through the pipeline and checks every response in order against
/// the model, the transfer rules on `rsp`, and completion.
fn run(
    sim: &mut Simulator,
    cfg: &AstcACfg,
    reqs: &[AddressRequest],
    traffic: Traffic,
    seed: u64,
) -> Result<Timing, TbError> {
    let mut rng = Rng::new(seed);
    let mut src = StreamSource::new(sim, "req", rng.next_u64())?.gap_prob(traffic.gap);
    let mut sink = StreamSink::new(sim, "rsp", rng.next_u64())?.stall_prob(traffic.stall);
    assert_eq!(src.fields(), REQ_FIELDS);
    let tag_mask = u64::MAX >> (64 - cfg.tag_width);
    let mut board = InOrder::new();
    for (i, r) in reqs.iter().enumerate() {
        let tag = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & tag_mask;
        src.send(&req_ports(r, tag))?;
        board.expect(expected(r, tag));
    }
    sim.reset(2);
    let mut timing = Timing {
        accepted: Vec::new(),
        delivered: Vec::new(),
    };
    let limit = 20 * reqs.len() as u64 + 100;
    Watchdog::new(limit, seed).run_until(sim, "every response", |sim| {
        src.drive(sim);
        sink.drive(sim);
        let sent = src.sent();
        src.sample(sim);
        sink.sample(sim);
        if src.sent() > sent {
            timing.accepted.push(sim.cycle());
        }
        for item in &sink.items_u64()[timing.delivered.len()..] {
            let [block_address, texel_x, texel_y, mip, tag] = item[..] else {
                return Err(TbError::new(format!("rsp has fields {:?}", sink.fields())));
            };
            let got = Rsp {
                block_address,
                texel_x,
                texel_y,
                mip,
                tag,
            };
            let index = timing.delivered.len();
            board
                .observe(got)
                .map_err(|e| TbError::new(format!("{e}\n  request #{index}: {:?}", reqs[index])))?;
            timing.delivered.push(sim.cycle());
        }
        sink.protocol_result()?;
        Ok(src.is_idle() && board.outstanding() == 0)
    })?;
    board.check_complete()?;
    // A few idle cycles more: nothing else may come out.
    for _ in 0..2 * cfg.latency() {
        sim.step();
        src.drive(sim);
        sink.drive(sim);
        src.sample(sim);
        sink.sample(sim);
    }
    if sink.items().len() != reqs.len() {
        return Err(TbError::new(format!(
            "{} responses for {} requests",
            sink.items().len(),
            reqs.len()
        )));
    }
    Ok(timing)
}

/// A named stimulus case.
type Case<'a> = (&'a str, &'a dyn Fn(&AddressRequest) -> bool);

/// The stimulus reaches every case `pbru.md` T-TX-1 names (and a few more).
fn check_coverage(reqs: &[AddressRequest]) {
    for fp in FOOTPRINTS {
        assert!(
            reqs.iter().any(|r| (r.tex.bw, r.tex.bh) == fp),
            "footprint {fp:?}"
        );
    }
    let width = |r: &AddressRequest| footprint_width(r.sqrt_coverage, &r.tex);
    let cases: [Case; 8] = [
        ("width 0", &|r| width(r) == 0),
        ("width 1", &|r| width(r) == 1),
        ("mip clamped at the coarsest", &|r| {
            mip_level(width(r), 15) > mip_level(width(r), r.tex.mips)
        }),
        ("mip 14", &|r| texture_address(r).mip == 14),
        ("mip between", &|r| {
            (1..r.tex.mips.saturating_sub(1)).contains(&texture_address(r).mip)
        }),
        ("NPOT size", &|r| !r.tex.width.is_power_of_two()),
        ("negative u", &|r| r.u < 0),
        ("negative coverage", &|r| r.sqrt_coverage < 0),
    ];
    for (name, hit) in cases {
        let n = reqs.iter().filter(|r| hit(r)).count();
        assert!(n >= 5, "stimulus reaches `{name}` only {n} times");
    }
}

fn random_traffic(cfg: AstcACfg, n: usize, name: &str, default_seed: u64) {
    let (_, mut sim) = build(&cfg);
    let seed = seed_from_env_or(default_seed);
    let mut rng = Rng::new(seed);
    let reqs = stimulus::requests(&mut rng, n, 20);
    check_coverage(&reqs);
    let test = TestRun::start(&mut sim, name, seed);
    let traffic = Traffic {
        gap: 0.3,
        stall: 0.4,
    };
    let r = run(&mut sim, &cfg, &reqs, traffic, rng.next_u64());
    let timing = test.check(&mut sim, r);
    // Stalls must have filled the pipeline at some point (back-pressure was exercised).
    let max_in_flight = (timing.accepted.iter())
        .enumerate()
        .map(|(i, a)| i - timing.delivered.partition_point(|d| d < a))
        .max();
    assert!(
        max_in_flight >= Some(cfg.latency() as usize),
        "{max_in_flight:?}"
    );
}

#[test]
fn deep_pipeline_matches_the_model_under_gaps_and_back_pressure() {
    random_traffic(AstcACfg::default(), 4000, "astc_a_deep", 0xA57C_A001);
}

#[test]
fn shallow_pipeline_with_wide_tags_matches_the_model() {
    let cfg = AstcACfg {
        tag_width: 64,
        pipelining: Pipelining::Shallow,
    };
    random_traffic(cfg, 2000, "astc_a_shallow", 0xA57C_A002);
}

/// Continuous input, no back-pressure: one response per clock after the latency.
#[test]
fn one_response_per_clock_after_the_latency() {
    for pipelining in [Pipelining::Deep, Pipelining::Shallow] {
        let cfg = AstcACfg {
            pipelining,
            ..AstcACfg::default()
        };
        let (_, mut sim) = build(&cfg);
        let reqs = stimulus::requests(&mut Rng::new(7), 300, 0);
        let quiet = Traffic {
            gap: 0.0,
            stall: 0.0,
        };
        let t = run(&mut sim, &cfg, &reqs, quiet, 1).unwrap_or_else(|e| panic!("{e}"));
        let first = t.accepted[0];
        let latency = t.delivered[0] - first;
        eprintln!("astc_a {pipelining:?}: latency {latency} cycles, II 1");
        assert_eq!(latency, cfg.latency() as u64);
        for (i, (a, d)) in t.accepted.iter().zip(&t.delivered).enumerate() {
            assert_eq!(*a, first + i as u64, "request #{i} waited");
            assert_eq!(*d, a + latency, "response #{i} late");
        }
    }
}

/// A slice of a random run with gaps and stalls, replayed through the emitted Verilog.
#[test]
fn cosimulation_in_iverilog_and_verilator() {
    let cfg = AstcACfg::default();
    let (design, mut sim) = build(&cfg);
    let reqs = stimulus::requests(&mut Rng::new(11), 150, 10);
    sim.start_recording();
    let traffic = Traffic {
        gap: 0.2,
        stall: 0.3,
    };
    run(&mut sim, &cfg, &reqs, traffic, 5).unwrap_or_else(|e| panic!("{e}"));
    let trace = sim.take_trace();
    assert!(trace.cycles.len() > 150);
    cosim_both(&design, &trace).unwrap_or_else(|e| panic!("{e}"));
}

/// Verilator `-Wall`, Yosys `prep` + `check`, iverilog. The shallow variant emits the same
/// logic with fewer registers; linting it too would double the Yosys time (about 10 s).
#[test]
fn emitted_verilog_is_lint_clean() {
    let report = lint(&build(&AstcACfg::default()).0).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}
