// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_80 -verify-diagnostics -split-input-file

// sm_80 has no tensor-memory accelerator: a request for TMA tiles is
// refused, not dropped.
func.func @tma_on_sm80(%q: memref<1x4x1x64xbf16>, %k: memref<1x2x500x64xbf16>, %o: memref<1x4x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only on sm_90 (sm_80 has no tensor-memory accelerator)}}
  softmax.attention ins(%q, %k, %k : memref<1x4x1x64xbf16>, memref<1x2x500x64xbf16>, memref<1x2x500x64xbf16>) outs(%o : memref<1x4x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}

// -----

// V with K is a schedule of TMA tiles; sm_80 refuses it too.
func.func @with_keys_on_sm80(%q: memref<1x4x64x64xbf16>, %k: memref<1x2x500x64xbf16>, %o: memref<1x4x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op asks for skip_values = with_keys, which the GPU attention mapping runs on TMA tiles only on sm_90 (sm_80 has no tensor-memory accelerator)}}
  softmax.attention ins(%q, %k, %k : memref<1x4x64x64xbf16>, memref<1x2x500x64xbf16>, memref<1x2x500x64xbf16>) outs(%o : memref<1x4x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [32, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = with_keys>}
  return
}

// -----

// Without a threshold there is no vote to order V after.
func.func @with_keys_dense(%q: memref<1x4x64x64xbf16>, %k: memref<1x2x500x64xbf16>, %o: memref<1x4x64x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op asks for skip_values = with_keys, which orders the V copies of a kernel with a skip threshold; this attention has none}}
  softmax.attention ins(%q, %k, %k : memref<1x4x64x64xbf16>, memref<1x2x500x64xbf16>, memref<1x2x500x64xbf16>) outs(%o : memref<1x4x64x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = with_keys>}
  return
}
