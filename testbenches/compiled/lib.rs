//! Designs compiled to Rust when this crate is built (`build.rs` runs `rendergen_sim::codegen`
//! on the designs of `designs.rs`), so a testbench simulates a large top as generated code by
//! changing one line:
//!
//! ```ignore
//! let mut sim = Simulator::with_compiled(&design, Eval::Active, rendergen_compiled::pbru_tb_active::code())?;
//! ```
//!
//! instead of `Simulator::new(&design)`: ports, records, named signals and waveforms work as
//! before. The fingerprint of the generated source is checked against the design handed to
//! the simulator, so code compiled for other parameters is refused
//! (`SimError::StaleCompiled`), never silently run. Cargo rebuilds the generated code when the
//! generators or the simulator change, and only then.

include!("designs.rs");

macro_rules! compiled {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[allow(unused, clippy::all, missing_docs)]
        pub mod $name {
            include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));

            /// The generated code, for `Simulator::with_compiled`.
            pub fn code() -> rendergen_sim::codegen::Compiled {
                rendergen_sim::codegen::Compiled {
                    fingerprint: FINGERPRINT,
                    settle: settle_slices,
                    edge: edge_slices,
                }
            }
        }
    };
}

compiled!(
    /// [`pbru_tb_cfg`]'s PBRU, full evaluation.
    pbru_tb_full
);
compiled!(
    /// [`pbru_tb_cfg`]'s PBRU, activity-aware evaluation.
    pbru_tb_active
);
compiled!(
    /// [`astc_dp_tb_cfg`]'s ASTC_DP, full evaluation.
    astc_dp_tb_full
);
