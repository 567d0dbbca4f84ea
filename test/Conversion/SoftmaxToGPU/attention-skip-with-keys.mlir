// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize --cse --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" --canonicalize --cse --split-input-file | FileCheck %s --check-prefix=WG

// skip_values = with_keys: the thresholded prefill kernel keeps the dense
// kernel's schedule, each tile's K and V waited for together (their two
// parity waits, then the loop's one barrier), the next tile's K and V
// requested as it starts; the warp's vote (one vote.sync) decides only the
// fold and P V: no block vote, no later copy or wait in the tile.
// CHECK-LABEL: func.func @warp_tile
// CHECK:       scf.for
// CHECK:         nvvm.mbarrier.try_wait.parity
// CHECK:         nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP:[0-9]+]],
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP:[0-9]+]],
// CHECK:         nvvm.vote.sync  any
// CHECK-NOT:     nvvm.barrier
// CHECK-NOT:     nvvm.mbarrier.try_wait.parity
// CHECK-NOT:     nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:         scf.yield
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} tile_copy = tma, skip_values = with_keys>}
// On sm_90a, 16 rows a warp: the scores on warpgroup products, the same
// schedule.
// WG-LABEL: func.func @warp_tile
// WG:       scf.for
// WG:         nvvm.mbarrier.try_wait.parity
// WG:         nvvm.mbarrier.try_wait.parity
// WG-NEXT:    gpu.barrier
// WG:         nvvm.wgmma.mma_async
// WG:         nvvm.vote.sync  any
// WG-NOT:     nvvm.barrier
// WG-NOT:     nvvm.mbarrier.try_wait.parity
// WG:         scf.yield
// WG:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, rows_per_warp = 16, {{.*}} tile_copy = tma, skip_values = with_keys>}
func.func @warp_tile(%q: memref<1x4x1000x128xbf16>, %k: memref<1x4x1000x128xbf16>, %o: memref<1x4x1000x128xbf16>, %t: f32, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>) outs(%o : memref<1x4x1000x128xbf16>) masked(zero) causal skip(lambda %t : f32, tile [16, 64]) skip_counts(%n : memref<2xi64>) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16, skip_values = with_keys>}
  return
}

// -----

// A block tile still votes as a block (its warps run P V together), once
// per tile; V needs no vote.
// WG-LABEL: func.func @block_tile
// WG:       scf.for
// WG:         gpu.barrier
// WG:         nvvm.barrier #nvvm.reduction<or>
// WG-NOT:     nvvm.barrier
// WG-NOT:     nvvm.mbarrier.try_wait.parity
// WG:         scf.yield
// WG:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, rows_per_warp = 16, rows_per_block = 64, {{.*}} skip_values = with_keys>}
func.func @block_tile(%q: memref<1x4x1000x128xbf16>, %k: memref<1x4x1000x128xbf16>, %o: memref<1x4x1000x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>) outs(%o : memref<1x4x1000x128xbf16>) masked(zero) skip(lambda %t : f32, tile [64, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = with_keys>}
  return
}

// -----

// The default: V with K for a warp tile in blocks of 8 warps on warpgroup
// scores (causal d 128 on sm_90a), after the vote elsewhere: 4-warp blocks
// (non-causal) and mma.sync (sm_90).
// WG-LABEL: func.func @default_causal
// WG:       gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256
// WG:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, rows_per_warp = 16, rows_per_block = 128, {{.*}} skip_values = with_keys>}
// WG-LABEL: func.func @default_noncausal
// WG:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, rows_per_warp = 16, rows_per_block = 64, {{.*}} skip_values = after_vote>}
// CHECK-LABEL: func.func @default_causal
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, {{.*}} skip_values = after_vote>}
func.func @default_causal(%q: memref<1x4x1000x128xbf16>, %k: memref<1x4x1000x128xbf16>, %o: memref<1x4x1000x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>) outs(%o : memref<1x4x1000x128xbf16>) masked(zero) causal skip(lambda %t : f32, tile [16, 64])
  return
}
func.func @default_noncausal(%q: memref<1x4x1000x128xbf16>, %k: memref<1x4x1000x128xbf16>, %o: memref<1x4x1000x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>, memref<1x4x1000x128xbf16>) outs(%o : memref<1x4x1000x128xbf16>) masked(zero) skip(lambda %t : f32, tile [16, 64])
  return
}
