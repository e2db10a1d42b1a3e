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
echo "["
grep -v '^#' "$root/models/real/manifest.tsv" | {
  sep=""
  while IFS="$(printf '\t')" read -r name _ _ _ _ shapes expect; do
    [ "$expect" = runs ] || continue
    case "$shapes" in *value:*) continue ;; esac
    file=$models/$name.onnx
    if [ ! -f "$file" ]; then
      echo "real_vs_ort.sh: $file is missing (scripts/fetch_models.sh): skipped" >&2
      continue
    fi
    set --
    if [ "$shapes" != - ]; then
      for s in $(echo "$shapes" | tr ',' ' '); do
        set -- "$@" --input-shape "$s"
      done
    fi
    printf '%s' "$sep"
    "$bin/ort_vs_quarry" "$file" --threads "$threads" --runs "$runs" "$@"
    sep=","
  done
}
echo "]"
