// RUN: softmax-opt %s --softmax-map-to-cpu=vector-width=16 -split-input-file -verify-diagnostics

// The vector path folds one query row by one block of keys: it honours the
// skip tile [1, vector width] and refuses any other rather than computing
// another rule. softmax-to-cpu vector-width=0 (the decomposition) honours
// any tile.
func.func @query_tile(%q: memref<1x1x8x16xf32>, %k: memref<1x1x64x16xf32>, %o: memref<1x1x8x16xf32>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op CPU attention mapping skips key tiles of one query row (skip tile [1, vector width]), not 16 rows; the decomposition (softmax-to-cpu vector-width=0) honours any tile}}
  softmax.attention ins(%q, %k, %k : memref<1x1x8x16xf32>, memref<1x1x64x16xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [16, 64])
  return
}

// -----

func.func @key_tile(%q: memref<1x1x8x16xf32>, %k: memref<1x1x64x16xf32>, %o: memref<1x1x8x16xf32>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op CPU attention mapping folds one block of 16 keys (its vector width) at a time: it honours skip tiles of [1, 16], not [1, 32] (ask for vector_width 32, or decompose: softmax-to-cpu vector-width=0)}}
  softmax.attention ins(%q, %k, %k : memref<1x1x8x16xf32>, memref<1x1x64x16xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 32])
  return
}
