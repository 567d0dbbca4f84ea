// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_80 -split-input-file -verify-diagnostics

// sm_80 has no tensor-memory accelerator: a request for TMA tiles is
// refused, not dropped.
func.func @tma_on_sm80(%q: memref<1x4x1x64xbf16>, %k: memref<1x2x500x64xbf16>, %o: memref<1x4x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only on sm_90 (sm_80 has no tensor-memory accelerator)}}
  softmax.attention ins(%q, %k, %k : memref<1x4x1x64xbf16>, memref<1x2x500x64xbf16>, memref<1x2x500x64xbf16>) outs(%o : memref<1x4x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}

// -----

// Early V requests go to TMA tiles' mbarriers: refused on sm_80, not
// dropped.
func.func @early_values_on_sm80(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op asks for skip_values = early, which the GPU attention mapping runs on TMA tiles only on sm_90 (sm_80 has no tensor-memory accelerator)}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [64, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = early>}
  return
}
