#!/usr/bin/env bash
# Reproduces the figures of gen/pbru/PERFORMANCE.md (rays per cycle, ASTC_DP utilization,
# latency under SM load). Usage: gen/pbru/bench.sh [rendergen binary]; output: one line per run.
set -euo pipefail
bin=${1:-./target/release/rendergen}
rays=${RAYS:-512}
field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }
run() { "$bin" sim pbru --json --seed 1 "$@"; }
echo "# rays per cycle, texture workload, $rays rays: cores slots rays/cycle in_flight latency astc_dp_util"
for c in 1 2 4 8; do
  for s in 1 2 4 8; do
    j=$(run --workload "${WORKLOAD:-texture}" --cores $c --slots $s --rays "$rays")
    dp=$(echo "$j" | sed -E 's/.*"astc_dp":\{"utilization":([0-9.]+).*/\1/')
    echo "$c $s $(echo "$j" | field rays_per_cycle) $(echo "$j" | field rays_in_flight) $(echo "$j" | field latency_per_ray) $dp"
  done
done
echo "# ASTC_DP utilization at 8 cores x 8 slots, plentiful rays: workload rays rays/cycle in_flight latency astc_dp_util"
for w in texture-lean:16384 texture:4096; do
  j=$(run --workload "${w%%:*}" --cores 8 --slots 8 --rays "${w##*:}")
  dp=$(echo "$j" | sed -E 's/.*"astc_dp":\{"utilization":([0-9.]+).*/\1/')
  echo "${w%%:*} ${w##*:} $(echo "$j" | field rays_per_cycle) $(echo "$j" | field rays_in_flight) $(echo "$j" | field latency_per_ray) $dp"
done
echo "# SM priority, 4 cores x 2 slots, SM requests to astc_a and astc_dp: sm_load rays/cycle latency sm_results"
for p in 0 0.1 0.3 0.5 0.7 0.9; do
  j=$(run --workload texture --cores 4 --slots 2 --rays 256 --sm-load $p --sm-target astc_a,astc_dp)
  echo "$p $(echo "$j" | field rays_per_cycle) $(echo "$j" | field latency_per_ray) $(echo "$j" | field sm_results)"
done
