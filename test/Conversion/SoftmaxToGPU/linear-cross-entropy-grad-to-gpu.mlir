// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s

// softmax.linear_cross_entropy_grad on memrefs -> its kernels
// (CrossEntropyGradToGPU.cpp): f32 accumulators zeroed in stream order
// (bf16 inits: workspace; an f32 init accumulates in place), one block for
// the token weights (the mean's kept count by shuffles), a block per 128 x
// 128 tile in a dynamic pool (the logits' two staged operands, du, the
// vote flag), then the rounds into the bf16 inits.

// CHECK-LABEL: func.func @grad
// CHECK: cf.assert %{{.*}}, "softmax.linear_cross_entropy_grad on the GPU needs hidden, classifier (and f32 gradient) buffers aligned to 16 bytes"
// CHECK: %[[WTS:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?xf32>
// CHECK: %[[GH:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?x64xf32>
// CHECK: gpu.memset async {{.*}} %[[GH]], %{{.*}} : memref<?x64xf32>, f32
// CHECK: %[[GW:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?x64xf32>
// CHECK: gpu.memset async {{.*}} %[[GW]], %{{.*}} : memref<?x64xf32>, f32
// CHECK: gpu.memset async {{.*}} %arg8, %{{.*}} : memref<1000xf32>, f32
// The weights: one block of 1024 threads.
// CHECK: gpu.launch async {{.*}} threads({{.*}}) in ({{.*}} = %c1024
// CHECK:   gpu.shuffle xor
// CHECK:   arith.divf
// CHECK:   memref.store %{{.*}}, %[[WTS]]
// CHECK:   memref.store %c0_i64{{.*}}, %arg9
// The tiles: 2 x 8 blocks of 128 threads, 108548 bytes of pool.
// CHECK: gpu.launch async {{.*}} in ({{.*}} = %{{.*}}, {{.*}} = %{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}) dynamic_shared_memory_size %c108548_i32 {
// CHECK:   %[[POOL:.*]] = gpu.dynamic_shared_memory
// CHECK:   %[[SH:.*]] = memref.view %[[POOL]][%c0{{.*}}][] {{.*}} to memref<2x128x72xbf16, #gpu.address_space<workgroup>>
// CHECK:   %[[SW:.*]] = memref.view %[[POOL]][%c36864][] {{.*}} to memref<2x128x72xbf16, #gpu.address_space<workgroup>>
// CHECK:   %[[DU:.*]] = memref.view %[[POOL]][%c73728][] {{.*}} to memref<1x128x136xbf16, #gpu.address_space<workgroup>>
// CHECK:   %[[FLAG:.*]] = memref.view %[[POOL]][%c108544][] {{.*}} to memref<1xi32, #gpu.address_space<workgroup>>
// CHECK:   memref.store %c0_i32{{.*}}, %[[FLAG]]
// The logits: cp.async slices of hidden and classifier, ldmatrix, mma.
// CHECK:   nvgpu.device_async_copy %arg0{{.*}}, %[[SH]]
// CHECK:   nvgpu.device_async_copy %arg1{{.*}}, %[[SW]]
// CHECK:   nvgpu.ldmatrix %[[SH]]{{.*}}transpose = false
// CHECK:   nvvm.mma.sync
// du per element: the softcap's tanh, exp(z - lse) as exp2((z - lse)
// log2 e) (one ex2.approx, not libdevice's expf), the z-loss factor.
// CHECK:   math.tanh
// CHECK-NOT: math.exp %
// CHECK:   %[[D:.*]] = arith.subf
// CHECK:   %[[D2:.*]] = arith.mulf %[[D]], %cst{{.*}} : f32
// CHECK:   math.exp2 %[[D2]]
// The target's -1 (in a tile holding a row's target) and the zeros past V
// or past the tokens are branches the common tile skips.
// CHECK:   arith.cmpi uge, %{{.*}}, %c128{{.*}} : index
// CHECK:   scf.if %{{.*}} -> (f32
// CHECK-NEXT: scf.yield
// CHECK:   } else {
// CHECK:     arith.cmpi eq
// CHECK:   arith.cmpi sle
// CHECK:   scf.if %{{.*}} -> (f32
// CHECK-NEXT: scf.yield
// CHECK:   } else {
// CHECK:     arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// The vote: |du| > filter |w_n| (2^-12 for bf16), one flag, a barrier.
// CHECK:   %[[EPS:.*]] = arith.constant 2.44140625E-4 : f32
// CHECK:   %[[LIMIT:.*]] = arith.mulf %[[EPS]], %{{.*}} : f32
// CHECK:   arith.cmpf ugt, %{{.*}}, %[[LIMIT]] : f32
// CHECK:   memref.store %c1_i32{{.*}}, %[[FLAG]]
// CHECK:   gpu.barrier
// CHECK:   %[[SEEN:.*]] = memref.load %[[FLAG]]
// CHECK:   %[[KEEP:.*]] = arith.cmpi ne, %[[SEEN]], %c0_i32
// The counts: every tile, and the filtered ones.
// CHECK:   memref.atomic_rmw addi %c1_i64{{.*}}, %arg9[%c0
// CHECK:   arith.xori %[[KEEP]], %true
// CHECK:   memref.atomic_rmw addi %{{.*}}, %arg9[%c1
// CHECK:   scf.if %[[KEEP]] {
// du as bf16 into the pool; its column sums into grad_bias.
// CHECK:     arith.truncf %{{.*}} : f32 to bf16
// CHECK:     memref.store %{{.*}}, %[[DU]]
// CHECK:     gpu.shuffle xor
// CHECK:     memref.atomic_rmw addf %{{.*}}, %arg8
// The chunks: du W (du rows, classifier chunk by inner rows) into grad_hidden,
// du^T h (du by inner rows, hidden chunk by inner rows) into grad_classifier.
// CHECK:     nvgpu.device_async_copy %arg0
// CHECK:     nvgpu.ldmatrix %[[DU]]{{.*}}transpose = false
// CHECK:     nvgpu.ldmatrix %[[SW]]{{.*}}transpose = true
// Two adjacent columns per request: red.global.add.v2.f32 at the pair's
// address in the accumulator.
// CHECK:     memref.extract_aligned_pointer_as_index %[[GH]]
// CHECK:     llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f"
// CHECK:     nvgpu.ldmatrix %[[DU]]{{.*}}transpose = true
// CHECK:     nvgpu.ldmatrix %[[SH]]{{.*}}transpose = true
// CHECK:     memref.extract_aligned_pointer_as_index %[[GW]]
// CHECK:     llvm.inline_asm has_side_effects "red.global.add.v2.f32
// CHECK: } {softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = m16n8k16, rows_per_block = 128, classes_per_tile = 128, k_tile = 64, stages = 2>}
// The rounds: the f32 accumulators into the bf16 inits.
// CHECK: gpu.launch async
// CHECK:   memref.load %[[GH]]
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK:   memref.store %{{.*}}, %arg6
// CHECK: gpu.launch async
// CHECK:   memref.load %[[GW]]
// CHECK:   memref.store %{{.*}}, %arg7
// CHECK: gpu.dealloc async {{.*}} %[[WTS]]
// CHECK: gpu.wait [
func.func @grad(%h: memref<200x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<200xi64>, %lse: memref<200xf32>, %dl: memref<f32>, %b: memref<1000xbf16>, %gh: memref<200x64xbf16>, %gw: memref<1000x64xbf16>, %gb: memref<1000xf32>, %n: memref<2xi64>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<200x64xbf16>, memref<1000x64xbf16>, memref<200xi64>, memref<200xf32>, memref<f32>) bias(%b : memref<1000xbf16>) outs(%gh, %gw : memref<200x64xbf16>, memref<1000x64xbf16>) grad_bias(%gb : memref<1000xf32>) filter_counts(%n : memref<2xi64>) reduction(mean) softcap(30.0) z_loss(1.0e-4)
  return
}

// -----

// Exact mode with f32 gradients: accumulated in place (no workspace but the
// weights, no rounds), no vote, du in two parts (hi and the rest), each
// chunk's products run on both.
// CHECK-LABEL: func.func @exact
// CHECK: gpu.alloc async {{.*}} : memref<?xf32>
// CHECK-NOT: gpu.alloc
// CHECK: gpu.memset async {{.*}} %arg5
// CHECK: gpu.memset async {{.*}} %arg6
// CHECK: dynamic_shared_memory_size %c143364_i32
// CHECK: %[[DU:.*]] = memref.view {{.*}} to memref<2x128x136xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: arith.cmpf ugt
// CHECK: %[[HI:.*]] = arith.truncf %[[G:.*]] : f32 to bf16
// CHECK: %[[BACK:.*]] = arith.extf %[[HI]] : bf16 to f32
// CHECK: %[[REST:.*]] = arith.subf %[[G]], %[[BACK]]
// CHECK: %[[LO:.*]] = arith.truncf %[[REST]] : f32 to bf16
// CHECK: memref.store %[[HI]], %[[DU]][%c0
// CHECK: memref.store %[[LO]], %[[DU]][%c1
// CHECK: nvgpu.ldmatrix %[[DU]][%c0
// CHECK: nvgpu.ldmatrix %[[DU]][%c1
// CHECK: memref.extract_aligned_pointer_as_index %arg5
// CHECK: llvm.inline_asm has_side_effects "red.global.add.v2.f32
// CHECK-NOT: gpu.launch
// CHECK: gpu.dealloc
func.func @exact(%h: memref<300x72xbf16>, %w: memref<1031x72xbf16>, %t: memref<300xi32>, %lse: memref<300xf32>, %dl: memref<300xf32>, %gh: memref<300x72xf32>, %gw: memref<1031x72xf32>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<300x72xbf16>, memref<1031x72xbf16>, memref<300xi32>, memref<300xf32>, memref<300xf32>) outs(%gh, %gw : memref<300x72xf32>, memref<1031x72xf32>) reduction(none) filter(0.0)
  return
}
