//===- KiteScheduleOps.td - Kite's GPU scheduling ops ------*- tablegen -*-===//
//
// The ops of the GPU schedules kite-stage-dot-operands makes: TMA staging,
// producer warps and consumer groups (sm_90a), and the cp.async staging of
// dot operands and of the loads computed operands come from. Included by
// KiteOps.td (one dialect, one generated op list); not meant to be written
// by hand (the interpreter rejects them).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITESCHEDULEOPS_TD
#define KITE_DIALECT_KITE_IR_KITESCHEDULEOPS_TD

//===----------------------------------------------------------------------===//
// TMA staging of dot operands (sm_90a)
//===----------------------------------------------------------------------===//
// Made by kite-stage-dot-operands from a K loop whose dot reads two
// descriptor loads; not meant to be written by hand. The descriptors are
// kernel parameters the runtime encodes as CUtensorMaps (the kernel's
// kite.tensor_maps attribute says how); each staging slot has an mbarrier.

def Kite_TmaInitOp : Kite_Op<"tma_init", [MemoryEffects<[MemWrite]>]> {
  let summary = "Initialize the staging slots' mbarriers";
  let description = [{
    One thread initializes `slots` "full" mbarriers, each completing a
    phase after `arrivals` arrivals and their bytes, and with
    `consumer_arrivals` > 0 as many "empty" ones (a warp-specialized loop:
    each consumer warp arrives when done with a slot); then every thread of
    the program (the producer warp included) synchronizes. With
    `cluster_size` > 1 (a kernel whose programs run in clusters, where
    copies are multicast and slots released across the cluster), every
    thread of the cluster synchronizes instead (barrier.cluster), so no
    program's copies reach a peer's barriers before they exist.
  }];
  let arguments = (ins I64Attr:$slots, I64Attr:$arrivals,
                       DefaultValuedAttr<I64Attr, "0">:$consumer_arrivals,
                       DefaultValuedAttr<I64Attr, "1">:$cluster_size);
  let assemblyFormat = "`slots` $slots `arrivals` $arrivals attr-dict";
  let hasVerifier = 1;
}

def Kite_WarpIsProducerOp : Kite_Op<"warp_is_producer", [Pure]> {
  let summary = "Whether this thread is in the producer warp";
  let description = [{
    In a warp-specialized kernel the program has one warp beyond its
    `num_warps` (which compute the blocks): the producer, which issues the
    TMA copies of a K loop (kite.tma_stage ... producer) and exits.
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict";
}

def Kite_SetMaxRegistersOp : Kite_Op<"set_max_registers",
                                     [MemoryEffects<[MemWrite]>]> {
  let summary = "Give a warpgroup's registers away, or take more (setmaxnreg)";
  let description = [{
    `setmaxnreg.{inc,dec}.sync.aligned.u32 count` for every warp of the
    warpgroups that run it: the producer warpgroup of a warp-specialized
    kernel gives its registers to the consumers (`count` from 24 to 256, a
    multiple of 8). A kernel with these ops has a producer warpgroup (128
    threads beyond its `num_warps`, one of which issues the copies) and its
    entry register count fixed, which ptxas needs to honour them.

    ```mlir
    kite.set_max_registers 24
    kite.set_max_registers increase 240
    ```
  }];
  let arguments = (ins I32Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "(`increase` $increase^)? $count attr-dict";
  let hasVerifier = 1;
}

def Kite_ExitOp : Kite_Op<"exit", [MemoryEffects<[MemWrite]>]> {
  let summary = "End this thread (the producer warp, its copies issued)";
  let assemblyFormat = "attr-dict";
}

def Kite_ConsumerGroupOp : Kite_Op<"consumer_group", [Pure]> {
  let summary = "The consumer group of this thread (ping-pong)";
  let description = [{
    In a kernel whose tile loop runs on several consumer groups
    (`kite.consumer_groups` = G, `range(..., ping_pong=True)`), each group
    of `num_warps` warps computes every G-th tile; this is the group's
    index (0 .. G - 1), 0 in a kernel of one group.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Kite_TurnWaitOp : Kite_Op<"turn_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait until it is this consumer group's turn";
  let description = [{
    Ping-pong consumer groups issue their tiles' products in turns: a group
    waits here (before its K loop) until the group before it has passed it
    the turn (kite.turn_pass); group 0's first turn is passed by the last
    group at the kernel's start.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Kite_TurnPassOp : Kite_Op<"turn_pass", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Pass the turn to the next consumer group";
  let description = [{
    Group g hands the turn to group (g + 1) % G without waiting (after its
    K loop has issued its last product, before waiting for it, so that the
    next group's products queue behind this one's and this group's
    epilogue runs while they do).
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Kite_ClusterBarrierOp : Kite_Op<"cluster_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Synchronize every thread of the cluster (barrier.cluster)";
  let description = [{
    Each thread arrives (release) and waits (acquire) until every thread of
    its cluster that has not exited has arrived. Placed before a clustered
    kernel returns, so that no program exits while a peer may still
    release its slots (remote mbarrier arrivals) or copy into them.
  }];
  let assemblyFormat = "attr-dict";
}

def Kite_TmaReleaseOp : Kite_Op<"tma_release", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "A consumer warp is done with a staging slot";
  let description = [{
    When `pred` holds, each warp of the program arrives (once) on slot
    `slot`'s empty mbarrier: the producer may refill it. With
    `cluster_size` > 1 it arrives on that barrier of every program of its
    cluster (whose producers multicast into this program's slots).
  }];
  let arguments = (ins I32:$slot, I1:$pred,
                       DefaultValuedAttr<I64Attr, "1">:$cluster_size);
  let assemblyFormat = "`slot` $slot `if` $pred attr-dict";
}

def Kite_TmaStageOp : Kite_Op<"tma_stage", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start the TMA copy of a dot operand block into a staging slot";
  let description = [{
    When `pred` holds, one thread of the program expects the block's bytes
    on slot `slot`'s mbarrier (an arrival) and starts TMA copies
    (cp.async.bulk.tensor) of the descriptor's block at `offsets` into
    operand `operand` (0: A, 1: B) of the slot, in the swizzled layout
    wgmma reads (SwizzledStaging of a dot of shape `dot_shape`); elements
    outside the tensor become zero. `desc` is a kernel parameter (a
    CUtensorMap). With `producer`, the producer warp's first thread issues
    them (a warp-specialized loop). With `transposed` (B only) the block is
    B's transpose, N x K, staged K-major. With `multicast` = n > 1 (a
    kernel in clusters of n programs, which all stage this very block at
    this point: kite-stage-dot-operands proved it) each program copies 1/n
    of the block's panels into the slot of every program of the cluster
    (`.multicast::cluster`), signalling each one's barrier; each program
    still expects the whole block's bytes.
    With `b_place = [offset, bytes]` (B only) the slot holds no A (the dot
    reads A from registers: attention's products): B lies at `offset` bytes
    into slots of `bytes` each, which may hold the Bs of several dots of a
    loop (as kite.async_stage's `b_place`).
  }];
  let arguments = (ins Kite_TensorDescType:$desc, Variadic<I32>:$offsets,
                       I1:$pred, I32:$slot, I32Attr:$operand,
                       DenseI64ArrayAttr:$dot_shape, UnitAttr:$producer,
                       UnitAttr:$transposed,
                       DefaultValuedAttr<I64Attr, "1">:$multicast,
                       OptionalAttr<DenseI64ArrayAttr>:$b_place);
  let assemblyFormat = "$desc `[` $offsets `]` `if` $pred `slot` $slot "
                       "`operand` $operand `dot` $dot_shape (`producer` $producer^)? "
                       "(`transposed` $transposed^)? (`b_place` $b_place^)? "
                       "attr-dict `:` type($desc)";
  let hasVerifier = 1;
}

def Kite_TmaStoreOp : Kite_Op<"tma_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Store a block through a tensor map with TMA";
  let description = [{
    kite.descriptor_store on sm_90a, made by kite-lower-descriptors when the
    descriptor can be a CUtensorMap (a kernel parameter, as for
    kite.tma_stage): every thread writes its registers of `value` into
    shared memory in the swizzled panels a TMA box reads (the layout of a
    SwizzledStaging A operand of `value`'s shape), then one thread stores
    the panels with cp.async.bulk.tensor and waits until they have been
    read. Elements outside the tensor are not written.

    ```mlir
    kite.tma_store %map[%i, %j], %v : !kite.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    ```
  }];
  let arguments = (ins Kite_TensorDescType:$desc, Variadic<I32>:$offsets,
                       Kite_Block:$value);
  let assemblyFormat = "$desc `[` $offsets `]` `,` $value attr-dict `:` type($desc) `,` type($value)";
  let hasVerifier = 1;
}

def Kite_TmaWaitOp : Kite_Op<"tma_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for a staging slot's TMA copies, then synchronize";
  let description = [{
    Waits until slot `slot`'s mbarrier (the full one; with `empty`, the
    empty one) has completed the phase of parity `phase`, then, unless
    `nosync`, synchronizes all threads of the program (everyone is done with
    the slot about to be refilled).
  }];
  let arguments = (ins I32:$slot, I32:$phase, UnitAttr:$empty,
                       UnitAttr:$nosync);
  let assemblyFormat = "`slot` $slot `phase` $phase (`empty` $empty^)? "
                       "(`nosync` $nosync^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Asynchronous staging of dot operands (GPU scheduling)
//===----------------------------------------------------------------------===//
// Made by kite-stage-dot-operands from a K loop's loads and dot; not meant
// to be written by hand. A dot of shape [M, N, K] owns `num_stages` slots of
// shared memory, each holding its A block (row-major, rows padded to K + 4
// elements) and its B block (row-major), as f32.

def Kite_AsyncStageOp : Kite_Op<"async_stage",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start copying a dot operand block into a staging slot";
  let description = [{
    Starts asynchronous copies (cp.async) of the block behind `ptr` into
    operand `operand` (0: A, 1: B) of staging slot `slot` of a dot of shape
    `dot_shape` = [M, N, K]. Masked-off elements (`mask`, same shape) are
    not read and become 0. The copies complete at a later kite.async_wait.
    `engine` says which staging layout the slot has: `fma` (the default:
    f32 blocks, the register-tiled FMA dot's DotStaging), `wgmma` (f16 or
    bf16 blocks in the swizzled layouts wgmma reads, SwizzledStaging; f32
    blocks multiplied as tf32 likewise, but B K-major, as wgmma cannot
    transpose tf32), or `mma` (the same swizzled layouts, B N-major).
    With `transposed` (wgmma only) the block is the operand's transpose,
    each row of the block a row of the staging: B's N x K with K
    contiguous (`dot(a, trans(b))`, an nn.Linear weight), staged K-major;
    A's K x M with M contiguous (f16/bf16: `dot(trans(a), b)`, A given
    K x M), staged M-major.
    With `b_place = [offset, bytes]` (B, wgmma only) the slot holds no A
    (the dot reads A from registers): B lies at `offset` bytes into slots
    of `bytes` each, which may hold the Bs of several dots of a loop.

    ```mlir
    kite.async_stage %a_ptrs, %mask slot %s operand 0 dot [128, 128, 32] : tensor<128x32x!kite.ptr<f32>>, tensor<128x32xi1>
    kite.async_stage %b_ptrs, %mask slot %s operand 1 dot [128, 128, 64] engine = wgmma : tensor<64x128x!kite.ptr<f16>>, tensor<64x128xi1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Kite_PointerType]>:$ptr,
                       RankedTensorOf<[I1]>:$mask, I32:$slot,
                       I32Attr:$operand, DenseI64ArrayAttr:$dot_shape,
                       DefaultValuedAttr<Kite_DotEngineAttr,
                           "::mlir::kite::DotEngine::FMA">:$engine,
                       UnitAttr:$transposed,
                       OptionalAttr<DenseI64ArrayAttr>:$b_place);
  let assemblyFormat = "$ptr `,` $mask `slot` $slot `operand` $operand "
                       "`dot` $dot_shape (`engine` `=` $engine^)? "
                       "(`transposed` $transposed^)? "
                       "(`b_place` $b_place^)? attr-dict "
                       "`:` type($ptr) `,` type($mask)";
  let hasVerifier = 1;
}

def Kite_AsyncCopyOp : Kite_Op<"async_copy",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start copying a block into a ring of shared-memory slots";
  let description = [{
    Starts asynchronous copies (cp.async, 4 to 16 bytes each) of the block
    behind `ptr` into slot `slot` of a ring of `slots` slots of `place[1]`
    bytes each, at `place[0]` bytes into the slot, in the block staging
    layout (blockStagingLayout: a 2-d block with rows of a multiple of 32
    bytes as wgmma's K-major A of its shape, other rows row-major with
    16-byte chunks swizzled within 128-byte lines: docs/lowering.md,
    "Staged loads"). Masked-off elements are not read
    and become 0. The copies complete at a later kite.async_wait; a
    kite.staged_load of the same place reads the block back in any layout.
    kite-stage-dot-operands makes these for the loads a dot's operands are
    computed from (dot_scaled's bytes): the loads then run iterations ahead
    of the conversions that read them.

    ```mlir
    kite.async_copy %ptrs, %mask slot %s place [0, 16384] slots 3 : tensor<128x64x!kite.ptr<i8>>, tensor<128x64xi1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Kite_PointerType]>:$ptr,
                       RankedTensorOf<[I1]>:$mask, I32:$slot,
                       DenseI64ArrayAttr:$place, I64Attr:$slots);
  let assemblyFormat = "$ptr `,` $mask `slot` $slot `place` $place "
                       "`slots` $slots attr-dict `:` type($ptr) `,` type($mask)";
  let hasVerifier = 1;
}

def Kite_StagedLoadOp : Kite_Op<"staged_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Read a block from a ring slot that kite.async_copy filled";
  let description = [{
    The block kite.async_copy placed at `place` ([offset, slot bytes]) of
    slot `slot` of a ring of `slots`, read into registers in the result's
    own layout (vector loads of each thread's contiguous runs). The copies
    must have completed (a kite.async_wait in between).

    ```mlir
    %a = kite.staged_load slot %s place [0, 16384] slots 3 : tensor<128x64xi8>
    ```
  }];
  let arguments = (ins I32:$slot, DenseI64ArrayAttr:$place, I64Attr:$slots);
  let results = (outs RankedTensorOf<[Kite_Float, Kite_Int]>:$result);
  let assemblyFormat = "`slot` $slot `place` $place `slots` $slots attr-dict "
                       "`:` type($result)";
  let hasVerifier = 1;
}

def Kite_StageOperandOp : Kite_Op<"stage_operand",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Store a dot operand from registers into a ring slot";
  let description = [{
    Stores `value`, operand `operand` (0: A, M x K; 1: B, K x N) of a dot
    of shape `dot_shape` = [M, N, K], into slot `slot` of a ring of
    `slots` slots of `place[1]` bytes, in the swizzled operand layout wgmma
    reads (SwizzledStaging: A K-major; B N-major for f16/bf16, K-major for
    fp8 and f32 (tf32), which wgmma reads K-major only), then fences the
    stores for the async proxy. With `transposed` the value is the
    operand's transpose (A's K x M, B's N x K), stored in the same layout.
    After a barrier of the program (a kite.async_wait) a kite.dot_staged
    reading the same place may be issued. Slot s lies at
    `place[0] + s * place[1]` bytes into the staging: a place[0] below
    place[1] puts the block inside the slots of another ring, a larger
    one starts a ring of its own there. kite-stage-dot-operands makes
    these for a K loop's dot whose operands are computed in the loop (an
    int8 weight block converted to f16; fp8 or tf32 blocks transposed on
    chip): the product then runs asynchronously, waited for one iteration
    later, while the next block is converted.

    ```mlir
    kite.stage_operand %b slot %s place [98304, 16384] slots 2 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
    kite.stage_operand %at slot %s place [65536, 8192] slots 2 operand 0 dot [128, 128, 64] transposed : tensor<64x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F16, BF16, F32, F8E4M3FN, F8E5M2]>:$value,
                       I32:$slot, DenseI64ArrayAttr:$place, I64Attr:$slots,
                       I32Attr:$operand, DenseI64ArrayAttr:$dot_shape,
                       UnitAttr:$transposed);
  let assemblyFormat = "$value `slot` $slot `place` $place `slots` $slots "
                       "`operand` $operand `dot` $dot_shape "
                       "(`transposed` $transposed^)? attr-dict `:` "
                       "type($value)";
  let extraClassDeclaration = [{
    /// The bytes of an element of the block.
    int64_t getElementBytes();
    /// The block's bytes in its slot (1024-byte aligned: the swizzle's
    /// atoms).
    int64_t getBlockBytes();
    /// Whether the block lies K-major (A always; B of fp8 and f32, which
    /// wgmma reads K-major only).
    bool isKMajor();
  }];
  let hasVerifier = 1;
}

def Kite_AsyncCommitOp : Kite_Op<"async_commit",
    [MemoryEffects<[MemWrite]>]> {
  let summary = "Close the group of copies started since the last commit";
  let assemblyFormat = "attr-dict";
}

def Kite_AsyncWaitOp : Kite_Op<"async_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for staged copies, then synchronize the program";
  let description = [{
    Waits until at most `pending` of this thread's committed copy groups are
    still in flight, then synchronizes all threads of the program: the
    completed groups are visible to every thread, and every thread has
    finished what it did before (reads of a slot about to be refilled).
    With `async_proxy`, the completed copies are also made visible to the
    async proxy (fence.proxy.async) before the barrier: wgmma reads shared
    memory through it.
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$async_proxy);
  let assemblyFormat = "$pending (`async_proxy` $async_proxy^)? attr-dict";
}

def Kite_DotStagedOp : Kite_Op<"dot_staged", [MemoryEffects<[MemRead]>,
    AllTypesMatch<["acc", "result"]>, AttrSizedOperandSegments]> {
  let summary = "Block matrix product of the operands in a staging slot";
  let description = [{
    `result = A * B + acc` with A (MxK) and B (KxN) the operands staged in
    slot `slot` of `stages` (M and N from the accumulator, K = `k`).
    With `engine = wgmma` the operands are `operand_type` (f16 or bf16, or
    f32 multiplied as tf32) in the swizzled staging and the product is issued as asynchronous warpgroup
    MMAs: the result may only be read after a kite.dot_wait of it (which
    the loop that carries it also passes through). With `engine = mma` the
    operands are `operand_type` (f16, bf16, or f32 multiplied as tf32) in
    the same swizzled staging, read with ldmatrix (and ld.shared for tf32's
    B) into the fragments of warp-synchronous mma.sync instructions; the
    result is complete when the op returns. `b_k_major` (wgmma only): the
    slot's B is K-major (tf32, which wgmma cannot transpose, and a B staged
    from its transpose); otherwise N-major. `a_m_major` (wgmma, f16/bf16):
    the slot's A is M-major (staged from its K x M transpose); otherwise
    K-major.
    With `a` (wgmma) A is that block, read from registers (wgmma's
    register layout for A: attention's q and p; an fp8 or tf32 A that
    lies M-major, read from its ring into that layout), and the slot
    holds only B, placed as `b_place = [offset, bytes]` says (see
    kite.async_stage). With `a_place` (and `b_place`) A lies in the slot at
    that offset instead (a block kite.async_copy placed in the block
    staging layout where that is wgmma's K-major swizzle). With `b_slot`
    (and both places) B lies in a ring of its own, which a
    kite.stage_operand filled: slot `b_slot`, `b_place = [start, slot
    bytes]`, the ring starting `start` bytes into the staging (after
    A's ring). The rings of such a dot are sized by the ops that fill them.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$acc, I32:$slot, I64Attr:$k,
                       I64Attr:$stages,
                       DefaultValuedAttr<Kite_DotEngineAttr,
                           "::mlir::kite::DotEngine::FMA">:$engine,
                       OptionalAttr<TypeAttr>:$operand_type,
                       UnitAttr:$b_k_major,
                       Optional<RankedTensorOf<[F16, BF16, F32, F8E4M3FN, F8E5M2]>>:$a,
                       OptionalAttr<DenseI64ArrayAttr>:$b_place,
                       OptionalAttr<DenseI64ArrayAttr>:$a_place,
                       Optional<I32>:$b_slot,
                       UnitAttr:$a_m_major);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$acc (`a` $a^ `:` type($a))? `slot` $slot "
                       "(`b_slot` $b_slot^)? `of` $stages `k` $k "
                       "(`engine` `=` $engine^)? (`b_k_major` $b_k_major^)? "
                       "(`a_m_major` $a_m_major^)? "
                       "(`a_place` $a_place^)? (`b_place` $b_place^)? "
                       "attr-dict `:` type($acc)";
  let hasVerifier = 1;
}

def Kite_DotWaitOp : Kite_Op<"dot_wait", [MemoryEffects<[MemRead, MemWrite]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "Wait for asynchronous dots (wgmma) to complete";
  let description = [{
    Waits until at most `pending` of the asynchronous dots this thread
    issued (kite.dot_staged with engine = wgmma) are still running; returns
    `acc`, which is then complete (pending = 0) or still being accumulated
    into by the most recent `pending` dots. Uses of the accumulator go
    through the result, so they cannot move above the wait.

    ```mlir
    %r = kite.dot_wait %acc pending 1 : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$acc, I32Attr:$pending);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$acc `pending` $pending attr-dict `:` type($acc)";
}

#endif // KITE_DIALECT_KITE_IR_KITESCHEDULEOPS_TD
