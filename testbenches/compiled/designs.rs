// The designs this crate compiles, shared by `build.rs` (which generates them) and the crate
// (whose tests build them again to hand to `Simulator::with_compiled`).

/// The PBRU of the system testbenches (`testbenches/pbru_system`): 2 cores × 2 slots, the real
/// ASTC_A and ASTC_DP units, and the shading pipes as test fixtures of latency 4 (their units
/// are tested on their own in `testbenches/shade`, and in the whole engine by the interpreted
/// `pbru_system::real_shading_units_in_the_engine`; compiled, they would multiply this crate's
/// build time), every other parameter at its default.
pub fn pbru_tb_cfg() -> rendergen_rtl::pbru::ports::PbruCfg {
    use rendergen_rtl::pbru::ports::{isa::PipeKind, PbruCfg};
    let mut cfg = PbruCfg {
        cores: 2,
        slots: 2,
        ..Default::default()
    };
    for p in &mut cfg.pipes {
        if !matches!(p.kind, PipeKind::AstcA | PipeKind::AstcDp) {
            p.test_latency = Some(4);
        }
    }
    cfg
}

/// The ASTC_DP of the image, feature and random testbenches (`testbenches/astc_dp`): any of
/// the 14 footprints and all three profiles per request, 16-bit tags.
pub fn astc_dp_tb_cfg() -> rendergen_rtl::astc::dp::DpCfg {
    rendergen_rtl::astc::dp::DpCfg {
        tag_width: 16,
        ..Default::default()
    }
}
