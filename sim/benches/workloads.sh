#!/bin/sh
# Every engine on recorded real workloads (issue 10): `rendergen sim pbru` records the PBRU's
# inputs on every cycle, then `rendergen bench pbru --replay` times each engine on exactly that
# stimulus (same output hash required). Also the random-stimulus protocol for comparison.
# Usage: sim/benches/workloads.sh [rounds] [rays]   (from the workspace root; default 1, 2048)
set -e
rounds="${1:-1}"
rays="${2:-2048}"
cargo build -q --release -p rendergen-gen
R="${CARGO_TARGET_DIR:-./target}/release/rendergen"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
engines="rust rust-active rust-compiled rust-compiled-active verilator"
for job in "texture" "texture-lean" "alu" "mixed" "texture --texture-misses 300"; do
  name=$(echo "$job" | tr ' ' '_')
  # shellcheck disable=SC2086
  $R sim pbru --workload $job --rays "$rays" --progress never \
    --record-stimulus "$dir/$name.stim" > /dev/null
done
for round in $(seq "$rounds"); do
  for stim in "$dir"/*.stim; do
    for engine in $engines; do
      printf '%s %s ' "$(basename "$stim" .stim)" "$round"
      $R bench pbru --replay "$stim" --engine "$engine" --json --progress never
    done
  done
  for engine in $engines; do
    printf 'random %s ' "$round"
    $R bench pbru --cycles 20000 --seed 1 --engine "$engine" --json --progress never
  done
done
