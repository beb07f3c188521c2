//! `pipe_sheen` against `rendergen_sim::models::pbru::shading::sheen`.

use super::ggx::nvl_requests;
use rendergen_rtl::pbru::pipes::sheen::{pipe_sheen_top, sheen_latency};
use rendergen_sim::models::pbru::shading::sheen;

const OP: u8 = 0x43;

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    reqs.iter().map(|(_, _, a)| vec![sheen(a)]).collect()
}

big_pipe_tests! {
    top: pipe_sheen_top,
    latency: sheen_latency,
    requests: |s, n| nvl_requests(s, n, OP),
    tests: [
        sheen_pipe_matches_the_model_under_back_pressure,
        sheen_pipe_takes_one_request_per_clock,
        sheen_pipe_cosimulation,
        sheen_pipe_is_lint_clean,
    ],
}
