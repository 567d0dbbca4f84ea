// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16" --canonicalize --split-input-file | FileCheck %s
// RUN: not softmax-opt %s --softmax-map-to-cpu="vector-width=12" --split-input-file 2>&1 | FileCheck %s --check-prefix=WIDTH
// The lanes are held to what the softmax mapping takes (pass-options.mlir).
// WIDTH: error: softmax-map-to-cpu: vector-width must be 0 (the host's width) or a power of two from 1 to 64, not 12

// GQA with an lse output and a causal limit: one iteration per
// (batch, head, query); the kv head is head / (H / Hkv); the key loop runs
// to the causal bound (bottom-right: query i sees keys <= i + Nk - Nq) in
// blocks of 16 keys, carrying max, sum and the 8 output chunks of 16 lanes.
// CHECK-LABEL: func.func @gqa_causal
// CHECK:       scf.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = (%c0, %c0, %c0) to (%c2, %c8, %c100) step (%c1, %c1, %c1)
// CHECK:         %[[KVH:.*]] = arith.divui %[[H]], %c4
// CHECK-COUNT-8: vector.load %arg0[%[[B]], %[[H]], %[[I]], %{{.*}}] : memref<2x8x100x128xbf16>, vector<16xbf16>
// CHECK:         %[[DIAG1:.*]] = arith.addi %[[I]], %c29
// CHECK:         %[[MIN:.*]] = arith.minsi %[[DIAG1]], %c128
// CHECK:         %[[HI:.*]] = arith.maxsi %[[MIN]], %c0
// CHECK:         scf.for %{{.*}} = %c0 to %[[HI]] step %c16 iter_args(%{{.*}} = %cst{{.*}}, %{{.*}} = %cst{{.*}}, {{.*}}) -> (f32, f32, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:           vector.load %arg1[%[[B]], %[[KVH]], %{{.*}}, %{{.*}}] : memref<2x2x128x128xbf16>
// CHECK:           vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK:           vector.from_elements
// CHECK:           vector.reduction <maxnumf>
// CHECK:           vector.load %arg2[%[[B]], %[[KVH]], %{{.*}}, %{{.*}}] : memref<2x2x128x128xbf16>
// CHECK:           scf.yield
// CHECK:         arith.select
// CHECK:         vector.store {{.*}}, %arg3[%[[B]], %[[H]], %[[I]], %{{.*}}] : memref<2x8x100x128xf32>, vector<16xf32>
// CHECK:         math.log
// CHECK:         memref.store {{.*}}, %arg4[%[[B]], %[[H]], %[[I]]] : memref<2x8x100xf32>
// CHECK:       } {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 16, keys_per_block = 16>}
func.func @gqa_causal(%q: memref<2x8x100x128xbf16>, %k: memref<2x2x128x128xbf16>, %v: memref<2x2x128x128xbf16>,
                      %o: memref<2x8x100x128xf32>, %l: memref<2x8x100xf32>) {
  softmax.attention ins(%q, %k, %v : memref<2x8x100x128xbf16>, memref<2x2x128x128xbf16>, memref<2x2x128x128xbf16>)
                    outs(%o, %l : memref<2x8x100x128xf32>, memref<2x8x100xf32>) masked(zero) causal
  return
}

// -----

// A boolean mask (unit batch), head dimension 40 (two full chunks and a
// masked one of 8), masked(nan). The mask is read one i1 per key: a vector
// load of i1 reads packed bits, while the memref holds a byte per element.
// CHECK-LABEL: func.func @bool_mask
// CHECK:         vector.maskedload %arg0{{.*}} : memref<1x2x7x40xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK:         scf.for
// CHECK-NOT:       vector.{{.*}}load %arg3
// CHECK:           %[[M0:.*]] = memref.load %arg3[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x7x40xi1>
// CHECK-COUNT-15:  memref.load %arg3[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x7x40xi1>
// CHECK-NEXT:      vector.from_elements %[[M0]], {{.*}} : vector<16xi1>
// CHECK:           scf.yield
// CHECK:         vector.maskedstore %arg4
func.func @bool_mask(%q: memref<1x2x7x40xf32>, %k: memref<1x2x40x40xf32>, %v: memref<1x2x40x40xf32>,
                     %m: memref<1x2x7x40xi1>, %o: memref<1x2x7x40xf32>) {
  softmax.attention ins(%q, %k, %v, %m : memref<1x2x7x40xf32>, memref<1x2x40x40xf32>, memref<1x2x40x40xf32>, memref<1x2x7x40xi1>)
                    outs(%o : memref<1x2x7x40xf32>) masked(nan)
  return
}

// -----

// Ragged (key_lengths): each row loads its entry's key count, clamps it to
// [0, Nk] and runs its key loop to it; causal with one query row ends at
// the same key (i + L_b - Nq + 1 = L_b).
// CHECK-LABEL: func.func @ragged_decode
// CHECK:       scf.parallel (%[[B:.*]], %[[H:.*]]) = (%c0, %c0) to (%c2, %c4)
// CHECK:         %[[L:.*]] = memref.load %arg3[%[[B]]] : memref<2xi32>
// CHECK:         %[[N:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK:         %[[MIN:.*]] = arith.minsi %[[N]], %c100 : index
// CHECK:         %[[LB:.*]] = arith.maxsi %[[MIN]], %c0 : index
// CHECK:         %[[HI:.*]] = arith.maxsi %[[LB]], %c0 : index
// CHECK:         scf.for %{{.*}} = %c0 to %[[HI]] step %c16
func.func @ragged_decode(%q: memref<2x4x1x16xf32>, %k: memref<2x2x100x16xf32>, %v: memref<2x2x100x16xf32>, %len: memref<2xi32>, %o: memref<2x4x1x16xf32>) {
  softmax.attention ins(%q, %k, %v : memref<2x4x1x16xf32>, memref<2x2x100x16xf32>, memref<2x2x100x16xf32>) outs(%o : memref<2x4x1x16xf32>) masked(zero) causal key_lengths(%len : memref<2xi32>)
  return
}

// -----

// Paged: each key and value row is read from its page, table[b, j / 8]
// clamped to [0, 49], at row j mod 8 and the kv head.
// CHECK-LABEL: func.func @paged_decode
// CHECK:       scf.parallel (%[[B:.*]], %[[H:.*]]) = (%c0, %c0) to (%c2, %c4)
// CHECK:         %[[KVH:.*]] = arith.divui %[[H]], %c2 : index
// CHECK:         scf.for
// CHECK:           %[[SLOT:.*]] = arith.divui %{{.*}}, %c8 : index
// CHECK:           %[[E:.*]] = memref.load %arg3[%[[B]], %[[SLOT]]] : memref<2x4xi32>
// CHECK:           %[[P:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK:           %[[P1:.*]] = arith.minsi %[[P]], %c49 : index
// CHECK:           %[[P2:.*]] = arith.maxsi %[[P1]], %c0 : index
// CHECK:           %[[ROW:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK:           vector.load %arg1[%[[P2]], %[[ROW]], %[[KVH]], %c0] : memref<50x8x2x16xf32>, vector<16xf32>
func.func @paged_decode(%q: memref<2x4x1x16xf32>, %k: memref<50x8x2x16xf32>, %v: memref<50x8x2x16xf32>, %pt: memref<2x4xi32>, %o: memref<2x4x1x16xf32>) {
  softmax.attention ins(%q, %k, %v : memref<2x4x1x16xf32>, memref<50x8x2x16xf32>, memref<50x8x2x16xf32>) outs(%o : memref<2x4x1x16xf32>) masked(zero) page_table(%pt : memref<2x4xi32>)
  return
}
