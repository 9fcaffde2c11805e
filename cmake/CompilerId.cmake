# Writes OUT (a header defining KITE_COMPILER_ID): a digest of the compiler's
# sources listed, one per line, in LIST. The runtime's disk-cache keys name
# it, so kernels compiled by another build of the compiler are never reused.
# The header is rewritten only when the digest changes.
file(STRINGS "${LIST}" sources)
set(all "")
foreach(f IN LISTS sources)
  if(EXISTS "${f}")
    file(SHA256 "${f}" h)
    string(APPEND all "${f}:${h}\n")
  endif()
endforeach()
string(SHA256 id "${all}")
string(SUBSTRING "${id}" 0 16 id)
set(text "#define KITE_COMPILER_ID \"${id}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
