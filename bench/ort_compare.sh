#!/bin/sh
# Each network before and after `quarry optimize`, timed in ONNX Runtime.
#
#   bench/ort_compare.sh OUTDIR RULES [BUDGET] [network...]
#
# Needs build/bin/ort_bench (configure with -DQUARRY_ONNXRUNTIME_DIR=...,
# see cmake/QuarryDependencies.cmake). Writes OUTDIR/NAME.onnx and
# OUTDIR/NAME.opt.onnx (with OUTDIR/NAME.report.json) and prints
# ort_bench's JSON: each network's two files timed in alternating rounds,
# with their speed-ups and its geometric mean, and whether each pair's
# outputs agree within 1e-4 (all_equal). QUARRY_OPTIMIZE_FLAGS adds flags
# to every optimize (TASO's imported rules need --allow-unverified; a warm
# cost cache, --cost-cache FILE).
set -eu
out=$1
rules=$2
budget=${3:-20}
shift 2
[ $# -gt 0 ] && shift
networks=${*:-resnet50 resnext50 nasnet_a nasrnn bert inception_v3}
bin=$(dirname "$0")/../build/bin
mkdir -p "$out"
files=""
for n in $networks; do
  "$bin/quarry" export --model "$n" --out "$out/$n.onnx" >&2
  # shellcheck disable=SC2086
  "$bin/quarry" optimize --model "$n" --rules "$rules" --budget "$budget" \
    --backend cpu --out "$out/$n.opt.onnx" --report "$out/$n.report.json" \
    ${QUARRY_OPTIMIZE_FLAGS:-} >&2
  files="$files $out/$n.onnx $out/$n.opt.onnx"
done
# shellcheck disable=SC2086
"$bin/ort_bench" --pairs $files
