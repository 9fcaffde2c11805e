// Generated from dsl-examples/persistent_matmul.kite by: kitec dsl-examples/persistent_matmul.kite --emit=mlir
// test/Examples/kite-sources.test keeps the two in sync; edit the .kite.
module {
  func.func @matmul_persistent(%arg0: !kite.ptr<f16> {kite.name = "a_ptr"}, %arg1: !kite.ptr<f16> {kite.name = "b_ptr"}, %arg2: !kite.ptr<f16> {kite.name = "c_ptr"}, %arg3: i32 {kite.name = "M"}, %arg4: i32 {kite.name = "N"}, %arg5: i32 {kite.name = "K"}, %arg6: i32 {kite.name = "stride_am"}, %arg7: i32 {kite.name = "stride_ak"}, %arg8: i32 {kite.name = "stride_bk"}, %arg9: i32 {kite.name = "stride_bn"}, %arg10: i32 {kite.name = "stride_cm"}, %arg11: i32 {kite.name = "stride_cn"}) attributes {kite.kernel, kite.num_stages = 3 : i32, kite.num_warps = 8 : i32} {
    %0 = kite.program_id 0
    %c128_i32 = arith.constant 128 : i32
    %1 = arith.addi %arg3, %c128_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %2 = arith.subi %1, %c1_i32 : i32
    %c128_i32_0 = arith.constant 128 : i32
    %3 = arith.divsi %2, %c128_i32_0 : i32
    %c256_i32 = arith.constant 256 : i32
    %4 = arith.addi %arg4, %c256_i32 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32_1 : i32
    %c256_i32_2 = arith.constant 256 : i32
    %6 = arith.divsi %5, %c256_i32_2 : i32
    %c64_i32 = arith.constant 64 : i32
    %7 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %8 = arith.subi %7, %c1_i32_3 : i32
    %c64_i32_4 = arith.constant 64 : i32
    %9 = arith.divsi %8, %c64_i32_4 : i32
    %10 = arith.muli %3, %6 : i32
    %c8_i32 = arith.constant 8 : i32
    %11 = arith.muli %c8_i32, %6 : i32
    %12 = kite.arange 0, 64 : tensor<64xi32>
    %c132_i32 = arith.constant 132 : i32
    scf.for %arg12 = %0 to %10 step %c132_i32  : i32 {
      %13 = arith.divsi %arg12, %11 : i32
      %c8_i32_5 = arith.constant 8 : i32
      %14 = arith.muli %13, %c8_i32_5 : i32
      %15 = arith.subi %3, %14 : i32
      %c8_i32_6 = arith.constant 8 : i32
      %16 = arith.minsi %15, %c8_i32_6 : i32
      %17 = arith.remsi %arg12, %16 : i32
      %18 = arith.addi %14, %17 : i32
      %19 = arith.remsi %arg12, %11 : i32
      %20 = arith.divsi %19, %16 : i32
      %c128_i32_7 = arith.constant 128 : i32
      %21 = arith.muli %18, %c128_i32_7 : i32
      %22 = kite.arange 0, 128 : tensor<128xi32>
      %23 = kite.splat %21 : i32 -> tensor<128xi32>
      %24 = arith.addi %23, %22 : tensor<128xi32>
      %25 = kite.splat %arg3 : i32 -> tensor<128xi32>
      %26 = arith.remsi %24, %25 : tensor<128xi32>
      %c256_i32_8 = arith.constant 256 : i32
      %27 = arith.muli %20, %c256_i32_8 : i32
      %28 = kite.arange 0, 256 : tensor<256xi32>
      %29 = kite.splat %27 : i32 -> tensor<256xi32>
      %30 = arith.addi %29, %28 : tensor<256xi32>
      %31 = kite.splat %arg4 : i32 -> tensor<256xi32>
      %32 = arith.remsi %30, %31 : tensor<256xi32>
      %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_9 = arith.constant 1 : i32
      %33 = scf.for %arg13 = %c0_i32 to %9 step %c1_i32_9 iter_args(%arg14 = %cst) -> (tensor<128x256xf32>)  : i32 {
        %c64_i32_12 = arith.constant 64 : i32
        %63 = arith.muli %arg13, %c64_i32_12 : i32
        %64 = kite.arange 0, 64 : tensor<64xi32>
        %65 = kite.splat %63 : i32 -> tensor<64xi32>
        %66 = arith.addi %65, %64 : tensor<64xi32>
        %67 = kite.expand_dims %26 axis 1 : tensor<128xi32> -> tensor<128x1xi32>
        %68 = kite.splat %arg6 : i32 -> tensor<128x1xi32>
        %69 = arith.muli %67, %68 : tensor<128x1xi32>
        %70 = kite.expand_dims %66 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
        %71 = kite.splat %arg7 : i32 -> tensor<1x64xi32>
        %72 = arith.muli %70, %71 : tensor<1x64xi32>
        %73 = kite.broadcast %69 : tensor<128x1xi32> -> tensor<128x64xi32>
        %74 = kite.broadcast %72 : tensor<1x64xi32> -> tensor<128x64xi32>
        %75 = arith.addi %73, %74 : tensor<128x64xi32>
        %76 = kite.splat %arg0 : !kite.ptr<f16> -> tensor<128x64x!kite.ptr<f16>>
        %77 = kite.addptr %76, %75 : tensor<128x64x!kite.ptr<f16>>, tensor<128x64xi32>
        %78 = kite.expand_dims %66 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
        %79 = kite.splat %arg8 : i32 -> tensor<64x1xi32>
        %80 = arith.muli %78, %79 : tensor<64x1xi32>
        %81 = kite.expand_dims %32 axis 0 : tensor<256xi32> -> tensor<1x256xi32>
        %82 = kite.splat %arg9 : i32 -> tensor<1x256xi32>
        %83 = arith.muli %81, %82 : tensor<1x256xi32>
        %84 = kite.broadcast %80 : tensor<64x1xi32> -> tensor<64x256xi32>
        %85 = kite.broadcast %83 : tensor<1x256xi32> -> tensor<64x256xi32>
        %86 = arith.addi %84, %85 : tensor<64x256xi32>
        %87 = kite.splat %arg1 : !kite.ptr<f16> -> tensor<64x256x!kite.ptr<f16>>
        %88 = kite.addptr %87, %86 : tensor<64x256x!kite.ptr<f16>>, tensor<64x256xi32>
        %c64_i32_13 = arith.constant 64 : i32
        %89 = arith.muli %arg13, %c64_i32_13 : i32
        %90 = arith.subi %arg5, %89 : i32
        %91 = kite.expand_dims %12 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
        %92 = kite.splat %90 : i32 -> tensor<1x64xi32>
        %93 = arith.cmpi slt, %91, %92 : tensor<1x64xi32>
        %94 = kite.broadcast %93 : tensor<1x64xi1> -> tensor<128x64xi1>
        %cst_14 = arith.constant 0.000000e+00 : f16
        %95 = kite.splat %cst_14 : f16 -> tensor<128x64xf16>
        %96 = kite.load %77, %94, %95 : tensor<128x64x!kite.ptr<f16>>
        %c64_i32_15 = arith.constant 64 : i32
        %97 = arith.muli %arg13, %c64_i32_15 : i32
        %98 = arith.subi %arg5, %97 : i32
        %99 = kite.expand_dims %12 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
        %100 = kite.splat %98 : i32 -> tensor<64x1xi32>
        %101 = arith.cmpi slt, %99, %100 : tensor<64x1xi32>
        %102 = kite.broadcast %101 : tensor<64x1xi1> -> tensor<64x256xi1>
        %cst_16 = arith.constant 0.000000e+00 : f16
        %103 = kite.splat %cst_16 : f16 -> tensor<64x256xf16>
        %104 = kite.load %88, %102, %103 : tensor<64x256x!kite.ptr<f16>>
        %105 = kite.dot %96, %104, %arg14 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        scf.yield %105 : tensor<128x256xf32>
      }
      %c128_i32_10 = arith.constant 128 : i32
      %34 = arith.muli %18, %c128_i32_10 : i32
      %35 = kite.arange 0, 128 : tensor<128xi32>
      %36 = kite.splat %34 : i32 -> tensor<128xi32>
      %37 = arith.addi %36, %35 : tensor<128xi32>
      %c256_i32_11 = arith.constant 256 : i32
      %38 = arith.muli %20, %c256_i32_11 : i32
      %39 = kite.arange 0, 256 : tensor<256xi32>
      %40 = kite.splat %38 : i32 -> tensor<256xi32>
      %41 = arith.addi %40, %39 : tensor<256xi32>
      %42 = kite.expand_dims %37 axis 1 : tensor<128xi32> -> tensor<128x1xi32>
      %43 = kite.splat %arg10 : i32 -> tensor<128x1xi32>
      %44 = arith.muli %43, %42 : tensor<128x1xi32>
      %45 = kite.splat %arg2 : !kite.ptr<f16> -> tensor<128x1x!kite.ptr<f16>>
      %46 = kite.addptr %45, %44 : tensor<128x1x!kite.ptr<f16>>, tensor<128x1xi32>
      %47 = kite.expand_dims %41 axis 0 : tensor<256xi32> -> tensor<1x256xi32>
      %48 = kite.splat %arg11 : i32 -> tensor<1x256xi32>
      %49 = arith.muli %48, %47 : tensor<1x256xi32>
      %50 = kite.broadcast %46 : tensor<128x1x!kite.ptr<f16>> -> tensor<128x256x!kite.ptr<f16>>
      %51 = kite.broadcast %49 : tensor<1x256xi32> -> tensor<128x256xi32>
      %52 = kite.addptr %50, %51 : tensor<128x256x!kite.ptr<f16>>, tensor<128x256xi32>
      %53 = kite.expand_dims %37 axis 1 : tensor<128xi32> -> tensor<128x1xi32>
      %54 = kite.splat %arg3 : i32 -> tensor<128x1xi32>
      %55 = arith.cmpi slt, %53, %54 : tensor<128x1xi32>
      %56 = kite.expand_dims %41 axis 0 : tensor<256xi32> -> tensor<1x256xi32>
      %57 = kite.splat %arg4 : i32 -> tensor<1x256xi32>
      %58 = arith.cmpi slt, %56, %57 : tensor<1x256xi32>
      %59 = kite.broadcast %55 : tensor<128x1xi1> -> tensor<128x256xi1>
      %60 = kite.broadcast %58 : tensor<1x256xi1> -> tensor<128x256xi1>
      %61 = arith.andi %59, %60 : tensor<128x256xi1>
      %62 = arith.truncf %33 : tensor<128x256xf32> to tensor<128x256xf16>
      kite.store %52, %62, %61 : tensor<128x256x!kite.ptr<f16>>
    }
    return
  }
  func.func @matmul_descriptor_persistent(%arg0: !kite.ptr<f16> {kite.name = "a_ptr"}, %arg1: !kite.ptr<f16> {kite.name = "b_ptr"}, %arg2: !kite.ptr<f16> {kite.name = "c_ptr"}, %arg3: i32 {kite.name = "M"}, %arg4: i32 {kite.name = "N"}, %arg5: i32 {kite.name = "K"}) attributes {kite.kernel, kite.num_stages = 3 : i32, kite.num_warps = 8 : i32} {
    %c1_i32 = arith.constant 1 : i32
    %0 = kite.make_tensor_descriptor %arg0, [%arg3, %arg5], [%arg5, %c1_i32] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x64xf16>>
    %c1_i32_0 = arith.constant 1 : i32
    %1 = kite.make_tensor_descriptor %arg1, [%arg5, %arg4], [%arg4, %c1_i32_0] : <f16>, [i32, i32], [i32, i32] -> <tensor<64x256xf16>>
    %c1_i32_1 = arith.constant 1 : i32
    %2 = kite.make_tensor_descriptor %arg2, [%arg3, %arg4], [%arg4, %c1_i32_1] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x256xf16>>
    %3 = kite.program_id 0
    %c128_i32 = arith.constant 128 : i32
    %4 = arith.addi %arg3, %c128_i32 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32_2 : i32
    %c128_i32_3 = arith.constant 128 : i32
    %6 = arith.divsi %5, %c128_i32_3 : i32
    %c256_i32 = arith.constant 256 : i32
    %7 = arith.addi %arg4, %c256_i32 : i32
    %c1_i32_4 = arith.constant 1 : i32
    %8 = arith.subi %7, %c1_i32_4 : i32
    %c256_i32_5 = arith.constant 256 : i32
    %9 = arith.divsi %8, %c256_i32_5 : i32
    %c64_i32 = arith.constant 64 : i32
    %10 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_6 = arith.constant 1 : i32
    %11 = arith.subi %10, %c1_i32_6 : i32
    %c64_i32_7 = arith.constant 64 : i32
    %12 = arith.divsi %11, %c64_i32_7 : i32
    %13 = arith.muli %6, %9 : i32
    %c8_i32 = arith.constant 8 : i32
    %14 = arith.muli %c8_i32, %9 : i32
    %c132_i32 = arith.constant 132 : i32
    scf.for %arg6 = %3 to %13 step %c132_i32  : i32 {
      %15 = arith.divsi %arg6, %14 : i32
      %c8_i32_8 = arith.constant 8 : i32
      %16 = arith.muli %15, %c8_i32_8 : i32
      %17 = arith.subi %6, %16 : i32
      %c8_i32_9 = arith.constant 8 : i32
      %18 = arith.minsi %17, %c8_i32_9 : i32
      %19 = arith.remsi %arg6, %18 : i32
      %20 = arith.addi %16, %19 : i32
      %21 = arith.remsi %arg6, %14 : i32
      %22 = arith.divsi %21, %18 : i32
      %c128_i32_10 = arith.constant 128 : i32
      %23 = arith.muli %20, %c128_i32_10 : i32
      %c256_i32_11 = arith.constant 256 : i32
      %24 = arith.muli %22, %c256_i32_11 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_12 = arith.constant 1 : i32
      %25 = scf.for %arg7 = %c0_i32 to %12 step %c1_i32_12 iter_args(%arg8 = %cst) -> (tensor<128x256xf32>)  : i32 {
        %c64_i32_13 = arith.constant 64 : i32
        %27 = arith.muli %arg7, %c64_i32_13 : i32
        %28 = kite.descriptor_load %0[%23, %27] : <tensor<128x64xf16>> -> tensor<128x64xf16>
        %29 = kite.descriptor_load %1[%27, %24] : <tensor<64x256xf16>> -> tensor<64x256xf16>
        %30 = kite.dot %28, %29, %arg8 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        scf.yield %30 : tensor<128x256xf32>
      }
      %26 = arith.truncf %25 : tensor<128x256xf32> to tensor<128x256xf16>
      kite.descriptor_store %2[%23, %24], %26 : <tensor<128x256xf16>>, tensor<128x256xf16>
    } {kite.warp_specialize = true}
    return
  }
  func.func @matmul_descriptor_persistent_cluster(%arg0: !kite.ptr<f16> {kite.name = "a_ptr"}, %arg1: !kite.ptr<f16> {kite.name = "b_ptr"}, %arg2: !kite.ptr<f16> {kite.name = "c_ptr"}, %arg3: i32 {kite.name = "M"}, %arg4: i32 {kite.name = "N"}, %arg5: i32 {kite.name = "K"}) attributes {kite.cluster_dims = array<i32: 2, 1, 1>, kite.kernel, kite.num_stages = 3 : i32, kite.num_warps = 8 : i32} {
    %c1_i32 = arith.constant 1 : i32
    %0 = kite.make_tensor_descriptor %arg0, [%arg3, %arg5], [%arg5, %c1_i32] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x64xf16>>
    %c1_i32_0 = arith.constant 1 : i32
    %1 = kite.make_tensor_descriptor %arg1, [%arg5, %arg4], [%arg4, %c1_i32_0] : <f16>, [i32, i32], [i32, i32] -> <tensor<64x256xf16>>
    %c1_i32_1 = arith.constant 1 : i32
    %2 = kite.make_tensor_descriptor %arg2, [%arg3, %arg4], [%arg4, %c1_i32_1] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x256xf16>>
    %3 = kite.program_id 0
    %c2_i32 = arith.constant 2 : i32
    %4 = arith.divsi %3, %c2_i32 : i32
    %5 = kite.program_id 0
    %c2_i32_2 = arith.constant 2 : i32
    %6 = arith.remsi %5, %c2_i32_2 : i32
    %c128_i32 = arith.constant 128 : i32
    %7 = arith.addi %arg3, %c128_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %8 = arith.subi %7, %c1_i32_3 : i32
    %c128_i32_4 = arith.constant 128 : i32
    %9 = arith.divsi %8, %c128_i32_4 : i32
    %c2_i32_5 = arith.constant 2 : i32
    %10 = arith.addi %9, %c2_i32_5 : i32
    %c1_i32_6 = arith.constant 1 : i32
    %11 = arith.subi %10, %c1_i32_6 : i32
    %c2_i32_7 = arith.constant 2 : i32
    %12 = arith.divsi %11, %c2_i32_7 : i32
    %c256_i32 = arith.constant 256 : i32
    %13 = arith.addi %arg4, %c256_i32 : i32
    %c1_i32_8 = arith.constant 1 : i32
    %14 = arith.subi %13, %c1_i32_8 : i32
    %c256_i32_9 = arith.constant 256 : i32
    %15 = arith.divsi %14, %c256_i32_9 : i32
    %c64_i32 = arith.constant 64 : i32
    %16 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_10 = arith.constant 1 : i32
    %17 = arith.subi %16, %c1_i32_10 : i32
    %c64_i32_11 = arith.constant 64 : i32
    %18 = arith.divsi %17, %c64_i32_11 : i32
    %19 = arith.muli %12, %15 : i32
    %c4_i32 = arith.constant 4 : i32
    %20 = arith.muli %c4_i32, %15 : i32
    %c66_i32 = arith.constant 66 : i32
    scf.for %arg6 = %4 to %19 step %c66_i32  : i32 {
      %21 = arith.divsi %arg6, %20 : i32
      %c4_i32_12 = arith.constant 4 : i32
      %22 = arith.muli %21, %c4_i32_12 : i32
      %23 = arith.subi %12, %22 : i32
      %c4_i32_13 = arith.constant 4 : i32
      %24 = arith.minsi %23, %c4_i32_13 : i32
      %25 = arith.remsi %arg6, %24 : i32
      %26 = arith.addi %22, %25 : i32
      %27 = arith.remsi %arg6, %20 : i32
      %28 = arith.divsi %27, %24 : i32
      %c2_i32_14 = arith.constant 2 : i32
      %29 = arith.muli %26, %c2_i32_14 : i32
      %30 = arith.addi %29, %6 : i32
      %c128_i32_15 = arith.constant 128 : i32
      %31 = arith.muli %30, %c128_i32_15 : i32
      %c256_i32_16 = arith.constant 256 : i32
      %32 = arith.muli %28, %c256_i32_16 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_17 = arith.constant 1 : i32
      %33 = scf.for %arg7 = %c0_i32 to %18 step %c1_i32_17 iter_args(%arg8 = %cst) -> (tensor<128x256xf32>)  : i32 {
        %c64_i32_18 = arith.constant 64 : i32
        %35 = arith.muli %arg7, %c64_i32_18 : i32
        %36 = kite.descriptor_load %0[%31, %35] : <tensor<128x64xf16>> -> tensor<128x64xf16>
        %37 = kite.descriptor_load %1[%35, %32] : <tensor<64x256xf16>> -> tensor<64x256xf16>
        %38 = kite.dot %36, %37, %arg8 : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        scf.yield %38 : tensor<128x256xf32>
      }
      %34 = arith.truncf %33 : tensor<128x256xf32> to tensor<128x256xf16>
      kite.descriptor_store %2[%31, %32], %34 : <tensor<128x256xf16>>, tensor<128x256xf16>
    } {kite.warp_specialize = true}
    return
  }
  func.func @matmul_descriptor_persistent_ping_pong(%arg0: !kite.ptr<f16> {kite.name = "a_ptr"}, %arg1: !kite.ptr<f16> {kite.name = "b_ptr"}, %arg2: !kite.ptr<f16> {kite.name = "c_ptr"}, %arg3: i32 {kite.name = "M"}, %arg4: i32 {kite.name = "N"}, %arg5: i32 {kite.name = "K"}) attributes {kite.kernel, kite.num_stages = 4 : i32, kite.num_warps = 4 : i32} {
    %c1_i32 = arith.constant 1 : i32
    %0 = kite.make_tensor_descriptor %arg0, [%arg3, %arg5], [%arg5, %c1_i32] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x64xf16>>
    %c1_i32_0 = arith.constant 1 : i32
    %1 = kite.make_tensor_descriptor %arg1, [%arg5, %arg4], [%arg4, %c1_i32_0] : <f16>, [i32, i32], [i32, i32] -> <tensor<64x128xf16>>
    %c1_i32_1 = arith.constant 1 : i32
    %2 = kite.make_tensor_descriptor %arg2, [%arg3, %arg4], [%arg4, %c1_i32_1] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x128xf16>>
    %3 = kite.program_id 0
    %c128_i32 = arith.constant 128 : i32
    %4 = arith.addi %arg3, %c128_i32 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32_2 : i32
    %c128_i32_3 = arith.constant 128 : i32
    %6 = arith.divsi %5, %c128_i32_3 : i32
    %c128_i32_4 = arith.constant 128 : i32
    %7 = arith.addi %arg4, %c128_i32_4 : i32
    %c1_i32_5 = arith.constant 1 : i32
    %8 = arith.subi %7, %c1_i32_5 : i32
    %c128_i32_6 = arith.constant 128 : i32
    %9 = arith.divsi %8, %c128_i32_6 : i32
    %c64_i32 = arith.constant 64 : i32
    %10 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_7 = arith.constant 1 : i32
    %11 = arith.subi %10, %c1_i32_7 : i32
    %c64_i32_8 = arith.constant 64 : i32
    %12 = arith.divsi %11, %c64_i32_8 : i32
    %13 = arith.muli %6, %9 : i32
    %c8_i32 = arith.constant 8 : i32
    %14 = arith.muli %c8_i32, %9 : i32
    %c132_i32 = arith.constant 132 : i32
    scf.for %arg6 = %3 to %13 step %c132_i32  : i32 {
      %15 = arith.divsi %arg6, %14 : i32
      %c8_i32_9 = arith.constant 8 : i32
      %16 = arith.muli %15, %c8_i32_9 : i32
      %17 = arith.subi %6, %16 : i32
      %c8_i32_10 = arith.constant 8 : i32
      %18 = arith.minsi %17, %c8_i32_10 : i32
      %19 = arith.remsi %arg6, %18 : i32
      %20 = arith.addi %16, %19 : i32
      %21 = arith.remsi %arg6, %14 : i32
      %22 = arith.divsi %21, %18 : i32
      %c128_i32_11 = arith.constant 128 : i32
      %23 = arith.muli %20, %c128_i32_11 : i32
      %c128_i32_12 = arith.constant 128 : i32
      %24 = arith.muli %22, %c128_i32_12 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_13 = arith.constant 1 : i32
      %25 = scf.for %arg7 = %c0_i32 to %12 step %c1_i32_13 iter_args(%arg8 = %cst) -> (tensor<128x128xf32>)  : i32 {
        %c64_i32_14 = arith.constant 64 : i32
        %27 = arith.muli %arg7, %c64_i32_14 : i32
        %28 = kite.descriptor_load %0[%23, %27] : <tensor<128x64xf16>> -> tensor<128x64xf16>
        %29 = kite.descriptor_load %1[%27, %24] : <tensor<64x128xf16>> -> tensor<64x128xf16>
        %30 = kite.dot %28, %29, %arg8 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
        scf.yield %30 : tensor<128x128xf32>
      }
      %26 = arith.truncf %25 : tensor<128x128xf32> to tensor<128x128xf16>
      kite.descriptor_store %2[%23, %24], %26 : <tensor<128x128xf16>>, tensor<128x128xf16>
    } {kite.ping_pong = true, kite.warp_specialize = true}
    return
  }
  func.func @matmul_descriptor_persistent_ping_pong_cluster(%arg0: !kite.ptr<f16> {kite.name = "a_ptr"}, %arg1: !kite.ptr<f16> {kite.name = "b_ptr"}, %arg2: !kite.ptr<f16> {kite.name = "c_ptr"}, %arg3: i32 {kite.name = "M"}, %arg4: i32 {kite.name = "N"}, %arg5: i32 {kite.name = "K"}) attributes {kite.cluster_dims = array<i32: 2, 1, 1>, kite.kernel, kite.num_stages = 4 : i32, kite.num_warps = 4 : i32} {
    %c1_i32 = arith.constant 1 : i32
    %0 = kite.make_tensor_descriptor %arg0, [%arg3, %arg5], [%arg5, %c1_i32] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x64xf16>>
    %c1_i32_0 = arith.constant 1 : i32
    %1 = kite.make_tensor_descriptor %arg1, [%arg5, %arg4], [%arg4, %c1_i32_0] : <f16>, [i32, i32], [i32, i32] -> <tensor<64x128xf16>>
    %c1_i32_1 = arith.constant 1 : i32
    %2 = kite.make_tensor_descriptor %arg2, [%arg3, %arg4], [%arg4, %c1_i32_1] : <f16>, [i32, i32], [i32, i32] -> <tensor<128x128xf16>>
    %3 = kite.program_id 0
    %c2_i32 = arith.constant 2 : i32
    %4 = arith.divsi %3, %c2_i32 : i32
    %5 = kite.program_id 0
    %c2_i32_2 = arith.constant 2 : i32
    %6 = arith.remsi %5, %c2_i32_2 : i32
    %c128_i32 = arith.constant 128 : i32
    %7 = arith.addi %arg3, %c128_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %8 = arith.subi %7, %c1_i32_3 : i32
    %c128_i32_4 = arith.constant 128 : i32
    %9 = arith.divsi %8, %c128_i32_4 : i32
    %c2_i32_5 = arith.constant 2 : i32
    %10 = arith.addi %9, %c2_i32_5 : i32
    %c1_i32_6 = arith.constant 1 : i32
    %11 = arith.subi %10, %c1_i32_6 : i32
    %c2_i32_7 = arith.constant 2 : i32
    %12 = arith.divsi %11, %c2_i32_7 : i32
    %c128_i32_8 = arith.constant 128 : i32
    %13 = arith.addi %arg4, %c128_i32_8 : i32
    %c1_i32_9 = arith.constant 1 : i32
    %14 = arith.subi %13, %c1_i32_9 : i32
    %c128_i32_10 = arith.constant 128 : i32
    %15 = arith.divsi %14, %c128_i32_10 : i32
    %c64_i32 = arith.constant 64 : i32
    %16 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_11 = arith.constant 1 : i32
    %17 = arith.subi %16, %c1_i32_11 : i32
    %c64_i32_12 = arith.constant 64 : i32
    %18 = arith.divsi %17, %c64_i32_12 : i32
    %19 = arith.muli %12, %15 : i32
    %c4_i32 = arith.constant 4 : i32
    %20 = arith.muli %c4_i32, %15 : i32
    %c66_i32 = arith.constant 66 : i32
    scf.for %arg6 = %4 to %19 step %c66_i32  : i32 {
      %21 = arith.divsi %arg6, %20 : i32
      %c4_i32_13 = arith.constant 4 : i32
      %22 = arith.muli %21, %c4_i32_13 : i32
      %23 = arith.subi %12, %22 : i32
      %c4_i32_14 = arith.constant 4 : i32
      %24 = arith.minsi %23, %c4_i32_14 : i32
      %25 = arith.remsi %arg6, %24 : i32
      %26 = arith.addi %22, %25 : i32
      %27 = arith.remsi %arg6, %20 : i32
      %28 = arith.divsi %27, %24 : i32
      %c2_i32_15 = arith.constant 2 : i32
      %29 = arith.muli %26, %c2_i32_15 : i32
      %30 = arith.addi %29, %6 : i32
      %c128_i32_16 = arith.constant 128 : i32
      %31 = arith.muli %30, %c128_i32_16 : i32
      %c128_i32_17 = arith.constant 128 : i32
      %32 = arith.muli %28, %c128_i32_17 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
      %c0_i32 = arith.constant 0 : i32
      %c1_i32_18 = arith.constant 1 : i32
      %33 = scf.for %arg7 = %c0_i32 to %18 step %c1_i32_18 iter_args(%arg8 = %cst) -> (tensor<128x128xf32>)  : i32 {
        %c64_i32_19 = arith.constant 64 : i32
        %35 = arith.muli %arg7, %c64_i32_19 : i32
        %36 = kite.descriptor_load %0[%31, %35] : <tensor<128x64xf16>> -> tensor<128x64xf16>
        %37 = kite.descriptor_load %1[%35, %32] : <tensor<64x128xf16>> -> tensor<64x128xf16>
        %38 = kite.dot %36, %37, %arg8 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
        scf.yield %38 : tensor<128x128xf32>
      }
      %34 = arith.truncf %33 : tensor<128x128xf32> to tensor<128x128xf16>
      kite.descriptor_store %2[%31, %32], %34 : <tensor<128x128xf16>>, tensor<128x128xf16>
    } {kite.ping_pong = true, kite.warp_specialize = true}
    return
  }
}
