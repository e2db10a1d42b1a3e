#!/bin/bash
# An interrupted shard resumes: start a sweep, kill it (SIGKILL) once its
# result file records finished chunks, rerun it, and compare the totals with
# an uninterrupted run. Usage: resume_after_kill.sh QUARRY AXIOMS WORKDIR
# Each chunk is saved as it finishes (--checkpoint-seconds 0), so the run is
# caught between its first chunk and its last in any build: a second here,
# a few under a sanitizer.
set -euo pipefail
quarry=$1 axioms=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
args=(validate-axioms --axioms "$axioms" --checks sweep --sizes 1,2
      --threads 1 --chunk-size 8 --checkpoint-seconds 0)

"$quarry" "${args[@]}" --out "$work/whole" > "$work/whole.txt"

"$quarry" "${args[@]}" --out "$work/killed" > /dev/null &
pid=$!
file="$work/killed/shard-0-of-1.json"
for _ in $(seq 1 600); do
  if [[ -f $file ]] && grep -q '"complete": false' "$file" &&
     grep -q '"chunks_done": [1-9]' "$file"; then
    break
  fi
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
grep -q '"complete": false' "$file" || { echo "the run ended before it was killed"; exit 1; }

"$quarry" "${args[@]}" --out "$work/killed" > "$work/resumed.txt"
cat "$work/resumed.txt"
grep -Eq '[0-9]+ resumed\)' "$work/resumed.txt" || { echo "nothing was resumed"; exit 1; }
totals() { grep '^sweep:' "$1" | sed -E 's/ \(.*//'; }
if [[ "$(totals "$work/whole.txt")" != "$(totals "$work/resumed.txt")" ]]; then
  echo "resumed totals differ: $(totals "$work/resumed.txt") vs $(totals "$work/whole.txt")"
  exit 1
fi
rm -rf "$work"
