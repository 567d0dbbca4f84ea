// A buffer whose leading dimensions hold a dynamic size and a static 0 is
// collapsed to a dynamic dimension. (Upstream's collapse_shape builder gave
// memref<?x0x100xbf16> the collapsed type memref<0xbf16>, which its verifier
// rejects: softmax-map-to-cpu succeeded and left IR that does not verify. The
// first finding of softmax-fuzz once it verified after every pass.)
// RUN: softmax-opt %s --softmax-bufferize --softmax-map-to-cpu | FileCheck %s
// (test/Conversion/SoftmaxToGPU/collapse-empty-dynamic.mlir: the GPU mapping.)

// CHECK-LABEL: func.func @lse_dynamic_and_zero
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<0x0x0x100xbf16> into memref<0x0xbf16>
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<?x0x100xbf16> into memref<?xbf16>
func.func @lse_dynamic_and_zero(%x: tensor<0x0x0x100xbf16>, %y: tensor<?x0x100xbf16>) -> tensor<?x0x100xbf16> {
  %r = softmax.logsumexp ins(%x : tensor<0x0x0x100xbf16>) outs(%y : tensor<?x0x100xbf16>) dimension(0) masked(zero) algorithm(online)
  return %r : tensor<?x0x100xbf16>
}

// CHECK-LABEL: func.func @softmax_rows_dynamic_and_zero
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : memref<?x0x100xf32> into memref<?x100xf32>
func.func @softmax_rows_dynamic_and_zero(%x: tensor<?x0x100xf32>, %y: tensor<?x0x100xf32>) -> tensor<?x0x100xf32> {
  %r = softmax.softmax ins(%x : tensor<?x0x100xf32>) outs(%y : tensor<?x0x100xf32>) dimension(2) masked(zero) algorithm(online)
  return %r : tensor<?x0x100xf32>
}
