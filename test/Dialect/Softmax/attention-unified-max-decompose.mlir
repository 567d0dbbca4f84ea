// RUN: softmax-opt %s --softmax-decompose --canonicalize | FileCheck %s
// RUN: softmax-opt %s --softmax-decompose="attention-key-tile-size=16" --canonicalize | FileCheck %s --check-prefix=TILED

// The reference of a unified max: terms exp(s - phi) summed and weighted
// without a max, the and over every row of 2^-64 <= l <= 2^64, and an
// scf.if whose else region is the online decomposition, over the same
// scores. The lse of the kept state is phi + log l.
// CHECK-LABEL: func.func @decode
// CHECK-DAG:   %[[HI:.*]] = arith.constant 1.84467441E+19 : f32
// CHECK-DAG:   %[[LO:.*]] = arith.constant 5.42101086E-20 : f32
// CHECK-DAG:   %[[PHI:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:       %[[PHIS:.*]] = linalg.fill ins(%[[PHI]] : f32)
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[S:.*]] : tensor<1x4x1x37xf32>)
// CHECK:         arith.subf %{{.*}}, %[[PHI]]
// CHECK:         math.exp
// CHECK-NOT:     arith.maximumf
// CHECK:       %[[ACC:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<1x4x1x37xf32>, tensor<1x2x37x16xf32>)
// CHECK:       %[[ALL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction"]} ins(%[[SUM]] : tensor<1x4x1xf32>) outs(%{{.*}} : tensor<i1>)
// CHECK:         arith.cmpf oge, %{{.*}}, %[[LO]]
// CHECK:         arith.cmpf ole, %{{.*}}, %[[HI]]
// CHECK:       %[[KEEP:.*]] = tensor.extract %[[ALL]][]
// CHECK:       %[[ST:.*]]:3 = scf.if %[[KEEP]] -> (tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1x16xf32>) {
// CHECK:         scf.yield %[[PHIS]], %[[SUM]], %[[ACC]]
// CHECK:       } else {
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<1x4x1x37xf32>)
// CHECK:           arith.maximumf
// CHECK:         scf.yield
// CHECK:       }
// CHECK:       linalg.generic {{.*}} ins(%[[ST]]#2, %[[ST]]#1 :
// CHECK:       linalg.generic {{.*}} ins(%[[ST]]#0, %[[ST]]#1 :

// Tiled along the keys: the loop adds each tile's sum and weighted values
// to the carried ones (linalg.add, no merge, no rescale); phi, carried as
// it is, leaves the loop under the canonicalizer. The fallback is the
// online key loop with its merges.
// TILED-LABEL: func.func @decode
// TILED:       %[[PHI:.*]] = arith.constant 2.000000e+00 : f32
// TILED:       %[[PHIS:.*]] = linalg.fill ins(%[[PHI]] : f32) outs(%{{.*}} : tensor<1x4x1xf32>)
// TILED:       %[[R:.*]]:2 = scf.for %{{.*}} = %c0 to %c37 step %c16 iter_args(%[[L:.*]] = %{{.*}}, %[[O:.*]] = %{{.*}})
// TILED-NOT:     arith.maximumf
// TILED:         %[[L2:.*]] = linalg.add ins(%[[L]], %{{.*}} : tensor<1x4x1xf32>, tensor<1x4x1xf32>)
// TILED:         %[[O2:.*]] = linalg.add ins(%[[O]], %{{.*}} : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>)
// TILED:         scf.yield %[[L2]], %[[O2]]
// TILED:       scf.if %{{.*}} -> (tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1x16xf32>) {
// TILED:         scf.yield %[[PHIS]], %[[R]]#0, %[[R]]#1
// TILED:       } else {
// TILED:         scf.for
// TILED:           arith.maximumf
func.func @decode(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x37x16xf32>,
                  %o: tensor<1x4x1x16xf32>, %l: tensor<1x4x1xf32>)
    -> (tensor<1x4x1x16xf32>, tensor<1x4x1xf32>) {
  %r:2 = softmax.attention ins(%q, %k, %k : tensor<1x4x1x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x16xf32>)
      outs(%o, %l : tensor<1x4x1x16xf32>, tensor<1x4x1xf32>) masked(zero)
      algorithm(unified_max, phi = 2.0)
  return %r#0, %r#1 : tensor<1x4x1x16xf32>, tensor<1x4x1xf32>
}
