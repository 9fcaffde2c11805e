// RUN: kite-opt %s -kite-drop-unused-device-libraries | FileCheck %s

// No external function: nothing to link from libdevice.
// CHECK: gpu.module @plain [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
module attributes {gpu.container_module} {
  gpu.module @plain [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80", link = ["/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"]>] {
    llvm.func @k(%arg0: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  // A call into libdevice: the link list stays.
  // CHECK: gpu.module @math [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80", link = ["/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"]>]
  gpu.module @math [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80", link = ["/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"]>] {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%arg0: f32) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.call @__nv_expf(%arg0) : (f32) -> f32
      llvm.return
    }
  }
  // No target attribute: untouched.
  // CHECK: gpu.module @bare {
  gpu.module @bare {
  }
}
