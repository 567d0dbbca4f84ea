// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-rows-per-warp=32" -split-input-file -verify-diagnostics

// A skip tile is the rows of one to eight warps; with 32 rows a warp asked
// for, a tile of 16 rows is less than a warp's (a tile of one row takes any
// rows: attention-skip-to-gpu.mlir).
func.func @rows(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping skips key tiles of 64 keys for the query rows of one to eight warps, or for each row: it honours skip tiles of [1, 64], [16, 64], [32, 64], [64, 64] and [128, 64] whose rows are 1 to 8 times attention-rows-per-warp, not [16, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [16, 64])
  return
}


// -----

// Three buffers keep two tiles in flight ahead of the one folded; a
// thresholded tile's V waits for its vote, so it takes one or two.
func.func @three_buffers(%q: memref<1x8x1x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x8x1x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op attention-buffers 3 does not combine with a skip threshold (1 or 2 do)}}
  softmax.attention ins(%q, %k, %k : memref<1x8x1x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x8x1x64xbf16>) masked(zero) skip(lambda %t : f32, tile [1, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<buffers = 3>}
  return
}
