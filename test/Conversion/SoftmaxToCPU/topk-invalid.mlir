// RUN: softmax-opt %s --softmax-map-to-cpu -split-input-file -verify-diagnostics

// The CPU top-k kernel loads vectors along a row: it reads rows of a larger
// buffer in place (topk-to-cpu.mlir), not rows of strided elements.
func.func @strided(%x: memref<4x1001xf32, strided<[2002, 2]>>, %p: memref<4x5xf32>, %i: memref<4x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op CPU mapping expects memrefs whose last dimension has unit stride}}
  softmax.topk ins(%x : memref<4x1001xf32, strided<[2002, 2]>>) outs(%p, %i : memref<4x5xf32>, memref<4x5xi32>) k(5)
  return
}

// -----

// It has no strategy to request: a request is refused, not ignored.
func.func @request(%x: memref<4x1001xf32>, %p: memref<4x5xf32>, %i: memref<4x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op asks for #softmax.cpu_strategy<vector_width = 4>; the CPU top-k kernel takes no strategy}}
  softmax.topk ins(%x : memref<4x1001xf32>) outs(%p, %i : memref<4x5xf32>, memref<4x5xi32>) k(5) {softmax.strategy = #softmax.cpu_strategy<vector_width = 4>}
  return
}

// -----

// The mapping takes the bufferized op (softmax-to-cpu bufferizes first).
func.func @tensors(%x: tensor<4x1001xf32>, %p: tensor<4x5xf32>, %i: tensor<4x5xi32>) -> (tensor<4x5xf32>, tensor<4x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op CPU mapping expects memrefs; run one-shot-bufferize first}}
  %r:2 = softmax.topk ins(%x : tensor<4x1001xf32>) outs(%p, %i : tensor<4x5xf32>, tensor<4x5xi32>) k(5)
  return %r#0, %r#1 : tensor<4x5xf32>, tensor<4x5xi32>
}
