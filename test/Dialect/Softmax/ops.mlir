// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// CHECK-LABEL: func @semantic
func.func @semantic(%x: tensor<4x1000xbf16>, %y: tensor<8x?xf32>,
                    %z: tensor<4x128xf32>, %i0: tensor<4x1000xbf16>,
                    %i1: tensor<8x?xf32>, %i2: tensor<4xf32>)
    -> (tensor<4x1000xbf16>, tensor<8x?xf32>, tensor<4xf32>) {
  // CHECK: softmax.softmax ins(%{{.*}} : tensor<4x1000xbf16>) outs(%{{.*}} : tensor<4x1000xbf16>) dimension(1) masked(zero) algorithm(online)
  %0 = softmax.softmax ins(%x : tensor<4x1000xbf16>) outs(%i0 : tensor<4x1000xbf16>)
                       dimension(1) masked(zero) algorithm(online)
  // The default algorithm, auto, is not printed.
  // CHECK: softmax.log_softmax ins(%{{.*}} : tensor<8x?xf32>) outs(%{{.*}} : tensor<8x?xf32>) dimension(1) masked(nan){{$}}
  %1 = softmax.log_softmax ins(%y : tensor<8x?xf32>) outs(%i1 : tensor<8x?xf32>)
                           dimension(1) masked(nan)
  // CHECK: softmax.logsumexp ins(%{{.*}} : tensor<4x128xf32>) outs(%{{.*}} : tensor<4xf32>) dimension(1) masked(zero) algorithm(exp_pair) {acc_type = f64}
  %2 = softmax.logsumexp ins(%z : tensor<4x128xf32>) outs(%i2 : tensor<4xf32>)
                         dimension(1) masked(zero) algorithm(exp_pair) {acc_type = f64}
  return %0, %1, %2 : tensor<4x1000xbf16>, tensor<8x?xf32>, tensor<4xf32>
}

// CHECK-LABEL: func @leading_dimension
func.func @leading_dimension(%x: tensor<16x3x5xf16>, %i: tensor<16x3x5xf16>) -> tensor<16x3x5xf16> {
  // CHECK: softmax.softmax {{.*}} dimension(0) masked(nan) algorithm(three_pass)
  %0 = softmax.softmax ins(%x : tensor<16x3x5xf16>) outs(%i : tensor<16x3x5xf16>)
                       dimension(0) masked(nan) algorithm(three_pass)
  return %0 : tensor<16x3x5xf16>
}

// CHECK-LABEL: func @state
func.func @state(%x: tensor<4x128xbf16>, %m0: tensor<4xf32>, %l0: tensor<4xf32>,
                 %o: tensor<4x64xf32>, %y: tensor<4x128xbf16>, %r: tensor<4xbf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<4x128xbf16>, tensor<4xbf16>) {
  // CHECK: %[[M:.*]], %[[L:.*]], %{{.*}} = softmax.partial ins(%{{.*}} : tensor<4x128xbf16>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>) dimension(1) algorithm(online)
  %m, %l, %m_c = softmax.partial ins(%x : tensor<4x128xbf16>) outs(%m0, %l0, %l0 : tensor<4xf32>)
                           dimension(1) algorithm(online)
  // CHECK: softmax.merge(%[[M]], %[[L]]), (%{{.*}}, %{{.*}}) state(max) : tensor<4xf32>
  %m2, %l2 = softmax.merge (%m, %l), (%m0, %l0) state(max) : tensor<4xf32>
  // CHECK: softmax.merge(%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) acc(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>) state(exponent) : tensor<4xf32>
  %m3, %l3, %o3 = softmax.merge (%m, %l), (%m2, %l2)
      acc(%o, %o : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>) state(exponent) : tensor<4xf32>
  // CHECK: softmax.normalize ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x128xbf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4x128xbf16>) dimension(1) kind(log_softmax) state(max) masked(zero)
  %n = softmax.normalize ins(%x, %m2, %l2 : tensor<4x128xbf16>, tensor<4xf32>) outs(%y : tensor<4x128xbf16>)
                         dimension(1) kind(log_softmax) state(max) masked(zero)
  // CHECK: softmax.lse ins(%{{.*}}, %{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xbf16>) state(exponent) masked(nan)
  %s = softmax.lse ins(%m3, %l3 : tensor<4xf32>) outs(%r : tensor<4xbf16>) state(exponent) masked(nan)
  return %m3, %l3, %o3, %n, %s : tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<4x128xbf16>, tensor<4xbf16>
}

// After bufferization the semantic ops take memrefs and return nothing.
// CHECK-LABEL: func @buffers
// CHECK: softmax.logsumexp ins(%{{.*}} : memref<?x64xf16>) outs(%{{.*}} : memref<?xf16>) dimension(1) masked(zero) algorithm(online){{$}}
func.func @buffers(%x: memref<?x64xf16>, %y: memref<?xf16>) {
  softmax.logsumexp ins(%x : memref<?x64xf16>) outs(%y : memref<?xf16>) dimension(1) masked(zero) algorithm(online)
  return
}
