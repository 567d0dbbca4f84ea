// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" --canonicalize --split-input-file | FileCheck %s --check-prefix=AMD
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-rows-per-warp=16" --canonicalize --split-input-file | FileCheck %s --check-prefix=ROWS16
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-buffers=2" --canonicalize --split-input-file | FileCheck %s --check-prefix=TWO

// Causal GQA at d 128 on NVIDIA, the default strategy: one block of 4
// warps per (128 queries, head, batch), 32 rows per warp (two 16-row mma
// tiles, so each K and V fragment read from shared memory feeds two mma);
// the block's queries are copied once into shared memory and read per tile
// by ldmatrix; K and V tiles of 64 keys in one padded buffer each (row
// stride 128 + 8) by cp.async, V requested before S and the next K before
// P V; 69632 bytes in all, views of dynamic shared memory; S and P V on
// mma.sync m16n8k16 with ldmatrix (V transposed); exp2 as
// ex2.approx.ftz; row statistics across the quad by xor shuffles; the
// mask only on tiles that need it.
// CHECK-LABEL: func.func @causal_gqa
// CHECK:       memref.extract_aligned_pointer_as_index %arg0
// CHECK:       cf.assert %{{.*}}, "softmax.attention on the GPU needs query, key, value and output buffers aligned to 16 bytes"
// CHECK:       gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c32, %{{.*}} = %c2) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c69632_i32
// CHECK:         %[[POOL:.*]] = gpu.dynamic_shared_memory
// CHECK:         %[[SK:.*]] = memref.view %[[POOL]][%c0][] {{.*}} to memref<1x64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SV:.*]] = memref.view %[[POOL]][%c17408][] {{.*}} to memref<1x64x136xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SQ:.*]] = memref.view %[[POOL]][%c34816][] {{.*}} to memref<128x136xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %arg0{{.*}}, %[[SQ]]
// CHECK:         nvgpu.device_async_copy {{.*}}, %[[SK]]{{.*}}, 8, %{{.*}} {bypassL1}
// CHECK:         nvgpu.device_async_create_group
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_wait
// CHECK:           gpu.barrier
// CHECK:           nvgpu.device_async_copy {{.*}}, %[[SV]]
// CHECK:           nvgpu.ldmatrix %[[SQ]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:           nvgpu.ldmatrix %[[SK]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:           nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:           nvvm.mma.sync
// CHECK:           scf.if
// CHECK:           gpu.shuffle  xor
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK:           nvgpu.device_async_wait
// CHECK:           gpu.barrier
// CHECK:           nvgpu.device_async_copy {{.*}}, %[[SK]]
// CHECK:           nvgpu.ldmatrix %[[SV]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:           scf.yield
// CHECK:         vector.store {{.*}} : memref<2x32x4096x128xbf16>, vector<2xbf16>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}

// With 16 rows per warp (attention-rows-per-warp=16) the queries stay in
// registers as A fragments, and causal d 128 takes 8 warps.
// ROWS16-LABEL: func.func @causal_gqa
// ROWS16:       gpu.launch {{.*}} in (%{{.*}} = %c32, %{{.*}} = %c32, %{{.*}} = %c2) threads({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// ROWS16-SAME:    workgroup(%[[SK:.*]] : memref<1x64x136xbf16, #gpu.address_space<workgroup>>, %[[SV:.*]] : memref<1x64x136xbf16, #gpu.address_space<workgroup>>)
// ROWS16:         vector.load %arg0{{.*}} : memref<2x32x4096x128xbf16>, vector<2xbf16>
// ROWS16:         scf.for
// ROWS16-NOT:       nvgpu.ldmatrix %{{.*}} transpose = false}
// ROWS16:           nvgpu.ldmatrix %[[SK]]
// ROWS16:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}

// The same kernel on CDNA: 4 wavefronts of 64 lanes (64 queries), K staged
// as keys x 128 and V transposed (value columns x keys), both padded by 4;
// S^T = K Q^T and O^T = V^T P^T on 16x16x16 MFMA; a query row's statistics
// across lanes l, l + 16, l + 32, l + 48 (xor 16 and 32 over 64 lanes);
// each lane stores 4 contiguous outputs of its row.
// AMD-LABEL: func.func @causal_gqa
// AMD:       cf.assert %{{.*}}, "softmax.attention on the GPU needs query, key, value and output buffers aligned to 16 bytes"
// AMD:       gpu.launch {{.*}} in (%{{.*}} = %c64, %{{.*}} = %c32, %{{.*}} = %c2) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// AMD-SAME:    workgroup(%[[SK:.*]] : memref<1x64x132xbf16, #gpu.address_space<workgroup>>, %[[SV:.*]] : memref<1x128x68xbf16, #gpu.address_space<workgroup>>)
// AMD:         vector.load %arg0{{.*}} : memref<2x32x4096x128xbf16>, vector<4xbf16>
// AMD:         vector.store %{{.*}}, %[[SK]]{{.*}} vector<8xbf16>
// AMD:         scf.for
// AMD:           gpu.barrier
// AMD:           memref.store %{{.*}}, %[[SV]]
// AMD:           vector.load %[[SK]]{{.*}} vector<4xbf16>
// AMD:           amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// AMD:           scf.if
// AMD:           gpu.shuffle  xor %{{.*}}, %c16_i32, %c64_i32 : f32
// AMD:           gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// AMD:           math.exp2
// AMD:           gpu.barrier
// AMD:           vector.store %{{.*}}, %[[SK]]
// AMD:           vector.load %[[SV]]{{.*}} vector<4xbf16>
// AMD:           amdgpu.mfma 16x16x16
// AMD:           scf.yield
// AMD:         vector.store {{.*}} : memref<2x32x4096x128xbf16>, vector<4xbf16>
// AMD:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = mfma16x16x16, rows_per_warp = 16, rows_per_block = 64, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}
func.func @causal_gqa(%q: memref<2x32x4096x128xbf16>, %k: memref<2x8x4096x128xbf16>, %v: memref<2x8x4096x128xbf16>, %o: memref<2x32x4096x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<2x32x4096x128xbf16>, memref<2x8x4096x128xbf16>, memref<2x8x4096x128xbf16>) outs(%o : memref<2x32x4096x128xbf16>) masked(zero) causal
  return
}

// -----

// A boolean mask broadcast over heads: read per score element (row and key
// clamped), false gives -inf before the row statistics.
// CHECK-LABEL: func.func @bool_mask
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128,
// CHECK:         scf.for
// CHECK:           memref.load %arg3[%{{.*}}, %c0, %{{.*}}, %{{.*}}] : memref<2x1x100x300xi1>
// CHECK:           arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK:           gpu.shuffle  xor
// AMD-LABEL: func.func @bool_mask
// AMD:         scf.for
// AMD:           memref.load %arg3[%{{.*}}, %c0, %{{.*}}, %{{.*}}] : memref<2x1x100x300xi1>
// AMD:           arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// AMD:         vector.store {{.*}} : memref<2x4x100x64xf32>, vector<4xf32>
func.func @bool_mask(%q: memref<2x4x100x64xf16>, %k: memref<2x4x300x64xf16>, %v: memref<2x4x300x64xf16>, %m: memref<2x1x100x300xi1>, %o: memref<2x4x100x64xf32>) {
  softmax.attention ins(%q, %k, %v, %m : memref<2x4x100x64xf16>, memref<2x4x300x64xf16>, memref<2x4x300x64xf16>, memref<2x1x100x300xi1>) outs(%o : memref<2x4x100x64xf32>) masked(zero)
  return
}

// -----

// Two buffers per tile (attention-buffers=2): tile j + 1 (K and V) is
// requested as tile j starts, into the other buffer, so each tile costs one
// barrier. At d 128 the buffers and the queries (104448 bytes) are views of
// the launch's dynamic shared memory.
// TWO-LABEL: func.func @double_buffered
// TWO:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c104448_i32
// TWO:         %[[POOL:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// TWO:         %[[SK:.*]] = memref.view %[[POOL]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x136xbf16, #gpu.address_space<workgroup>>
// TWO:         %[[SV:.*]] = memref.view %[[POOL]][%c34816][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x136xbf16, #gpu.address_space<workgroup>>
// TWO:         nvgpu.device_async_copy {{.*}}, %[[SK]][%c0,
// TWO:         nvgpu.device_async_copy {{.*}}, %[[SV]][%c0,
// TWO:         scf.for %[[KV:.*]] = %c0 to %c4096 step %c64
// TWO:           nvgpu.device_async_wait
// TWO-NEXT:      gpu.barrier
// TWO:           %[[BUF:.*]] = arith.remui %{{.*}}, %c2 : index
// TWO:           scf.if
// TWO:             %[[OTHER:.*]] = arith.subi %c1, %[[BUF]] : index
// TWO:             nvgpu.device_async_copy {{.*}}, %[[SK]][%[[OTHER]],
// TWO:             nvgpu.device_async_copy {{.*}}, %[[SV]][%[[OTHER]],
// TWO:           nvgpu.ldmatrix %[[SK]][%[[BUF]],
// TWO-NOT:       gpu.barrier
// TWO:           nvgpu.ldmatrix %[[SV]][%[[BUF]],
// TWO:           scf.yield
// TWO:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 1>}
func.func @double_buffered(%q: memref<4x32x4096x128xbf16>, %k: memref<4x32x4096x128xbf16>, %v: memref<4x32x4096x128xbf16>, %o: memref<4x32x4096x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<4x32x4096x128xbf16>, memref<4x32x4096x128xbf16>, memref<4x32x4096x128xbf16>) outs(%o : memref<4x32x4096x128xbf16>) masked(zero)
  return
}

// -----

// d 64 without a mask operand: the scale is folded into the exponent's
// argument, exp2(fma(s, scale log2 e, -m)), and the row max is taken on
// the raw scores (then scaled once per row).
// CHECK-LABEL: func.func @folded_scale
// CHECK:         scf.for
// CHECK:           arith.maximumf
// CHECK:           %[[M:.*]] = arith.mulf %{{.*}}, %[[C:.*]] : f32
// CHECK:           math.fma %{{.*}}, %[[C]], %{{.*}} : f32
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
func.func @folded_scale(%q: memref<2x4x256x64xf16>, %k: memref<2x4x256x64xf16>, %v: memref<2x4x256x64xf16>, %o: memref<2x4x256x64xf16>) {
  softmax.attention ins(%q, %k, %v : memref<2x4x256x64xf16>, memref<2x4x256x64xf16>, memref<2x4x256x64xf16>) outs(%o : memref<2x4x256x64xf16>) masked(zero) scale(0.125)
  return
}
