//! `rendergen sim pbru` as a library call: workloads, an astcenc texture, the JSON report.

use crate::astc_model::astcenc::{self, Scratch};
use crate::astc_model::images;
use rendergen_gen::pbru::{run, to_json, to_text, SimOptions, Workload};
use rendergen_sim::models::astc::{Footprint, Profile};

fn opts(workload: Workload, rays: u32) -> SimOptions {
    SimOptions {
        cfg: rendergen_compiled::pbru_tb_cfg(),
        rays,
        seed: 5,
        workload,
        program: None,
        texture: None,
        sm_load: 0.0,
        sm_targets: vec![],
        l1_latency: 4,
        texture_miss_cycles: 0,
        vcd: None,
        watchdog: None,
        eval: rendergen_sim::Eval::Active,
        record_stimulus: None,
        code: rendergen_testbenches::compiled_from_env()
            .then(rendergen_compiled::pbru_tb_active::code),
    }
}

#[test]
fn every_workload_runs_clean_and_reports_json() {
    for w in [Workload::Texture, Workload::Alu, Workload::Mixed] {
        let r = run(&opts(w, 24)).unwrap();
        assert_eq!(
            (r.rays_out, r.mismatches),
            (24, 0),
            "{w:?}: {:?}",
            r.mismatch_details
        );
        let json = to_json(&r);
        for key in [
            "\"rays_in\":24",
            "\"rays_out\":24",
            "\"cycles\":",
            "\"rays_per_cycle\":",
        ] {
            assert!(json.contains(key), "{json}");
        }
        assert!(
            json.contains("\"mismatches\":0") && json.contains("\"astc_dp\":{\"utilization\":")
        );
        if w == Workload::Texture {
            assert_eq!(r.pipelines["astc_a"].core_grants, 24);
            assert_eq!(r.pipelines["astc_dp"].core_grants, 24);
        }
    }
}

#[test]
fn a_custom_program_and_an_astcenc_texture() {
    let scratch = Scratch::new("pbru-sim");
    let fp = Footprint::new(8, 5).unwrap();
    let source = images::source(Profile::LdrLinear);
    let file = astcenc::compress(&scratch, "tex", &source, fp, Profile::LdrLinear, "-fast");
    let mut o = opts(Workload::Texture, 40);
    o.texture = Some(file);
    o.program =
        Some(include_str!("../../gen/pbru/programs/texture.asm").replace("TEX_DP 0", "TEX_DP 1"));
    let r = run(&o).unwrap();
    assert_eq!(
        (r.rays_out, r.mismatches),
        (40, 0),
        "{:?}",
        r.mismatch_details
    );
}

/// Rays ended by a program error are counted by kind in the report and the JSON (they used to
/// pass silently as "mismatches 0"), with the ray and the program counter.
#[test]
fn faulting_programs_are_reported_by_kind() {
    let cases = [
        ("RANDSEL 0\nRAYSTOP", "bad_control", 3),
        (".byte 0xEE\nRAYSTOP", "unknown_opcode", 0),
        (&"PUSH 1\n".repeat(40), "stack_overflow", 2),
        (&"POP\n".repeat(12), "stack_underflow", 1),
    ];
    for (program, kind, k) in cases {
        let mut o = opts(Workload::Texture, 6);
        o.program = Some(format!("{program}\nRAYSTOP"));
        let r = run(&o).unwrap();
        assert_eq!(
            (r.rays_out, r.mismatches),
            (6, 0),
            "{kind}: {:?}",
            r.mismatch_details
        );
        assert_eq!(r.faults[k], 6, "{kind}: {:?}", r.faults);
        assert_eq!(r.fault_count(), 6, "{kind}");
        assert!(r.fault_details[0].contains(kind), "{:?}", r.fault_details);
        let json = to_json(&r);
        assert!(json.contains("\"faults\":{\"total\":6,"), "{json}");
        assert!(json.contains(&format!("\"{kind}\":6")), "{json}");
        let text = to_text(&r);
        assert!(
            text.contains(&format!("rays ended by a fault 6 ({kind} 6)")),
            "{text}"
        );
    }
    let clean = run(&opts(Workload::Alu, 6)).unwrap();
    assert_eq!(clean.fault_count(), 0);
    assert!(to_json(&clean).contains("\"faults\":{\"total\":0,\"unknown_opcode\":0,"));
}

/// A valid long program (16k NOPs: far longer than the old fixed 20,000-cycle watchdog allowed
/// between rays) finishes: instruction fetches count as progress.
#[test]
fn a_long_program_is_not_called_hung() {
    let mut o = opts(Workload::Texture, 2);
    o.program = Some(format!("{}RAYSTOP", "NOP\n".repeat(16_384)));
    let r = run(&o).unwrap();
    assert_eq!((r.rays_out, r.mismatches, r.fault_count()), (2, 0, 0));
    assert!(r.cycles > 16_384, "{} cycles", r.cycles);
}

/// The watchdog is an option, scales with the configured latencies by default, and its message
/// says what was waiting.
#[test]
fn the_watchdog_is_an_option_scaled_to_the_latencies() {
    use rendergen_sim::agents::pbru::default_watchdog;
    assert!(default_watchdog(100_000, 0) > 2 * 100_000);
    assert!(default_watchdog(4, 50_000) > 2 * 50_000);
    assert_eq!(default_watchdog(4, 0), 20_008);
    let mut o = opts(Workload::Texture, 4);
    o.l1_latency = 300;
    o.watchdog = Some(100);
    let e = run(&o).unwrap_err();
    assert!(
        e.contains("hung at cycle") && e.contains("--watchdog"),
        "{e}"
    );
    assert!(e.contains("L1 answers pending"), "{e}");
    o.watchdog = None;
    let r = run(&o).unwrap();
    assert_eq!((r.rays_out, r.mismatches), (4, 0));
}
