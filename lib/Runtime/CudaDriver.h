//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Kite builds and compiles without CUDA: libcuda.so.1 is dlopen-ed on first
// use (KITE_CUDA_LIBRARY overrides the name, e.g. to test the no-driver
// path). Only the entry points Kite uses are declared here, with the
// driver's ABI types; every call goes through check(), which turns a
// CUresult into a kite::Error carrying cuGetErrorName's text.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_CUDADRIVER_H
#define KITE_LIB_RUNTIME_CUDADRIVER_H

#include "kite/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kite::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_INPUT_PTX = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

/// CUlaunchConfig (cuda.h), without launch attributes.
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  void *attrs;
  unsigned numAttrs;
};

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  /// Optional (null on drivers before CUDA 12): encodes a TMA descriptor.
  CUresult (*cuTensorMapEncodeTiled)(void *tensorMap, int dataType,
                                     unsigned rank, void *globalAddress,
                                     const uint64_t *globalDim,
                                     const uint64_t *globalStrides,
                                     const unsigned *boxDim,
                                     const unsigned *elementStrides,
                                     int interleave, int swizzle,
                                     int l2Promotion, int oobFill);
  /// Optional (null where the driver lacks them): occupancy.
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction,
                                           const CUlaunchConfig *);

  /// "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string describe(const char *call, CUresult result) const;
  /// Success, or a DriverError naming the call.
  Expected<void> check(const char *call, CUresult result) const {
    if (result == CUDA_SUCCESS)
      return Success{};
    return Error(ErrorCode::DriverError, describe(call, result));
  }
};

/// Remembers the kernel this thread launches (named in the message of a
/// failed device_assert).
void noteLaunch(const std::string &kernel);

/// The loaded and initialized driver (once per process), or NoDriver.
Expected<const Driver *> driver();

/// Makes `device`'s primary context current on this thread (cached per
/// thread); NoDevice for a bad ordinal.
Expected<void> useDevice(int device);

/// The driver, with `device`'s primary context current on this thread.
Expected<const Driver *> driverOn(int device);

/// "sm_XY" of `device`.
Expected<std::string> chipOf(int device);
/// An integer attribute (CU_DEVICE_ATTRIBUTE_*) of a device.
Expected<int> attributeOf(int device, int attribute);

} // namespace kite::cuda

#endif // KITE_LIB_RUNTIME_CUDADRIVER_H
