//! Generates Rust for the designs listed in `designs.rs` (`rendergen_sim::codegen`) into
//! `OUT_DIR`, one file per design and evaluation mode. Cargo reruns this when the generators
//! or the simulator change; an unchanged source is not rewritten, so an unchanged design is
//! not recompiled.

include!("designs.rs");

use rendergen_sim::codegen::generate_with;
use rendergen_sim::Eval;
use std::path::Path;

fn emit(out: &Path, name: &str, design: &rendergen_hdl::Design, eval: Eval) {
    let g = generate_with(design, eval)
        .unwrap_or_else(|e| panic!("{name}: the simulator cannot compile the design: {e}"));
    // `include!` takes items only: the crate-level attribute goes on the module instead.
    let body = g.source.replace("#![allow(unused, clippy::all)]\n", "");
    let text = format!(
        "{body}\n/// The generated source's fingerprint (checked by `Simulator::with_compiled`).\n\
         pub const FINGERPRINT: u64 = {:#x};\n",
        g.fingerprint
    );
    let path = out.join(format!("{name}.rs"));
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).expect("write the generated design");
    }
}

fn main() {
    for dir in ["../../rtl", "../../sim", "designs.rs"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let pbru = rendergen_rtl::pbru::top::pbru_top(&pbru_tb_cfg()).expect("pbru elaborates");
    emit(out, "pbru_tb_full", &pbru, Eval::Full);
    emit(out, "pbru_tb_active", &pbru, Eval::Active);
    // ASTC_DP under the testbenches' random traffic keeps nearly every group busy: full
    // evaluation (PERFORMANCE.md: the active engine is slower there).
    let dp = rendergen_rtl::astc::dp::astc_dp_top(&astc_dp_tb_cfg()).expect("astc_dp elaborates");
    emit(out, "astc_dp_tb_full", &dp, Eval::Full);
}
