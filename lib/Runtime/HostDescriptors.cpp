//===- HostDescriptors.cpp - Host-made tensor descriptors as arguments ----===//
//
// kite::TensorDescriptor: its checks at creation (TMA's rules) and the
// expansion of descriptor arguments into the GPU parameters.
//
//===----------------------------------------------------------------------===//

#include "HostDescriptors.h"

#include <string>

using namespace kite;

static std::string listText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Expected<TensorDescriptor>
TensorDescriptor::create(const Arg &base, std::vector<int64_t> shape,
                         std::vector<int64_t> strides,
                         std::vector<int64_t> blockShape) {
  auto bad = [](const std::string &why) -> Expected<TensorDescriptor> {
    return Error(ErrorCode::InvalidArgument, "tensor descriptor: " + why);
  };
  if (!base.isPointer() || base.descriptor())
    return bad("the base must be a pointer");
  int bytes = scalarTypeBytes(base.type());
  if (bytes == 0)
    return bad("the base must be a typed pointer (its element type sets the "
               "strides' bytes), got an untyped one");
  if (base.bits() == 0)
    return bad("the base is a null pointer");
  size_t rank = shape.size();
  if (rank < 1 || rank > 5)
    return bad("1 to 5 dimensions, got " + std::to_string(rank));
  if (strides.size() != rank || blockShape.size() != rank)
    return bad("shape " + listText(shape) + ", strides " + listText(strides) +
               " and block shape " + listText(blockShape) +
               " must have as many dimensions");
  const int64_t limit = int64_t(1) << 31;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 1 || shape[i] >= limit)
      return bad("size " + std::to_string(i) + " is " +
                 std::to_string(shape[i]) + "; sizes must be in [1, 2^31)");
    int64_t b = blockShape[i];
    if (b < 1 || b > 256 || (b & (b - 1)))
      return bad("block size " + std::to_string(i) + " is " +
                 std::to_string(b) +
                 "; block sizes must be powers of two up to 256 (TMA's box)");
  }
  if (strides[rank - 1] != 1)
    return bad("the last stride must be 1 (contiguous rows), got " +
               std::to_string(strides[rank - 1]));
  for (size_t i = 0; i + 1 < rank; ++i)
    if (strides[i] < 1 || strides[i] >= limit || strides[i] * bytes % 16)
      return bad("stride " + std::to_string(i) + " is " +
                 std::to_string(strides[i]) + " elements of " +
                 std::to_string(bytes) +
                 " bytes; strides must be in [1, 2^31) and multiples of 16 "
                 "bytes");
  if (base.bits() % 16)
    return bad("the base address must be a multiple of 16 bytes, got " +
               std::to_string(base.bits()));
  TensorDescriptor d(base);
  d.shape_ = std::move(shape);
  d.strides_ = std::move(strides);
  d.block_ = std::move(blockShape);
  return d;
}

bool detail::takesDescriptors(const std::vector<Param> &params) {
  for (const Param &p : params)
    if (!p.descriptorBlock.empty())
      return true;
  return false;
}

Expected<const std::vector<Arg> *> detail::expandDescriptorArgs(
    const std::string &kernel, const std::vector<Param> &params,
    const std::vector<Arg> &args, std::vector<Arg> &storage, bool checkBlock) {
  bool any = takesDescriptors(params);
  if (!any) {
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].descriptor())
        return Error(ErrorCode::InvalidArgument,
                     "kernel '" + kernel + "', argument " + std::to_string(i) +
                         (i < params.size() ? " ('" + params[i].name + "')"
                                            : std::string()) +
                         ": a tensor descriptor, for a parameter that is not "
                         "a tensor_descriptor(...)");
    return &args;
  }
  // Parameters as the caller counts them: a descriptor is one.
  size_t expected = 0;
  for (size_t i = 0; i < params.size(); ++i, ++expected)
    i += 2 * params[i].descriptorBlock.size();
  storage.clear();
  storage.reserve(params.size());
  size_t a = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const Param &p = params[i];
    size_t rank = p.descriptorBlock.size();
    if (a >= args.size())
      break;
    const Arg &arg = args[a];
    auto bad =
        [&](const std::string &why) -> Expected<const std::vector<Arg> *> {
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + kernel + "', argument " + std::to_string(a) +
                       " ('" + p.name + "'): " + why);
    };
    if (rank == 0) {
      if (arg.descriptor())
        return bad("a tensor descriptor, for a parameter that is not a "
                   "tensor_descriptor(...)");
      storage.push_back(arg);
      ++a;
      continue;
    }
    const TensorDescriptor *d = arg.descriptor();
    if (!d) {
      // The GPU parameters themselves: the base, sizes and strides.
      for (size_t k = 0; k <= 2 * rank && a < args.size(); ++k)
        storage.push_back(args[a++]);
      i += 2 * rank;
      continue;
    }
    std::string want = std::string("a tensor descriptor of ") +
                       scalarTypeName(p.type) + " with block shape " +
                       listText(p.descriptorBlock);
    ScalarType t = d->base().type();
    bool typeOk =
        t == p.type ||
        ((p.type == ScalarType::F16 || p.type == ScalarType::BF16) &&
         t == ScalarType::I16) ||
        ((p.type == ScalarType::F8E4M3 || p.type == ScalarType::F8E5M2) &&
         t == ScalarType::I8);
    if (!typeOk || d->blockShape().size() != p.descriptorBlock.size() ||
        (checkBlock && d->blockShape() != p.descriptorBlock))
      return bad("expected " + want + ", got one of " + scalarTypeName(t) +
                 " with block shape " + listText(d->blockShape()));
    storage.push_back(d->base());
    for (int64_t v : d->shape())
      storage.push_back(Arg(int32_t(v)));
    for (int64_t v : d->strides())
      storage.push_back(Arg(int32_t(v)));
    ++a;
    i += 2 * rank;
  }
  if (a != args.size() || storage.size() != params.size()) {
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + kernel + "' takes " + std::to_string(expected) +
                     " argument(s) (a tensor descriptor is one: a "
                     "kite::TensorDescriptor), got " +
                     std::to_string(args.size()));
  }
  return &storage;
}
