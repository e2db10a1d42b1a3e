# Helpers that give every quarry target the same warnings and layout.

# Project code is held to -Wall -Wextra -Werror; generated code (protobuf) is not.
function(quarry_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror>)
  # GCC 12 reports -Wrestrict falsely inside std::string's operator+ at -O2
  # and above (GCC bug 105651); the warning is kept on other compilers.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND
     CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  endif()
endfunction()

# Code that only drives the libraries (tests, the command line's flag
# parsing) runs no faster at -O3 but compiles in up to twice the time;
# sanitizer builds set one level for everything.
function(quarry_driver_code target)
  target_compile_options(${target} PRIVATE
    $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O1>)
endfunction()

# quarry_library(NAME SOURCES ... DEPS ...): a library with public headers in
# <folder>/include/quarry/<module>/.
function(quarry_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  quarry_warnings(${name})
endfunction()

# quarry_test(NAME PREFIX module SOURCES ... DEPS ...): a GoogleTest
# executable registered with ctest, its cases named "<module>.<Suite>.<Case>"
# so that `ctest -R <module>` selects one module's tests.
function(quarry_test name)
  cmake_parse_arguments(ARG "" "PREFIX" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  # quarry/testing/scratch_dir.h and other helpers shared by every test.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  quarry_warnings(${name})
  quarry_driver_code(${name})
  gtest_discover_tests(${name} TEST_PREFIX "${ARG_PREFIX}." DISCOVERY_TIMEOUT 60
    PROPERTIES SKIP_RETURN_CODE 77)
endfunction()

# quarry_cli_test(NAME ARGS ... [EXPECT_RC n] [STDOUT_REGEX re]
#                 [STDERR_REGEX re] [ONE_LINE_STDERR]): runs `quarry ARGS`
# and checks its exit status and output (cmake/CheckCommand.cmake).
function(quarry_cli_test name)
  cmake_parse_arguments(ARG "ONE_LINE_STDERR" "EXPECT_RC;STDOUT_REGEX;STDERR_REGEX"
    "ARGS" ${ARGN})
  list(JOIN ARG_ARGS "|" joined)
  set(defs -DCOMMAND=$<TARGET_FILE:quarry>|${joined})
  if(DEFINED ARG_EXPECT_RC)
    list(APPEND defs -DEXPECT_RC=${ARG_EXPECT_RC})
  endif()
  if(DEFINED ARG_STDOUT_REGEX)
    list(APPEND defs "-DSTDOUT_REGEX=${ARG_STDOUT_REGEX}")
  endif()
  if(DEFINED ARG_STDERR_REGEX)
    list(APPEND defs "-DSTDERR_REGEX=${ARG_STDERR_REGEX}")
  endif()
  if(ARG_ONE_LINE_STDERR)
    list(APPEND defs -DONE_LINE_STDERR=ON)
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${defs}
    -P ${PROJECT_SOURCE_DIR}/cmake/CheckCommand.cmake)
endfunction()
