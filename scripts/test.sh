#!/usr/bin/env bash
# Sets up and builds (scripts/bootstrap.sh), then runs every test with ctest.
# GPU tests report "skipped" on machines without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
build_dir=${QUARRY_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" "$@"
