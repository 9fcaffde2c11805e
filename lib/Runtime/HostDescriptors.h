//===- HostDescriptors.h - Host-made tensor descriptors as arguments -*- C++
//-*-===//
//
// A kernel's `tensor_descriptor(dtype, [block])` parameter is, on the GPU,
// 1 + 2 * rank parameters: the base pointer, the sizes and the strides
// (i32). The caller passes one kite::TensorDescriptor for them (or the
// GPU parameters themselves); every entry point expands the arguments
// first.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_HOSTDESCRIPTORS_H
#define KITE_LIB_RUNTIME_HOSTDESCRIPTORS_H

#include "kite/Runtime/Runtime.h"

namespace kite::detail {

/// Whether a kernel with these parameters takes host descriptors.
bool takesDescriptors(const std::vector<Param> &params);

/// `args` with each TensorDescriptor replaced by its base, sizes and
/// strides, written to `storage` (returned; `&args` itself when `params`
/// take no descriptor). InvalidArgument for a descriptor that does not fit
/// its parameter (element type, rank, and with `checkBlock` its block
/// shape), one given where the parameter is not a descriptor, or a wrong
/// count.
Expected<const std::vector<Arg> *>
expandDescriptorArgs(const std::string &kernel,
                     const std::vector<Param> &params,
                     const std::vector<Arg> &args, std::vector<Arg> &storage,
                     bool checkBlock = true);

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_HOSTDESCRIPTORS_H
