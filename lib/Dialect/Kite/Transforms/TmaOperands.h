//===- TmaOperands.h - Which descriptor loads feed a dot through TMA -*- C++ -*-===//
//
// The one place that decides whether a K loop's dot reads its operands with
// TMA (sm_90a): kite-lower-descriptors keeps those descriptor loads for
// kite-stage-dot-operands, which stages them (kite.tma_stage).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_PIPELINE_TMAOPERANDS_H
#define KITE_LIB_PIPELINE_TMAOPERANDS_H

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>
#include <optional>

namespace kite::detail {

/// Whether `v` is a parameter of the kernel or a constant: what the runtime
/// can evaluate at launch (a tensor map's base, shape and strides), and
/// what can be used at the kernel's entry.
bool isLaunchValue(mlir::Value v, mlir::func::FuncOp func);

/// The kite.trans [1, 0] through which `dot` reads `operand` (its A or B),
/// in the dot's block and read by the dot alone.
mlir::kite::TransOp transposedOperand(mlir::kite::DotOp dot,
                                      mlir::Value operand);

/// The kite.trans [1, 0] through which `dot` reads its B, when B is loaded
/// as its N x K transpose (Triton's `dot(a, b.T)`) in the dot's block and
/// read by the dot alone: such a B is staged K-major, row for row.
mlir::kite::TransOp transposedB(mlir::kite::DotOp dot);

/// The kite.trans [1, 0] through which `dot` reads its A, when A is f16 or
/// bf16 loaded as its K x M transpose (`dot(trans(a), b)`, or a load whose
/// memory runs along M: OrientOperandLoads.cpp) in the dot's block and read
/// by the dot alone: such an A is staged M-major, row for row (wgmma
/// transposes f16/bf16 operands only).
mlir::kite::TransOp transposedA(mlir::kite::DotOp dot);

/// The two descriptor loads (A, B) of `dot` when the dot runs on wgmma with
/// TMA-staged operands: `chip` is sm_90a; the dot is the only one of an
/// scf.for body (a loop of the kernel's entry block, not nested) and reads
/// two distinct descriptor loads of that body, used only by it (B's
/// possibly through transposedB); f16/bf16
/// operands, K % 16 = 0, a wgmma tile on `warps` warps;
/// each descriptor is 2-D, made outside the loop from kernel parameters or
/// constants (so the runtime can encode it as a CUtensorMap), with a
/// constant unit inner stride, a 16-byte-aligned base and a row stride of a
/// multiple of 16 bytes (known from the launch's specialization), rows of
/// at least 32 bytes and at most 256 rows in a block.
std::optional<std::array<mlir::kite::DescriptorLoadOp, 2>>
tmaOperands(mlir::kite::DotOp dot, llvm::StringRef chip, int64_t warps,
            int64_t stages);

/// The wgmma tile of `dot` as a dot reading A from registers (attention's
/// products) takes it: f16/bf16 operands of one type, K and N multiples of
/// 16, a tile on `warps` warps; none otherwise.
std::optional<mlir::kite::WgmmaTile> registerDotTile(mlir::kite::DotOp dot,
                                                     int64_t warps);

/// Whether every user of `load` is one of `dots` reading it as B, or a
/// kite.trans that only such a dot reads as its transposedB.
bool readOnlyAsB(mlir::Operation *load, llvm::ArrayRef<mlir::kite::DotOp> dots);

/// The descriptor loads of `loop`'s Bs when TMA stages them for dots that
/// read A from registers (attention's q @ k^T and p @ v:
/// RegisterDotSchedule.cpp): `chip` is sm_90a, `stages` >= 2, the loop is
/// one of the kernel's entry block, or of a tile loop there (a persistent
/// kernel), with a constant positive step; every
/// dot of its body reads A made outside the loop or computed in it (no
/// load of the body) and B from a descriptor load of the body (possibly
/// through transposedB) that only the loop's dots read, f16/bf16 operands
/// of one type, K and N multiples of 16 and a wgmma tile on `warps` warps;
/// each descriptor can be a CUtensorMap as for tmaOperands. Empty
/// otherwise. (The staging checks the rest: the As' layouts, the ring's
/// shared memory; where it cannot, the loads become pointer blocks.)
llvm::SmallVector<mlir::kite::DescriptorLoadOp>
tmaRegisterDotLoads(mlir::scf::ForOp loop, llvm::StringRef chip, int64_t warps,
                    int64_t stages);

/// Whether `store` (a descriptor_store) can be a TMA store (kite.tma_store):
/// `chip` is sm_90a, f16, bf16 or f32 elements, and its descriptor can be a
/// CUtensorMap as for tmaOperands (made from kernel parameters or
/// constants, unit inner stride, 16-byte-aligned base and row stride, at
/// most 256 rows of a multiple of 32 bytes).
bool tmaStore(mlir::kite::DescriptorStoreOp store, llvm::StringRef chip);

/// Appends to `func` the parameter standing for `make` as a CUtensorMap the
/// runtime encodes at launch (its kite.tensor_map attribute says how from
/// the other parameters: docs/lowering.md), with boxes of the block's rows
/// by `swizzle` bytes in that swizzle mode.
mlir::Value appendTensorMap(mlir::func::FuncOp func,
                            mlir::kite::MakeTensorDescOp make,
                            int64_t swizzle);

/// `func`'s warps and stages (kite.num_warps / kite.num_stages, else the
/// defaults; the defaults for a null `func`: code outside the kite stage's
/// kernels, such as a gpu.func given to the pipeline again).
int64_t kernelWarps(mlir::func::FuncOp func, int64_t defaultWarps);
int64_t kernelStages(mlir::func::FuncOp func);

/// The stages of the dot in `loop` and whether its copies go to a producer
/// warp: range(..., num_stages=, warp_specialize=) on `loop`, else on a
/// loop around it (kite.num_stages, kite.warp_specialize), else
/// `kernelStages` / none.
int64_t loopStages(mlir::Operation *loop, int64_t kernelStages);
std::optional<bool> loopWarpSpecialize(mlir::Operation *loop);
/// Whether range(..., ping_pong=True) is on `loop` or a loop around it.
bool loopPingPong(mlir::Operation *loop);

} // namespace kite::detail

#endif // KITE_LIB_PIPELINE_TMAOPERANDS_H
