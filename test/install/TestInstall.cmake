# ctest InstallAndConsume: installs the build tree into a fresh prefix, then
# configures, builds and runs test/install/consumer against it (a runtime
# consumer, and one of kite_add_kernels()).
#   cmake -DBUILD=<build dir> -DSOURCE=<repo> -DWORK=<scratch dir> -P TestInstall.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(f include/kite/Runtime/Runtime.h include/kite/Runtime/Fp8.h
          lib/cmake/Kite/KiteConfig.cmake
          lib/cmake/Kite/KiteTargets.cmake lib/cmake/Kite/KiteAddKernels.cmake
          bin/kitec bin/kite-run)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE}/test/install/consumer -B ${WORK}/build
    -G Ninja -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release
    -DKITE_EXAMPLES=${SOURCE}/dsl-examples)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/consumer)
# kite_add_kernels(): vector_add.kite compiled to C at build time (where
# the CUDA toolkit's ptxas is there to make the cubins).
if(EXISTS ${WORK}/build/aot_consumer)
  foreach(f kite/vector_add.h kite/vector_add.c)
    if(NOT EXISTS ${WORK}/build/${f})
      message(FATAL_ERROR "kite_add_kernels did not generate ${f}")
    endif()
  endforeach()
  run(${WORK}/build/aot_consumer)
elseif(EXISTS /usr/local/cuda/bin/ptxas)
  message(FATAL_ERROR "aot_consumer was not built though ptxas exists")
endif()
# The installed tools run from the prefix too.
run(${WORK}/prefix/bin/kitec ${SOURCE}/dsl-examples/vector_add.kite -o ${WORK}/v.ptx)
