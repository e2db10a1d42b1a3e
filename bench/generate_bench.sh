#!/bin/bash
# The whole generator (enumerate, exchange, classes, pruning, shards) at 1
# and 2 ranks under mpirun; prints JSON with wall time, graphs per second per
# rank, peak memory per rank and the 1-to-2-rank speed-up.
#   bench/generate_bench.sh [--max-ops 3] [--config configs/taso.gen]
#                           [--build build]
set -euo pipefail
max_ops=3
config=configs/taso.gen
build=${QUARRY_BUILD_DIR:-build}
while [ $# -gt 0 ]; do
  case $1 in
  --max-ops) max_ops=$2; shift 2 ;;
  --config) config=$2; shift 2 ;;
  --build) build=$2; shift 2 ;;
  *) echo "generate_bench: unknown flag $1" >&2; exit 2 ;;
  esac
done
q=$build/bin/quarry
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

stat_of() { "$q" candidates stats "$1" | awk -v s="$2" '$1 == s { print $2 }'; }

runs=()
for ranks in 1 2; do
  dir=$work/r$ranks
  start=$(date +%s.%N)
  mpirun -np "$ranks" "$q" generate --config "$config" --max-ops "$max_ops" \
    --out "$dir" --quiet >/dev/null
  end=$(date +%s.%N)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  graphs=$(stat_of "$dir" graphs)
  rss=$(stat_of "$dir" peak_rss_bytes_per_rank)
  rules=$(stat_of "$dir" after_subgraph_pruning)
  per_rank=$(awk -v g="$graphs" -v w="$wall" -v r="$ranks" 'BEGIN { print g / w / r }')
  runs+=("$(printf '{"ranks": %d, "wall_seconds": %.3f, "graphs": %d, "graphs_per_second_per_rank": %.0f, "peak_rss_bytes_per_rank": %d, "candidates": %d}' \
    "$ranks" "$wall" "$graphs" "$per_rank" "$rss" "$rules")")
  eval "wall_$ranks=$wall"
done
speedup=$(awk -v a="$wall_1" -v b="$wall_2" 'BEGIN { print a / b }')
printf '{\n  "benchmark": "generate",\n  "config": "%s",\n  "max_ops": %d,\n  "runs": [\n    %s,\n    %s\n  ],\n  "speedup_1_to_2_ranks": %.3f\n}\n' \
  "$config" "$max_ops" "${runs[0]}" "${runs[1]}" "$speedup"
