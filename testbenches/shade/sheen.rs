//! `pipe_sheen` against `rendergen_sim::models::pbru::shading::sheen`.

use super::ggx::nvl_requests;
use super::{assert_full_throughput, assert_lint_clean, run_pipe};
use rendergen_rtl::pbru::pipes::sheen::{pipe_sheen_top, sheen_latency};
use rendergen_sim::models::pbru::shading::sheen;

const OP: u8 = 0x43;

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    reqs.iter().map(|(_, _, a)| vec![sheen(a)]).collect()
}

#[test]
fn sheen_pipe_matches_the_model_under_back_pressure() {
    let design = pipe_sheen_top().unwrap();
    let reqs = nvl_requests(1, 400, OP);
    run_pipe(&design, 1, &reqs, &expected(&reqs), (0.3, 0.4), false);
}

#[test]
fn sheen_pipe_takes_one_request_per_clock() {
    let design = pipe_sheen_top().unwrap();
    let reqs = nvl_requests(2, 300, OP);
    assert_full_throughput(&design, &reqs, &expected(&reqs), sheen_latency());
}

/// The emitted Verilog in iverilog and Verilator against the Rust simulation (Verilator's
/// build of the whole pipe takes minutes): run with `cargo test -p rendergen-testbenches --test
/// testbenches sheen_pipe_cosimulation -- --ignored`.
#[test]
#[ignore]
fn sheen_pipe_cosimulation() {
    let design = pipe_sheen_top().unwrap();
    let reqs = nvl_requests(3, 300, OP);
    run_pipe(&design, 3, &reqs, &expected(&reqs), (0.2, 0.3), true);
}

/// Yosys synthesises the whole pipe (minutes): run with `cargo test -p rendergen-testbenches
/// --test testbenches sheen_pipe_is_lint_clean -- --ignored`.
#[test]
#[ignore]
fn sheen_pipe_is_lint_clean() {
    assert_lint_clean(&pipe_sheen_top().unwrap());
}
