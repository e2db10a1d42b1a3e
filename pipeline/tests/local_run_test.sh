#!/bin/bash
# `quarry pipeline` end to end on this machine, with real mpirun ranks: every
# stage's output; a second run skips and resumes to the same rule pack; a run
# killed during generation resumes to the same candidates as an uninterrupted
# one; bad settings and a mismatched run directory are refused in one line.
#   local_run_test.sh QUARRY DATA WORKDIR
set -euo pipefail
Q=$1
DATA=$2
W=$3
rm -rf "$W"
mkdir -p "$W"
export OMP_NUM_THREADS=1 # measured costs, not waiting, on a busy machine
# shellcheck source=../../tests/support/generation_batches.sh
. "$(dirname "$0")/../../tests/support/generation_batches.sh"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
need() { # need FILE...: each exists and is not empty
  for f in "$@"; do
    [ -s "$f" ] || fail "missing or empty: $f"
  done
}

echo "== a whole run"
R=$W/run
"$Q" pipeline --config "$DATA/small.pipeline" --out "$R" --threads 2 \
  >"$W/run.log" 2>&1 || { tail -n 30 "$W/run.log" >&2; fail "the run failed"; }
need "$R/pipeline.conf" "$R/pipeline.env" "$R/generate/manifest.json" \
  "$R/candidates.pb" "$R/verify/rules.pb" "$R/verify/report.json" \
  "$R/verify/shards/shard-0-of-2.json" "$R/verify/shards/shard-1-of-2.json" \
  "$R/validate/shard-0-of-2.json" "$R/validate/shard-1-of-2.json" \
  "$R/validate/merged.json" "$R/optimize/resnet50.onnx" \
  "$R/optimize/report.json" "$R/summary.json" "$R/report.html"
grep -q "^mpirun -np 2 " "$W/run.log" || fail "generation not under mpirun"
grep -q '"ranks": 2' "$R/generate/manifest.json" || fail "not 2 ranks"
grep -q '"latency_ms_after"' "$R/optimize/report.json" || fail "no latency"

echo "== run again: finished steps are skipped, the pack is the same"
cp "$R/verify/rules.pb" "$W/rules.before"
"$Q" pipeline --config "$DATA/small.pipeline" --out "$R" >"$W/again.log" 2>&1 ||
  fail "the second run failed"
grep -q "== generate: skipped" "$W/again.log" || fail "generation redone"
grep -q "== optimize: skipped" "$W/again.log" || fail "optimization redone"
cmp "$W/rules.before" "$R/verify/rules.pb" || fail "the pack changed"

echo "== killed during generation, run again: resumes to the same candidates"
K=$W/killed
setsid "$Q" pipeline --config "$DATA/kill.pipeline" --out "$K" \
  >"$W/killed.log" 2>&1 &
leader=$!
batches_written "$K" 4
out=$("$Q" pipeline --config "$DATA/kill.pipeline" --out "$K" 2>&1) &&
  fail "a second run worked in the same directory"
echo "$out" | grep -q "another run is working in this directory" || fail "$out"
pkill -KILL -s "$leader" # the session: the pipeline, mpirun, every rank
wait "$leader" 2>/dev/null && fail "the killed run succeeded"
[ -e "$K/generate/manifest.json" ] && fail "generation finished before the kill"
"$Q" pipeline --config "$DATA/kill.pipeline" --out "$K" >"$W/resumed.log" 2>&1 ||
  fail "the resumed run failed"
grep -q "resumed: [1-9][0-9]* batches kept" "$W/resumed.log" ||
  fail "the run started over"
"$Q" pipeline --config "$DATA/kill.pipeline" --out "$W/whole" >/dev/null 2>&1 ||
  fail "the uninterrupted run failed"
cmp "$W/whole/candidates.pb" "$K/candidates.pb" || fail "candidates differ"

echo "== bad settings, other settings in a run directory, unknown steps"
one_line() { # one_line EXPECTED-REGEX COMMAND...: fails with one such line
  local out
  out=$("${@:2}" 2>&1) && fail "succeeded: ${*:2}"
  [ "$(echo "$out" | grep -c .)" = 1 ] || fail "not one line: $out"
  echo "$out" | grep -q "$1" || fail "unexpected: $out"
}
one_line "bad.pipeline:3:1: unknown key 'rnaks'" \
  "$Q" pipeline --config "$DATA/bad.pipeline" --out "$W/bad"
[ -e "$W/bad" ] && fail "a run directory was made for bad settings"
one_line "pipeline.conf: the run was started with other settings" \
  "$Q" pipeline --config "$DATA/kill.pipeline" --out "$R"
one_line "unknown step 'deploy'" "$Q" pipeline step deploy --run "$R"
one_line "pipeline.conf: not found" "$Q" pipeline step verify --run "$W"
echo "PASS"
