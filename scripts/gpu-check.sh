#!/usr/bin/env bash
# The GPU checks: the cuda backend's tests, the fingerprint device test and
# the runtime benchmark, on a machine with a GPU.
#
#   scripts/gpu-check.sh pack   # on the build machine: build the GPU
#                               # programs and gather the shared libraries
#                               # they need beyond CUDA into build/gpu-libs
#   scripts/gpu-check.sh        # on the GPU machine: run them
#
# The GPU machine needs only the CUDA toolkit (with cuDNN and cuBLAS) and
# CMake: when the programs are not there yet it configures and builds them
# (which needs quarry's Debian packages too); otherwise it runs what `pack`
# left in build/, with build/gpu-libs on the library path. The benchmark's
# JSON goes to build/gpu-bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${QUARRY_BUILD_DIR:-build}
programs=(runtime_cuda_test fingerprint_gpu_test runtime_bench)

build_programs() {
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build_dir" -j"$(nproc)" --target "${programs[@]}"
}

if [ "${1:-}" = pack ]; then
  build_programs
  libs="$build_dir/gpu-libs"
  rm -rf "$libs" && mkdir -p "$libs"
  # Everything the programs load except the C runtime and CUDA itself,
  # which the GPU machine has.
  for p in "${programs[@]}"; do
    ldd "$build_dir/bin/$p" | awk '/=> \// {print $3}'
  done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda|libcudart|libcublas[^/]*|libcudnn[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$libs/"; done
  echo "gpu-check: packed ${programs[*]} and $(ls "$libs" | wc -l) libraries into $build_dir"
  exit 0
fi

missing=0
for p in "${programs[@]}"; do
  [ -x "$build_dir/bin/$p" ] || missing=1
done
if [ "$missing" = 1 ]; then
  build_programs
fi

cuda_lib=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && cuda_lib="$cuda_lib:$d"
done
export LD_LIBRARY_PATH="$build_dir/gpu-libs${cuda_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv

status=0
for t in runtime_cuda_test fingerprint_gpu_test; do
  echo "gpu-check: $t"
  set +e
  "$build_dir/bin/$t"
  rc=$?
  set -e
  if [ "$rc" = 77 ]; then
    echo "gpu-check: $t found no CUDA device" >&2
    status=1
  elif [ "$rc" != 0 ]; then
    status=1
  fi
done

echo "gpu-check: runtime_bench -> $build_dir/gpu-bench.json"
"$build_dir/bin/runtime_bench" --runs "${QUARRY_BENCH_RUNS:-20}" >"$build_dir/gpu-bench.json"
cat "$build_dir/gpu-bench.json"
exit "$status"
