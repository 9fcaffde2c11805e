//===- KiteScheduleOps.cpp - Staging, TMA and descriptor ops: verifiers ---===//
//
// The ops the schedules make (async_stage, async_copy, staged_load,
// dot_staged, stage_operand, the TMA ring) and the tensor-descriptor ops
// (KiteScheduleOps.td and the descriptor part of KiteMemoryOps.td; split
// from KiteOps.cpp along this seam).
//
//===----------------------------------------------------------------------===//

#include "KiteOpsUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

//===----------------------------------------------------------------------===//
// async_stage
//===----------------------------------------------------------------------===//

/// The checks the ops that stage a dot operand share: `shape` is a dot's
/// [M, N, K] and `operand` 0 (A) or 1 (B).
static LogicalResult verifyDotOperandOf(Operation *op, ArrayRef<int64_t> shape,
                                        int64_t operand) {
  if (shape.size() != 3)
    return op->emitOpError() << "dot shape must be [M, N, K]";
  if (operand != 0 && operand != 1)
    return op->emitOpError()
           << "operand must be 0 (A) or 1 (B), got " << operand;
  return success();
}

/// `block` has the shape of operand `operand` of a dot of `shape` (A: M x
/// K; B: K x N, or N x K `transposed`).
static LogicalResult verifyDotOperandShape(Operation *op,
                                           RankedTensorType block,
                                           ArrayRef<int64_t> shape,
                                           int64_t operand, bool transposed) {
  SmallVector<int64_t> expected =
      operand == 0 ? (transposed ? SmallVector<int64_t>{shape[2], shape[0]}
                                 : SmallVector<int64_t>{shape[0], shape[2]})
      : transposed ? SmallVector<int64_t>{shape[1], shape[2]}
                   : SmallVector<int64_t>{shape[2], shape[1]};
  if (block.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError() << "block shape " << shapeString(block)
                             << " is not the dot's operand " << operand
                             << (transposed ? " shape (transposed)" : " shape");
  return success();
}

LogicalResult AsyncStageOp::verify() {
  ArrayRef<int64_t> shape = getDotShape();
  int64_t operand = getOperand();
  if (failed(verifyDotOperandOf(*this, shape, operand)))
    return failure();
  auto type = getPtr().getType();
  auto pointee = cast<PointerType>(type.getElementType()).getPointeeType();
  if (getEngine() == DotEngine::FMA && !pointee.isF32())
    return emitOpError() << "stages f32 blocks only for the fma engine, got "
                         << pointee;
  if (getEngine() == DotEngine::MMA && !pointee.isF16() &&
      !pointee.isBF16() && !pointee.isF32())
    return emitOpError() << "stages f16, bf16 or f32 blocks only for the mma "
                            "engine, got "
                         << pointee;
  if (getEngine() == DotEngine::WGMMA && !pointee.isF16() &&
      !pointee.isBF16() && !pointee.isF32() &&
      !mlir::kite::isFp8(pointee))
    return emitOpError() << "stages fp8, f16, bf16 or f32 blocks only for the "
                            "wgmma engine, got "
                         << pointee;
  if (getTransposed() && getEngine() == DotEngine::FMA)
    return emitOpError() << "stages a transposed block only for the wgmma "
                            "and mma engines";
  if (getTransposed() && getEngine() == DotEngine::MMA && !pointee.isF16() &&
      !pointee.isBF16())
    return emitOpError() << "stages a transposed block for the mma engine "
                            "only of f16 or bf16 (ldmatrix), got "
                         << pointee;
  if (getTransposed() && operand == 0 && !pointee.isF16() && !pointee.isBF16())
    return emitOpError() << "stages a transposed A (M-major) only of f16 or "
                            "bf16 (wgmma transposes those only), got "
                         << pointee;
  if (std::optional<ArrayRef<int64_t>> place = getBPlace()) {
    if (operand != 1 || getEngine() != DotEngine::WGMMA)
      return emitOpError() << "places a block with b_place only as B of the "
                              "wgmma engine";
    if (place->size() != 2 || (*place)[0] < 0 || (*place)[1] <= (*place)[0])
      return emitOpError() << "b_place must be [offset, slot bytes] with the "
                              "offset inside the slot";
  }
  if (failed(
          verifyDotOperandShape(*this, type, shape, operand, getTransposed())))
    return failure();
  if (!sameShape(getMask().getType(), type))
    return emitOpError() << "mask shape " << shapeString(getMask().getType())
                         << " does not match pointer shape "
                         << shapeString(type);
  return success();
}

/// The checks kite.async_copy and kite.staged_load share: a block of
/// `element` fits at `place` ([offset, slot bytes], the offset 16-byte
/// aligned) of a ring of `slots`.
static LogicalResult verifyRingPlace(Operation *op, RankedTensorType block,
                                     Type element, ArrayRef<int64_t> place,
                                     int64_t slots) {
  if (!element.isIntOrFloat() || element.isInteger(1))
    return op->emitOpError() << "stages blocks of numbers (not i1 or "
                                "pointers), got "
                             << element;
  if (place.size() != 2 || place[0] < 0 || place[0] % 16 || place[1] <= 0)
    return op->emitOpError() << "place must be [offset, slot bytes] with a "
                                "16-byte aligned offset";
  int64_t bytes =
      block.getNumElements() * std::max(1u, element.getIntOrFloatBitWidth() / 8);
  if (place[0] + bytes > place[1])
    return op->emitOpError()
           << "block of " << bytes << " bytes at offset " << place[0]
           << " does not fit a slot of " << place[1] << " bytes";
  if (slots < 1)
    return op->emitOpError() << "needs at least one slot, got " << slots;
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  RankedTensorType type = getPtr().getType();
  if (!sameShape(getMask().getType(), type))
    return emitOpError() << "mask shape " << shapeString(getMask().getType())
                         << " does not match pointer shape "
                         << shapeString(type);
  return verifyRingPlace(
      *this, type,
      cast<PointerType>(type.getElementType()).getPointeeType(), getPlace(),
      int64_t(getSlots()));
}

LogicalResult StagedLoadOp::verify() {
  RankedTensorType type = getType();
  return verifyRingPlace(*this, type, type.getElementType(), getPlace(),
                         int64_t(getSlots()));
}

LogicalResult DotStagedOp::verify() {
  std::optional<Type> operand = getOperandType();
  if (getEngine() == DotEngine::WGMMA) {
    bool fp8 = operand && mlir::kite::isFp8(*operand);
    if (!operand ||
        !(operand->isF16() || operand->isBF16() || operand->isF32() || fp8))
      return emitOpError() << "with engine = wgmma needs operand_type f16, "
                              "bf16, f32 (tf32) or fp8";
    int64_t step = operand->isF32() ? 8 : fp8 ? 32 : 16;
    if (getK() % step)
      return emitOpError() << "with engine = wgmma needs k a multiple of "
                           << step << ", got " << getK();
    if ((operand->isF32() || fp8) && !getBKMajor())
      return emitOpError() << "with engine = wgmma and " << *operand
                           << " operands needs b_k_major (wgmma transposes "
                              "f16 and bf16 only)";
    if (getAMMajor() && !(operand->isF16() || operand->isBF16()))
      return emitOpError() << "a_m_major needs f16 or bf16 operands (wgmma "
                              "transposes those only)";
    if (getAMMajor() && getA())
      return emitOpError() << "a_m_major describes a staged A, not one read "
                              "from registers";
  } else if ((getBKMajor() || getAMMajor()) &&
             (getEngine() != DotEngine::MMA || !operand ||
              !(operand->isF16() || operand->isBF16()))) {
    return emitOpError() << "b_k_major and a_m_major need engine = wgmma, or "
                            "engine = mma with f16 or bf16 operands";
  } else if (getEngine() == DotEngine::MMA) {
    if (!operand || !(operand->isF16() || operand->isBF16() ||
                      operand->isF32()))
      return emitOpError() << "with engine = mma needs operand_type f16, "
                              "bf16 or f32 (tf32)";
    int64_t step = operand->isF32() ? 8 : 16;
    if (getK() % step)
      return emitOpError() << "with engine = mma needs k a multiple of "
                           << step << ", got " << getK();
  } else if (operand && !operand->isF32()) {
    return emitOpError() << "with engine = fma stages f32 operands, got "
                         << *operand;
  }
  if (getStages() < 1)
    return emitOpError() << "needs at least one slot, got " << getStages();
  if (std::optional<ArrayRef<int64_t>> place = getBPlace()) {
    if (getBSlot()) {
      if (place->size() != 2 || (*place)[0] < 0 || (*place)[1] <= 0 ||
          (*place)[0] % 1024 || (*place)[1] % 1024)
        return emitOpError() << "b_place must be [ring start, slot bytes], "
                                "both 1024-byte aligned, with b_slot";
    } else if (place->size() != 2 || (*place)[0] < 0 ||
               (*place)[1] <= (*place)[0]) {
      return emitOpError() << "b_place must be [offset, slot bytes] with the "
                              "offset inside the slot";
    }
  }
  if (getBSlot() && (!getBPlace() || !(getAPlace() || getA())))
    return emitOpError() << "reads B from a ring of its own (b_slot) only "
                            "with b_place and A at a_place or in registers";
  if (Value a = getA()) {
    auto aType = cast<RankedTensorType>(a.getType());
    if (getEngine() != DotEngine::WGMMA || !getBPlace())
      return emitOpError() << "reads A from registers only with engine = "
                              "wgmma and b_place";
    if (aType.getRank() != 2 || aType.getDimSize(0) != getType().getDimSize(0) ||
        aType.getDimSize(1) != int64_t(getK()) ||
        aType.getElementType() != *getOperandType())
      return emitOpError() << "needs A of " << getType().getDimSize(0) << "x"
                           << getK() << "x" << *getOperandType() << ", got "
                           << aType;
  } else if (std::optional<ArrayRef<int64_t>> aPlace = getAPlace()) {
    std::optional<ArrayRef<int64_t>> bPlace = getBPlace();
    if (getEngine() != DotEngine::WGMMA || !bPlace)
      return emitOpError() << "places A with a_place only with engine = "
                              "wgmma and b_place";
    if (aPlace->size() != 2 || (*aPlace)[0] < 0 || (*aPlace)[1] <= 0 ||
        (!getBSlot() &&
         ((*aPlace)[0] >= (*aPlace)[1] || (*aPlace)[1] != (*bPlace)[1])) ||
        (*aPlace)[0] % 1024 || (*aPlace)[1] % 1024)
      return emitOpError() << "a_place must be [offset, slot bytes] (inside "
                              "the slot, of b_place's slot bytes, without "
                              "b_slot), both 1024-byte aligned";
  } else if (getBPlace()) {
    return emitOpError() << "with b_place needs A in registers (a) or at "
                            "a_place";
  }
  if (getA() && getAPlace())
    return emitOpError() << "reads A from registers (a) or at a_place, not "
                            "both";
  return success();
}

int64_t StageOperandOp::getElementBytes() {
  return getValue().getType().getElementTypeBitWidth() / 8;
}

int64_t StageOperandOp::getBlockBytes() {
  return llvm::alignTo(getValue().getType().getNumElements() *
                           getElementBytes(),
                       1024);
}

bool StageOperandOp::isKMajor() {
  return getOperand() == 0 || getElementBytes() != 2;
}

LogicalResult StageOperandOp::verify() {
  ArrayRef<int64_t> shape = getDotShape();
  int64_t operand = getOperand();
  if (failed(verifyDotOperandOf(*this, shape, operand)))
    return failure();
  RankedTensorType type = getValue().getType();
  if (failed(verifyDotOperandShape(*this, type, shape, operand,
                                   getTransposed())))
    return failure();
  ArrayRef<int64_t> place = getPlace();
  if (place.size() != 2 || place[0] < 0 || place[0] % 1024 || place[1] % 1024)
    return emitOpError() << "place must be [offset, slot bytes], both "
                            "1024-byte aligned (the swizzle's atoms)";
  int64_t bytes = getBlockBytes();
  if (bytes > place[1] || (place[0] < place[1] && place[0] + bytes > place[1]))
    return emitOpError() << "block of " << bytes << " bytes at offset "
                         << place[0] << " does not fit a slot of " << place[1]
                         << " bytes";
  if (getSlots() < 1)
    return emitOpError() << "needs at least one slot, got " << getSlots();
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

LogicalResult MakeTensorDescOp::verify() {
  RankedTensorType block = getType().getBlockType();
  size_t rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError() << "takes one shape and one stride a dimension of "
                         << shapeString(block) << ", got "
                         << getShape().size() << " and "
                         << getStrides().size();
  if (getBase().getType().getPointeeType() != block.getElementType())
    return emitOpError() << "base points to "
                         << getBase().getType().getPointeeType()
                         << ", the blocks hold " << block.getElementType();
  return success();
}

/// A descriptor access: one offset a dimension of the block.
static LogicalResult verifyDescriptorOffsets(Operation *op,
                                             RankedTensorType block,
                                             size_t offsets) {
  if (offsets != size_t(block.getRank()))
    return op->emitOpError() << "takes " << block.getRank()
                             << " offsets, got " << offsets;
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  RankedTensorType block = getDesc().getType().getBlockType();
  if (failed(verifyDescriptorOffsets(*this, block, getOffsets().size())))
    return failure();
  if (getType() != block)
    return emitOpError() << "result " << getType()
                         << " is not the descriptor's block " << block;
  return success();
}

LogicalResult DescriptorStoreOp::verify() {
  RankedTensorType block = getDesc().getType().getBlockType();
  if (failed(verifyDescriptorOffsets(*this, block, getOffsets().size())))
    return failure();
  if (getValue().getType() != block)
    return emitOpError() << "value " << getValue().getType()
                         << " is not the descriptor's block " << block;
  return success();
}

LogicalResult TmaStoreOp::verify() {
  RankedTensorType block = getDesc().getType().getBlockType();
  if (block.getRank() != 2 || getOffsets().size() != 2)
    return emitOpError() << "stores 2-D blocks at two offsets";
  if (getValue().getType() != block)
    return emitOpError() << "value " << getValue().getType()
                         << " is not the descriptor's block " << block;
  Type element = block.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return emitOpError() << "stores f16, bf16 or f32 blocks, got " << element;
  int64_t rowBytes = block.getDimSize(1) * element.getIntOrFloatBitWidth() / 8;
  if (block.getDimSize(0) > 256 || rowBytes % 32)
    return emitOpError() << "needs at most 256 rows of a multiple of 32 "
                            "bytes, got "
                         << block.getDimSize(0) << " rows of " << rowBytes;
  return success();
}

LogicalResult TmaInitOp::verify() {
  if (getSlots() < 1 || getSlots() > 16)
    return emitOpError() << "takes 1 to 16 slots, got " << getSlots();
  if (getArrivals() < 1)
    return emitOpError() << "needs a positive arrival count";
  return success();
}

LogicalResult SetMaxRegistersOp::verify() {
  int64_t count = getCount();
  if (count < 24 || count > 256 || count % 8)
    return emitOpError() << "takes a register count from 24 to 256, a "
                            "multiple of 8, got "
                         << count;
  return success();
}

LogicalResult TmaStageOp::verify() {
  ArrayRef<int64_t> shape = getDotShape();
  int64_t operand = getOperand();
  if (failed(verifyDotOperandOf(*this, shape, operand)))
    return failure();
  RankedTensorType block = getDesc().getType().getBlockType();
  Type element = block.getElementType();
  if (!element.isF16() && !element.isBF16() &&
      !mlir::kite::isFp8(element))
    return emitOpError() << "stages fp8, f16 or bf16 blocks, got " << element;
  if (getTransposed() && operand != 1)
    return emitOpError() << "stages a transposed block only as B";
  if (failed(
          verifyDotOperandShape(*this, block, shape, operand, getTransposed())))
    return failure();
  if (getOffsets().size() != 2)
    return emitOpError() << "takes 2 offsets, got " << getOffsets().size();
  if (block.getDimSize(1) * block.getElementTypeBitWidth() / 8 % 32 ||
      block.getDimSize(0) > 256)
    return emitOpError() << "blocks of at most 256 rows of 32-byte multiples";
  if (std::optional<ArrayRef<int64_t>> place = getBPlace()) {
    if (operand != 1)
      return emitOpError() << "places a block with b_place only as B";
    if (place->size() != 2 || (*place)[0] < 0 || (*place)[1] <= (*place)[0])
      return emitOpError() << "b_place must be [offset, slot bytes] with the "
                              "offset inside the slot";
  }
  return success();
}
