// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file | FileCheck %s

// On sm_90a the gradient runs in chunks of classes (CrossEntropyGradChunks.cpp):
// du of a chunk (at most 256 MiB: 524288 classes / the padded tokens, in
// tiles of 256) and each tile's vote go to memory, then two products read
// the kept tiles back and own their outputs: no atomics.
// CHECK-LABEL: func.func @grad
// CHECK: %[[PAD:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
// CHECK: %[[FIT:.*]] = arith.divui %c524288, %[[PAD]]
// The workspace: weights, grad_hidden's f32 accumulator, du and the votes
// (grad_bias's f32 init is its own accumulator).
// CHECK: gpu.alloc async {{.*}} : memref<?xf32>
// CHECK: %[[GH:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?x64xf32>
// CHECK: gpu.memset async {{.*}} %[[GH]]
// CHECK: gpu.memset async {{.*}} %arg8
// CHECK: %[[DU:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?x?xbf16>
// CHECK: %[[FLAGS:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?x?xi32>
// CHECK: %[[WTS:.*]] = gpu.launch async
// CHECK: gpu.wait [%[[WTS]]]
// Tensor maps: hidden and classifier for the logits, du and classifier for
// du W, du and hidden for du^T h.
// CHECK-COUNT-6: nvgpu.tma.create.descriptor
// CHECK: scf.for %[[C:.*]] = %c0{{.*}} to %{{.*}} step %c1
// CHECK: %[[S:.*]] = gpu.wait async
// 2a: the logit tiles (the forward's warpgroup tile): a block per token
// tile and range of class tiles (132 multiprocessors / the token tiles
// ranges), the slices of the range in one pipeline; each tile writes its
// vote (two flags used by turns) and du, two elements a 4-byte store.
// CHECK: %[[RANGES:.*]] = arith.divui %c132{{.*}}, %{{.*}} : index
// CHECK: %[[PER:.*]] = arith.ceildivui %[[TILES:.*]], %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[TILES]], %[[PER]] : index
// CHECK: %[[T1:.*]] = gpu.launch async [%[[S]]] {{.*}} in ({{.*}} = %{{.*}}, {{.*}} = %[[BLOCKS]], {{.*}}) threads({{.*}} = %c256{{.*}}) dynamic_shared_memory_size %c199680_i32
// CHECK: memref.view {{.*}} to memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: memref.store %c0_i32{{.*}}, %[[FLAGS]]
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %{{.*}} step %c1
// CHECK: scf.for
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: %[[J:.*]] = arith.addi %{{.*}}, %[[K]] : index
// CHECK: arith.cmpf ugt
// CHECK: memref.store %{{.*}}, %[[FLAGS]][%{{.*}}, %[[J]]]
// CHECK: vector.store %{{.*}}, %[[DU]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<?x?xbf16>, vector<2xbf16>
// CHECK: memref.atomic_rmw addf
// CHECK: mma = wgmma.m64nNk16, rows_per_block = 128, classes_per_tile = 256, k_tile = 64, stages = 4
// 2b: du W, the classifier by inner rows (B transposed), over the kept
// class tiles only: the block lists them in shared memory first (4 votes a
// thread, the counts' sums scanned by shuffles).
// CHECK: %[[T2:.*]] = gpu.launch async [%[[T1]]]
// CHECK: memref.view {{.*}} to memref<1024xi32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<257xi32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.load %[[FLAGS]]
// CHECK: gpu.shuffle  up
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: vector.load %[[GH]]
// CHECK: arith.addf {{.*}} : vector<2xf32>
// CHECK: vector.store {{.*}}, %[[GH]]
// 2c: du^T h, both by inner rows, written once into grad_classifier.
// CHECK: %[[T3:.*]] = gpu.launch async [%[[T2]]]
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK: arith.truncf {{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: vector.store {{.*}}, %arg7
// CHECK-NOT: atomic_rmw
// CHECK: gpu.wait [%[[T3]]]
// 3: grad_hidden rounded into its bf16 init on a stream of its own.
// CHECK: %[[R:.*]] = gpu.wait async
// CHECK: gpu.launch async [%[[R]]]
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: gpu.dealloc async
func.func @grad(%h: memref<200x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<200xi64>, %lse: memref<200xf32>, %dl: memref<f32>, %b: memref<1000xbf16>, %gh: memref<200x64xbf16>, %gw: memref<1000x64xbf16>, %gb: memref<1000xf32>, %n: memref<2xi64>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<200x64xbf16>, memref<1000x64xbf16>, memref<200xi64>, memref<200xf32>, memref<f32>) bias(%b : memref<1000xbf16>) outs(%gh, %gw : memref<200x64xbf16>, memref<1000x64xbf16>) grad_bias(%gb : memref<1000xf32>) filter_counts(%n : memref<2xi64>) reduction(mean) softcap(30.0) z_loss(1.0e-4)
  return
}

// -----

// Exact mode with f32 gradients: du in two planes (hi and the rest: half
// the classes a chunk), grad_hidden accumulated in place, no vote, no
// rounds; features past 72 (a partial box) are not stored; the products
// take 128 features a block.
// CHECK-LABEL: func.func @exact
// CHECK: arith.divui %c262144
// CHECK-NOT: gpu.alloc async {{.*}} : memref<?x72xf32>
// CHECK: gpu.memset async {{.*}} %arg5
// CHECK-NOT: gpu.memset
// CHECK: %[[DU:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<?x?xbf16>
// CHECK: scf.for
// CHECK: gpu.launch async
// CHECK-NOT: arith.cmpf ugt
// CHECK: arith.subf
// CHECK: vector.store %{{.*}}, %[[DU]]
// CHECK: gpu.launch async
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// CHECK: arith.cmpi slt, %{{.*}}, %c72
// CHECK: vector.store {{.*}}, %arg5
// CHECK: gpu.launch async
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// CHECK-NOT: arith.truncf {{.*}} : vector<2xf32>
// CHECK: vector.store {{.*}}, %arg6{{.*}} vector<2xf32>
// CHECK: gpu.wait [
// CHECK: gpu.wait async
// CHECK-NOT: gpu.launch
// CHECK: gpu.dealloc
func.func @exact(%h: memref<300x72xbf16>, %w: memref<1031x72xbf16>, %t: memref<300xi32>, %lse: memref<300xf32>, %dl: memref<300xf32>, %gh: memref<300x72xf32>, %gw: memref<1031x72xf32>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<300x72xbf16>, memref<1031x72xbf16>, memref<300xi32>, memref<300xf32>, memref<300xf32>) outs(%gh, %gw : memref<300x72xf32>, memref<1031x72xf32>) reduction(none) filter(0.0)
  return
}
