// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file -verify-diagnostics

// The candidate buffer (k plus one step of 2048 bf16 elements, rounded up
// to a power of two, 8 bytes a slot) must fit in the block's workgroup
// memory (the warps' states beside it: 8 of 32 lanes, 4 of 64).
func.func @k_too_large(%x: memref<4x200000xbf16>, %p: memref<4x8000xf32>, %i: memref<4x8000xi32>) {
  // expected-error-re @+1 {{'softmax.topk' op k (8000) needs {{[0-9]+}} bytes of workgroup memory for its candidates (16384 slots); the GPU mapping has 49152}}
  softmax.topk ins(%x : memref<4x200000xbf16>) outs(%p, %i : memref<4x8000xf32>, memref<4x8000xi32>) k(8000)
  return
}

// -----

func.func @strided(%x: memref<4x1000xf32, strided<[2000, 1]>>, %p: memref<4x8xf32>, %i: memref<4x8xi32>) {
  // expected-error @+1 {{'softmax.topk' op GPU mapping expects contiguous (identity layout) memrefs}}
  softmax.topk ins(%x : memref<4x1000xf32, strided<[2000, 1]>>) outs(%p, %i : memref<4x8xf32>, memref<4x8xi32>) k(8)
  return
}

// -----

func.func @tensors(%x: tensor<4x1000xf32>, %p0: tensor<4x8xf32>, %i0: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  // expected-error @+1 {{'softmax.topk' op GPU mapping takes the op on memrefs (bufferize it first, as softmax-to-nvvm does)}}
  %p, %i = softmax.topk ins(%x : tensor<4x1000xf32>) outs(%p0, %i0 : tensor<4x8xf32>, tensor<4x8xi32>) k(8)
  return %p, %i : tensor<4x8xf32>, tensor<4x8xi32>
}
