#!/bin/sh
# Each network before and after `quarry optimize`, timed in ONNX Runtime.
#
#   bench/ort_compare.sh OUTDIR RULES [BUDGET] [network | FILE.onnx ...]
#
# A network is one of `quarry models list`, exported first; a FILE.onnx is
# any model, optimized as it is (its input model is the original of the
# pair). Needs build/bin/ort_bench (configure with -DQUARRY_ONNXRUNTIME_DIR=...,
# see cmake/QuarryDependencies.cmake). Writes OUTDIR/NAME.onnx (for a
# network) and OUTDIR/NAME.opt.onnx (with OUTDIR/NAME.report.json) and
# prints ort_bench's JSON: each original and its optimized file timed in
# alternating rounds, with their speed-ups and its geometric mean, and
# whether each pair's outputs agree within 1e-4 (all_equal; a pair whose
# files are byte-identical, where optimize kept the original, is marked
# identical). QUARRY_OPTIMIZE_FLAGS adds flags to every optimize (TASO's
# imported rules need --allow-unverified; a warm cost cache, --cost-cache
# FILE; a model with free dimensions, --input-shape NAME=DxD).
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
  case $n in
  *.onnx)
    original=$n
    name=$(basename "$n" .onnx)
    model="$n"
    ;;
  *)
    original=$out/$n.onnx
    name=$n
    model="$n"
    "$bin/quarry" export "$n" --out "$original" >&2
    ;;
  esac
  # shellcheck disable=SC2086
  "$bin/quarry" optimize $model --rules "$rules" --budget "$budget" \
    --backend cpu --out "$out/$name.opt.onnx" \
    --json "$out/$name.report.json" ${QUARRY_OPTIMIZE_FLAGS:-} >&2
  files="$files $original $out/$name.opt.onnx"
done
# shellcheck disable=SC2086
"$bin/ort_bench" --pairs $files
