// RUN: softmax-opt %s --transform-interpreter -split-input-file -verify-diagnostics
// Tiling softmax.attention where it would change what the op computes, or
// decomposing what cannot be decomposed, fails with the reason. (The
// "faild to tile" and "failed to generate tiling loops" that follow are
// upstream's.)

func.func @tile_keys(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+3 {{'softmax.attention' op cannot tile the keys (Nk) through TilingInterface: each tile would normalize on its own; tileAttentionAlongKeys (softmax-decompose attention-key-tile-size=N) merges the tiles' states}}
  // expected-error @+2 {{faild to tile operation}}
  // expected-error @+1 {{failed to generate tiling loops}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %r : tensor<1x2x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %op tile_sizes [0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @tile_causal_rows(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+4 {{'softmax.attention' op cannot tile the query rows (Nq) of a causal or windowed attention: its diagonal i + Nk - Nq is aligned to the bottom right, so a tile of rows would see other keys}}
  // expected-error @+3 {{faild to tile operation}}
  // expected-error @+2 {{failed to generate tiling loops}}
  // expected-note @+1 {{when applied to this op}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero) window(3)
  return %r : tensor<1x2x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{transform.structured.tile_using_forall failed to apply}}
    %tiled, %forall = transform.structured.tile_using_forall %op tile_sizes [0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// 3 query heads per tile straddle the groups of 4 that share a key/value head.
func.func @tile_across_groups(%q: tensor<1x8x8x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %o: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  // expected-error @+3 {{'softmax.attention' op cannot tile the query heads by 3: a tile must hold a multiple or a divisor of the 4 query heads that share a key/value head}}
  // expected-error @+2 {{faild to tile operation}}
  // expected-error @+1 {{failed to generate tiling loops}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x8x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) outs(%o : tensor<1x8x8x16xf32>) masked(zero)
  return %r : tensor<1x8x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %op tile_sizes [0, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @tile_dynamic_group(%q: tensor<1x?x8x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %o: tensor<1x?x8x16xf32>) -> tensor<1x?x8x16xf32> {
  // expected-error @+3 {{'softmax.attention' op cannot tile the query heads when H / Hkv is not static (H and Hkv static, or Hkv = 1)}}
  // expected-error @+2 {{faild to tile operation}}
  // expected-error @+1 {{failed to generate tiling loops}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x?x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) outs(%o : tensor<1x?x8x16xf32>) masked(zero)
  return %r : tensor<1x?x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %op tile_sizes [0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @decompose_buffers(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+2 {{'softmax.attention' op decomposition expects tensors; run softmax-decompose before bufferization}}
  // expected-note @+1 {{when applied to this op}}
  softmax.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{transform.structured.decompose_interface failed to apply}}
    %parts = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// decompose_interface returns one handle per target, to the op defining the
// decomposition's result; with an lse the results come from two ops (the
// normalization and softmax.lse), which the upstream op refuses.
// softmax-decompose takes this case.
func.func @decompose_with_lse(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) {
  // expected-note @+1 {{when applied to this op}}
  %r:2 = softmax.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o, %l : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) masked(zero)
  return %r#0, %r#1 : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+2 {{application of transform.structured.decompose_interface expected to produce 1 results (actually produced 2).}}
    // expected-note @+1 {{if you need variadic results, consider a generic `apply` instead of the specialized `applyToOne`.}}
    %parts = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
