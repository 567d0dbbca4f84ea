// RUN: softmax-opt %s --softmax-map-to-cpu -split-input-file -verify-diagnostics

func.func @tensors(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.softmax' op CPU mapping expects memrefs; run one-shot-bufferize first}}
  %0 = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) dimension(1) masked(zero)
  return %0 : tensor<4x8xf32>
}

// -----

// Rows of a slice reduced along its last dimension are read in place
// (map-to-cpu.mlir); a reduction along another dimension collapses the
// buffers into [outer, n, inner], which needs them contiguous.
func.func @strided(%x: memref<2x4x8xf32, strided<[64, 16, 1]>>, %y: memref<2x4x8xf32>) {
  // expected-error @+1 {{'softmax.log_softmax' op CPU mapping expects contiguous (identity layout) memrefs}}
  softmax.log_softmax ins(%x : memref<2x4x8xf32, strided<[64, 16, 1]>>) outs(%y : memref<2x4x8xf32>) dimension(1) masked(zero)
  return
}

// -----

// A row slice must still have unit stride along its rows.
func.func @strided_columns(%x: memref<4x8xf32, strided<[16, 2]>>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.log_softmax' op CPU mapping expects memrefs whose last dimension has unit stride}}
  softmax.log_softmax ins(%x : memref<4x8xf32, strided<[16, 2]>>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero)
  return
}

// -----

func.func @f64(%x: memref<4x8xf64>, %y: memref<4xf64>) {
  // expected-error @+1 {{'softmax.logsumexp' op CPU mapping supports f16, bf16 and f32, not 'f64'}}
  softmax.logsumexp ins(%x : memref<4x8xf64>) outs(%y : memref<4xf64>) dimension(1) masked(zero)
  return
}

// -----

func.func @acc_f64(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.softmax' op CPU mapping accumulates in f32; acc_type 'f64' is not supported}}
  softmax.softmax ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero) {acc_type = f64}
  return
}

// -----

func.func @attention_dynamic_head_dim(%q: memref<1x1x4x?xf32>, %k: memref<1x1x8x?xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op CPU attention mapping keeps a query row and its output in registers: the head dimensions (query and value dimension 3) must be static}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x?xf32>, memref<1x1x8x?xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero) scale(0.25)
  return
}

// -----

func.func @attention_huge_head_dim(%q: memref<1x1x4x1024xf32>, %k: memref<1x1x8x1024xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op CPU attention mapping keeps a query row and its output in registers: head dimensions above 512 are not supported}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x1024xf32>, memref<1x1x8x1024xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero)
  return
}

// -----

func.func @attention_tensors(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>, %o: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op CPU mapping expects memrefs; run one-shot-bufferize first}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x1x4x16xf32>) masked(zero)
  return %r : tensor<1x1x4x16xf32>
}
