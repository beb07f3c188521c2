#!/bin/sh
# Every engine on recorded real workloads (issue 10): `rendergen sim pbru` records the PBRU's
# inputs on every cycle, then `rendergen bench pbru --replay` times each engine on exactly that
# stimulus (same output hash required). Also the random-stimulus protocol for comparison, and
# the tile engine on a real frame (`rendergen raster --engine rtl --record-stimulus`: lit_model
# at 32x32, tile-shader; `rtl.replay_params` of its JSON rebuild the same engine).
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
scenes="$(pwd)/gen/raster/scenes"
jq '.width = 32 | .height = 32' "$scenes/lit_model.json" > "$scenes/.lit32-bench.json"
$R raster "$scenes/.lit32-bench.json" -o "$dir/lit32.png" --engine rtl --json --progress never \
  --record-stimulus "$dir/lit32.tile" > "$dir/lit32.json"
rm -f "$scenes/.lit32-bench.json"
tile_params=$(jq -r '.rtl.replay_params | map("-p " + .) | join(" ")' "$dir/lit32.json")
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
  for engine in $engines; do
    printf 'tile_lit32 %s ' "$round"
    # shellcheck disable=SC2086
    $R bench tile_engine $tile_params --replay "$dir/lit32.tile" --engine "$engine" --json \
      --progress never
  done
done
