#!/usr/bin/env bash
# Installs the system tools rendergen needs, from Debian packages, when they are missing.
# Safe to run repeatedly: it does nothing when everything is present.
set -euo pipefail

need=()
command -v yosys     >/dev/null 2>&1 || need+=(yosys)
command -v verilator >/dev/null 2>&1 || need+=(verilator)
command -v iverilog  >/dev/null 2>&1 || need+=(iverilog)
command -v astcenc   >/dev/null 2>&1 || need+=(astcenc)
[ -e /usr/include/astcenc.h ] || need+=(libastcenc-dev)
command -v nextpnr-ice40 >/dev/null 2>&1 || need+=(nextpnr-ice40)
command -v icepack   >/dev/null 2>&1 || need+=(fpga-icestorm)
command -v vcd2fst   >/dev/null 2>&1 || need+=(gtkwave)
command -v g++       >/dev/null 2>&1 || need+=(g++)
command -v make      >/dev/null 2>&1 || need+=(make)

if [ ${#need[@]} -gt 0 ]; then
    echo "install-deps: installing ${need[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "install-deps: cargo not found; install the Rust toolchain (https://rustup.rs)" >&2
    exit 1
fi
