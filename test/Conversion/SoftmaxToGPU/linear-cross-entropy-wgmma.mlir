// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s --check-prefix=SM90

// On sm_90a the logit tiles run on warpgroup products: the host encodes a
// tensor map of hidden and one of the classifier (boxes of 64 rows by 64
// features, 128-byte swizzle); blocks of 2 warpgroups (256 threads), each
// 64 tokens by 256 classes; four slices of 64 features, the pool aligned
// to 1024 bytes at run time; one mbarrier per slice buffer.
// CHECK-LABEL: func.func @llm_head
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch async {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c201728_i32 {
// CHECK: arith.remui %{{.*}}, %c1024
// CHECK: memref.view {{.*}} to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<4xi64, #gpu.address_space<workgroup>>
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// Two slices requested before the loop (a third buffer holds the slice
// whose products are still running), each 48 KiB: 2 boxes of hidden, 4
// of the classifier.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK: scf.for
// CHECK: scf.for {{.*}} -> (!llvm.struct<(f32
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: gpu.barrier
// The fold reads the accumulators after a wait that yields them:
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: llvm.extractvalue
// Only the last tile masks the columns past V, and only a tile holding a
// row's target picks its logit: both are branches the common tile skips,
// whose fold is then max, fma, ex2 and add an element.
// CHECK: %[[WHOLE:.*]] = arith.cmpi sle, %{{.*}}, %[[V:.*]] : index
// CHECK: %[[XS:.*]]:128 = scf.if %[[WHOLE]] -> (f32
// CHECK-NEXT: scf.yield %{{[^,]*}}, %{{[^,]*}},
// CHECK: } else {
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK: %[[OUT0:.*]] = arith.cmpi uge, %{{.*}}, %c256{{.*}} : index
// CHECK: %[[OUT1:.*]] = arith.cmpi uge, %{{.*}}, %c256{{.*}} : index
// CHECK: %[[NONE:.*]] = arith.andi %[[OUT0]], %[[OUT1]] : i1
// CHECK: scf.if %[[NONE]] -> (f32, f32) {
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: } else {
// CHECK: arith.cmpi eq
// CHECK: arith.select %{{.*}}, %[[XS]]#0, %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// The two slices requested past the last are waited for before the end:
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: mma = wgmma.m64nNk16, rows_per_block = 128, classes_per_tile = 256, k_tile = 64, stages = 4
// CHECK-NOT: nvgpu.device_async_copy
// SM90-LABEL: func.func @llm_head
// SM90-NOT: nvvm.wgmma
// SM90: mma = m16n8k16, rows_per_block = 128, classes_per_tile = 128
func.func @llm_head(%h: memref<8192x2048xbf16>, %w: memref<128256x2048xbf16>, %t: memref<8192xi64>, %l: memref<f32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<8192x2048xbf16>, memref<128256x2048xbf16>, memref<8192xi64>) outs(%l : memref<f32>) reduction(mean)
  return
}

// -----

// f16 with a partial slice of features (72: the second box reads zeros
// past the edge) and an unknown token count.
// CHECK-LABEL: func.func @odd_features
// CHECK: memref<*xf16> -> <tensor = memref<64x64xf16
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: mma = wgmma.m64nNk16
func.func @odd_features(%h: memref<?x72xf16>, %w: memref<1031x72xf16>, %t: memref<?xi32>, %l: memref<?xf32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<?x72xf16>, memref<1031x72xf16>, memref<?xi32>) outs(%l : memref<?xf32>) reduction(none)
  return
}

// -----

// A few tokens keep mma.sync's rows of 16 tokens: a 64-row warpgroup tile
// would multiply 48 rows past them for nothing.
// CHECK-LABEL: func.func @few_tokens
// CHECK-NOT: nvvm.wgmma
// CHECK: mma = m16n8k16, rows_per_block = 16
func.func @few_tokens(%h: memref<8x4096xbf16>, %w: memref<128256x4096xbf16>, %t: memref<8xi64>, %l: memref<8xf32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<8x4096xbf16>, memref<128256x4096xbf16>, memref<8xi64>) outs(%l : memref<8xf32>) reduction(none)
  return
}
