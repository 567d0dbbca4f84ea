// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-key-splits=1 attention-packed-heads=1" --canonicalize --split-input-file | FileCheck %s --check-prefix=PREFILL
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" --canonicalize --split-input-file | FileCheck %s --check-prefix=AMD
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-key-splits=16" --canonicalize --split-input-file | FileCheck %s --check-prefix=PLAIN

// A decode step (B 8, H 32, Hkv 8, one query row, 32768 keys, d 128), the
// mapping's plan: the 4 query heads of each KV head packed into one tile's
// rows (views [8, 8, 4, 128] of the query and the output), 16 rows per
// warp in one warp and two K/V buffers, and the keys of each tile split 4
// ways (the cost model over two blocks on each of 132 multiprocessors):
// 4 x 8 x 8 blocks write f32 partials [32, 8, 4, 128] and their lse
// [32, 8, 4], allocated in
// stream order; a second kernel, a block per row and a thread per value
// column, loads the 4 partials before it merges any (up to 8 at a time:
// the merge is bound by the loads' latency), merges the 4 states through
// stateOfLse and the -inf-safe merge and writes the bf16 output; then both
// partials are freed.
// CHECK-LABEL: func.func @decode_gqa
// CHECK:       %[[QV:.*]] = memref.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [8, 8, 4, 1, 128] : memref<8x32x1x128xbf16> into memref<8x8x4x1x128xbf16>
// CHECK:       %[[Q:.*]] = memref.collapse_shape %[[QV]] {{\[\[}}0], [1], [2, 3], [4]] : memref<8x8x4x1x128xbf16> into memref<8x8x4x128xbf16>
// CHECK:       %[[OV:.*]] = memref.expand_shape %arg3
// CHECK:       %[[O:.*]] = memref.collapse_shape %[[OV]]
// CHECK:       %[[T0:.*]] = gpu.wait async
// CHECK:       %[[PO:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%c32, %c8, %c4) : memref<?x?x?x128xf32>
// CHECK:       %[[PL:.*]], %[[T2:.*]] = gpu.alloc async [%[[T1]]] (%c32, %c8, %c4) : memref<?x?x?xf32>
// CHECK:       %[[K1:.*]] = gpu.launch async [%[[T2]]] blocks({{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c8, %{{.*}} = %c8) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:         vector.load %[[Q]]
// CHECK:         scf.for
// CHECK:         vector.store %{{.*}}, %[[PO]][{{.*}}] {{.*}} : memref<?x?x?x128xf32>, vector<2xf32>
// CHECK:         memref.store %{{.*}}, %[[PL]][{{.*}}] : memref<?x?x?xf32>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 4, packed_heads = 4, tile_copy = tma>}
// CHECK:       %[[K2:.*]] = gpu.launch async [%[[K1]]] blocks(%[[ROW:.*]], %[[HEAD:.*]], %[[BATCH:.*]]) in (%{{.*}} = %c4, %{{.*}} = %c8, %{{.*}} = %c8) threads(%[[COL:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:         %[[FIRST:.*]] = arith.muli %[[BATCH]], %c4
// CHECK-NOT:     scf.for
// CHECK:         memref.load %[[PL]][%[[FIRST]], %[[HEAD]], %[[ROW]]]
// CHECK:         memref.load %[[PO]][%[[FIRST]], %[[HEAD]], %[[ROW]], %[[COL]]]
// CHECK:         %[[P3:.*]] = arith.addi %[[FIRST]], %c3
// CHECK:         memref.load %[[PL]][%[[P3]], %[[HEAD]], %[[ROW]]]
// CHECK:         memref.load %[[PO]][%[[P3]], %[[HEAD]], %[[ROW]], %[[COL]]]
// CHECK:         arith.maximumf
// CHECK-NOT:     math.exp %
// CHECK:         math.exp2
// CHECK-NOT:     math.exp %
// CHECK:         arith.divf
// CHECK:         arith.truncf {{.*}} : f32 to bf16
// CHECK:         memref.store %{{.*}}, %[[O]][%[[BATCH]], %[[HEAD]], %[[ROW]], %[[COL]]] : memref<8x8x4x128xbf16>
// CHECK:       %[[T3:.*]] = gpu.dealloc async [%[[K2]]] %[[PO]]
// CHECK:       %[[T4:.*]] = gpu.dealloc async [%[[T3]]] %[[PL]]
// CHECK:       gpu.wait [%[[T4]]]

// Both turned off by the options: one synchronous launch over the
// unpacked heads, a block of one warp per (head, batch) (the one row needs
// no more), 16 rows per warp and two buffers (the decode rows' defaults).
// PREFILL-LABEL: func.func @decode_gqa
// PREFILL-NOT:   memref.expand_shape
// PREFILL-NOT:   gpu.alloc
// PREFILL:       gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c32, %{{.*}} = %c8) threads({{.*}}) in (%{{.*}} = %c32,
// PREFILL:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 1, tile_copy = tma>}
// PREFILL-NOT:   gpu.launch
// PREFILL-LABEL: func.func @causal_split

// CDNA: packed and split the same way, one buffer (no asynchronous copies).
// AMD-LABEL: func.func @decode_gqa
// AMD:       gpu.alloc async
// AMD:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = mfma16x16x16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 1, key_splits = {{[0-9]+}}, packed_heads = 4>}
// AMD:       gpu.launch async
func.func @decode_gqa(%q: memref<8x32x1x128xbf16>, %k: memref<8x8x32768x128xbf16>, %v: memref<8x8x32768x128xbf16>, %o: memref<8x32x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<8x32x1x128xbf16>, memref<8x8x32768x128xbf16>, memref<8x8x32768x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero)
  return
}

// -----

// Causal with 3 query rows, split 4 ways by request, not packed, an lse
// result: the keys [start, end) of split x % 4 follow the IR split's rule
// (getAttentionKeySplitRange: 250 keys a split, counted back from the
// last key, here each a multiple of 250 below 1000), the kernel folds them
// from 0 with K and V read at start + row; only the last split keeps the
// causal diagonal (its offset Nk - Nq, the others' their key count). The
// merge writes lse too, from one thread of the row.
// CHECK-LABEL: func.func @causal_split
// CHECK-NOT:   memref.expand_shape
// CHECK:       gpu.launch async {{.*}} in (%{{.*}} = %c4, %{{.*}} = %c4, %{{.*}} = %c1)
// CHECK:         %[[SPLIT:.*]] = arith.remui %{{.*}}, %c4
// CHECK:         %[[LAST:.*]] = arith.cmpi eq, %[[SPLIT]], %c3
// CHECK:         arith.select %[[LAST]]
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} key_splits = 4, packed_heads = 1, tile_copy = tma>}
// CHECK:       gpu.launch async
// CHECK:         arith.maximumf
// CHECK:         scf.if
// CHECK:           math.log
// CHECK:           memref.store %{{.*}}, %arg4
func.func @causal_split(%q: memref<1x4x3x64xbf16>, %k: memref<1x4x1000x64xbf16>, %v: memref<1x4x1000x64xbf16>, %o: memref<1x4x3x64xbf16>, %l: memref<1x4x3xf32>) {
  softmax.attention ins(%q, %k, %v : memref<1x4x3x64xbf16>, memref<1x4x1000x64xbf16>, memref<1x4x1000x64xbf16>) outs(%o, %l : memref<1x4x3x64xbf16>, memref<1x4x3xf32>) masked(zero) causal {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 4>}
  return
}

// -----

// Dynamic shapes: no packing (the head counts are unknown) and no split
// (the cost model reads static shapes); a request could ask for a split.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:   gpu.alloc
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} key_splits = 1, packed_heads = 1>}
func.func @dynamic(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  softmax.attention ins(%q, %k, %k : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) masked(zero)
  return
}

// -----

// Ragged (key_lengths) runs stream-K by default: the batch's key tiles end
// to end, cut into equal chunks: one wave, 49 per head group here (the 3
// blocks a multiprocessor holds, times 132, over 8 head groups). A first kernel writes each
// entry's first tile (entry b sums ceil(L_e / 64) over e < b, each L_e
// clamped to [0, 4096]); each block of the attention kernel takes chunk x,
// C = max(ceil(T / 49), 1) tiles from x C, finds the entry of its first
// tile by bisection, and folds one piece per entry it crosses (a barrier
// before each, none for an entry without keys) into partial row entry + x;
// the merge adds entry b's pieces, chunks tiles[b] / C to
// ceil(tiles[b + 1] / C) - 1 (none for an empty entry).
// CHECK-LABEL: func.func @ragged_decode
// CHECK: %[[TS:.*]], %[[TT:.*]] = gpu.alloc async [%{{.*}}] (%c9) : memref<?xi32>
// CHECK: %[[SCHED:.*]] = gpu.launch async [%[[TT]]] blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads(%[[TX:[a-z0-9]+]], {{.*}}) in ({{.*}} = %c128,
// CHECK:   scf.for %[[E:.*]] = %c0 to %[[TX]] step %c8 iter_args
// CHECK:     memref.load %arg3[%{{.*}}] : memref<8xi32>
// CHECK:     arith.minsi %{{.*}}, %c4096 : index
// CHECK:     arith.ceildivui %{{.*}}, %c64 : index
// CHECK:   memref.store %{{.*}}, %[[TS]][%[[TX]]] : memref<?xi32>
// CHECK: gpu.launch async [%[[SCHED]]] blocks(%[[BX:[a-z0-9]+]], {{.*}}) in ({{.*}} = %c49, {{.*}} = %c8, {{.*}} = %c1)
// CHECK:   %[[T:.*]] = memref.load %[[TS]][%c8] : memref<?xi32>
// CHECK:   %[[TI:.*]] = arith.index_cast %[[T]] : i32 to index
// CHECK:   %[[C0:.*]] = arith.ceildivui %[[TI]], %c49 : index
// CHECK:   %[[C:.*]] = arith.maxsi %[[C0]], %c1 : index
// CHECK:   %[[G:.*]] = arith.muli %[[BX]], %[[C]] : index
// CHECK:   %[[G0:.*]] = arith.minsi %[[G]], %[[TI]] : index
// CHECK:   %[[FIRST:.*]]:2 = scf.while (%{{.*}} = %c0, %{{.*}} = %c8)
// CHECK:   scf.while (%{{.*}} = %[[G0]], %{{.*}} = %[[FIRST]]#0)
// CHECK:     %[[ENTRY:[a-z0-9]+]]: index):
// CHECK:     memref.load %arg3[%[[ENTRY]]] : memref<8xi32>
// CHECK:     %[[SLOT:.*]] = arith.addi %[[ENTRY]], %[[BX]] : index
// CHECK:     gpu.barrier
// CHECK:     scf.if
// CHECK:       scf.for
// CHECK:       memref.store %{{.*}}, %{{.*}}[%[[SLOT]], %{{.*}}, %{{.*}}] : memref<?x?x?xf32>
// CHECK: stream_k = 49
// CHECK: gpu.launch async {{.*}} blocks({{.*}}, {{.*}}, %[[MB:[a-z0-9]+]]) in ({{.*}} = %c4, {{.*}} = %c8, {{.*}} = %c8)
// CHECK:   memref.load %[[TS]][%c8] : memref<?xi32>
// CHECK:   %[[S0:.*]] = memref.load %[[TS]][%[[MB]]] : memref<?xi32>
// CHECK:   %[[S0I:.*]] = arith.index_cast %[[S0]]
// CHECK:   %[[S1:.*]] = memref.load %[[TS]][%{{.*}}] : memref<?xi32>
// CHECK:   %[[S1I:.*]] = arith.index_cast %[[S1]]
// CHECK:   %[[P0:.*]] = arith.divui %[[S0I]], %{{.*}} : index
// CHECK:   %[[P1:.*]] = arith.ceildivui %[[S1I]], %{{.*}} : index
// CHECK:   %[[ROW0:.*]] = arith.addi %[[MB]], %[[P0]] : index
// CHECK:   %[[ANY:.*]] = arith.cmpi ugt, %[[S1I]], %[[S0I]] : index
// CHECK:   %[[N:.*]] = arith.subi %[[P1]], %[[P0]] : index
// CHECK:   %[[COUNT:.*]] = arith.select %[[ANY]], %[[N]], %c0 : index
// CHECK:   %[[LASTP:.*]] = arith.subi %[[COUNT]], %c1 : index
// CHECK:   scf.for %[[I:.*]] = %c0 to %[[COUNT]] step %c4
// CHECK:     %[[IC:.*]] = arith.minsi %[[I]], %[[LASTP]] : index
// CHECK:     arith.addi %[[ROW0]], %[[IC]] : index
// CHECK:     arith.cmpi ult, %[[I]], %[[COUNT]] : index
// CHECK: gpu.dealloc async [%{{.*}}] %[[TS]] : memref<?xi32>
// Plain split-KV when a split is asked for: each block loads its batch
// entry's key count and clamps it to [0, Nk]; the splits cut that count,
// not Nk (the range of split x % 16 is computed from it).
// PLAIN-LABEL: func.func @ragged_decode
// PLAIN: gpu.launch async {{.*}} blocks(%[[BX:.*]], %{{.*}}, %[[BZ:.*]]) in (%{{.*}} = %c16, %{{.*}} = %c8, %{{.*}} = %c8)
// PLAIN:   %[[SPLIT:.*]] = arith.remui %[[BX]], %c16 : index
// PLAIN:   %[[L:.*]] = memref.load %arg3[%[[BZ]]] : memref<8xi32>
// PLAIN:   %[[N:.*]] = arith.index_cast %[[L]] : i32 to index
// PLAIN:   %[[MIN:.*]] = arith.minsi %[[N]], %c4096 : index
// PLAIN:   %[[LB:.*]] = arith.maxsi %[[MIN]], %c0 : index
// PLAIN:   %[[SIZE:.*]] = affine.max #{{.*}}()[%[[LB]]]
// PLAIN:   affine.apply #{{.*}}()[%[[SPLIT]]]
// PLAIN:   affine.max #{{.*}}()[%[[LB]], %{{.*}}]
// PLAIN: key_splits = 16, packed_heads = 4>
// PLAIN: gpu.launch
// PREFILL-LABEL: func.func @ragged_decode
// PREFILL: gpu.launch
// PREFILL:   %[[L:.*]] = memref.load %arg3[%{{.*}}] : memref<8xi32>
// PREFILL:   %[[N:.*]] = arith.index_cast %[[L]] : i32 to index
// PREFILL:   %[[MIN:.*]] = arith.minsi %[[N]], %c4096 : index
// PREFILL:   %[[LB:.*]] = arith.maxsi %[[MIN]], %c0 : index
// PREFILL:   %[[HI0:.*]] = arith.minsi %{{.*}}, %[[LB]] : index
// PREFILL:   %[[HI:.*]] = arith.maxsi %[[HI0]], %c0 : index
// PREFILL:   scf.for %{{.*}} = %c0 to %[[HI]] step %c64
func.func @ragged_decode(%q: memref<8x32x1x128xbf16>, %k: memref<8x8x4096x128xbf16>, %v: memref<8x8x4096x128xbf16>, %len: memref<8xi32>, %o: memref<8x32x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<8x32x1x128xbf16>, memref<8x8x4096x128xbf16>, memref<8x8x4096x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero) causal key_lengths(%len : memref<8xi32>)
  return
}

// -----

// Paged (stream-K, as ragged): every thread's K and V copies address row r
// of its piece's range through the page table of the piece's entry, page
// table[b, r / 64] clamped to [0, 599], at row r mod 64 and the kv head.
// CHECK-LABEL: func.func @paged_decode
// CHECK: gpu.launch async {{.*}} blocks(%{{[a-z0-9]+}}, %[[BY:[a-z0-9]+]], %{{[a-z0-9]+}}) in {{.*}} dynamic_shared_memory_size
// CHECK:   scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}#0)
// CHECK:   ^bb0(%{{.*}}: index, %[[BZ:.*]]: index):
// CHECK:   %[[SLOT:.*]] = arith.divui %[[R:.*]], %c64 : index
// CHECK:   %[[E:.*]] = memref.load %arg4[%[[BZ]], %[[SLOT]]] : memref<8x64xi32>
// CHECK:   %[[P:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK:   %[[P1:.*]] = arith.minsi %[[P]], %c599 : index
// CHECK:   %[[P2:.*]] = arith.maxsi %[[P1]], %c0 : index
// CHECK:   %[[ROW:.*]] = arith.remui %[[R]], %c64 : index
// CHECK:   nvgpu.device_async_copy %arg1[%[[P2]], %[[ROW]], %[[BY]], %{{.*}}], %{{.*}} : memref<600x64x8x128xbf16> to
// AMD-LABEL: func.func @paged_decode
// AMD: gpu.launch
// AMD:   memref.load %arg4[%{{.*}}, %{{.*}}] : memref<8x64xi32>
// AMD:   vector.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<600x64x8x128xbf16>, vector<8xbf16>
func.func @paged_decode(%q: memref<8x32x1x128xbf16>, %k: memref<600x64x8x128xbf16>, %v: memref<600x64x8x128xbf16>, %len: memref<8xi32>, %pt: memref<8x64xi32>, %o: memref<8x32x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<8x32x1x128xbf16>, memref<600x64x8x128xbf16>, memref<600x64x8x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero) causal key_lengths(%len : memref<8xi32>) page_table(%pt : memref<8x64xi32>)
  return
}


// -----

// A thresholded decode step splits like softmax-split-attention-keys: the
// counts are zeroed by a one-thread kernel, lambda = a / Nk is taken over
// all 65536 keys before the split's range narrows Nk, each split's block
// folds its tiles from the split's first key, adds its pairs to the counts
// atomically, and the partials are merged by the second kernel.
// CHECK-LABEL: func.func @split_skip
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads
// CHECK: gpu.launch async {{.*}} blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{.*}} = %c4, %{{.*}} = %c4, %{{.*}} = %c1)
// CHECK:   arith.remui %[[BX]], %c4 : index
// CHECK:   %[[A:.*]] = memref.load %arg3[%c0] : memref<1xf32>
// CHECK:   arith.divf %[[A]], %cst{{.*}} : f32
// CHECK:   affine.max
// CHECK-COUNT-2: memref.atomic_rmw addi
// CHECK: } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 4, packed_heads = 1, tile_copy = tma, skip_values = after_vote>}
// CHECK: gpu.launch async
// AMD-LABEL: func.func @split_skip
// AMD: gpu.launch async {{.*}} blocks({{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c4, %{{.*}} = %c1)
// AMD: } {softmax.strategy = #softmax.attention_gpu_strategy<mma = mfma16x16x16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 1, key_splits = 4, packed_heads = 1>}
func.func @split_skip(%q: memref<1x4x1x128xbf16>, %k: memref<1x4x65536x128xbf16>, %o: memref<1x4x1x128xbf16>, %t: memref<1xf32>, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1x128xbf16>, memref<1x4x65536x128xbf16>, memref<1x4x65536x128xbf16>) outs(%o : memref<1x4x1x128xbf16>) masked(zero) causal skip(scale_factor %t : memref<1xf32>, tile [16, 64]) skip_counts(%n : memref<2xi64>) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 4>}
  return
}

// -----

// A thresholded decode step of one query row takes the decode schedule:
// each row is a query tile of its own (tile [16, 64] cut at Nq = 1), so
// the 4 query heads of a KV head share a warp, each row deciding for
// itself; two K/V buffers, the next K requested as a tile begins, V only
// after the vote (and the next V with it while tiles are folded). The
// loop waits for K before S (a V requested with it may stay in flight:
// numGroups 1) and for V before P V, leaving the next K and V in flight
// (numGroups 2, 1 or 0); each row's leader lane counts its pairs. That is
// the cp.async schedule (asked for here; sm_90 takes TMA tiles otherwise:
// attention-decode-tma.mlir, @packed_skip).
// CHECK-LABEL: func.func @packed_skip
// CHECK: gpu.launch async {{.*}} threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[KS:.*]] : memref<2x64x72xbf16, #gpu.address_space<workgroup>>, %[[VS:.*]] : memref<2x64x72xbf16, #gpu.address_space<workgroup>>)
// CHECK:   %[[QUAD:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK-NEXT:  nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: } else {
// CHECK-NEXT:  nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:     gpu.barrier
// CHECK:     scf.if
// CHECK:       nvgpu.device_async_copy %arg1{{.*}}, %[[KS]]
// CHECK-NOT:   nvgpu.device_async_copy %arg2
// CHECK:     nvvm.mma.sync
// CHECK:     nvvm.vote.sync  any
// CHECK:     nvvm.barrier #nvvm.reduction<or>
// CHECK:     scf.if
// CHECK:       nvgpu.device_async_copy %arg2{{.*}}, %[[VS]]
// CHECK:     scf.if
// CHECK:       nvgpu.device_async_copy %arg2{{.*}}, %[[VS]]
// CHECK:     scf.if
// CHECK:       scf.if
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK:       } else {
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK:       } else {
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:       gpu.barrier
// CHECK:     scf.if
// CHECK:       nvgpu.ldmatrix %[[VS]]
// CHECK:     } else {
// CHECK:   nvgpu.device_async_wait
// CHECK:   %[[LEADER:.*]] = arith.cmpi eq, %[[QUAD]], %c0 : index
// CHECK:   scf.if %[[LEADER]] {
// CHECK-COUNT-2: memref.atomic_rmw addi
// CHECK: } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = {{[0-9]+}}, packed_heads = 4>}
func.func @packed_skip(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x3001x64xbf16>, %v: memref<2x2x3001x64xbf16>, %t: memref<2xf32>, %o: memref<2x8x1x64xbf16>, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %v : memref<2x8x1x64xbf16>, memref<2x2x3001x64xbf16>, memref<2x2x3001x64xbf16>) outs(%o : memref<2x8x1x64xbf16>) masked(zero) skip(lambda %t : memref<2xf32>, tile [16, 64]) skip_counts(%n : memref<2xi64>) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = cp_async>}
  return
}

// -----

// Several query rows (speculative decoding) pack with a tile of one row,
// [1, 64]: a row that skips a tile its warp folds keeps (m, l) (selects
// on the fold's results) and adds no probability.
// CHECK-LABEL: func.func @rows_skip
// CHECK: scf.for
// CHECK:   nvvm.vote.sync  any
// CHECK:   scf.if
// CHECK:   } else {
// CHECK:     nvvm.ex2.approx.ftz.f
// CHECK:     arith.select
// CHECK: } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = {{[0-9]+}}, packed_heads = 4, tile_copy = tma, skip_values = after_vote>}
func.func @rows_skip(%q: memref<1x8x4x64xbf16>, %k: memref<1x2x3001x64xbf16>, %v: memref<1x2x3001x64xbf16>, %t: f32, %o: memref<1x8x4x64xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x8x4x64xbf16>, memref<1x2x3001x64xbf16>, memref<1x2x3001x64xbf16>) outs(%o : memref<1x8x4x64xbf16>) masked(zero) causal skip(lambda %t : f32, tile [1, 64])
  return
}
