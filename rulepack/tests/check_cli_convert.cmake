# Converts TASO's rule collection with `quarry rules convert` and lists the
# result with `quarry rules show`.
file(REMOVE ${OUT})
execute_process(COMMAND ${QUARRY} rules convert --from-taso ${TASO} --out ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "convert failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${QUARRY} rules show ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "show failed (${rc}): ${err}")
endif()
if(NOT out MATCHES "^rule pack: 133 rules\n" OR
   NOT out MATCHES "\nrule taso_132  \\[unknown, taso-import\\]\n")
  message(FATAL_ERROR "unexpected listing: ${out}")
endif()
