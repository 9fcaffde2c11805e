// Generated from dsl-examples/seeded_dropout.kite by: kitec dsl-examples/seeded_dropout.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @seeded_dropout(%arg0: !kite.ptr<f32> {kite.name = "x_ptr"}, %arg1: !kite.ptr<f32> {kite.name = "output_ptr"}, %arg2: i32 {kite.name = "n"}, %arg3: f32 {kite.name = "p"}, %arg4: i32 {kite.name = "seed"}) attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %0 = kite.program_id 0
    %c1024_i32 = arith.constant 1024 : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = kite.arange 0, 1024 : tensor<1024xi32>
    %3 = kite.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = kite.splat %arg2 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = kite.splat %arg0 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %8 = kite.addptr %7, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %9 = kite.load %8, %6 : tensor<1024x!kite.ptr<f32>>
    %10 = kite.rand %arg4, %4 : i32, tensor<1024xi32> -> tensor<1024xf32>
    %11 = kite.splat %arg3 : f32 -> tensor<1024xf32>
    %12 = arith.cmpf ogt, %10, %11 : tensor<1024xf32>
    %cst = arith.constant 1.000000e+00 : f32
    %13 = arith.subf %cst, %arg3 : f32
    %14 = kite.splat %13 : f32 -> tensor<1024xf32>
    %15 = arith.divf %9, %14 : tensor<1024xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %16 = kite.splat %cst_0 : f32 -> tensor<1024xf32>
    %17 = arith.select %12, %15, %16 : tensor<1024xi1>, tensor<1024xf32>
    %18 = kite.splat %arg1 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %19 = kite.addptr %18, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %19, %17, %6 : tensor<1024x!kite.ptr<f32>>
    return
  }
}
