// Generated from dsl-examples/vector_add.kite by: kitec dsl-examples/vector_add.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @vector_add(%arg0: !kite.ptr<f32> {kite.name = "x_ptr"}, %arg1: !kite.ptr<f32> {kite.name = "y_ptr"}, %arg2: !kite.ptr<f32> {kite.name = "output_ptr"}, %arg3: i32 {kite.name = "n"}) attributes {kite.kernel, kite.num_warps = 4 : i32} {
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
    %10 = kite.splat %arg1 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %11 = kite.addptr %10, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %12 = kite.load %11, %6 : tensor<1024x!kite.ptr<f32>>
    %13 = kite.splat %arg2 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %14 = kite.addptr %13, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %15 = arith.addf %9, %12 : tensor<1024xf32>
    kite.store %14, %15, %6 : tensor<1024x!kite.ptr<f32>>
    return
  }
}
