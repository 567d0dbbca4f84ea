// RUN: softmax-opt %s --softmax-decompose -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-decompose=attention-key-tile-size=32 -split-input-file | FileCheck %s --check-prefix=TILED

// The scores read each entry's key count (map (b, h, i, j) -> (b)), clamp
// it to [0, Nk] and hide keys at or past it; causal measures the diagonal
// from it: j <= i + (L_b - Nq), with i = 0 and Nq = 1 here.
// CHECK-DAG: #[[LEN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func.func @ragged_decode_causal
// CHECK-SAME: %[[LENS:[a-z0-9]+]]: tensor<2xi32>
// CHECK: linalg.generic {indexing_maps = [#[[LEN]], #{{.*}}], {{.*}}} ins(%[[LENS]] : tensor<2xi32>) outs(%{{.*}} : tensor<2x4x1x100xf32>)
// CHECK: ^bb0(%[[L:.*]]: i32, %{{.*}}: f32):
// CHECK:   %[[J:.*]] = linalg.index 3 : index
// CHECK:   %[[N:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK:   %[[LO:.*]] = arith.minsi %[[N]], %c100 : index
// CHECK:   %[[LB:.*]] = arith.maxsi %[[LO]], %c0 : index
// CHECK:   %[[IN:.*]] = arith.cmpi slt, %[[J]], %[[LB]] : index
// CHECK:   %[[DIAG:.*]] = arith.subi %[[LB]], %c1 : index
// CHECK:   %[[DIST:.*]] = arith.subi %[[DIAG]], %[[J]] : index
// CHECK:   %[[CAUSAL:.*]] = arith.cmpi sge, %[[DIST]], %c0 : index
// CHECK:   %[[VIS:.*]] = arith.andi %[[IN]], %[[CAUSAL]] : i1
// CHECK:   arith.select %[[VIS]], %{{.*}}, %{{.*}} : f32
// Tiled along the keys, the tile's first key is added to the column.
// TILED-LABEL: func.func @ragged_decode_causal
// TILED: scf.for %[[K0:.*]] = %c0 to %c100 step %c32
// TILED:   linalg.generic {{.*}} ins(%{{.*}} : tensor<2xi32>)
// TILED:     %[[J:.*]] = linalg.index 3 : index
// TILED:     arith.addi %[[J]], %[[K0]] : index
// TILED:   scf.yield
func.func @ragged_decode_causal(%q: tensor<2x4x1x16xf32>, %k: tensor<2x2x100x16xf32>, %v: tensor<2x2x100x16xf32>, %len: tensor<2xi32>, %o: tensor<2x4x1x16xf32>) -> tensor<2x4x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x1x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>) outs(%o : tensor<2x4x1x16xf32>) masked(zero) causal key_lengths(%len : tensor<2xi32>)
  return %r : tensor<2x4x1x16xf32>
}

// -----

// With a mask the lengths come second (a thresholded op is always
// key-tiled); a skip threshold's scale_factor divides by each entry's
// clamped count: lambda = a / L_b.
// CHECK-LABEL: func.func @ragged_mask_scale_factor
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x1x3x?xi1>, tensor<2xi32>)
// CHECK: ^bb0(%{{.*}}: i1, %{{.*}}: i32, %{{.*}}: f32):
// TILED-LABEL: func.func @ragged_mask_scale_factor
// TILED: linalg.generic {{.*}} ins(%{{.*}} : tensor<2xi32>) outs(%{{.*}} : tensor<2xf32>)
// TILED: ^bb0(%[[L:.*]]: i32, %{{.*}}: f32):
// TILED:   %[[N:.*]] = arith.index_cast %[[L]] : i32 to index
// TILED:   arith.minsi %[[N]], %c50 : index
// TILED:   arith.sitofp %{{.*}} : i64 to f32
// TILED:   arith.divf %{{.*}}, %{{.*}} : f32
func.func @ragged_mask_scale_factor(%q: tensor<2x1x3x16xf32>, %k: tensor<2x1x50x16xf32>, %v: tensor<2x1x50x16xf32>, %m: tensor<2x1x3x50xi1>, %len: tensor<2xi32>, %a: f32, %o: tensor<2x1x3x16xf32>) -> tensor<2x1x3x16xf32> {
  %r = softmax.attention ins(%q, %k, %v, %m : tensor<2x1x3x16xf32>, tensor<2x1x50x16xf32>, tensor<2x1x50x16xf32>, tensor<2x1x3x50xi1>) outs(%o : tensor<2x1x3x16xf32>) masked(zero) key_lengths(%len : tensor<2xi32>) skip(scale_factor %a : f32, tile [1, 32])
  return %r : tensor<2x1x3x16xf32>
}

// -----

// Paged: the reference gathers each sequence's pages into dense
// [B, Hkv, Nk, D] keys and values first: key j of entry b is row j mod 16
// of page table[b, j / 16], clamped to [0, 99].
// CHECK-LABEL: func.func @paged
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<100x16x2x16xf32>
// CHECK-SAME: %[[PT:[a-z0-9]+]]: tensor<2x8xi32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x128x16xf32>)
// CHECK:   %[[B:.*]] = linalg.index 0 : index
// CHECK:   %[[G:.*]] = linalg.index 1 : index
// CHECK:   %[[J:.*]] = linalg.index 2 : index
// CHECK:   %[[SLOT:.*]] = arith.divui %[[J]], %c16 : index
// CHECK:   %[[ROW:.*]] = arith.remui %[[J]], %c16 : index
// CHECK:   %[[E:.*]] = tensor.extract %[[PT]][%[[B]], %[[SLOT]]] : tensor<2x8xi32>
// CHECK:   %[[P:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK:   %[[P1:.*]] = arith.minsi %[[P]], %c99 : index
// CHECK:   %[[P2:.*]] = arith.maxsi %[[P1]], %c0 : index
// CHECK:   %[[D:.*]] = linalg.index 3 : index
// CHECK:   tensor.extract %[[K]][%[[P2]], %[[ROW]], %[[G]], %[[D]]] : tensor<100x16x2x16xf32>
// TILED-LABEL: func.func @paged
// TILED: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x128x16xf32>)
// TILED:   tensor.extract
// TILED: scf.for
func.func @paged(%q: tensor<2x4x1x16xf32>, %k: tensor<100x16x2x16xf32>, %v: tensor<100x16x2x16xf32>, %pt: tensor<2x8xi32>, %o: tensor<2x4x1x16xf32>) -> tensor<2x4x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x1x16xf32>, tensor<100x16x2x16xf32>, tensor<100x16x2x16xf32>) outs(%o : tensor<2x4x1x16xf32>) masked(zero) page_table(%pt : tensor<2x8xi32>)
  return %r : tensor<2x4x1x16xf32>
}
