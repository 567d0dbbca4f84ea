// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=8" -split-input-file -verify-diagnostics

// A per-op request the CPU mapping cannot honour is an error, never
// ignored: another target's strategy,
func.func @gpu_request(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op asks for #softmax.gpu_strategy<threads_per_row = 64>; the CPU mapping takes a #softmax.cpu_strategy}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64>}
  return
}

// -----

// an algorithm the op does not have,
func.func @other_algorithm(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op strategy asks for algorithm exp_pair, but the op's algorithm is online}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.cpu_strategy<algorithm = exp_pair>}
  return
}

// -----

// a three_pass variant for another algorithm (the one auto resolves to:
// online would not take it either),
func.func @variant_for_online(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.log_softmax' op strategy asks for three_pass = tiled, but the op's algorithm is online}}
  softmax.log_softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.cpu_strategy<three_pass = tiled>}
  return
}

// -----

// keys per block other than the lanes,
func.func @attention_keys(%q: memref<1x1x4x16xf32>, %k: memref<1x1x8x16xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op asks for keys_per_block 4, but the CPU mapping scores one key per lane of its 8-lane vectors}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero) {softmax.strategy = #softmax.attention_cpu_strategy<keys_per_block = 4>}
  return
}

// -----

// or an attention strategy of the GPU.
func.func @attention_gpu_request(%q: memref<1x1x4x16xf32>, %k: memref<1x1x8x16xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op asks for #softmax.attention_gpu_strategy<rows_per_warp = 16>; the CPU mapping takes a #softmax.attention_cpu_strategy}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}
  return
}
