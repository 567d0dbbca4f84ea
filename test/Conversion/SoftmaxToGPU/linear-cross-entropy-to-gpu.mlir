// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 cross-entropy-vocab-splits=7" -split-input-file | FileCheck %s --check-prefix=FORCED
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file | FileCheck %s --check-prefix=CDNA

// An LLM head, bf16 (N 8192, D 2048, V 128256), mean: the split lse and
// target logits and the per-token losses in workspace, three kernels in
// stream order, the workspace freed after them.
// CHECK-LABEL: func.func @llm_head
// The host stops on buffers the 16-byte copies cannot read:
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: cf.assert %{{.*}}, "softmax.linear_cross_entropy on the GPU needs hidden and classifier buffers aligned to 16 bytes"
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[LSE:.*]], %{{.*}} = gpu.alloc async [%[[T0]]] (%{{.*}}) : memref<4x?xf32>
// CHECK: %[[ZT:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<4x?xf32>
// CHECK: %[[LOSSES:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
// CHECK: %[[KEPT:.*]], %[[T4:.*]] = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
// Kernel 1: 64 token tiles by the balance model's 4 class ranges (256 blocks,
// one wave of 2 per multiprocessor), 4 warps, both operands' slices of 64
// features in 72 KiB of dynamic shared memory (two buffers each, rows
// padded by 16 bytes), and the warps' merge buffers.
// CHECK: %[[K1:.*]] = gpu.launch async [%[[T4]]] blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %c4, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c76800_i32 {
// CHECK: %[[POOL:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[SA:.*]] = memref.view %[[POOL]][%c0{{.*}}][] {{.*}} to memref<2x128x72xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[SB:.*]] = memref.view %[[POOL]][%c36864][] {{.*}} to memref<2x128x72xbf16, #gpu.address_space<workgroup>>
// The warps' merge buffers in the same pool, never workgroup attributions
// (the pool's views would reach over them).
// CHECK: memref.view %[[POOL]][%c73728][] {{.*}} to memref<2x128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[POOL]][%c74752][] {{.*}} to memref<2x128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[POOL]][%c75776][] {{.*}} to memref<2x128xf32, #gpu.address_space<workgroup>>
// Each slot's target, -1 past the tokens:
// CHECK: scf.if %{{.*}} -> (index)
// CHECK: memref.load %{{.*}} : memref<8192xi64>
// The first slice in flight (8 copies of 16 bytes a thread, 4 of each
// operand), then the class tiles of the block's range, each the 32 slices
// of D:
// CHECK-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[SA]][%c0{{.*}}, %{{.*}}, %{{.*}}], 8 {bypassL1} : memref<8192x2048xbf16>
// CHECK-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[SB]][%c0{{.*}}, %{{.*}}, %{{.*}}], 8 {bypassL1} : memref<128256x2048xbf16>
// CHECK: %[[G0:.*]] = nvgpu.device_async_create_group
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (vector<2x2xf32>,
// The next slice is requested into the other buffer before this one is
// waited for (one group left in flight):
// CHECK-COUNT-8: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait %[[G0]] {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// A warp's 64 x 64 part: 4 A fragments and 4 pairs of B fragments per 16
// features, 32 mma.sync; 4 x 32 a slice.
// CHECK-COUNT-4: nvgpu.ldmatrix %[[SA]]
// CHECK: nvgpu.ldmatrix %[[SB]]
// CHECK-COUNT-8: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK: gpu.barrier
// CHECK: scf.yield
// The fold of a tile: columns past V are -inf, the target's logit picked
// out where its class is the column, exp2 of x log2 e - m'.
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.cmpi eq
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: scf.yield
// No copy in flight when the block ends:
// CHECK: nvgpu.device_async_wait %[[G0]] {numGroups = 0 : i32}
// The quad's lanes merge (xor 1, 2), then the two warps of a row:
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.barrier
// the split's lse, (m + log2 l) ln 2, and target logit per token:
// CHECK: math.log2
// CHECK: memref.store %{{.*}}, %[[LSE]][%{{.*}}, %{{.*}}] : memref<4x?xf32>
// CHECK: memref.store %{{.*}}, %[[ZT]][%{{.*}}, %{{.*}}] : memref<4x?xf32>
// CHECK: softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = m16n8k16, rows_per_block = 128, classes_per_tile = 128, k_tile = 64, stages = 2, vocab_splits = 4>
// Kernel 2: a thread per token merges the 4 ranges; the loss with the
// ignore and range rules; the mean's losses and kept flags.
// CHECK: %[[K2:.*]] = gpu.launch async [%[[K1]]] {{.*}} threads({{.*}}) in ({{.*}} = %c256
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args
// CHECK: math.exp
// CHECK: math.log
// CHECK: arith.cmpi eq, %{{.*}}, %c-100_i64 : i64
// CHECK: memref.store %{{.*}}, %[[LOSSES]]
// CHECK: memref.store %{{.*}}, %[[KEPT]]
// Kernel 3: one block of 1024 threads adds them, and divides.
// CHECK: %[[K3:.*]] = gpu.launch async [%[[K2]]] {{.*}} threads({{.*}}) in ({{.*}} = %c1024
// CHECK: gpu.shuffle  xor
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK: gpu.dealloc async [%[[K3]]] %[[LSE]]
// CHECK: gpu.dealloc
// CHECK: gpu.dealloc
// CHECK: gpu.dealloc
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NOT: softmax.linear_cross_entropy
// The gfx942 kernel: 64-lane wavefronts (256 threads), slices of 32 features stored
// synchronously into static LDS (two buffers of 128 rows of 36), MFMA
// 16x16x16 on 4-element fragments of the staged rows, a row's 16 lanes
// merged by xor 1, 2, 4 and 8.
// CDNA-LABEL: func.func @llm_head
// CDNA: gpu.launch async {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup(%[[A:.*]] : memref<2x128x36xbf16, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<2x128x36xbf16, #gpu.address_space<workgroup>>,
// CDNA: vector.load %{{.*}} : memref<8192x2048xbf16>, vector<8xbf16>
// CDNA: vector.store %{{.*}}, %[[A]]
// CDNA: scf.for
// CDNA: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}}
// CDNA: gpu.barrier
// CDNA: vector.load %[[B]]{{.*}} vector<4xbf16>
// CDNA: vector.load %[[A]]{{.*}} vector<4xbf16>
// CDNA: amdgpu.mfma 16x16x16
// CDNA: gpu.shuffle  xor %{{.*}}, %c1_i32, %c64_i32
// CDNA: gpu.shuffle  xor %{{.*}}, %c8_i32, %c64_i32
// CDNA: mma = mfma16x16x16, {{.*}} k_tile = 32, stages = 2, vocab_splits = {{[0-9]+}}>
// FORCED-LABEL: func.func @llm_head
// FORCED: gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<7x?xf32>
// FORCED: vocab_splits = 7
func.func @llm_head(%h: memref<8192x2048xbf16>, %w: memref<128256x2048xbf16>, %t: memref<8192xi64>, %l: memref<f32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<8192x2048xbf16>, memref<128256x2048xbf16>, memref<8192xi64>) outs(%l : memref<f32>) reduction(mean)
  return
}

// -----

// Every option, f16, i32 targets, unknown token count, D 72 (the last
// slice of 64 features reads 8 and zero-fills the rest): the bias and
// softcap applied to each logit before the fold, z-loss and the ignore
// index in the loss, per-token losses and lse written, no reduction.
// CDNA-LABEL: func.func @options
// CDNA: amdgpu.mfma 16x16x16 {{.*}} vector<4xf16>, vector<4xf16>, vector<4xf32>
// With the token count unknown, the host takes ceil(264 / token tiles)
// class ranges (one wave of 2 blocks a multiprocessor), at most the class
// tiles (9) and at least 1:
// CHECK-LABEL: func.func @options
// CHECK: %[[TT:.*]] = arith.maxsi %{{.*}}, %c1
// CHECK: %[[S0:.*]] = arith.ceildivui %c264{{.*}}, %[[TT]]
// CHECK: %[[S1:.*]] = arith.minsi %[[S0]], %{{.*}}
// CHECK: %[[S:.*]] = arith.maxsi %[[S1]], %c1
// CHECK: gpu.alloc async [%{{.*}}] (%[[S]], %{{.*}}) : memref<?x?xf32>
// CHECK: gpu.alloc async [%{{.*}}] (%[[S]], %{{.*}}) : memref<?x?xf32>
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch async {{.*}} in ({{.*}} = %[[TT]], {{.*}} = %[[S]],
// A copy past the features reads nothing (source size 0):
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c72
// CHECK: %[[SRC:.*]] = arith.select %[[IN]], %c8{{.*}}, %c0
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %[[SRC]] {bypassL1} : memref<?x72xf16>
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<1031xf16>
// CHECK: arith.extf
// CHECK: arith.divf %{{.*}}, %cst
// CHECK: math.tanh
// CHECK: arith.mulf %cst
// CHECK: gpu.launch
// CHECK: arith.cmpi eq, %{{.*}}, %c7_i64 : i64
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NOT: gpu.launch
// CHECK: gpu.dealloc
func.func @options(%h: memref<?x72xf16>, %w: memref<1031x72xf16>, %t: memref<?xi32>, %b: memref<1031xf16>, %l: memref<?xf32>, %s: memref<?xf32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<?x72xf16>, memref<1031x72xf16>, memref<?xi32>) bias(%b : memref<1031xf16>) outs(%l : memref<?xf32>) lse(%s : memref<?xf32>) reduction(none) ignore_index(7) softcap(3.0e+01) z_loss(1.0e-04)
  return
}

// -----

// A few tokens (8): one row of 4 warps of 16 tokens by 64 classes, not a
// 128-token tile, in three buffers; the 16 rows of hidden are 128 copies
// for 128 threads (256 on gfx942: the extra threads copy the last chunk
// again). The 501 class tiles go to 126 blocks of 4 (one a multiprocessor
// of sm_90's 132), not 167 of 3 in a grid of 250 (some multiprocessors
// with two).
// CHECK-LABEL: func.func @few_tokens
// CHECK: memref<3x16x72xbf16, #gpu.address_space<workgroup>>
// CHECK: memref<3x256x72xbf16, #gpu.address_space<workgroup>>
// CHECK: rows_per_block = 16, classes_per_tile = 256, k_tile = 64, stages = 3, vocab_splits = 126>
// CDNA-LABEL: func.func @few_tokens
// CDNA: arith.minui %{{.*}}, %c63
// CDNA: rows_per_block = 16, classes_per_tile = 256
func.func @few_tokens(%h: memref<8x4096xbf16>, %w: memref<128256x4096xbf16>, %t: memref<8xi64>, %l: memref<8xf32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<8x4096xbf16>, memref<128256x4096xbf16>, memref<8xi64>) outs(%l : memref<8xf32>) reduction(none)
  return
}
