//===- CudaDriver.cpp - dlopen of libcuda.so.1 -----------------------------===//

#include "Environment.h"
#include "CudaDriver.h"

#include <cstring>

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

using namespace kite;
using namespace kite::cuda;

namespace {
/// The kernel this thread launched last (for CUDA_ERROR_ASSERT, which the
/// launch's next synchronization reports).
thread_local char lastLaunched[128] = "";
} // namespace

void kite::cuda::noteLaunch(const std::string &kernel) {
  std::strncpy(lastLaunched, kernel.c_str(), sizeof lastLaunched - 1);
}

std::string Driver::describe(const char *call, CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "";
  std::string message = std::string(call) + ": " + name + " (" + text +
                        ", code " + std::to_string(result) + ")";
  if (result == 710) // CUDA_ERROR_ASSERT
    message += std::string(": a device_assert failed") +
               (lastLaunched[0] ? std::string(" (last kernel launched on this "
                                              "thread: '") +
                                      lastLaunched + "')"
                                : std::string()) +
               "; the device printed the file:line, the program and thread "
               "and the message on standard output. The context is now "
               "unusable: restart the process";
  return message;
}

namespace {
struct Loaded {
  Driver driver{};
  std::string error; ///< why the driver is unusable; empty when usable
  ErrorCode code = ErrorCode::NoDriver;
};
} // namespace

static Loaded load() {
  Loaded l;
  const std::string library = ::kite::detail::readEnvironment().cudaLibrary;
  const char *name = library.c_str();
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    l.error = std::string("cannot load ") + name + " (" +
              (why ? why : "unknown reason") +
              "); Kite compiles without a GPU, but launching needs the "
              "NVIDIA driver";
    return l;
  }
  bool ok = true;
  auto bind = [&](auto &fn, const char *symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, symbol));
    if (!fn && ok) {
      ok = false;
      l.error = std::string(name) + " lacks " + symbol +
                " (driver too old?)";
    }
  };
  Driver &d = l.driver;
  bind(d.cuInit, "cuInit");
  bind(d.cuDriverGetVersion, "cuDriverGetVersion");
  bind(d.cuGetErrorName, "cuGetErrorName");
  bind(d.cuGetErrorString, "cuGetErrorString");
  bind(d.cuDeviceGetCount, "cuDeviceGetCount");
  bind(d.cuDeviceGet, "cuDeviceGet");
  bind(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(d.cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(d.cuCtxSynchronize, "cuCtxSynchronize");
  bind(d.cuModuleLoadData, "cuModuleLoadData");
  bind(d.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  bind(d.cuModuleGetFunction, "cuModuleGetFunction");
  bind(d.cuFuncSetAttribute, "cuFuncSetAttribute");
  bind(d.cuLaunchKernel, "cuLaunchKernel");
  bind(d.cuDeviceGetName, "cuDeviceGetName");
  bind(d.cuMemGetAddressRange, "cuMemGetAddressRange_v2");
  bind(d.cuMemAlloc, "cuMemAlloc_v2");
  bind(d.cuMemFree, "cuMemFree_v2");
  bind(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  bind(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(d.cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  d.cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(
          dlsym(handle, "cuTensorMapEncodeTiled"));
  d.cuOccupancyMaxActiveBlocksPerMultiprocessor =
      reinterpret_cast<decltype(d.cuOccupancyMaxActiveBlocksPerMultiprocessor)>(
          dlsym(handle, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  d.cuOccupancyMaxActiveClusters =
      reinterpret_cast<decltype(d.cuOccupancyMaxActiveClusters)>(
          dlsym(handle, "cuOccupancyMaxActiveClusters"));
  bind(d.cuMemsetD8, "cuMemsetD8_v2");
  bind(d.cuEventCreate, "cuEventCreate");
  bind(d.cuEventRecord, "cuEventRecord");
  bind(d.cuEventSynchronize, "cuEventSynchronize");
  bind(d.cuEventElapsedTime, "cuEventElapsedTime");
  bind(d.cuEventDestroy, "cuEventDestroy_v2");
  if (!ok)
    return l;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    l.error = "the driver found no usable GPU: " + d.describe("cuInit", r);
    return l;
  }
  return l;
}

static const Loaded &loaded() {
  static const Loaded l = load(); // thread-safe once
  return l;
}

Expected<const Driver *> kite::cuda::driver() {
  const Loaded &l = loaded();
  if (!l.error.empty())
    return Error(l.code, l.error);
  return &l.driver;
}

Expected<void> kite::cuda::useDevice(int device) {
  thread_local int current = -1;
  if (device == current)
    return Success{};
  auto d = driver();
  if (!d)
    return d.error();
  const Driver &drv = **d;
  // Primary contexts, retained once per device for the process.
  static std::mutex mutex;
  static std::vector<CUcontext> contexts;
  CUcontext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    int count = 0;
    if (auto ok = drv.check("cuDeviceGetCount", drv.cuDeviceGetCount(&count));
        !ok)
      return ok;
    if (device < 0 || device >= count)
      return Error(ErrorCode::NoDevice,
                   "device " + std::to_string(device) + " does not exist (" +
                       std::to_string(count) + " CUDA device(s))");
    if (contexts.size() < size_t(count))
      contexts.resize(count, nullptr);
    if (!contexts[device]) {
      CUdevice dev;
      if (auto ok = drv.check("cuDeviceGet", drv.cuDeviceGet(&dev, device));
          !ok)
        return ok;
      if (auto ok = drv.check("cuDevicePrimaryCtxRetain",
                              drv.cuDevicePrimaryCtxRetain(&contexts[device],
                                                           dev));
          !ok)
        return ok;
    }
    ctx = contexts[device];
  }
  if (auto ok = drv.check("cuCtxSetCurrent", drv.cuCtxSetCurrent(ctx)); !ok)
    return ok;
  current = device;
  return Success{};
}

Expected<const Driver *> kite::cuda::driverOn(int device) {
  auto d = driver();
  if (!d)
    return d;
  if (auto ok = useDevice(device); !ok)
    return ok.error();
  return d;
}

Expected<int> kite::cuda::attributeOf(int device, int attribute) {
  auto d = driverOn(device);
  if (!d)
    return d.error();
  const Driver &drv = **d;
  CUdevice dev;
  int value = 0;
  if (auto ok = drv.check("cuDeviceGet", drv.cuDeviceGet(&dev, device)); !ok)
    return ok.error();
  if (auto ok = drv.check("cuDeviceGetAttribute",
                          drv.cuDeviceGetAttribute(&value, attribute, dev));
      !ok)
    return ok.error();
  return value;
}

Expected<std::string> kite::cuda::chipOf(int device) {
  auto d = driverOn(device);
  if (!d)
    return d.error();
  const Driver &drv = **d;
  CUdevice dev;
  int major = 0, minor = 0;
  if (auto ok = drv.check("cuDeviceGet", drv.cuDeviceGet(&dev, device)); !ok)
    return ok.error();
  if (auto ok = drv.check(
          "cuDeviceGetAttribute",
          drv.cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
      !ok)
    return ok.error();
  if (auto ok = drv.check(
          "cuDeviceGetAttribute",
          drv.cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
      !ok)
    return ok.error();
  // Hopper (9.0) gets sm_90a: its PTX may use wgmma (the tensor-core dot),
  // and loads only on 9.0 devices, which is what it is compiled for here.
  if (major == 9 && minor == 0)
    return std::string("sm_90a");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}
