//===- Passes.td - Transforms of the kite dialect ------------*- tablegen -*-===//
//
// The kite dialect's transforms (lib/Dialect/Kite/Transforms): the
// kite-level scheduling that runs before convert-kite-to-gpu (versioning,
// pointer carrying, dot-operand staging and orientation, descriptors, load
// pipelining, unrolling). lib/Pipeline assembles them into kite-to-ptx.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_TRANSFORMS_PASSES_TD
#define KITE_DIALECT_KITE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerDescriptors : Pass<"kite-lower-descriptors", "::mlir::ModuleOp"> {
  let summary = "Tensor descriptor loads and stores as masked pointer blocks";
  let description = [{
    First, a descriptor made inside a loop from values defined outside it
    (a block pointer's, which the frontend carries through the loop) is
    made before the loop, where TMA can take it. Then it replaces each
    kite.descriptor_load / descriptor_store by the masked
    kite.load / kite.store of the pointer block it addresses (offsets plus
    arange along each dimension times the strides; elements outside
    [0, shape) masked off, loads filling them with zero), and erases the
    descriptors no access reads any more. With `keep-tma`, the loads that a
    K loop's dot reads through TMA on `chip` (sm_90a; see
    kite-stage-dot-operands) are kept for the staging, and the stores whose
    descriptor can be a CUtensorMap become kite.tma_store (each appends its
    tensor-map parameter; at most 4 maps a kernel). The pipeline runs it
    with keep-tma at the end of its first stage and without after the
    staging.
  }];
  let options = [
    Option<"keepTma", "keep-tma", "bool", /*default=*/"false",
           "Keep the descriptor loads that kite-stage-dot-operands will "
           "stage with TMA">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip (TMA needs sm_90a)">,
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program for kernels without kite.num_warps">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def RaiseToDescriptors : Pass<"kite-raise-to-descriptors", "::mlir::ModuleOp"> {
  let summary = "A K loop's pointer loads of a dot operand as descriptor loads";
  let description = [{
    On sm_90a, a 2-D kite.load in an scf.for that feeds the loop's dot
    (A, B, or the N x K block B is the transpose of) and reads, at
    iteration i, the block (o, i * BLOCK_K) (or (i * BLOCK_K, o)) of a
    tensor (base, shape, strides) becomes a kite.descriptor_load of a
    kite.make_tensor_descriptor made at the kernel's entry (marked
    kite.raised), when the dot then reads its operands through TMA
    (kite-stage-dot-operands' test). The pointers are splat(base) plus
    one term per dimension (index * stride) carried by the loop and moved
    BLOCK_K along K each iteration; the mask is K's index < S - i * BLOCK_K
    (the shape along K is S); the other dimension's index is either
    o + arange masked with < bound, or Triton's tutorial 03
    `(o + arange) % bound`: there rows past the bound wrap around where the
    descriptor reads zeros, so it is raised only when the dot's result
    reaches memory through elementwise ops and kite.store ops whose masks
    bound those rows (o + arange < bound): the wrapped rows are never
    written either way. Zero fill (or none) where masked off.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip (TMA needs sm_90a)">,
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program for kernels without kite.num_warps">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def PipelineLoads : Pass<"kite-pipeline-loads", "::mlir::ModuleOp"> {
  let summary = "Issue the loads that feed a dot one loop iteration early";
  let description = [{
    In an scf.for whose body loads blocks only consumed by kite.dot (the
    K loop of a matmul), the loads of iteration k+1 are issued before the
    dot of iteration k and carried in the loop, so their memory latency
    overlaps the dot's arithmetic. The loads of the first iteration move
    before the loop; the extra last-iteration loads are masked off (their
    mask is ANDed with "k + step < upper bound"), so nothing outside the
    original accesses is read. Applies when the loads' operands are
    computed by side-effect-free ops from the loop's induction variable,
    its iteration arguments (advanced by side-effect-free ops) and values
    defined outside.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def RematerializeBroadcasts
    : Pass<"kite-rematerialize-broadcasts", "::mlir::ModuleOp"> {
  let summary = "Compute broadcast blocks where they are used, not exchanged";
  let description = [{
    A kite.broadcast that repeats elements is lowered as a data exchange
    between threads (shared memory, two barriers). When its operand is
    computed only from aranges, splats, splat constants and elementwise ops
    (an offset or mask such as `offs_k[None, :] < K - k * BLOCK_K`), the
    broadcast and the expand_dims before it are moved through those ops
    towards the leaves, so that every thread computes the elements it holds:
    broadcasts of splats fold, and broadcast(expand_dims(arange)) is lowered
    from each thread's coordinates. Ops whose results have other users are
    duplicated at the larger shape. Broadcasts of loaded or loop-carried
    data are left alone.
  }];
}

def UnrollLoops : Pass<"kite-unroll-loops", "::mlir::ModuleOp"> {
  let summary = "Unroll the loops the source asks to (loop_unroll_factor)";
  let description = [{
    Each scf.for with the integer attribute kite.loop_unroll_factor = N
    (Triton's `range(..., loop_unroll_factor=N)`) is unrolled N times: a
    main loop taking N steps an iteration and an epilogue loop for the
    remaining steps where the trip count is not known to be a multiple of N
    (MLIR's loopUnrollByFactor). The attribute is removed; N <= 1 leaves the
    loop as it is. Runs after the loads are pipelined, before the lowering.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def VersionFullBlocks
    : Pass<"kite-version-full-blocks", "::mlir::ModuleOp"> {
  let summary = "A mask-free copy of a kernel's body for the programs whose blocks are full";
  let description = [{
    A load or store masked by `offsets < n`, with `offsets = s + arange(lo,
    hi)` and n not known to be a multiple of the vector width, is lowered
    with a guarded vector access plus per-element accesses for a ragged
    group, in every program. This pass computes the scalar condition under
    which such masks are all true (s + hi - 1 < n, in 64 bits) and versions
    the kernel body after the definitions of s and n: an `scf.if` (marked
    `kite.full_blocks`) whose then-branch is the body with those masks
    constant true (their loads and stores fold to unmasked vector accesses)
    and whose else-branch is the body as written. Conjunctions of such
    comparisons are handled; other masks are left alone. It applies only
    where some access through the mask could be a wider vector than the mask
    is proved uniform over (with `uniform-masks`, the default: any vector
    access through such a mask, for the mask-free copy has no predicates
    at all), and not to kernels with dots, tensor descriptors or staging,
    nor to bodies of more than `max-ops` ops.

    Offsets taken modulo a size, `(s + arange(lo, hi)) % n` (tutorial 03's
    wrapped rows and columns), whose runs AxisInfo cuts short (n of unknown
    divisibility) and which reach a load's addresses, are versioned the
    same way, also in kernels with dots: under 0 <= s and s + hi - 1 < n
    the remainder is its operand, so the full copy's operand rows are
    contiguous runs again.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "3000",
           "Leave kernels with more ops than this alone">,
    Option<"uniformMasks", "uniform-masks", "bool", "true",
           "Also version masks proved uniform over the vector width (n a "
           "multiple of 16): predicated vector accesses become plain ones">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def SplitFullIterations
    : Pass<"kite-split-full-iterations", "::mlir::ModuleOp"> {
  let summary = "Run a loop's iterations whose masks are all true apart, without the masks";
  let description = [{
    A loop masked on every iteration (`cols = start_n + arange(0, B)`,
    `mask = cols < N`; tutorial 03's K tail `arange(0, BK) < K - k * BK`)
    sees all-true masks on every iteration but its last ones. In each
    innermost `scf.for` with a constant positive step and a masked load or
    store, this pass finds the block comparisons `s + arange(lo, hi) < n`
    (or `<=`, signed; through expand_dims, broadcast and reshape) whose
    scalars s and n are affine in the induction variable (integer add, sub,
    multiply by constants of values defined outside the loop) with
    coef(s) - coef(n) = D > 0, so that the mask is all true exactly on a
    prefix of the iterations: iv < ceildiv(n(0) - s(0) - (hi - 1), D). The
    loop is split there, in 64-bit arithmetic: a copy runs the prefix with
    those comparisons constant true (their loads, stores and selects then
    fold), the loop as written runs the rest. Each node of s and n must be
    within its type at the prefix's first and last iteration (affine, so
    nowhere between does it wrap); otherwise the prefix is empty. Only
    where it pays: such a mask selects data (`where`), or, in a loop
    without a dot, guards an access that could be a wider vector than
    AxisInfo proves the mask uniform over (a dot's K tail alone is left
    alone: its loads are staged copies either way). Loops of more than
    `max-ops` ops are left alone.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "1500",
           "Leave loops with more ops than this alone">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def FoldScales : Pass<"kite-fold-scales", "::mlir::ModuleOp"> {
  let summary = "A block's scalar scales moved to where they cost least";
  let description = [{
    Two rewrites of softmax as users write it (`qk = qk * scale; m =
    max(qk, 1); p = exp(qk - m[:, None])`):
      - `max(x * splat(s))` becomes `(s >= 0 ? max(x) : min(x)) * s` (and
        min alike): bit for bit the same, rounding being monotone (but for
        the sign of a zero when s is 0); the choice a uniform branch on the
        scalar;
      - `exp(P - broadcast(r))` becomes `exp2(P * log2(e) + broadcast(r *
        -log2(e)))`, with P's own scalar scale multiplied by log2(e) where
        P is `x * splat(s)`: one fma an element where `exp` (lowered to
        ex2.approx(y * log2(e)), as Triton lowers it) took a subtract and a
        multiply. The argument differs from (P - r) * log2(e) by the
        rounding of the larger term. Only with `fold-exp` (the pipeline
        passes its fp-fusion option: with fusion off, arithmetic is
        rounded as written).
  }];
  let options = [
    Option<"foldExp", "fold-exp", "bool", "true",
           "Rewrite exp of a difference as exp2 with the log2(e) folded in">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

def CarryPointerOffsets
    : Pass<"kite-carry-pointer-offsets", "::mlir::ModuleOp"> {
  let summary = "Carry a scalar offset instead of a block of pointers in loops";
  let description = [{
    An scf.for iteration argument that is a block of pointers advanced each
    iteration by one scalar (`ptrs += BLOCK_K * stride`, i.e. kite.addptr of
    a kite.splat) is replaced by an i64 offset carried in the loop: inside,
    the block is `addptr(start, splat(offset))` with `start` loop-invariant;
    after the loop, `addptr(start, splat(final offset))`. The loop then
    carries one register instead of two per pointer element, and only the
    addresses that accesses use are formed in each iteration.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def RebaseNarrowPointers
    : Pass<"kite-rebase-narrow-pointers", "::mlir::ModuleOp"> {
  let summary = "Keep narrow pointer blocks in loops as a base plus i32 offsets";
  let description = [{
    After kite-carry-pointer-offsets a loop reads
    `addptr(start, splat(offset))` with `start = addptr(splat(base),
    offsets)` loop-invariant: a block of 64-bit pointers (two registers an
    element) live through the loop. Where `offsets` are i32 and the
    accesses are narrower than 16 bytes (sizes and strides without
    divisibility facts: an address for every element or two), the block
    becomes `addptr(splat(addptr(base, offset)), offsets)`: the scalar base
    advances, the i32 offsets (one register an element) are what stays
    live, and each address is formed where an access uses it. 16-byte
    accesses (few addresses, read by cp.async or TMA) keep the invariant
    pointers. Runs after kite-stage-dot-operands, which may have given an
    operand's load the transposed, wider orientation.
  }];
}

def StageDotOperands : Pass<"kite-stage-dot-operands", "::mlir::ModuleOp"> {
  let summary = "Copy a K loop's dot operands into shared memory with cp.async, two blocks ahead";
  let description = [{
    In an scf.for (constant positive step) whose body has one kite.dot fed
    by two loads used only by it (masked-off elements 0), and whose dot
    takes the register-tiled path (f32), wgmma (f16/bf16 on sm_90a) or
    mma.sync (sm_80+; below), the loads become asynchronous copies
    (kite.async_stage, cp.async on the GPU) into S shared-memory slots
    (the kernel's kite.num_stages, default 3; 1 leaves the kernel alone),
    issued S - 1 iterations ahead, and the dot computes from the slot
    (kite.dot_staged). Each iteration waits for its block with one barrier
    (kite.async_wait). The copies past the last iteration are masked off; a
    final wait after the loop drains them. The loads' address computations
    are cloned from the body (side-effect-free ops of the induction variable,
    iteration arguments and values defined outside), as in
    kite-pipeline-loads.

    wgmma (chip sm_90a; f16/bf16 operands; M % 64, N % 16, K % 16 = 0; warps
    in warpgroups of 4; operands copyable in groups of >= 4 bytes): the
    copies and the dot say `engine = wgmma` (swizzled staging), there are
    S + 1 slots (the running dot reads one more), and the dot is followed
    by kite.dot_wait: pending 1 when
    the accumulator only goes around the loop (plus a kite.dot_wait 0 on
    the loop's result), else 0. The wait does not fence the async proxy:
    like Triton (which fences only after stores from registers, not after
    cp.async) the completed copies and the barrier order the copies before
    wgmma's reads; `proxy-fence` adds a fence.proxy.async to the wait
    (docs/lowering.md, "wgmma and the async proxy").

    Computed operands (chip sm_80 or later): where the dot reads an operand
    computed in the loop from loads (dot_scaled's upcast and scaled bytes),
    those loads are issued ahead instead: blocks that copy in groups of 4
    bytes or more through a ring of S slots (kite.async_copy S - 1
    iterations ahead, kite.staged_load in the load's place), small others
    (at most 8 elements a thread) into registers one iteration ahead,
    carried around the loop; the dot stays a dot of register operands
    (docs/lowering.md, "Staged loads"), unless on sm_90a its A is a copied
    load that the block staging lays out as wgmma's K-major swizzle and its
    accumulator only goes around the loop: then the product reads A from
    the ring (S + 1 slots), the computed B is stored into a ring of two
    slots of its own (kite.stage_operand), and the product is waited for
    in the next iteration, after that B converts (W8A16: int8 weights
    converted to f16); a computed A (dot_scaled's) is stored into that
    ring beside B (`store-computed-a`).

    mma (chip sm_80 or later, when wgmma does not apply; f16/bf16 operands,
    or f32 ones whose dot says `precision = tf32`; M and N split into
    16x16 blocks over the warps, at most 128 accumulator registers a
    thread; K % 16 = 0, or K % 8 for tf32; operands copyable as for
    wgmma): the copies and the dot say `engine = mma` (the same swizzled
    staging, read by ldmatrix), S slots and the FMA schedule (mma.sync is
    synchronous).
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program for kernels without kite.num_warps">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip: sm_90a stages f16/bf16 dots for wgmma, sm_80+ "
           "for mma.sync">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "A TMA-staged loop gets a producer warp that issues its copies "
           "(mbarrier full/empty pipeline, no barrier in the loop)">,
    Option<"proxyFence", "proxy-fence", "bool", /*default=*/"false",
           "Fence the async proxy (fence.proxy.async) in each wait before a "
           "wgmma (a cost on every K step; off by default, as in Triton)">,
    Option<"storeComputedA", "store-computed-a", "bool", /*default=*/"true",
           "The asynchronous product also takes a computed A (stored into "
           "the operands' ring beside B); off: only an A read from the "
           "copies' ring (for measurements: kite-opt)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // KITE_DIALECT_KITE_TRANSFORMS_PASSES_TD
