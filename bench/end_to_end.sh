#!/bin/sh
# quarry end to end against ONNX Runtime on the same ONNX files: each file
# optimized by `quarry optimize` at the default budget for each thread
# count (written as .qg, with the implementations it chose), then the
# original in ONNX Runtime and what optimize wrote in quarry's cpu backend,
# timed alternately (ort_vs_quarry A.onnx:B.qg). Optimize's own summary
# goes to OUT/NAME.tN.log, its report to OUT/NAME.tN.json.
#
#   bench/end_to_end.sh OUT RULES [THREADS] FILE.onnx...
#
# THREADS is a comma-separated list (default 1,2). Needs build/bin/quarry
# and build/bin/ort_vs_quarry (bench/fetch_onnxruntime.sh). Prints a JSON
# array of what ort_vs_quarry prints for each file and thread count.
set -eu
[ $# -ge 3 ] || {
  echo "usage: bench/end_to_end.sh OUT RULES [THREADS] FILE.onnx..." >&2
  exit 2
}
out=$1
rules=$2
shift 2
threads=1,2
case "$1" in *.onnx) ;; *) threads=$1; shift ;; esac
root=$(dirname "$0")/..
bin=$root/build/bin
[ -x "$bin/ort_vs_quarry" ] || {
  echo "end_to_end.sh: build/bin/ort_vs_quarry is missing: run bench/fetch_onnxruntime.sh, then scripts/bootstrap.sh" >&2
  exit 1
}
mkdir -p "$out"
echo "["
sep=""
for file in "$@"; do
  name=$(basename "$file" .onnx)
  for t in $(echo "$threads" | tr ',' ' '); do
    qg=$out/$name.t$t.qg
    "$bin/quarry" optimize "$file" --rules "$rules" --backend cpu \
      --threads "$t" --out "$qg" --json "$out/$name.t$t.json" \
      >"$out/$name.t$t.log" 2>&1 || {
      echo "end_to_end.sh: optimizing $file failed: see $out/$name.t$t.log" >&2
      exit 1
    }
    printf '%s' "$sep"
    "$bin/ort_vs_quarry" "$file:$qg" --threads "$t" --runs 15
    sep=","
  done
done
echo "]"
