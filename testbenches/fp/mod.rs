//! Binary32 units (`rendergen_rtl::fp`): each unit's results against the golden model
//! `rendergen_sim::models::fp32` (itself checked against the host CPU's f32 and f64) under
//! random gaps and back-pressure, in order, nothing lost or duplicated; co-simulation; lint.

mod div;
mod fma;
mod int_alu;
mod misc;
mod pow;
mod q16;
mod recip;
mod transc;

use rendergen_hdl::{Design, ElabErrors};
use rendergen_rtl::fp::FpCfg;
use rendergen_sim::kit::{Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::Simulator;
use rendergen_testbenches::{agents_cycle, cosim_prefix};

/// One request: operands `a`, `b`, `c` (unused ones ignored) and the operation select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// Operands, as the unit's `req_a`, `req_b`, `req_c`.
    pub x: [u32; 3],
    /// `req_op`, if the unit has one.
    pub op: u64,
}

/// Runs `ops` through the unit `design` (streams `req` → `resp`) with random gaps and stalls
/// (`gap`, `stall` probabilities), and checks response `i` is `expected[i]` with tag `i` (mod
/// the tag width), in order; then replays the start of the run in iverilog and Verilator.
/// Returns the cycles taken.
pub fn run_unit(
    design: &Design,
    seed: u64,
    ops: &[Op],
    expected: &[u32],
    (gap, stall): (f64, f64),
) -> u64 {
    assert_eq!(ops.len(), expected.len());
    let mut sim = Simulator::new(design).unwrap_or_else(|e| panic!("{e}"));
    let name = design.top().name.clone();
    let tb = TestRun::start(&mut sim, &name, seed);
    sim.start_recording();
    let result = drive(&mut sim, seed, ops, expected, (gap, stall));
    let cycles = tb.check(&mut sim, result);
    cosim_prefix(design, &mut sim);
    cycles
}

fn drive(
    sim: &mut Simulator,
    seed: u64,
    ops: &[Op],
    expected: &[u32],
    (gap, stall): (f64, f64),
) -> Result<u64, TbError> {
    let mut rng = Rng::new(seed);
    let mut src = [StreamSource::new(sim, "req", rng.next_u64())?.gap_prob(gap)];
    let mut sink = [StreamSink::new(sim, "resp", rng.next_u64())?.stall_prob(stall)];
    let fields: Vec<String> = src[0].fields().iter().map(|s| s.to_string()).collect();
    let tag_w = (sim.inputs().iter())
        .find(|p| p.name == "req_tag")
        .map(|p| p.width)
        .ok_or_else(|| TbError::new("the unit has no req_tag port"))?;
    let tag_mask = match tag_w {
        64.. => u64::MAX,
        w => (1u64 << w) - 1,
    };
    for (i, o) in ops.iter().enumerate() {
        let item: Vec<u64> = (fields.iter())
            .map(|f| match f.as_str() {
                "req_a" => o.x[0] as u64,
                "req_b" => o.x[1] as u64,
                "req_c" => o.x[2] as u64,
                "req_op" => o.op,
                _ => i as u64 & tag_mask,
            })
            .collect();
        src[0].send(&item)?;
    }
    let r_at = (sink[0].fields().iter())
        .position(|f| *f == "resp_r")
        .ok_or_else(|| TbError::new("the unit has no resp_r port"))?;
    let tag_at = 1 - r_at;
    sim.reset(1);
    let mut seen = 0usize;
    let dog = Watchdog::new(60 * ops.len() as u64 + 200, seed);
    let cycles = dog.run_until(sim, "every response at `resp`", |sim| {
        agents_cycle(sim, &mut src, &mut sink)?;
        for item in &sink[0].items()[seen..] {
            let (r, tag) = (item[r_at].to_u64(), item[tag_at].to_u64());
            let Some(want) = expected.get(seen) else {
                return Err(TbError::new(format!("response #{seen} (tag {tag:#x}) too many")));
            };
            if tag != seen as u64 & tag_mask {
                return Err(TbError::new(format!(
                    "response #{seen}: tag {tag:#x}, expected {:#x} (lost, duplicated or reordered)",
                    seen as u64 & tag_mask
                )));
            }
            if r != *want as u64 {
                let o = ops[seen];
                return Err(TbError::new(format!(
                    "response #{seen}: op {} on {:#010x} {:#010x} {:#010x} gave {r:#010x}, model {want:#010x}",
                    o.op, o.x[0], o.x[1], o.x[2]
                )));
            }
            seen += 1;
        }
        Ok(seen == ops.len())
    })?;
    Ok(cycles)
}

/// Verilator `-Wall`, Yosys `check -assert` and iverilog accept the emitted Verilog of `design`.
pub fn assert_lint_clean(design: &Design) {
    let report = rendergen_gen::tools::lint(design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// The stand-alone unit `top` refuses tag widths 0 and 65 with an elaboration error naming
/// `tag_width` (no panic).
pub fn assert_rejects_bad_tag_widths(top: fn(&FpCfg) -> Result<Design, ElabErrors>) {
    for tag_width in [0, 65] {
        let Err(err) = top(&FpCfg { tag_width }) else {
            panic!("tag_width {tag_width} accepted")
        };
        assert!(err.to_string().contains("tag_width"), "{err}");
    }
}

/// Operands for a sweep: uniformly random bit patterns, random values near 1, and every pair of
/// `specials` cycled through, `n` in all.
pub fn operands(rng: &mut Rng, n: usize, specials: &[u32]) -> Vec<[u32; 3]> {
    (0..n)
        .map(|i| {
            let mut pick = |k: u64| match (i as u64 + k) % 4 {
                0 if !specials.is_empty() => specials[rng.below(specials.len() as u64) as usize],
                1 => 0x3F00_0000 | (rng.next_u64() as u32 & 0x80FF_FFFF),
                _ => rng.next_u64() as u32,
            };
            [pick(0), pick(1), pick(2)]
        })
        .collect()
}

/// Values every unit meets in its tests: zeros, denormals, ones, the largest and smallest
/// normals, infinities, NaNs (quiet and signalling, both signs), and halfway-rounding patterns.
pub const SPECIALS: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007F_FFFF,
    0x807F_FFFF,
    0x0080_0000,
    0x8080_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x3F80_0001,
    0x3FFF_FFFF,
    0x4000_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0x4B00_0000,
    0x4B00_0001,
    0x3F00_0000,
    0x34000000,
    0x4F00_0000,
    0xCF00_0000,
    0x4EFF_FFFF,
    0xCF00_0001,
    0x3EFF_FFFF,
    0x3F7F_FFFF,
];

/// The harness and [`rendergen_rtl::stream::stages::pipeline`] on a two-stage sign flip:
/// full throughput without back-pressure, order and tags under random gaps and stalls.
#[test]
fn harness_runs_a_staged_unit() {
    use rendergen_rtl::fp::{pipeline, FpCfg, FpReq, FpResp};
    let cfg = FpCfg { tag_width: 3 };
    let design = Design::build("flip", |m| {
        let req = m.input_stream::<FpReq>("req", &FpReq::shape(&cfg, 1, 0));
        let resp = pipeline(m, "flip", req, |m, st, r| {
            let s1 = st.stage(
                m,
                "s1",
                &FpResp {
                    r: r.a ^ (1u64 << 31),
                    tag: r.tag,
                },
            );
            st.stage(m, "s2", &s1)
        });
        m.output_stream("resp", resp);
    })
    .unwrap();
    let mut rng = Rng::new(rendergen_sim::kit::seed_from_env_or(0xF11));
    let x = operands(&mut rng, 500, SPECIALS);
    let ops: Vec<Op> = x.iter().map(|&x| Op { x, op: 0 }).collect();
    let want: Vec<u32> = x.iter().map(|x| x[0] ^ 0x8000_0000).collect();
    let cycles = run_unit(&design, 1, &ops, &want, (0.0, 0.0));
    assert!(cycles <= 500 + 4, "500 requests took {cycles} cycles");
    run_unit(&design, 2, &ops, &want, (0.3, 0.4));
}
