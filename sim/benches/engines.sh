#!/bin/sh
# Rust interpreter, compiled Rust backend and Verilator -O3 on the same designs, back to back,
# `rounds` times (default 3). Usage: sim/benches/engines.sh [rounds]   (from the workspace root)
set -e
cargo build --release -p rendergen-gen
for round in $(seq "${1:-3}"); do
  for job in "fifo 3000000" "rr_arbiter 3000000" "counter 3000000" "mac_mesh 20000"; do
    set -- $job
    for engine in rust rust-compiled verilator; do
      ./target/release/rendergen bench "$1" --cycles "$2" --engine "$engine" --json
    done
  done
done
