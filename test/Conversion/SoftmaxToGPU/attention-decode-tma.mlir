// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize --cse --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_80" --canonicalize --split-input-file | FileCheck %s --check-prefix=SM80

// Dense decode on sm_90 copies its K/V tiles by TMA (tile_copy = tma):
// the host encodes a tensor map of K and of V (boxes of 64 keys x 64
// elements, 128-byte swizzle, zeros past the edges) and passes the device
// pointers to the kernel. The kernel aligns its pool to 1024 bytes; the
// tiles are [2 buffers][d / 64 boxes][64][64]; thread 0 initializes one
// mbarrier per buffer for K and for V, arrives on it expecting a tile's
// 16384 bytes and issues a bulk tensor copy per box (coordinates: column,
// key, kv head, batch entry); each tile waits on its buffer's barriers
// with the parity of its use of the buffer; ldmatrix addresses the
// swizzled 16-byte chunks (xor with the row).
// CHECK-LABEL: func.func @decode
// CHECK:       %[[KD:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c1, %c64, %c64] : memref<*xbf16> -> <tensor = memref<1x1x64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK:       %[[KP:.*]] = builtin.unrealized_conversion_cast %[[KD]] {{.*}} to !llvm.ptr
// CHECK:       %[[VD:.*]] = nvgpu.tma.create.descriptor
// CHECK:       %[[VP:.*]] = builtin.unrealized_conversion_cast %[[VD]] {{.*}} to !llvm.ptr
// CHECK:       gpu.launch {{.*}} dynamic_shared_memory_size %c66592_i32
// CHECK:         %[[POOL:.*]] = gpu.dynamic_shared_memory
// CHECK:         %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[POOL]]
// CHECK:         %[[MIS:.*]] = arith.remui %[[BASE]], %c1024
// CHECK:         %[[PAD:.*]] = arith.subi %c1024, %[[MIS]]
// CHECK:         %[[START:.*]] = arith.remui %[[PAD]], %c1024
// CHECK:         %[[K:.*]] = memref.view %[[POOL]][%[[START]]][] {{.*}} to memref<2x2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<2x2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<4xi64, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: nvvm.mbarrier.init
// CHECK:           nvvm.fence.mbarrier.init
// CHECK:         gpu.barrier
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KP]], %{{.*}}, box[%c0_i32, %c0_i32,
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KP]], %{{.*}}, box[%c64_i32, %c0_i32,
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VP]]
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VP]]
// CHECK:         scf.for %[[KV:.*]] = %c0 to %c1000 step %c64
// CHECK:           %[[TILE:.*]] = arith.divui %[[KV]], %c64
// CHECK:           %[[USE:.*]] = arith.divui %[[TILE]], %c2
// CHECK:           %[[PAR:.*]] = arith.remui %[[USE]], %c2
// CHECK:           %[[PARITY:.*]] = arith.index_cast %[[PAR]] : index to i32
// CHECK:           nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]]
// CHECK:           nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]]
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:           arith.xori
// CHECK:           nvgpu.ldmatrix %[[K]][
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 4, tile_copy = tma>}
// sm_80 has no tensor-memory accelerator: cp.async into padded rows.
// SM80-LABEL: func.func @decode
// SM80-NOT:     nvgpu.tma.create.descriptor
// SM80:         nvgpu.device_async_copy
// SM80:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 4>}
func.func @decode(%q: memref<2x8x1x128xbf16>, %k: memref<2x2x1000x128xbf16>, %v: memref<2x2x1000x128xbf16>, %o: memref<2x8x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<2x8x1x128xbf16>, memref<2x2x1000x128xbf16>, memref<2x2x1000x128xbf16>) outs(%o : memref<2x8x1x128xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 1>}
  return
}

// -----

// A request for cp.async keeps the padded rows and their 16-byte copies.
// CHECK-LABEL: func.func @asks_cp_async
// CHECK-NOT:   nvgpu.tma.create.descriptor
// CHECK:       memref<2x64x136xbf16
// CHECK:       nvgpu.device_async_copy
// CHECK-NOT:   nvvm.cp.async.bulk.tensor
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 4>}
func.func @asks_cp_async(%q: memref<2x8x1x128xbf16>, %k: memref<2x2x1000x128xbf16>, %v: memref<2x2x1000x128xbf16>, %o: memref<2x8x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<2x8x1x128xbf16>, memref<2x2x1000x128xbf16>, memref<2x2x1000x128xbf16>) outs(%o : memref<2x8x1x128xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 1, tile_copy = cp_async>}
  return
}

// -----

// Head dimension 64: one box per tile. Ragged key lengths keep cp.async
// (rows past an entry's length would be read as they are, and its clamp
// repeats the last row instead).
// CHECK-LABEL: func.func @one_box
// CHECK:       memref.view {{.*}} to memref<2x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:       nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK:       tile_copy = tma>}
// CHECK-LABEL: func.func @ragged
// CHECK-NOT:   nvgpu.tma.create.descriptor
// CHECK:       nvgpu.device_async_copy
// CHECK-NOT:   tile_copy = tma
// CHECK:       return
func.func @one_box(%q: memref<1x4x1x64xf16>, %k: memref<1x2x500x64xf16>, %o: memref<1x4x1x64xf16>) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1x64xf16>, memref<1x2x500x64xf16>, memref<1x2x500x64xf16>) outs(%o : memref<1x4x1x64xf16>) masked(zero)
  return
}
func.func @ragged(%q: memref<8x32x1x128xbf16>, %k: memref<8x8x4096x128xbf16>, %v: memref<8x8x4096x128xbf16>, %o: memref<8x32x1x128xbf16>, %len: memref<8xi32>) {
  softmax.attention ins(%q, %k, %v : memref<8x32x1x128xbf16>, memref<8x8x4096x128xbf16>, memref<8x8x4096x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero) causal key_lengths(%len : memref<8xi32>)
  return
}

// -----

// A thresholded decode step with TMA tiles: the tile waits for K alone
// (the same parity as its V), the next K is requested, the warp votes;
// where the V was not requested with the tile, it comes now if some warp
// folds, or the buffer's V barrier completes its phase by an arrival that
// expects no bytes; a folding block requests the next V early; then every
// tile waits for its V phase (so an early V of a tile that is then skipped
// has landed before its buffer takes the next copy) and P V runs unless
// the warp skipped.
// CHECK-LABEL: func.func @packed_skip
// CHECK:       scf.for
// CHECK:         %[[PARITY:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]]
// CHECK-NOT:     nvvm.mbarrier.try_wait.parity
// CHECK:         gpu.barrier
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP:[0-9]+]],
// CHECK:         nvvm.vote.sync  any
// CHECK:         nvvm.barrier #nvvm.reduction<or>
// CHECK:         scf.if
// CHECK:           scf.if
// CHECK:             nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:           } else {
// CHECK:             nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c0_i32
// CHECK:         scf.if
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:         nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]]
// CHECK:         scf.if
// CHECK:           nvgpu.ldmatrix
// CHECK:         } else {
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} tile_copy = tma, skip_values = after_vote>}
func.func @packed_skip(%q: memref<2x8x1x128xbf16>, %k: memref<2x2x1000x128xbf16>, %v: memref<2x2x1000x128xbf16>, %o: memref<2x8x1x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %v : memref<2x8x1x128xbf16>, memref<2x2x1000x128xbf16>, memref<2x2x1000x128xbf16>) outs(%o : memref<2x8x1x128xbf16>) masked(zero) skip(lambda %t : f32, tile [1, 64])
  return
}

// -----

// A thresholded prefill kernel (tile [32, 64]) on sm_90: two buffers with
// TMA tiles (the dense prefill kernel keeps one cp.async buffer), the
// queries still copied once by cp.async and waited for before the loop.
// CHECK-LABEL: func.func @prefill_skip
// CHECK:       nvgpu.tma.create.descriptor
// CHECK:       gpu.launch
// CHECK:         nvgpu.device_async_copy %arg0
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         scf.for
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           nvvm.barrier #nvvm.reduction<or>
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 1, tile_copy = tma, skip_values = after_vote>}
// CHECK-LABEL: func.func @prefill_dense
// CHECK-NOT:   nvgpu.tma.create.descriptor
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}
func.func @prefill_skip(%q: memref<1x4x1000x128xbf16>, %k: memref<1x4x1000x128xbf16>, %o: memref<1x4x1000x128xbf16>, %t: f32, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>) outs(%o : memref<1x4x1000x128xbf16>) masked(zero) causal skip(lambda %t : f32, tile [32, 64]) skip_counts(%n : memref<2xi64>)
  return
}
func.func @prefill_dense(%q: memref<1x4x1000x128xbf16>, %k: memref<1x4x1000x128xbf16>, %o: memref<1x4x1000x128xbf16>) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>) outs(%o : memref<1x4x1000x128xbf16>) masked(zero) causal
  return
}

