// RUN: softmax-opt %s --softmax-split-attention-keys=splits=2 -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-split-attention-keys=splits=-1 -split-input-file 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not softmax-opt %s --softmax-split-attention-keys=parallel-units=0 -split-input-file 2>&1 | FileCheck %s --check-prefix=UNITS

// OPT: softmax-split-attention-keys: splits must be 0 (the cost model's) or from 1 to 1024, not -1
// UNITS: softmax-split-attention-keys: parallel-units must be from 1 to 65536, not 0

func.func @window(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x64x16xf32>, %v: tensor<1x1x64x16xf32>, %o: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op split along the keys of a windowed attention is not supported: a split's window would depend on its keys' global positions}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x1x4x16xf32>) masked(zero) window(8)
  return %r : tensor<1x1x4x16xf32>
}

// -----

func.func @buffers(%q: memref<1x1x4x16xf32>, %k: memref<1x1x64x16xf32>, %v: memref<1x1x64x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op split along the keys needs tensors (run it before bufferization)}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xf32>, memref<1x1x64x16xf32>, memref<1x1x64x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero)
  return
}

// -----

func.func @ragged_causal_rows(%q: tensor<2x1x2x16xf32>, %k: tensor<2x1x64x16xf32>, %v: tensor<2x1x64x16xf32>, %len: tensor<2xi32>, %o: tensor<2x1x2x16xf32>) -> tensor<2x1x2x16xf32> {
  // expected-error @+1 {{'softmax.attention' op split along the keys of a causal attention with key_lengths needs one query row (got 2): each sequence's diagonal falls in a different split}}
  %r = softmax.attention ins(%q, %k, %v : tensor<2x1x2x16xf32>, tensor<2x1x64x16xf32>, tensor<2x1x64x16xf32>) outs(%o : tensor<2x1x2x16xf32>) masked(zero) causal key_lengths(%len : tensor<2xi32>)
  return %r : tensor<2x1x2x16xf32>
}

// -----

func.func @paged_dynamic_page(%q: tensor<2x1x1x16xf32>, %k: tensor<9x?x1x16xf32>, %pt: tensor<2x4xi32>, %o: tensor<2x1x1x16xf32>) -> tensor<2x1x1x16xf32> {
  // expected-error @+1 {{'softmax.attention' op split along the keys of a paged attention needs a static page size (each split takes whole pages: columns of the page table)}}
  %r = softmax.attention ins(%q, %k, %k : tensor<2x1x1x16xf32>, tensor<9x?x1x16xf32>, tensor<9x?x1x16xf32>) outs(%o : tensor<2x1x1x16xf32>) masked(zero) page_table(%pt : tensor<2x4xi32>)
  return %r : tensor<2x1x1x16xf32>
}
