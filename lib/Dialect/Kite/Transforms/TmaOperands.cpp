//===- TmaOperands.cpp - Which descriptor loads feed a dot through TMA ----===//

#include "TmaOperands.h"

#include "kite/Analysis/AxisInfo.h"
#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace kd = mlir::kite;

int64_t ::kite::detail::kernelWarps(func::FuncOp func, int64_t defaultWarps) {
  if (!func) // not in a kite-stage kernel (a gpu.func past the lowering)
    return defaultWarps;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          kd::KiteDialect::getNumWarpsAttrName()))
    return attr.getInt();
  return defaultWarps;
}

int64_t ::kite::detail::kernelStages(func::FuncOp func) {
  if (!func)
    return kd::kDotStages;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          kd::KiteDialect::getNumStagesAttrName()))
    return attr.getInt();
  return kd::kDotStages;
}

/// The attribute `name` on `loop` or the nearest scf.for around it.
static Attribute loopSetting(Operation *loop, StringRef name) {
  for (Operation *at = loop; isa_and_nonnull<scf::ForOp>(at);
       at = at->getParentOp())
    if (Attribute attr = at->getAttr(name))
      return attr;
  return {};
}

namespace kite::detail {
int64_t loopStages(Operation *loop, int64_t kernelStages) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(
          loopSetting(loop, kd::KiteDialect::getNumStagesAttrName())))
    return attr.getInt();
  return kernelStages;
}

std::optional<bool> loopWarpSpecialize(Operation *loop) {
  if (auto attr = dyn_cast_or_null<BoolAttr>(
          loopSetting(loop, kd::KiteDialect::getWarpSpecializeAttrName())))
    return attr.getValue();
  return std::nullopt;
}
bool loopPingPong(Operation *loop) {
  auto attr = dyn_cast_or_null<BoolAttr>(
      loopSetting(loop, kd::KiteDialect::getPingPongAttrName()));
  return attr && attr.getValue();
}

bool isLaunchValue(Value v, func::FuncOp func) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &func.getBody().front();
  return matchPattern(v, m_Constant());
}
} // namespace kite::detail

/// Whether `desc` can be a CUtensorMap (2-D, at most 256 rows a box, rows
/// of a multiple of 32 bytes), made outside `loop` (if any).
static bool tmaDescriptor(Value desc, scf::ForOp loop, func::FuncOp func,
                          const kd::AxisInfoAnalysis &axisInfo) {
  auto make = desc.getDefiningOp<kd::MakeTensorDescOp>();
  if (!make || (loop && loop->isAncestor(make)))
    return false;
  RankedTensorType block = make.getType().getBlockType();
  if (block.getRank() != 2 || block.getDimSize(0) > 256)
    return false;
  int64_t elemBytes = block.getElementTypeBitWidth() / 8;
  if (block.getDimSize(1) * elemBytes % 32)
    return false;
  if (!::kite::detail::isLaunchValue(make.getBase(), func))
    return false;
  for (Value v : llvm::concat<Value>(make.getShape(), make.getStrides()))
    if (!::kite::detail::isLaunchValue(v, func))
      return false;
  APInt inner;
  if (!matchPattern(make.getStrides()[1], m_ConstantInt(&inner)) ||
      inner != 1)
    return false;
  // TMA: a 16-byte-aligned base and row strides of multiples of 16 bytes.
  if (axisInfo.get(make.getBase()).divisibility % 16)
    return false;
  int64_t strideDiv = axisInfo.get(make.getStrides()[0]).divisibility;
  return strideDiv * elemBytes % 16 == 0;
}

namespace kite::detail {
kd::TransOp transposedOperand(kd::DotOp dot, Value operand) {
  auto trans = operand.getDefiningOp<kd::TransOp>();
  if (!trans || trans->getBlock() != dot->getBlock() || !trans->hasOneUse() ||
      trans.getOrder() != ArrayRef<int32_t>{1, 0})
    return {};
  return trans;
}

kd::TransOp transposedB(kd::DotOp dot) {
  return transposedOperand(dot, dot.getB());
}

kd::TransOp transposedA(kd::DotOp dot) {
  Type element = dot.getA().getType().getElementType();
  if (!element.isF16() && !element.isBF16())
    return {}; // wgmma transposes f16/bf16 only
  return transposedOperand(dot, dot.getA());
}

std::optional<std::array<kd::DescriptorLoadOp, 2>>
tmaOperands(kd::DotOp dot, StringRef chip, int64_t warps,
                          int64_t stages) {
  if (chip != "sm_90a" || stages < 2)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  if (!loop || dot->getBlock() != loop.getBody())
    return std::nullopt;
  // The barriers are initialized once, before the loop, or before the
  // loop around it (a persistent kernel's tile loop, which then carries the
  // slots and phases from tile to tile); deeper nests keep cp.async.
  auto func = dot->getParentOfType<func::FuncOp>();
  Block *entry = &func.getBody().front();
  if (loop->getBlock() != entry &&
      !(isa<scf::ForOp>(loop->getParentOp()) &&
        loop->getParentOp()->getBlock() == entry))
    return std::nullopt;
  int dots = 0;
  for (Operation &op : *loop.getBody())
    dots += isa<kd::DotOp>(op);
  if (dots != 1)
    return std::nullopt;
  std::array<kd::DescriptorLoadOp, 2> loads = {
      dot.getA().getDefiningOp<kd::DescriptorLoadOp>(),
      (transposedB(dot) ? transposedB(dot).getSrc() : dot.getB())
          .getDefiningOp<kd::DescriptorLoadOp>()};
  for (kd::DescriptorLoadOp load : loads)
    if (!load || load->getBlock() != loop.getBody() || !load->hasOneUse())
      return std::nullopt;
  if (loads[0] == loads[1])
    return std::nullopt;
  RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
  Type element = aType.getElementType();
  // fp8: wgmma reads it K-major only, so its B must come transposed.
  bool fp8 = mlir::kite::isFp8(element);
  if (!(element.isF16() || element.isBF16() || (fp8 && transposedB(dot))) ||
      bType.getElementType() != element ||
      aType.getDimSize(1) % (fp8 ? 32 : 16))
    return std::nullopt;
  if (!kd::WgmmaTile::choose(aType.getDimSize(0), bType.getDimSize(1), warps))
    return std::nullopt;
  kd::AxisInfoAnalysis axisInfo(func);
  for (kd::DescriptorLoadOp load : loads)
    if (!tmaDescriptor(load.getDesc(), loop, func, axisInfo))
      return std::nullopt;
  return loads;
}
} // namespace kite::detail

namespace kite::detail {
std::optional<kd::WgmmaTile> registerDotTile(kd::DotOp dot, int64_t warps) {
  RankedTensorType aType = dot.getA().getType();
  Type element = aType.getElementType();
  int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
          N = dot.getType().getDimSize(1);
  if (!(element.isF16() || element.isBF16()) ||
      dot.getB().getType().getElementType() != element || K % 16 || N % 16)
    return std::nullopt;
  return kd::WgmmaTile::choose(M, N, warps);
}

bool readOnlyAsB(Operation *load, ArrayRef<kd::DotOp> dots) {
  auto asB = [&](Operation *user, Value b) {
    auto dot = dyn_cast<kd::DotOp>(user);
    return dot && dot.getB() == b && llvm::is_contained(dots, dot);
  };
  for (Operation *user : load->getUsers()) {
    if (asB(user, load->getResult(0)))
      continue;
    auto trans = dyn_cast<kd::TransOp>(user);
    if (!trans || !trans->hasOneUse() ||
        !asB(*trans->user_begin(), trans.getResult()) ||
        transposedB(cast<kd::DotOp>(*trans->user_begin())) != trans)
      return false;
  }
  return true;
}

SmallVector<kd::DescriptorLoadOp> tmaRegisterDotLoads(scf::ForOp loop,
                                                      StringRef chip,
                                                      int64_t warps,
                                                      int64_t stages) {
  SmallVector<kd::DescriptorLoadOp> none, loads;
  if (chip != "sm_90a" || stages < 2)
    return none;
  auto func = loop->getParentOfType<func::FuncOp>();
  if (!func)
    return none;
  // A loop of the kernel's entry, or of a tile loop there (a persistent
  // kernel's).
  Block *entry = &func.getBody().front();
  auto tile = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (loop->getBlock() != entry && (!tile || tile->getBlock() != entry))
    return none;
  APInt step;
  if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
      !step.isStrictlyPositive())
    return none;
  Block *body = loop.getBody();
  SmallVector<kd::DotOp> dots;
  for (Operation &op : *body)
    if (auto dot = dyn_cast<kd::DotOp>(op))
      dots.push_back(dot);
  if (dots.empty())
    return none;
  kd::AxisInfoAnalysis axisInfo(func);
  for (kd::DotOp dot : dots) {
    if (!registerDotTile(dot, warps))
      return none;
    if (Operation *aDef = dot.getA().getDefiningOp();
        aDef && aDef->getBlock() == body &&
        isa<kd::LoadOp, kd::DescriptorLoadOp>(aDef))
      return none; // a K loop's A: the two-operand schedules'
    kd::TransOp trans = transposedB(dot);
    auto load = (trans ? trans.getSrc() : dot.getB())
                    .getDefiningOp<kd::DescriptorLoadOp>();
    if (!load || load->getBlock() != body ||
        !tmaDescriptor(load.getDesc(), loop, func, axisInfo))
      return none;
    if (!readOnlyAsB(load, dots))
      return none;
    if (!llvm::is_contained(loads, load))
      loads.push_back(load);
  }
  return loads;
}

bool tmaStore(kd::DescriptorStoreOp store, StringRef chip) {
  if (chip != "sm_90a" || store.getOffsets().size() != 2)
    return false;
  RankedTensorType block = store.getValue().getType();
  Type element = block.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return false;
  auto func = store->getParentOfType<func::FuncOp>();
  kd::AxisInfoAnalysis axisInfo(func);
  return tmaDescriptor(store.getDesc(), /*loop=*/{}, func, axisInfo);
}

Value appendTensorMap(func::FuncOp func, kd::MakeTensorDescOp make,
                      int64_t swizzle) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  // A parameter's index, or -(c + 1) for a constant c.
  auto encode = [&](Value v) -> int64_t {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getArgNumber();
    APInt c;
    (void)matchPattern(v, m_ConstantInt(&c));
    return -c.getSExtValue() - 1;
  };
  SmallVector<int64_t> shape, strides;
  for (Value v : make.getShape())
    shape.push_back(encode(v));
  for (Value v : make.getStrides())
    strides.push_back(encode(v));
  RankedTensorType block = make.getType().getBlockType();
  int64_t elemBytes = block.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> box = {block.getDimSize(0), swizzle / elemBytes};
  NamedAttrList attrs;
  attrs.set("base", b.getI64IntegerAttr(encode(make.getBase())));
  attrs.set("shape", b.getDenseI64ArrayAttr(shape));
  attrs.set("strides", b.getDenseI64ArrayAttr(strides));
  attrs.set("box", b.getDenseI64ArrayAttr(box));
  attrs.set("swizzle", b.getI64IntegerAttr(swizzle));
  if (make->hasAttr(kd::KiteDialect::getRaisedAttrName()))
    attrs.set("raised", b.getUnitAttr());
  unsigned index = func.getNumArguments();
  (void)func.insertArgument(
      index, make.getType(),
      b.getDictionaryAttr({b.getNamedAttr(
          kd::KiteDialect::getTensorMapAttrName(), attrs.getDictionary(ctx))}),
      make.getLoc());
  return func.getArgument(index);
}
} // namespace kite::detail
