// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx90a -split-input-file -verify-diagnostics

// CDNA's MFMA end gives each wavefront 16 query rows, so a tile of 128 rows
// is a block of 8 wavefronts, which stage the K/V rows 32 pieces of 16
// bytes a wavefront at a time: head dimensions of 48 do not divide.
func.func @eight_wavefronts(%q: memref<1x2x128x48xbf16>, %k: memref<1x2x256x48xbf16>, %o: memref<1x2x128x48xbf16>, %t: memref<1xf32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping skips a tile [128, 64] with 8 warps of 16 rows, which needs head dimensions that are multiples of 32}}
  softmax.attention ins(%q, %k, %k : memref<1x2x128x48xbf16>, memref<1x2x256x48xbf16>, memref<1x2x256x48xbf16>) outs(%o : memref<1x2x128x48xbf16>) masked(zero) causal skip(lambda %t : memref<1xf32>, tile [128, 64])
  return
}
