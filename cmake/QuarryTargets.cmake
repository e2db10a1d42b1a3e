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

# quarry_library(NAME SOURCES ... DEPS ...): a library with public headers in
# <folder>/include/quarry/<module>/.
function(quarry_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  quarry_warnings(${name})
endfunction()

# quarry_test(NAME SOURCES ... DEPS ...): a GoogleTest executable registered with ctest.
function(quarry_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  quarry_warnings(${name})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
