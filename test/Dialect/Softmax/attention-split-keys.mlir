// RUN: softmax-opt %s --softmax-split-attention-keys=splits=3 -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-split-attention-keys -split-input-file | FileCheck %s --check-prefix=MODEL

// Three splits of 1000 keys counted back from the last: 332, 334, 334.
// Each partial is masked(zero) with an explicit scale and an f32 lse; only
// the last, which ends at Nk, keeps causal. (L_s, 1), or the identity where
// L_s = -inf, is each split's state; two merges fold them; the op's
// masked(nan) is applied once, at the end.
// CHECK-LABEL: func.func @decode_causal
// CHECK: %[[K0:.*]] = tensor.extract_slice %arg1[0, 0, 0, 0] [1, 2, 332, 64]
// CHECK: %[[P0:.*]]:2 = softmax.attention ins(%arg0, %[[K0]], %{{.*}} : tensor<1x8x4x64xf32>, tensor<1x2x332x64xf32>, tensor<1x2x332x64xf32>) outs(%{{.*}}, %{{.*}} : tensor<1x8x4x64xf32>, tensor<1x8x4xf32>) masked(zero) scale(1.250000e-01){{$}}
// CHECK: %[[S0:.*]]:2 = linalg.generic {{.*}} ins(%[[P0]]#1 : tensor<1x8x4xf32>)
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK: tensor.extract_slice %arg1[0, 0, 332, 0] [1, 2, 334, 64]
// CHECK: %[[P1:.*]]:2 = softmax.attention {{.*}} masked(zero) scale(1.250000e-01){{$}}
// CHECK: %[[S1:.*]]:2 = linalg.generic
// CHECK: %[[M:.*]], %[[L:.*]], %[[A:.*]] = softmax.merge(%[[S0]]#0, %[[S0]]#1), (%[[S1]]#0, %[[S1]]#1) acc(%[[P0]]#0, %[[P1]]#0 : {{.*}}) state(max)
// CHECK: tensor.extract_slice %arg1[0, 0, 666, 0] [1, 2, 334, 64]
// CHECK: softmax.attention {{.*}} masked(zero) scale(1.250000e-01) causal
// CHECK: softmax.merge(%[[M]], %[[L]])
// CHECK-NOT: softmax.attention
// CHECK: return
func.func @decode_causal(%q: tensor<1x8x4x64xf32>, %k: tensor<1x2x1000x64xf32>, %v: tensor<1x2x1000x64xf32>, %o: tensor<1x8x4x64xf32>, %l: tensor<1x8x4xf32>) -> (tensor<1x8x4x64xf32>, tensor<1x8x4xf32>) {
  %r:2 = softmax.attention ins(%q, %k, %v : tensor<1x8x4x64xf32>, tensor<1x2x1000x64xf32>, tensor<1x2x1000x64xf32>) outs(%o, %l : tensor<1x8x4x64xf32>, tensor<1x8x4xf32>) masked(nan) causal
  return %r#0, %r#1 : tensor<1x8x4x64xf32>, tensor<1x8x4xf32>
}

// -----

// With causal, a split holds at least Nq - 1 keys: 12 query rows over 5
// keys put every key in the last split; the first two are empty.
// CHECK-LABEL: func.func @more_queries_than_keys
// CHECK: tensor.extract_slice %arg1[0, 0, 0, 0] [1, 1, 0, 16]
// CHECK: tensor.extract_slice %arg1[0, 0, 0, 0] [1, 1, 0, 16]
// CHECK: tensor.extract_slice %arg1[0, 0, 0, 0] [1, 1, 5, 16]
// CHECK: softmax.attention {{.*}} tensor<1x1x5x16xf32>{{.*}} causal
func.func @more_queries_than_keys(%q: tensor<1x1x12x16xf32>, %k: tensor<1x1x5x16xf32>, %v: tensor<1x1x5x16xf32>, %o: tensor<1x1x12x16xf32>) -> tensor<1x1x12x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x1x12x16xf32>, tensor<1x1x5x16xf32>, tensor<1x1x5x16xf32>) outs(%o : tensor<1x1x12x16xf32>) masked(zero) causal
  return %r : tensor<1x1x12x16xf32>
}

// -----

// A dynamic key count: the boundaries are affine.max of Nk, and the mask
// is sliced along its last dimension with the keys.
// CHECK-LABEL: func.func @dynamic_keys_mask
// CHECK: %[[NK:.*]] = tensor.dim %arg1, %c2
// CHECK: affine.max
// CHECK-COUNT-2: tensor.extract_slice %arg3
// CHECK: softmax.merge
// CHECK: tensor.extract_slice %arg3
// CHECK: softmax.merge
func.func @dynamic_keys_mask(%q: tensor<2x4x3x16xf16>, %k: tensor<2x4x?x16xf16>, %v: tensor<2x4x?x16xf16>, %m: tensor<2x1x3x?xi1>, %o: tensor<2x4x3x16xf16>) -> tensor<2x4x3x16xf16> {
  %r = softmax.attention ins(%q, %k, %v, %m : tensor<2x4x3x16xf16>, tensor<2x4x?x16xf16>, tensor<2x4x?x16xf16>, tensor<2x1x3x?xi1>) outs(%o : tensor<2x4x3x16xf16>) masked(zero)
  return %r : tensor<2x4x3x16xf16>
}

// -----

// A threshold in the scale_factor form reaches the three partials as
// lambda = a / Nk over all 600 keys (per batch entry here), with the op's
// tile; the partials' counts add up.
// CHECK-LABEL: func.func @threshold
// CHECK: %[[NK:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK: %[[LAM:.*]] = linalg.generic {{.*}} ins(%arg5 : tensor<2xf32>)
// CHECK: arith.divf %{{.*}}, %[[NK]] : f32
// CHECK: softmax.attention {{.*}} masked(zero) scale({{.*}}) skip(lambda %[[LAM]] : tensor<2xf32>, tile [1, 16]) skip_counts(%{{.*}} : tensor<2xi64>)
// CHECK: %[[L0:.*]] = tensor.extract %{{.*}}[%c0{{.*}}] : tensor<2xi64>
// CHECK: softmax.attention {{.*}} skip(lambda %[[LAM]] : tensor<2xf32>, tile [1, 16]) skip_counts(
// CHECK: %[[L1:.*]] = tensor.extract %{{.*}}[%c0{{.*}}] : tensor<2xi64>
// CHECK: %[[LIVE:.*]] = arith.addi %[[L0]], %[[L1]] : i64
// CHECK: %[[LIVE3:.*]] = arith.addi %[[LIVE]], %{{.*}} : i64
// CHECK: tensor.from_elements %[[LIVE3]], %{{.*}} : tensor<2xi64>
func.func @threshold(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x600x16xf32>, %v: tensor<2x2x600x16xf32>, %o: tensor<2x2x3x16xf32>, %c: tensor<2xi64>, %a: tensor<2xf32>) -> (tensor<2x2x3x16xf32>, tensor<2xi64>) {
  %r:2 = softmax.attention ins(%q, %k, %v : tensor<2x2x3x16xf32>, tensor<2x2x600x16xf32>, tensor<2x2x600x16xf32>) outs(%o : tensor<2x2x3x16xf32>) masked(zero) skip(scale_factor %a : tensor<2xf32>, tile [1, 16]) skip_counts(%c : tensor<2xi64>)
  return %r#0, %r#1 : tensor<2x2x3x16xf32>, tensor<2xi64>
}

// -----

// The cost model: 32 blocks (B 1, H 32, one query row) on 132 units get
// 4 splits (4 x 32 = 128 of 132 units in one wave); 256 blocks (B 8) fill
// the units and are not split.
// MODEL-LABEL: func.func @decode_model
// MODEL-COUNT-4: softmax.attention {{.*}} tensor<1x8x16384x128xbf16>
// MODEL-NOT: softmax.attention
// MODEL: softmax.merge
// MODEL-NOT: softmax.attention
// MODEL-LABEL: func.func @batch_fills_units
// MODEL: softmax.attention
// MODEL-NOT: softmax.merge
func.func @decode_model(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x65536x128xbf16>, %v: tensor<1x8x65536x128xbf16>, %o: tensor<1x32x1x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x32x1x128xbf16>, tensor<1x8x65536x128xbf16>, tensor<1x8x65536x128xbf16>) outs(%o : tensor<1x32x1x128xbf16>) masked(zero)
  return %r : tensor<1x32x1x128xbf16>
}
func.func @batch_fills_units(%q: tensor<8x32x1x128xbf16>, %k: tensor<8x8x4096x128xbf16>, %v: tensor<8x8x4096x128xbf16>, %o: tensor<8x32x1x128xbf16>) -> tensor<8x32x1x128xbf16> {
  %r = softmax.attention ins(%q, %k, %v : tensor<8x32x1x128xbf16>, tensor<8x8x4096x128xbf16>, tensor<8x8x4096x128xbf16>) outs(%o : tensor<8x32x1x128xbf16>) masked(zero)
  return %r : tensor<8x32x1x128xbf16>
}

// -----

// Ragged: each split (keys [0, 32), [32, 66), [66, 100)) gets its own key
// counts, clamp(L_b) - start clamped to [0, its size], and keeps causal (one query row: the rule is
// j < L_b in every split).
// CHECK-LABEL: func.func @ragged_decode
// CHECK-SAME: %[[LENS:[a-z0-9]+]]: tensor<2xi32>
// CHECK: %[[L0:.*]] = linalg.generic {{.*}} ins(%[[LENS]] : tensor<2xi32>)
// CHECK:   %[[N:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:   arith.minsi %[[N]], %c100
// CHECK:   %[[REST:.*]] = arith.subi %{{.*}}, %c0{{.*}} : index
// CHECK:   arith.minsi %[[REST]], %c32
// CHECK:   arith.index_cast %{{.*}} : index to i32
// CHECK: softmax.attention {{.*}} masked(zero) scale(2.500000e-01) causal key_lengths(%[[L0]] : tensor<2xi32>)
// CHECK: %[[L1:.*]] = linalg.generic {{.*}} ins(%[[LENS]] : tensor<2xi32>)
// CHECK:   %[[REST1:.*]] = arith.subi %{{.*}}, %c32{{.*}} : index
// CHECK:   arith.minsi %[[REST1]], %c34
// CHECK: softmax.attention {{.*}} causal key_lengths(%[[L1]] : tensor<2xi32>)
// CHECK: softmax.merge
func.func @ragged_decode(%q: tensor<2x4x1x16xf32>, %k: tensor<2x2x100x16xf32>, %v: tensor<2x2x100x16xf32>, %len: tensor<2xi32>, %o: tensor<2x4x1x16xf32>) -> tensor<2x4x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x1x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x16xf32>) outs(%o : tensor<2x4x1x16xf32>) masked(zero) causal key_lengths(%len : tensor<2xi32>)
  return %r : tensor<2x4x1x16xf32>
}

// -----

// A unified max travels to every partial: their sums are taken at the same
// phi, and each partial falls back on its own (on its own split's sum).
// CHECK-LABEL: func.func @unified_max
// MODEL-LABEL: func.func @unified_max
// CHECK-COUNT-2: softmax.attention {{.*}} masked(zero) scale(1.250000e-01) algorithm(unified_max, phi = 3.000000e+00){{$}}
// CHECK:         softmax.merge
// CHECK:         softmax.attention {{.*}} masked(zero) scale(1.250000e-01) algorithm(unified_max, phi = 3.000000e+00){{$}}
// CHECK:         softmax.merge
func.func @unified_max(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x1000x64xbf16>,
                       %o: tensor<1x8x1x64xbf16>) -> tensor<1x8x1x64xbf16> {
  %r = softmax.attention ins(%q, %k, %k : tensor<1x8x1x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16>)
      outs(%o : tensor<1x8x1x64xbf16>) masked(zero) algorithm(unified_max, phi = 3.0)
  return %r : tensor<1x8x1x64xbf16>
}

// -----

// A paged op splits its page table, not the caches: each split takes whole
// pages. 80 keys (5 pages of 16) in 3 splits: ceil(80 / 3) = 27 keys,
// rounded up to 32, counted back from the last key: pages [0, 1), [1, 3)
// and [3, 5), each partial over the whole caches with its own columns of
// the table and its own key counts (clamp(L_b) - start, at most the
// split's length).
// CHECK-LABEL: func.func @paged
// CHECK:       %[[T0:.*]] = tensor.extract_slice %arg3[0, 0] [2, 1] [1, 1] : tensor<2x5xi32> to tensor<2x1xi32>
// CHECK:       %[[L0:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<2xi32>)
// CHECK:         arith.minsi %{{.*}}, %c16{{.*}} : index
// CHECK:       softmax.attention ins(%arg0, %arg1, %arg1 : {{.*}}tensor<9x16x1x16xf32>, tensor<9x16x1x16xf32>) {{.*}} key_lengths(%[[L0]] : tensor<2xi32>) page_table(%[[T0]] : tensor<2x1xi32>)
// CHECK:       %[[T1:.*]] = tensor.extract_slice %arg3[0, 1] [2, 2] [1, 1] : tensor<2x5xi32> to tensor<2x2xi32>
// CHECK:       softmax.attention ins(%arg0, %arg1, %arg1 : {{.*}} page_table(%[[T1]] : tensor<2x2xi32>)
// CHECK:       softmax.merge
// CHECK:       %[[T2:.*]] = tensor.extract_slice %arg3[0, 3] [2, 2] [1, 1] : tensor<2x5xi32> to tensor<2x2xi32>
// CHECK:       softmax.attention ins(%arg0, %arg1, %arg1 : {{.*}} page_table(%[[T2]] : tensor<2x2xi32>)
// CHECK:       softmax.merge
// MODEL-LABEL: func.func @paged
func.func @paged(%q: tensor<2x1x1x16xf32>, %k: tensor<9x16x1x16xf32>, %len: tensor<2xi32>, %pt: tensor<2x5xi32>, %o: tensor<2x1x1x16xf32>) -> tensor<2x1x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %k : tensor<2x1x1x16xf32>, tensor<9x16x1x16xf32>, tensor<9x16x1x16xf32>) outs(%o : tensor<2x1x1x16xf32>) masked(zero) key_lengths(%len : tensor<2xi32>) page_table(%pt : tensor<2x5xi32>)
  return %r : tensor<2x1x1x16xf32>
}
