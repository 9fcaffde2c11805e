// Triton tutorial 01, vector addition, in the kite dialect:
//   out[i] = x[i] + y[i] for i < n, one 1024-element block per program.
// Launch: grid = (cdiv(n, 1024), 1, 1), 4 warps per program.
module {
  func.func @vector_add(%x_ptr: !kite.ptr<f32>, %y_ptr: !kite.ptr<f32>,
                        %out_ptr: !kite.ptr<f32>, %n: i32)
      attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %pid = kite.program_id 0
    %block = arith.constant 1024 : i32
    %start = arith.muli %pid, %block : i32
    %range = kite.arange 0, 1024 : tensor<1024xi32>
    %start_b = kite.splat %start : i32 -> tensor<1024xi32>
    %offsets = arith.addi %start_b, %range : tensor<1024xi32>
    %n_b = kite.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offsets, %n_b : tensor<1024xi32>
    %x_base = kite.splat %x_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %x_ptrs = kite.addptr %x_base, %offsets : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %x = kite.load %x_ptrs, %mask : tensor<1024x!kite.ptr<f32>>
    %y_base = kite.splat %y_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %y_ptrs = kite.addptr %y_base, %offsets : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    %y = kite.load %y_ptrs, %mask : tensor<1024x!kite.ptr<f32>>
    %sum = arith.addf %x, %y : tensor<1024xf32>
    %out_base = kite.splat %out_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %out_ptrs = kite.addptr %out_base, %offsets : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %out_ptrs, %sum, %mask : tensor<1024x!kite.ptr<f32>>
    return
  }
}
