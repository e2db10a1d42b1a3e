#!/usr/bin/env bash
# Sets up and builds (scripts/bootstrap.sh), then runs the pipeline on a
# small default: read a graph, print it with its shapes, evaluate it in
# float and exactly in GF(2^61-1), and check it against a rewritten graph;
# generate candidates on 2 MPI ranks and prove them, validate the axioms on
# small shapes, optimize a network with the proved rules, run a network on
# the cpu backend; then read TASO's rule pack (when present beside the
# project) and convert it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
build_dir=${QUARRY_BUILD_DIR:-build}
quarry="$build_dir/bin/quarry"
out=${QUARRY_DEMO_OUT:-$build_dir/demo}
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "A graph: two convolutions of one input, concatenated"
"$quarry" graph show --types examples/conv_concat_weights.qg

step "Evaluated on seeded random inputs (float32 reference)"
"$quarry" graph eval examples/conv_concat_weights.qg --seed 7

step "Evaluated exactly in GF(2^61-1)"
"$quarry" graph eval examples/conv_concat_weights.qg --seed 7 --domain field

step "The same computation with the weights concatenated first"
"$quarry" graph show examples/conv_merged.qg
"$quarry" graph compare examples/conv_concat_weights.qg examples/conv_merged.qg --seed 7

step "Generate candidate substitutions of up to 2 operators on 2 MPI ranks"
rm -rf "$out/gen2"
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpirun --oversubscribe -np 2 "$quarry" generate --config configs/taso.gen \
  --max-ops 2 --out "$out/gen2"
"$quarry" candidates export "$out/gen2" --out "$out/gen2.rules.pb"
"$quarry" rules show "$out/gen2.rules.pb" | sed -n '1,40p'

step "Prove the candidates from TASO's operator axioms with Z3"
"$quarry" verify --axioms axioms/taso.axioms --candidates "$out/gen2" \
  --out "$out/gen2.proved.pb" --report "$out/gen2.report.json" --timeout 5

step "Check the axioms: lemmas follow, and every small shape (sizes 1,2) holds"
"$quarry" validate-axioms --axioms axioms/taso.axioms --sizes 1,2 \
  --checks lemmas,sweep --out "$out/validate"

step "Optimize ResNeXt-50 (small input) with quarry's proved rules"
"$quarry" optimize --model resnext50 --size 32 \
  --rules rules/quarry-k3.verified.pb --budget 20 --backend cpu \
  --cost-cache "$out/costs.tsv" --out "$out/resnext50.opt.onnx" \
  --report "$out/resnext50.opt.json" --check

step "A benchmark network on the oneDNN backend, checked against the reference"
"$quarry" models show nasrnn
"$quarry" run --model nasrnn --backend cpu --check

taso=../shared/data/taso_graph_subst.pb
if [ -f "$taso" ]; then
  step "TASO's rule pack, converted to quarry's format"
  "$quarry" rules convert --from-taso "$taso" --out "$out/taso.rules.pb"
  "$quarry" rules show "$out/taso.rules.pb" | head -n 24
  echo "... ($("$quarry" rules show "$out/taso.rules.pb" | grep -c '^rule [^ ]*  \[') rules in $out/taso.rules.pb)"
fi
