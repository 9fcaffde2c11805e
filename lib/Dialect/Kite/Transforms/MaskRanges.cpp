//===- MaskRanges.cpp - Masks over `s + arange` blocks ---------------------===//

#include "MaskRanges.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace kite::detail {

Value throughShapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<kd::ExpandDimsOp, kd::BroadcastOp, kd::ReshapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

bool matchRange(Value v, Value &start, int64_t &last, bool shapes) {
  auto strip = [&](Value x) { return shapes ? throughShapes(x) : x; };
  v = strip(v);
  if (auto range = v.getDefiningOp<kd::ArangeOp>()) {
    start = {};
    last = int64_t(range.getEnd()) - 1;
    return range.getEnd() > range.getStart();
  }
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())}) {
    auto splat = strip(x).getDefiningOp<kd::SplatOp>();
    auto range = strip(y).getDefiningOp<kd::ArangeOp>();
    if (splat && range && range.getEnd() > range.getStart()) {
      start = splat.getSrc();
      last = int64_t(range.getEnd()) - 1;
      return true;
    }
  }
  return false;
}

int64_t pointeeBytes(Value ptr) {
  auto type = cast<kd::PointerType>(getElementTypeOrSelf(ptr.getType()));
  Type e = type.getPointeeType();
  return e.isIntOrFloat() ? std::max<unsigned>(1, e.getIntOrFloatBitWidth() / 8)
                          : 8;
}

bool raggedVector(const kd::AxisInfoAnalysis &info, Value ptr, Value mask,
                  int64_t bytes, bool uniform) {
  if (!isa<RankedTensorType>(ptr.getType()))
    return false;
  int64_t width =
      int64_t(llvm::bit_floor(uint64_t(info.vectorElements(ptr, bytes))));
  if (width < 2 || width * bytes < 4)
    return false;
  return uniform || info.get(mask).constancy < width;
}

} // namespace kite::detail
