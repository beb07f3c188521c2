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
# `rendergen shader run --engine llvmpipe` (gen/shader/llvmpipe/): libEGL with Mesa's EGL and
# gallium drivers (llvmpipe), and the GL dispatch library; loaded at run time, no headers.
libs=$(ldconfig -p 2>/dev/null || true)
has_lib() { grep -qF "$1 " <<<"$libs"; }
has_lib libEGL.so.1      || need+=(libegl1)
has_lib libEGL_mesa.so.0 || need+=(libegl-mesa0)
has_lib libOpenGL.so.0   || need+=(libopengl0)
has_lib libGL.so.1       || need+=(libgl1)
ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1          || need+=(libgl1-mesa-dri)

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
