#!/bin/sh
# Networks as ONNX files timed in ONNX Runtime and in quarry's cpu backend,
# alternately, at 1 and 2 threads: the six benchmark networks as `quarry
# export` writes them, and today's architectures as PyTorch's exporter
# writes them (bench/today_nets: convnext_t, vit_b16, densenet121,
# efficientnet_b0, shufflenet_v2, and the detectors retinanet_s and
# faster_rcnn_s, which run in stages around their kept nodes).
#
#   bench/cpu_vs_ort.sh OUTDIR [RUNS] [network...]
#
# Needs build/bin/ort_vs_quarry (bench/fetch_onnxruntime.sh, then
# scripts/bootstrap.sh). Writes OUTDIR/NAME.onnx (kept for the next run)
# and prints the JSON of ort_vs_quarry.
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
today=$("$bin/today_nets" --list)
for n in $networks; do
  if [ ! -f "$out/$n.onnx" ]; then
    if echo "$today" | grep -qx "$n"; then
      "$bin/today_nets" "$out" "$n" >&2
    else
      "$bin/quarry" export "$n" --out "$out/$n.onnx" >&2
    fi
  fi
  files="$files $out/$n.onnx"
done
# shellcheck disable=SC2086
"$bin/ort_vs_quarry" $files --threads 1,2 --runs "$runs"
