//! The PBRU's shading pipes (issue 11 §2) against the bit-exact binary32 model
//! `rendergen_sim::models::pbru::shading`: random requests (in-domain points, grazing and
//! degenerate cases, any words) under random gaps and back-pressure, an in-order scoreboard of
//! (tag, words) (nothing lost, duplicated or reordered), full throughput without back-pressure,
//! co-simulation of the emitted Verilog, lint.

/// The four tests of a big shading pipe: against the model under back-pressure (seed 1, 400
/// requests), one request per clock (seed 2, 300), and, ignored for their tool time (cold
/// Verilator builds, Yosys synthesis of the whole pipe; `rendergen lint --all` lints the pipe
/// too), co-simulation (seed 3, 300) and lint. The calling module has `expected(&reqs)`;
/// `requests(seed, n)` gives its requests.
macro_rules! big_pipe_tests {
    (
        top: $top:ident,
        latency: $latency:ident,
        requests: $requests:expr,
        tests: [$back_pressure:ident, $throughput:ident, $cosim:ident, $lint:ident $(,)?] $(,)?
    ) => {
        #[test]
        fn $back_pressure() {
            let design = $top().unwrap();
            let reqs = $requests(1, 400);
            super::run_pipe(&design, 1, &reqs, &expected(&reqs), (0.3, 0.4), false);
        }

        #[test]
        fn $throughput() {
            let design = $top().unwrap();
            let reqs = $requests(2, 300);
            super::assert_full_throughput(&design, &reqs, &expected(&reqs), $latency());
        }

        #[doc = concat!(
            "The emitted Verilog in iverilog and Verilator against the Rust simulation: run with ",
            "`cargo test -p rendergen-testbenches --test testbenches ",
            stringify!($cosim),
            " -- --ignored`."
        )]
        #[test]
        #[ignore]
        fn $cosim() {
            let design = $top().unwrap();
            let reqs = $requests(3, 300);
            super::run_pipe(&design, 3, &reqs, &expected(&reqs), (0.2, 0.3), true);
        }

        #[doc = concat!(
            "Yosys synthesises the whole pipe (minutes): run with ",
            "`cargo test -p rendergen-testbenches --test testbenches ",
            stringify!($lint),
            " -- --ignored`."
        )]
        #[test]
        #[ignore]
        fn $lint() {
            super::assert_lint_clean(&$top().unwrap());
        }
    };
}

mod cel;
mod ggx;
mod oren_nayar;
mod schlick;
mod sheen;
mod subsurface;

use rendergen_hdl::{Bits, Design};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

/// Words of a pipe result.
const RESULT_WORDS: usize = 4;

/// Packs 32-bit words (word 0 in bits 31..0) into `width` bits.
fn pack(words: &[u32], width: u32) -> Bits {
    let w64: Vec<u64> = (words.chunks(2))
        .map(|p| p[0] as u64 | (p.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect();
    Bits::from_words(&w64, width)
}

/// Runs requests `(op, imm, args)` through the pipe `design` (`req` → `resp`, plus `busy`) with
/// random `gap` and `stall` probabilities; result `i` must carry tag `i` and the words
/// `expected[i]` (missing words 0). With `cosim`, replays the start in iverilog and Verilator.
/// Returns the cycles taken.
pub fn run_pipe(
    design: &Design,
    seed: u64,
    reqs: &[(u8, u8, Vec<u32>)],
    expected: &[Vec<u32>],
    (gap, stall): (f64, f64),
    cosim: bool,
) -> u64 {
    assert_eq!(reqs.len(), expected.len());
    let mut sim = Simulator::new(design).unwrap_or_else(|e| panic!("{e}"));
    let tb = TestRun::start(&mut sim, &design.top().name, seed);
    if cosim {
        sim.start_recording();
    }
    let result = drive(&mut sim, seed, reqs, expected, (gap, stall));
    let cycles = tb.check(&mut sim, result);
    if cosim {
        cosim_prefix(design, &mut sim);
    }
    cycles
}

fn drive(
    sim: &mut Simulator,
    seed: u64,
    reqs: &[(u8, u8, Vec<u32>)],
    expected: &[Vec<u32>],
    (gap, stall): (f64, f64),
) -> Result<u64, TbError> {
    let mut rng = Rng::new(seed);
    let mut src = [StreamSource::new(sim, "req", rng.next_u64())?.gap_prob(gap)];
    let mut sink = [StreamSink::new(sim, "resp", rng.next_u64())?.stall_prob(stall)];
    let fields: Vec<String> = src[0].fields().iter().map(|s| s.to_string()).collect();
    let mut board = InOrder::new();
    for (i, ((op, imm, args), want)) in reqs.iter().zip(expected).enumerate() {
        let item = (fields.iter())
            .map(|f| match f.as_str() {
                "req_op" => Bits::from_u64(*op as u64, 8),
                "req_imm" => Bits::from_u64(*imm as u64, 8),
                "req_args" => pack(args, 320),
                _ => Bits::from_u64(i as u64, 24),
            })
            .collect();
        src[0].send_bits(item)?;
        let mut w = want.clone();
        w.resize(RESULT_WORDS, 0);
        board.expect((i as u64, w));
    }
    let data_at = (sink[0].fields().iter())
        .position(|f| *f == "resp_data")
        .ok_or_else(|| TbError::new("the pipe has no resp_data port"))?;
    sim.reset(1);
    let mut seen = 0;
    let dog = Watchdog::new(60 * reqs.len() as u64 + 200, seed);
    let cycles = dog.run_until(sim, "every result at `resp`", |sim| {
        agents_cycle(sim, &mut src, &mut sink)?;
        for item in &sink[0].items()[seen..] {
            let data = item[data_at].words();
            let words: Vec<u32> = (0..RESULT_WORDS)
                .map(|k| (data[k / 2] >> (32 * (k % 2))) as u32)
                .collect();
            board.observe((item[1 - data_at].to_u64(), words))?;
        }
        seen = sink[0].items().len();
        Ok(src[0].is_idle() && board.outstanding() == 0)
    })?;
    board.check_complete()?;
    Ok(cycles)
}

/// Without gaps or stalls, `n` requests take `n + latency + small` cycles: one per clock.
pub fn assert_full_throughput(
    design: &Design,
    reqs: &[(u8, u8, Vec<u32>)],
    expected: &[Vec<u32>],
    latency: u32,
) {
    let cycles = run_pipe(design, 5, reqs, expected, (0.0, 0.0), false);
    let limit = reqs.len() as u64 + latency as u64 + 4;
    assert!(
        cycles <= limit,
        "{} requests took {cycles} cycles (limit {limit})",
        reqs.len()
    );
}

/// Verilator `-Wall`, Yosys `check -assert` and iverilog accept the emitted Verilog of `design`.
pub fn assert_lint_clean(design: &Design) {
    let report = rendergen_gen::tools::lint(design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}
