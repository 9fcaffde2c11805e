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
    %6:3 = scf.if %5 -> (f32, f32, f32) {
      %7 = kite.arange 0, 1024 : tensor<1024xi32>
      %8 = kite.splat %arg7 : i32 -> tensor<1024xi32>
      %9 = arith.cmpi slt, %7, %8 : tensor<1024xi32>
      %10 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %11 = kite.addptr %10, %7 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %cst = arith.constant 0.000000e+00 : f16
      %12 = kite.splat %cst : f16 -> tensor<1024xf16>
      %13 = kite.load %11, %9, %12 : tensor<1024x!kite.ptr<f16>>
      %14 = arith.extf %13 : tensor<1024xf16> to tensor<1024xf32>
      %15 = kite.reduce sum %14 axis 0 : tensor<1024xf32> -> f32
      %16 = arith.sitofp %arg7 : i32 to f32
      %17 = arith.divf %15, %16 : f32
      %18 = kite.splat %17 : f32 -> tensor<1024xf32>
      %19 = arith.subf %14, %18 : tensor<1024xf32>
      %cst_0 = arith.constant 0.000000e+00 : f32
      %20 = kite.splat %cst_0 : f32 -> tensor<1024xf32>
      %21 = arith.select %9, %19, %20 : tensor<1024xi1>, tensor<1024xf32>
      %22 = arith.mulf %21, %21 : tensor<1024xf32>
      %23 = kite.reduce sum %22 axis 0 : tensor<1024xf32> -> f32
      %24 = arith.sitofp %arg7 : i32 to f32
      %25 = arith.divf %23, %24 : f32
      %26 = arith.addf %25, %arg8 : f32
      %27 = math.sqrt %26 : f32
      %cst_1 = arith.constant 1.000000e+00 : f32
      %28 = arith.divf %cst_1, %27 : f32
      %29 = kite.addptr %arg4, %0 : !kite.ptr<f32>, i32
      kite.store %29, %17 : !kite.ptr<f32>
      %30 = kite.addptr %arg5, %0 : !kite.ptr<f32>, i32
      kite.store %30, %28 : !kite.ptr<f32>
      %31 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %32 = kite.addptr %31, %7 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %33 = kite.load %32, %9 : tensor<1024x!kite.ptr<f16>>
      %34 = kite.splat %arg3 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %35 = kite.addptr %34, %7 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %36 = kite.load %35, %9 : tensor<1024x!kite.ptr<f16>>
      %37 = kite.splat %2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
      %38 = kite.addptr %37, %7 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
      %39 = kite.splat %28 : f32 -> tensor<1024xf32>
      %40 = arith.mulf %21, %39 : tensor<1024xf32>
      %41 = arith.extf %33 : tensor<1024xf16> to tensor<1024xf32>
      %42 = arith.mulf %40, %41 : tensor<1024xf32>
      %43 = arith.extf %36 : tensor<1024xf16> to tensor<1024xf32>
      %44 = arith.addf %42, %43 : tensor<1024xf32>
      %45 = arith.truncf %44 : tensor<1024xf32> to tensor<1024xf16>
      kite.store %38, %45, %9 : tensor<1024x!kite.ptr<f16>>
      scf.yield %17, %25, %28 : f32, f32, f32
    } else {
      %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1024_i32_0 = arith.constant 1024 : i32
      %7 = scf.for %arg9 = %c0_i32 to %arg7 step %c1024_i32_0 iter_args(%arg10 = %cst) -> (tensor<1024xf32>)  : i32 {
        %20 = kite.arange 0, 1024 : tensor<1024xi32>
        %21 = kite.splat %arg9 : i32 -> tensor<1024xi32>
        %22 = arith.addi %21, %20 : tensor<1024xi32>
        %23 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %24 = kite.addptr %23, %22 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %25 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %26 = arith.cmpi slt, %22, %25 : tensor<1024xi32>
        %cst_7 = arith.constant 0.000000e+00 : f16
        %27 = kite.splat %cst_7 : f16 -> tensor<1024xf16>
        %28 = kite.load %24, %26, %27 : tensor<1024x!kite.ptr<f16>>
        %29 = arith.extf %28 : tensor<1024xf16> to tensor<1024xf32>
        %30 = arith.addf %arg10, %29 : tensor<1024xf32>
        scf.yield %30 : tensor<1024xf32>
      }
      %8 = kite.reduce sum %7 axis 0 : tensor<1024xf32> -> f32
      %9 = arith.sitofp %arg7 : i32 to f32
      %10 = arith.divf %8, %9 : f32
      %cst_1 = arith.constant dense<0.000000e+00> : tensor<1024xf32>
      %c0_i32_2 = arith.constant 0 : i32
      %c1024_i32_3 = arith.constant 1024 : i32
      %11 = scf.for %arg9 = %c0_i32_2 to %arg7 step %c1024_i32_3 iter_args(%arg10 = %cst_1) -> (tensor<1024xf32>)  : i32 {
        %20 = kite.arange 0, 1024 : tensor<1024xi32>
        %21 = kite.splat %arg9 : i32 -> tensor<1024xi32>
        %22 = arith.addi %21, %20 : tensor<1024xi32>
        %23 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %24 = kite.addptr %23, %22 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %25 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %26 = arith.cmpi slt, %22, %25 : tensor<1024xi32>
        %cst_7 = arith.constant 0.000000e+00 : f16
        %27 = kite.splat %cst_7 : f16 -> tensor<1024xf16>
        %28 = kite.load %24, %26, %27 : tensor<1024x!kite.ptr<f16>>
        %29 = arith.extf %28 : tensor<1024xf16> to tensor<1024xf32>
        %30 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %31 = arith.cmpi slt, %22, %30 : tensor<1024xi32>
        %32 = kite.splat %10 : f32 -> tensor<1024xf32>
        %33 = arith.subf %29, %32 : tensor<1024xf32>
        %cst_8 = arith.constant 0.000000e+00 : f32
        %34 = kite.splat %cst_8 : f32 -> tensor<1024xf32>
        %35 = arith.select %31, %33, %34 : tensor<1024xi1>, tensor<1024xf32>
        %36 = arith.mulf %35, %35 : tensor<1024xf32>
        %37 = arith.addf %arg10, %36 : tensor<1024xf32>
        scf.yield %37 : tensor<1024xf32>
      }
      %12 = kite.reduce sum %11 axis 0 : tensor<1024xf32> -> f32
      %13 = arith.sitofp %arg7 : i32 to f32
      %14 = arith.divf %12, %13 : f32
      %15 = arith.addf %14, %arg8 : f32
      %16 = math.sqrt %15 : f32
      %cst_4 = arith.constant 1.000000e+00 : f32
      %17 = arith.divf %cst_4, %16 : f32
      %18 = kite.addptr %arg4, %0 : !kite.ptr<f32>, i32
      kite.store %18, %10 : !kite.ptr<f32>
      %19 = kite.addptr %arg5, %0 : !kite.ptr<f32>, i32
      kite.store %19, %17 : !kite.ptr<f32>
      %c0_i32_5 = arith.constant 0 : i32
      %c1024_i32_6 = arith.constant 1024 : i32
      scf.for %arg9 = %c0_i32_5 to %arg7 step %c1024_i32_6  : i32 {
        %20 = kite.arange 0, 1024 : tensor<1024xi32>
        %21 = kite.splat %arg9 : i32 -> tensor<1024xi32>
        %22 = arith.addi %21, %20 : tensor<1024xi32>
        %23 = kite.splat %arg7 : i32 -> tensor<1024xi32>
        %24 = arith.cmpi slt, %22, %23 : tensor<1024xi32>
        %25 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %26 = kite.addptr %25, %22 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %27 = kite.load %26, %24 : tensor<1024x!kite.ptr<f16>>
        %28 = kite.splat %arg3 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %29 = kite.addptr %28, %22 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %30 = kite.load %29, %24 : tensor<1024x!kite.ptr<f16>>
        %31 = kite.splat %4 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %32 = kite.addptr %31, %22 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %cst_7 = arith.constant 0.000000e+00 : f16
        %33 = kite.splat %cst_7 : f16 -> tensor<1024xf16>
        %34 = kite.load %32, %24, %33 : tensor<1024x!kite.ptr<f16>>
        %35 = arith.extf %34 : tensor<1024xf16> to tensor<1024xf32>
        %36 = kite.splat %10 : f32 -> tensor<1024xf32>
        %37 = arith.subf %35, %36 : tensor<1024xf32>
        %38 = kite.splat %17 : f32 -> tensor<1024xf32>
        %39 = arith.mulf %37, %38 : tensor<1024xf32>
        %40 = arith.extf %27 : tensor<1024xf16> to tensor<1024xf32>
        %41 = arith.mulf %39, %40 : tensor<1024xf32>
        %42 = arith.extf %30 : tensor<1024xf16> to tensor<1024xf32>
        %43 = arith.addf %41, %42 : tensor<1024xf32>
        %44 = kite.splat %2 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
        %45 = kite.addptr %44, %22 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
        %46 = arith.truncf %43 : tensor<1024xf32> to tensor<1024xf16>
        kite.store %45, %46, %24 : tensor<1024x!kite.ptr<f16>>
      }
      scf.yield %10, %14, %17 : f32, f32, f32
    }
    return
  }
}
