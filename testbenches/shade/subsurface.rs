//! `pipe_subsurface` against `rendergen_sim::models::pbru::shading::subsurface`.

use super::ggx::nvl_requests;
use rendergen_rtl::pbru::pipes::subsurface::{pipe_subsurface_top, subsurface_latency};
use rendergen_sim::models::pbru::shading::subsurface;

const OP: u8 = 0x44;

fn expected(reqs: &[(u8, u8, Vec<u32>)]) -> Vec<Vec<u32>> {
    reqs.iter().map(|(_, _, a)| vec![subsurface(a)]).collect()
}

big_pipe_tests! {
    top: pipe_subsurface_top,
    latency: subsurface_latency,
    requests: |s, n| nvl_requests(s, n, OP),
    tests: [
        subsurface_pipe_matches_the_model_under_back_pressure,
        subsurface_pipe_takes_one_request_per_clock,
        subsurface_pipe_cosimulation,
        subsurface_pipe_is_lint_clean,
    ],
}
