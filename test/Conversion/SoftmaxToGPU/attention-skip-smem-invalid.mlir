// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_90 -verify-diagnostics

// A skip tile of 32 rows sets 32 query rows per warp, whose f32 queries at
// d 256 do not fit in shared memory; the diagnostic names the tile that
// halves them.
func.func @skip_rows_f32_d256(%q: memref<1x2x128x256xf32>, %k: memref<1x2x300x256xf32>, %o: memref<1x2x128x256xf32>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs 266240 bytes of shared memory per block for these head dimensions; sm_90 has 232448 (the skip tile [32, 64] sets 32 rows per warp; [16, 64] halves the queries' share)}}
  softmax.attention ins(%q, %k, %k : memref<1x2x128x256xf32>, memref<1x2x300x256xf32>, memref<1x2x300x256xf32>) outs(%o : memref<1x2x128x256xf32>) masked(zero) skip(lambda %t : f32, tile [32, 64])
  return
}
