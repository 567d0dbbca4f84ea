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

// A request the attribute verifier lets through (a power of two) but the
// chip cannot honour. (96 threads: pass-options.mlir; the attribute refuses
// it itself, test/Dialect/Softmax/strategy-attrs-invalid.mlir.)
func.func @bad_threads(%x: memref<4x4096xf32>, %y: memref<4x4096xf32>) {
  // expected-error @+1 {{'softmax.softmax' op strategy: threads-per-row must be a power of two from 1 to 1024, not 2048}}
  softmax.softmax ins(%x : memref<4x4096xf32>) outs(%y : memref<4x4096xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 2048>}
  return
}

// -----

// Any vector width takes any row length (odd rows are peeled), but
// registers cover only a row of known length.
func.func @cached_dynamic_row(%x: memref<4x?xf32>, %y: memref<4x?xf32>) {
  // expected-error @+1 {{'softmax.softmax' op cached vectors need a static row length; ask for 0 to stream the row twice}}
  softmax.softmax ins(%x : memref<4x?xf32>) outs(%y : memref<4x?xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<cached_vectors = 4>}
  return
}

// -----

// A vector width the kernels do not take at all (issue 12: this got "must
// divide the static row length", true of 64 but not the reason), and cached
// vectors past the registers, asked for by a request: refused by the range
// of the option that asks for the same field.
func.func @odd_vector_width(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op strategy: vector-width must be a power of two from 1 to 16, not 3}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<vector_width = 3>}
  return
}

// -----

func.func @many_cached(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op strategy: cached-vectors must be from 1 to 64, not 65}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<cached_vectors = 65>}
  return
}

// -----

func.func @too_few_cached(%x: memref<4x8192xf32>, %y: memref<4x8192xf32>) {
  // expected-error @+1 {{'softmax.softmax' op cached vectors (1) do not cover the row length 8192}}
  softmax.softmax ins(%x : memref<4x8192xf32>) outs(%y : memref<4x8192xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 1>}
  return
}

// -----

func.func @splits_too_many(%x: memref<4x262144xf32>, %y: memref<4x262144xf32>) {
  // expected-error @+1 {{'softmax.softmax' op splits (64) exceed the warp size 32: one warp merges the states of a row}}
  softmax.softmax ins(%x : memref<4x262144xf32>) outs(%y : memref<4x262144xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 4, splits = 64>}
  return
}

// -----

func.func @splits_not_tiling(%x: memref<4x262144xf32>, %y: memref<4x262144xf32>) {
  // expected-error @+1 {{'softmax.softmax' op splits (8) of 8192 elements do not tile the row length 262144}}
  softmax.softmax ins(%x : memref<4x262144xf32>) outs(%y : memref<4x262144xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 8, splits = 8>}
  return
}

// -----

// (An unknown field, formerly checked here, is now the parser's:
// test/Dialect/Softmax/strategy-attrs-invalid.mlir.) A CPU request is not
// silently ignored by the GPU mapping.
func.func @cpu_request(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op asks for #softmax.cpu_strategy<vector_width = 8>; the GPU mapping takes a #softmax.gpu_strategy}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.cpu_strategy<vector_width = 8>}
  return
}

// -----

func.func @attention_cpu_request(%q: memref<1x1x4x16xbf16>, %k: memref<1x1x8x16xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op asks for #softmax.attention_cpu_strategy<vector_width = 8>; the GPU mapping takes a #softmax.attention_gpu_strategy}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xbf16>, memref<1x1x8x16xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero) {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 8>}
  return
}

// -----

func.func @attention_derived_field(%q: memref<1x1x4x16xbf16>, %k: memref<1x1x8x16xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op asks for rows_per_block or keys_per_tile, which the GPU mapping derives (warps per block, 64-key tiles); ask for rows_per_warp}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xbf16>, memref<1x1x8x16xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_block = 64>}
  return
}

// -----

// bf16 has one instruction on sm_90; the request must name it (or leave
// mma out).
func.func @attention_wrong_mma(%q: memref<1x1x4x16xbf16>, %k: memref<1x1x8x16xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op asks for mma m16n8k8.tf32, but 'bf16' attention on sm_90 runs m16n8k16}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xbf16>, memref<1x1x8x16xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32>}
  return
}

// -----

// f32 runs on the tf32 tensor cores (attention-f32-to-gpu.mlir), with the
// same head-dimension rule.
func.func @attention_f32_head_dim(%q: memref<1x1x4x24xf32>, %k: memref<1x1x8x24xf32>, %v: memref<1x1x8x24xf32>, %o: memref<1x1x4x24xf32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs static head dimensions that are multiples of 16, from 16 to 256}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x24xf32>, memref<1x1x8x24xf32>, memref<1x1x8x24xf32>) outs(%o : memref<1x1x4x24xf32>) masked(zero)
  return
}

// -----

func.func @attention_head_dim(%q: memref<1x1x4x24xbf16>, %k: memref<1x1x8x24xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs static head dimensions that are multiples of 16, from 16 to 256}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x24xbf16>, memref<1x1x8x24xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero)
  return
}
