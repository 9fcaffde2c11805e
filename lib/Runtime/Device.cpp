//===- Device.cpp - Devices, memory, streams and events --------------------===//
//
// The runtime's thin, checked wrappers of the CUDA driver for what host
// programs need beside kernels: device count and chip, synchronization,
// device memory and copies, events.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include "Compile.h"
#include "CudaDriver.h"
#include "Ptxas.h"
#include "kite/Support/MachineCode.h"

#include <cstdio>

using namespace kite;
using namespace kite::cuda;

Expected<int> kite::deviceCount() {
  auto drv = driver();
  if (!drv)
    return drv.error();
  int count = 0;
  if (auto ok = (*drv)->check("cuDeviceGetCount",
                              (*drv)->cuDeviceGetCount(&count));
      !ok)
    return ok.error();
  return count;
}

Expected<std::string> kite::deviceChip(int device) { return chipOf(device); }

Expected<int> kite::deviceMultiprocessors(int device) {
  return cuda::attributeOf(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

std::string kite::machineCodeCompiler() {
  const auto &c = detail::findPtxas();
  return c ? c->stamp : std::string();
}

Expected<std::string> kite::compilePtxToCubin(const std::string &ptx,
                                              const std::string &chip) {
  const auto &c = detail::findPtxas();
  if (!c)
    return Error(ErrorCode::NoDriver,
                 "no PTX compiler: neither libnvJitLink nor ptxas was found "
                 "(KITE_NVJITLINK, KITE_PTXAS, CUDA_HOME)");
  std::string error;
  support::PerformanceNotes notes;
  support::PerformanceNotes *wanted = detail::tracing() ? &notes : nullptr;
  if (auto cubin = detail::runPtxas(*c, ptx, chip, error, wanted)) {
    detail::raiseOccupancy(*c, ptx, chip, *cubin, wanted);
    // What ptxas says costs speed, with KITE_TRACE (as launches).
    for (const std::string &note : notes)
      std::fprintf(stderr, "kite: compilePtxToCubin (%s): ptxas: %s\n",
                   chip.c_str(), note.c_str());
    return std::move(*cubin);
  }
  return Error(ErrorCode::CompileError, error);
}

Expected<kite::MachineCodeInfo>
kite::machineCodeInfo(const std::string &cubin, const std::string &kernel) {
  auto functions = support::cubinFunctions(cubin);
  if (functions.empty())
    return Error(ErrorCode::InvalidArgument,
                 "machineCodeInfo: not a cubin (an ELF image with .nv.info "
                 "attributes)");
  auto it = functions.find(kernel);
  if (it == functions.end())
    return Error(ErrorCode::InvalidArgument,
                 "machineCodeInfo: the cubin has no function '" + kernel + "'");
  return MachineCodeInfo{it->second.registers, it->second.stackBytes};
}

Expected<void> kite::synchronize(int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  return (*drv)->check("cuCtxSynchronize", (*drv)->cuCtxSynchronize());
}

Expected<uint64_t> kite::deviceAlloc(size_t bytes, int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  CUdeviceptr p = 0;
  if (auto ok = (*drv)->check("cuMemAlloc", (*drv)->cuMemAlloc(&p, bytes));
      !ok)
    return ok.error();
  return uint64_t(p);
}

void kite::deviceFree(uint64_t address, int device) {
  auto drv = driverOn(device);
  if (!drv)
    return;
  (*drv)->cuMemFree(address);
}

Expected<void> kite::copyToDevice(uint64_t dst, const void *src, size_t bytes,
                                  int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  return (*drv)->check("cuMemcpyHtoD", (*drv)->cuMemcpyHtoD(dst, src, bytes));
}

Expected<void> kite::copyToHost(void *dst, uint64_t src, size_t bytes,
                                int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  return (*drv)->check("cuMemcpyDtoH", (*drv)->cuMemcpyDtoH(dst, src, bytes));
}

Expected<void> kite::copyDeviceToDevice(uint64_t dst, uint64_t src,
                                        size_t bytes, int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  return (*drv)->check("cuMemcpyDtoD", (*drv)->cuMemcpyDtoD(dst, src, bytes));
}

Expected<void> kite::memsetDevice(uint64_t dst, uint8_t value, size_t bytes,
                                  int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  return (*drv)->check("cuMemsetD8", (*drv)->cuMemsetD8(dst, value, bytes));
}

Expected<Event> Event::create(int device) {
  auto drv = driverOn(device);
  if (!drv)
    return drv.error();
  CUevent e = nullptr;
  if (auto ok = (*drv)->check("cuEventCreate", (*drv)->cuEventCreate(&e, 0));
      !ok)
    return ok.error();
  return Event(e, device);
}

Expected<void> Event::record(void *stream) {
  auto drv = driverOn(device_);
  if (!drv)
    return drv.error();
  return (*drv)->check("cuEventRecord",
                       (*drv)->cuEventRecord(static_cast<CUevent>(event_),
                                             static_cast<CUstream>(stream)));
}

Expected<float> Event::elapsedMs(const Event &start, const Event &end) {
  auto drv = driver();
  if (!drv)
    return drv.error();
  const Driver &d = **drv;
  if (auto ok = d.check("cuEventSynchronize",
                        d.cuEventSynchronize(static_cast<CUevent>(end.event_)));
      !ok)
    return ok.error();
  float ms = 0;
  if (auto ok = d.check("cuEventElapsedTime",
                        d.cuEventElapsedTime(&ms,
                                             static_cast<CUevent>(start.event_),
                                             static_cast<CUevent>(end.event_)));
      !ok)
    return ok.error();
  return ms;
}

Event &Event::operator=(Event &&o) noexcept {
  std::swap(event_, o.event_);
  std::swap(device_, o.device_);
  return *this;
}

Event::~Event() {
  if (!event_)
    return;
  if (auto drv = driver())
    (*drv)->cuEventDestroy(static_cast<CUevent>(event_));
}
