// RUN: softmax-opt %s --softmax-decompose="to-state=true" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-decompose -split-input-file | FileCheck %s --check-prefix=LINALG
// softmax.attention's reference decomposition: contractions in linalg
// around the state ops, all in f32.

// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-DAG: #[[S5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-LABEL: func @mha
// CHECK-SAME: (%[[QA:.*]]: tensor<2x4x8x16xf32>, %[[KA:.*]]: tensor<2x4x10x16xf32>, %[[VA:.*]]: tensor<2x4x10x8xf32>, %[[OA:.*]]: tensor<2x4x8x8xf32>)
// CHECK-DAG: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// The default scale, 1/sqrt(16).
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// dot = Q K^T, a contraction over D into zeros.
// CHECK: %[[S0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4x8x10xf32>)
// CHECK: %[[DOT:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QA]], %[[KA]] : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>) outs(%[[S0]] : tensor<2x4x8x10xf32>)
// CHECK:   arith.mulf
// CHECK:   arith.addf
// S = scale * dot: nothing is hidden, no index test.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[DOT]] : tensor<2x4x8x10xf32>)
// CHECK:   arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NOT: linalg.index
// CHECK: linalg.yield
// (m, l) from the identity state (-FLT_MAX, 0), online, over the keys.
// CHECK: %[[M0:.*]] = linalg.fill ins(%[[LOWEST]] : f32) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: %[[M:.*]], %[[L:.*]], %{{.*}} = softmax.partial ins(%[[S]] : tensor<2x4x8x10xf32>) outs(%[[M0]], %{{.*}}, %{{.*}} : tensor<2x4x8xf32>) dimension(3) algorithm(online)
// P = exp(S - m)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]], {{.*}}} ins(%[[M]] : tensor<2x4x8xf32>) outs(%[[S]] : tensor<2x4x8x10xf32>)
// CHECK:   arith.subf
// CHECK:   math.exp
// O = P V, a contraction over the keys.
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[V]], #[[S5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %[[VA]] : tensor<2x4x8x10xf32>, tensor<2x4x10x8xf32>) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// output = O / l, 0 where l = 0 (masked(zero)).
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], {{.*}}} ins(%[[O]], %[[L]] : tensor<2x4x8x8xf32>, tensor<2x4x8xf32>) outs(%[[OA]] : tensor<2x4x8x8xf32>)
// CHECK:   %[[Y:.*]] = arith.divf
// CHECK:   %[[EMPTY_ROW:.*]] = arith.cmpf oeq, %{{.*}}, %[[ZERO]] : f32
// CHECK:   %[[SEL:.*]] = arith.select %[[EMPTY_ROW]], %[[ZERO]], %[[Y]] : f32
// CHECK:   linalg.yield %[[SEL]] : f32
// CHECK: return %[[R]]
// LINALG-LABEL: func @mha
// LINALG-NOT: softmax.
// LINALG: math.exp
// LINALG-NOT: softmax.
// LINALG: return
func.func @mha(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x8xf32>, %o: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x8xf32>) outs(%o : tensor<2x4x8x8xf32>) masked(zero)
  return %r : tensor<2x4x8x8xf32>
}

// -----

// Grouped-query: query head h reads key/value head h floordiv 2. A boolean
// mask broadcast over the batch hides keys with -inf; causal and window test
// the distance from the bottom-right diagonal, (i + Nk - Nq) - j with
// Nk - Nq = 2. masked(nan) writes NaN to rows that see no key, rounded to
// bf16 once; the lse comes from softmax.lse.
// CHECK-DAG: #[[KG:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
// CHECK-DAG: #[[VG:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>
// CHECK-LABEL: func @gqa_causal_window_bool_mask
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KG]], #{{.*}}]
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.generic {indexing_maps = [#[[MB]], #{{.*}}], {{.*}}} ins(%{{.*}} : tensor<1x4x8x10xi1>) outs(%{{.*}} : tensor<2x4x8x10xf32>)
// CHECK: ^bb0(%[[KEEP:.*]]: i1, %{{.*}}: f32):
// CHECK:   %[[SC:.*]] = arith.mulf
// CHECK:   %[[MASKED:.*]] = arith.select %[[KEEP]], %[[SC]], %[[NEGINF]] : f32
// CHECK:   %[[I:.*]] = linalg.index 2 : index
// CHECK:   %[[J:.*]] = linalg.index 3 : index
// CHECK:   %[[DIAG:.*]] = arith.addi %[[I]], %[[C2]] : index
// CHECK:   %[[DIST:.*]] = arith.subi %[[DIAG]], %[[J]] : index
// causal: dist >= 0; window(3) with causal: dist < 3.
// CHECK:   %[[CAUSAL:.*]] = arith.cmpi sge, %[[DIST]], %[[C0]] : index
// CHECK:   %[[NEAR:.*]] = arith.cmpi slt, %[[DIST]], %[[C3]] : index
// CHECK:   %[[VIS:.*]] = arith.andi %[[CAUSAL]], %[[NEAR]] : i1
// CHECK:   arith.select %[[VIS]], %[[MASKED]], %[[NEGINF]] : f32
// CHECK: %[[M:.*]], %[[L:.*]], %{{.*}} = softmax.partial {{.*}} dimension(3) algorithm(online)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[VG]], #{{.*}}]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x8x8xbf16>)
// CHECK:   %[[SEL:.*]] = arith.select %{{.*}}, %[[NAN]], %{{.*}} : f32
// CHECK:   arith.truncf %[[SEL]] : f32 to bf16
// CHECK: %[[LSE:.*]] = softmax.lse ins(%[[M]], %[[L]] : tensor<2x4x8xf32>) outs(%{{.*}} : tensor<2x4x8xf32>) state(max) masked(nan)
// CHECK: return %[[R]], %[[LSE]]
// LINALG-LABEL: func @gqa_causal_window_bool_mask
// LINALG-NOT: softmax.
// LINALG: math.exp
// LINALG-NOT: softmax.
// LINALG: return
func.func @gqa_causal_window_bool_mask(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x2x10x16xbf16>, %v: tensor<2x2x10x8xbf16>, %m: tensor<1x4x8x10xi1>, %o: tensor<2x4x8x8xbf16>, %l: tensor<2x4x8xf32>) -> (tensor<2x4x8x8xbf16>, tensor<2x4x8xf32>) {
  %r:2 = softmax.attention ins(%q, %k, %v, %m : tensor<2x4x8x16xbf16>, tensor<2x2x10x16xbf16>, tensor<2x2x10x8xbf16>, tensor<1x4x8x10xi1>) outs(%o, %l : tensor<2x4x8x8xbf16>, tensor<2x4x8xf32>) masked(nan) causal window(3)
  return %r#0, %r#1 : tensor<2x4x8x8xbf16>, tensor<2x4x8xf32>
}

// -----

// Multi-query with dynamic batch, query and key counts: every query head
// reads key/value head 0. An f16 additive mask broadcast over the batch is
// added after the scale; a symmetric window(4) keeps -4 < dist < 4, with
// dist using the run-time Nk - Nq.
// CHECK-DAG: #[[K0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d3, d4)>
// CHECK-DAG: #[[V0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d4, d3)>
// CHECK-LABEL: func @mqa_dynamic_additive_window
// CHECK-SAME: (%[[QA:.*]]: tensor<?x4x?x16xf16>, %[[KA:.*]]: tensor<?x1x?x16xf16>
// CHECK-DAG: %[[CM4:.*]] = arith.constant -4 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[QA]], %{{.*}} : tensor<?x4x?x16xf16>
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[QA]], %{{.*}} : tensor<?x4x?x16xf16>
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[KA]], %{{.*}} : tensor<?x1x?x16xf16>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[K0]], #{{.*}}]{{.*}} outs(%{{.*}} : tensor<?x4x?x?xf32>)
// CHECK: %[[SHIFT:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x?x?xf16>) outs(%{{.*}} : tensor<?x4x?x?xf32>)
// CHECK:   %[[SC:.*]] = arith.mulf %{{.*}}, %[[HALF]] : f32
// CHECK:   %[[MV:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.addf %[[SC]], %[[MV]] : f32
// CHECK:   %[[I:.*]] = linalg.index 2 : index
// CHECK:   %[[DIAG:.*]] = arith.addi %[[I]], %[[SHIFT]] : index
// CHECK:   %[[DIST:.*]] = arith.subi %[[DIAG]], %{{.*}} : index
// CHECK:   %[[LT:.*]] = arith.cmpi slt, %[[DIST]], %[[C4]] : index
// CHECK:   %[[GT:.*]] = arith.cmpi sgt, %[[DIST]], %[[CM4]] : index
// CHECK:   arith.andi %[[LT]], %[[GT]] : i1
// CHECK: softmax.partial ins(%{{.*}} : tensor<?x4x?x?xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x?xf32>) dimension(3) algorithm(online)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[V0]], #{{.*}}]{{.*}} outs(%{{.*}} : tensor<?x4x?x8xf32>)
// LINALG-LABEL: func @mqa_dynamic_additive_window
// LINALG-NOT: softmax.
// LINALG: math.exp
// LINALG-NOT: softmax.
// LINALG: return
func.func @mqa_dynamic_additive_window(%q: tensor<?x4x?x16xf16>, %k: tensor<?x1x?x16xf16>, %v: tensor<?x1x?x8xf16>, %m: tensor<1x4x?x?xf16>, %o: tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %r = softmax.attention ins(%q, %k, %v, %m : tensor<?x4x?x16xf16>, tensor<?x1x?x16xf16>, tensor<?x1x?x8xf16>, tensor<1x4x?x?xf16>) outs(%o : tensor<?x4x?x8xf32>) masked(zero) scale(0.5) window(4)
  return %r : tensor<?x4x?x8xf32>
}

// -----

// A dynamic number of query heads over one key/value head still decomposes.
// CHECK-DAG: #[[K0D:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d3, d4)>
// CHECK-LABEL: func @mqa_dynamic_heads
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[K0D]], #{{.*}}]{{.*}} outs(%{{.*}} : tensor<1x?x8x12xf32>)
// LINALG-LABEL: func @mqa_dynamic_heads
// LINALG-NOT: softmax.
// LINALG: return
func.func @mqa_dynamic_heads(%q: tensor<1x?x8x16xf32>, %k: tensor<1x1x12x16xf32>, %v: tensor<1x1x12x16xf32>, %o: tensor<1x?x8x16xf32>) -> tensor<1x?x8x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x?x8x16xf32>, tensor<1x1x12x16xf32>, tensor<1x1x12x16xf32>) outs(%o : tensor<1x?x8x16xf32>) masked(zero)
  return %r : tensor<1x?x8x16xf32>
}
