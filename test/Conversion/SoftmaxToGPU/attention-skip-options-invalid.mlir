// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-rows-per-warp=16" -split-input-file -verify-diagnostics

// A skip tile of a warp's rows sets the rows per warp; a request for other
// rows conflicts (a tile of one row takes any: attention-skip-to-gpu.mlir).
func.func @rows(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping skips key tiles of 64 keys for one warp's query rows, or for each row: it honours skip tiles of [1, 64], [16, 64] and [32, 64] (as many rows as attention-rows-per-warp), not [32, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [32, 64])
  return
}

