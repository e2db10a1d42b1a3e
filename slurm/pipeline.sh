#!/bin/bash
# Submits a whole quarry run as SLURM jobs, chained by dependencies:
#
#   generate (srun, a task per rank) -> verify (array, a task per shard) -> merge -+
#                                                          optimize -> report <---+
#   validate (array, a task per shard) ---------------------------------> merge -+
#
# The optimizer uses the rules only after the axioms they were proved from
# passed validation; the report job runs after all the others, however they
# ended, so a failed run still gets its page.
#
#   slurm/pipeline.sh --config configs/demo.pipeline --out RUN [sbatch options]
#
# Options after --out are given to every sbatch (--partition=..., --account=...,
# --time=...). Environment:
#   QUARRY                  the quarry program (default: build/bin/quarry of
#                           this checkout when built, else quarry on PATH)
#   QUARRY_CPUS_PER_TASK    CPUs of each verify and validation task and of
#                           optimize (default: the scripts' own, 4)
#
# Prints one line per job ("stage job-id") and writes them to RUN/jobs.tsv;
# job logs go to RUN/logs/. Submitting again with the same settings and run
# directory resumes: finished steps are skipped, the others resume. The run
# directory's layout is in docs/PIPELINE.md.
set -euo pipefail
shopt -s inherit_errexit # a failing sbatch inside $(...) stops the script
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  echo "usage: $0 --config FILE --out RUN [sbatch options...]" >&2
  exit 2
}
config="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
  --config) [ $# -ge 2 ] || usage; config=$2; shift 2 ;;
  --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
  -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
  *) break ;;
  esac
done
[ -n "$config" ] && [ -n "$out" ] || usage
extra=("$@")

if [ -z "${QUARRY:-}" ]; then
  if [ -x "$here/../build/bin/quarry" ]; then
    QUARRY=$(cd "$here/../build/bin" && pwd)/quarry
  else
    QUARRY=$(command -v quarry) || {
      echo "pipeline.sh: quarry not found; build it or set QUARRY" >&2
      exit 1
    }
  fi
fi
export QUARRY

# The settings are checked and the run directory laid out before anything
# is queued; pipeline.env says what the submissions need.
env_file=$("$QUARRY" pipeline prepare --config "$config" --out "$out")
# shellcheck disable=SC1090
. "$env_file"
export QUARRY_RUN
logs=$QUARRY_RUN/logs

common=(--parsable --kill-on-invalid-dep=yes "${extra[@]}")
cpus=()
if [ -n "${QUARRY_CPUS_PER_TASK:-}" ]; then
  cpus=(--cpus-per-task="$QUARRY_CPUS_PER_TASK")
fi
has() { [[ ",$QUARRY_STAGES," == *",$1,"* ]]; }
submit() { # submit NAME [sbatch options...] SCRIPT: prints the job id
  local name=$1
  shift
  local id
  id=$(sbatch "${common[@]}" "$@") || return 1
  id=${id%%;*} # --parsable prints "id;cluster" on multi-cluster setups
  printf '%s\t%s\n' "$name" "$id" >>"$QUARRY_RUN/jobs.tsv"
  echo "$id"
}
after() { # after TYPE ID...: a --dependency option, or nothing
  local type=$1 ids=""
  shift
  for id in "$@"; do
    [ -n "$id" ] && ids+=":$id"
  done
  [ -n "$ids" ] && echo "--dependency=$type$ids"
  return 0
}

# Two submissions working in one run directory would write the same files.
if [ -s "$QUARRY_RUN/jobs.tsv" ]; then
  active=""
  while read -r _ id; do
    if squeue -h -j "$id" -o %i 2>/dev/null | grep -q .; then
      active+=" $id"
    fi
  done <"$QUARRY_RUN/jobs.tsv"
  if [ -n "$active" ]; then
    echo "pipeline.sh: $QUARRY_RUN: jobs$active of an earlier submission are" \
      "still queued or running; wait for them or scancel them" >&2
    exit 1
  fi
fi
: >"$QUARRY_RUN/jobs.tsv"
# All or nothing: when a submission fails (a partition without enough CPUs,
# say), the jobs already queued are cancelled rather than left half-chained.
cancel_partial() {
  local rc=$? ids
  if [ "$rc" -ne 0 ]; then
    ids=$(awk '{ print $2 }' "$QUARRY_RUN/jobs.tsv" | paste -sd' ')
    if [ -n "$ids" ]; then
      # shellcheck disable=SC2086
      scancel $ids 2>/dev/null || true
      echo "pipeline.sh: a submission failed; cancelled jobs $ids" >&2
    fi
  fi
}
trap cancel_partial EXIT
gen="" vshards="" ver="" val="" merge="" opt=""
if has generate; then
  gen=$(submit generate --ntasks="$QUARRY_RANKS" \
    --output="$logs/generate-%j.out" "$here/generate.sbatch")
fi
if has verify; then
  vshards=$(submit verify $(after afterok "$gen") \
    --array=0-$((QUARRY_VERIFY_SHARDS - 1)) "${cpus[@]}" \
    --output="$logs/verify-%A_%a.out" "$here/verify.sbatch")
  ver=$(submit verify-merge $(after afterok "$vshards") --cpus-per-task=1 \
    --output="$logs/verify-merge-%j.out" "$here/verify.sbatch")
fi
if has validate; then
  val=$(submit validate --array=0-$((QUARRY_VALIDATE_SHARDS - 1)) "${cpus[@]}" \
    --output="$logs/validate-%A_%a.out" "$here/validate_axioms.sbatch")
  merge=$(submit validate-merge $(after afterok "$val") --cpus-per-task=1 \
    --output="$logs/validate-merge-%j.out" "$here/validate_axioms.sbatch")
fi
if has optimize; then
  opt=$(submit optimize $(after afterok "$ver" "$merge") "${cpus[@]}" \
    --output="$logs/optimize-%j.out" "$here/optimize.sbatch")
fi
submit report $(after afterany "$gen" "$vshards" "$ver" "$val" "$merge" \
  "$opt") \
  --output="$logs/report-%j.out" "$here/report.sbatch" >/dev/null
column -t "$QUARRY_RUN/jobs.tsv" 2>/dev/null || cat "$QUARRY_RUN/jobs.tsv"
