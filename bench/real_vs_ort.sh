#!/bin/sh
# The published models of models/real/manifest.tsv that quarry runs, timed
# in ONNX Runtime and in quarry's cpu backend, alternately (ort_vs_quarry),
# each at its manifest input shapes. A model with an input fixed by value
# (value:NAME=...) is left out: ONNX Runtime would need that input fed.
#
#   bench/real_vs_ort.sh [RUNS] [THREADS]
#
# Needs build/bin/ort_vs_quarry and the models (scripts/fetch_models.sh,
# into ~/.cache/quarry/models or $QUARRY_MODELS). Prints a JSON array of
# what ort_vs_quarry prints for each model.
set -eu
runs=${1:-10}
threads=${2:-1,2}
root=$(dirname "$0")/..
bin=$root/build/bin
models=${QUARRY_MODELS:-$HOME/.cache/quarry/models}
[ -x "$bin/ort_vs_quarry" ] || {
  echo "real_vs_ort.sh: build/bin/ort_vs_quarry is missing: run bench/fetch_onnxruntime.sh, then scripts/bootstrap.sh" >&2
  exit 1
}
. "$root/bench/real_models.sh"
sep=""
time_model() {
  file=$1
  shift
  printf '%s' "$sep"
  "$bin/ort_vs_quarry" "$file" --threads "$threads" --runs "$runs" "$@"
  sep=","
}
echo "["
for_each_real_model time_model
echo "]"
