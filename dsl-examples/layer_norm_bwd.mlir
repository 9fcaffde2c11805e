// Generated from dsl-examples/layer_norm_bwd.kite by: kitec dsl-examples/layer_norm_bwd.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @_layer_norm_bwd_dx_fused(%arg0: !kite.ptr<f16> {kite.name = "DX"}, %arg1: !kite.ptr<f16> {kite.name = "DY"}, %arg2: !kite.ptr<f16> {kite.name = "DW"}, %arg3: !kite.ptr<f16> {kite.name = "DB"}, %arg4: !kite.ptr<f16> {kite.name = "X"}, %arg5: !kite.ptr<f16> {kite.name = "W"}, %arg6: !kite.ptr<f32> {kite.name = "Mean"}, %arg7: !kite.ptr<f32> {kite.name = "Rstd"}, %arg8: !kite.ptr<i32> {kite.name = "Lock"}, %arg9: i32 {kite.name = "stride"}, %arg10: i32 {kite.name = "N"}) attributes {kite.kernel, kite.num_warps = 8 : i32} {
    %0 = kite.program_id 0
    %1 = kite.arange 0, 1024 : tensor<1024xi32>
    %2 = kite.splat %arg10 : i32 -> tensor<1024xi32>
    %3 = arith.cmpi slt, %1, %2 : tensor<1024xi32>
    %4 = arith.muli %0, %arg9 : i32
    %5 = kite.addptr %arg4, %4 : !kite.ptr<f16>, i32
    %6 = arith.muli %0, %arg9 : i32
    %7 = kite.addptr %arg1, %6 : !kite.ptr<f16>, i32
    %8 = arith.muli %0, %arg9 : i32
    %9 = kite.addptr %arg0, %8 : !kite.ptr<f16>, i32
    %c64_i32 = arith.constant 64 : i32
    %10 = arith.remsi %0, %c64_i32 : i32
    %11 = kite.addptr %arg8, %10 : !kite.ptr<i32>, i32
    %c64_i32_0 = arith.constant 64 : i32
    %12 = kite.addptr %11, %c64_i32_0 : !kite.ptr<i32>, i32
    %13 = arith.muli %10, %arg10 : i32
    %14 = kite.addptr %arg2, %13 : !kite.ptr<f16>, i32
    %15 = kite.splat %14 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %16 = kite.addptr %15, %1 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %17 = arith.muli %10, %arg10 : i32
    %18 = kite.addptr %arg3, %17 : !kite.ptr<f16>, i32
    %19 = kite.splat %18 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %20 = kite.addptr %19, %1 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %21 = kite.splat %5 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %22 = kite.addptr %21, %1 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %cst = arith.constant 0.000000e+00 : f16
    %23 = kite.splat %cst : f16 -> tensor<1024xf16>
    %24 = kite.load %22, %3, %23 : tensor<1024x!kite.ptr<f16>>
    %25 = arith.extf %24 : tensor<1024xf16> to tensor<1024xf32>
    %26 = kite.splat %7 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %27 = kite.addptr %26, %1 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %cst_1 = arith.constant 0.000000e+00 : f16
    %28 = kite.splat %cst_1 : f16 -> tensor<1024xf16>
    %29 = kite.load %27, %3, %28 : tensor<1024x!kite.ptr<f16>>
    %30 = arith.extf %29 : tensor<1024xf16> to tensor<1024xf32>
    %31 = kite.splat %arg5 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %32 = kite.addptr %31, %1 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %33 = kite.load %32, %3 : tensor<1024x!kite.ptr<f16>>
    %34 = arith.extf %33 : tensor<1024xf16> to tensor<1024xf32>
    %35 = kite.addptr %arg6, %0 : !kite.ptr<f32>, i32
    %36 = kite.load %35 : !kite.ptr<f32>
    %37 = kite.addptr %arg7, %0 : !kite.ptr<f32>, i32
    %38 = kite.load %37 : !kite.ptr<f32>
    %39 = kite.splat %36 : f32 -> tensor<1024xf32>
    %40 = arith.subf %25, %39 : tensor<1024xf32>
    %41 = kite.splat %38 : f32 -> tensor<1024xf32>
    %42 = arith.mulf %40, %41 : tensor<1024xf32>
    %43 = arith.mulf %34, %30 : tensor<1024xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %44 = kite.splat %cst_2 : f32 -> tensor<1024xf32>
    %45 = arith.select %3, %42, %44 : tensor<1024xi1>, tensor<1024xf32>
    %cst_3 = arith.constant 0.000000e+00 : f32
    %46 = kite.splat %cst_3 : f32 -> tensor<1024xf32>
    %47 = arith.select %3, %43, %46 : tensor<1024xi1>, tensor<1024xf32>
    %48 = arith.mulf %45, %47 : tensor<1024xf32>
    %49 = kite.reduce sum %48 axis 0 : tensor<1024xf32> -> f32
    %50 = arith.sitofp %arg10 : i32 to f32
    %51 = arith.divf %49, %50 : f32
    %52 = kite.reduce sum %47 axis 0 : tensor<1024xf32> -> f32
    %53 = arith.sitofp %arg10 : i32 to f32
    %54 = arith.divf %52, %53 : f32
    %55 = kite.splat %51 : f32 -> tensor<1024xf32>
    %56 = arith.mulf %45, %55 : tensor<1024xf32>
    %57 = kite.splat %54 : f32 -> tensor<1024xf32>
    %58 = arith.addf %56, %57 : tensor<1024xf32>
    %59 = arith.subf %47, %58 : tensor<1024xf32>
    %60 = kite.splat %38 : f32 -> tensor<1024xf32>
    %61 = arith.mulf %59, %60 : tensor<1024xf32>
    %62 = kite.splat %9 : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %63 = kite.addptr %62, %1 : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %64 = arith.truncf %61 : tensor<1024xf32> to tensor<1024xf16>
    kite.store %63, %64, %3 : tensor<1024x!kite.ptr<f16>>
    %65 = arith.mulf %30, %45 : tensor<1024xf32>
    %66 = arith.truncf %65 : tensor<1024xf32> to tensor<1024xf16>
    %67 = arith.truncf %30 : tensor<1024xf32> to tensor<1024xf16>
    scf.while : () -> () {
      %c0_i32_5 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %72 = kite.atomic_cas %11, %c0_i32_5, %c1_i32 : !kite.ptr<i32>, i32, i32 -> i32
      %c1_i32_6 = arith.constant 1 : i32
      %73 = arith.cmpi eq, %72, %c1_i32_6 : i32
      scf.condition(%73)
    } do {
      scf.yield
    }
    %68 = kite.load %12 : !kite.ptr<i32>
    %c0_i32 = arith.constant 0 : i32
    %69 = arith.cmpi eq, %68, %c0_i32 : i32
    %70:2 = scf.if %69 -> (tensor<1024xf16>, tensor<1024xf16>) {
      %c1_i32 = arith.constant 1 : i32
      %72 = kite.atomic_rmw xchg %12, %c1_i32 : !kite.ptr<i32>, i32 -> i32
      scf.yield %66, %67 : tensor<1024xf16>, tensor<1024xf16>
    } else {
      %72 = kite.load %16, %3 : tensor<1024x!kite.ptr<f16>>
      %73 = arith.addf %66, %72 : tensor<1024xf16>
      %74 = kite.load %20, %3 : tensor<1024x!kite.ptr<f16>>
      %75 = arith.addf %67, %74 : tensor<1024xf16>
      scf.yield %73, %75 : tensor<1024xf16>, tensor<1024xf16>
    }
    kite.store %16, %70#0, %3 : tensor<1024x!kite.ptr<f16>>
    kite.store %20, %70#1, %3 : tensor<1024x!kite.ptr<f16>>
    kite.debug_barrier
    %c0_i32_4 = arith.constant 0 : i32
    %71 = kite.atomic_rmw xchg %11, %c0_i32_4 : !kite.ptr<i32>, i32 -> i32
    return
  }
  func.func @_layer_norm_bwd_dwdb(%arg0: !kite.ptr<f16> {kite.name = "DW"}, %arg1: !kite.ptr<f16> {kite.name = "DB"}, %arg2: !kite.ptr<f16> {kite.name = "FINAL_DW"}, %arg3: !kite.ptr<f16> {kite.name = "FINAL_DB"}, %arg4: i32 {kite.name = "M"}, %arg5: i32 {kite.name = "N"}) attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %0 = kite.program_id 0
    %c128_i32 = arith.constant 128 : i32
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = kite.arange 0, 128 : tensor<128xi32>
    %3 = kite.splat %1 : i32 -> tensor<128xi32>
    %4 = arith.addi %3, %2 : tensor<128xi32>
    %cst = arith.constant dense<0.000000e+00> : tensor<32x128xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x128xf32>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %5:2 = scf.for %arg6 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg7 = %cst, %arg8 = %cst_0) -> (tensor<32x128xf32>, tensor<32x128xf32>)  : i32 {
      %18 = kite.arange 0, 32 : tensor<32xi32>
      %19 = kite.splat %arg6 : i32 -> tensor<32xi32>
      %20 = arith.addi %19, %18 : tensor<32xi32>
      %21 = kite.expand_dims %20 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
      %22 = kite.splat %arg4 : i32 -> tensor<32x1xi32>
      %23 = arith.cmpi slt, %21, %22 : tensor<32x1xi32>
      %24 = kite.expand_dims %4 axis 0 : tensor<128xi32> -> tensor<1x128xi32>
      %25 = kite.splat %arg5 : i32 -> tensor<1x128xi32>
      %26 = arith.cmpi slt, %24, %25 : tensor<1x128xi32>
      %27 = kite.broadcast %23 : tensor<32x1xi1> -> tensor<32x128xi1>
      %28 = kite.broadcast %26 : tensor<1x128xi1> -> tensor<32x128xi1>
      %29 = arith.andi %27, %28 : tensor<32x128xi1>
      %30 = kite.expand_dims %20 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
      %31 = kite.splat %arg5 : i32 -> tensor<32x1xi32>
      %32 = arith.muli %30, %31 : tensor<32x1xi32>
      %33 = kite.expand_dims %4 axis 0 : tensor<128xi32> -> tensor<1x128xi32>
      %34 = kite.broadcast %32 : tensor<32x1xi32> -> tensor<32x128xi32>
      %35 = kite.broadcast %33 : tensor<1x128xi32> -> tensor<32x128xi32>
      %36 = arith.addi %34, %35 : tensor<32x128xi32>
      %37 = kite.splat %arg0 : !kite.ptr<f16> -> tensor<32x128x!kite.ptr<f16>>
      %38 = kite.addptr %37, %36 : tensor<32x128x!kite.ptr<f16>>, tensor<32x128xi32>
      %cst_1 = arith.constant 0.000000e+00 : f16
      %39 = kite.splat %cst_1 : f16 -> tensor<32x128xf16>
      %40 = kite.load %38, %29, %39 : tensor<32x128x!kite.ptr<f16>>
      %41 = arith.extf %40 : tensor<32x128xf16> to tensor<32x128xf32>
      %42 = arith.addf %arg7, %41 : tensor<32x128xf32>
      %43 = kite.splat %arg1 : !kite.ptr<f16> -> tensor<32x128x!kite.ptr<f16>>
      %44 = kite.addptr %43, %36 : tensor<32x128x!kite.ptr<f16>>, tensor<32x128xi32>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %45 = kite.splat %cst_2 : f16 -> tensor<32x128xf16>
      %46 = kite.load %44, %29, %45 : tensor<32x128x!kite.ptr<f16>>
      %47 = arith.extf %46 : tensor<32x128xf16> to tensor<32x128xf32>
      %48 = arith.addf %arg8, %47 : tensor<32x128xf32>
      scf.yield %42, %48 : tensor<32x128xf32>, tensor<32x128xf32>
    }
    %6 = kite.reduce sum %5#0 axis 0 : tensor<32x128xf32> -> tensor<128xf32>
    %7 = kite.reduce sum %5#1 axis 0 : tensor<32x128xf32> -> tensor<128xf32>
    %8 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<128x!kite.ptr<f16>>
    %9 = kite.addptr %8, %4 : tensor<128x!kite.ptr<f16>>, tensor<128xi32>
    %10 = kite.splat %arg5 : i32 -> tensor<128xi32>
    %11 = arith.cmpi slt, %4, %10 : tensor<128xi32>
    %12 = arith.truncf %6 : tensor<128xf32> to tensor<128xf16>
    kite.store %9, %12, %11 : tensor<128x!kite.ptr<f16>>
    %13 = kite.splat %arg3 : !kite.ptr<f16> -> tensor<128x!kite.ptr<f16>>
    %14 = kite.addptr %13, %4 : tensor<128x!kite.ptr<f16>>, tensor<128xi32>
    %15 = kite.splat %arg5 : i32 -> tensor<128xi32>
    %16 = arith.cmpi slt, %4, %15 : tensor<128xi32>
    %17 = arith.truncf %7 : tensor<128xf32> to tensor<128xf16>
    kite.store %14, %17, %16 : tensor<128x!kite.ptr<f16>>
    return
  }
}
