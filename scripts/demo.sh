#!/usr/bin/env bash
# The main job: installs missing system tools (astcenc among them), builds rendergen, and runs
# the end-to-end demonstration: texture an image through the PBRU (textured.png, reference.png,
# the engine's Verilog, pbru.vcd, statistics), then the widget library (simulate with a VCD,
# emit and lint Verilog, co-simulate), and renders the example scene through the PBRU RTL
# (render.png). Output goes to ./out (or the directory given as the
# first argument).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo run -q --release -p rendergen-gen --bin rendergen -- demo --out "${1:-out}"
# A scene rendered through the PBRU RTL: six MaterialX materials (gen/render/scenes/example.json),
# every material program on the cycle-simulated engine, checked against the interpreter; the
# statistics include the PSNR against the independent f64 reference render.
cargo run -q --release -p rendergen-gen --bin rendergen -- render gen/render/scenes/example.json \
    -o "${1:-out}/render.png" --engine rtl --spp 1 --depth 2 --json
