// RUN: softmax-opt %s --transform-interpreter --canonicalize -split-input-file | FileCheck %s
// A thresholded attention tiles over (B, H, Nq) into thresholded attentions
// that decide on the same tiles: one lambda per batch entry follows the
// batch tile, a tile of rows holds whole query tiles (here 2 of [16, 16]),
// the keys are never sliced. The refusals are in
// attention-skip-tiling-invalid.mlir.

// CHECK-LABEL: func @per_request
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x64x16xf32>, %{{[^:]*}}: tensor<2x4x100x16xf32>, %{{[^:]*}}: tensor<2x4x100x16xf32>, %[[T:[^:]*]]: tensor<2xf32>,
// CHECK: scf.for %[[B:[^ ]*]] =
// CHECK: scf.for %[[H:[^ ]*]] =
// CHECK: scf.for %[[I:[^ ]*]] = %c0 to %c64 step %c32
// CHECK:   %[[QT:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[I]], 0] [1, 1, 32, 16] [1, 1, 1, 1]
// CHECK:   %[[TT:.*]] = tensor.extract_slice %[[T]][%[[B]]] [1] [1] : tensor<2xf32> to tensor<1xf32>
// CHECK:   softmax.attention ins(%[[QT]], %{{.*}}, %{{.*}} : tensor<1x1x32x16xf32>, tensor<1x1x100x16xf32>, tensor<1x1x100x16xf32>) outs(%{{.*}} : tensor<1x1x32x16xf32>) masked(zero) skip(lambda %[[TT]] : tensor<1xf32>, tile [16, 16])
func.func @per_request(%q: tensor<2x4x64x16xf32>, %k: tensor<2x4x100x16xf32>, %v: tensor<2x4x100x16xf32>, %t: tensor<2xf32>, %o: tensor<2x4x64x16xf32>) -> tensor<2x4x64x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x64x16xf32>, tensor<2x4x100x16xf32>, tensor<2x4x100x16xf32>) outs(%o : tensor<2x4x64x16xf32>) masked(zero) skip(lambda %t : tensor<2xf32>, tile [16, 16])
  return %r : tensor<2x4x64x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0, %l1, %l2 = transform.structured.tile_using_for %op tile_sizes [1, 1, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A scalar scale factor serves every tile; lambda = a / Nk is unchanged, as
// Nk is. Rows of one-row query tiles tile by any size (7: the last tile is
// ragged).
// CHECK-LABEL: func @scalar_rows
// CHECK-SAME: %[[A:[^:]*]]: f32
// CHECK: scf.for
// CHECK:   softmax.attention {{.*}} skip(scale_factor %[[A]] : f32, tile [1, 64])
func.func @scalar_rows(%q: tensor<1x2x20x16xf32>, %k: tensor<1x2x100x16xf32>, %a: f32, %o: tensor<1x2x20x16xf32>) -> tensor<1x2x20x16xf32> {
  %r = softmax.attention ins(%q, %k, %k : tensor<1x2x20x16xf32>, tensor<1x2x100x16xf32>, tensor<1x2x100x16xf32>) outs(%o : tensor<1x2x20x16xf32>) masked(zero) skip(scale_factor %a : f32, tile [1, 64])
  return %r : tensor<1x2x20x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0 = transform.structured.tile_using_for %op tile_sizes [0, 0, 7] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
