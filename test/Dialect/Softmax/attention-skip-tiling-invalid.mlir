// RUN: softmax-opt %s --transform-interpreter -split-input-file -verify-diagnostics
// Tiling a thresholded attention where the tiles would decide on other
// query tiles, or would each count only their own pairs, fails with the
// reason. (The "faild to tile" and "failed to generate tiling loops" that
// follow are upstream's.)

func.func @split_query_tiles(%q: tensor<1x2x64x16xf32>, %k: tensor<1x2x100x16xf32>, %t: f32, %o: tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32> {
  // expected-error @+3 {{'softmax.attention' op cannot tile the query rows of a thresholded attention by 24: a tile must hold whole query tiles of its skip tile (a multiple of 16 rows)}}
  // expected-error @+2 {{faild to tile operation}}
  // expected-error @+1 {{failed to generate tiling loops}}
  %r = softmax.attention ins(%q, %k, %k : tensor<1x2x64x16xf32>, tensor<1x2x100x16xf32>, tensor<1x2x100x16xf32>) outs(%o : tensor<1x2x64x16xf32>) masked(zero) skip(lambda %t : f32, tile [16, 16])
  return %r : tensor<1x2x64x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0 = transform.structured.tile_using_for %op tile_sizes [0, 0, 24] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @counts(%q: tensor<1x2x64x16xf32>, %k: tensor<1x2x100x16xf32>, %t: f32, %o: tensor<1x2x64x16xf32>, %n: tensor<2xi64>) -> tensor<1x2x64x16xf32> {
  // expected-error @+3 {{'softmax.attention' op cannot tile a thresholded attention with skip_counts through TilingInterface: each tile would count only its own pairs; tile it without the counts, or tile its keys with softmax-decompose}}
  // expected-error @+2 {{faild to tile operation}}
  // expected-error @+1 {{failed to generate tiling loops}}
  %r, %c = softmax.attention ins(%q, %k, %k : tensor<1x2x64x16xf32>, tensor<1x2x100x16xf32>, tensor<1x2x100x16xf32>) outs(%o : tensor<1x2x64x16xf32>) masked(zero) skip(lambda %t : f32, tile [16, 16]) skip_counts(%n : tensor<2xi64>)
  return %r : tensor<1x2x64x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0 = transform.structured.tile_using_for %op tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
