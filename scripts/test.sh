#!/usr/bin/env bash
# Sets up and builds (scripts/bootstrap.sh), then runs every test with ctest.
# GPU tests report "skipped" on machines without a CUDA device.
#
#   scripts/test.sh [CTEST ARGS...]
#   scripts/test.sh --sanitize address [CTEST ARGS...]   ASan+UBSan (LSan)
#   scripts/test.sh --sanitize thread  [CTEST ARGS...]   TSan
#
# A sanitizer build has its own folder (build-asan, build-tsan), built with
# clang; its run leaves out the tests labelled `slow`, and stops a test at
# its first report. What is suppressed, and why, is in sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."

# Logs are often read from their end: repeat there the last lines of each
# failed test's output (ctest printed them in full where the test ended).
repeat_failures() { # repeat_failures BUILD_DIR
  local dir=$1/Testing/Temporary name
  [ -s "$dir/LastTestsFailed.log" ] || return 0
  echo "== the end of each failed test's output"
  cut -d: -f2- "$dir/LastTestsFailed.log" | while read -r name; do
    echo "--- $name"
    awk -v t="$name" '$2 == "Test:" && $3 == t { on = 1; next }
      on && /^<end of output>/ { exit }
      on' "$dir/LastTest.log" | tail -n 40
  done
}

sanitize=""
args=()
while (($#)); do
  case "$1" in
  --sanitize) sanitize=${2:?--sanitize needs address or thread}; shift 2 ;;
  --sanitize=*) sanitize=${1#--sanitize=}; shift ;;
  *) args+=("$1"); shift ;;
  esac
done

if [ -z "$sanitize" ]; then
  scripts/bootstrap.sh
  build_dir=${QUARRY_BUILD_DIR:-build}
  ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" "${args[@]}" ||
    { repeat_failures "$build_dir"; exit 1; }
  exit 0
fi

case "$sanitize" in
address) build_dir=${QUARRY_BUILD_DIR:-build-asan} ;;
thread) build_dir=${QUARRY_BUILD_DIR:-build-tsan} ;;
*) echo "test.sh: --sanitize takes address or thread, not '$sanitize'" >&2; exit 2 ;;
esac
QUARRY_BUILD_DIR=$build_dir QUARRY_SANITIZE=$sanitize scripts/bootstrap.sh

supp=$PWD/sanitizers
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_init_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp:print_suppressions=0"
ctest=(ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
  --timeout 1500)
status=0
"${ctest[@]}" -LE 'slow|mpi' "${args[@]}" ||
  { repeat_failures "$build_dir"; status=1; }
# Tests with mpirun ranks, without LeakSanitizer: Open MPI's progress
# threads keep allocations until exit, and its libraries have no frame
# pointers for the fast unwinder to name them by (the exact unwinder makes
# these tests ten times slower). The same code runs leak-checked in one
# process in the tests above (cli.generate.*, dedupe, pipeline).
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  "${ctest[@]}" -L mpi -LE slow "${args[@]}" ||
  { repeat_failures "$build_dir"; status=1; }
exit $status
