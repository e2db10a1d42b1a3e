#!/usr/bin/env bash
# Fetches ONNX Runtime (optional, for the comparison benchmarks only) from
# the npm registry into a cache outside the repository:
#
#   bench/fetch_onnxruntime.sh [DIR]     (default ~/.cache/quarry/onnxruntime)
#
# onnxruntime-node ships the Linux shared library (ONNX Runtime 1.30) but no
# C headers; com.github.asus4.onnxruntime ships the C/C++ headers (API 29,
# which the 1.30 library serves). Nothing is run from either package
# (--ignore-scripts). Configure with -DQUARRY_ONNXRUNTIME_DIR=DIR, or leave
# it out: CMake looks in the default folder by itself.
set -euo pipefail
dir=${1:-${HOME}/.cache/quarry/onnxruntime}
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' >package.json
npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
  onnxruntime-node@1.30.0 com.github.asus4.onnxruntime@0.4.9
echo "ONNX Runtime in $dir"
