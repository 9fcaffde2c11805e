// Generated from dsl-examples/layer_norm.kite by: kitec dsl-examples/layer_norm.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @layer_norm_fwd(%arg0: !kite.ptr<f16> {kite.name = "X"}, %arg1: !kite.ptr<f16> {kite.name = "Y"}, %arg2: !kite.ptr<f16> {kite.name = "W"}, %arg3: !kite.ptr<f16> {kite.name = "B"}, %arg4: !kite.ptr<f32> {kite.name = "Mean"}, %arg5: !kite.ptr<f32> {kite.name = "Rstd"}, %arg6: i32 {kite.name = "stride"}, %arg7: i32 {kite.name = "N"}, %arg8: f32 {kite.name = "eps"}) attributes {kite.kernel, kite.num_warps = 8 : i32} {
    %0 = kite.program_id 0
    %1 = arith.muli %0, %arg6 : i32
    %2 = kite.addptr %arg1, %1 : !kite.ptr<f16>, i32
    %3 = arith.muli %0, %arg6 : i32
    %4 = kite.addptr %arg0, %3 : !kite.ptr<f16>, i32
    %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1024_i32 = arith.constant 1024 : i32
    %5 = scf.for %arg9 = %c0_i32 to %arg7 step %c1024_i32 iter_args(%arg10 = %cst) -> (tensor<1024xf32>)  : i32 {
      %18 = kite.arange 0, 1024 : tensor<1024xi32>
      %19 = kite.splat %arg9 : i32 -> tensor<1024xi32>
      %20 = arith.addi %19, %18 : tensor<1024xi32>
      %21 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %22 = kite.addptr %21, %20 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %23 = kite.splat %arg7 : i32 -> tensor<1024xi32>
      %24 = arith.cmpi slt, %20, %23 : tensor<1024xi32>
      %cst_6 = arith.constant 0.000000e+00 : f16
      %25 = kite.splat %cst_6 : f16 -> tensor<1024xf16>
      %26 = kite.load %22, %24, %25 : tensor<1024x!kite.ptr<f16>>
      %27 = arith.extf %26 : tensor<1024xf16> to tensor<1024xf32>
      %28 = arith.addf %arg10, %27 : tensor<1024xf32>
      scf.yield %28 : tensor<1024xf32>
    }
    %6 = kite.reduce sum %5 axis 0 : tensor<1024xf32> -> f32
    %7 = arith.sitofp %arg7 : i32 to f32
    %8 = arith.divf %6, %7 : f32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<1024xf32>
    %c0_i32_1 = arith.constant 0 : i32
    %c1024_i32_2 = arith.constant 1024 : i32
    %9 = scf.for %arg9 = %c0_i32_1 to %arg7 step %c1024_i32_2 iter_args(%arg10 = %cst_0) -> (tensor<1024xf32>)  : i32 {
      %18 = kite.arange 0, 1024 : tensor<1024xi32>
      %19 = kite.splat %arg9 : i32 -> tensor<1024xi32>
      %20 = arith.addi %19, %18 : tensor<1024xi32>
      %21 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %22 = kite.addptr %21, %20 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %23 = kite.splat %arg7 : i32 -> tensor<1024xi32>
      %24 = arith.cmpi slt, %20, %23 : tensor<1024xi32>
      %cst_6 = arith.constant 0.000000e+00 : f16
      %25 = kite.splat %cst_6 : f16 -> tensor<1024xf16>
      %26 = kite.load %22, %24, %25 : tensor<1024x!kite.ptr<f16>>
      %27 = arith.extf %26 : tensor<1024xf16> to tensor<1024xf32>
      %28 = kite.splat %arg7 : i32 -> tensor<1024xi32>
      %29 = arith.cmpi slt, %20, %28 : tensor<1024xi32>
      %30 = kite.splat %8 : f32 -> tensor<1024xf32>
      %31 = arith.subf %27, %30 : tensor<1024xf32>
      %cst_7 = arith.constant 0.000000e+00 : f32
      %32 = kite.splat %cst_7 : f32 -> tensor<1024xf32>
      %33 = arith.select %29, %31, %32 : tensor<1024xi1>, tensor<1024xf32>
      %34 = arith.mulf %33, %33 : tensor<1024xf32>
      %35 = arith.addf %arg10, %34 : tensor<1024xf32>
      scf.yield %35 : tensor<1024xf32>
    }
    %10 = kite.reduce sum %9 axis 0 : tensor<1024xf32> -> f32
    %11 = arith.sitofp %arg7 : i32 to f32
    %12 = arith.divf %10, %11 : f32
    %13 = arith.addf %12, %arg8 : f32
    %14 = math.sqrt %13 : f32
    %cst_3 = arith.constant 1.000000e+00 : f32
    %15 = arith.divf %cst_3, %14 : f32
    %16 = kite.addptr %arg4, %0 : !kite.ptr<f32>, i32
    kite.store %16, %8 : !kite.ptr<f32>
    %17 = kite.addptr %arg5, %0 : !kite.ptr<f32>, i32
    kite.store %17, %15 : !kite.ptr<f32>
    %c0_i32_4 = arith.constant 0 : i32
    %c1024_i32_5 = arith.constant 1024 : i32
    scf.for %arg9 = %c0_i32_4 to %arg7 step %c1024_i32_5  : i32 {
      %18 = kite.arange 0, 1024 : tensor<1024xi32>
      %19 = kite.splat %arg9 : i32 -> tensor<1024xi32>
      %20 = arith.addi %19, %18 : tensor<1024xi32>
      %21 = kite.splat %arg7 : i32 -> tensor<1024xi32>
      %22 = arith.cmpi slt, %20, %21 : tensor<1024xi32>
      %23 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %24 = kite.addptr %23, %20 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %25 = kite.load %24, %22 : tensor<1024x!kite.ptr<f16>>
      %26 = kite.splat %arg3 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %27 = kite.addptr %26, %20 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %28 = kite.load %27, %22 : tensor<1024x!kite.ptr<f16>>
      %29 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %30 = kite.addptr %29, %20 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %cst_6 = arith.constant 0.000000e+00 : f16
      %31 = kite.splat %cst_6 : f16 -> tensor<1024xf16>
      %32 = kite.load %30, %22, %31 : tensor<1024x!kite.ptr<f16>>
      %33 = arith.extf %32 : tensor<1024xf16> to tensor<1024xf32>
      %34 = kite.splat %8 : f32 -> tensor<1024xf32>
      %35 = arith.subf %33, %34 : tensor<1024xf32>
      %36 = kite.splat %15 : f32 -> tensor<1024xf32>
      %37 = arith.mulf %35, %36 : tensor<1024xf32>
      %38 = arith.extf %25 : tensor<1024xf16> to tensor<1024xf32>
      %39 = arith.mulf %37, %38 : tensor<1024xf32>
      %40 = arith.extf %28 : tensor<1024xf16> to tensor<1024xf32>
      %41 = arith.addf %39, %40 : tensor<1024xf32>
      %42 = kite.splat %2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %43 = kite.addptr %42, %20 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %44 = arith.truncf %41 : tensor<1024xf32> to tensor<1024xf16>
      kite.store %43, %44, %22 : tensor<1024x!kite.ptr<f16>>
    }
    return
  }
}
