#!/usr/bin/env bash
# Every ONNX test case of libonnx-testdata through `quarry optimize --onnx`
# and back out, then the original and the written file run in ONNX
# Runtime on the case's own inputs (test_data_set_0): do they agree, and
# is the written file a drop-in replacement (the same interface)? Where
# optimize keeps the original it writes the input itself; the case is then
# also written by `quarry export` (import and export, the path of every
# rewritten model), and that file is the one compared.
#
#   bench/onnx_roundtrip.sh OUTDIR RULES [SUITE_DIR...]
#
# Needs build/bin/ort_bench (bench/fetch_onnxruntime.sh). SUITE_DIR
# defaults to the four suites under /usr/share/libonnx-testdata/data.
# A model whose inputs have dynamic dimensions is given the dimensions of
# its case's inputs (--input-shape, read with protoc).
# Writes OUTDIR/NAME.onnx (and NAME.export.onnx) and OUTDIR/log.tsv (case,
# outcome, detail, interface differences) and prints JSON: how many cases
# quarry refused (with the reasons), how many agree within 1e-4 relative,
# differ, or could not be compared in ONNX Runtime (it cannot run the
# original, or an input is no tensor); how many optimize wrote back
# byte-identical; how many compared files differ in their interface (by
# kind of difference).
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
identical=0
log=$out/log.tsv
: >"$log"
for suite in "${suites[@]}"; do
  for dir in "$suite"/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/model.onnx" ] || continue
    shapes=()
    optimize() {
      "$bin/quarry" optimize "$dir/model.onnx" "${shapes[@]}" \
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
      printf '%s\trefused\t%s\t\n' "$name" "${msg##*: }" >>"$log"
      continue
    fi
    written=$out/$name.onnx
    if cmp -s "$dir/model.onnx" "$written"; then
      identical=$((identical + 1))
      # The export path, where it needs no --input-shape.
      "$bin/quarry" export "$dir/model.onnx" --out "$out/$name.export.onnx" \
        >/dev/null 2>&1 && written=$out/$name.export.onnx
    fi
    if [ ! -d "$dir/test_data_set_0" ]; then
      printf '%s\tnot compared\tno test data\t\n' "$name" >>"$log"
      continue
    fi
    res=$("$bin/ort_bench" --compare "$dir/model.onnx" "$written" \
      --inputs "$dir/test_data_set_0" 2>&1 | grep -v '^.\[' | tail -1)
    # The first interface difference, names and numbers left out: its kind.
    iface=$(sed -n 's/.*"interface_differences":\["\([^"]*\)".*/\1/p' <<<"$res" |
      sed -E "s/[0-9]+/N/g; s/'[^']*'/'...'/g")
    case $res in
    *'"equal":true'*) printf '%s\tagree\t\t%s\n' "$name" "$iface" >>"$log" ;;
    *'"equal":false'*) printf '%s\tdiffer\t%s\t%s\n' "$name" "$res" "$iface" >>"$log" ;;
    *) printf '%s\tnot compared\t%s\t\n' "$name" "${res#ort_bench: }" >>"$log" ;;
    esac
  done
done
awk -F'\t' -v identical="$identical" '
  # A JSON object of counts by text.
  function counts(c, k, key, sep, out) {
    for (k in c) {
      key = k
      gsub(/"/, "\\\"", key)
      out = out sep "\"" key "\":" c[k]; sep = ","
    }
    return "{" out "}"
  }
  { n[$2]++ }
  $4 != "" { iface++; kinds[$4]++ }
  $2 == "refused" { reason = $3; sub(/[0-9][0-9]*/, "N", reason); why[reason]++ }
  $2 == "differ" { differ = differ (differ ? "," : "") "\"" $1 "\"" }
  END {
    printf "{\"cases\":%d,\"agree\":%d,\"differ\":%d,\"not_compared\":%d,\"refused\":%d,",
      NR, n["agree"], n["differ"], n["not compared"], n["refused"]
    printf "\"written_back_identical\":%d,\"interface_differs\":%d,\"interface_differences\":%s,",
      identical, iface, counts(kinds)
    printf "\"differing\":[%s],\"refused_because\":%s}\n", differ, counts(why)
  }' "$log"
