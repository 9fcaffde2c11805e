// Triton tutorial 04, dropout with an explicit keep mask, in the kite dialect:
//   out[i] = keep[i] != 0 ? x[i] / (1 - p) : 0 for i < n.
// The keep mask is i32 (0 or 1), as in the tutorial.
// Launch: grid = (cdiv(n, 1024), 1, 1), 4 warps per program.
module {
  func.func @dropout(%x_ptr: !kite.ptr<f32>, %keep_ptr: !kite.ptr<i32>,
                     %out_ptr: !kite.ptr<f32>, %n: i32, %p: f32)
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
    %k_base = kite.splat %keep_ptr : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
    %k_ptrs = kite.addptr %k_base, %offsets : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
    %keep_i = kite.load %k_ptrs, %mask : tensor<1024x!kite.ptr<i32>>
    %zero_i = arith.constant dense<0> : tensor<1024xi32>
    %keep = arith.cmpi ne, %keep_i, %zero_i : tensor<1024xi32>
    %one = arith.constant 1.0 : f32
    %q = arith.subf %one, %p : f32
    %q_b = kite.splat %q : f32 -> tensor<1024xf32>
    %scaled = arith.divf %x, %q_b : tensor<1024xf32>
    %zero = arith.constant dense<0.0> : tensor<1024xf32>
    %out = arith.select %keep, %scaled, %zero : tensor<1024xi1>, tensor<1024xf32>
    %o_base = kite.splat %out_ptr : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %o_ptrs = kite.addptr %o_base, %offsets : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %o_ptrs, %out, %mask : tensor<1024x!kite.ptr<f32>>
    return
  }
}
