// Generated from dsl-examples/layer_norm.kite by: kitec dsl-examples/layer_norm.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @layer_norm_fwd(%arg0: !kite.ptr<f16> {kite.name = "X"}, %arg1: !kite.ptr<f16> {kite.name = "Y"}, %arg2: !kite.ptr<f16> {kite.name = "W"}, %arg3: !kite.ptr<f16> {kite.name = "B"}, %arg4: !kite.ptr<f32> {kite.name = "Mean"}, %arg5: !kite.ptr<f32> {kite.name = "Rstd"}, %arg6: i32 {kite.name = "stride"}, %arg7: i32 {kite.name = "N"}, %arg8: f32 {kite.name = "eps"}) attributes {kite.kernel, kite.num_warps = 8 : i32} {
    %0 = kite.program_id 0
    %1 = arith.muli %0, %arg6 : i32
    %2 = kite.addptr %arg1, %1 : !kite.ptr<f16>, i32
    %3 = arith.muli %0, %arg6 : i32
    %4 = kite.addptr %arg0, %3 : !kite.ptr<f16>, i32
    %c1024_i32 = arith.constant 1024 : i32
    %5 = arith.cmpi sle, %arg7, %c1024_i32 : i32
    scf.if %5 {
      %6 = kite.arange 0, 1024 : tensor<1024xi32>
      %7 = kite.splat %arg7 : i32 -> tensor<1024xi32>
      %8 = arith.cmpi slt, %6, %7 : tensor<1024xi32>
      %9 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %10 = kite.addptr %9, %6 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %cst = arith.constant 0.000000e+00 : f16
      %11 = kite.splat %cst : f16 -> tensor<1024xf16>
      %12 = kite.load %10, %8, %11 : tensor<1024x!kite.ptr<f16>>
      %13 = arith.extf %12 : tensor<1024xf16> to tensor<1024xf32>
      %14 = kite.reduce sum %13 axis 0 : tensor<1024xf32> -> f32
      %15 = arith.sitofp %arg7 : i32 to f32
      %16 = arith.divf %14, %15 : f32
      %17 = kite.splat %16 : f32 -> tensor<1024xf32>
      %18 = arith.subf %13, %17 : tensor<1024xf32>
      %cst_0 = arith.constant 0.000000e+00 : f32
      %19 = kite.splat %cst_0 : f32 -> tensor<1024xf32>
      %20 = arith.select %8, %18, %19 : tensor<1024xi1>, tensor<1024xf32>
      %21 = arith.mulf %20, %20 : tensor<1024xf32>
      %22 = kite.reduce sum %21 axis 0 : tensor<1024xf32> -> f32
      %23 = arith.sitofp %arg7 : i32 to f32
      %24 = arith.divf %22, %23 : f32
      %25 = arith.addf %24, %arg8 : f32
      %26 = math.sqrt %25 : f32
      %cst_1 = arith.constant 1.000000e+00 : f32
      %27 = arith.divf %cst_1, %26 : f32
      %28 = kite.addptr %arg4, %0 : !kite.ptr<f32>, i32
      kite.store %28, %16 : !kite.ptr<f32>
      %29 = kite.addptr %arg5, %0 : !kite.ptr<f32>, i32
      kite.store %29, %27 : !kite.ptr<f32>
      %30 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %31 = kite.addptr %30, %6 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %32 = kite.load %31, %8 : tensor<1024x!kite.ptr<f16>>
      %33 = kite.splat %arg3 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %34 = kite.addptr %33, %6 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %35 = kite.load %34, %8 : tensor<1024x!kite.ptr<f16>>
      %36 = kite.splat %2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %37 = kite.addptr %36, %6 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %38 = kite.splat %27 : f32 -> tensor<1024xf32>
      %39 = arith.mulf %20, %38 : tensor<1024xf32>
      %40 = arith.extf %32 : tensor<1024xf16> to tensor<1024xf32>
      %41 = arith.mulf %39, %40 : tensor<1024xf32>
      %42 = arith.extf %35 : tensor<1024xf16> to tensor<1024xf32>
      %43 = arith.addf %41, %42 : tensor<1024xf32>
      %44 = arith.truncf %43 : tensor<1024xf32> to tensor<1024xf16>
      kite.store %37, %44, %8 : tensor<1024x!kite.ptr<f16>>
    } else {
      %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1024_i32_0 = arith.constant 1024 : i32
      %6 = scf.for %arg9 = %c0_i32 to %arg7 step %c1024_i32_0 iter_args(%arg10 = %cst) -> (tensor<1024xf32>)  : i32 {
        %19 = kite.arange 0, 1024 : tensor<1024xi32>
        %20 = kite.splat %arg9 : i32 -> tensor<1024xi32>
        %21 = arith.addi %20, %19 : tensor<1024xi32>
        %22 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %23 = kite.addptr %22, %21 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %24 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %25 = arith.cmpi slt, %21, %24 : tensor<1024xi32>
        %cst_7 = arith.constant 0.000000e+00 : f16
        %26 = kite.splat %cst_7 : f16 -> tensor<1024xf16>
        %27 = kite.load %23, %25, %26 : tensor<1024x!kite.ptr<f16>>
        %28 = arith.extf %27 : tensor<1024xf16> to tensor<1024xf32>
        %29 = arith.addf %arg10, %28 : tensor<1024xf32>
        scf.yield %29 : tensor<1024xf32>
      }
      %7 = kite.reduce sum %6 axis 0 : tensor<1024xf32> -> f32
      %8 = arith.sitofp %arg7 : i32 to f32
      %9 = arith.divf %7, %8 : f32
      %cst_1 = arith.constant dense<0.000000e+00> : tensor<1024xf32>
      %c0_i32_2 = arith.constant 0 : i32
      %c1024_i32_3 = arith.constant 1024 : i32
      %10 = scf.for %arg9 = %c0_i32_2 to %arg7 step %c1024_i32_3 iter_args(%arg10 = %cst_1) -> (tensor<1024xf32>)  : i32 {
        %19 = kite.arange 0, 1024 : tensor<1024xi32>
        %20 = kite.splat %arg9 : i32 -> tensor<1024xi32>
        %21 = arith.addi %20, %19 : tensor<1024xi32>
        %22 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %23 = kite.addptr %22, %21 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %24 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %25 = arith.cmpi slt, %21, %24 : tensor<1024xi32>
        %cst_7 = arith.constant 0.000000e+00 : f16
        %26 = kite.splat %cst_7 : f16 -> tensor<1024xf16>
        %27 = kite.load %23, %25, %26 : tensor<1024x!kite.ptr<f16>>
        %28 = arith.extf %27 : tensor<1024xf16> to tensor<1024xf32>
        %29 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %30 = arith.cmpi slt, %21, %29 : tensor<1024xi32>
        %31 = kite.splat %9 : f32 -> tensor<1024xf32>
        %32 = arith.subf %28, %31 : tensor<1024xf32>
        %cst_8 = arith.constant 0.000000e+00 : f32
        %33 = kite.splat %cst_8 : f32 -> tensor<1024xf32>
        %34 = arith.select %30, %32, %33 : tensor<1024xi1>, tensor<1024xf32>
        %35 = arith.mulf %34, %34 : tensor<1024xf32>
        %36 = arith.addf %arg10, %35 : tensor<1024xf32>
        scf.yield %36 : tensor<1024xf32>
      }
      %11 = kite.reduce sum %10 axis 0 : tensor<1024xf32> -> f32
      %12 = arith.sitofp %arg7 : i32 to f32
      %13 = arith.divf %11, %12 : f32
      %14 = arith.addf %13, %arg8 : f32
      %15 = math.sqrt %14 : f32
      %cst_4 = arith.constant 1.000000e+00 : f32
      %16 = arith.divf %cst_4, %15 : f32
      %17 = kite.addptr %arg4, %0 : !kite.ptr<f32>, i32
      kite.store %17, %9 : !kite.ptr<f32>
      %18 = kite.addptr %arg5, %0 : !kite.ptr<f32>, i32
      kite.store %18, %16 : !kite.ptr<f32>
      %c0_i32_5 = arith.constant 0 : i32
      %c1024_i32_6 = arith.constant 1024 : i32
      scf.for %arg9 = %c0_i32_5 to %arg7 step %c1024_i32_6  : i32 {
        %19 = kite.arange 0, 1024 : tensor<1024xi32>
        %20 = kite.splat %arg9 : i32 -> tensor<1024xi32>
        %21 = arith.addi %20, %19 : tensor<1024xi32>
        %22 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %23 = arith.cmpi slt, %21, %22 : tensor<1024xi32>
        %24 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %25 = kite.addptr %24, %21 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %26 = kite.load %25, %23 : tensor<1024x!kite.ptr<f16>>
        %27 = kite.splat %arg3 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %28 = kite.addptr %27, %21 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %29 = kite.load %28, %23 : tensor<1024x!kite.ptr<f16>>
        %30 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %31 = kite.addptr %30, %21 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %cst_7 = arith.constant 0.000000e+00 : f16
        %32 = kite.splat %cst_7 : f16 -> tensor<1024xf16>
        %33 = kite.load %31, %23, %32 : tensor<1024x!kite.ptr<f16>>
        %34 = arith.extf %33 : tensor<1024xf16> to tensor<1024xf32>
        %35 = kite.splat %9 : f32 -> tensor<1024xf32>
        %36 = arith.subf %34, %35 : tensor<1024xf32>
        %37 = kite.splat %16 : f32 -> tensor<1024xf32>
        %38 = arith.mulf %36, %37 : tensor<1024xf32>
        %39 = arith.extf %26 : tensor<1024xf16> to tensor<1024xf32>
        %40 = arith.mulf %38, %39 : tensor<1024xf32>
        %41 = arith.extf %29 : tensor<1024xf16> to tensor<1024xf32>
        %42 = arith.addf %40, %41 : tensor<1024xf32>
        %43 = kite.splat %2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %44 = kite.addptr %43, %21 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %45 = arith.truncf %42 : tensor<1024xf32> to tensor<1024xf16>
        kite.store %44, %45, %23 : tensor<1024x!kite.ptr<f16>>
      }
    }
    return
  }
}
