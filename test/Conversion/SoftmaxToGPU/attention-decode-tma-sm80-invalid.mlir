// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_80 -verify-diagnostics

// sm_80 has no tensor-memory accelerator: a request for TMA tiles is
// refused, not dropped.
func.func @tma_on_sm80(%q: memref<1x4x1x64xbf16>, %k: memref<1x2x500x64xbf16>, %o: memref<1x4x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only on sm_90 (sm_80 has no tensor-memory accelerator)}}
  softmax.attention ins(%q, %k, %k : memref<1x4x1x64xbf16>, memref<1x2x500x64xbf16>, memref<1x2x500x64xbf16>) outs(%o : memref<1x4x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}
