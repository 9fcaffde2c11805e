/* Uses vector_add compiled at build time by kite_add_kernels(): loads it
 * (on a machine without the CUDA driver the load reports why, which is the
 * expected outcome there) and, where a GPU is present, checks that a null
 * pointer is refused and launches it once with zero elements (nothing is
 * read or written). */
#include "layer_norm_bwd__layer_norm_bwd_dwdb.h"
#include "layer_norm_bwd__layer_norm_bwd_dx_fused.h"
#include "vector_add.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  /* Both layer-norm backward kernels link beside vector_add. */
  (void)&layer_norm_bwd__layer_norm_bwd_dx_fused_launch;
  (void)&layer_norm_bwd__layer_norm_bwd_dwdb_launch;
  if (vector_add_load()) {
    const char *e = vector_add_error();
    printf("aot_consumer: no GPU here: %s\n", e);
    return strstr(e, "libcuda.so.1") || strstr(e, "cuInit") ||
                   strstr(e, "cuDeviceGet")
               ? 0
               : 1;
  }
  if (!vector_add_launch(0, 1, 1, 1, 0, 16, 16, 0) ||
      !strstr(vector_add_error(), "'x_ptr' is a null pointer")) {
    printf("aot_consumer: a null pointer was not refused (%s)\n",
           vector_add_error());
    return 1;
  }
  if (vector_add_launch(0, 1, 1, 1, 16, 16, 16, 0)) {
    printf("aot_consumer: %s\n", vector_add_error());
    return 1;
  }
  printf("aot_consumer: vector_add (%d threads a program) loaded and launched\n",
         vector_add_THREADS);
  if (layer_norm_bwd__layer_norm_bwd_dx_fused_load() ||
      layer_norm_bwd__layer_norm_bwd_dwdb_load()) {
    printf("aot_consumer: layer_norm_bwd: %s\n",
           layer_norm_bwd__layer_norm_bwd_dx_fused_error());
    return 1;
  }
  return vector_add_unload();
}
