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
