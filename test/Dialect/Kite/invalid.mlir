// RUN: kite-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the kite ops.

func.func @program_id_axis() {
  // expected-error @+1 {{'kite.program_id' op axis must be 0, 1 or 2, got 3}}
  %0 = kite.program_id 3
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{'kite.num_programs' op axis must be 0, 1 or 2, got -1}}
  %0 = kite.num_programs -1
  return
}

// -----

func.func @arange_rank() {
  // expected-error @+1 {{result must be a 1-D block, got rank 2}}
  %0 = kite.arange 0, 16 : tensor<4x4xi32>
  return
}

// -----

func.func @arange_empty() {
  // expected-error @+1 {{end (8) must be greater than start (8)}}
  %0 = kite.arange 8, 8 : tensor<1xi32>
  return
}

// -----

func.func @arange_not_pow2() {
  // expected-error @+1 {{length end - start = 100 must be a power of two}}
  %0 = kite.arange 0, 100 : tensor<100xi32>
  return
}

// -----

func.func @arange_too_long() {
  // expected-error @+1 {{length 2097152 exceeds the maximum block size 2^20}}
  %0 = kite.arange 0, 2097152 : tensor<2097152xi32>
  return
}

// -----

func.func @arange_size() {
  // expected-error @+1 {{result has 32 elements but the range [0, 16) has 16}}
  %0 = kite.arange 0, 16 : tensor<32xi32>
  return
}

// -----

func.func @arange_type() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer values}}
  %0 = kite.arange 0, 16 : tensor<16xi64>
  return
}

// -----

func.func @splat_type(%x: i32) {
  // expected-error @+1 {{result element type 'f32' does not match the scalar type 'i32'}}
  %0 = kite.splat %x : i32 -> tensor<16xf32>
  return
}

// -----

func.func @splat_of_block(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be Kite scalar}}
  %0 = kite.splat %x : tensor<4xi32> -> tensor<16xi32>
  return
}

// -----

func.func @broadcast_element(%x: tensor<1x16xi32>) {
  // expected-error @+1 {{result element type 'i64' does not match the operand element type 'i32'}}
  %0 = kite.broadcast %x : tensor<1x16xi32> -> tensor<8x16xi64>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<16xi32>) {
  // expected-error @+1 {{operand rank 1 differs from result rank 2; use kite.expand_dims to add dimensions}}
  %0 = kite.broadcast %x : tensor<16xi32> -> tensor<8x16xi32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x16xi32>) {
  // expected-error @+1 {{cannot broadcast dimension 0 of size 2 to 8; only size-1 dimensions broadcast}}
  %0 = kite.broadcast %x : tensor<2x16xi32> -> tensor<8x16xi32>
  return
}

// -----

func.func @expand_dims_axis(%x: tensor<16xi32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 1] for a rank-1 operand}}
  %0 = kite.expand_dims %x axis 2 : tensor<16xi32> -> tensor<16x1xi32>
  return
}

// -----

func.func @expand_dims_result(%x: tensor<16xi32>) {
  // expected-error @+1 {{result type 'tensor<1x16xi32>' should be 'tensor<16x1xi32>'}}
  %0 = kite.expand_dims %x axis 1 : tensor<16xi32> -> tensor<1x16xi32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<16x!kite.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{offset shape [32] does not match pointer shape [16]}}
  %0 = kite.addptr %p, %o : tensor<16x!kite.ptr<f32>>, tensor<32xi32>
  return
}

// -----

func.func @addptr_scalar_offset(%p: tensor<16x!kite.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{offset shape scalar does not match pointer shape [16]}}
  %0 = kite.addptr %p, %o : tensor<16x!kite.ptr<f32>>, i32
  return
}

// -----

func.func @addptr_offset_type(%p: !kite.ptr<f32>, %o: i16) {
  // expected-error @+1 {{offsets must be i32 or i64, got 'i16'}}
  %0 = kite.addptr %p, %o : !kite.ptr<f32>, i16
  return
}

// -----

func.func @load_result(%p: tensor<16x!kite.ptr<f32>>) {
  // expected-error @+1 {{result type 'tensor<16xf16>' does not match the pointer type 'tensor<16x!kite.ptr<f32>>'; expected 'tensor<16xf32>'}}
  %0 = "kite.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<16x!kite.ptr<f32>>) -> tensor<16xf16>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<16x!kite.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{mask shape [8] does not match pointer shape [16]}}
  %0 = "kite.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<16x!kite.ptr<f32>>, tensor<8xi1>) -> tensor<16xf32>
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<16x!kite.ptr<f32>>, %o: tensor<16xf32>) {
  // expected-error @+1 {{'other' requires a mask}}
  %0 = "kite.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<16x!kite.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_other_type(%p: tensor<16x!kite.ptr<f32>>, %m: tensor<16xi1>, %o: f32) {
  // expected-error @+1 {{'other' has type 'f32' but the loaded value has type 'tensor<16xf32>'}}
  %0 = "kite.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<16x!kite.ptr<f32>>, tensor<16xi1>, f32) -> tensor<16xf32>
  return
}

// -----

func.func @load_mask_type(%p: tensor<16x!kite.ptr<f32>>, %m: tensor<16xi32>) {
  // expected-error @+1 {{operand #1 must be i1 or block of i1, but got 'tensor<16xi32>'}}
  %0 = "kite.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<16x!kite.ptr<f32>>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_too_many(%p: tensor<16x!kite.ptr<f32>>, %m: tensor<16xi1>, %o: tensor<16xf32>) {
  // expected-error @+1 {{expected at most 3 operands (ptr, mask, other), got 4}}
  %0 = kite.load %p, %m, %o, %o : tensor<16x!kite.ptr<f32>>
  return
}

// -----

func.func @load_not_pointer(%p: tensor<16xf32>) {
  // expected-error @+1 {{expected a pointer or block of pointers type after ':', got 'tensor<16xf32>'}}
  %0 = kite.load %p : tensor<16xf32>
  return
}

// -----

func.func @load_mask_wrong_type(%p: tensor<16x!kite.ptr<f32>>, %m: tensor<16xi32>) {
  // expected-error @+2 {{use of value '%m' expects different type than prior uses: 'tensor<16xi1>' vs 'tensor<16xi32>'}}
  // expected-note @-2 {{prior use here}}
  %0 = kite.load %p, %m : tensor<16x!kite.ptr<f32>>
  return
}

// -----

func.func @store_value(%p: tensor<16x!kite.ptr<f32>>, %v: tensor<16xf16>) {
  // expected-error @+1 {{stored value has type 'tensor<16xf16>' but the pointer type 'tensor<16x!kite.ptr<f32>>' expects 'tensor<16xf32>'}}
  "kite.store"(%p, %v) : (tensor<16x!kite.ptr<f32>>, tensor<16xf16>) -> ()
  return
}

// -----

func.func @store_mask_shape(%p: tensor<16x!kite.ptr<f32>>, %v: tensor<16xf32>, %m: tensor<16x1xi1>) {
  // expected-error @+1 {{mask shape [16, 1] does not match pointer shape [16]}}
  "kite.store"(%p, %v, %m) : (tensor<16x!kite.ptr<f32>>, tensor<16xf32>, tensor<16x1xi1>) -> ()
  return
}

// -----

func.func @store_operands(%p: tensor<16x!kite.ptr<f32>>) {
  // expected-error @+1 {{expected 2 or 3 operands (ptr, value, mask), got 1}}
  kite.store %p : tensor<16x!kite.ptr<f32>>
  return
}

// -----

func.func @rand_offsets(%s: i32, %o: tensor<16xi16>) {
  // expected-error @+1 {{offsets must be i32 or i64, got 'i16'}}
  %0 = kite.rand %s, %o : i32, tensor<16xi16> -> tensor<16xf32>
  return
}

// -----

func.func @rand_result(%s: i32, %o: tensor<16xi32>) {
  // expected-error @+1 {{result type 'tensor<16xf64>' should be 'tensor<16xf32>' ('f32' with the offsets' shape)}}
  %0 = kite.rand %s, %o : i32, tensor<16xi32> -> tensor<16xf64>
  return
}

// -----

func.func @randint_result(%s: i64, %o: tensor<16xi64>) {
  // expected-error @+1 {{result type 'tensor<16xi64>' should be 'tensor<16xi32>' ('i32' with the offsets' shape)}}
  %0 = kite.randint %s, %o : i64, tensor<16xi64> -> tensor<16xi64>
  return
}

// -----

func.func @randn_result(%s: i32, %o: tensor<16xi32>) {
  // expected-error @+1 {{result type 'tensor<8xf32>' should be 'tensor<16xf32>' ('f32' with the offsets' shape)}}
  %0 = kite.randn %s, %o : i32, tensor<16xi32> -> tensor<8xf32>
  return
}

// -----

func.func @rand_rounds(%s: i32, %o: tensor<16xi32>) {
  // expected-error @+1 {{rounds must be 1 .. 64, got 0}}
  %0 = kite.rand %s, %o {rounds = 0 : i32} : i32, tensor<16xi32> -> tensor<16xf32>
  return
}

// -----

func.func @rand_seed(%s: f32, %o: tensor<16xi32>) {
  // expected-error @+1 {{operand #0 must be 32-bit signless integer or 64-bit signless integer}}
  %0 = kite.rand %s, %o : f32, tensor<16xi32> -> tensor<16xf32>
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operands must be 2-D blocks, got ranks 1, 2 and 2}}
  %0 = kite.dot %a, %b, %c : tensor<16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{a and b must have the same element type, got 'f16' and 'bf16'}}
  %0 = kite.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{accumulator must be f32, got 'f16'}}
  %0 = kite.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is 16x32 but b is 16x16}}
  %0 = kite.dot %a, %b, %c : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{accumulator must be 16x64, got 16x32}}
  %0 = kite.dot %a, %b, %c : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @dot_int(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or 16-bit float or bfloat16 type or 32-bit float values}}
  %0 = kite.dot %a, %b, %c : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<16x16xf32>) {
  // expected-error @+1 {{axis 2 is out of range for a rank-2 block}}
  %0 = kite.reduce sum %x axis 2 : tensor<16x16xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_bool(%x: tensor<16xi1>) {
  // expected-error @+1 {{cannot reduce a block of 'i1'}}
  %0 = kite.reduce max %x axis 0 : tensor<16xi1> -> i1
  return
}

// -----

func.func @reduce_ptr(%x: tensor<16x!kite.ptr<f32>>) {
  // expected-error @+1 {{cannot reduce a block of '!kite.ptr<f32>'}}
  %0 = kite.reduce max %x axis 0 : tensor<16x!kite.ptr<f32>> -> !kite.ptr<f32>
  return
}

// -----

func.func @reduce_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{result type 'tensor<8xf32>' should be 'tensor<16xf32>'}}
  %0 = kite.reduce sum %x axis 0 : tensor<8x16xf32> -> tensor<8xf32>
  return
}

// -----

func.func @reduce_kind(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, xor, argmax, argmin, custom, umax, umin, argumax, argumin, or]}}
  %0 = kite.reduce prod %x axis 0 : tensor<8xf32> -> f32
  return
}

// -----

// expected-error @+1 {{!kite.ptr cannot point to 'i7'; expected i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64}}
func.func @bad_pointee(%p: !kite.ptr<i7>) {
  return
}

// -----

func.func @stage_operand(%p: tensor<64x32x!kite.ptr<f32>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{operand must be 0 (A) or 1 (B), got 2}}
  kite.async_stage %p, %m slot %s operand 2 dot [64, 64, 32] : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi1>
  return
}

// -----

func.func @stage_shape(%p: tensor<64x32x!kite.ptr<f32>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{block shape [64, 32] is not the dot's operand 1 shape}}
  kite.async_stage %p, %m slot %s operand 1 dot [64, 64, 32] : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi1>
  return
}

// -----

func.func @stage_type(%p: tensor<64x32x!kite.ptr<f16>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{stages f32 blocks only for the fma engine, got 'f16'}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] : tensor<64x32x!kite.ptr<f16>>, tensor<64x32xi1>
  return
}

// -----

func.func @stage_mask(%p: tensor<64x32x!kite.ptr<f32>>, %m: tensor<32x64xi1>, %s: i32) {
  // expected-error @+1 {{mask shape [32, 64] does not match pointer shape [64, 32]}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] : tensor<64x32x!kite.ptr<f32>>, tensor<32x64xi1>
  return
}

// -----

func.func @stage_dot_shape(%p: tensor<64x32x!kite.ptr<f32>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{dot shape must be [M, N, K]}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 32] : tensor<64x32x!kite.ptr<f32>>, tensor<64x32xi1>
  return
}

// -----

func.func @stage_wgmma_type(%p: tensor<64x32x!kite.ptr<i32>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{stages fp8, f16, bf16 or f32 blocks only for the wgmma engine, got 'i32'}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] engine = wgmma : tensor<64x32x!kite.ptr<i32>>, tensor<64x32xi1>
  return
}

// -----

func.func @dot_staged_wgmma_type(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = wgmma needs operand_type f16, bf16, f32 (tf32) or fp8}}
  %r = kite.dot_staged %acc slot %s of 4 k 32 engine = wgmma : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_wgmma_k(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = wgmma needs k a multiple of 16, got 24}}
  %r = kite.dot_staged %acc slot %s of 4 k 24 engine = wgmma {operand_type = bf16} : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_wgmma_tf32_k(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = wgmma needs k a multiple of 8, got 12}}
  %r = kite.dot_staged %acc slot %s of 4 k 12 engine = wgmma b_k_major {operand_type = f32} : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_wgmma_tf32_n_major(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = wgmma and 'f32' operands needs b_k_major (wgmma transposes f16 and bf16 only)}}
  %r = kite.dot_staged %acc slot %s of 4 k 32 engine = wgmma {operand_type = f32} : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_mma_b_k_major(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{b_k_major and a_m_major need engine = wgmma, or engine = mma with f16 or bf16 operands}}
  %r = kite.dot_staged %acc slot %s of 3 k 32 engine = mma b_k_major {operand_type = f32} : tensor<64x64xf32>
  return
}

// -----

func.func @stage_transposed_a_shape(%p: tensor<64x32x!kite.ptr<f16>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{block shape [64, 32] is not the dot's operand 0 shape (transposed)}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] engine = wgmma transposed : tensor<64x32x!kite.ptr<f16>>, tensor<64x32xi1>
  return
}

// -----

func.func @stage_transposed_mma(%p: tensor<32x64x!kite.ptr<f32>>, %m: tensor<32x64xi1>, %s: i32) {
  // expected-error @+1 {{stages a transposed block for the mma engine only of f16 or bf16 (ldmatrix), got 'f32'}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] engine = mma transposed : tensor<32x64x!kite.ptr<f32>>, tensor<32x64xi1>
  return
}

// -----

func.func @stage_transposed_fma(%p: tensor<32x64x!kite.ptr<f32>>, %m: tensor<32x64xi1>, %s: i32) {
  // expected-error @+1 {{stages a transposed block only for the wgmma and mma engines}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] transposed : tensor<32x64x!kite.ptr<f32>>, tensor<32x64xi1>
  return
}

// -----

func.func @stage_transposed_a_tf32(%p: tensor<32x64x!kite.ptr<f32>>, %m: tensor<32x64xi1>, %s: i32) {
  // expected-error @+1 {{stages a transposed A (M-major) only of f16 or bf16}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] engine = wgmma transposed : tensor<32x64x!kite.ptr<f32>>, tensor<32x64xi1>
  return
}

// -----

func.func @dot_staged_a_m_major_tf32(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{a_m_major needs f16 or bf16 operands}}
  %r = kite.dot_staged %acc slot %s of 4 k 32 engine = wgmma b_k_major a_m_major {operand_type = f32} : tensor<64x64xf32>
  return
}

// -----

func.func @stage_transposed_shape(%p: tensor<32x64x!kite.ptr<f16>>, %m: tensor<32x64xi1>, %s: i32) {
  // expected-error @+1 {{block shape [32, 64] is not the dot's operand 1 shape (transposed)}}
  kite.async_stage %p, %m slot %s operand 1 dot [128, 64, 32] engine = wgmma transposed : tensor<32x64x!kite.ptr<f16>>, tensor<32x64xi1>
  return
}

// -----

func.func @stage_mma_type(%p: tensor<64x32x!kite.ptr<i8>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{stages f16, bf16 or f32 blocks only for the mma engine, got 'i8'}}
  kite.async_stage %p, %m slot %s operand 0 dot [64, 64, 32] engine = mma : tensor<64x32x!kite.ptr<i8>>, tensor<64x32xi1>
  return
}

// -----

func.func @dot_staged_mma_type(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = mma needs operand_type f16, bf16 or f32 (tf32)}}
  %r = kite.dot_staged %acc slot %s of 3 k 32 engine = mma {operand_type = f64} : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_mma_k16(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = mma needs k a multiple of 16, got 24}}
  %r = kite.dot_staged %acc slot %s of 3 k 24 engine = mma {operand_type = f16} : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_mma_k8(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = mma needs k a multiple of 8, got 12}}
  %r = kite.dot_staged %acc slot %s of 3 k 12 engine = mma {operand_type = f32} : tensor<64x64xf32>
  return
}

// -----

func.func @dot_staged_fma_type(%acc: tensor<64x64xf32>, %s: i32) {
  // expected-error @+1 {{with engine = fma stages f32 operands, got 'f16'}}
  %r = kite.dot_staged %acc slot %s of 3 k 32 {operand_type = f16} : tensor<64x64xf32>
  return
}

// -----

func.func @trans_order(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order must be a permutation of [0, 2)}}
  %t = kite.trans %x order [0, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result dimension 0 is 4 but operand dimension 1 is 8}}
  %t = kite.trans %x order [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{operand has 32 elements but the result 16}}
  %t = kite.reshape %x : tensor<4x8xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_xor_float(%x: tensor<8xf32>) {
  // expected-error @+1 {{xor reduces integers, got 'f32'}}
  %0 = kite.reduce xor %x axis 0 : tensor<8xf32> -> f32
  return
}

// -----

func.func @reduce_or_float(%x: tensor<8xf32>) {
  // expected-error @+1 {{or reduces integers, got 'f32'}}
  %0 = kite.reduce or %x axis 0 : tensor<8xf32> -> f32
  return
}

// -----

func.func @sort_k_not_power_of_two(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{keeps a power-of-two number of elements of each row, not 3}}
  %0 = kite.sort %x dim 1 k 3 : tensor<2x8xf32>
  return
}

// -----

func.func @sort_merge_k(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{merges whole rows: merge and k do not go together}}
  %0 = kite.sort %x dim 1 k 4 merge : tensor<2x8xf32>
  return
}

// -----

func.func @sort_k_too_big(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'kite.sort' keeps k = 16 of each row; k must lie in [1, 8]}}
  %0 = kite.sort %x dim 1 k 16 : tensor<2x8xf32>
  return
}

// -----

func.func @reduce_argmax_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{result type 'f32' should be 'i32'}}
  %0 = kite.reduce argmax %x axis 0 : tensor<8xf32> -> f32
  return
}

// -----

func.func @scan_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{axis 1 is out of range for a rank-1 block}}
  %0 = kite.scan sum %x axis 1 : tensor<8xf32>
  return
}

// -----

func.func @hint_contiguity(%x: tensor<8xi32>) {
  // expected-error @+1 {{contiguity 3 must divide the block's 8 elements}}
  %0 = kite.hint %x {contiguity = 3 : i64} : tensor<8xi32>
  return
}

// -----

func.func @atomic_and_float(%p: !kite.ptr<f32>, %v: f32) {
  // expected-error @+1 {{atomic and does not take 'f32'}}
  %0 = kite.atomic_rmw and %p, %v : !kite.ptr<f32>, f32 -> f32
  return
}

// -----

func.func @atomic_value_type(%p: tensor<4x!kite.ptr<i32>>, %v: tensor<4xi64>) {
  // expected-error @+1 {{operand type 'tensor<4xi64>' should be 'tensor<4xi32>' (the pointee with the pointers' shape)}}
  %0 = kite.atomic_rmw add %p, %v : tensor<4x!kite.ptr<i32>>, tensor<4xi64> -> tensor<4xi32>
  return
}

// -----

func.func @atomic_mask_shape(%p: tensor<4x!kite.ptr<i32>>, %v: tensor<4xi32>, %m: tensor<8xi1>) {
  // expected-error @+1 {{mask shape [8] does not match pointer shape [4]}}
  %0 = kite.atomic_rmw add %p, %v, %m : tensor<4x!kite.ptr<i32>>, tensor<4xi32>, tensor<8xi1> -> tensor<4xi32>
  return
}

// -----

func.func @cas_half(%p: !kite.ptr<f16>, %c: f16, %v: f16) {
  // expected-error @+1 {{atomic_cas takes 32- and 64-bit types, got 'f16'}}
  %0 = kite.atomic_cas %p, %c, %v : !kite.ptr<f16>, f16, f16 -> f16
  return
}

// -----

func.func @randint4x_type(%s: i32, %o: tensor<4xi32>) {
  // expected-error @+1 {{result type 'tensor<4xf32>' should be 'tensor<4xi32>'}}
  %a, %b, %c, %d = kite.randint4x %s, %o : i32, tensor<4xi32> -> tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
  return
}

// -----

// expected-error @+1 {{'kite.autotune': num_warps must be a power of two in [1, 32]}}
func.func @autotune_warps() attributes {kite.kernel, kite.autotune = [{num_warps = 3 : i32}]} {
  return
}

// -----

// expected-error @+1 {{'kite.autotune_key' must be an array of parameter names}}
func.func @autotune_key() attributes {kite.kernel, kite.autotune = [{B = 1 : i64}], kite.autotune_key = [1]} {
  return
}

// -----

func.func @flip_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{dim 1 is out of range for a rank-1 block}}
  %0 = kite.flip %x dim 1 : tensor<4xf32>
  return
}

// -----

func.func @join_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{needs 'tensor<4x3xf32>' to be 'tensor<4xf32>''s shape with a last dimension of 2}}
  %0 = kite.join %a, %a : tensor<4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @split_shape(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{needs 'tensor<4x2xf32>' to be 'tensor<2xf32>''s shape with a last dimension of 2}}
  %a, %b = kite.split %x : tensor<4x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @sort_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{sorts along the last dimension only (1), not 0}}
  %0 = kite.sort %x dim 0 : tensor<4x8xf32>
  return
}

// -----

func.func @sort_length(%x: tensor<6xi32>) {
  // expected-error @+1 {{needs a power-of-two length to sort, got 6}}
  %0 = kite.sort %x dim 0 : tensor<6xi32>
  return
}

// -----

func.func @custom_without_region(%x: tensor<8xi32>) {
  // expected-error @+1 {{custom needs a combine region (one block)}}
  %0 = kite.reduce custom %x axis 0 : tensor<8xi32> -> i32
  return
}

// -----

func.func @combine_types(%x: tensor<8xi32>) {
  // expected-error @+1 {{the combine region takes two 'i32' arguments}}
  %0 = kite.scan custom %x axis 0 : tensor<8xi32> combine {
  ^bb0(%a: f32, %b: f32):
    kite.yield %a : f32
  }
  return
}

// -----

func.func @region_not_custom(%x: tensor<8xi32>) {
  // expected-error @+1 {{has a combine region but is not custom}}
  %0 = kite.reduce sum %x axis 0 : tensor<8xi32> -> i32 combine {
  ^bb0(%a: i32, %b: i32):
    kite.yield %a : i32
  }
  return
}

// -----

func.func @make_tensor_descriptor_rank(%p: !kite.ptr<f16>, %n: i32) {
  // expected-error @+1 {{takes one shape and one stride a dimension of [64, 64], got 1 and 1}}
  %d = kite.make_tensor_descriptor %p, [%n], [%n] : !kite.ptr<f16>, [i32], [i32] -> !kite.tensordesc<tensor<64x64xf16>>
  return
}

// -----

func.func @make_tensor_descriptor_pointee(%p: !kite.ptr<f32>, %n: i32) {
  // expected-error @+1 {{base points to 'f32', the blocks hold 'f16'}}
  %d = kite.make_tensor_descriptor %p, [%n], [%n] : !kite.ptr<f32>, [i32], [i32] -> !kite.tensordesc<tensor<64xf16>>
  return
}

// -----

func.func @descriptor_load_offsets(%d: !kite.tensordesc<tensor<16x16xf32>>, %i: i32) {
  // expected-error @+1 {{takes 2 offsets, got 1}}
  %x = kite.descriptor_load %d[%i] : !kite.tensordesc<tensor<16x16xf32>> -> tensor<16x16xf32>
  return
}

// -----

func.func @descriptor_store_value(%d: !kite.tensordesc<tensor<16xf32>>, %i: i32, %v: tensor<32xf32>) {
  // expected-error @+1 {{is not the descriptor's block}}
  kite.descriptor_store %d[%i], %v : !kite.tensordesc<tensor<16xf32>>, tensor<32xf32>
  return
}

// -----

func.func @tma_stage_shape(%d: !kite.tensordesc<tensor<64xf16>>, %i: i32, %p: i1) {
  // expected-error @+1 {{block shape [64] is not the dot's operand 0 shape}}
  kite.tma_stage %d[%i] if %p slot %i operand 0 dot [64, 64, 64] : !kite.tensordesc<tensor<64xf16>>
  return
}

// -----

func.func @tma_store_rank(%d: !kite.tensordesc<tensor<64xf16>>, %i: i32, %v: tensor<64xf16>) {
  // expected-error @+1 {{stores 2-D blocks at two offsets}}
  kite.tma_store %d[%i], %v : !kite.tensordesc<tensor<64xf16>>, tensor<64xf16>
  return
}

// -----

func.func @tma_store_value(%d: !kite.tensordesc<tensor<64x64xf16>>, %i: i32, %v: tensor<64x32xf16>) {
  // expected-error @+1 {{is not the descriptor's block}}
  kite.tma_store %d[%i, %i], %v : !kite.tensordesc<tensor<64x64xf16>>, tensor<64x32xf16>
  return
}

// -----

func.func @tma_store_type(%d: !kite.tensordesc<tensor<64x64xi32>>, %i: i32, %v: tensor<64x64xi32>) {
  // expected-error @+1 {{stores f16, bf16 or f32 blocks, got 'i32'}}
  kite.tma_store %d[%i, %i], %v : !kite.tensordesc<tensor<64x64xi32>>, tensor<64x64xi32>
  return
}

// -----

func.func @tma_store_rows(%d: !kite.tensordesc<tensor<64x8xf16>>, %i: i32, %v: tensor<64x8xf16>) {
  // expected-error @+1 {{needs at most 256 rows of a multiple of 32 bytes, got 64 rows of 16}}
  kite.tma_store %d[%i, %i], %v : !kite.tensordesc<tensor<64x8xf16>>, tensor<64x8xf16>
  return
}

// -----

func.func @tma_init_slots() {
  // expected-error @+1 {{takes 1 to 16 slots, got 0}}
  kite.tma_init slots 0 arrivals 2
  return
}

// -----

// expected-error @+1 {{'kite.warp_specialize' must be a bool attribute on an scf.for}}
func.func @warp_specialize_on_func() attributes {kite.kernel, kite.warp_specialize = true} {
  return
}

// -----

func.func @loop_num_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'kite.num_stages' must be an i32 attribute in [1, 8]}}
  scf.for %i = %c0 to %n step %c1 {
  } {kite.num_stages = 9 : i32}
  return
}

// -----

func.func @inline_asm_pack_not_power_of_two(%a: tensor<128xi32>) {
  // expected-error @+1 {{'kite.inline_asm' op pack must be a power of two in [1, 64], got 3}}
  %0 = kite.inline_asm "mov.b32 $0, $1;" "=r,r" pure(%a) {pack = 3 : i32} : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_pack_scalar(%a: i32) {
  // expected-error @+1 {{'kite.inline_asm' op pack 2 needs blocks, got 'i32'}}
  %0 = kite.inline_asm "mov.b32 $0, $1;" "=r,=r,r,r" pure(%a) {pack = 2 : i32} : (i32) -> i32
  return
}

// -----

func.func @inline_asm_pack_subword(%a: tensor<128xi8>) {
  // expected-error @+1 {{'kite.inline_asm' op pack 2 of 'i8' elements does not fill 32-bit registers (pack x bits must be a multiple of 32)}}
  %0 = kite.inline_asm "mov.b32 $0, $1;" "=r,r" pure(%a) {pack = 2 : i32} : (tensor<128xi8>) -> tensor<128xi8>
  return
}

// -----

func.func @inline_asm_pack_constraints(%a: tensor<128xf16>) {
  // expected-error @+1 {{'kite.inline_asm' op constraints "=r,r,r" name 1 outputs and 2 inputs; with pack 2 the op needs 1 output and 1 input registers}}
  %0 = kite.inline_asm "mov.b32 $0, $1;" "=r,r,r" pure(%a) {pack = 2 : i32} : (tensor<128xf16>) -> tensor<128xf16>
  return
}

// -----

func.func @inline_asm_pack_bools(%a: tensor<128xi1>) {
  // expected-error @+1 {{'kite.inline_asm' op pack 2 of i1 elements: convert them to i8 or i32}}
  %0 = kite.inline_asm "mov.b32 $0, $1;" "=r,=r,r" pure(%a) {pack = 2 : i32} : (tensor<128xi1>) -> tensor<128xi32>
  return
}

// -----

// The ping-pong turns belong to a kernel of two consumer groups.
func.func @turn_without_groups() attributes {kite.kernel} {
  // expected-error @+1 {{'kite.turn_wait' op needs a kernel of two consumer groups ('kite.consumer_groups' = 2, as kite-stage-dot-operands makes for range(..., ping_pong=True))}}
  kite.turn_wait
  return
}

// -----

func.func @pass_without_groups() attributes {kite.kernel, kite.consumer_groups = 1 : i32} {
  // expected-error @+1 {{'kite.turn_pass' op needs a kernel of two consumer groups}}
  kite.turn_pass
  return
}

// -----

func.func @reduce_umax_float(%x: tensor<8xf32>) {
  // expected-error @+1 {{umax compares integers as unsigned, got 'f32'}}
  %0 = kite.reduce umax %x axis 0 : tensor<8xf32> -> f32
  return
}

// -----

func.func @atomic_umax_float(%p: !kite.ptr<f32>, %v: f32) {
  // expected-error @+1 {{atomic umax does not take 'f32'}}
  %0 = kite.atomic_rmw umax %p, %v : !kite.ptr<f32>, f32 -> f32
  return
}

// -----

func.func @sort_unsigned_float(%x: tensor<8xf32>) {
  // expected-error @+1 {{compares integers as unsigned, not 'f32'}}
  %0 = kite.sort %x dim 0 unsigned : tensor<8xf32>
  return
}

// -----

// expected-error @+1 {{'kite.unsigned' of argument #0 needs an integer or a pointer to integers, got '!kite.ptr<f32>'}}
func.func @unsigned_float_arg(%p: !kite.ptr<f32> {kite.unsigned}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.descriptor' of argument #0: block sizes must be powers of two, got 3}}
func.func @descriptor_block(%p: !kite.ptr<f32> {kite.descriptor = array<i64: 3>}, %n: i32, %s: i32) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.descriptor' of argument #0 needs 4 i32 arguments after it (sizes, strides)}}
func.func @descriptor_missing(%p: !kite.ptr<f32> {kite.descriptor = array<i64: 4, 4>}, %n: i32) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.descriptor' of argument #0: argument #2 (a size or stride) must be i32, got 'i64'}}
func.func @descriptor_i64(%p: !kite.ptr<f32> {kite.descriptor = array<i64: 4>}, %n: i32, %s: i64) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.descriptor' of argument #0 needs a pointer argument (the base), got 'i32'}}
func.func @descriptor_scalar(%p: i32 {kite.descriptor = array<i64: 4>}, %n: i32, %s: i32) attributes {kite.kernel} {
  return
}

// -----

func.func @gather_shape(%x: tensor<4x8xf32>, %i: tensor<2x2xi32>) {
  // expected-error @+1 {{index dimension 0 (2) must match the source's (4): only axis 1 may differ}}
  %0 = kite.gather %x[%i] axis 1 : tensor<4x8xf32>, tensor<2x2xi32> -> tensor<2x2xf32>
  return
}

// -----

func.func @gather_float_index(%x: tensor<8xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{needs an integer index, got 'f32'}}
  %0 = kite.gather %x[%i] axis 0 : tensor<8xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<8xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{should have the index's shape and the source's element type}}
  %0 = kite.gather %x[%i] axis 0 : tensor<8xf32>, tensor<4xi32> -> tensor<8xf32>
  return
}

// -----

func.func @histogram_float(%x: tensor<8xf32>) {
  // expected-error @+1 {{counts integers, got 'f32'}}
  %0 = kite.histogram %x : tensor<8xf32> -> tensor<4xi32>
  return
}

// -----

func.func @histogram_rank(%x: tensor<2x4xi32>) {
  // expected-error @+1 {{takes a 1-D block, got rank 2}}
  %0 = kite.histogram %x : tensor<2x4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @tuple_not_custom(%x: tensor<8xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{reduces several blocks only with a custom combine, not sum}}
  %0:2 = kite.reduce sum %x, %y axis 0 : tensor<8xf32>, tensor<8xf32> -> f32, f32
  return
}

// -----

func.func @tuple_shapes(%x: tensor<8xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{reduces blocks of one shape, got 'tensor<8xf32>' and 'tensor<4xf32>'}}
  %0:2 = kite.reduce custom %x, %y axis 0 : tensor<8xf32>, tensor<4xf32> -> f32, f32 combine {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
    kite.yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @tuple_results(%x: tensor<8xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{has 1 results for 2 blocks}}
  %0 = kite.reduce custom %x, %y axis 0 : tensor<8xf32>, tensor<8xi32> -> f32 combine {
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    kite.yield %a, %b : f32, i32
  }
  return
}

// -----

func.func @tuple_region_args(%x: tensor<8xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{the combine region takes two sides of ('f32', 'i32') as its 4 arguments}}
  %0:2 = kite.reduce custom %x, %y axis 0 : tensor<8xf32>, tensor<8xi32> -> f32, i32 combine {
  ^bb0(%a: f32, %c: f32, %b: i32, %d: i32):
    kite.yield %a, %b : f32, i32
  }
  return
}

// -----

func.func @tuple_region_yield(%x: tensor<8xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{the combine region must yield one each of ('f32', 'i32')}}
  %0:2 = kite.reduce custom %x, %y axis 0 : tensor<8xf32>, tensor<8xi32> -> f32, i32 combine {
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    kite.yield %a : f32
  }
  return
}

// -----

func.func @map_shapes(%x: tensor<8xf32>) {
  // expected-error @+1 {{takes and gives blocks of one shape}}
  %0 = kite.map_elementwise %x : tensor<8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    kite.yield %a : f32
  }
  return
}

// -----

func.func @map_args(%x: tensor<8xf32>) {
  // expected-error @+1 {{the body's argument 0 is 'i32', its block's elements 'f32'}}
  %0 = kite.map_elementwise %x : tensor<8xf32> -> tensor<8xi32> {
  ^bb0(%a: i32):
    kite.yield %a : i32
  }
  return
}

// -----

func.func @map_yield(%x: tensor<8xf32>) {
  // expected-error @+1 {{the body yields 'f32' for a result of 'tensor<8xi32>'}}
  %0 = kite.map_elementwise %x : tensor<8xf32> -> tensor<8xi32> {
  ^bb0(%a: f32):
    kite.yield %a : f32
  }
  return
}

// -----

func.func @map_pack(%x: tensor<8xf32>) {
  // expected-error @+1 {{pack must be a power of two dividing the 8 elements, got 3}}
  %0 = kite.map_elementwise %x pack 3 : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    kite.yield %a, %b, %c : f32, f32, f32
  }
  return
}

// -----

func.func @map_pack_args(%x: tensor<8xf32>) {
  // expected-error @+1 {{the body takes 2 element(s) of each of the 1 blocks, it takes 1}}
  %0 = kite.map_elementwise %x pack 2 : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32):
    kite.yield %a, %a : f32, f32
  }
  return
}

// -----

func.func @map_pack_yield(%x: tensor<8xf32>) {
  // expected-error @+1 {{the body must yield 2 element(s) of each of the 1 results}}
  %0 = kite.map_elementwise %x pack 2 : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    kite.yield %a : f32
  }
  return
}

// -----

func.func @map_memory(%x: tensor<8xf32>, %p: !kite.ptr<f32>) {
  // expected-error @+1 {{the body computes with elements only: no blocks, no memory}}
  %0 = kite.map_elementwise %x : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32):
    %v = kite.load %p : !kite.ptr<f32>
    kite.yield %v : f32
  }
  return
}

// -----

func.func @copy_place(%p: tensor<64x32x!kite.ptr<i8>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{place must be [offset, slot bytes] with a 16-byte aligned offset}}
  kite.async_copy %p, %m slot %s place [8, 4096] slots 3 : tensor<64x32x!kite.ptr<i8>>, tensor<64x32xi1>
  return
}

// -----

func.func @copy_fit(%p: tensor<64x32x!kite.ptr<f16>>, %m: tensor<64x32xi1>, %s: i32) {
  // expected-error @+1 {{block of 4096 bytes at offset 2048 does not fit a slot of 4096 bytes}}
  kite.async_copy %p, %m slot %s place [2048, 4096] slots 3 : tensor<64x32x!kite.ptr<f16>>, tensor<64x32xi1>
  return
}

// -----

func.func @copy_mask(%p: tensor<64x32x!kite.ptr<i8>>, %m: tensor<32x64xi1>, %s: i32) {
  // expected-error @+1 {{mask shape [32, 64] does not match pointer shape [64, 32]}}
  kite.async_copy %p, %m slot %s place [0, 4096] slots 3 : tensor<64x32x!kite.ptr<i8>>, tensor<32x64xi1>
  return
}

// -----

func.func @staged_slots(%s: i32) {
  // expected-error @+1 {{needs at least one slot, got 0}}
  %v = kite.staged_load slot %s place [0, 4096] slots 0 : tensor<64x32xi8>
  return
}

// -----

func.func @staged_bool(%s: i32) {
  // expected-error @+1 {{stages blocks of numbers (not i1 or pointers), got 'i1'}}
  %v = kite.staged_load slot %s place [0, 4096] slots 2 : tensor<64x32xi1>
  return
}

// -----

func.func @stage_operand_shape(%b: tensor<128x64xf16>, %s: i32) {
  // expected-error @+1 {{block shape [128, 64] is not the dot's operand 1 shape}}
  kite.stage_operand %b slot %s place [16384, 32768] slots 3 operand 1 dot [128, 128, 64] : tensor<128x64xf16>
  return
}

// -----

func.func @stage_operand_transposed_shape(%a: tensor<128x64xf8E4M3FN>, %s: i32) {
  // expected-error @+1 {{is not the dot's operand 0 shape}}
  kite.stage_operand %a slot %s place [0, 8192] slots 2 operand 0 dot [128, 128, 64] transposed : tensor<128x64xf8E4M3FN>
  return
}

// -----

func.func @stage_operand_f32_fit(%b: tensor<32x128xf32>, %s: i32) {
  // 4-byte elements: 16 KB.
  // expected-error @+1 {{block of 16384 bytes at offset 24576 does not fit a slot of 32768 bytes}}
  kite.stage_operand %b slot %s place [24576, 32768] slots 2 operand 1 dot [128, 128, 32] : tensor<32x128xf32>
  return
}

// -----

func.func @stage_operand_align(%b: tensor<64x128xf16>, %s: i32) {
  // expected-error @+1 {{place must be [offset, slot bytes], both 1024-byte aligned (the swizzle's atoms)}}
  kite.stage_operand %b slot %s place [16400, 40960] slots 3 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
  return
}

// -----

func.func @stage_operand_fit(%b: tensor<64x128xf16>, %s: i32) {
  // expected-error @+1 {{block of 16384 bytes at offset 24576 does not fit a slot of 32768 bytes}}
  kite.stage_operand %b slot %s place [24576, 32768] slots 3 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
  return
}

// -----

func.func @dot_staged_a_place_slot(%acc: tensor<128x128xf32>, %s: i32) -> tensor<128x128xf32> {
  // expected-error @+1 {{a_place must be [offset, slot bytes] (inside the slot, of b_place's slot bytes, without b_slot), both 1024-byte aligned}}
  %r = kite.dot_staged %acc slot %s of 4 k 64 engine = wgmma a_place [0, 32768] b_place [24576, 40960] {operand_type = f16} : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

func.func @dot_staged_a_place_b(%acc: tensor<128x128xf32>, %s: i32) -> tensor<128x128xf32> {
  // expected-error @+1 {{places A with a_place only with engine = wgmma and b_place}}
  %r = kite.dot_staged %acc slot %s of 4 k 64 engine = wgmma a_place [0, 40960] {operand_type = f16} : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

func.func @dot_staged_b_slot(%acc: tensor<128x128xf32>, %s: i32) -> tensor<128x128xf32> {
  // expected-error @+1 {{reads B from a ring of its own (b_slot) only with b_place and A at a_place or in registers}}
  %r = kite.dot_staged %acc slot %s b_slot %s of 4 k 64 engine = wgmma b_place [98304, 16384] {operand_type = f16} : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

func.func @dot_staged_b_ring(%acc: tensor<128x128xf32>, %s: i32) -> tensor<128x128xf32> {
  // expected-error @+1 {{b_place must be [ring start, slot bytes], both 1024-byte aligned, with b_slot}}
  %r = kite.dot_staged %acc slot %s b_slot %s of 4 k 64 engine = wgmma a_place [0, 24576] b_place [98304, 16000] {operand_type = f16} : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
