#===- cmake/KiteAddKernels.cmake - Kernels compiled at build time ---------===#
#
# kite_add_kernels(<target> FILES a.kite [b.kite ...]
#                  [CHIPS sm_80 sm_90a ...] [SPECIALIZE NAME=div16|NAME=1 ...]
#                  [DEFINES NAME=VALUE ...] [KERNEL name | KERNELS k1 k2 ...]
#                  [CONFIG n])
#
# Compiles each .kite file ahead of time with `kitec --emit=c` (at build
# time, again when the file changes) into <binary dir>/kite/<stem>.h and
# <stem>.c, and adds them to <target>: the .c as a source, the directory to
# its include path, and libdl (the generated code dlopens the CUDA driver).
# The target needs neither libkite nor the CUDA toolkit at run time;
# building needs kitec (Kite_KITEC, set by find_package(Kite)) and ptxas
# (KITE_PTXAS, else found in $CUDA_HOME/bin, /usr/local/cuda/bin or PATH).
# CHIPS default to sm_80 and sm_90a. The project must enable C. A file of
# one kernel (or KERNEL, choosing one) gives <stem>.h/.c with functions
# <stem>_load(), <stem>_launch(), <stem>_unload() and <stem>_error(); a file
# of several gives <stem>_<kernel>.h/.c for each, and KERNELS names them
# (docs/runtime.md, "Ahead of time: C").
#
#===-----------------------------------------------------------------------===#
function(kite_add_kernels target)
  cmake_parse_arguments(ARG "" "KERNEL;CONFIG"
                        "FILES;CHIPS;SPECIALIZE;DEFINES;KERNELS" ${ARGN})
  if(ARG_KERNEL AND ARG_KERNELS)
    message(FATAL_ERROR "kite_add_kernels(${target}): KERNEL or KERNELS, not both")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kite_add_kernels: '${target}' is not a target")
  endif()
  if(NOT ARG_FILES)
    message(FATAL_ERROR "kite_add_kernels(${target}): no FILES")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    message(FATAL_ERROR "kite_add_kernels(${target}): the generated kernels "
                        "are C: enable it (project(... LANGUAGES C CXX))")
  endif()
  if(NOT Kite_KITEC OR NOT EXISTS "${Kite_KITEC}")
    message(FATAL_ERROR "kite_add_kernels: kitec not found (Kite_KITEC='${Kite_KITEC}')")
  endif()
  if(NOT KITE_PTXAS)
    find_program(KITE_PTXAS ptxas HINTS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
  endif()
  if(NOT KITE_PTXAS)
    message(FATAL_ERROR "kite_add_kernels: ptxas (the CUDA toolkit) not found; "
                        "set KITE_PTXAS")
  endif()
  if(NOT ARG_CHIPS)
    set(ARG_CHIPS sm_80 sm_90a)
  endif()
  string(REPLACE ";" "," chips "${ARG_CHIPS}")
  set(options --emit=c --chip=${chips} --ptxas=${KITE_PTXAS})
  foreach(s ${ARG_SPECIALIZE})
    list(APPEND options --specialize=${s})
  endforeach()
  foreach(d ${ARG_DEFINES})
    list(APPEND options -D ${d})
  endforeach()
  if(ARG_KERNEL)
    list(APPEND options --kernel=${ARG_KERNEL})
  endif()
  if(DEFINED ARG_CONFIG)
    list(APPEND options --config=${ARG_CONFIG})
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/kite)
  file(MAKE_DIRECTORY ${dir})
  foreach(file ${ARG_FILES})
    get_filename_component(path ${file} ABSOLUTE)
    get_filename_component(stem ${file} NAME_WE)
    set(outputs)
    if(ARG_KERNELS)
      foreach(k ${ARG_KERNELS})
        list(APPEND outputs ${dir}/${stem}_${k}.h ${dir}/${stem}_${k}.c)
      endforeach()
    else()
      set(outputs ${dir}/${stem}.h ${dir}/${stem}.c)
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${Kite_KITEC} ${path} ${options} -o ${dir}/${stem}
      DEPENDS ${path} ${Kite_KITEC}
      COMMENT "kitec --emit=c ${file}"
      VERBATIM)
    target_sources(${target} PRIVATE ${outputs})
  endforeach()
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
endfunction()
