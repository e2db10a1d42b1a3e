#!/bin/bash
# The SLURM path end to end, on a real single-node cluster started here:
# slurm/pipeline.sh submits the chained jobs of a small run; every stage's
# output is checked; the local `quarry pipeline` gives the same rule packs;
# a resubmitted finished run changes nothing; a generation job killed midway
# and resubmitted resumes and gives the same candidates; bad settings are
# refused before anything is queued. Skipped (exit 77) only where the
# daemons cannot start.
#   pipeline_test.sh QUARRY WORKDIR
set -euo pipefail
Q=$1
W=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
data=$repo/pipeline/tests/data
rm -rf "$W"
mkdir -p "$W"
W=$(cd "$W" && pwd)

fail() { # with the daemons' last errors, which name what SLURM refused
  echo "FAIL: $*" >&2
  if [ -n "${cdir:-}" ]; then
    grep -h -i error "$cdir"/log/slurm*.log 2>/dev/null | tail -n 15 >&2 || true
  fi
  exit 1
}

# shellcheck source=cluster.sh
. "$here/cluster.sh"
# shellcheck source=../../tests/support/generation_batches.sh
. "$repo/tests/support/generation_batches.sh"
# Short: munge's socket path must fit a sockaddr_un.
cdir=$(mktemp -d /tmp/quarry-slurm.XXXXXX)
trap 'cluster_stop; rm -rf "$cdir"' EXIT
trap 'exit 1' TERM INT
if ! cluster_start "$cdir" 2>"$W/cluster.err"; then
  echo "SKIP: no local SLURM cluster could be started: $(cat "$W/cluster.err")"
  exit 77
fi
echo "== a single-node cluster is up ($SLURM_CONF)"

export QUARRY=$Q QUARRY_CPUS_PER_TASK=1
export OMP_NUM_THREADS=1 # measured costs, not waiting, on a busy machine

submit() { # submit CONFIG RUN: prints "stage id" lines
  "$repo/slurm/pipeline.sh" --config "$1" --out "$2"
}
wait_jobs() { # wait_jobs JOBLIST: until none of them is queued or running
  local ids
  ids=$(awk '{ print $2 }' "$1" | paste -sd,)
  for _ in $(seq 1 1200); do
    [ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  squeue >&2
  fail "jobs $ids still queued after 10 minutes"
}
state() { # state JOBID: COMPLETED, FAILED, CANCELLED, ...
  scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}
job() { # job JOBLIST STAGE: the stage's job id
  awk -v s="$2" '$1 == s { print $2 }' "$1"
}
need() { # need FILE...: each exists and is not empty
  for f in "$@"; do
    [ -s "$f" ] || fail "missing or empty: $f"
  done
}

echo "== slurm/pipeline.sh submits the chained jobs"
R=$W/slurm-run
submit "$data/small.pipeline" "$R" >"$W/jobs1"
cat "$W/jobs1"
for s in generate verify verify-merge validate validate-merge optimize report; do
  [ -n "$(job "$W/jobs1" "$s")" ] || fail "no $s job in: $(cat "$W/jobs1")"
done
wait_jobs "$W/jobs1"
while read -r stage id; do
  st=$(state "$id")
  [ "$st" = COMPLETED ] || {
    tail -n 20 "$R"/logs/* >&2 || true
    fail "$stage job $id ended $st"
  }
done <"$W/jobs1"

echo "== the jobs ran in dependency order"
at() { # at JOBLIST STAGE StartTime|EndTime
  scontrol show job "$(job "$1" "$2")" | grep -o "$3=[0-9T:-]*" | head -n 1 |
    cut -d= -f2
}
before() { # before STAGE_A STAGE_B: A ended before B started
  [[ ! "$(at "$W/jobs1" "$2" StartTime)" < "$(at "$W/jobs1" "$1" EndTime)" ]] ||
    fail "$2 started before $1 ended"
}
before generate verify
before verify verify-merge
before verify-merge optimize
before validate-merge optimize
before optimize report

echo "== every stage wrote its output"
need "$R/pipeline.conf" "$R/generate/manifest.json" "$R/candidates.pb" \
  "$R/verify/rules.pb" "$R/verify/report.json" \
  "$R/verify/shards/shard-0-of-2.json" "$R/verify/shards/shard-1-of-2.json" \
  "$R/validate/shard-0-of-2.json" "$R/validate/shard-1-of-2.json" \
  "$R/validate/merged.json" "$R/optimize/resnet50.onnx" \
  "$R/optimize/report.json" "$R/summary.json" "$R/report.html"
grep -q '"ranks": 2' "$R/generate/manifest.json" || fail "not 2 ranks"
grep -q '"complete": true' "$R/verify/report.json" || fail "verify incomplete"
grep -q '"problems": false' "$R/validate/merged.json" || fail "validation"
grep -q '"latency_ms_after"' "$R/optimize/report.json" || fail "no latency"
# verify's TBB threads are the job's CPUs.
grep -q -- "--threads 1" "$R"/logs/verify-*.out || fail "verify threads"
[ "$("$Q" rules show "$R/verify/rules.pb" | grep -c '^rule ')" -gt 10 ] ||
  fail "few proved rules"
grep -q '<svg' "$R/report.html" || fail "no plots in the report"

echo "== the local quarry pipeline gives the same rule packs"
L=$W/local-run
"$Q" pipeline --config "$data/small.pipeline" --out "$L" >"$W/local.log" 2>&1 ||
  { tail -n 20 "$W/local.log" >&2; fail "local pipeline failed"; }
cmp "$L/candidates.pb" "$R/candidates.pb" || fail "candidates differ"
cmp "$L/verify/rules.pb" "$R/verify/rules.pb" || fail "proved rules differ"

echo "== a finished run resubmitted skips and resumes to the same pack"
cp "$R/verify/rules.pb" "$W/rules.before"
submit "$data/small.pipeline" "$R" >"$W/jobs2"
wait_jobs "$W/jobs2"
while read -r stage id; do
  [ "$(state "$id")" = COMPLETED ] || fail "resubmitted $stage ended $(state "$id")"
done <"$W/jobs2"
grep -q "generate: skipped" "$R/logs/generate-$(job "$W/jobs2" generate).out" ||
  fail "generation was redone"
cmp "$W/rules.before" "$R/verify/rules.pb" || fail "the pack changed"

echo "== a generation job killed midway resumes when resubmitted"
K=$W/kill-run
submit "$data/kill.pipeline" "$K" >"$W/jobs3"
gen=$(job "$W/jobs3" generate)
out=$(submit "$data/kill.pipeline" "$K" 2>&1) && fail "submitted twice at once"
echo "$out" | grep -q "still queued or running; wait for them or scancel" ||
  fail "$out"
batches_written "$K" 4
scancel --signal=KILL --full "$gen"
wait_jobs "$W/jobs3"
[ "$(state "$gen")" != COMPLETED ] || fail "generation finished before the kill"
[ -e "$K/generate/manifest.json" ] && fail "a killed generation wrote a manifest"
[ -e "$K/candidates.pb" ] && fail "a killed generation exported candidates"
submit "$data/kill.pipeline" "$K" >"$W/jobs4"
wait_jobs "$W/jobs4"
gen2=$(job "$W/jobs4" generate)
[ "$(state "$gen2")" = COMPLETED ] || fail "resubmitted generation: $(state "$gen2")"
grep -q "resumed: [1-9][0-9]* batches kept" "$K/logs/generate-$gen2.out" ||
  fail "the resubmitted job started over: $(cat "$K/logs/generate-$gen2.out")"
"$Q" pipeline --config "$data/kill.pipeline" --out "$W/kill-local" \
  >"$W/kill-local.log" 2>&1 || fail "local generation failed"
cmp "$W/kill-local/candidates.pb" "$K/candidates.pb" ||
  fail "the resumed run's candidates differ"

echo "== bad settings are refused before anything is queued"
before=$(squeue -h | wc -l)
out=$(submit "$data/bad.pipeline" "$W/bad-run" 2>&1) && fail "bad settings ran"
echo "$out" | grep -q "bad.pipeline:3:1: unknown key 'rnaks'" || fail "$out"
[ "$(squeue -h | wc -l)" = "$before" ] || fail "jobs were queued"
[ -e "$W/bad-run" ] && fail "a run directory was made for bad settings"
# A job the partition cannot hold fails its submission (the test cluster
# enforces partition limits, as many sites do): what was queued before it
# is cancelled, not left waiting for a chain that will never come.
out=$(QUARRY_CPUS_PER_TASK=4096 submit "$data/small.pipeline" "$W/big-run" 2>&1) &&
  fail "submitted jobs the node cannot hold"
echo "$out" | grep -q "a submission failed; cancelled jobs" || fail "$out"
for _ in $(seq 1 50); do
  [ "$(squeue -h | wc -l)" = "$before" ] && break
  sleep 0.1
done
[ "$(squeue -h | wc -l)" = "$before" ] || fail "a partial chain was left queued"
out=$(submit "$data/kill.pipeline" "$R" 2>&1) && fail "mixed two runs"
echo "$out" | grep -q "pipeline.conf: the run was started with other settings" ||
  fail "$out"

echo "PASS"
