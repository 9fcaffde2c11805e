// GPU test kernels for kite.randint/rand: out_i[k] = randint(seed, off[k]),
// out_f[k] = rand(seed, off[k]) for 1024 offsets read from memory.
module {
  func.func @rand_i32(%seed: i32, %off_ptr: !kite.ptr<i32>, %out_i: !kite.ptr<i32>,
                      %out_f: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %r = kite.arange 0, 1024 : tensor<1024xi32>
    %op = kite.splat %off_ptr : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
    %opp = kite.addptr %op, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
    %off = kite.load %opp : tensor<1024x!kite.ptr<i32>>
    %i = kite.randint %seed, %off : i32, tensor<1024xi32> -> tensor<1024xi32>
    %f = kite.rand %seed, %off : i32, tensor<1024xi32> -> tensor<1024xf32>
    %ip = kite.splat %out_i : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
    %ipp = kite.addptr %ip, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
    kite.store %ipp, %i : tensor<1024x!kite.ptr<i32>>
    %fp = kite.splat %out_f : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %fpp = kite.addptr %fp, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %fpp, %f : tensor<1024x!kite.ptr<f32>>
    return
  }
  func.func @rand_i64(%seed: i64, %off_ptr: !kite.ptr<i64>, %out_i: !kite.ptr<i32>,
                      %out_f: !kite.ptr<f32>) attributes {kite.kernel, kite.num_warps = 4 : i32} {
    %r = kite.arange 0, 1024 : tensor<1024xi32>
    %op = kite.splat %off_ptr : !kite.ptr<i64> -> tensor<1024x!kite.ptr<i64>>
    %opp = kite.addptr %op, %r : tensor<1024x!kite.ptr<i64>>, tensor<1024xi32>
    %off = kite.load %opp : tensor<1024x!kite.ptr<i64>>
    %i = kite.randint %seed, %off : i64, tensor<1024xi64> -> tensor<1024xi32>
    %f = kite.rand %seed, %off : i64, tensor<1024xi64> -> tensor<1024xf32>
    %ip = kite.splat %out_i : !kite.ptr<i32> -> tensor<1024x!kite.ptr<i32>>
    %ipp = kite.addptr %ip, %r : tensor<1024x!kite.ptr<i32>>, tensor<1024xi32>
    kite.store %ipp, %i : tensor<1024x!kite.ptr<i32>>
    %fp = kite.splat %out_f : !kite.ptr<f32> -> tensor<1024x!kite.ptr<f32>>
    %fpp = kite.addptr %fp, %r : tensor<1024x!kite.ptr<f32>>, tensor<1024xi32>
    kite.store %fpp, %f : tensor<1024x!kite.ptr<f32>>
    return
  }
}
