// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_90 -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file -verify-diagnostics

// The tensor-core kernel decides per staged tile of 64 keys for the rows of
// one to eight warps (or per row): a threshold over other tiles is refused,
// never computed on other tiles and never dropped (the fallback that silently computes dense attention
// is the bug users of other stacks keep hitting). The CDNA-only refusals
// are in attention-skip-invalid-cdna.mlir, the options' in
// attention-skip-options-invalid.mlir.
func.func @query_tile(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: memref<1xf32>, %n: memref<2xi64>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping skips key tiles of 64 keys for the query rows of one to eight warps, or for each row: it honours skip tiles of [1, 64], [16, 64], [32, 64], [64, 64] and [128, 64], not [256, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) causal skip(lambda %t : memref<1xf32>, tile [256, 64]) skip_counts(%n : memref<2xi64>)
  return
}

// -----

func.func @key_tile(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{not [16, 16]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [16, 16])
  return
}

// -----

func.func @two_rows(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{not [2, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(scale_factor %t : f32, tile [2, 64])
  return
}

// -----

// 48 rows are neither one warp's nor a power of two of them.
func.func @three_warps(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x256x64xbf16>, %o: memref<1x2x64x64xbf16>, %t: f32) {
  // expected-error @+1 {{not [48, 64]}}
  softmax.attention ins(%q, %k, %k : memref<1x2x64x64xbf16>, memref<1x2x256x64xbf16>, memref<1x2x256x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) skip(lambda %t : f32, tile [48, 64])
  return
}
