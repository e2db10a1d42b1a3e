# Every external package quarry uses, found once. All come from Debian packages
# (scripts/bootstrap.sh installs them); CUDA is optional.

find_package(Threads REQUIRED)
find_package(GTest REQUIRED)
include(GoogleTest)
find_package(PkgConfig REQUIRED)

# Protobuf must come before ONNX, whose CMake config refers to it.
find_package(Protobuf REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)

# Later modules (verify, dedupe, runtime) need these; finding them here keeps
# bootstrap honest about the whole tool chain from the first build.
find_package(TBB REQUIRED)
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(OpenSSL REQUIRED) # SHA-256 checksums of shards
pkg_check_modules(Z3 REQUIRED IMPORTED_TARGET z3)
find_package(dnnl CONFIG REQUIRED)
# oneDNN runs on OpenMP (Debian builds it so); the cpu backend sets its
# thread count through it.
find_package(OpenMP REQUIRED)
# Clang's -fopenmp means LLVM's OpenMP runtime while oneDNN runs on GCC's:
# two runtimes in one process, and the thread count the cpu backend sets
# would reach only the one oneDNN does not use. Clang builds (sanitizers,
# fuzzing) link GCC's runtime instead; clang cannot compile OpenMP regions
# for it, so quarry's own OpenMP loops run on one thread there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set_target_properties(OpenMP::OpenMP_CXX PROPERTIES
    INTERFACE_COMPILE_OPTIONS "-Wno-source-uses-openmp"
    INTERFACE_LINK_LIBRARIES "gomp")
endif()
find_package(ONNX CONFIG REQUIRED)
# float16 <-> float32 for ONNX tensors of float16.
find_package(Imath CONFIG REQUIRED)

# CUDA: on when nvcc is found (the toolkit's standard location is searched too).
set(QUARRY_HAVE_CUDA OFF)
if(QUARRY_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    # CMake 3.25 does not know nvcc 13's C++20 flag; device code is C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(QUARRY_HAVE_CUDA ON)
  endif()
endif()
message(STATUS "quarry: CUDA parts ${QUARRY_HAVE_CUDA}")

# Optional and not a Debian package: ONNX Runtime, only for the comparison
# benchmarks (bench/ort_bench, bench/ort_vs_quarry). bench/fetch_onnxruntime.sh
# installs it from npm into ~/.cache/quarry/onnxruntime, which is looked at
# when -DQUARRY_ONNXRUNTIME_DIR is not given. The library comes from
# onnxruntime-node (ONNX Runtime 1.30), else from com.github.asus4.onnxruntime
# (1.29), whose C/C++ headers are used either way.
set(QUARRY_ONNXRUNTIME_DIR "" CACHE PATH "ONNX Runtime package folder (optional)")
set(_quarry_ort_dir ${QUARRY_ONNXRUNTIME_DIR})
if(NOT _quarry_ort_dir AND EXISTS "$ENV{HOME}/.cache/quarry/onnxruntime")
  set(_quarry_ort_dir "$ENV{HOME}/.cache/quarry/onnxruntime")
endif()
if(_quarry_ort_dir)
  find_library(QUARRY_ONNXRUNTIME_LIBRARY
    NAMES libonnxruntime.so.1 onnxruntime
    HINTS ${_quarry_ort_dir}/node_modules/onnxruntime-node/bin/napi-v6/linux/x64
          ${_quarry_ort_dir}/node_modules/com.github.asus4.onnxruntime/Plugins/Linux/x64
          ${_quarry_ort_dir}/Plugins/Linux/x64
    NO_DEFAULT_PATH)
  file(GLOB_RECURSE _quarry_ort_headers
    ${_quarry_ort_dir}/*/onnxruntime_cxx_api.h)
  if(_quarry_ort_headers)
    list(GET _quarry_ort_headers 0 _quarry_ort_header)
    get_filename_component(QUARRY_ONNXRUNTIME_INCLUDE ${_quarry_ort_header}
      DIRECTORY)
  endif()
endif()
if(QUARRY_ONNXRUNTIME_LIBRARY AND QUARRY_ONNXRUNTIME_INCLUDE)
  message(STATUS "quarry: ONNX Runtime for bench/ort_bench: ${QUARRY_ONNXRUNTIME_LIBRARY}")
endif()
