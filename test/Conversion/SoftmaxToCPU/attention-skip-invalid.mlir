// RUN: softmax-opt %s --softmax-map-to-cpu -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-to-cpu -split-input-file -verify-diagnostics

// The vector path has no key-tile skip yet: it refuses the op rather than
// computing the dense attention. softmax-to-cpu vector-width=0 (the
// decomposition) honours the threshold.
func.func @skip_on_vector_path(%q: memref<1x1x8x16xf32>, %k: memref<1x1x64x16xf32>, %o: memref<1x1x8x16xf32>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op CPU attention mapping does not skip key tiles yet: a thresholded attention (skip) is computed by the decomposition (softmax-to-cpu vector-width=0)}}
  softmax.attention ins(%q, %k, %k : memref<1x1x8x16xf32>, memref<1x1x64x16xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 16])
  return
}
