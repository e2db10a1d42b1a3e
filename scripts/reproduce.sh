#!/usr/bin/env bash
# Runs quarry's counterpart of experiments of TASO's artifact (SOSP'19,
# E1..E6) on this machine at small settings, and prints one table line per
# experiment: what it measures, TASO's figure, and the figure measured here.
# docs/REPRODUCING.md says what each experiment is and which command runs it.
#
#   scripts/reproduce.sh [--out DIR] EXPERIMENT...   (E1 .. E6, or all)
#
#   E1  generate and prune candidate substitutions    (quarry generate)
#   E2  end-to-end inference of the benchmark networks (quarry optimize,
#       against ONNX Runtime where build/bin/ort_vs_quarry is built)
#   E3  a 3x3 convolution run as 1, 2, 4 .. 32 groups (runtime_bench)
#   E4  substitution, implementation choice, sequential and joint search
#       (joint_search)
#   E5  prove substitutions from the axioms            (quarry verify)
#   E6  validate the axioms: redundancy, symbolic sweep (quarry validate-axioms)
#
# Results go to DIR/E1 .. DIR/E6 (default ${TMPDIR:-/tmp}/quarry-reproduce):
# each command's JSON and log; DIR/summary.md collects the table lines.
# The binaries are taken from build/bin (QUARRY_BUILD_DIR); nothing is built.
# What needs a GPU runs when `quarry run --backend cuda` finds one, and
# otherwise says "pending: needs a GPU".
#
# Sizes (environment; each default keeps an experiment within a few minutes
# on 2 cores):
#   QUARRY_REPRODUCE_THREADS   threads of every command (1)
#   QUARRY_REPRODUCE_MAX_OPS   E1, E5: largest generated graph (3; TASO: 4)
#   QUARRY_REPRODUCE_NETWORKS  E2 (resnet50 resnext50 nasnet_a nasrnn bert)
#   QUARRY_REPRODUCE_BUDGET    E2, E4: graphs a search expands (the
#                              commands' default, 1000)
#   QUARRY_REPRODUCE_RUNS      E2, E3, E4: timed runs or rounds (10)
#   QUARRY_REPRODUCE_JOINT_NETWORKS  E4 (bert resnet50; TASO: bert)
#   QUARRY_REPRODUCE_SHARDS    E5: prove 1 of this many parts of the
#                              generated candidates (8; 1 proves them all)
#   QUARRY_REPRODUCE_SIZES     E6: dimension sizes of the sweep (1,2,3;
#                              TASO: 1,2,3,4)
#   QUARRY_TASO_RULES          E5: TASO's graph_subst.pb (default
#                              ../shared/data/taso_graph_subst.pb beside the
#                              repository; skipped when absent)
#   QUARRY_COST_CACHE          operator costs (default ~/.cache/quarry/op_costs.tsv)
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
usage_error() {
  echo "reproduce.sh: $* (scripts/reproduce.sh --help)" >&2
  exit 2
}

out=${TMPDIR:-/tmp}/quarry-reproduce
experiments=()
while (($#)); do
  case "$1" in
  -h | --help) usage; exit 0 ;;
  --out) [ $# -ge 2 ] || usage_error "--out needs a directory"; out=$2; shift 2 ;;
  --out=*) out=${1#--out=}; shift ;;
  all) experiments+=(E1 E2 E3 E4 E5 E6); shift ;;
  [Ee][1-6]) experiments+=("E${1#?}"); shift ;;
  -*) usage_error "unknown option '$1'" ;;
  *) usage_error "unknown experiment '$1': TASO's artifact has E1 .. E6" ;;
  esac
done
[ ${#experiments[@]} -gt 0 ] || usage_error "name an experiment, E1 .. E6 or all"
[ -n "$out" ] || usage_error "--out needs a directory"
caller=$PWD
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }
out=$(absolute "$out")

cd "$(dirname "$0")/.."
build_dir=${QUARRY_BUILD_DIR:-build}
bin=$PWD/$build_dir/bin
quarry=$bin/quarry
[ -x "$quarry" ] || {
  echo "reproduce.sh: $build_dir/bin/quarry is missing: build it first (scripts/bootstrap.sh)" >&2
  exit 1
}
root=$PWD

threads=${QUARRY_REPRODUCE_THREADS:-1}
max_ops=${QUARRY_REPRODUCE_MAX_OPS:-3}
networks=${QUARRY_REPRODUCE_NETWORKS:-resnet50 resnext50 nasnet_a nasrnn bert}
joint_networks=${QUARRY_REPRODUCE_JOINT_NETWORKS:-bert resnet50}
budget=${QUARRY_REPRODUCE_BUDGET:-}
runs=${QUARRY_REPRODUCE_RUNS:-10}
shards=${QUARRY_REPRODUCE_SHARDS:-8}
sizes=${QUARRY_REPRODUCE_SIZES:-1,2,3}
taso_rules=../shared/data/taso_graph_subst.pb
[ -n "${QUARRY_TASO_RULES:-}" ] && taso_rules=$(absolute "$QUARRY_TASO_RULES")
cost_cache=$HOME/.cache/quarry/op_costs.tsv
if [ -n "${QUARRY_COST_CACHE:-}" ]; then
  cost_cache=$(absolute "$QUARRY_COST_CACHE")
  export QUARRY_COST_CACHE=$cost_cache
fi
rules=rules/quarry-k3.min.pb
budget_flag=()
[ -n "$budget" ] && budget_flag=(--budget "$budget")

python=$(command -v python3 || true)
gpu=0
"$quarry" run nasrnn --backend cuda --runs 1 --warmup 0 >/dev/null 2>&1 && gpu=1
ort=0
[ -x "$bin/ort_vs_quarry" ] && "$bin/ort_vs_quarry" --help >/dev/null 2>&1 && ort=1

mkdir -p "$out"
summary=$out/summary.md

# step E LOG COMMAND...: runs COMMAND, its output to LOG; on failure says
# which command failed and where its output is, and stops.
step() {
  local e=$1 log=$2
  shift 2
  echo "$e: ${*#"$root/"}" >&2
  "$@" >"$log" 2>&1 || {
    echo "reproduce.sh: $e: '$*' failed (exit $?): see $log" >&2
    exit 1
  }
}
# step_json E JSON LOG COMMAND...: the same, with stdout to JSON.
step_json() {
  local e=$1 json=$2 log=$3
  shift 3
  echo "$e: ${*#"$root/"}" >&2
  "$@" >"$json" 2>"$log" || {
    echo "reproduce.sh: $e: '$*' failed (exit $?): see $log" >&2
    exit 1
  }
}
# figure FILE... : runs the Python summary read from stdin on the files, or
# names them where python3 is absent.
figure() {
  if [ -n "$python" ]; then
    "$python" - "$@"
  else
    cat >/dev/null
    echo "figures in ${*#"$out/"} (python3 summarizes them)"
  fi
}
row() { # row E WHAT PAPER MEASURED SECONDS
  local line="| $1 | $2 | $3 | $4 ($5 s) |"
  echo "$line"
  echo "$line" >>"$summary"
}

cpu=$(awk -F': ' '/^model name/ { n = $2 } /^cpu family/ { f = $2 }
  /^model[ \t]*:/ { m = $2 } END { printf "%s family %s model %s", n, f, m }' \
  /proc/cpuinfo 2>/dev/null || echo unknown)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit, $cpu, $(nproc) cores," \
    "$threads thread(s); GPU: $([ $gpu = 1 ] && echo yes || echo none);" \
    "ONNX Runtime: $([ $ort = 1 ] && echo yes || echo none)"
  echo
  echo "| experiment | what | TASO (paper) | quarry here |"
  echo "|---|---|---|---|"
} | tee -a "$summary"

# The candidates of E1, which E5 proves a part of.
candidates=$out/candidates-k$max_ops
generate() {
  rm -rf "$candidates"
  step "$1" "$out/$1/generate.log" "$quarry" generate --config configs/taso.gen \
    --max-ops "$max_ops" --out "$candidates" --quiet
}

run_E1() {
  local d=$out/E1
  mkdir -p "$d"
  generate E1
  cp "$candidates/manifest.json" "$d/generate.json"
  figure "$d/generate.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); t = d["totals"]
c, r, p = t["candidates"], t["after_renaming"], t["after_subgraph_pruning"]
print(f"up to {d['max_ops']} operators, {d['ranks']} rank: {t['graphs']:,} graphs, "
      f"{c:,} candidates, {r:,} after renaming, {p:,} after subgraph pruning "
      f"({c / p:.0f}x fewer) in {d['seconds']:.1f} s")
EOF
}

run_E2() {
  local d=$out/E2 net files=()
  mkdir -p "$d"
  for net in $networks; do
    step E2 "$d/$net.export.log" "$quarry" export "$net" --out "$d/$net.onnx"
    step E2 "$d/$net.cpu.log" "$quarry" optimize "$d/$net.onnx" --rules "$rules" \
      --backend cpu --threads "$threads" "${budget_flag[@]}" --no-attribution \
      --out "$d/$net.opt.qg" --json "$d/$net.cpu.json"
    files+=("$d/$net.cpu.json")
    if [ $ort = 1 ]; then
      step_json E2 "$d/$net.ort_vs_quarry.json" "$d/$net.ort_vs_quarry.log" \
        "$bin/ort_vs_quarry" "$d/$net.onnx:$d/$net.opt.qg" --threads "$threads" \
        --runs "$runs"
      files+=("$d/$net.ort_vs_quarry.json")
    fi
    if [ $gpu = 1 ]; then
      step E2 "$d/$net.cuda.log" "$quarry" optimize "$d/$net.onnx" \
        --rules "$rules" --backend cuda "${budget_flag[@]}" --no-attribution \
        --json "$d/$net.cuda.json"
      files+=("$d/$net.cuda.json")
    fi
  done
  figure "${files[@]}" <<'EOF'
import json, math, os, sys
by = {}
for f in sys.argv[1:]:
    name, kind = os.path.basename(f)[:-5].split(".", 1)
    by.setdefault(kind, []).append((name, json.load(open(f))))
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
parts = []
for backend in ("cpu", "cuda"):
    if backend not in by:
        continue
    s = [(n, r["selection"]["measured_speedup"]) for n, r in by[backend]]
    parts.append(f"{backend} optimized over original: geomean {gm([x for _, x in s]):.3f} ("
                 + ", ".join(f"{n} {x:.3f}" for n, x in s) + ")")
if "cuda" not in by:
    parts.append("cuda: pending: needs a GPU")
if "ort_vs_quarry" in by:
    s = [(n, r["results"][0]["quarry_over_onnxruntime"]) for n, r in by["ort_vs_quarry"]]
    parts.append(f"cpu optimized in quarry over the original in ONNX Runtime, time: "
                 f"geomean {gm([x for _, x in s]):.3f} ("
                 + ", ".join(f"{n} {x:.3f}" for n, x in s) + ")")
else:
    parts.append("against ONNX Runtime: pending: needs ONNX Runtime")
print("; ".join(parts))
EOF
}

run_E3() {
  local d=$out/E3
  mkdir -p "$d"
  step_json E3 "$d/runtime_bench.json" "$d/runtime_bench.log" \
    env OMP_NUM_THREADS="$threads" "$bin/runtime_bench" --runs "$runs" \
    --warmup 2 --no-reference
  figure "$d/runtime_bench.json" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["group_sweep"]
parts = []
for b in ("cpu", "cuda"):
    k = b + "_ms"
    if k not in rows[0]:
        parts.append(f"{b}: pending: needs a GPU")
        continue
    best = min(rows, key=lambda r: r[k])
    parts.append(f"{b} ms by groups " + ", ".join(f"{r['groups']}: {r[k]:.3g}" for r in rows)
                 + f"; fastest at {best['groups']} groups; 32 groups "
                 f"{rows[0][k] / rows[-1][k]:.1f}x faster than 1 for 32x less arithmetic")
print("; ".join(parts))
EOF
}

run_E4() {
  local d=$out/E4 nets models
  mkdir -p "$d"
  read -ra nets <<<"${joint_networks//,/ }"
  models=$(IFS=,; echo "${nets[*]}")
  step_json E4 "$d/joint_search.json" "$d/joint_search.log" \
    "$bin/joint_search" --models "$models" --rules "$rules" \
    --threads "$threads" --rounds "$runs" --placements 1 "${budget_flag[@]}" \
    --cost-cache "$cost_cache"
  figure "$d/joint_search.json" <<'EOF'
import json, sys
parts = []
for r in json.load(open(sys.argv[1]))["results"]:
    parts.append(f"{r['model']} ({r['original_ms']:.3g} ms), speed-ups: "
                 + ", ".join(f"{w} {r[w]['speedup']:.3f}" for w in
                             ("substitution", "choice", "sequential", "joint")))
print("cpu: " + "; ".join(parts) + "; cuda: no counterpart (joint_search runs on the cpu)")
EOF
}

run_E5() {
  local d=$out/E5 files=()
  mkdir -p "$d"
  if [ -f "$taso_rules" ]; then
    step E5 "$d/taso.log" "$quarry" verify --axioms axioms/taso.axioms \
      --rules "$taso_rules" --out "$d/taso.verified.pb" --json "$d/taso.json" \
      --threads "$threads"
    files+=("$d/taso.json")
  fi
  [ -f "$candidates/manifest.json" ] || generate E5
  rm -rf "$d/shards"
  step E5 "$d/candidates.log" "$quarry" verify --axioms axioms/taso.axioms \
    --candidates "$candidates" --shard "0/$shards" --out "$d/shards" \
    --threads "$threads"
  cp "$d/shards/shard-0-of-$shards.json" "$d/candidates.json"
  files+=("$d/candidates.json")
  figure "${files[@]}" <<'EOF'
import json, os, sys
parts = []
for f in sys.argv[1:]:
    d = json.load(open(f)); t = d["totals"]
    what = ("TASO's graph_subst.pb" if os.path.basename(f) == "taso.json" else
            f"quarry's candidates, part {d['shard']}")
    parts.append(f"{what}: {t['rules']} rules, {t['proved']} proved, "
                 f"{t['proved_with_precondition']} with a precondition, "
                 f"{t['unproved']} unproved, {t['refuted']} refuted in {t['wall_seconds']:.1f} s")
if len(parts) == 1:
    parts.insert(0, "TASO's graph_subst.pb: absent (QUARRY_TASO_RULES)")
print("; ".join(parts))
EOF
}

run_E6() {
  local d=$out/E6
  mkdir -p "$d"
  rm -rf "$d/validate"
  step E6 "$d/validate.log" "$quarry" validate-axioms --axioms axioms/taso.axioms \
    --checks redundancy,sweep --sizes "$sizes" --threads "$threads" \
    --out "$d/validate"
  cp "$d/validate/shard-0-of-1.json" "$d/validate.json"
  figure "$d/validate.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
red = d["redundancy"]; s = d["sweep"]
count = lambda a: sum(1 for r in red if r["answer"] == a)
secs = sum(r["seconds"] for r in red)
print(f"{len(red)} axioms: {count('redundant')} redundant, {count('independent')} "
      f"independent, {count('unknown')} unknown ({secs:.0f} s); sweep at sizes "
      f"{','.join(map(str, d['sizes']))}: {s['cases']:,} cases, {s['checked']:,} checked, "
      f"{s['failed']} failed ({s['seconds']:.0f} s)")
EOF
}

declare -A what=(
  [E1]="generate and prune candidate substitutions"
  [E2]="end-to-end inference, optimized graph against the original and another engine"
  [E3]="a 3x3 convolution, 512 channels at 28x28, as 1 to 32 groups"
  [E4]="substitution, layout (quarry: implementation) choice, sequential, joint"
  [E5]="prove substitutions from the operator axioms"
  [E6]="validate the axioms: redundancy, symbolic sweep on small shapes"
)
declare -A paper=(
  [E1]="743 substitutions of up to 4 operators in about 5 min; pruning leaves 39x fewer (Sec. 7.1, Table 3)"
  [E2]="V100: on par with the best framework on ResNet-50, 1.3-2.8x faster on ResNeXt-50, NasNet-A, NasRNN, BERT (Fig. 7)"
  [E3]="V100: neither 1 nor 32 groups is fastest; ResNeXt-50 runs as 4 grouped convolutions of 8 (Fig. 9)"
  [E4]="BERT, V100: joint 1.2-1.3x faster than the other three (Fig. 12)"
  [E5]="743 substitutions proved from 43 properties in under 10 min (Sec. 7.6)"
  [E6]="redundancy under 10 min (10 s a query); sweep to 4x4x4x4, about 1M checks, about 1 h on 128 cores (Sec. 7.6)"
)

for e in "${experiments[@]}"; do
  start=$SECONDS
  measured=$("run_$e")
  row "$e" "${what[$e]}" "${paper[$e]}" "$measured" "$((SECONDS - start))"
done
echo "results: $out" >&2
