//! The three simulation engines agree on every widget: `rendergen bench`'s seeded random
//! stimulus on every input (valid/ready included) gives the same hash of every output on every
//! cycle in the Rust simulator, Verilator and iverilog.

use rendergen_gen::bench::{bench, BenchEngine};
use rendergen_rtl::catalog::{self, WIDGETS};

#[test]
fn every_widget_hashes_identically_in_three_engines() {
    for &name in WIDGETS {
        let design = catalog::build(name, &[]).unwrap();
        let run = |engine| bench(&design, engine, 400, 0x5EED).unwrap().output_hash;
        let rust = run(BenchEngine::Rust);
        assert_eq!(
            run(BenchEngine::Verilator),
            rust,
            "{name}: Verilator differs from the Rust simulator"
        );
        assert_eq!(
            run(BenchEngine::Iverilog),
            rust,
            "{name}: iverilog differs from the Rust simulator"
        );
        let other_seed = bench(&design, BenchEngine::Rust, 400, 0x5EEE)
            .unwrap()
            .output_hash;
        assert_ne!(
            other_seed, rust,
            "{name}: the hash must depend on the stimulus"
        );
    }
}
