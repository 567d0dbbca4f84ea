// RUN: softmax-opt %s --transform-interpreter --canonicalize -split-input-file | FileCheck %s
// softmax.attention through upstream transform ops: decompose_interface
// reaches its AggregatedOpInterface, tile_using_for and tile_using_forall
// its TilingInterface over (B, H, Nq).

// CHECK-LABEL: func @decompose
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x8x16xf32>, tensor<1x2x12x16xf32>) outs(%{{.*}} : tensor<1x2x8x12xf32>)
// CHECK: linalg.index
// CHECK: softmax.partial {{.*}} dimension(3) algorithm(online)
// CHECK: math.exp
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>)
// CHECK-NOT: softmax.attention
// CHECK: return %[[R]]
func.func @decompose(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x12x16xf32>, %v: tensor<1x2x12x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero) causal
  return %r : tensor<1x2x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %parts = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Grouped-query, 4 query heads per key/value head: a tile of 2 query heads
// reads the one key/value head h0 floordiv 4; Nq = 16 in tiles of 5 (the
// last is 1 row). The mask broadcasts over the batch, so its batch slice is
// always [0, 1); its rows follow the query tile. Keys are never sliced.
// CHECK-DAG: #[[MIN:.*]] = affine_map<(d0) -> (-d0 + 16, 5)>
// CHECK-DAG: #[[KV:.*]] = affine_map<(d0) -> (d0 floordiv 4)>
// CHECK-LABEL: func @tile_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x8x16x16xf32>, %[[K:[^:]*]]: tensor<2x2x40x16xf32>, %[[V:[^:]*]]: tensor<2x2x40x8xf32>, %[[MASK:[^:]*]]: tensor<1x8x16x40xf32>, %[[O:[^:]*]]: tensor<2x8x16x8xf32>, %[[LSE:[^:]*]]: tensor<2x8x16xf32>)
// CHECK: scf.for %[[B:[^ ]*]] = {{.*}} iter_args(%[[OB:[^ ]*]] = %[[O]], %[[LB:[^ ]*]] = %[[LSE]])
// CHECK: scf.for %[[H:[^ ]*]] = {{.*}} iter_args(%[[OH:[^ ]*]] = %[[OB]], %[[LH:[^ ]*]] = %[[LB]])
// CHECK: scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[OI:[^ ]*]] = %[[OH]], %[[LI:[^ ]*]] = %[[LH]])
// CHECK:   %[[NI:.*]] = affine.min #[[MIN]](%[[I]])
// CHECK:   %[[G:.*]] = affine.apply #[[KV]](%[[H]])
// CHECK:   %[[QT:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[I]], 0] [1, 2, %[[NI]], 16] [1, 1, 1, 1] : tensor<2x8x16x16xf32> to tensor<1x2x?x16xf32>
// CHECK:   %[[KT:.*]] = tensor.extract_slice %[[K]][%[[B]], %[[G]], 0, 0] [1, 1, 40, 16] [1, 1, 1, 1] : tensor<2x2x40x16xf32> to tensor<1x1x40x16xf32>
// CHECK:   %[[VT:.*]] = tensor.extract_slice %[[V]][%[[B]], %[[G]], 0, 0] [1, 1, 40, 8] [1, 1, 1, 1] : tensor<2x2x40x8xf32> to tensor<1x1x40x8xf32>
// CHECK:   %[[MT:.*]] = tensor.extract_slice %[[MASK]][0, %[[H]], %[[I]], 0] [1, 2, %[[NI]], 40] [1, 1, 1, 1] : tensor<1x8x16x40xf32> to tensor<1x2x?x40xf32>
// CHECK:   %[[OT:.*]] = tensor.extract_slice %[[OI]][%[[B]], %[[H]], %[[I]], 0] [1, 2, %[[NI]], 8] [1, 1, 1, 1]
// CHECK:   %[[LT:.*]] = tensor.extract_slice %[[LI]][%[[B]], %[[H]], %[[I]]] [1, 2, %[[NI]]] [1, 1, 1]
// CHECK:   %[[R:.*]]:2 = softmax.attention ins(%[[QT]], %[[KT]], %[[VT]], %[[MT]] : tensor<1x2x?x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>, tensor<1x2x?x40xf32>) outs(%[[OT]], %[[LT]] : tensor<1x2x?x8xf32>, tensor<1x2x?xf32>) masked(nan) scale(5.000000e-01)
// CHECK:   tensor.insert_slice %[[R]]#0 into %[[OI]][%[[B]], %[[H]], %[[I]], 0] [1, 2, %[[NI]], 8] [1, 1, 1, 1]
// CHECK:   tensor.insert_slice %[[R]]#1 into %[[LI]][%[[B]], %[[H]], %[[I]]] [1, 2, %[[NI]]] [1, 1, 1]
func.func @tile_gqa(%q: tensor<2x8x16x16xf32>, %k: tensor<2x2x40x16xf32>, %v: tensor<2x2x40x8xf32>, %m: tensor<1x8x16x40xf32>, %o: tensor<2x8x16x8xf32>, %l: tensor<2x8x16xf32>) -> (tensor<2x8x16x8xf32>, tensor<2x8x16xf32>) {
  %r:2 = softmax.attention ins(%q, %k, %v, %m : tensor<2x8x16x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x8xf32>, tensor<1x8x16x40xf32>) outs(%o, %l : tensor<2x8x16x8xf32>, tensor<2x8x16xf32>) masked(nan) scale(0.5)
  return %r#0, %r#1 : tensor<2x8x16x8xf32>, tensor<2x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0, %l1, %l2 = transform.structured.tile_using_for %op tile_sizes [1, 2, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A tile of 8 query heads (two groups of 4) reads 2 key/value heads.
// CHECK-DAG: #[[KV2:.*]] = affine_map<(d0) -> (d0 floordiv 4)>
// CHECK-LABEL: func @tile_two_groups
// CHECK: scf.for %[[H:[^ ]*]] =
// CHECK:   %[[G:.*]] = affine.apply #[[KV2]](%[[H]])
// CHECK:   tensor.extract_slice %{{.*}}[0, %[[G]], 0, 0] [1, 2, 40, 16] [1, 1, 1, 1] : tensor<1x4x40x16xf32> to tensor<1x2x40x16xf32>
// CHECK:   softmax.attention ins({{.*}} : tensor<1x8x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
func.func @tile_two_groups(%q: tensor<1x16x8x16xf32>, %k: tensor<1x4x40x16xf32>, %v: tensor<1x4x40x16xf32>, %o: tensor<1x16x8x16xf32>) -> tensor<1x16x8x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x16x8x16xf32>, tensor<1x4x40x16xf32>, tensor<1x4x40x16xf32>) outs(%o : tensor<1x16x8x16xf32>) masked(zero)
  return %r : tensor<1x16x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0 = transform.structured.tile_using_for %op tile_sizes [0, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A causal attention tiles over batch and heads (scf.forall); its query
// rows stay whole, and so does the diagonal.
// CHECK-LABEL: func @forall_causal
// CHECK: scf.forall (%[[B:[^,]*]], %[[H:[^)]*]]) in (2, 4) shared_outs(%[[OS:[^ ]*]] = %{{.*}})
// CHECK:   %[[R:.*]] = softmax.attention ins({{.*}} : tensor<1x1x16x16xbf16>, tensor<1x1x24x16xbf16>, tensor<1x1x24x16xbf16>) outs(%{{.*}} : tensor<1x1x16x16xbf16>) masked(zero) causal window(6)
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[R]] into %[[OS]][%[[B]], %[[H]], 0, 0] [1, 1, 16, 16] [1, 1, 1, 1]
func.func @forall_causal(%q: tensor<2x4x16x16xbf16>, %k: tensor<2x4x24x16xbf16>, %v: tensor<2x4x24x16xbf16>, %o: tensor<2x4x16x16xbf16>) -> tensor<2x4x16x16xbf16> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x16x16xbf16>, tensor<2x4x24x16xbf16>, tensor<2x4x24x16xbf16>) outs(%o : tensor<2x4x16x16xbf16>) masked(zero) causal window(6)
  return %r : tensor<2x4x16x16xbf16>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %op tile_sizes [1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// No keys (Nk = 0): the key and value tiles are empty tensors, not
// extract_slices at offset 0 of a size-0 dimension, which upstream's
// verifier rejects.
// CHECK-LABEL: func @tile_no_keys
// CHECK: scf.for
// CHECK:   %[[K:.*]] = tensor.empty() : tensor<1x1x0x16xf32>
// CHECK:   %[[V:.*]] = tensor.empty() : tensor<1x1x0x16xf32>
// CHECK:   softmax.attention ins(%{{.*}}, %[[K]], %[[V]] : tensor<1x1x4x16xf32>, tensor<1x1x0x16xf32>, tensor<1x1x0x16xf32>)
func.func @tile_no_keys(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x0x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %r = softmax.attention ins(%q, %k, %k : tensor<1x2x8x16xf32>, tensor<1x2x0x16xf32>, tensor<1x2x0x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %r : tensor<1x2x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0, %l1 = transform.structured.tile_using_for %op tile_sizes [0, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
