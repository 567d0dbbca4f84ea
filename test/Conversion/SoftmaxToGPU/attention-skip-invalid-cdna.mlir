// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx90a -split-input-file -verify-diagnostics

// CDNA's MFMA end gives each wavefront 16 query rows: [32, 64] tiles would
// need a vote across two wavefronts, which its kernel does not take.
func.func @wide(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: memref<1xf32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping skips key tiles of 64 keys for one warp's query rows, or for each row: it honours skip tiles of [1, 64], [16, 64], not [32, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) causal skip(lambda %t : memref<1xf32>, tile [32, 64])
  return
}
