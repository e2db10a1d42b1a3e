#!/usr/bin/env bash
# Sets up and builds (scripts/bootstrap.sh), then runs the pipeline on a
# small default: read a graph, print it with its shapes, evaluate it in
# float and exactly in GF(2^61-1), and check it against a rewritten graph;
# run a network on the cpu backend; read TASO's rule pack (when present
# beside the project) and convert it; then the whole pipeline on a small
# default (quarry pipeline --config configs/demo.pipeline): generate
# candidates on 2 MPI ranks, prove them, validate the axioms on small shapes,
# optimize a network with the proved rules, and print the run's summary;
# last, a network where the rules pay: BERT optimized with the shipped
# pack of 3-operator rules, measured before and after.
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

step "A benchmark network on the oneDNN backend, checked against the reference"
"$quarry" models show nasrnn
"$quarry" run nasrnn --backend cpu --check

taso=../shared/data/taso_graph_subst.pb
if [ -f "$taso" ]; then
  step "TASO's rule pack, converted to quarry's format"
  "$quarry" rules convert --from-taso "$taso" --out "$out/taso.rules.pb"
  "$quarry" rules show "$out/taso.rules.pb" | head -n 24
  echo "... ($("$quarry" rules show "$out/taso.rules.pb" | grep -c '^rule [^ ]*  \[') rules in $out/taso.rules.pb)"
fi

step "The whole pipeline (configs/demo.pipeline): generate on 2 MPI ranks, prove, validate the axioms, optimize ResNeXt-50"
rm -rf "$out/run"
"$quarry" pipeline --config configs/demo.pipeline --out "$out/run"
echo
echo "The run's files are in $out/run (docs/PIPELINE.md); its page is $out/run/report.html."

step "Where the rules pay: BERT, whose separate query, key and value products become one (rules/quarry-k3.min.pb)"
"$quarry" optimize bert --rules rules/quarry-k3.min.pb --backend cpu \
  --budget 100 --cost-cache "$out/costs.tsv" --out "$out/bert.opt.qg" \
  --json "$out/bert.json" --check
echo
echo "The optimized BERT is $out/bert.opt.qg; the line 'measured ... (N.NNx)' above says how much faster it ran here."
