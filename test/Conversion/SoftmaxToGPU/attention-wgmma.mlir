// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s --check-prefix=SM90

// Causal prefill on sm_90a: the scores on warpgroup products. 16 rows a
// warp, 8 warps (two warpgroups of 64 rows), K/V tiles by TMA into two
// buffers; each warp copies its queries into its warpgroup's swizzled
// boxes and fences them into the async proxy; per tile one m64n64k16 per
// 16 columns of the head dimension, then the settling wait; P V stays on
// mma.sync.
// CHECK-LABEL: func.func @causal
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256
// CHECK: memref.view {{.*}} to memref<2x2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2x2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2x2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: nvvm.mma.sync
// CHECK: mma = wgmma.m64nNk16, rows_per_warp = 16, rows_per_block = 128, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 1, tile_copy = tma
// SM90-LABEL: func.func @causal
// SM90-NOT: nvvm.wgmma
// SM90: mma = m16n8k16, rows_per_warp = 32
func.func @causal(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) causal
  return
}

// -----

// Non-causal at d 128 keeps mma.sync (0.96-0.98x on wgmma measured); at d
// 64 it takes the warpgroups.
// CHECK-LABEL: func.func @full_d128
// CHECK-NOT: nvvm.wgmma
// CHECK: mma = m16n8k16, rows_per_warp = 32
// CHECK-LABEL: func.func @full_d64
// CHECK: nvvm.wgmma.mma_async
// CHECK: mma = wgmma.m64nNk16, rows_per_warp = 16
func.func @full_d128(%q: memref<4x32x4096x128xbf16>, %k: memref<4x32x4096x128xbf16>, %v: memref<4x32x4096x128xbf16>, %o: memref<4x32x4096x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<4x32x4096x128xbf16>, memref<4x32x4096x128xbf16>, memref<4x32x4096x128xbf16>) outs(%o : memref<4x32x4096x128xbf16>) masked(zero)
  return
}
func.func @full_d64(%q: memref<16x16x2048x64xbf16>, %k: memref<16x16x2048x64xbf16>, %v: memref<16x16x2048x64xbf16>, %o: memref<16x16x2048x64xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<16x16x2048x64xbf16>, memref<16x16x2048x64xbf16>, memref<16x16x2048x64xbf16>) outs(%o : memref<16x16x2048x64xbf16>) masked(zero)
  return
}

// -----

// A request for mma.sync keeps it on sm_90a.
// CHECK-LABEL: func.func @asks_mma_sync
// CHECK-NOT: nvvm.wgmma
// CHECK: mma = m16n8k16
func.func @asks_mma_sync(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) causal {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16>}
  return
}


// -----

// Skip tiles of a block: [64, 64] is one warpgroup (4 warps of 16 rows) on
// warpgroup scores; [128, 64] takes 32 rows a warp where the chip has them
// (4 warps of mma.sync), or two warpgroups when 16 rows a warp are asked
// for. The block's one vote is a barrier reduction.
// CHECK-LABEL: func.func @skip_warpgroup
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: mma = wgmma.m64nNk16, rows_per_warp = 16, rows_per_block = 64,
// CHECK-LABEL: func.func @skip_block_128
// CHECK-NOT: nvvm.wgmma
// CHECK: mma = m16n8k16, rows_per_warp = 32, rows_per_block = 128,
// CHECK-LABEL: func.func @skip_two_warpgroups
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256
// CHECK: nvvm.wgmma.mma_async
// CHECK: mma = wgmma.m64nNk16, rows_per_warp = 16, rows_per_block = 128,
// SM90-LABEL: func.func @skip_warpgroup
// SM90-NOT: nvvm.wgmma
// SM90: mma = m16n8k16, rows_per_warp = 16, rows_per_block = 64,
func.func @skip_warpgroup(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) skip(lambda %t : f32, tile [64, 64])
  return
}
func.func @skip_block_128(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) causal skip(lambda %t : f32, tile [128, 64])
  return
}
func.func @skip_two_warpgroups(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) causal skip(lambda %t : f32, tile [128, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}
  return
}

// -----

// With 16 rows a warp asked for, a tile of 32 rows is a block of 2 warps
// voting together (64 threads; no warpgroup, so mma.sync).
// CHECK-LABEL: func.func @skip_two_warps
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c64
// CHECK-NOT: nvvm.vote.sync
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: mma = m16n8k16, rows_per_warp = 16, rows_per_block = 32,
func.func @skip_two_warps(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>, %t: f32) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) skip(lambda %t : f32, tile [32, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}
  return
}
