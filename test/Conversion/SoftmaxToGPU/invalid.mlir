// RUN: softmax-opt %s --softmax-map-to-gpu -split-input-file -verify-diagnostics

func.func @tensors(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping expects memrefs; run one-shot-bufferize first}}
  %0 = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) dimension(1) masked(zero)
  return %0 : tensor<4x8xf32>
}

// -----

func.func @outer_dimension(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping reduces the innermost dimension only, not dimension 0 of rank 2}}
  softmax.softmax ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) dimension(0) masked(zero)
  return
}

// -----

func.func @strided(%x: memref<4x8xf32, strided<[16, 1]>>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping expects contiguous (identity layout) memrefs}}
  softmax.softmax ins(%x : memref<4x8xf32, strided<[16, 1]>>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero)
  return
}

// -----

func.func @f64(%x: memref<4x8xf64>, %y: memref<4x8xf64>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping supports f16, bf16 and f32, not 'f64'}}
  softmax.softmax ins(%x : memref<4x8xf64>) outs(%y : memref<4x8xf64>) dimension(1) masked(zero)
  return
}

// -----

func.func @acc_f64(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping accumulates in f32; acc_type 'f64' is not supported}}
  softmax.softmax ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero) {acc_type = f64}
  return
}

// -----

func.func @bad_threads(%x: memref<4x1024xf32>, %y: memref<4x1024xf32>) {
  // expected-error @+1 {{'softmax.softmax' op threads per row (96) times rows per block (1) must be a power of two of at most 1024 threads}}
  softmax.softmax ins(%x : memref<4x1024xf32>) outs(%y : memref<4x1024xf32>) dimension(1) masked(zero) {softmax.gpu_strategy = {threads_per_row = 96}}
  return
}

// -----

func.func @bad_vector_width(%x: memref<4x1030xf32>, %y: memref<4x1030xf32>) {
  // expected-error @+1 {{'softmax.softmax' op vector width 4 must divide the static row length}}
  softmax.softmax ins(%x : memref<4x1030xf32>) outs(%y : memref<4x1030xf32>) dimension(1) masked(zero) {softmax.gpu_strategy = {vector_width = 4}}
  return
}

// -----

func.func @too_few_cached(%x: memref<4x8192xf32>, %y: memref<4x8192xf32>) {
  // expected-error @+1 {{'softmax.softmax' op cached vectors (1) do not cover the row length 8192}}
  softmax.softmax ins(%x : memref<4x8192xf32>) outs(%y : memref<4x8192xf32>) dimension(1) masked(zero) {softmax.gpu_strategy = {threads_per_row = 256, cached_vectors = 1}}
  return
}

// -----

func.func @splits_too_many(%x: memref<4x262144xf32>, %y: memref<4x262144xf32>) {
  // expected-error @+1 {{'softmax.softmax' op splits (64) exceed the warp size 32: one warp merges the states of a row}}
  softmax.softmax ins(%x : memref<4x262144xf32>) outs(%y : memref<4x262144xf32>) dimension(1) masked(zero) {softmax.gpu_strategy = {threads_per_row = 256, cached_vectors = 4, splits = 64}}
  return
}

// -----

func.func @splits_not_tiling(%x: memref<4x262144xf32>, %y: memref<4x262144xf32>) {
  // expected-error @+1 {{'softmax.softmax' op splits (8) of 8192 elements do not tile the row length 262144}}
  softmax.softmax ins(%x : memref<4x262144xf32>) outs(%y : memref<4x262144xf32>) dimension(1) masked(zero) {softmax.gpu_strategy = {threads_per_row = 256, cached_vectors = 8, splits = 8}}
  return
}

// -----

func.func @unknown_field(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op softmax.gpu_strategy: 'warps' is not a strategy field with a non-negative integer value}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) {softmax.gpu_strategy = {warps = 4}}
  return
}

// -----

// f32 runs on the tf32 tensor cores (attention-f32-to-gpu.mlir), with the
// same head-dimension rule.
func.func @attention_f32_head_dim(%q: memref<1x1x4x24xf32>, %k: memref<1x1x8x24xf32>, %v: memref<1x1x8x24xf32>, %o: memref<1x1x4x24xf32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs static head dimensions that are multiples of 16, at most 256}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x24xf32>, memref<1x1x8x24xf32>, memref<1x1x8x24xf32>) outs(%o : memref<1x1x4x24xf32>) masked(zero)
  return
}

// -----

func.func @attention_head_dim(%q: memref<1x1x4x24xbf16>, %k: memref<1x1x8x24xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs static head dimensions that are multiples of 16, at most 256}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x24xbf16>, memref<1x1x8x24xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero)
  return
}
