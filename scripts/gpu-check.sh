#!/usr/bin/env bash
# The GPU checks: the cuda backend's tests, ONNX's backend test cases on the
# cuda backend, the fingerprint device test and the runtime and optimizer
# benchmarks, on a machine with a GPU.
#
#   scripts/gpu-check.sh pack   # on the build machine: build the GPU
#                               # programs and bundle them, the shared
#                               # libraries they need beyond CUDA and
#                               # ONNX's node test cases into
#                               # build/gpu-pack.tar.xz (about 20 MB)
#   scripts/gpu-check.sh        # on the GPU machine: run them
#
# The GPU machine needs only the NVIDIA driver and the CUDA runtime with
# cuDNN 9 and cuBLAS. Given build/gpu-pack.tar.xz alone it unpacks it;
# given neither the bundle nor the programs it configures and builds them
# (which needs quarry's Debian packages and the CUDA toolkit). cuDNN and
# cuBLAS are looked for in the CUDA toolkit's folders and, where they came
# as Python wheels, under the site-packages/nvidia folders of /usr and /opt. Results go to build/gpu-results: the benchmarks' JSON,
# the conformance outcomes and a log of every step.
#
# QUARRY_BENCH_RUNS (default 20) sets the benchmarks' timed runs and
# QUARRY_GPU_STEPS (default "tests conformance runtime optimize") picks the
# steps.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${QUARRY_BUILD_DIR:-build}
bundle="$build_dir/gpu-pack.tar.xz"
programs=(runtime_cuda_test fingerprint_gpu_test runtime_bench optimize_bench
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
  xz -dc "$bundle" | tar -C "$build_dir" -xf -
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

results="$build_dir/gpu-results"
mkdir -p "$results"
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv | tee "$results/nvidia-smi.csv"

steps=${QUARRY_GPU_STEPS:-tests conformance runtime optimize}
runs=${QUARRY_BENCH_RUNS:-20}
status=0
step() { # name command...: runs one step, logs it, remembers a failure
  local name=$1
  shift
  echo "gpu-check: $name"
  set +e
  "$@" >"$results/$name.log" 2>&1
  local rc=$?
  set -e
  tail -n 25 "$results/$name.log"
  if [ "$rc" = 77 ]; then
    echo "gpu-check: $name found no CUDA device" >&2
    status=1
  elif [ "$rc" != 0 ]; then
    echo "gpu-check: $name failed (exit $rc)" >&2
    status=1
  fi
}

for s in $steps; do
  case $s in
  tests)
    step runtime_cuda_test "$build_dir/bin/runtime_cuda_test"
    step fingerprint_gpu_test "$build_dir/bin/fingerprint_gpu_test"
    ;;
  conformance)
    cases="$build_dir/onnx-node"
    [ -d "$cases" ] || cases=$testdata
    step conformance "$build_dir/bin/quarry" conformance --backend cuda \
      --quiet --json "$results/conformance-cuda.json" "$cases"
    ;;
  runtime)
    step runtime_bench sh -c "'$build_dir/bin/runtime_bench' --runs $runs \
      >'$results/runtime_bench.json'"
    ;;
  optimize)
    step optimize_bench sh -c "'$build_dir/bin/optimize_bench' \
      --backends cuda --rules rules/quarry-k3.verified.pb --runs $runs \
      --cost-cache '$results/optimize_costs.tsv' \
      >'$results/optimize_bench.json'"
    ;;
  *)
    echo "gpu-check: unknown step $s" >&2
    exit 2
    ;;
  esac
done
exit "$status"
