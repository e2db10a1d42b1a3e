# Runs a command and checks its exit status and output; used by CLI tests.
#   cmake -DCOMMAND="prog|arg1|arg2" [-DEXPECT_RC=N] [-DSTDOUT_REGEX=re]
#         [-DSTDERR_REGEX=re] [-DONE_LINE_STDERR=ON] -P CheckCommand.cmake
# Arguments are separated by '|' so they survive ctest's list handling.
string(REPLACE "|" ";" cmd "${COMMAND}")
if(NOT DEFINED EXPECT_RC)
  set(EXPECT_RC 0)
endif()
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got '${rc}'\n"
    "stdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED STDOUT_REGEX AND NOT out MATCHES "${STDOUT_REGEX}")
  message(FATAL_ERROR "stdout does not match '${STDOUT_REGEX}': ${out}")
endif()
if(DEFINED STDERR_REGEX AND NOT err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "stderr does not match '${STDERR_REGEX}': ${err}")
endif()
if(ONE_LINE_STDERR)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL 1)
    message(FATAL_ERROR "expected one line on stderr, got ${lines}: ${err}")
  endif()
endif()
