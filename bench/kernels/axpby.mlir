// out = a * x + b * y over n elements: the 6-argument kernel of the launch
// overhead benchmark (bench/runtime_bench.cpp).
module {
  func.func @axpby(%x_ptr: !kite.ptr<f32>, %y_ptr: !kite.ptr<f32>,
                   %out_ptr: !kite.ptr<f32>, %n: i32, %a: f32, %b: f32)
      attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %pid = kite.program_id 0
    %c = arith.constant 1024 : i32
    %start = arith.muli %pid, %c : i32
    %r = kite.arange 0, 1024 : tensor<1024xi32>
    %sb = kite.splat %start : i32 -> tensor<1024xi32>
    %offs = arith.addi %sb, %r : tensor<1024xi32>
    %nb = kite.splat %n : i32 -> tensor<1024xi32>
    %m = arith.cmpi slt, %offs, %nb : tensor<1024xi32>
    %xs = kite.splat %x_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %xp = kite.addptr %xs, %offs : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %x = kite.load %xp, %m : tensor<1024x!kite.ptr<f32>>
    %ys = kite.splat %y_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %yp = kite.addptr %ys, %offs : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %y = kite.load %yp, %m : tensor<1024x!kite.ptr<f32>>
    %ab = kite.splat %a : f32 -> tensor<1024xf32>
    %bb = kite.splat %b : f32 -> tensor<1024xf32>
    %ax = arith.mulf %ab, %x : tensor<1024xf32>
    %by = arith.mulf %bb, %y : tensor<1024xf32>
    %s = arith.addf %ax, %by : tensor<1024xf32>
    %os = kite.splat %out_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %op = kite.addptr %os, %offs : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %op, %s, %m : tensor<1024x!kite.ptr<f32>>
    return
  }
}
