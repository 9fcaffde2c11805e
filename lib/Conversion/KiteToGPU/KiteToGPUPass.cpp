//===- KiteToGPUPass.cpp - The convert-kite-to-gpu pass -------------------===//
//
// Moves each kite kernel (func.func marked kite.kernel) into a gpu.module as
// a gpu.func kernel with the same parameters in the same order (pointers
// become !llvm.ptr<1>), then runs the dialect conversion that lowers its body
// to per-thread code with the pattern families of this directory. Any op the
// lowering cannot handle fails the pass with a diagnostic naming it.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Conversion/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::kite {
#define GEN_PASS_DEF_CONVERTKITETOGPU
#include "kite/Conversion/Passes.h.inc"
} // namespace mlir::kite

using namespace mlir;
using namespace mlir::kite;

/// Elements per thread-chunk: 16 bytes of the narrowest type the kernel
/// loads, stores or stages (so its accesses can be 16-byte vectors), at
/// least 1.
/// Static shared memory a kernel may use without opting in (48 KB).

int64_t mlir::kite::kernelVectorWidth(Operation *func) {
  int64_t minBytes = 4;
  func->walk([&](Operation *op) {
    if (!isa<LoadOp, StoreOp, AsyncStageOp, AsyncCopyOp>(op))
      return;
    Type ptr = getElementTypeOrSelf(op->getOperand(0).getType());
    Type pointee = cast<PointerType>(ptr).getPointeeType();
    minBytes = std::min<int64_t>(
        minBytes, std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8));
  });
  return 16 / minBytes;
}

namespace {
struct ConvertKiteToGPUPass
    : public mlir::kite::impl::ConvertKiteToGPUBase<ConvertKiteToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (isKernel(func))
        kernels.push_back(func);
    if (kernels.empty())
      return;
    if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1))) {
      module.emitError() << "convert-kite-to-gpu: num-warps must be a power "
                            "of two in [1, 32], got "
                         << numWarps;
      return signalPassFailure();
    }

    // Calls are not lowered: helpers must have been inlined.
    WalkResult calls = module.walk([](func::CallOp call) {
      call.emitOpError() << "calls '" << call.getCallee()
                         << "', but kernels cannot call functions on the GPU; "
                            "inline it first (-inline)";
      return WalkResult::interrupt();
    });
    if (calls.wasInterrupted())
      return signalPassFailure();

    OpBuilder builder(module.getContext());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), moduleName);

    for (func::FuncOp func : kernels)
      if (failed(lowerKernel(func, gpuModule)))
        return signalPassFailure();
  }

  /// A block that alone needs more registers a thread than a thread has
  /// (255 of 32 bits) spills to local memory, slowly: a warning at the op
  /// that makes the largest such block, with what would help.
  static void warnAboutRegisters(func::FuncOp func,
                                 const KiteTypeConverter &converter,
                                 int64_t warps) {
    constexpr int64_t kRegisters = 255;
    Operation *worst = nullptr;
    RankedTensorType worstType;
    int64_t worstRegs = kRegisters;
    func.walk([&](Operation *op) {
      // A splat (or a splat constant) is one scalar however large the
      // block: its copies fold away.
      if (isa<kite::SplatOp>(op) ||
          (op->hasTrait<OpTrait::ConstantLike>() &&
           llvm::any_of(op->getAttrs(), [](NamedAttribute a) {
             auto dense = dyn_cast<SplatElementsAttr>(a.getValue());
             return dense != nullptr;
           })))
        return;
      for (Value v : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type)
          continue;
        Type element = type.getElementType();
        // Pointer blocks as one register an element: their addresses are
        // formed where they are used from a base and 32-bit offsets.
        int64_t bits = isa<PointerType>(element)
                           ? 32
                           : std::max<int64_t>(
                                 32, element.getIntOrFloatBitWidth());
        int64_t regs = converter.getLayout(v).perThread * bits / 32;
        if (regs > worstRegs) {
          worstRegs = regs;
          worst = op;
          worstType = type;
        }
      }
    });
    if (!worst)
      return;
    std::string shape;
    llvm::raw_string_ostream os(shape);
    for (int64_t d : worstType.getShape())
      os << d << "x";
    os << worstType.getElementType();
    worst->emitWarning()
          << "this " << shape << " block needs about " << worstRegs
          << " registers a thread on " << warps
          << " warps, more than the 255 a thread has: it will spill to "
             "local memory (use more warps or smaller blocks)";
  }

  /// Whether `func` has a dot (on any engine, staged or from registers).
  static bool hasDot(func::FuncOp func) {
    return func
        .walk([](Operation *op) {
          return isa<DotOp, DotStagedOp>(op) ? WalkResult::interrupt()
                                             : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// A kernel on 256 threads or more whose shared memory lets two of its
  /// programs share an SM: the registers a thread that let them (65536 /
  /// (2 x threads), rounded down to ptxas' unit of 8) and the spills a
  /// thread that may buy it, recorded on the module
  /// (kite.occupancy_registers: [registers, spill bytes]) and in a comment
  /// line of the PTX. When ptxas gives the kernel more, one program fills
  /// an SM's register file and its barriers and waits stall the SM; the
  /// runtime then compiles it again under that limit and keeps the result
  /// if it spills no more than that (docs/runtime.md, "Occupancy"). A
  /// kernel with a dot may spill a few registers for it (its other program
  /// runs while the tensor cores work: attention at head dim 64 on 8 warps,
  /// 20-108 bytes, 1.1-1.25x); one without, none (as measured on the rows
  /// kernels).
  void recordOccupancyRegisters(func::FuncOp func, int64_t numThreads,
                                int64_t smemBytes) {
    if (numThreads < 256)
      return; // two programs of 128 threads or fewer always fit
    if (func->hasAttr(KiteDialect::getMaxRegistersAttrName()))
      return; // the kernel sets its own limit
    if (2 * (smemBytes + kReservedSharedMemoryPerProgram) > kSharedMemoryPerSM)
      return; // one program a SM anyway
    int64_t registers = 65536 / (2 * numThreads) / 8 * 8;
    int64_t spillBytes = hasDot(func) ? 128 : 0;
    setModuleEntry(
        KiteDialect::getOccupancyRegistersAttrName(), func.getSymName(),
        DenseI64ArrayAttr::get(&getContext(), {registers, spillBytes}));
  }

  /// Whether the kernel's producer is a warpgroup that gives its registers
  /// away (kite.set_max_registers), not one warp.
  static bool hasProducerWarpgroup(func::FuncOp func) {
    return func.walk([](SetMaxRegistersOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  }

  /// The register limit of a kernel whose K loop TMA stages (no producer
  /// warp, no limit of its own): 255 where as many of its programs as its
  /// shared memory allows on an SM can have 255 registers a thread each
  /// (65536 / (programs x threads) >= 255), else none.
  /// Without a limit ptxas gives such a kernel few registers (the loop has
  /// no copies to address: 90 for the perceptron's 64x128x64 tile) and then
  /// serializes an epilogue's loads and math into them (the perceptron's
  /// bias and sigmoid: 1.3x slower at 1024^3 than the same kernel under
  /// `.maxnreg 128`, which ptxas then uses; docs/lowering.md).
  static std::optional<int64_t> tmaRegisterLimit(func::FuncOp func,
                                                 int64_t numThreads,
                                                 int64_t smemBytes, bool tma,
                                                 int64_t producerThreads) {
    if (!tma || func->hasAttr(KiteDialect::getMaxRegistersAttrName()))
      return std::nullopt;
    int64_t programs = std::max<int64_t>(
        1, std::min(kSharedMemoryPerSM /
                        (smemBytes + kReservedSharedMemoryPerProgram),
                    2048 / numThreads));
    if (producerThreads) {
      // A producer warpgroup that gives its registers to the consumers
      // (kite.set_max_registers): the entry's count fixed, as setmaxnreg
      // needs, at what the program's threads can all have (168 for 384).
      if (producerThreads != 128)
        return std::nullopt;
      return 65536 / (numThreads + producerThreads) / 8 * 8;
    }
    // Only where it binds nothing: a lower limit could leave a wgmma tile
    // too few registers to compile (ptxas refused 128x128x32 on 8 warps,
    // which three programs could share an SM with, under 80).
    if (65536 / (programs * numThreads) < 255)
      return std::nullopt;
    return 255;
  }

  /// `key` -> `value` in the module's dictionary attribute `name` (what the
  /// lowering tells the runtime per kernel).
  void setModuleEntry(StringRef name, StringRef key, Attribute value) {
    ModuleOp module = getOperation();
    NamedAttrList entries;
    if (auto old = module->getAttrOfType<DictionaryAttr>(name))
      entries.append(old.getValue());
    entries.set(key, value);
    module->setAttr(name, entries.getDictionary(&getContext()));
  }

  /// Whether most of the block loads and stores of a kernel without a dot
  /// cannot use vectors of 4 bytes or more (rows of 781 f16 from an odd
  /// stride): coalesce-unaligned then gives its blocks
  /// consecutive lanes, so that each warp-wide scalar access touches one
  /// or two 32-byte sectors instead of 16 (16-byte chunks a thread).
  static bool mostlyUnaligned(func::FuncOp func,
                              const AxisInfoAnalysis &axisInfo) {
    if (hasDot(func))
      return false;
    int64_t scalar = 0, vector = 0;
    func.walk([&](Operation *op) {
      if (!isa<LoadOp, StoreOp>(op))
        return;
      Value ptrs = op->getOperand(0);
      auto block = dyn_cast<RankedTensorType>(ptrs.getType());
      if (!block)
        return;
      Type pointee = cast<PointerType>(block.getElementType()).getPointeeType();
      int64_t bytes = std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
      (axisInfo.vectorElements(ptrs, bytes) * bytes >= 4 ? vector : scalar) +=
          1;
    });
    return scalar > vector;
  }

  LogicalResult lowerKernel(func::FuncOp func, gpu::GPUModuleOp gpuModule) {
    MLIRContext *context = &getContext();
    int64_t warps = numWarps;
    if (auto attr = func->getAttrOfType<IntegerAttr>(
            KiteDialect::getNumWarpsAttrName()))
      warps = attr.getInt();
    int64_t numThreads = 32 * warps;
    // Layouts are per value (LayoutAssignment.cpp): first give each use of
    // a shared cheap block of a dot result's shape its own copy.
    separateLayoutLeaves(func);
    insertEpilogueConversions(func);
    AxisInfoAnalysis axisInfo(func);
    KiteTypeConverter converter(
        context, numThreads, func,
        coalesceUnaligned && mostlyUnaligned(func, axisInfo) ? 1 : 0);
    KiteLoweringState state{axisInfo, ieeeDivision};
    state.fpFusion = fpFusion;
    warnAboutRegisters(func, converter, warps);

    // Shared memory: one buffer per kernel, the scratch of the ops that
    // exchange data between threads then the dot staging slots. Beyond the
    // static limit it is dynamic: an external array whose size the launch
    // gives (recorded in the module's kite.dynamic_shared_memory).
    int64_t smemBytes = kernelSharedMemoryBytes(func, &converter);
    if (smemBytes > kMaxSharedMemory) {
      func.emitError() << "kernel '" << func.getSymName() << "' needs "
                       << smemBytes
                       << " bytes of shared memory (at most "
                       << kMaxSharedMemory << "); use smaller blocks";
      return failure();
    }
    state.stagingOffset = kernelStagingOffset(func, &converter);
    state.barrierOffset = kernelBarrierOffset(func, &converter);
    state.numThreads = numThreads;
    state.consumerGroups = kernelConsumerGroups(func);
    state.groupScratchBytes = kernelGroupScratchBytes(func, &converter);
    state.deferTmaStoreReads = defersTmaStoreReads(func, &converter);
    if (state.deferTmaStoreReads) {
      // The last TMA stores' reads of shared memory complete before the
      // program ends (its shared memory goes with it).
      func.walk([&](func::ReturnOp ret) {
        OpBuilder b(ret);
        NVVM::CpAsyncBulkWaitGroupOp::create(b, ret.getLoc(), 0,
                                             b.getUnitAttr());
      });
    }
    const int64_t consumerThreads = state.consumerGroups * numThreads;
    func.walk([&](TmaInitOp op) { state.barrierSlots = op.getSlots(); });
    // A warp-specialized K loop: one producer warp beyond the num_warps;
    // attention's producer: a warpgroup (it gives its registers away).
    bool producerWarp = false;
    func.walk([&](WarpIsProducerOp) { producerWarp = true; });
    const bool producerWarpgroup = hasProducerWarpgroup(func);
    const int64_t producerThreads =
        producerWarp ? (producerWarpgroup ? 128 : 32) : 0;
    bool tensorCores = kernelUsesTensorCores(func);
    // (Not for a producer warpgroup: its registers are set by setmaxnreg
    // for one program an SM.)
    if (occupancyHint && !producerWarpgroup)
      recordOccupancyRegisters(func, consumerThreads, smemBytes);
    std::optional<int64_t> tmaLimit =
        occupancyHint
            ? tmaRegisterLimit(func, consumerThreads, smemBytes,
                               /*tma=*/state.barrierSlots > 0, producerThreads)
            : std::nullopt;
    if (smemBytes > 0) {
      OpBuilder gb(context);
      gb.setInsertionPointToStart(gpuModule.getBody());
      state.sharedMemory = ("kite_smem_" + func.getSymName()).str();
      bool dynamic = smemBytes > kMaxStaticSharedMemory;
      auto arrayType = LLVM::LLVMArrayType::get(
          IntegerType::get(context, 8), dynamic ? 0 : uint64_t(smemBytes));
      LLVM::GlobalOp::create(
          gb, func.getLoc(), arrayType, /*isConstant=*/false,
          dynamic ? LLVM::Linkage::External : LLVM::Linkage::Internal,
          state.sharedMemory, Attribute(),
          /*alignment=*/tensorCores ? 1024 : 16,
          /*addrSpace=*/3);
      if (dynamic)
        setModuleEntry(
            KiteDialect::getDynamicSharedMemoryAttrName(), func.getSymName(),
            IntegerAttr::get(IntegerType::get(context, 64), smemBytes));
    }
    setModuleEntry(KiteDialect::getSharedMemoryAttrName(), func.getSymName(),
                   IntegerAttr::get(IntegerType::get(context, 64), smemBytes));

    // Constexpr parameters must have been bound to constants already; they
    // are not kernel parameters on the GPU.
    llvm::BitVector constexprArgs(func.getNumArguments());
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (!func.getArgAttr(i, KiteDialect::getConstexprAttrName()))
        continue;
      if (!arg.use_empty())
        return func.emitError()
               << "constexpr parameter #" << i
               << " is still used as a value; bind it to a constant before "
                  "lowering";
      constexprArgs.set(i);
    }
    // Tensor-map parameters (kite.tensor_map): what the runtime encodes,
    // in the numbering of the parameters that remain.
    SmallVector<std::pair<unsigned, std::string>> tensorMaps;
    auto erasedBefore = [&](int64_t index) {
      int64_t n = 0;
      for (int64_t k = 0; k < index; ++k)
        n += constexprArgs.test(k);
      return n;
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto map = func.getArgAttrOfType<DictionaryAttr>(
          i, KiteDialect::getTensorMapAttrName());
      if (!map)
        continue;
      auto remaining = [&](int64_t v) -> std::string {
        if (v < 0)
          return std::to_string(-v - 1);
        return "a" + std::to_string(v - erasedBefore(v));
      };
      auto list = [&](StringRef key, bool params) {
        std::string text;
        for (int64_t v : cast<DenseI64ArrayAttr>(map.get(key)).asArrayRef())
          text += (text.empty() ? "" : ",") +
                  (params ? remaining(v) : std::to_string(v));
        return text;
      };
      Type element = cast<TensorDescType>(func.getArgumentTypes()[i])
                         .getBlockType()
                         .getElementType();
      std::string dtype;
      llvm::raw_string_ostream(dtype) << element;
      unsigned param = i - erasedBefore(i);
      tensorMaps.push_back(
          {param,
           "// kite.tensor_map " + func.getSymName().str() + " " +
               std::to_string(param) + " " + dtype + " base=" +
               remaining(cast<IntegerAttr>(map.get("base")).getInt()) +
               " shape=" + list("shape", true) +
               " strides=" + list("strides", true) +
               " box=" + list("box", false) + " swizzle=" +
               std::to_string(cast<IntegerAttr>(map.get("swizzle")).getInt()) +
               (map.get("raised") ? " raised" : "")});
    }
    func.getBody().front().eraseArguments(constexprArgs);
    auto kernelType = FunctionType::get(
        context, func.getBody().front().getArgumentTypes(), {});

    // Move the kernel into the gpu.module as a gpu.func (still kite-typed).
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(gpuModule.getBody());
    auto gpuFunc = gpu::GPUFuncOp::create(builder, func.getLoc(),
                                          func.getSymName(), kernelType);
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     builder.getUnitAttr());
    gpuFunc.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
        {int32_t(consumerThreads + producerThreads), 1, 1}));
    // @kernel(maxnreg=N): `.maxnreg N` on the entry; a TMA-staged kernel
    // without one gets the registers its occupancy allows.
    if (auto limit = func->getAttrOfType<IntegerAttr>(
            KiteDialect::getMaxRegistersAttrName()))
      gpuFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                       builder.getI32IntegerAttr(int32_t(limit.getInt())));
    else if (tmaLimit)
      gpuFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                       builder.getI32IntegerAttr(int32_t(*tmaLimit)));
    // @kernel(cluster_dims=...): `.reqnctapercluster x, y, z` (sm_90+; the
    // NVPTX backend drops it for older chips, whose programs run alone).
    if (auto dims = func->getAttrOfType<DenseI32ArrayAttr>(
            KiteDialect::getClusterDimsAttrName()))
      gpuFunc->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(), dims);
    // A tensor map is a 128-byte, 64-byte-aligned .param the kernel reads
    // through its address (__grid_constant__): marked here (the GPU to
    // NVVM conversion keeps llvm.* argument attributes, not byval);
    // kite-tensor-map-params makes it byval and grid_constant.
    if (!tensorMaps.empty()) {
      SmallVector<Attribute> lines;
      for (auto &[param, line] : tensorMaps) {
        gpuFunc.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(),
                           builder.getI64IntegerAttr(64));
        gpuFunc.setArgAttr(param,
                           LLVM::LLVMDialect::getDereferenceableAttrName(),
                           builder.getI64IntegerAttr(128));
        lines.push_back(builder.getStringAttr(line));
      }
      setModuleEntry(KiteDialect::getTensorMapsAttrName(), func.getSymName(),
                     builder.getArrayAttr(lines));
    }
    Region &body = gpuFunc.getBody();
    body.getBlocks().clear();
    body.takeBody(func.getBody());
    body.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      gpu::ReturnOp::create(b, ret.getLoc());
      ret.erase();
    });
    func.erase();

    // Lower the body.
    ConversionTarget target(*context);
    target.addIllegalDialect<KiteDialect>();
    target.addLegalDialect<gpu::GPUDialect, LLVM::LLVMDialect,
                           NVVM::NVVMDialect, vector::VectorDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    // f32 exp2 and exp, scalars too, become ex2.approx (ElementwiseToGPU).
    target.addDynamicallyLegalOp<math::Exp2Op, math::ExpOp>(
        [&](Operation *op) {
          return !getElementTypeOrSelf(op->getResult(0).getType()).isF32() &&
                 converter.isLegal(op);
        });
    // div_rn / sqrt_rn in f32, scalars too, round correctly in inline PTX;
    // f32 `/`, scalars too, is div.full.f32 as in Triton (LLVM would make a
    // scalar fdiv div.rn.f32: IEEE, with a slow-path call) unless
    // --ieee-div.
    target.addDynamicallyLegalOp<arith::DivFOp, math::SqrtOp>(
        [&](Operation *op) {
          bool f32 = getElementTypeOrSelf(op->getResult(0).getType()).isF32();
          bool ieee = op->hasAttr(kIeeeRoundingAttr);
          bool approxDiv = isa<arith::DivFOp>(op) && !ieeeDivision;
          return !(f32 && (ieee || approxDiv)) && converter.isLegal(op);
        });
    target.addDynamicallyLegalOp<gpu::GPUFuncOp>([&](gpu::GPUFuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addLegalOp<gpu::ReturnOp>();

    RewritePatternSet patterns(context);
    populateFunctionOpInterfaceTypeConversionPattern<gpu::GPUFuncOp>(
        patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateGridOpPatterns(converter, patterns);
    populateBlockOpPatterns(converter, patterns);
    populateMemoryOpPatterns(converter, state, patterns);
    populateRandomOpPatterns(converter, patterns);
    populateElementwisePatterns(converter, state, patterns);
    populateSharedMemoryOpPatterns(converter, state, patterns);
    populateAxisOpPatterns(converter, state, patterns);
    populateAtomicOpPatterns(converter, state, patterns);
    populateDebugOpPatterns(converter, patterns);
    populateShapeOpPatterns(converter, state, patterns);
    populateConvertLayoutPatterns(converter, state, patterns);
    populateSortPatterns(converter, state, patterns);
    populateGatherPatterns(converter, state, patterns);
    populateTensorCoreStagingPatterns(converter, state, patterns);
    populateWgmmaPatterns(converter, state, patterns);
    populateMmaPatterns(converter, state, patterns);
    populateTmaPatterns(converter, state, patterns);
    // Whatever is left illegal is reported by the driver with its location.
    if (failed(applyPartialConversion(gpuFunc, target, std::move(patterns))))
      return failure();
    // kite.ieee has done its work (f32 div.rn / sqrt.rn); the f64 and f16
    // ops that carry it round correctly as they are (f16 sqrt through f32).
    gpuFunc.walk([](Operation *op) { op->removeAttr(kIeeeRoundingAttr); });
    // With a tensor-core accumulator live, the epilogue's addresses and
    // masks are computed register by register where they are used (see
    // ScalarizeExtracts.cpp); other kernels so only their masks.
    scalarizeRegisterExtracts(gpuFunc, /*onlyMasks=*/!tensorCores);
    // With a producer warp, the block-computing threads synchronize among
    // themselves (named barrier 1 of numThreads), never waiting for the
    // producer (which only waits on mbarriers, then exits); consumer
    // groups each on their own (1 + group).
    if (producerWarp) {
      SmallVector<gpu::BarrierOp> barriers;
      gpuFunc.walk([&](gpu::BarrierOp op) { barriers.push_back(op); });
      for (gpu::BarrierOp op : barriers) {
        OpBuilder b(op);
        Location loc = op.getLoc();
        Value id = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                groupBarrierId(0));
        if (state.consumerGroups > 1)
          id = arith::AddIOp::create(
              b, loc, id, mlir::kite::detail::consumerGroup(b, loc, state));
        NVVM::BarrierOp::create(
            b, loc, Type(), id,
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), numThreads),
            NVVM::BarrierReductionAttr(), Value());
        op.erase();
      }
    }
    // Consumer groups: every thread index the patterns used is the index
    // in the thread's group (layouts, the first thread of a store, lanes).
    if (state.consumerGroups > 1) {
      SmallVector<gpu::ThreadIdOp> ids;
      gpuFunc.walk([&](gpu::ThreadIdOp op) {
        if (op.getDimension() == gpu::Dimension::x)
          ids.push_back(op);
      });
      for (gpu::ThreadIdOp op : ids) {
        OpBuilder b(op);
        Location loc = op.getLoc();
        Value inGroup = arith::RemUIOp::create(
            b, loc, mlir::kite::detail::rawThreadId(b, loc),
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), numThreads));
        op.replaceAllUsesWith(
            arith::IndexCastUIOp::create(b, loc, b.getIndexType(), inGroup)
                .getResult());
        op.erase();
      }
    }
    return success();
  }
};
} // namespace
