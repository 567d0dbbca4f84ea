// RUN: softmax-opt %s --softmax-map-to-gpu -split-input-file | FileCheck %s

// Short rows: a small block per row, each thread holding 4 vectors of 4
// floats between the reduction and the store.
// CHECK-LABEL: func @short_rows
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c64
// CHECK-SAME: workgroup(%[[SM:.*]] : memref<2xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<2xf32, #gpu.address_space<workgroup>>)
// 16-byte loads, -inf past the end of the row:
// CHECK: scf.if %{{.*}} -> (vector<4xf32>)
// CHECK:   vector.load %{{.*}} {alignment = 16 : i64} : memref<16384x1024xf32>, vector<4xf32>
// CHECK: } else {
// CHECK:   arith.constant dense<0xFF800000> : vector<4xf32>
// thread state merged across the warp with xor shuffles, (m, l) pairs:
// CHECK: gpu.shuffle  xor
// across the two warps of the row through workgroup memory:
// CHECK: memref.store %{{.*}}, %[[SM]]
// CHECK: gpu.barrier
// kept exps scaled once per thread and stored 16 bytes at a time:
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<16384x1024xf32>, vector<4xf32>
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64, rows_per_block = 1, vector_width = 4, cached_vectors = 4, splits = 1>
// CHECK-NOT: softmax.softmax
func.func @short_rows(%x: memref<16384x1024xf32>, %y: memref<16384x1024xf32>) {
  softmax.softmax ins(%x : memref<16384x1024xf32>) outs(%y : memref<16384x1024xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Part of a warp per row (16 lanes, 4 vectors each), 16 rows per block, for
// rows of at most 128 vectors; bf16 is loaded 8 at a time and widened.
// CHECK-LABEL: func @warp_rows
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK: vector.load {{.*}} : memref<?x512xbf16>, vector<8xbf16>
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: arith.truncf
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 16, rows_per_block = 16, vector_width = 8, cached_vectors = 4, splits = 1>
func.func @warp_rows(%x: memref<?x512xbf16>, %y: memref<?x512xbf16>) {
  softmax.log_softmax ins(%x : memref<?x512xbf16>) outs(%y : memref<?x512xbf16>) dimension(1) masked(nan)
  return
}

// -----

// Long rows: 32 blocks share a row; each takes a ticket, folds its chunk,
// publishes its state and waits for the row's other blocks. The scratch
// buffers are allocated, zeroed and freed in stream order around the launch.
// CHECK-LABEL: func @split_rows
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[STATES:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%{{.*}}) : memref<?x2xf32>
// CHECK: %[[COUNTERS:.*]], %[[T2:.*]] = gpu.alloc async [%[[T1]]] (%{{.*}}) : memref<?xi32>
// CHECK: %[[T3:.*]] = gpu.memset async [%[[T2]]] %[[COUNTERS]]
// CHECK: %[[T4:.*]] = gpu.launch async [%[[T3]]]
// the ticket:
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]]
// publish, then wait for the row:
// CHECK: llvm.fence syncscope("device") release
// CHECK: memref.atomic_rmw addi
// CHECK: scf.while
// CHECK: llvm.fence syncscope("device") acquire
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 4, cached_vectors = 16, splits = 32, split_merge = global>
// CHECK: gpu.dealloc async
// CHECK: gpu.dealloc async
// CHECK: gpu.wait [
func.func @split_rows(%x: memref<512x262144xf32>, %y: memref<512x262144xf32>) {
  softmax.softmax ins(%x : memref<512x262144xf32>) outs(%y : memref<512x262144xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// A dynamic row length: 16-byte vectors from the aligned address at or
// before each row's start (the row is peeled, as an odd one is), the row
// streamed twice; a 3-D input is collapsed to rows first; logsumexp writes
// one value per row.
// CHECK-LABEL: func @dynamic
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<4x8x?xf32> into memref<32x?xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<32x?xf32> into memref<?xf32>
// CHECK: scf.for
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: vector.maskedload {{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<32xf32>
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 4, cached_vectors = 0, unroll = 1, splits = 1, reread = reverse>
func.func @dynamic(%x: memref<4x8x?xf32>, %y: memref<4x8xf32>) {
  softmax.logsumexp ins(%x : memref<4x8x?xf32>) outs(%y : memref<4x8xf32>) dimension(2) masked(zero) algorithm(three_pass)
  return
}

// -----

// Per-op choices win over the heuristic.
// CHECK-LABEL: func @override
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 2, splits = 1>
func.func @override(%x: memref<64x8192xbf16>, %y: memref<64x8192xbf16>) {
  softmax.softmax ins(%x : memref<64x8192xbf16>) outs(%y : memref<64x8192xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, cached_vectors = 2>}
  return
}

// -----

// A vocabulary row (bf16, 128256): a block of 1024 threads would cache 16
// vectors of 8 (128 f32 values in 64 registers); capped at 8 vectors, the
// row splits over 16 blocks of 128 threads.
// CHECK-LABEL: func @vocabulary_rows
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 16, split_merge = global>
func.func @vocabulary_rows(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Few rows too long for any cached split (8 odd rows of 1000003, peeled
// vectors of 8): each row streams in 32 chunks of a 1024-thread block, each
// chunk read twice; the blocks take tickets and merge their states as the
// cached split does. The kernel's chunk is ceil(ceil(1000010 / 8) / 32) = 3907
// vectors (the row spans up to 7 elements more than it holds).
// CHECK-LABEL: func @streamed_split_rows
// CHECK: gpu.memset
// CHECK: gpu.launch
// CHECK: memref.atomic_rmw addi
// CHECK: arith.ceildivui
// CHECK: scf.for
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 32, split_merge = global, reread = reverse>
func.func @streamed_split_rows(%x: memref<8x1000003xbf16>, %y: memref<8x1000003xbf16>) {
  softmax.softmax ins(%x : memref<8x1000003xbf16>) outs(%y : memref<8x1000003xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// logsumexp reads its rows once: from 4096 vectors on they stream, without
// registers to hold them (512 threads; 1024 from 16384 vectors, or when
// blocks of 512 would leave thread slots empty, as 256 rows do); three_pass
// reads twice and streams as softmax does (bf16 rows, 256 of them: 1024
// threads, 4 vectors in flight).
// CHECK-LABEL: func @logsumexp_streams
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 1>
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>
func.func @logsumexp_streams(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online)
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

// -----

// An odd vocabulary row (GPT-2's 50257, bf16; streamed by a block of 1024
// threads as an even one would be, one vector in flight: at four the
// masked head and tail pass the register cap): 16-byte vectors all the
// same.
// Each row is read from the aligned address at or before its start
// (row * 50257 rounded down to 8 elements, `shift` elements before it); a
// vector wholly inside the row is one aligned load, the row's first and
// last are masked loads of the lanes inside it, and the stores likewise.
// The second (last) pass's whole vectors are nontemporal on NVIDIA
// (streamed-rows.mlir); its masked head and tail are not.
// CHECK-LABEL: func @odd_rows
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<1024x50257xbf16> into memref<51463168xbf16>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<1024x50257xbf16> into memref<51463168xbf16>
// CHECK: %[[START:.*]] = arith.muli %[[ROW:.*]], %[[N:.*]] : index
// CHECK: %[[SHIFT:.*]] = arith.remui %[[START]], %c8
// CHECK: %[[BASE:.*]] = arith.subi %[[START]], %[[SHIFT]]
// CHECK: arith.addi %[[N]], %[[SHIFT]]
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %{{.*}}
// CHECK: scf.if
// CHECK-NEXT: vector.load %[[X]][%[[AT]]] {alignment = 16 : i64} : memref<51463168xbf16>, vector<8xbf16>
// CHECK: } else {
// CHECK: vector.maskedload %[[X]][%[[AT]]], %{{.*}}, %{{.*}} {alignment = 16 : i64} : memref<51463168xbf16>, vector<8xi1>, vector<8xbf16> into vector<8xbf16>
// CHECK: vector.store %{{.*}}, %[[Y]][%{{.*}}] {alignment = 16 : i64, nontemporal = true}
// CHECK: vector.maskedstore %[[Y]][%{{.*}}], %{{.*}}, %{{.*}} {alignment = 16 : i64}
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 1, reread = reverse>
func.func @odd_rows(%x: memref<1024x50257xbf16>, %y: memref<1024x50257xbf16>) {
  softmax.softmax ins(%x : memref<1024x50257xbf16>) outs(%y : memref<1024x50257xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Odd rows cached in registers (64 rows of 50257, split over 7 blocks of a
// cluster): a vector's masked lanes are those between two bounds,
// shift - col and rowEnd - col clamped to [0, 8], compared in i32 with the
// constant lanes; no per-lane 64-bit column, which LLVM kept alive from
// each load to its store (155 registers against 119 in a cluster, 99
// against 96 merged through global memory).
// CHECK-LABEL: func @cached_odd_rows
// CHECK: %[[LANES:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xi32>
// CHECK: %[[LO:.*]] = arith.maxsi %{{.*}}, %c0{{.*}} : index
// CHECK: %[[LOC:.*]] = arith.minsi %[[LO]], %c8{{.*}} : index
// CHECK: %[[LO32:.*]] = arith.index_cast %[[LOC]] : index to i32
// CHECK: %[[LOV:.*]] = vector.broadcast %[[LO32]] : i32 to vector<8xi32>
// CHECK: %[[HEAD:.*]] = arith.cmpi sge, %[[LANES]], %[[LOV]] : vector<8xi32>
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[HI32:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[HIV:.*]] = vector.broadcast %[[HI32]] : i32 to vector<8xi32>
// CHECK: %[[TAIL:.*]] = arith.cmpi slt, %[[LANES]], %[[HIV]] : vector<8xi32>
// CHECK: %[[IN:.*]] = arith.andi %[[HEAD]], %[[TAIL]] : vector<8xi1>
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %[[IN]] : vector<8xi1>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}], %[[MASK]], %{{.*}} {alignment = 16 : i64} : memref<3216448xbf16>, vector<8xi1>, vector<8xbf16> into vector<8xbf16>
// CHECK: vector.maskedstore
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 7, split_merge = cluster>
func.func @cached_odd_rows(%x: memref<64x50257xbf16>, %y: memref<64x50257xbf16>) {
  softmax.softmax ins(%x : memref<64x50257xbf16>) outs(%y : memref<64x50257xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Where the two bounds would not let a multiprocessor hold more blocks
// they cost time (H100: bf16 4096x16383 in blocks of 512 threads 7.6%,
// f32 rows of 4-lane vectors in one block 0.5-4%): those keep the
// per-lane columns.
// CHECK-LABEL: func @cached_odd_rows_per_lane
// CHECK-NOT: vector<8xi32>
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : vector<8xindex>
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : vector<8xindex>
// CHECK: threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 5
// CHECK-LABEL: func @cached_odd_rows_f32
// CHECK-NOT: vector<4xi32>
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : vector<4xindex>
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : vector<4xindex>
// CHECK: threads_per_row = 128, rows_per_block = 1, vector_width = 4, cached_vectors = 3
func.func @cached_odd_rows_per_lane(%x: memref<4096x16383xbf16>, %y: memref<4096x16383xbf16>) {
  softmax.softmax ins(%x : memref<4096x16383xbf16>) outs(%y : memref<4096x16383xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @cached_odd_rows_f32(%x: memref<1000x1031xf32>, %y: memref<1000x1031xf32>) {
  softmax.softmax ins(%x : memref<1000x1031xf32>) outs(%y : memref<1000x1031xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Split f32 rows take the two bounds (f32 64x50257 in a cluster: 167
// registers with per-lane columns, 124 with the bounds).
// CHECK-LABEL: func @cached_odd_rows_f32_split
// CHECK: arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: threads_per_row = 128, rows_per_block = 1, vector_width = 4, cached_vectors = 15, splits = 7, split_merge = cluster
func.func @cached_odd_rows_f32_split(%x: memref<64x50257xf32>, %y: memref<64x50257xf32>) {
  softmax.softmax ins(%x : memref<64x50257xf32>) outs(%y : memref<64x50257xf32>) dimension(1) masked(zero) algorithm(online)
  return
}
