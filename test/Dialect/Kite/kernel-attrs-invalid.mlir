// RUN: kite-opt %s -split-input-file -verify-diagnostics

// The kernel attributes owned by the kite dialect.

// expected-error @+1 {{'kite.kernel' must be a unit attribute}}
func.func @kernel_not_unit() attributes {kite.kernel = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.kernel' may only be attached to a func.func}}
module attributes {kite.kernel} {
}

// -----

// expected-error @+1 {{kernel 'returns' must not return values}}
func.func @returns() -> i32 attributes {kite.kernel} {
  %0 = arith.constant 0 : i32
  return %0 : i32
}

// -----

// expected-error @+1 {{kernel 'block_arg' takes a block argument of type 'tensor<4xf32>'; kernel parameters are scalars or pointers}}
func.func @block_arg(%x: tensor<4xf32>) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.num_warps' must be an i32 attribute}}
func.func @warps_type() attributes {kite.kernel, kite.num_warps = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{'kite.num_warps' must be a power of two in [1, 32], got 6}}
func.func @warps_value() attributes {kite.kernel, kite.num_warps = 6 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.num_warps' must be a power of two in [1, 32], got 64}}
func.func @warps_large() attributes {kite.kernel, kite.num_warps = 64 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.num_warps' requires a func.func marked 'kite.kernel'}}
func.func @warps_no_kernel() attributes {kite.num_warps = 4 : i32} {
  return
}

// -----

// expected-error @+1 {{unknown Kite attribute 'kite.warps'}}
func.func @unknown() attributes {kite.kernel, kite.warps = 4 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.constexpr' must be a unit attribute}}
func.func @constexpr_value(%b: i32 {kite.constexpr = 1 : i32}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{constexpr argument #1 must be an integer or float scalar, got '!kite.ptr<f32>'}}
func.func @constexpr_ptr(%n: i32, %p: !kite.ptr<f32> {kite.constexpr}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.divisibility' must be an i32 attribute}}
func.func @div_type(%p: !kite.ptr<f32> {kite.divisibility = 16 : i64}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.divisibility' of argument #0 must be a positive power of two, got 12}}
func.func @div_value(%p: !kite.ptr<f32> {kite.divisibility = 12 : i32}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.divisibility' of argument #0 requires a pointer or integer argument, got 'f32'}}
func.func @div_float(%x: f32 {kite.divisibility = 16 : i32}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{unknown Kite argument attribute 'kite.aligned'}}
func.func @unknown_arg(%p: !kite.ptr<f32> {kite.aligned}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.name' of argument #0 must be a non-empty string}}
func.func @bad_name(%x: i32 {kite.name = 3 : i32}) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{'kite.num_stages' must be in [1, 8], got 9}}
func.func @too_many_stages() attributes {kite.kernel, kite.num_stages = 9 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.num_stages' requires a func.func marked 'kite.kernel'}}
func.func @stages_not_kernel() attributes {kite.num_stages = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.dot_tile' must be array<i64: rows, cols> of powers of two}}
func.func @bad_tile() attributes {kite.kernel, kite.dot_tile = array<i64: 8, 3>} {
  return
}

// -----

// expected-error @+1 {{'kite.dot_tile' must be array<i64: rows, cols> of powers of two}}
func.func @tile_rank() attributes {kite.kernel, kite.dot_tile = array<i64: 8>} {
  return
}

// -----

// expected-error @+1 {{'kite.dot_tile' requires a func.func marked 'kite.kernel'}}
func.func @tile_not_kernel() attributes {kite.dot_tile = array<i64: 8, 8>} {
  return
}

// -----

// A block beyond 2^20 elements in a kernel (IR not from the frontend).
func.func @too_big(%p: !kite.ptr<f32>) attributes {kite.kernel} {
  // expected-error @+1 {{'arith.constant' op makes a block of type 'tensor<2048x1024xf32>', more than 2^20 elements (the limit of a block)}}
  %c = arith.constant dense<1.0> : tensor<2048x1024xf32>
  return
}

// -----

// kite.full_blocks marks the scf.if of kite-version-full-blocks only.
func.func @full_blocks_not_if(%a: f32) attributes {kite.kernel} {
  // expected-error @+1 {{'kite.full_blocks' is a unit attribute of scf.if}}
  %b = arith.addf %a, %a {kite.full_blocks} : f32
  return
}

// -----

func.func @full_blocks_value(%c: i1) attributes {kite.kernel} {
  // expected-error @+1 {{'kite.full_blocks' is a unit attribute of scf.if}}
  scf.if %c {
  } {kite.full_blocks = 1 : i32}
  return
}

// -----

// expected-error @+1 {{'kite.maxnreg' must be in [24, 255], got 300}}
func.func @maxnreg_value() attributes {kite.kernel, kite.maxnreg = 300 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.cluster_dims' must be array<i32: x, y, z> of positive sizes, at most 8 programs a cluster}}
func.func @cluster_too_big() attributes {kite.kernel, kite.cluster_dims = array<i32: 4, 4, 1>} {
  return
}

// -----

// expected-error @+1 {{'kite.cluster_dims' must be array<i32: x, y, z> of positive sizes, at most 8 programs a cluster}}
func.func @cluster_two_dims() attributes {kite.kernel, kite.cluster_dims = array<i32: 2, 1>} {
  return
}

// -----

// expected-error @+1 {{'kite.cluster_dims' requires a func.func marked 'kite.kernel'}}
func.func @cluster_not_kernel() attributes {kite.cluster_dims = array<i32: 2, 1, 1>} {
  return
}

// -----

// expected-error @+1 {{'kite.consumer_groups' must be 1 or 2, got 3}}
func.func @consumer_groups_value() attributes {kite.kernel, kite.consumer_groups = 3 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.consumer_groups' requires a func.func marked 'kite.kernel'}}
func.func @consumer_groups_not_kernel() attributes {kite.consumer_groups = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{'kite.ping_pong' must be a bool attribute on an scf.for}}
func.func @ping_pong_on_func() attributes {kite.kernel, kite.ping_pong = true} {
  return
}

// -----

// Kernel parameters the runtime cannot pass (LLVM's NVPTX backend aborted
// on i0 and f80: found by the dialect fuzzer).
// expected-error @+1 {{kernel 'zero_width' parameter #1 has type 'i0'; kernel parameters are pointers (!kite.ptr), tensor descriptors or scalars of i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64}}
func.func @zero_width(%p: !kite.ptr<f32>, %c: i0) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel 'extended' parameter #0 has type 'f80'}}
func.func @extended(%x: f80) attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel 'idx' parameter #0 has type 'index'}}
func.func @idx(%n: index) attributes {kite.kernel} {
  return
}

// -----

// A kernel's name becomes a PTX .entry: LLVM's NVPTX backend aborts on a
// space, ptxas rejects a leading digit.
// expected-error @+1 {{kernel name 'a b' is not a PTX identifier (a letter or '_', then letters, digits, '_' or '$')}}
func.func @"a b"() attributes {kite.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel name '9lives' is not a PTX identifier}}
func.func @"9lives"() attributes {kite.kernel} {
  return
}

// -----

func.func @ok_$name_1() attributes {kite.kernel} {
  return
}
