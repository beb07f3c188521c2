#!/usr/bin/env bash
# The full test suite: installs missing system tools, then formatting, lints, every test, and
# the Verilog lint of every generator. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

start=$(date +%s)
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps --workspace
cargo run -q --release -p rendergen-gen --bin rendergen -- lint --all
echo "test.sh: all passed in $(( $(date +%s) - start )) s"
