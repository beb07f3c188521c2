#!/usr/bin/env bash
# The main job: installs missing system tools, builds rendergen, and runs the end-to-end
# demonstration (generate, simulate with a VCD, emit and lint Verilog, co-simulate, summarise).
# Output goes to ./out (or the directory given as the first argument).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo run -q --release -p rendergen-gen --bin rendergen -- demo --out "${1:-out}"
