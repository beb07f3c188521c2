// The designs this crate compiles, shared by `build.rs` (which generates them) and the crate
// (whose tests build them again to hand to `Simulator::with_compiled`).

/// The PBRU of the system testbenches (`testbenches/pbru_system`): 2 cores × 2 slots, every
/// other parameter at its default.
pub fn pbru_tb_cfg() -> rendergen_rtl::pbru::ports::PbruCfg {
    rendergen_rtl::pbru::ports::PbruCfg {
        cores: 2,
        slots: 2,
        ..Default::default()
    }
}
