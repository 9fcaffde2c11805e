// Generated from dsl-examples/dropout.kite by: kitec dsl-examples/dropout.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @dropout(%arg0: !kite.ptr<f32> {kite.name = "x_ptr"}, %arg1: !kite.ptr<i32> {kite.name = "keep_ptr"}, %arg2: !kite.ptr<f32> {kite.name = "output_ptr"}, %arg3: i32 {kite.name = "n"}, %arg4: f32 {kite.name = "p"}) attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %0 = kite.program_id 0
    %c1024_i32 = arith.constant 1024 : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = kite.arange 0, 1024 : tensor<1024xi32>
    %3 = kite.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = kite.splat %arg3 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = kite.splat %arg0 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %8 = kite.addptr %7, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %9 = kite.load %8, %6 : tensor<1024x!kite.ptr<f32>>
    %10 = kite.splat %arg1 : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
    %11 = kite.addptr %10, %4 : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
    %12 = kite.load %11, %6 : tensor<1024x!kite.ptr<i32>>
    %c0_i32 = arith.constant 0 : i32
    %13 = kite.splat %c0_i32 : i32 -> tensor<1024xi32>
    %14 = arith.cmpi ne, %12, %13 : tensor<1024xi32>
    %cst = arith.constant 1.000000e+00 : f32
    %15 = arith.subf %cst, %arg4 : f32
    %16 = kite.splat %15 : f32 -> tensor<1024xf32>
    %17 = arith.divf %9, %16 : tensor<1024xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %18 = kite.splat %cst_0 : f32 -> tensor<1024xf32>
    %19 = arith.select %14, %17, %18 : tensor<1024xi1>, tensor<1024xf32>
    %20 = kite.splat %arg2 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %21 = kite.addptr %20, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %21, %19, %6 : tensor<1024x!kite.ptr<f32>>
    return
  }
}
