#!/usr/bin/env bash
# Installs the Debian packages quarry needs (only those missing, after one
# apt-get update), then configures and builds in build/ (Release).
# Safe to run again: with everything present it only rebuilds what changed.
#
#   QUARRY_BUILD_DIR=DIR      build there instead
#   QUARRY_SANITIZE=address   clang, ASan+UBSan and the fuzz targets
#   QUARRY_SANITIZE=thread    clang, TSan
#   QUARRY_BUILD_TARGET=T     build only T (e.g. fuzz_targets)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ make pkg-config
  clang libclang-rt-14-dev
  libgtest-dev
  libprotobuf-dev protobuf-compiler
  libtbb-dev
  libz3-dev
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools
  libssl-dev
  libdnnl-dev
  libonnx-dev libonnx-testdata
  libimath-dev
  slurm-wlm munge
  libcli11-dev
  nlohmann-json3-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install packages" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}"
fi

build_dir=${QUARRY_BUILD_DIR:-build}
sanitize=${QUARRY_SANITIZE:-}
if [ -z "$sanitize" ]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
else
  # Optimized enough that the suite runs in reasonable time, line tables
  # for the sanitizers' stack traces, assertions on.
  flags="-O1 -gline-tables-only"
  fuzz=OFF
  [ "$sanitize" = address ] && fuzz=ON
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
    -DQUARRY_SANITIZE="$sanitize" -DQUARRY_FUZZ="$fuzz"
fi
if [ -n "${QUARRY_BUILD_TARGET:-}" ]; then
  cmake --build "$build_dir" -j"$(nproc)" --target "$QUARRY_BUILD_TARGET"
else
  cmake --build "$build_dir" -j"$(nproc)"
fi
