#!/usr/bin/env bash
# The GPU checks: the cuda backend's tests, quarry against PyTorch
# (bench/gpu_vs_torch.py), ONNX's backend test cases on the cuda backend and
# the optimizer benchmark with its cost table, on a machine with a GPU.
#
#   scripts/gpu-check.sh pack   # on the build machine: build the GPU
#                               # programs and bundle them, the shared
#                               # libraries they need beyond CUDA and
#                               # ONNX's node test cases into
#                               # build/gpu-pack.tar.xz (about 30 MB)
#   scripts/gpu-check.sh        # on the GPU machine: run them
#   scripts/gpu-check.sh rehearse  # here, without a GPU: every step on the
#                               # cpu backend, torch's side skipped unless
#                               # QUARRY_REHEARSE_ONNX names a folder of
#                               # NAME.onnx files to time quarry alone on
#                               # (QUARRY_REHEARSE_MODELS of them, default
#                               # nasrnn)
#
# The GPU machine needs only the NVIDIA driver and the CUDA runtime with
# cuDNN 9 and cuBLAS (and PyTorch with torchvision, transformers and timm
# for gpu_vs_torch; without them that step is skipped). Given
# build/gpu-pack.tar.xz alone it unpacks it; given neither the bundle nor
# the programs it configures and builds them (which needs quarry's Debian
# packages and the CUDA toolkit). cuDNN and cuBLAS are looked for in the
# CUDA toolkit's folders and, where they came as Python wheels, under the
# site-packages/nvidia folders of /usr and /opt.
#
# Results go to $QUARRY_GPU_RESULTS (default build/gpu-results), few files:
# gpu-check.log (the device and every step's output), gpu_vs_torch.json,
# conformance-cuda.json, optimize_bench.json and cuda_costs.tsv (the
# operator costs every step measured, for `quarry optimize --costs`). Each
# step writes its file when it finishes, the most valuable first, and each
# has a time limit, so a run cut short still returns what it measured.
#
# QUARRY_BENCH_RUNS (default 20) sets the benchmarks' timed runs,
# QUARRY_GPU_STEPS (default "tests conformance torch costs optimize") picks
# the steps ("runtime", the operator benchmark, is not among the default),
# QUARRY_TORCH_MODELS and QUARRY_TORCH_ARGS narrow and tune gpu_vs_torch
# (QUARRY_TORCH_LIMIT: its seconds, default 360),
# QUARRY_COST_MODELS the built-in networks whose costs are measured, and
# QUARRY_COMMIT the commit the bundle was packed from (where the copy of the
# tree on the GPU machine has no or a stale .git).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${QUARRY_BUILD_DIR:-build}
bundle="$build_dir/gpu-pack.tar.xz"
programs=(runtime_cuda_test field_gpu_test runtime_bench optimize_bench
  quarry)
testdata=/usr/share/libonnx-testdata/data/node

build_programs() {
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build_dir" -j"$(nproc)" --target "${programs[@]}"
}

if [ "${1:-}" = pack ]; then
  build_programs
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/bin" "$stage/gpu-libs" "$stage/onnx-node"
  for p in "${programs[@]}"; do
    cp "$build_dir/bin/$p" "$stage/bin/"
  done
  # Everything the programs load except the C runtime and CUDA itself,
  # which the GPU machine has.
  for p in "${programs[@]}"; do
    ldd "$build_dir/bin/$p" | awk '/=> \// {print $3}'
  done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda|libcudart|libcublas[^/]*|libcudnn[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/gpu-libs/"; done
  if [ -d "$testdata" ]; then
    cp -r "$testdata/." "$stage/onnx-node/"
  fi
  tmp="$bundle.tmp"
  tar -C "$stage" -cf - bin gpu-libs onnx-node | xz -6 -T0 >"$tmp"
  mv "$tmp" "$bundle"
  echo "gpu-check: packed ${programs[*]}, $(ls "$stage/gpu-libs" | wc -l)" \
    "libraries and $(ls "$stage/onnx-node" | wc -l) ONNX test cases into" \
    "$bundle ($(du -h "$bundle" | cut -f1))"
  exit 0
fi

missing=0
for p in "${programs[@]}"; do
  [ -x "$build_dir/bin/$p" ] || missing=1
done
if [ "$missing" = 1 ] && [ -f "$bundle" ]; then
  if command -v xz >/dev/null; then
    xz -dc "$bundle" | tar -C "$build_dir" -xf -
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$bundle" "$build_dir"
  fi
  missing=0
fi
if [ "$missing" = 1 ]; then
  build_programs
fi

lib_path="$build_dir/gpu-libs"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && lib_path="$lib_path:$d"
done
have_lib() { # name: whether the loader or a folder of lib_path has it
  ldconfig -p | grep -q "$1" && return 0
  local d
  local IFS=:
  for d in $lib_path; do
    [ -e "$d/$1" ] && return 0
  done
  return 1
}
for name in libcudnn.so.9 libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do
  if ! have_lib "$name"; then
    found=$(find /usr /opt -path '*site-packages/nvidia/*' -name "$name" \
      2>/dev/null | head -1 || true)
    [ -n "$found" ] && lib_path="$lib_path:$(dirname "$found")"
  fi
done
export LD_LIBRARY_PATH="$lib_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

backend=cuda
if [ "${1:-}" = rehearse ]; then
  backend=cpu
  echo "gpu-check: rehearsal: every step on the cpu backend"
fi

results=${QUARRY_GPU_RESULTS:-$build_dir/gpu-results}
mkdir -p "$results"
log="$results/gpu-check.log"
: >"$log"
{
  echo "gpu-check: $(date -u +%FT%TZ), commit ${QUARRY_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  grep -m1 'model name' /proc/cpuinfo || true
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
      --format=csv
  fi
} 2>&1 | tee -a "$log"

steps=${QUARRY_GPU_STEPS:-tests conformance torch costs optimize}
runs=${QUARRY_BENCH_RUNS:-20}
costs="$results/${backend}_costs.tsv"
status=0
step() { # name seconds command...: runs one step within its time limit,
  local name=$1 limit=$2 # logs it, remembers a failure
  shift 2
  echo "gpu-check: $name (at most $limit s)" | tee -a "$log"
  local start=$SECONDS
  set +e
  timeout --kill-after=10 "$limit" "$@" >"$results/step.out" 2>&1
  local rc=$?
  set -e
  cat "$results/step.out" >>"$log"
  tail -n 25 "$results/step.out"
  rm -f "$results/step.out"
  echo "gpu-check: $name took $((SECONDS - start)) s, exit $rc" | tee -a "$log"
  if [ "$rc" = 77 ] && [ "$backend" = cpu ]; then
    echo "gpu-check: $name skipped (no CUDA device)" | tee -a "$log"
  elif [ "$rc" = 77 ]; then
    echo "gpu-check: $name found no CUDA device" | tee -a "$log" >&2
    status=1
  elif [ "$rc" != 0 ]; then
    echo "gpu-check: $name failed (exit $rc)" | tee -a "$log" >&2
    status=1
  fi
}

for s in $steps; do
  case $s in
  tests)
    step runtime_cuda_test 120 "$build_dir/bin/runtime_cuda_test" --gtest_brief=1
    step field_gpu_test 30 "$build_dir/bin/field_gpu_test" --gtest_brief=1
    ;;
  torch)
    if python3 -c 'import torch, torchvision, onnx' 2>/dev/null; then
      step gpu_vs_torch "${QUARRY_TORCH_LIMIT:-360}" env PYTHONUNBUFFERED=1 python3 bench/gpu_vs_torch.py \
        --quarry "$build_dir/bin/quarry" --backend "$backend" \
        --rules rules/quarry-k3.verified.pb --cost-cache "$costs" \
        ${QUARRY_TORCH_MODELS:+--models "$QUARRY_TORCH_MODELS"} \
        ${QUARRY_TORCH_ARGS:-} --timeout 150 --out "$results/gpu_vs_torch.json"
    elif [ -n "${QUARRY_REHEARSE_ONNX:-}" ]; then
      # NasRNN by default: on the cpu backend more than one stream runs
      # reference code (stream_check.h), where a convolutional network's
      # auto-stream timings take longer than the step's limit.
      step gpu_vs_torch 300 env PYTHONUNBUFFERED=1 python3 bench/gpu_vs_torch.py \
        --quarry "$build_dir/bin/quarry" --backend "$backend" \
        --onnx-dir "$QUARRY_REHEARSE_ONNX" --models "${QUARRY_REHEARSE_MODELS:-nasrnn}" \
        --rules rules/quarry-k3.verified.pb --cost-cache "$costs" \
        --runs 3 --rounds 2 --budget 2 --out "$results/gpu_vs_torch.json"
    else
      echo "gpu-check: gpu_vs_torch skipped: python3 has no torch, torchvision or onnx" | tee -a "$log"
    fi
    ;;
  conformance)
    cases="$build_dir/onnx-node"
    [ -d "$cases" ] || cases=$testdata
    step conformance 60 "$build_dir/bin/quarry" conformance --backend "$backend" \
      --quiet --json "$results/conformance-$backend.json" "$cases"
    ;;
  runtime)
    step runtime_bench 120 sh -c "'$build_dir/bin/runtime_bench' --runs $runs \
      >'$results/runtime_bench.json'"
    ;;
  costs)
    # Every operator configuration a search of each built-in network visits,
    # measured into the cost table (quarry optimize --costs prices from it
    # on a machine without this device); nothing is timed whole.
    for m in ${QUARRY_COST_MODELS:-inception_v3 nasnet_a resnet50 resnext50 bert nasrnn}; do
      step "costs_$m" 60 "$build_dir/bin/quarry" optimize "$m" \
        --backend "$backend" --rules rules/quarry-k3.verified.pb --budget 20 \
        --measure-top 0 --cost-cache "$costs"
    done
    ;;
  optimize)
    step optimize_bench 150 sh -c "'$build_dir/bin/optimize_bench' \
      --backends $backend --rules rules/quarry-k3.verified.pb --runs $runs \
      --cost-cache '$costs' >'$results/optimize_bench.json'"
    ;;
  *)
    echo "gpu-check: unknown step $s" >&2
    exit 2
    ;;
  esac
done
exit "$status"
