//! Timing, configurations and the Verilog flows: throughput and latency with no back-pressure,
//! the fixed-footprint / fixed-profile and LDR-only builds, co-simulation of a recorded run in
//! iverilog and Verilator, lint, and (ignored) Yosys area.

use super::bench::{Bench, Traffic};
use super::vectors;
use super::{full_cfg, TRAFFIC};
use rendergen_gen::cosim::cosim_both;
use rendergen_gen::tools::{lint, synth, SynthTarget};
use rendergen_hdl::Bits;
use rendergen_rtl::astc::dp::{self, DpCfg, Profiles};
use rendergen_sim::kit::seed_from_env_or;
use rendergen_sim::models::astc::{Footprint, Profile};

/// With `valid` always high and `ready` always high, one response per cycle leaves exactly
/// [`dp::LATENCY`] cycles after its request was taken.
#[test]
fn throughput_one_texel_per_clock_after_latency() {
    let mut bench = Bench::new(full_cfg());
    let v = vectors::random(7, Footprint::ALL[7], Profile::LdrLinear, 500);
    let sim = &mut bench.sim;
    let port = |n: &str| sim.input(n).unwrap();
    let (valid, block, x, y, bw, bh, profile, tag) = (
        port("req_valid"),
        port("req_block"),
        port("req_x"),
        port("req_y"),
        port("req_bw"),
        port("req_bh"),
        port("req_profile"),
        port("req_tag"),
    );
    let ready_in = sim.input("resp_ready").unwrap();
    let (req_ready, resp_valid, resp_tag) = (
        sim.output("req_ready").unwrap(),
        sim.output("resp_valid").unwrap(),
        sim.output("resp_tag").unwrap(),
    );
    sim.reset(2);
    sim.poke(ready_in, 1);
    let mut accepted = Vec::new();
    let mut delivered = Vec::new();
    let mut next = 0usize;
    for cycle in 0..(v.len() as u64 + 20) {
        let offering = next < v.len();
        sim.poke(valid, offering as u64);
        if offering {
            let t = &v[next];
            sim.poke_bits(block, &Bits::from_u128(t.block, 128));
            sim.poke(x, t.x as u64);
            sim.poke(y, t.y as u64);
            sim.poke(bw, t.fp.w() as u64);
            sim.poke(bh, t.fp.h() as u64);
            sim.poke(profile, 0);
            sim.poke(tag, next as u64);
        }
        if sim.peek(resp_valid) == 1 {
            assert_eq!(sim.peek(resp_tag), delivered.len() as u64, "order");
            delivered.push(cycle);
        }
        if offering && sim.peek(req_ready) == 1 {
            accepted.push(cycle);
            next += 1;
        }
        sim.step();
    }
    assert_eq!(accepted.len(), v.len());
    assert_eq!(delivered.len(), v.len(), "every response delivered");
    for (i, (a, d)) in accepted.iter().zip(&delivered).enumerate() {
        assert_eq!(*a, i as u64, "request #{i} was not taken at once");
        assert_eq!(
            *d,
            a + dp::LATENCY,
            "response #{i} not {} cycles later",
            dp::LATENCY
        );
    }
}

/// A build with a fixed 6x6 footprint and fixed sRGB profile (no `bw`, `bh`, `profile`
/// fields), and an LDR-only build answering HDR requests with the HDR error texel.
#[test]
fn fixed_and_ldr_only_builds() {
    let seed = seed_from_env_or(0xA57C_D700);
    let fp = Footprint::new(6, 6).unwrap();
    let fixed = DpCfg {
        tag_width: 4,
        footprint: Some(dp::Footprint { w: 6, h: 6 }),
        profiles: Profiles::Only(dp::Profile::LdrSrgb),
    };
    let mut bench = Bench::new(fixed);
    let mut v = vectors::random(seed, fp, Profile::LdrSrgb, 3000);
    v.extend(vectors::features(fp, Profile::LdrSrgb));
    bench.run("astc_dp_fixed_6x6_srgb", seed, &v, TRAFFIC);

    let ldr_only = DpCfg {
        profiles: Profiles::Ldr,
        ..full_cfg()
    };
    let mut bench = Bench::new(ldr_only);
    let mut v = Vec::new();
    for p in Profile::ALL {
        v.extend(vectors::random(seed, Footprint::ALL[3], p, 1500));
    }
    bench.run("astc_dp_ldr_only", seed, &v, TRAFFIC);
}

/// A run with gaps and back-pressure replayed cycle by cycle through iverilog and Verilator.
#[test]
fn cosimulation_in_iverilog_and_verilator() {
    let mut bench = Bench::new(full_cfg());
    let mut v = Vec::new();
    for (i, p) in Profile::ALL.into_iter().enumerate() {
        v.extend(vectors::random(
            31 + i as u64,
            Footprint::ALL[4 * i + 1],
            p,
            100,
        ));
        v.extend(
            vectors::features(Footprint::ALL[4 * i + 2], p)
                .into_iter()
                .step_by(40),
        );
    }
    bench.sim.start_recording();
    let traffic = Traffic {
        gap: 0.2,
        stall: 0.3,
    };
    bench.run("astc_dp_cosim", 31, &v, traffic);
    let trace = bench.sim.take_trace();
    assert!(trace.cycles.len() > v.len());
    cosim_both(&bench.design, &trace).unwrap_or_else(|e| panic!("{e}"));
}

/// Verilator `-Wall`, Yosys `prep` + `check`, iverilog on the emitted Verilog.
#[test]
fn emitted_verilog_is_lint_clean() {
    let bench = Bench::new(full_cfg());
    let report = lint(&bench.design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}

/// Yosys generic synthesis of the full build and of a fixed 6x6 LDR-linear build.
#[test]
#[ignore = "slow: Yosys synthesis (several minutes)"]
fn yosys_area() {
    for cfg in [
        full_cfg(),
        DpCfg {
            tag_width: 16,
            footprint: Some(dp::Footprint { w: 6, h: 6 }),
            profiles: Profiles::Only(dp::Profile::LdrLinear),
        },
    ] {
        let bench = Bench::new(cfg);
        let report = synth(&bench.design, SynthTarget::Generic).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{cfg:?}\n{report}");
    }
}
