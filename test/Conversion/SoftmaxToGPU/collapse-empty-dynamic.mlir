// The GPU mapping collapses leading dimensions that hold a dynamic size and
// a static 0 to a dynamic one, as the CPU mapping does
// (test/Conversion/SoftmaxToCPU/collapse-empty-dynamic.mlir says why).
// RUN: softmax-opt %s --softmax-bufferize --softmax-map-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @softmax_rows_dynamic_and_zero
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : memref<?x0x100xf32> into memref<?x100xf32>
func.func @softmax_rows_dynamic_and_zero(%x: tensor<?x0x100xf32>, %y: tensor<?x0x100xf32>) -> tensor<?x0x100xf32> {
  %r = softmax.softmax ins(%x : tensor<?x0x100xf32>) outs(%y : tensor<?x0x100xf32>) dimension(2) masked(zero) algorithm(online)
  return %r : tensor<?x0x100xf32>
}

// CHECK-LABEL: func.func @lse_rows_zero_and_dynamic
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : memref<0x?x7xf32> into memref<?x7xf32>
func.func @lse_rows_zero_and_dynamic(%x: tensor<0x?x7xf32>, %y: tensor<0x?xf32>) -> tensor<0x?xf32> {
  %r = softmax.logsumexp ins(%x : tensor<0x?x7xf32>) outs(%y : tensor<0x?xf32>) dimension(2) masked(zero) algorithm(online)
  return %r : tensor<0x?xf32>
}
