// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// CHECK-LABEL: func.func @probs
// CHECK: %{{.*}}:2 = softmax.topk ins(%{{.*}} : tensor<256x128256xbf16>) outs(%{{.*}}, %{{.*}} : tensor<256x50xf32>, tensor<256x50xi32>) k(50)
func.func @probs(%x: tensor<256x128256xbf16>, %p0: tensor<256x50xf32>, %i0: tensor<256x50xi32>) -> (tensor<256x50xf32>, tensor<256x50xi32>) {
  %p, %i = softmax.topk ins(%x : tensor<256x128256xbf16>) outs(%p0, %i0 : tensor<256x50xf32>, tensor<256x50xi32>) k(50)
  return %p, %i : tensor<256x50xf32>, tensor<256x50xi32>
}

// Dynamic rows, i64 indices and log-probabilities.
// CHECK-LABEL: func.func @log_probs
// CHECK: softmax.topk ins(%{{.*}} : tensor<?x?xf32>) outs(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?x4xi64>) log_probs(%{{.*}} : tensor<?x4xf32>) k(4)
func.func @log_probs(%x: tensor<?x?xf32>, %p0: tensor<?x4xf32>, %i0: tensor<?x4xi64>, %l0: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi64>, tensor<?x4xf32>) {
  %p, %i, %l = softmax.topk ins(%x : tensor<?x?xf32>) outs(%p0, %i0 : tensor<?x4xf32>, tensor<?x4xi64>) log_probs(%l0 : tensor<?x4xf32>) k(4)
  return %p, %i, %l : tensor<?x4xf32>, tensor<?x4xi64>, tensor<?x4xf32>
}

// After bufferization: the inits are written in place, no results.
// CHECK-LABEL: func.func @buffers
// CHECK: softmax.topk ins(%{{.*}} : memref<?x32000xbf16>) outs(%{{.*}}, %{{.*}} : memref<?x50xf32>, memref<?x50xi32>) log_probs(%{{.*}} : memref<?x50xf32>) k(50)
// CHECK-NEXT: return
func.func @buffers(%x: memref<?x32000xbf16>, %p: memref<?x50xf32>, %i: memref<?x50xi32>, %l: memref<?x50xf32>) {
  softmax.topk ins(%x : memref<?x32000xbf16>) outs(%p, %i : memref<?x50xf32>, memref<?x50xi32>) log_probs(%l : memref<?x50xf32>) k(50)
  return
}
