#!/usr/bin/env bash
# A dilated convolution run natively against the same window run as a dense
# kernel of its extent with zeros between the taps (what quarry imported and
# exported until conv2d carried its dilation): the atrous pyramid of a
# segmentation head (DeepLab's ASPP at output stride 16: a 1x1 branch and
# 3x3 branches at dilations 6, 12 and 18, concatenated, then a 1x1), on
# quarry's cpu backend and, where build/bin/ort_bench is built, in ONNX
# Runtime. The dense file has random weights of the dense shape: a dense
# convolution's time does not depend on its values.
#
#   bench/dilation_bench.sh OUTDIR [THREADS]
#
# Writes OUTDIR/aspp.onnx and OUTDIR/aspp_dense.onnx and prints JSON: the
# commit, date, CPU, command, and per backend the median ms of each file,
# the two timed in alternating rounds (ONNX Runtime: 5 pairs of runs;
# their outputs differ, the weights do).
set -euo pipefail
out=$1 threads=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/bin
mkdir -p "$out"

write_graph() { # write_graph FILE DENSE
  local k=(3 3 3) d=("d=6,6 " "d=12,12 " "d=18,18 ")
  if [ "$2" = 1 ]; then k=(13 25 37) d=("" "" ""); fi
  cat >"$1" <<EOF
input x: [1,256,33,33]
weight w0: [128,256,1,1]
weight w1: [128,256,${k[0]},${k[0]}]
weight w2: [128,256,${k[1]},${k[1]}]
weight w3: [128,256,${k[2]},${k[2]}]
weight wo: [128,512,1,1]
a = conv2d[act=relu](x, w0)
b = conv2d[${d[0]}act=relu](x, w1)
c = conv2d[${d[1]}act=relu](x, w2)
d = conv2d[${d[2]}act=relu](x, w3)
y = conv2d[act=relu](concat[axis=1](a, b, c, d), wo)
output y
EOF
}
write_graph "$out/aspp.qg" 0
write_graph "$out/aspp_dense.qg" 1
"$bin/quarry" export "$out/aspp.qg" --out "$out/aspp.onnx" >&2
"$bin/quarry" export "$out/aspp_dense.qg" --out "$out/aspp_dense.onnx" >&2

median_ms() { # median_ms FILE: quarry cpu, 5 runs
  "$bin/quarry" run "$1" --backend cpu --threads "$threads" \
    --runs 5 --warmup 1 | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
native=() dense=()
for _ in 1 2 3; do
  native+=("$(median_ms "$out/aspp.onnx")")
  dense+=("$(median_ms "$out/aspp_dense.onnx")")
done
q_native=$(printf '%s\n' "${native[@]}" | median)
q_dense=$(printf '%s\n' "${dense[@]}" | median)

ort='null'
if [ -x "$bin/ort_bench" ]; then
  ort=$("$bin/ort_bench" "$out/aspp.onnx" "$out/aspp_dense.onnx" --pairs \
    --threads "$threads" --runs 5 --warmup 1 --sessions 1 --min-seconds 0 \
    2>/dev/null |
    tr -d '\n ')
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
family=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)
model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
cat <<EOF
{"bench": "dilation_bench", "commit": "$(git -C "$root" rev-parse --short HEAD)",
 "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "command": "bench/dilation_bench.sh $out $threads",
 "device": "$cpu (family $family, model $model), $(nproc) cores",
 "cpu": "$cpu", "cpu_family": $family, "cpu_model": $model, "threads": $threads,
 "quarry_cpu_ms": {"dilated": $q_native, "dense": $q_dense,
                   "dense_over_dilated": $(awk -v a="$q_dense" -v b="$q_native" 'BEGIN { printf "%.1f", a / b }')},
 "onnxruntime": $ort}
EOF
