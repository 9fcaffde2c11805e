/* Tutorial 01's vector add from plain C, compiled ahead of time:
 *   kitec vector_add.kite --emit=c --chip=sm_80,sm_90a \
 *     --specialize=x_ptr=div16,y_ptr=div16,output_ptr=div16,n=div16 -o out/vector_add
 *   cc -I out out/vector_add.c vector_add_aot.c -ldl
 * (or kite_add_kernels() in CMake; docs/runtime.md, "Ahead of time: C"):
 * no Kite, no MLIR/LLVM, no CUDA toolkit headers; the CUDA driver is opened
 * at run time, here for memory as in the generated code. With a GPU it adds
 * two vectors with both variants (n divisible by 16: the specialized one;
 * odd n and a misaligned pointer: the generic one) and checks the sums;
 * without one it prints the load error and exits 0, so the build and the
 * error path are checked everywhere. Exit 1 on a wrong result or on an
 * error other than a missing driver or device. */
#include "vector_add.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*alloc_fn)(uint64_t *, size_t);
typedef int (*htod_fn)(uint64_t, const void *, size_t);
typedef int (*dtoh_fn)(void *, uint64_t, size_t);
typedef int (*sync_fn)(void);

static int check(int n, int offset, alloc_fn alloc, htod_fn htod, dtoh_fn dtoh,
                 sync_fn sync) {
  size_t bytes = (size_t)(n + 4) * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  uint64_t dx, dy, dout;
  int i, bad = 0;
  for (i = 0; i < n + 4; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f * (float)i;
  }
  if (alloc(&dx, bytes) || alloc(&dy, bytes) || alloc(&dout, bytes) ||
      htod(dx, x, bytes) || htod(dy, y, bytes)) {
    printf("FAILED: device memory\n");
    return 1;
  }
  /* offset 1: a pointer 4 bytes past 16-byte alignment. */
  if (vector_add_launch(0, (unsigned)((n + 1023) / 1024), 1, 1,
                        dx + 4 * offset, dy + 4 * offset, dout + 4 * offset,
                        n)) {
    printf("FAILED: %s\n", vector_add_error());
    return 1;
  }
  if (sync() || dtoh(out, dout, bytes)) {
    printf("FAILED: synchronize or copy back\n");
    return 1;
  }
  for (i = 0; i < n; ++i)
    bad += out[i + offset] != x[i + offset] + y[i + offset];
  printf("n = %d, offset %d: %d wrong\n", n, offset, bad);
  free(x);
  free(y);
  free(out);
  return bad != 0;
}

int main(void) {
  void *cuda;
  int failed = 0;
  if (vector_add_load()) {
    const char *e = vector_add_error();
    printf("no GPU: %s\n", e);
    return strstr(e, "libcuda.so.1") || strstr(e, "cuInit") ||
                   strstr(e, "cuDeviceGet")
               ? 0
               : 1;
  }
  cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (!cuda)
    return 1;
  {
    alloc_fn alloc = (alloc_fn)dlsym(cuda, "cuMemAlloc_v2");
    htod_fn htod = (htod_fn)dlsym(cuda, "cuMemcpyHtoD_v2");
    dtoh_fn dtoh = (dtoh_fn)dlsym(cuda, "cuMemcpyDtoH_v2");
    sync_fn sync = (sync_fn)dlsym(cuda, "cuCtxSynchronize");
    if (!alloc || !htod || !dtoh || !sync)
      return 1;
    failed |= check(1 << 20, 0, alloc, htod, dtoh, sync);
    failed |= check((1 << 20) + 3, 1, alloc, htod, dtoh, sync);
  }
  if (vector_add_unload()) {
    printf("FAILED: %s\n", vector_add_error());
    return 1;
  }
  printf(failed ? "FAILED\n" : "ok: both variants add correctly\n");
  return failed;
}
