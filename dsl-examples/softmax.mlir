// Generated from dsl-examples/softmax.kite by: kitec dsl-examples/softmax.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @softmax(%arg0: !kite.ptr<f32> {kite.name = "output_ptr"}, %arg1: !kite.ptr<f32> {kite.name = "input_ptr"}, %arg2: i32 {kite.name = "input_row_stride"}, %arg3: i32 {kite.name = "output_row_stride"}, %arg4: i32 {kite.name = "n_rows"}, %arg5: i32 {kite.name = "n_cols"}) attributes {kite.kernel, kite.num_warps = 8 : i32} {
    %0 = kite.program_id 0
    %1 = kite.num_programs 0
    scf.for %arg6 = %0 to %arg4 step %1  : i32 {
      %2 = arith.muli %arg6, %arg2 : i32
      %3 = kite.addptr %arg1, %2 : !kite.ptr<f32>, i32
      %4 = kite.arange 0, 1024 : tensor<1024xi32>
      %5 = kite.splat %3 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
      %6 = kite.addptr %5, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
      %7 = kite.splat %arg5 : i32 -> tensor<1024xi32>
      %8 = arith.cmpi slt, %4, %7 : tensor<1024xi32>
      %cst = arith.constant 0xFF800000 : f32
      %9 = kite.splat %cst : f32 -> tensor<1024xf32>
      %10 = kite.load %6, %8, %9 : tensor<1024x!kite.ptr<f32>>
      %11 = kite.reduce max %10 axis 0 : tensor<1024xf32> -> f32
      %12 = kite.splat %11 : f32 -> tensor<1024xf32>
      %13 = arith.subf %10, %12 : tensor<1024xf32>
      %14 = math.exp %13 : tensor<1024xf32>
      %15 = kite.reduce sum %14 axis 0 : tensor<1024xf32> -> f32
      %16 = kite.splat %15 : f32 -> tensor<1024xf32>
      %17 = arith.divf %14, %16 : tensor<1024xf32>
      %18 = arith.muli %arg6, %arg3 : i32
      %19 = kite.addptr %arg0, %18 : !kite.ptr<f32>, i32
      %20 = kite.splat %19 : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
      %21 = kite.addptr %20, %4 : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
      kite.store %21, %17, %8 : tensor<1024x!kite.ptr<f32>>
    }
    return
  }
}
