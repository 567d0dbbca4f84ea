// RUN: softmax-opt %s --softmax-decompose="to-state=true attention-key-tile-size=16" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-decompose="attention-key-tile-size=16" -split-input-file | FileCheck %s --check-prefix=LINALG
// softmax.attention tiled along its keys: a loop carries (m, l, O) from the
// identity state and merges every tile's state and weighted values.

// Nk = 40 = 2 * 16 + 8: the last tile is 8 keys (affine.min), and the
// causal and window tests add the tile's offset to the column index. The
// boolean mask is sliced along its key columns only.
// CHECK-DAG: #[[MIN:.*]] = affine_map<(d0) -> (16, -d0 + 40)>
// CHECK-LABEL: func @ragged
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xbf16>, %[[K:.*]]: tensor<2x2x40x16xbf16>, %[[V:.*]]: tensor<2x2x40x8xbf16>, %[[MASK:.*]]: tensor<1x4x8x40xi1>, %[[O:.*]]: tensor<2x4x8x8xbf16>, %[[LSEI:.*]]: tensor<2x4x8xf32>)
// CHECK-DAG: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C40:.*]] = arith.constant 40 : index
// The identity state and a zero accumulator.
// CHECK: %[[M0:.*]] = linalg.fill ins(%[[LOWEST]] : f32) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: %[[L0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: %[[A0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[K0:.*]] = %[[C0]] to %[[C40]] step %[[C16]] iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[A:.*]] = %[[A0]]) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8x8xf32>)
// CHECK:   %[[T:.*]] = affine.min #[[MIN]](%[[K0]])
// CHECK:   %[[KT:.*]] = tensor.extract_slice %[[K]][0, 0, %[[K0]], 0] [2, 2, %[[T]], 16] [1, 1, 1, 1] : tensor<2x2x40x16xbf16> to tensor<2x2x?x16xbf16>
// CHECK:   %[[VT:.*]] = tensor.extract_slice %[[V]][0, 0, %[[K0]], 0] [2, 2, %[[T]], 8] [1, 1, 1, 1] : tensor<2x2x40x8xbf16> to tensor<2x2x?x8xbf16>
// CHECK:   %[[MT:.*]] = tensor.extract_slice %[[MASK]][0, 0, 0, %[[K0]]] [1, 4, 8, %[[T]]] [1, 1, 1, 1] : tensor<1x4x8x40xi1> to tensor<1x4x8x?xi1>
// S_t = scale * Q K_t^T, masked with the global key index j + k0.
// CHECK:   %[[DOT:.*]] = linalg.generic {{.*}} ins(%[[Q]], %[[KT]] : tensor<2x4x8x16xbf16>, tensor<2x2x?x16xbf16>) outs(%{{.*}} : tensor<2x4x8x?xf32>)
// CHECK:   %[[S:.*]] = linalg.generic {{.*}} ins(%[[MT]] : tensor<1x4x8x?xi1>) outs(%[[DOT]] : tensor<2x4x8x?xf32>)
// CHECK:     %[[J:.*]] = linalg.index 3 : index
// CHECK:     %[[JG:.*]] = arith.addi %[[J]], %[[K0]] : index
// CHECK:     arith.subi %{{.*}}, %[[JG]] : index
// (m_t, l_t) from the identity.
// CHECK:   %[[MI:.*]] = linalg.fill ins(%[[LOWEST]] : f32) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK:   %[[MTILE:.*]], %[[LTILE:.*]], %{{.*}} = softmax.partial ins(%[[S]] : tensor<2x4x8x?xf32>) outs(%[[MI]], %{{.*}}, %{{.*}} : tensor<2x4x8xf32>) dimension(3) algorithm(online)
// P_t = exp(S_t - m_t); O_t = P_t V_t
// CHECK:   %[[P:.*]] = linalg.generic {{.*}} ins(%[[MTILE]] : tensor<2x4x8xf32>) outs(%[[S]] : tensor<2x4x8x?xf32>)
// CHECK:     math.exp
// CHECK:   %[[OT:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[VT]] : tensor<2x4x8x?xf32>, tensor<2x2x?x8xbf16>) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// (m, l, O) merged with (m_t, l_t, O_t).
// CHECK:   %[[MN:.*]], %[[LN:.*]], %[[AN:.*]] = softmax.merge(%[[M]], %[[L]]), (%[[MTILE]], %[[LTILE]]) acc(%[[A]], %[[OT]] : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>) state(max) : tensor<2x4x8xf32>
// CHECK:   scf.yield %[[MN]], %[[LN]], %[[AN]]
// After the loop: O / l rounded to bf16 (NaN where l = 0), and the lse.
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[LOOP]]#2, %[[LOOP]]#1 : tensor<2x4x8x8xf32>, tensor<2x4x8xf32>) outs(%[[O]] : tensor<2x4x8x8xbf16>)
// CHECK:   arith.truncf
// CHECK: %[[LSE:.*]] = softmax.lse ins(%[[LOOP]]#0, %[[LOOP]]#1 : tensor<2x4x8xf32>) outs(%[[LSEI]] : tensor<2x4x8xf32>) state(max) masked(nan)
// CHECK: return %[[R]], %[[LSE]]
// The merge lowers to linalg like the other state ops.
// LINALG-LABEL: func @ragged
// LINALG: scf.for
// LINALG-NOT: softmax.
// LINALG: scf.yield
// LINALG-NOT: softmax.
// LINALG: return
func.func @ragged(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x2x40x16xbf16>, %v: tensor<2x2x40x8xbf16>, %m: tensor<1x4x8x40xi1>, %o: tensor<2x4x8x8xbf16>, %l: tensor<2x4x8xf32>) -> (tensor<2x4x8x8xbf16>, tensor<2x4x8xf32>) {
  %r:2 = softmax.attention ins(%q, %k, %v, %m : tensor<2x4x8x16xbf16>, tensor<2x2x40x16xbf16>, tensor<2x2x40x8xbf16>, tensor<1x4x8x40xi1>) outs(%o, %l : tensor<2x4x8x8xbf16>, tensor<2x4x8xf32>) masked(nan) causal window(20)
  return %r#0, %r#1 : tensor<2x4x8x8xbf16>, tensor<2x4x8xf32>
}

// -----

// A tile size that divides Nk gives static tiles (no affine.min).
// CHECK-LABEL: func @divides
// CHECK: scf.for
// CHECK-NOT: affine.min
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, 0] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x64x16xf32> to tensor<1x2x16x16xf32>
// CHECK: softmax.partial ins(%{{.*}} : tensor<1x2x8x16xf32>)
func.func @divides(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x64x16xf32>, %v: tensor<1x2x64x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %r : tensor<1x2x8x16xf32>
}

// -----

// Dynamic Nk: the loop runs to tensor.dim of the key, the last tile is
// min(16, Nk - k0).
// CHECK-DAG: #[[DMIN:.*]] = affine_map<(d0)[s0] -> (16, -d0 + s0)>
// CHECK-LABEL: func @dynamic_keys
// CHECK-SAME: (%{{[^:]*}}: tensor<1x2x?x16xf32>, %[[K:[^:]*]]: tensor<1x2x?x16xf32>
// CHECK: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<1x2x?x16xf32>
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %[[NK]] step %{{.*}}
// CHECK:   affine.min #[[DMIN]](%[[K0]])[%[[NK]]]
func.func @dynamic_keys(%q: tensor<1x2x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>, %o: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>) outs(%o : tensor<1x2x?x16xf32>) masked(zero) causal
  return %r : tensor<1x2x?x16xf32>
}
