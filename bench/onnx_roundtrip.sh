#!/usr/bin/env bash
# Every ONNX test case of libonnx-testdata through `quarry optimize --onnx`
# and back out, then the original and the optimized file run in ONNX
# Runtime on the case's own inputs (test_data_set_0): do they agree?
#
#   bench/onnx_roundtrip.sh OUTDIR RULES [SUITE_DIR...]
#
# Needs build/bin/ort_bench (bench/fetch_onnxruntime.sh). SUITE_DIR
# defaults to the four suites under /usr/share/libonnx-testdata/data.
# A model whose inputs have dynamic dimensions is given the dimensions of
# its case's inputs (--input-shape, read with protoc).
# Writes OUTDIR/NAME.onnx and OUTDIR/log.tsv (case, outcome, detail) and
# prints JSON: how many cases quarry refused (with the reasons), how many
# agree within 1e-4 relative, differ, or could not be compared in ONNX
# Runtime (it cannot run the original, or an input is no tensor).
set -uo pipefail
out=$1 rules=$2
shift 2
suites=("$@")
data=/usr/share/libonnx-testdata/data
[ ${#suites[@]} -gt 0 ] ||
  suites=("$data/node" "$data/simple" "$data/pytorch-converted" "$data/pytorch-operator")
bin=$(cd "$(dirname "$0")/.." && pwd)/build/bin
[ -x "$bin/ort_bench" ] || {
  echo "onnx_roundtrip: no $bin/ort_bench (bench/fetch_onnxruntime.sh)" >&2
  exit 2
}
mkdir -p "$out"
log=$out/log.tsv
: >"$log"
for suite in "${suites[@]}"; do
  for dir in "$suite"/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/model.onnx" ] || continue
    shapes=()
    optimize() {
      "$bin/quarry" optimize --onnx "$dir/model.onnx" "${shapes[@]}" \
        --rules "$rules" --budget 2 --measure-top 0 --no-attribution \
        --cost-cache "$out/costs.tsv" --out "$out/$name.onnx" 2>&1 >/dev/null
    }
    msg=$(optimize)
    rc=$?
    if [ $rc -ne 0 ] && [[ $msg == *"dynamic dimension"* ]] &&
      [ -d "$dir/test_data_set_0" ]; then
      # Fix every input's dimensions as the case's own inputs have them.
      for f in "$dir"/test_data_set_0/input_*.pb; do
        decoded=$(protoc --decode=onnx.TensorProto -I /usr/include \
          onnx/onnx.proto <"$f" 2>/dev/null) || continue
        input=$(sed -n 's/^name: "\(.*\)"$/\1/p' <<<"$decoded")
        dims=$(sed -n 's/^dims: //p' <<<"$decoded" | paste -sd x)
        [ -n "$input" ] && [ -n "$dims" ] &&
          shapes+=(--input-shape "$input=$dims")
      done
      msg=$(optimize)
      rc=$?
    fi
    if [ $rc -ne 0 ]; then
      printf '%s\trefused\t%s\n' "$name" "${msg##*: }" >>"$log"
      continue
    fi
    if [ ! -d "$dir/test_data_set_0" ]; then
      printf '%s\tnot compared\tno test data\n' "$name" >>"$log"
      continue
    fi
    res=$("$bin/ort_bench" --compare "$dir/model.onnx" "$out/$name.onnx" \
      --inputs "$dir/test_data_set_0" 2>&1 | grep -v '^.\[' | tail -1)
    case $res in
    *'"equal":true'*) printf '%s\tagree\t\n' "$name" >>"$log" ;;
    *'"equal":false'*) printf '%s\tdiffer\t%s\n' "$name" "$res" >>"$log" ;;
    *) printf '%s\tnot compared\t%s\n' "$name" "${res#ort_bench: }" >>"$log" ;;
    esac
  done
done
awk -F'\t' '
  { n[$2]++ }
  $2 == "refused" { reason = $3; sub(/[0-9][0-9]*/, "N", reason); why[reason]++ }
  $2 == "differ" { differ = differ (differ ? "," : "") "\"" $1 "\"" }
  END {
    printf "{\"cases\":%d,\"agree\":%d,\"differ\":%d,\"not_compared\":%d,\"refused\":%d,",
      NR, n["agree"], n["differ"], n["not compared"], n["refused"]
    printf "\"differing\":[%s],\"refused_because\":{", differ
    sep = ""
    for (r in why) {
      key = r
      gsub(/"/, "\\\"", key)
      printf "%s\"%s\":%d", sep, key, why[r]; sep = ","
    }
    print "}}"
  }' "$log"
