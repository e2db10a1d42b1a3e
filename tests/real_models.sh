#!/usr/bin/env bash
# Published ONNX models (models/real/manifest.tsv) through quarry: each one
# marked "runs" imports, runs on the cpu backend with --check against the
# reference, runs no more than a tenth of its time in reference code (the
# steps `run --profile` marks "reference": an operator the cpu backend has
# no kernel for), is optimized to ONNX, and (when ONNX Runtime's ort_bench is
# built) the optimized file gives the original's outputs in ONNX Runtime
# within 1e-4; each one marked "kept" holds nodes quarry keeps as they are
# (control flow, integer tensors, shapes that depend on values): it runs in
# stages around them (staged/), is optimized around them, and is checked
# and compared like the others; each one is also imported and exported again (what a
# rewritten model goes out as) and compared the same way, where an input
# --input-value fixed is no longer one; each one marked "large" (one the
# reference takes minutes over) runs once on the cpu backend, under the
# same tenth, its outputs checked against ONNX Runtime's (within 1e-6,
# when ort_bench is built) instead of the reference's, and is imported,
# exported and compared, not optimized; each one marked "refused" is
# refused with one line
# naming the file and node. Input shapes "NAME=DxD" and fixed values
# "value:NAME=NUMBER" are comma-separated. Skips (exit 77) when the model
# cache is absent.
#
#   tests/real_models.sh QUARRY RULES OUTDIR [ORT_BENCH]
#
# The cache is $QUARRY_MODEL_CACHE or ~/.cache/quarry/models
# (scripts/fetch_models.sh fills it).
set -uo pipefail
quarry=$1 rules=$2 out=$3 ort=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${QUARRY_MODEL_CACHE:-${HOME}/.cache/quarry/models}
if [ ! -d "$cache" ]; then
  echo "real_models: SKIPPED: no model cache at $cache (run scripts/fetch_models.sh)"
  exit 77
fi
[ -x "$ort" ] || ort=""
mkdir -p "$out"
failed=0 ran=0 refused=0 missing=0
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

while IFS=$'\t' read -r name family package path sha shapes expect; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  model="$cache/$name.onnx"
  if [ ! -f "$model" ]; then
    echo "missing $name ($model)"
    missing=$((missing + 1))
    continue
  fi
  flags=() fixed=()
  if [ "$shapes" != "-" ]; then
    IFS=',' read -ra parts <<<"$shapes"
    for p in "${parts[@]}"; do
      if [[ "$p" == value:* ]]; then
        flags+=(--input-value "${p#value:}")
        p=${p#value:}
        fixed+=("${p%%=*}")
      else
        flags+=(--input-shape "$p")
      fi
    done
  fi
  if [ "$expect" = refused ]; then
    err=$("$quarry" run "$model" "${flags[@]}" --backend cpu --runs 1 \
      --warmup 0 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 0 ]; then
      fail "$name" "expected a refusal, but it ran (update the manifest)"
    elif [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] ||
      [[ "$err" != "quarry: $model: "* ]]; then
      fail "$name" "refusal is not one line naming the file: $err"
    else
      echo "refused $name ($family): ${err#quarry: $model: }"
      refused=$((refused + 1))
    fi
    continue
  fi
  if [ "$expect" = large ]; then
    # One run, which the profile is of: the reference would take minutes.
    if ! prof=$("$quarry" run "$model" "${flags[@]}" --backend cpu \
      --runs 1 --warmup 0 --profile 2>&1); then
      fail "$name" "run: $prof"
      continue
    fi
  elif ! log=$("$quarry" run "$model" "${flags[@]}" --backend cpu \
    --runs 1 --warmup 0 --check 2>&1); then
    fail "$name" "run --check: $log"
    continue
  else
    prof=$("$quarry" run "$model" "${flags[@]}" --backend cpu \
      --runs 3 --warmup 1 --profile 2>&1)
  fi
  # A large model's check, where ONNX Runtime is built: the cpu backend's
  # outputs against ONNX Runtime's on the same inputs, within 1e-6.
  if [ "$expect" = large ] && [ -n "$ort" ]; then
    case_dir="$out/$name.ort_case"
    rm -rf "$case_dir"
    if ! log=$("$ort" --save-case "$case_dir" "$model" "${flags[@]}" 2>&1) ||
      ! log=$("$quarry" conformance --backend cpu --atol 1e-6 "$case_dir" 2>&1); then
      fail "$name" "cpu against ONNX Runtime's outputs: $log"
      continue
    fi
  fi
  # Reference steps in the hot path: an operator without a kernel.
  share=$(printf '%s\n' "$prof" | awk '$1 ~ /^[0-9.]+$/ && NF >= 4 {
    t += $1; if ($3 == "reference") { r += $1; s = s " " $0 } }
    END { printf "%.3f%s", (t > 0 ? r / t : 0), s }')
  if awk -v s="${share%% *}" 'BEGIN { exit !(s > 0.1) }'; then
    fail "$name" "reference code takes ${share%% *} of the run:${share#* }"
    continue
  fi
  # A large model is not optimized in the test: its costs would be
  # measured for minutes.
  opt=""
  if [ "$expect" != large ]; then
    opt="$out/$name.opt.onnx"
    if ! log=$("$quarry" optimize "$model" "${flags[@]}" --rules "$rules" \
      --budget 3 --measure-top 1 --runs 3 --warmup 1 --no-attribution \
      --cost-cache "$out/costs.tsv" --out "$opt" 2>&1); then
      fail "$name" "optimize: $log"
      continue
    fi
  fi
  # What a rewritten model goes out as: imported and exported again.
  exported="$out/$name.export.onnx"
  if ! log=$("$quarry" import "$model" "${flags[@]}" --out "$out/$name.qg" 2>&1 &&
    "$quarry" export "$out/$name.qg" --out "$exported" 2>&1); then
    fail "$name" "import and export: $log"
    continue
  fi
  if [ -n "$ort" ]; then
    ok=1
    for written in $opt "$exported"; do
      if ! log=$("$ort" --compare "$model" "$written" "${flags[@]}" 2>&1); then
        fail "$name" "ONNX Runtime, original against $written: $log"
        ok=0
        break
      fi
      # A drop-in replacement: the same names, types, opset and metadata;
      # only a symbolic dimension that --input-shape fixed, or an input
      # --input-value fixed, may differ.
      diffs=$(sed -n 's/.*"interface_differences":\[\(.*\)\],"max_relative_difference".*/\1/p' <<<"$log" |
        sed 's/","/\n/g; s/^"//; s/"$//' |
        grep -v "has dimension [0-9]* [0-9]*, not [^0-9]" || true)
      if [ "$written" = "$exported" ] && [ ${#fixed[@]} -gt 0 ]; then
        diffs=$(grep -v "^[0-9]* inputs, not [0-9]*$" <<<"$diffs" || true)
        for p in "${fixed[@]}"; do
          diffs=$(grep -v "'$p'" <<<"$diffs" || true)
        done
      fi
      if [ -n "$diffs" ]; then
        fail "$name" "$written's interface differs: $diffs"
        ok=0
        break
      fi
    done
    [ $ok -eq 1 ] || continue
    echo "ran $name ($family): $(printf '%s' "$log" | grep -o '"max_relative_difference":[^,]*')"
  else
    echo "ran $name ($family) (no ONNX Runtime to compare the optimized file)"
  fi
  ran=$((ran + 1))
done <"$root/models/real/manifest.tsv"

echo "real_models: $ran ran or kept, $refused refused as expected, $missing missing, $failed failed"
[ $failed -eq 0 ]
