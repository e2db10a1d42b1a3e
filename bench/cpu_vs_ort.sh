#!/bin/sh
# The six networks exported as ONNX and timed in ONNX Runtime and in
# quarry's cpu backend, alternately, at 1 and 2 threads.
#
#   bench/cpu_vs_ort.sh OUTDIR [RUNS] [network...]
#
# Needs build/bin/ort_vs_quarry (bench/fetch_onnxruntime.sh, then
# scripts/bootstrap.sh). Writes OUTDIR/NAME.onnx and prints the JSON of
# ort_vs_quarry.
set -eu
out=$1
runs=${2:-30}
shift
[ $# -gt 0 ] && shift
networks=${*:-resnet50 resnext50 inception_v3 bert nasrnn nasnet_a}
bin=$(dirname "$0")/../build/bin
[ -x "$bin/ort_vs_quarry" ] || {
  echo "cpu_vs_ort.sh: build/bin/ort_vs_quarry is missing: run bench/fetch_onnxruntime.sh, then scripts/bootstrap.sh" >&2
  exit 1
}
mkdir -p "$out"
files=""
for n in $networks; do
  [ -f "$out/$n.onnx" ] || "$bin/quarry" export --model "$n" --out "$out/$n.onnx" >&2
  files="$files $out/$n.onnx"
done
# shellcheck disable=SC2086
"$bin/ort_vs_quarry" $files --threads 1,2 --runs "$runs"
