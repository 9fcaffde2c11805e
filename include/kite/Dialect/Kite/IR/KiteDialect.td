//===- KiteDialect.td - Kite dialect definition ------------*- tablegen -*-===//
//
// The `kite` dialect: block-level GPU kernels in the style of Triton. A kernel
// is one *program* of a grid; its values are scalars or *blocks* (statically
// shaped ranked tensors) of scalars or of global pointers.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITEDIALECT_TD
#define KITE_DIALECT_KITE_IR_KITEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kite_Dialect : Dialect {
  let name = "kite";
  let cppNamespace = "::mlir::kite";
  let summary = "Block-level GPU kernels in the style of Triton";
  let description = [{
    A Kite kernel is a `func.func` marked `kite.kernel`. It runs as one program
    of a 1-3-D grid; `kite.program_id` tells which. Values are scalars or
    blocks: statically shaped `tensor`s of integers, floats or `!kite.ptr`s.
    Elementwise arithmetic on blocks uses the `arith` and `math` dialects on
    tensors; `where` is `arith.select` with a block condition.

    Kernel attributes:
    - on the function: `kite.kernel` (unit), `kite.num_warps` (i32, a power
      of two in 1..32; warps per program);
    - on arguments: `kite.constexpr` (unit; a compile-time constant scalar
      that must be bound before lowering) and `kite.divisibility` (i32, a
      power of two: the argument, pointer or integer, is divisible by it).
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// Unit attribute marking a `func.func` as a Kite kernel.
    static constexpr ::llvm::StringLiteral getKernelAttrName() { return "kite.kernel"; }
    /// i32 attribute: warps (of 32 threads) per program.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() { return "kite.num_warps"; }
    static constexpr ::llvm::StringLiteral getNumStagesAttrName() { return "kite.num_stages"; }
    static constexpr ::llvm::StringLiteral getMaxRegistersAttrName() { return "kite.maxnreg"; }
    /// array<i32: x, y, z> on a kernel (`@kernel(cluster_dims=...)`): its
    /// programs run in clusters of x * y * z (sm_90+), programs
    /// (cx * x + i, cy * y + j, cz * z + k) forming cluster (cx, cy, cz).
    static constexpr ::llvm::StringLiteral getClusterDimsAttrName() { return "kite.cluster_dims"; }
    /// Bool attribute on an `scf.for` (`range(..., warp_specialize=X)`):
    /// whether its dot's copies (or, on a tile loop, those of the K loop
    /// inside) go to a producer warp; overrides the warp-specialize option.
    static constexpr ::llvm::StringLiteral getWarpSpecializeAttrName() { return "kite.warp_specialize"; }
    /// Bool attribute on a tile loop's `scf.for` (`range(..., ping_pong=X)`):
    /// with a producer warp, two consumer groups of num_warps warps take
    /// turns, each computing every other tile (its products while the other
    /// group runs its epilogue).
    static constexpr ::llvm::StringLiteral getPingPongAttrName() { return "kite.ping_pong"; }
    /// i32 on a kernel (set by kite-stage-dot-operands): consumer groups of
    /// num_warps warps each, beside the producer warp (1 when absent).
    static constexpr ::llvm::StringLiteral getConsumerGroupsAttrName() { return "kite.consumer_groups"; }
    /// array<i64: rows, cols> on a kernel: the register tile of each thread
    /// in its dots' results (a tuning knob; default chosen by the lowering).
    static constexpr ::llvm::StringLiteral getDotTileAttrName() { return "kite.dot_tile"; }
    /// Unit argument attribute: a compile-time constant parameter.
    static constexpr ::llvm::StringLiteral getConstexprAttrName() { return "kite.constexpr"; }
    /// i32 argument attribute: the argument is divisible by this power of two.
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() { return "kite.divisibility"; }
    /// Source name of a kernel parameter (string), for diagnostics and for
    /// binding constexpr values by name.
    static constexpr ::llvm::StringLiteral getArgNameAttrName() { return "kite.name"; }
    /// i32 on an scf.for: unroll it this many times (Triton's
    /// range(..., loop_unroll_factor=N); kite-unroll-loops).
    static constexpr ::llvm::StringLiteral getLoopUnrollFactorAttrName() { return "kite.loop_unroll_factor"; }
    /// On a kernel argument: the scalar (or the pointee) is an unsigned
    /// integer in the source (u32, *u8, ...); the IR is signless.
    static constexpr ::llvm::StringLiteral getArgUnsignedAttrName() { return "kite.unsigned"; }
    /// array<i64> on a kernel argument: a tensor descriptor the host makes
    /// (kite::TensorDescriptor), with this block shape: the argument is its
    /// base pointer, the next rank i32 arguments its sizes and the rank
    /// after those its strides (in elements).
    static constexpr ::llvm::StringLiteral getArgDescriptorAttrName() { return "kite.descriptor"; }
    static constexpr ::llvm::StringLiteral getDynamicSharedMemoryAttrName() { return "kite.dynamic_shared_memory"; }
    /// Set by the GPU lowering on the module: kernel name -> bytes of shared
    /// memory a program uses (static or dynamic), what `--resources` and
    /// the compile metadata report.
    static constexpr ::llvm::StringLiteral getSharedMemoryAttrName() { return "kite.shared_memory"; }
    /// Argument attribute of a !kite.tensordesc kernel parameter that the
    /// runtime encodes as a CUtensorMap (made by kite-stage-dot-operands):
    /// {base, shape, strides, box, swizzle}; base, shape and strides give a
    /// parameter's index, or -(c + 1) for a constant c.
    static constexpr ::llvm::StringLiteral getTensorMapAttrName() { return "kite.tensor_map"; }
    /// On a kite.make_tensor_descriptor that kite-raise-to-descriptors made
    /// from pointer loads (not the user's): its tensor map may clamp an
    /// empty shape to 1, as no access reads it then (docs/lowering.md).
    static constexpr ::llvm::StringLiteral getRaisedAttrName() { return "kite.raised"; }
    /// On the module after lowering: kernel name -> array of the tensor-map
    /// lines the PTX carries ("// kite.tensor_map ...", docs/lowering.md).
    static constexpr ::llvm::StringLiteral getTensorMapsAttrName() { return "kite.tensor_maps"; }
    static constexpr ::llvm::StringLiteral getOccupancyRegistersAttrName() { return "kite.occupancy_registers"; }
    /// On a kernel: its autotuning configurations, an array of dictionaries
    /// (constexpr name -> integer or float; `num_warps`, `num_stages` ->
    /// i32); the runtime compiles and times each.
    static constexpr ::llvm::StringLiteral getAutotuneAttrName() { return "kite.autotune"; }
    /// On a kernel: the runtime parameters (names) whose values select a
    /// tuning result.
    static constexpr ::llvm::StringLiteral getAutotuneKeyAttrName() { return "kite.autotune_key"; }
  }];
}

class Kite_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kite_Dialect, mnemonic, traits>;

#endif // KITE_DIALECT_KITE_IR_KITEDIALECT_TD
