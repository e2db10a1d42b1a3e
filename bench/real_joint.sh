#!/bin/sh
# bench/joint_search over the published models of models/real/manifest.tsv
# that quarry runs, each at its manifest input shapes, and over any ONNX
# files given after the arguments (today's architectures, say): whether
# substitutions, implementation choices or both measured faster than the
# original, model by model. A model with an input fixed by value
# (value:NAME=...) is left out.
#
#   bench/real_joint.sh [ROUNDS] [BUDGET] [FILE.onnx ...]
#
# Needs build/bin/joint_search and the models (scripts/fetch_models.sh,
# into ~/.cache/quarry/models or $QUARRY_MODELS). Prints a JSON array of
# what joint_search prints for each model.
set -eu
rounds=${1:-10}
budget=${2:-1000}
[ $# -ge 2 ] && shift 2 || shift $#
root=$(dirname "$0")/..
bin=$root/build/bin
models=${QUARRY_MODELS:-$HOME/.cache/quarry/models}
cache=${QUARRY_COST_CACHE:-$HOME/.cache/quarry/op_costs.tsv}
[ -x "$bin/joint_search" ] || {
  echo "real_joint.sh: build/bin/joint_search is missing: build first" >&2
  exit 1
}
. "$root/bench/real_models.sh"
sep=""
run() {
  printf '%s' "$sep"
  "$bin/joint_search" --rounds "$rounds" --budget "$budget" \
    --cost-cache "$cache" "$@"
  sep=","
}
echo "["
for_each_real_model run
for file in "$@"; do
  run "$file"
done
echo "]"
