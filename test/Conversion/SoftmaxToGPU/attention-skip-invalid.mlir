// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_90 -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file -verify-diagnostics

// Neither GPU end has a skipping kernel yet: the threshold is refused, never
// dropped (the fallback that silently computes dense attention is the bug
// users of other stacks keep hitting).
func.func @skip(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: memref<1xf32>, %n: memref<2xi64>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping does not skip key tiles yet: a thresholded attention (skip) has no GPU kernel}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) causal skip(lambda %t : memref<1xf32>, tile [64, 64]) skip_counts(%n : memref<2xi64>)
  return
}
