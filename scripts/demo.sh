#!/usr/bin/env bash
# The main job: installs missing system tools (astcenc among them), builds rendergen, and runs
# the end-to-end demonstration: texture an image through the PBRU (textured.png, reference.png,
# the engine's Verilog, pbru.vcd, statistics), then the widget library (simulate with a VCD,
# emit and lint Verilog, co-simulate). Output goes to ./out (or the directory given as the
# first argument).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo run -q --release -p rendergen-gen --bin rendergen -- demo --out "${1:-out}"
