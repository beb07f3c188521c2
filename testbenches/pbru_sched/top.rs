//! The `pbru` top with the real cores: rays run end to end (inline chunk and L1 fetch, a
//! pipeline request, SM traffic on the same instance), co-simulation and lint.

use super::{small_cfg, test_fn, to_words, words};
use rendergen_gen::cosim::cosim_both;
use rendergen_gen::tools::lint;
use rendergen_hdl::{Bits, Design};
use rendergen_rtl::pbru::ports::isa::asm::assemble;
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_rtl::pbru::ports::{PbruCfg, PipeInst};
use rendergen_rtl::pbru::top::pbru_top;
use rendergen_sim::kit::{StreamSink, StreamSource};
use rendergen_sim::Simulator;

/// 2 cores × 1 slot, 8-word stacks, a Schlick and a GGX test pipeline.
fn tiny() -> PbruCfg {
    PbruCfg {
        stack_depth: 8,
        icache_chunks: 2,
        tcache_blocks: 2,
        miss_thresh: 0,
        ..small_cfg(2, 1, &[(PipeKind::Schlick, 2), (PipeKind::Ggx, 1)])
    }
}

fn chunk(code: &[u8]) -> Vec<u32> {
    let mut b = code.to_vec();
    b.resize(32, 0);
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs four rays (two with their chunk inline, two fetched through the L1) while the SM uses
/// the same Schlick instance; checks every ray's stack. Returns the design and the trace.
fn run_rays(record: bool) -> (Design, rendergen_sim::Trace) {
    let cfg = tiny();
    let design = pbru_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).expect("simulates");
    if record {
        sim.start_recording();
    }
    sim.reset(2);
    let code = assemble("PUSH 1\nPUSH 2\nPUSH 3\nPUSH 4\nDUP\nDUP\nDUP\nSCHLICK\nRAYSTOP").unwrap();
    let program = chunk(&code);
    let mut ray_in = StreamSource::new(&sim, "ttu_ray_in", 3).unwrap();
    let mut sm_req = StreamSource::new(&sim, "sm0_req", 4).unwrap();
    let mut l1_resp = StreamSource::new(&sim, "l1_resp", 5).unwrap();
    let mut out = StreamSink::new(&sim, "sm_ray_out", 6)
        .unwrap()
        .stall_prob(0.2);
    let mut sm_resp = StreamSink::new(&sim, "sm0_resp", 7).unwrap();
    let mut l1_req = StreamSink::new(&sim, "l1_req", 8).unwrap();
    for id in 0..4u64 {
        let inline = id % 2 == 0;
        ray_in
            .send_bits(vec![
                Bits::from_u64(id, 16),
                Bits::from_u64(0x100, 32),
                Bits::zero(16),
                Bits::zero(4),
                Bits::zero(256),
                Bits::zero(1),
                Bits::from_u64(inline as u64, 1),
                words(if inline { &program } else { &[] }, 256),
            ])
            .unwrap();
    }
    for t in 0..6 {
        sm_req
            .send_bits(vec![
                Bits::zero(5),
                Bits::from_u64(0x42, 8),
                Bits::zero(8),
                words(&[t; 10], 320),
                Bits::from_u64(t as u64, 16),
            ])
            .unwrap();
    }
    let mut served = 0;
    for _ in 0..300 {
        ray_in.drive(&mut sim);
        sm_req.drive(&mut sim);
        l1_resp.drive(&mut sim);
        out.drive(&mut sim);
        sm_resp.drive(&mut sim);
        l1_req.drive(&mut sim);
        ray_in.sample(&mut sim);
        sm_req.sample(&mut sim);
        l1_resp.sample(&mut sim);
        out.sample(&mut sim);
        sm_resp.sample(&mut sim);
        l1_req.sample(&mut sim);
        for r in &l1_req.items_u64()[served..] {
            assert_eq!((r[0], r[1]), (0x100, 0), "the program's chunk");
            let item = vec![Bits::from_u64(r[2], 8), Bits::zero(1), words(&program, 256)];
            l1_resp.send_bits(item).unwrap();
        }
        served = l1_req.items().len();
        sim.step();
    }
    let expect = test_fn(0x42, 0, &[1, 2, 3, 4, 4, 4, 4]);
    let mut ids: Vec<u64> = out.items().iter().map(|r| r[0].to_u64()).collect();
    ids.sort();
    assert_eq!(ids, vec![0, 1, 2, 3], "every ray finished once");
    for r in out.items() {
        assert_eq!(r[6].to_u64(), 0, "reason Done");
        assert_eq!(r[3].to_u64(), 3, "sp");
        assert_eq!(
            to_words(&r[4], 3),
            expect[..3].to_vec(),
            "ray {}",
            r[0].to_u64()
        );
    }
    assert_eq!(sm_resp.items().len(), 6, "every SM request answered");
    assert!(
        l1_req.items().len() <= 2,
        "the fetched chunk is then an I$ hit"
    );
    (design, sim.take_trace())
}

/// Rays run end to end through the scheduler and the real cores.
#[test]
fn rays_run_end_to_end_with_the_real_cores() {
    run_rays(false);
}

/// The same run replayed through iverilog and Verilator.
#[test]
fn pbru_top_cosimulation() {
    let (design, trace) = run_rays(true);
    cosim_both(&design, &trace).unwrap_or_else(|e| panic!("{e}"));
}

/// Verilator `-Wall`, Yosys `prep` + `check`, iverilog on the smallest top (one core with one
/// slot, one test pipeline, two-line caches: the same generators as any larger build).
#[test]
fn pbru_top_is_lint_clean() {
    let cfg = PbruCfg {
        cores: 1,
        slots: 1,
        stack_depth: 4,
        icache_chunks: 2,
        tcache_blocks: 2,
        pipes: vec![PipeInst {
            kind: PipeKind::Ggx,
            test_latency: Some(1),
        }],
        ..tiny()
    };
    let design = pbru_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let report = lint(&design).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_clean(), "{report}");
}
