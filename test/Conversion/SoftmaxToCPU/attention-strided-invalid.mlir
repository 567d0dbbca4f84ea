// RUN: softmax-opt %s --softmax-map-to-cpu=vector-width=4 -verify-diagnostics

// Its vector loads need each row's elements adjacent: a key buffer with
// a stride of 2 between the elements of a row is refused.
func.func @inner_stride(%q: memref<1x1x2x16xf32>, %k: memref<1x1x8x16xf32, strided<[512, 512, 32, 2]>>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x2x16xf32>) {
  // expected-error @+1 {{CPU mapping expects memrefs whose last dimension has unit stride}}
  softmax.attention ins(%q, %k, %v : memref<1x1x2x16xf32>, memref<1x1x8x16xf32, strided<[512, 512, 32, 2]>>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x2x16xf32>) masked(zero)
  return
}
