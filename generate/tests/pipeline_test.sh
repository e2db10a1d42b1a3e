#!/bin/bash
# End-to-end checks of `quarry generate` with real mpirun ranks and real
# HDF5 shards: identical rule packs for 1 to 4 ranks, the exact check
# under forced fingerprint collisions, kill-and-resume, corrupt and missing
# shards, and refusal to mix settings in one directory.
#   pipeline_test.sh QUARRY CONFIG WORKDIR AXIOMS
set -euo pipefail
Q=$1
CFG=$2
W=$3
AXIOMS=$4
rm -rf "$W"
mkdir -p "$W"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
gen() { # gen RANKS DIR [flags...]
  local n=$1 dir=$2
  shift 2
  mpirun -np "$n" "$Q" generate --config "$CFG" --max-ops 3 --seed 5 --quiet \
    --units-per-batch 8 --out "$dir" "$@"
}
pack() { # pack DIR: export DIR/../NAME.pb
  "$Q" candidates export "$1" --out "$1.pb" >/dev/null
}
total() { # total DIR STAGE
  "$Q" candidates stats "$1" | awk -v s="$2" '$1 == s { print $2 }'
}

echo "== 1, 2, 3 and 4 ranks give byte-identical rule packs"
for n in 1 2 3 4; do
  gen "$n" "$W/r$n" >/dev/null
  pack "$W/r$n"
done
cmp "$W/r1.pb" "$W/r2.pb" || fail "1 and 2 ranks differ"
cmp "$W/r1.pb" "$W/r3.pb" || fail "1 and 3 ranks differ"
cmp "$W/r1.pb" "$W/r4.pb" || fail "1 and 4 ranks differ"
ls "$W/r3"/candidates-r0000{0,1,2}-of-00003.h5 >/dev/null
[ -d "$W/r3/batches" ] && fail "batch directory left behind"
rules=$(total "$W/r1" after_subgraph_pruning)
[ "$rules" -gt 10 ] || fail "only $rules candidates"

echo "== small exchange rounds and several passes give the same pack"
gen 2 "$W/passes" --exchange-batch 500 --memory-per-rank 200000 >/dev/null
pack "$W/passes"
cmp "$W/r1.pb" "$W/passes.pb" || fail "rounds and passes change the pack"

echo "== the candidates go straight into the verifier"
"$Q" verify --axioms "$AXIOMS" --candidates "$W/r1" --out "$W/proved.pb" \
  --json "$W/report.json" --timeout 2 --threads 2 >"$W/verify.txt"
proved=$(sed -n 's/^[0-9]* rules: \([0-9]*\) proved.*/\1/p' "$W/verify.txt")
[ "${proved:-0}" -gt 0 ] || fail "nothing proved: $(cat "$W/verify.txt")"

echo "== without mpirun, as one rank"
"$Q" generate --config "$CFG" --max-ops 3 --seed 5 --quiet --out "$W/plain" \
  >/dev/null
pack "$W/plain"
cmp "$W/r1.pb" "$W/plain.pb" || fail "singleton run differs"

echo "== six-bit fingerprints: collisions happen, the exact check rejects them"
gen 2 "$W/tiny" --fingerprint-bits 6 >/dev/null
pack "$W/tiny"
[ "$(total "$W/tiny" collisions)" -gt 100 ] || fail "no collisions forced"
[ "$(total "$W/r1" collisions)" -eq 0 ] || fail "collisions at 64 bits"
# The packs differ only in the recorded fingerprint width.
diff <("$Q" rules show "$W/r1.pb" | grep -v fingerprint_bits) \
  <("$Q" rules show "$W/tiny.pb" | grep -v fingerprint_bits) >/dev/null ||
  fail "collisions changed the candidates"

echo "== a rank killed mid-run; the same command resumes"
if gen 2 "$W/k" --exit-after-batches 2 --exit-rank 1 >/dev/null 2>&1; then
  fail "the killed run reported success"
fi
[ -e "$W/k/manifest.json" ] && fail "a killed run wrote a manifest"
n_done=$(ls "$W/k/batches/r00001-of-00002/" | grep -c '\.rec$')
[ "$n_done" -eq 2 ] || fail "expected 2 finished batches, found $n_done"
gen 2 "$W/k" | grep -q "resumed: [1-9][0-9]* batches kept" ||
  fail "the finished batches were not kept"
pack "$W/k"
cmp "$W/r1.pb" "$W/k.pb" || fail "the resumed run differs"
gen 2 "$W/k" | grep -q "already complete" || fail "finished run redone"

echo "== other settings in the same directory are refused"
out=$("$Q" generate --config "$CFG" --max-ops 2 --out "$W/k" 2>&1) &&
  fail "reused a directory"
[ "$(echo "$out" | grep -c .)" -eq 1 ] || fail "not one line: $out"
echo "$out" | grep -q "manifest.json: holds a finished run" || fail "$out"
# Under mpirun every rank stops and the message is printed once.
out=$(mpirun -np 2 "$Q" generate --config "$CFG" --max-ops 2 --out "$W/k" \
  2>&1) && fail "reused a directory"
[ "$(echo "$out" | grep -c '^quarry: ')" -eq 1 ] || fail "$out"

echo "== corrupt and missing shards are named"
cp -r "$W/r2" "$W/bad"
shard="$W/bad/candidates-r00001-of-00002.h5"
printf 'garbage' | dd of="$shard" bs=1 seek=600 conv=notrunc status=none
out=$("$Q" candidates export "$W/bad" --out "$W/bad.pb" 2>&1) &&
  fail "exported a corrupt shard"
echo "$out" | grep -q "candidates-r00001-of-00002.h5: checksum mismatch" ||
  fail "$out"
[ -e "$W/bad.pb" ] && fail "partial output written"
rm "$shard"
out=$("$Q" candidates stats "$W/bad" 2>&1) && fail "missing shard ignored"
echo "$out" | grep -q "candidates-r00001-of-00002.h5: missing shard" ||
  fail "$out"
echo "PASS"
