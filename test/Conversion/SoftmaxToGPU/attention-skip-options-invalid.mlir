// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-rows-per-warp=16" -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-buffers=2" 2>&1 | FileCheck %s --check-prefix=BUFFERS

// The skip tile sets the rows per warp; a request for other rows conflicts.
func.func @rows(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping skips key tiles of 64 keys for one warp's query rows: it honours skip tiles of [16, 64] and [32, 64] (as many rows as attention-rows-per-warp), not [32, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [32, 64])
  return
}

// BUFFERS: error: 'softmax.attention' op GPU attention mapping with attention-buffers 2 requests each V tile before its skip decision; a thresholded attention takes 1
