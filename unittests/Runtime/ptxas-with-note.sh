#!/bin/sh
# A ptxas that adds a performance note to the real one's output (ctest's
# RuntimeTest.PtxasNotesAreTraced runs the runtime with KITE_PTXAS set to
# this file and KITE_TRACE=1).
"${KITE_TEST_REAL_PTXAS:-/usr/local/cuda/bin/ptxas}" "$@" || exit $?
echo "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized in the function 'add_kernel'" >&2
