#!/usr/bin/env bash
# Installs the Debian packages quarry needs (only those missing, after one
# apt-get update), then configures and builds in build/ (Release).
# Safe to run again: with everything present it only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ make pkg-config
  libgtest-dev
  libprotobuf-dev protobuf-compiler
  libtbb-dev
  libz3-dev
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools
  libssl-dev
  libdnnl-dev
  libonnx-dev libonnx-testdata
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
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j"$(nproc)"
