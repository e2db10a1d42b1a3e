#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/README.md) with clang, ASan and UBSan
# in build-asan/, and runs each for SECONDS (default 60), as many at once as
# there are cores. A crash, leak, sanitizer report, failed round trip or
# input taking over 5 s leaves its input under fuzz/crashes/TARGET/ and
# makes the script fail. Prints one JSON object per target (executions,
# rate, corpus) and writes them all to build-asan/fuzz-summary.json.
#
#   scripts/fuzz.sh [--runs N] [SECONDS] [TARGET...]
#
# TARGET is a name in fuzz/targets/ without .cc (all of them by default).
# With --runs N a target stops after N executions if that comes before
# SECONDS; its mutations then follow a fixed seed (-seed=1), so a short run
# in CI explores the same inputs each time from the same corpus.
#
# The corpus each target grows is kept in build-asan/fuzz-corpus/TARGET, so
# a later run goes on from it; the seeds in fuzz/corpus/ (and, for ONNX
# models and tensors, the cases of Debian's libonnx-testdata) start it.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=
if [ "${1:-}" = --runs ]; then
  runs=${2:-}
  case "$runs" in '' | *[!0-9]*) echo "fuzz.sh: --runs needs a whole number, not '$runs'" >&2; exit 2 ;; esac
  shift 2
fi
seconds=${1:-60}
shift || true
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac

build_dir=${QUARRY_BUILD_DIR:-build-asan}
mkdir -p "$build_dir"
build_log="$build_dir/fuzz-build.log"
QUARRY_BUILD_DIR=$build_dir QUARRY_SANITIZE=address QUARRY_BUILD_TARGET=fuzz_targets \
  scripts/bootstrap.sh >"$build_log" 2>&1 || {
  tail -n 30 "$build_log" >&2
  echo "fuzz.sh: building the fuzz targets failed (log: $build_log)" >&2
  exit 1
}

targets=("$@")
if ((${#targets[@]} == 0)); then
  for t in fuzz/targets/*.cc; do targets+=("$(basename "$t" .cc)"); done
fi

# The dictionary each target uses, where its format has keywords.
dict_of() {
  case "$1" in
  text_graph | saved_model) echo fuzz/dict/text_graph.dict ;;
  axioms) echo fuzz/dict/axioms.dict ;;
  gen_config) echo fuzz/dict/gen_config.dict ;;
  pipeline_config) echo fuzz/dict/pipeline_config.dict ;;
  generate_manifest | verify_report | validate_report | run_summary) echo fuzz/dict/json.dict ;;
  esac
}

# Seeds from outside the repository, made once into the build folder.
extra_seeds() {
  local t=$1 dir="$build_dir/fuzz-seeds/$1" data=/usr/share/libonnx-testdata/data
  case "$t" in
  onnx_model)
    if [ ! -d "$dir" ] && [ -d "$data" ]; then
      mkdir -p "$dir"
      for m in "$data"/node/*/model.onnx "$data"/simple/*/model.onnx; do
        [ "$(stat -c %s "$m")" -le 65536 ] && cp "$m" "$dir/$(basename "$(dirname "$m")").onnx"
      done
    fi ;;
  tensor_file)
    if [ ! -d "$dir" ] && [ -d "$data" ]; then
      mkdir -p "$dir"
      for f in "$data"/node/test_a*/test_data_set_0/input_0.pb; do
        [ "$(stat -c %s "$f")" -le 4096 ] &&
          { printf '\0'; cat "$f"; } >"$dir/$(basename "$(dirname "$(dirname "$f")")").pb"
      done
    fi ;;
  axioms) dir=axioms ;;
  gen_config) dir=configs ;;
  *) return 0 ;;
  esac
  [ -d "$dir" ] && echo "$dir"
  return 0
}

supp=$PWD/sanitizers
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"

fuzz_one() {
  local t=$1 exe="$build_dir/bin/fuzz_$1" log="$build_dir/fuzz-logs/$1.log"
  local corpus="$build_dir/fuzz-corpus/$1" crashes="fuzz/crashes/$1"
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
  local opts=(-max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048
    -print_final_stats=1 -artifact_prefix="$crashes/")
  [ -n "$runs" ] && opts+=(-runs="$runs" -seed=1)
  local dict
  dict=$(dict_of "$t")
  [ -n "$dict" ] && opts+=(-dict="$dict")
  local seeds=("fuzz/corpus/$t")
  local extra
  extra=$(extra_seeds "$t")
  [ -n "$extra" ] && seeds+=("$extra")
  local rc=0 start=$SECONDS
  "$exe" "${opts[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  local took=$((SECONDS - start))
  local execs rate
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  local files
  files=$(find "$corpus" -type f | wc -l)
  printf '{"target": "%s", "seconds": %s, "limit_seconds": %s, "limit_runs": %s, "executions": %s, "executions_per_second": %s, "corpus_files": %s, "crashed": %s}\n' \
    "$t" "$took" "$seconds" "${runs:-null}" "${execs:-0}" "${rate:-0}" "$files" "$([ $rc -eq 0 ] && echo false || echo true)"
  if [ $rc -ne 0 ]; then
    echo "fuzz.sh: fuzz_$t failed (exit $rc); its input is in $crashes/, the log in $log:" >&2
    grep -E "ERROR|SUMMARY|property failed|Test unit written" "$log" | head -n 5 >&2 || true
  fi
  rmdir "$crashes" 2>/dev/null || true
}

for t in "${targets[@]}"; do
  [ -x "$build_dir/bin/fuzz_$t" ] || { echo "fuzz.sh: no target '$t' (fuzz/targets/$t.cc)" >&2; exit 2; }
done
summary="$build_dir/fuzz-summary.json"
: >"$summary"
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  fuzz_one "$t" >>"$summary" &
done
wait
cat "$summary"
if grep -q '"crashed": true' "$summary"; then
  echo "fuzz.sh: $(grep -c '"crashed": true' "$summary") of ${#targets[@]} targets failed" >&2
  exit 1
fi
