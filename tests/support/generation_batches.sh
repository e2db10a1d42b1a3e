#!/bin/bash
# Shell helpers for tests that interrupt a generation run; source this file.

# batches_written RUN_DIR MIN: waits (up to a minute) until the run's
# generation has finished at least MIN batch files; fails if it never does.
batches_written() {
  local n=0
  for _ in $(seq 1 600); do
    n=$(find "$1/generate/batches" -name '*.rec' 2>/dev/null | wc -l || true)
    [ "$n" -ge "$2" ] && return 0
    sleep 0.1
  done
  echo "FAIL: generation in $1 wrote $n batch files, not $2" >&2
  exit 1
}
