// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @rank(%x: tensor<2x3x100xf32>, %p0: tensor<2x5xf32>, %i0: tensor<2x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op needs rows [B, V], not rank 3}}
  %p, %i = softmax.topk ins(%x : tensor<2x3x100xf32>) outs(%p0, %i0 : tensor<2x5xf32>, tensor<2x5xi32>) k(5)
  return
}

// -----

func.func @k(%x: tensor<2x100xf32>, %p0: tensor<2x0xf32>, %i0: tensor<2x0xi32>) {
  // expected-error @+1 {{'softmax.topk' op k must be positive, not 0}}
  %p, %i = softmax.topk ins(%x : tensor<2x100xf32>) outs(%p0, %i0 : tensor<2x0xf32>, tensor<2x0xi32>) k(0)
  return
}

// -----

func.func @out_shape(%x: tensor<2x100xf32>, %p0: tensor<2x5xf32>, %i0: tensor<2x4xi32>) {
  // expected-error @+1 {{'softmax.topk' op outputs must be [B, k] = [2, 5], not 'tensor<2x4xi32>'}}
  %p, %i = softmax.topk ins(%x : tensor<2x100xf32>) outs(%p0, %i0 : tensor<2x5xf32>, tensor<2x4xi32>) k(5)
  return
}

// -----

func.func @rows(%x: tensor<?x100xf32>, %p0: tensor<2x5xf32>, %i0: tensor<3x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op outputs must be [B, k] = [2, 5], not 'tensor<3x5xi32>'}}
  %p, %i = softmax.topk ins(%x : tensor<?x100xf32>) outs(%p0, %i0 : tensor<2x5xf32>, tensor<3x5xi32>) k(5)
  return
}

// -----

func.func @mixed(%x: memref<2x100xf32>, %p0: tensor<2x5xf32>, %i0: tensor<2x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op operands must be all tensors or all memrefs}}
  %p, %i = softmax.topk ins(%x : memref<2x100xf32>) outs(%p0, %i0 : tensor<2x5xf32>, tensor<2x5xi32>) k(5)
  return
}

// -----

func.func @buffer_rows(%x: memref<2x100xf32>, %p0: memref<2x5xf32>, %i0: memref<3x5xi32>) {
  // expected-error @+1 {{'softmax.topk' op outputs must be [B, k] = [2, 5], not 'memref<3x5xi32>'}}
  softmax.topk ins(%x : memref<2x100xf32>) outs(%p0, %i0 : memref<2x5xf32>, memref<3x5xi32>) k(5)
  return
}
