#!/bin/sh
# A search for a device this machine lacks: each built-in network
# optimized with costs priced from another machine's cost table (quarry
# optimize --costs), nothing measured or timed here. Prints a JSON array of
# the reports (the rules applied, the cost before and after, how many
# operator configurations came from the table and how many from its
# roofline).
#
#   bench/priced_search.sh [COSTS] [BUDGET] [BACKEND] [STREAMS]
#
# COSTS defaults to bench/data/cuda_costs.nvidia-h200.tsv, BUDGET to 20,
# BACKEND to cuda, STREAMS to 1 (auto: graphs ranked by their critical
# path over as many streams as their widest wave needs).
set -eu
root=$(dirname "$0")/..
costs=${1:-$root/bench/data/cuda_costs.nvidia-h200.tsv}
budget=${2:-20}
backend=${3:-cuda}
streams=${4:-1}
quarry=$root/build/bin/quarry
[ -x "$quarry" ] || {
  echo "priced_search.sh: build/bin/quarry is missing: run scripts/bootstrap.sh" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "["
sep=""
for m in resnet50 resnext50 nasnet_a nasrnn bert inception_v3; do
  "$quarry" optimize "$m" --backend "$backend" --costs "$costs" \
    --rules "$root/rules/quarry-k3.verified.pb" --budget "$budget" \
    --streams "$streams" \
    --cost-cache "$work/unused.tsv" --json "$work/$m.json" >/dev/null
  printf '%s' "$sep"
  cat "$work/$m.json"
  sep=","
done
echo "]"
