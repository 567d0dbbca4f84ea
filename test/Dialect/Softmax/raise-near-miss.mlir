// RUN: softmax-opt %s --softmax-raise -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null
// Forms that look like softmax but compute something else stay as they are.

// No max subtraction: exp(x) / sum(exp(x)) overflows where softmax does not.
// CHECK-LABEL: func @no_max
// CHECK-NOT: softmax.
// CHECK: linalg.map { arith.divf }
func.func @no_max(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %exp = linalg.map { math.exp } ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %sinit = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<4x32xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %bsum = linalg.broadcast ins(%sum : tensor<4xf32>) outs(%e : tensor<4x32xf32>) dimensions = [1]
  // expected-remark @below {{softmax-raise: softmax-shaped computation not raised: the exp argument is not a subtraction x - max x}}
  %y = linalg.map { arith.divf } ins(%exp, %bsum : tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  return %y : tensor<4x32xf32>
}

// -----

// The max is taken over another dimension than the sum.
// CHECK-LABEL: func @max_other_dim
// CHECK-NOT: softmax.
// CHECK: linalg.map { arith.divf }
func.func @max_other_dim(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<4x4xf32>) outs(%minit : tensor<4xf32>) dimensions = [0]
  %bmax = linalg.broadcast ins(%max : tensor<4xf32>) outs(%e : tensor<4x4xf32>) dimensions = [1]
  %sub = linalg.map { arith.subf } ins(%x, %bmax : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>)
  %exp = linalg.map { math.exp } ins(%sub : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>)
  %sinit = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<4x4xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %bsum = linalg.broadcast ins(%sum : tensor<4xf32>) outs(%e : tensor<4x4xf32>) dimensions = [1]
  // expected-remark @below {{softmax-raise: softmax-shaped computation not raised: the max is taken over other values than the ones it is subtracted from}}
  %y = linalg.map { arith.divf } ins(%exp, %bsum : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>)
  return %y : tensor<4x4xf32>
}

// -----

// The sum starts at 1, not 0.
// CHECK-LABEL: func @sum_seed_one
// CHECK-NOT: softmax.
// CHECK: linalg.map { arith.divf }
func.func @sum_seed_one(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<4x32xf32>) outs(%minit : tensor<4xf32>) dimensions = [1]
  %bmax = linalg.broadcast ins(%max : tensor<4xf32>) outs(%e : tensor<4x32xf32>) dimensions = [1]
  %sub = linalg.map { arith.subf } ins(%x, %bmax : tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %exp = linalg.map { math.exp } ins(%sub : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %sinit = linalg.fill ins(%one : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<4x32xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %bsum = linalg.broadcast ins(%sum : tensor<4xf32>) outs(%e : tensor<4x32xf32>) dimensions = [1]
  // expected-remark @below {{softmax-raise: softmax-shaped computation not raised: the sum reduction does not start at 0}}
  %y = linalg.map { arith.divf } ins(%exp, %bsum : tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  return %y : tensor<4x32xf32>
}

// -----

// The numerator is exp of another tensor than the one normalized.
// CHECK-LABEL: func @other_numerator
// CHECK-NOT: softmax.
// CHECK: linalg.map { arith.divf }
func.func @other_numerator(%x: tensor<4x32xf32>, %z: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<4x32xf32>) outs(%minit : tensor<4xf32>) dimensions = [1]
  %bmax = linalg.broadcast ins(%max : tensor<4xf32>) outs(%e : tensor<4x32xf32>) dimensions = [1]
  %sub = linalg.map { arith.subf } ins(%x, %bmax : tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %exp = linalg.map { math.exp } ins(%sub : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %subz = linalg.map { arith.subf } ins(%z, %bmax : tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %expz = linalg.map { math.exp } ins(%subz : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %sinit = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<4x32xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %bsum = linalg.broadcast ins(%sum : tensor<4xf32>) outs(%e : tensor<4x32xf32>) dimensions = [1]
  // expected-remark @below {{softmax-raise: softmax-shaped computation not raised: the numerator is not the exp that is summed}}
  %y = linalg.map { arith.divf } ins(%expz, %bsum : tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  return %y : tensor<4x32xf32>
}

// -----

// linalg.softmax on buffers: the softmax ops are on tensors only.
// CHECK-LABEL: func @memref_softmax
// CHECK: linalg.softmax
func.func @memref_softmax(%x: memref<2x16xf32>, %y: memref<2x16xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<2x16xf32>) outs(%y : memref<2x16xf32>)
  return
}
