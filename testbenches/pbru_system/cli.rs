//! `rendergen sim pbru` as a library call: workloads, an astcenc texture, the JSON report.

use crate::astc_model::astcenc::{self, Scratch};
use crate::astc_model::images;
use rendergen_gen::pbru::{run, to_json, SimOptions, Workload};
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::models::astc::{Footprint, Profile};

fn opts(workload: Workload, rays: u32) -> SimOptions {
    SimOptions {
        cfg: PbruCfg {
            cores: 2,
            slots: 2,
            ..PbruCfg::default()
        },
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
