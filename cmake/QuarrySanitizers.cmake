# Sanitizer and fuzzing instrumentation for every target, dependencies'
# generated code included (scripts/test.sh --sanitize, scripts/fuzz.sh).
#
#   QUARRY_SANITIZE=address  AddressSanitizer, LeakSanitizer and
#                            UndefinedBehaviorSanitizer, stopping at the
#                            first report
#   QUARRY_SANITIZE=thread   ThreadSanitizer
#   QUARRY_FUZZ=ON           (clang) coverage for libFuzzer in every object,
#                            and the targets in fuzz/; implies address
#
# Debian's libraries (TBB, Open MPI, oneDNN, HDF5, protobuf) are not
# instrumented; what the sanitizers report inside them is listed, with the
# reason, in sanitizers/*.supp.

if(QUARRY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "QUARRY_FUZZ needs clang (CXX=clang++): libFuzzer "
      "is part of clang's runtime")
  endif()
  if(QUARRY_SANITIZE STREQUAL "")
    set(QUARRY_SANITIZE address)
  endif()
endif()

if(NOT QUARRY_SANITIZE STREQUAL "")
  if(QUARRY_SANITIZE STREQUAL "address")
    set(_quarry_san -fsanitize=address,undefined -fno-sanitize-recover=all)
  elseif(QUARRY_SANITIZE STREQUAL "thread")
    set(_quarry_san -fsanitize=thread)
  else()
    message(FATAL_ERROR "QUARRY_SANITIZE is address or thread, not "
      "'${QUARRY_SANITIZE}'")
  endif()
  if(QUARRY_FUZZ)
    list(APPEND _quarry_san -fsanitize=fuzzer-no-link)
  endif()
  # Instrumented loops do not vectorize; clang's warning that a
  # `#pragma omp simd` loop was not vectorized says only that.
  set(_quarry_san_compile ${_quarry_san} -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    list(APPEND _quarry_san_compile -Wno-pass-failed)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_quarry_san_compile}>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${_quarry_san}>")
  # nvcc cannot build sanitized host code; GPU tests skip without a device
  # anyway.
  set(QUARRY_ENABLE_CUDA OFF CACHE BOOL "" FORCE)
  message(STATUS "quarry: sanitizers ${QUARRY_SANITIZE}")
endif()
