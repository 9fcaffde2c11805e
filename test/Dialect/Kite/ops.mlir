// RUN: kite-opt %s | kite-opt | FileCheck %s
// RUN: kite-opt %s --mlir-print-op-generic | kite-opt | FileCheck %s

// Round trip of every kite op and type through the custom and generic forms.

// CHECK-LABEL: func.func @grid
func.func @grid() -> (i32, i32, i32, i32) {
  // CHECK: kite.program_id 0
  // CHECK: kite.program_id 2
  // CHECK: kite.num_programs 1
  // CHECK: kite.num_programs 2
  %0 = kite.program_id 0
  %1 = kite.program_id 2
  %2 = kite.num_programs 1
  %3 = kite.num_programs 2
  return %0, %1, %2, %3 : i32, i32, i32, i32
}

// CHECK-LABEL: func.func @blocks
func.func @blocks(%x: i32, %f: f32, %p: !kite.ptr<bf16>) {
  // CHECK: kite.arange 0, 1024 : tensor<1024xi32>
  %r = kite.arange 0, 1024 : tensor<1024xi32>
  // CHECK: kite.arange 16, 32 : tensor<16xi32>
  %r2 = kite.arange 16, 32 : tensor<16xi32>
  // CHECK: kite.splat %{{.*}} : i32 -> tensor<1024xi32>
  %s = kite.splat %x : i32 -> tensor<1024xi32>
  // CHECK: kite.splat %{{.*}} : f32 -> tensor<4x8xf32>
  %sf = kite.splat %f : f32 -> tensor<4x8xf32>
  // CHECK: kite.convert_layout %{{.*}} : tensor<4x8xf32>
  %cl = kite.convert_layout %sf : tensor<4x8xf32>
  // CHECK: kite.join %{{.*}}, %{{.*}} : tensor<4x8xf32> -> tensor<4x8x2xf32>
  %jn = kite.join %sf, %cl : tensor<4x8xf32> -> tensor<4x8x2xf32>
  // CHECK: kite.split %{{.*}} : tensor<4x8x2xf32> -> tensor<4x8xf32>
  %sa, %sb = kite.split %jn : tensor<4x8x2xf32> -> tensor<4x8xf32>
  // CHECK: kite.sort %{{.*}} dim 1 descending : tensor<4x8xf32>
  %so = kite.sort %sa dim 1 descending : tensor<4x8xf32>
  // CHECK: kite.sort %{{.*}} dim 1 descending k 2 : tensor<4x8xf32>
  %tk = kite.sort %sa dim 1 descending k 2 : tensor<4x8xf32>
  // CHECK: kite.sort %{{.*}} dim 1 merge : tensor<4x8xf32>
  %bm = kite.sort %sa dim 1 merge : tensor<4x8xf32>
  // CHECK: kite.gather %{{.*}}[%{{.*}}] axis 1 : tensor<4x8xf32>, tensor<4x2xi32> -> tensor<4x2xf32>
  %gi = arith.constant dense<1> : tensor<4x2xi32>
  %ga = kite.gather %so[%gi] axis 1 : tensor<4x8xf32>, tensor<4x2xi32> -> tensor<4x2xf32>
  // CHECK: kite.histogram %{{.*}} : tensor<8xi32> -> tensor<4xi32>
  // CHECK: kite.histogram %{{.*}}, %{{.*}} : tensor<8xi32>, tensor<8xi1> -> tensor<4xi32>
  // CHECK: kite.sort %{{.*}} dim 0 unsigned : tensor<8xi32>
  // CHECK: kite.assume %{{.*}} : tensor<8xi1>
  %hv = arith.constant dense<3> : tensor<8xi32>
  %hm = arith.constant dense<true> : tensor<8xi1>
  %h1 = kite.histogram %hv : tensor<8xi32> -> tensor<4xi32>
  %h2 = kite.histogram %hv, %hm : tensor<8xi32>, tensor<8xi1> -> tensor<4xi32>
  %us = kite.sort %hv dim 0 unsigned : tensor<8xi32>
  kite.assume %hm : tensor<8xi1>
  // CHECK: kite.reduce custom %{{.*}} axis 1 : tensor<4x8xf32> -> tensor<4xf32> combine {
  // CHECK: kite.yield %{{.*}} : f32
  %rc = kite.reduce custom %so axis 1 : tensor<4x8xf32> -> tensor<4xf32> combine {
  ^bb0(%ca: f32, %cb: f32):
    %cm = arith.maximumf %ca, %cb : f32
    kite.yield %cm : f32
  }
  // CHECK: %{{.*}}:2 = kite.reduce custom %{{.*}}, %{{.*}} axis 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32> combine {
  // CHECK: kite.yield %{{.*}}, %{{.*}} : f32, f32
  %rt:2 = kite.reduce custom %so, %so axis 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32> combine {
  ^bb0(%ta: f32, %tb: f32, %tc: f32, %td: f32):
    %tm = arith.maximumf %ta, %tc : f32
    %tn = arith.minimumf %tb, %td : f32
    kite.yield %tm, %tn : f32, f32
  }
  // CHECK: kite.map_elementwise %{{.*}} pack 2 : tensor<4x8xf32> -> tensor<4x8xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
  %mp = kite.map_elementwise %so pack 2 : tensor<4x8xf32> -> tensor<4x8xf32> {
  ^bb0(%p0: f32, %p1: f32):
    kite.yield %p1, %p0 : f32, f32
  }
  // CHECK: kite.map_elementwise %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32> {
  // CHECK: scf.if
  %me = kite.map_elementwise %so : tensor<4x8xf32> -> tensor<4x8xf32> {
  ^bb0(%e: f32):
    %z = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %e, %z : f32
    %v = scf.if %pos -> (f32) {
      scf.yield %e : f32
    } else {
      %ex = math.exp %e : f32
      scf.yield %ex : f32
    }
    kite.yield %v : f32
  }
  // CHECK: kite.splat %{{.*}} : !kite.ptr<bf16> -> tensor<16x!kite.ptr<bf16>>
  %sp = kite.splat %p : !kite.ptr<bf16> -> tensor<16x!kite.ptr<bf16>>
  // CHECK: kite.expand_dims %{{.*}} axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c = kite.expand_dims %r2 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  // CHECK: kite.expand_dims %{{.*}} axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %rw = kite.expand_dims %r2 axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  // CHECK: kite.broadcast %{{.*}} : tensor<16x1xi32> -> tensor<16x16xi32>
  %bc = kite.broadcast %c : tensor<16x1xi32> -> tensor<16x16xi32>
  // CHECK: kite.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<16x16xi32>
  %br = kite.broadcast %rw : tensor<1x16xi32> -> tensor<16x16xi32>
  return
}

// CHECK-LABEL: func.func @pointers
func.func @pointers(%p: !kite.ptr<f32>, %q: !kite.ptr<i64>, %offs: tensor<256xi32>,
                    %offs64: tensor<256xi64>, %mask: tensor<256xi1>, %n: i64) {
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<256x!kite.ptr<f32>>
  // CHECK: kite.addptr %{{.*}}, %{{.*}} : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  %a = kite.addptr %ps, %offs : tensor<256x!kite.ptr<f32>>, tensor<256xi32>
  // CHECK: kite.addptr %{{.*}}, %{{.*}} : tensor<256x!kite.ptr<f32>>, tensor<256xi64>
  %b = kite.addptr %ps, %offs64 : tensor<256x!kite.ptr<f32>>, tensor<256xi64>
  // CHECK: kite.addptr %{{.*}}, %{{.*}} : !kite.ptr<i64>, i64
  %c = kite.addptr %q, %n : !kite.ptr<i64>, i64
  // CHECK: %[[L0:.*]] = kite.load %{{.*}} : tensor<256x!kite.ptr<f32>>
  %l0 = kite.load %a : tensor<256x!kite.ptr<f32>>
  // CHECK: kite.load %{{.*}}, %{{.*}} : tensor<256x!kite.ptr<f32>>
  %l1 = kite.load %a, %mask : tensor<256x!kite.ptr<f32>>
  // CHECK: kite.load %{{.*}}, %{{.*}}, %[[L0]] : tensor<256x!kite.ptr<f32>>
  %l2 = kite.load %a, %mask, %l0 : tensor<256x!kite.ptr<f32>>
  // CHECK: kite.load %{{.*}} : !kite.ptr<i64>
  %l3 = kite.load %c : !kite.ptr<i64>
  // CHECK: kite.store %{{.*}}, %{{.*}} : tensor<256x!kite.ptr<f32>>
  kite.store %b, %l1 : tensor<256x!kite.ptr<f32>>
  // CHECK: kite.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x!kite.ptr<f32>>
  kite.store %b, %l2, %mask : tensor<256x!kite.ptr<f32>>
  // CHECK: kite.store %{{.*}}, %{{.*}} : !kite.ptr<i64>
  kite.store %q, %l3 : !kite.ptr<i64>
  return
}

// CHECK-LABEL: func.func @all_pointee_types
// CHECK-SAME: !kite.ptr<i1>, %{{.*}}: !kite.ptr<i8>, %{{.*}}: !kite.ptr<i16>, %{{.*}}: !kite.ptr<i32>, %{{.*}}: !kite.ptr<i64>, %{{.*}}: !kite.ptr<f16>, %{{.*}}: !kite.ptr<bf16>, %{{.*}}: !kite.ptr<f32>, %{{.*}}: !kite.ptr<f64>
func.func @all_pointee_types(%a: !kite.ptr<i1>, %b: !kite.ptr<i8>, %c: !kite.ptr<i16>,
    %d: !kite.ptr<i32>, %e: !kite.ptr<i64>, %f: !kite.ptr<f16>, %g: !kite.ptr<bf16>,
    %h: !kite.ptr<f32>, %i: !kite.ptr<f64>) {
  return
}

// CHECK-LABEL: func.func @random
func.func @random(%seed: i32, %seed64: i64, %offs: tensor<128xi32>, %offs64: tensor<128xi64>, %o: i32)
    -> (tensor<128xi32>, tensor<128xf32>, tensor<128xf32>, f32) {
  // CHECK: kite.randint %{{.*}}, %{{.*}} : i32, tensor<128xi32> -> tensor<128xi32>
  %0 = kite.randint %seed, %offs : i32, tensor<128xi32> -> tensor<128xi32>
  // CHECK: kite.rand %{{.*}}, %{{.*}} : i64, tensor<128xi64> -> tensor<128xf32>
  %1 = kite.rand %seed64, %offs64 : i64, tensor<128xi64> -> tensor<128xf32>
  // CHECK: kite.randn %{{.*}}, %{{.*}} : i32, tensor<128xi32> -> tensor<128xf32>
  %2 = kite.randn %seed, %offs : i32, tensor<128xi32> -> tensor<128xf32>
  // CHECK: kite.rand %{{.*}}, %{{.*}} : i32, i32 -> f32
  %3 = kite.rand %seed, %o : i32, i32 -> f32
  return %0, %1, %2, %3 : tensor<128xi32>, tensor<128xf32>, tensor<128xf32>, f32
}

// CHECK-LABEL: func.func @dot
func.func @dot(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>, %c: tensor<32x64xf32>,
               %x: tensor<32x16xf32>, %y: tensor<16x64xf32>,
               %s: tensor<32x16xbf16>, %t: tensor<16x64xbf16>) -> tensor<32x64xf32> {
  // CHECK: kite.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<16x64xf16> -> tensor<32x64xf32>
  %0 = kite.dot %a, %b, %c : tensor<32x16xf16>, tensor<16x64xf16> -> tensor<32x64xf32>
  // CHECK: kite.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<32x16xf32>
  %1 = kite.dot %x, %y, %0 precision = tf32 : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // CHECK: kite.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32x3 : tensor<32x16xf32>
  %2 = kite.dot %x, %y, %1 precision = tf32x3 : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // The default precision (ieee) is not printed.
  // CHECK: kite.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf32>
  %3 = kite.dot %x, %y, %2 precision = ieee : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // CHECK: kite.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xbf16>, tensor<16x64xbf16> -> tensor<32x64xf32>
  %4 = kite.dot %s, %t, %3 : tensor<32x16xbf16>, tensor<16x64xbf16> -> tensor<32x64xf32>
  return %4 : tensor<32x64xf32>
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<64x128xf32>, %i: tensor<256xi32>) -> (tensor<64xf32>, tensor<128xf32>, i32) {
  // CHECK: kite.reduce sum %{{.*}} axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  %0 = kite.reduce sum %x axis 1 : tensor<64x128xf32> -> tensor<64xf32>
  // CHECK: kite.reduce max %{{.*}} axis 0 : tensor<64x128xf32> -> tensor<128xf32>
  %1 = kite.reduce max %x axis 0 : tensor<64x128xf32> -> tensor<128xf32>
  // CHECK: kite.reduce min %{{.*}} axis 0 : tensor<256xi32> -> i32
  %2 = kite.reduce min %i axis 0 : tensor<256xi32> -> i32
  return %0, %1, %2 : tensor<64xf32>, tensor<128xf32>, i32
}

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: %{{.*}}: !kite.ptr<f32> {kite.divisibility = 16 : i32}
// CHECK-SAME: %{{.*}}: i32 {kite.constexpr}
// CHECK-SAME: attributes {kite.kernel, kite.num_warps = 8 : i32}
func.func @kernel(%x: !kite.ptr<f32> {kite.divisibility = 16 : i32},
                  %b: i32 {kite.constexpr}, %n: i64 {kite.divisibility = 16 : i32})
    attributes {kite.kernel, kite.num_warps = 8 : i32} {
  return
}

// Ping-pong consumer groups (kite-stage-dot-operands makes them).
// CHECK-LABEL: func.func @ping_pong
// CHECK-SAME: attributes {kite.consumer_groups = 2 : i32, kite.kernel, kite.num_warps = 4 : i32}
// CHECK: kite.consumer_group
// CHECK: kite.turn_wait
// CHECK: kite.turn_pass
// CHECK: } {kite.ping_pong = true, kite.warp_specialize = true}
func.func @ping_pong(%n: i32)
    attributes {kite.kernel, kite.num_warps = 4 : i32, kite.consumer_groups = 2 : i32} {
  %g = kite.consumer_group
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %g to %n step %c1 : i32 {
    kite.turn_wait
    kite.turn_pass
  } {kite.ping_pong = true, kite.warp_specialize = true}
  return
}

// CHECK-LABEL: func.func @staged_loads
// CHECK: kite.async_copy %{{.*}}, %{{.*}} slot %{{.*}} place [0, 16384] slots 3 : tensor<128x64x!kite.ptr<i8>>, tensor<128x64xi1>
// CHECK: kite.staged_load slot %{{.*}} place [8192, 16384] slots 3 : tensor<64x128xi8>
func.func @staged_loads(%p: tensor<128x64x!kite.ptr<i8>>, %m: tensor<128x64xi1>,
                        %s: i32) -> tensor<64x128xi8> {
  kite.async_copy %p, %m slot %s place [0, 16384] slots 3 : tensor<128x64x!kite.ptr<i8>>, tensor<128x64xi1>
  kite.async_commit
  kite.async_wait 0
  %v = kite.staged_load slot %s place [8192, 16384] slots 3 : tensor<64x128xi8>
  return %v : tensor<64x128xi8>
}

// CHECK-LABEL: func.func @staged_product
// CHECK: kite.stage_operand %{{.*}} slot %{{.*}} place [24576, 40960] slots 4 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
// CHECK: kite.dot_staged %{{.*}} slot %{{.*}} of 4 k 64 engine = wgmma a_place [0, 40960] b_place [24576, 40960] {operand_type = f16} : tensor<128x128xf32>
func.func @staged_product(%b: tensor<64x128xf16>, %acc: tensor<128x128xf32>,
                          %s: i32) -> tensor<128x128xf32> {
  kite.stage_operand %b slot %s place [24576, 40960] slots 4 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
  %r = kite.dot_staged %acc slot %s of 4 k 64 engine = wgmma a_place [0, 40960] b_place [24576, 40960] {operand_type = f16} : tensor<128x128xf32>
  %w = kite.dot_wait %r pending 0 : tensor<128x128xf32>
  return %w : tensor<128x128xf32>
}

// fp8 (wgmma reads it K-major only): A stored from its K x M transpose,
// B K-major, both in a ring of their own.
// CHECK-LABEL: func.func @staged_product_fp8
// CHECK: kite.stage_operand %{{.*}} slot %{{.*}} place [65536, 24576] slots 2 operand 0 dot [128, 256, 64] transposed : tensor<64x128xf8E4M3FN>
// CHECK: kite.stage_operand %{{.*}} slot %{{.*}} place [73728, 24576] slots 2 operand 1 dot [128, 256, 64] : tensor<64x256xf8E4M3FN>
// CHECK: kite.dot_staged %{{.*}} slot %{{.*}} b_slot %{{.*}} of 3 k 64 engine = wgmma b_k_major a_place [65536, 24576] b_place [73728, 24576] {operand_type = f8E4M3FN} : tensor<128x256xf32>
func.func @staged_product_fp8(%at: tensor<64x128xf8E4M3FN>, %b: tensor<64x256xf8E4M3FN>,
                              %acc: tensor<128x256xf32>, %t: i32) -> tensor<128x256xf32> {
  kite.stage_operand %at slot %t place [65536, 24576] slots 2 operand 0 dot [128, 256, 64] transposed : tensor<64x128xf8E4M3FN>
  kite.stage_operand %b slot %t place [73728, 24576] slots 2 operand 1 dot [128, 256, 64] : tensor<64x256xf8E4M3FN>
  %r = kite.dot_staged %acc slot %t b_slot %t of 3 k 64 engine = wgmma b_k_major a_place [65536, 24576] b_place [73728, 24576] {operand_type = f8E4M3FN} : tensor<128x256xf32>
  %w = kite.dot_wait %r pending 0 : tensor<128x256xf32>
  return %w : tensor<128x256xf32>
}

// CHECK-LABEL: func.func @staged_product_rings
// CHECK: kite.stage_operand %{{.*}} slot %{{.*}} place [98304, 16384] slots 2 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
// CHECK: kite.dot_staged %{{.*}} slot %{{.*}} b_slot %{{.*}} of 4 k 64 engine = wgmma a_place [0, 24576] b_place [98304, 16384] {operand_type = f16} : tensor<128x128xf32>
func.func @staged_product_rings(%b: tensor<64x128xf16>, %acc: tensor<128x128xf32>,
                                %s: i32, %t: i32) -> tensor<128x128xf32> {
  kite.stage_operand %b slot %t place [98304, 16384] slots 2 operand 1 dot [128, 128, 64] : tensor<64x128xf16>
  %r = kite.dot_staged %acc slot %s b_slot %t of 4 k 64 engine = wgmma a_place [0, 24576] b_place [98304, 16384] {operand_type = f16} : tensor<128x128xf32>
  %w = kite.dot_wait %r pending 0 : tensor<128x128xf32>
  return %w : tensor<128x128xf32>
}
