// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-f32-precision=exact" --canonicalize --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-f32-precision=tf32" --canonicalize --split-input-file | FileCheck %s --check-prefix=TF32

// f32 attention on NVIDIA runs on the tf32 tensor cores, mma.sync m16n8k8.
// The default is exact (3xTF32): every operand is split into hi (x
// truncated to tf32: the low 13 bits cleared) and lo = x - hi, and each
// product is three mma (lo hi, hi lo, hi hi). d 64: 4 warps of 32 rows,
// K and V tiles of 64 x (64 + 4) floats and the block's 128 queries in
// dynamic shared memory (69632 bytes), copied 4 floats at a time; the A
// and B fragments come from ldmatrix of 8x4-float blocks; V's B fragment
// (keys 2q and 2q + 1 of column g) from two 4-byte loads. Per tile and
// warp: S = 2 row tiles x 8 key tiles x 8 dim steps x 3 = 384 mma; P V of
// the tile starts from zero (mma.sync truncates its sums, a chain over all
// tiles drifts) and is added to O in f32: 384 mma, then one addf per
// accumulator.
// CHECK-LABEL: func.func @exact
// CHECK:       gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c2) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c69632_i32
// CHECK:         %[[SK:.*]] = memref.view %{{.*}}[%c0][] {{.*}} to memref<1x64x68xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[SV:.*]] = memref.view %{{.*}}[%c17408][] {{.*}} to memref<1x64x68xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[SQ:.*]] = memref.view %{{.*}}[%c34816][] {{.*}} to memref<128x68xf32, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %arg0{{.*}}, %[[SQ]]{{.*}}, 4 {bypassL1}
// CHECK:         nvgpu.device_async_copy %arg1{{.*}}, %[[SK]]{{.*}}, 4, %{{.*}} {bypassL1}
// CHECK:         scf.for
// CHECK:           nvgpu.ldmatrix %[[SQ]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<128x68xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK:           %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[HI:.*]] = arith.andi %[[BITS]], %c-8192_i32 : i32
// CHECK:           %[[HIF:.*]] = arith.bitcast %[[HI]] : i32 to f32
// CHECK:           arith.subf %{{.*}}, %[[HIF]] : f32
// CHECK:           nvgpu.ldmatrix %[[SK]]{{.*}} -> vector<4x1xf32>
// CHECK-COUNT-384: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK:           memref.load %[[SV]][%c0, %{{.*}}, %{{.*}}] : memref<1x64x68xf32, #gpu.address_space<workgroup>>
// CHECK:           nvvm.mma.sync A[%{{.*}}] B[%{{.*}}] C[%cst{{.*}}, %cst{{.*}}, %cst{{.*}}, %cst{{.*}}] {{.*}} k = 8>}
// CHECK-COUNT-383: nvvm.mma.sync {{.*}} k = 8>}
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           arith.addf %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK:           scf.yield
// CHECK:         vector.store {{.*}} : memref<2x16x2048x64xf32>, vector<2xf32>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32x3, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}

// attention-f32-precision=tf32: hi only, rounded to the nearest tf32 (add
// 0x1000, then clear the low 13 bits), one mma per product (128 for S and
// 128 for P V per tile and warp), P V accumulated into O directly.
// TF32-LABEL: func.func @exact
// TF32:         scf.for
// TF32:           %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// TF32-NEXT:      %[[ROUND:.*]] = arith.addi %[[BITS]], %c4096_i32 : i32
// TF32-NEXT:      arith.andi %[[ROUND]], %c-8192_i32 : i32
// TF32-NOT:       arith.subf
// TF32-COUNT-128: nvvm.mma.sync {{.*}} k = 8>}
// TF32:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// TF32-COUNT-128: nvvm.mma.sync {{.*}} k = 8>}
// TF32-NOT:       nvvm.mma.sync
// TF32-NOT:       arith.addf %{{.*}}, %{{.*}} : vector<2x2xf32>
// TF32:           scf.yield
// TF32:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}
func.func @exact(%q: memref<2x16x2048x64xf32>, %k: memref<2x16x2048x64xf32>, %v: memref<2x16x2048x64xf32>, %o: memref<2x16x2048x64xf32>) {
  softmax.attention ins(%q, %k, %v : memref<2x16x2048x64xf32>, memref<2x16x2048x64xf32>, memref<2x16x2048x64xf32>) outs(%o : memref<2x16x2048x64xf32>) masked(zero)
  return
}

// -----

// Causal d 128, exact: 16 rows per warp and 8 warps (measured faster than
// 32 rows, which spill there); the queries still come from shared memory:
// 2 x 64 x 132 + 128 x 132 floats = 135168 bytes. tf32 keeps 32 rows and
// 4 warps.
// CHECK-LABEL: func.func @causal_d128
// CHECK:       gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c135168_i32
// CHECK:         memref.view {{.*}} to memref<1x64x132xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<128x132xf32, #gpu.address_space<workgroup>>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32x3, rows_per_warp = 16, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}
// TF32-LABEL: func.func @causal_d128
// TF32:       gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c135168_i32
// TF32:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}
func.func @causal_d128(%q: memref<1x32x4096x128xf32>, %k: memref<1x32x4096x128xf32>, %v: memref<1x32x4096x128xf32>, %o: memref<1x32x4096x128xf32>) {
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xf32>, memref<1x32x4096x128xf32>, memref<1x32x4096x128xf32>) outs(%o : memref<1x32x4096x128xf32>) masked(zero) causal
  return
}

// -----

// An additive f32 mask and an lse result on f32 inputs: the mask is added
// in log2 units before the row statistics, as on f16/bf16.
// CHECK-LABEL: func.func @mask_lse
// CHECK:         scf.for
// CHECK:           memref.load %arg3[{{.*}}] : memref<2x4x100x300xf32>
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK:         memref.store %{{.*}}, %arg5[{{.*}}] : memref<2x4x100xf32>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32x3{{.*}}>}
func.func @mask_lse(%q: memref<2x4x100x64xf32>, %k: memref<2x4x300x64xf32>, %v: memref<2x4x300x64xf32>, %m: memref<2x4x100x300xf32>, %o: memref<2x4x100x64xf32>, %lse: memref<2x4x100xf32>) {
  softmax.attention ins(%q, %k, %v, %m : memref<2x4x100x64xf32>, memref<2x4x300x64xf32>, memref<2x4x300x64xf32>, memref<2x4x100x300xf32>) outs(%o, %lse : memref<2x4x100x64xf32>, memref<2x4x100xf32>) masked(zero)
  return
}
