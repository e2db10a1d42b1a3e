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
find_package(ONNX CONFIG REQUIRED)

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

# Optional and not a Debian package: ONNX Runtime, only for bench/ort_bench
# (quarry's optimized ONNX next to the original, run by ONNX Runtime). Give
# -DQUARRY_ONNXRUNTIME_DIR=<folder of the npm package
# com.github.asus4.onnxruntime, installed with npm install --ignore-scripts>.
set(QUARRY_ONNXRUNTIME_DIR "" CACHE PATH "ONNX Runtime package folder (optional)")
if(QUARRY_ONNXRUNTIME_DIR)
  find_library(QUARRY_ONNXRUNTIME_LIBRARY onnxruntime
    HINTS ${QUARRY_ONNXRUNTIME_DIR}/Plugins/Linux/x64 NO_DEFAULT_PATH)
  file(GLOB_RECURSE _quarry_ort_headers
    ${QUARRY_ONNXRUNTIME_DIR}/*/onnxruntime_cxx_api.h)
  if(_quarry_ort_headers)
    list(GET _quarry_ort_headers 0 _quarry_ort_header)
    get_filename_component(QUARRY_ONNXRUNTIME_INCLUDE ${_quarry_ort_header}
      DIRECTORY)
  endif()
endif()
if(QUARRY_ONNXRUNTIME_LIBRARY AND QUARRY_ONNXRUNTIME_INCLUDE)
  message(STATUS "quarry: ONNX Runtime for bench/ort_bench: ${QUARRY_ONNXRUNTIME_LIBRARY}")
endif()
