// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-buffers=3" --canonicalize | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize | FileCheck %s --check-prefix=DEFAULT

// Three K/V buffers (attention-buffers=3, or `buffers = 3` in the op's
// strategy): K and V of tiles 0 and 1 are requested
// before the loop (tile 1 only if it exists), each tile waits for its own
// two copy groups leaving the next tile's two in flight (wait_group 2, or 0
// at the last tile), and requests tile j + 2 into buffer (j + 2) mod 3, the
// one tile j - 1 used, after the barrier.
// CHECK-LABEL: func.func @decode_three_buffers
// CHECK:       gpu.launch async
// CHECK-DAG:     %[[K:.*]] = memref.view {{.*}} to memref<3x64x136xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[V:.*]] = memref.view {{.*}} to memref<3x64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %{{.*}}, %[[K]][%c0,
// CHECK:         nvgpu.device_async_copy %{{.*}}, %[[V]][%c0,
// CHECK:         scf.if
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[K]][%c1,
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[V]][%c1,
// CHECK:         scf.for %[[KV:.*]] = %c0 to %{{.*}} step %c64
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:           gpu.barrier
// CHECK:           %[[TILE:.*]] = arith.divui %[[KV]], %c64
// CHECK:           %[[BUF:.*]] = arith.remui %[[TILE]], %c3
// CHECK:           %[[NEXT:.*]] = arith.addi %[[KV]], %c128
// CHECK:           arith.cmpi slt, %[[NEXT]]
// CHECK:           scf.if
// CHECK:             %[[T2:.*]] = arith.addi %[[TILE]], %c2
// CHECK:             %[[OTHER:.*]] = arith.remui %[[T2]], %c3
// CHECK:             nvgpu.device_async_copy %{{.*}}, %[[K]][%[[OTHER]],
// CHECK:             nvgpu.device_async_copy %{{.*}}, %[[V]][%[[OTHER]],
// CHECK:           nvvm.mma.sync
// CHECK:         } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 3, key_splits = 4, packed_heads = 4>}

// The decode default stays two (three measured 0.96-0.98x of two on the
// H200: bench/results/decode/README.md), copied by TMA on sm_90.
// DEFAULT-LABEL: func.func @decode_three_buffers
// DEFAULT:       memref<2x2x64x64xbf16
// DEFAULT:       buffers = 2, key_splits = 4, packed_heads = 4, tile_copy = tma>
func.func @decode_three_buffers(%q: memref<8x32x1x128xbf16>, %k: memref<8x8x32768x128xbf16>, %v: memref<8x8x32768x128xbf16>, %o: memref<8x32x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<8x32x1x128xbf16>, memref<8x8x32768x128xbf16>, memref<8x8x32768x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero)
  return
}
