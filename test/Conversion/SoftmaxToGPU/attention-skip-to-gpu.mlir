// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_80 -split-input-file | FileCheck %s --check-prefix=NV
// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file | FileCheck %s --check-prefix=CDNA
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" -split-input-file | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=isa" -split-input-file | FileCheck %s --check-prefix=ISA

// The skip threshold on the tensor-core kernel: a warp's rows vote on the
// rule; the fold and P V run only in the warps that do not skip; V of a
// tile is requested with it while the last tile was folded (the loop's i1),
// else only once some warp of the block folds it (bar.red.or on NVIDIA; on
// CDNA a flag in shared memory around a barrier); one lane per warp adds its
// pairs to the counts, which a one-thread kernel zeroes first. NV is the
// cp.async schedule of sm_80 (one buffer per tile); sm_90 takes two buffers
// with TMA tiles for thresholded kernels (attention-decode-tma.mlir,
// @prefill_skip).

// NV-LABEL: func.func @per_request
// NV:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// NV:           memref.store %c0_i64, %[[N:.*]][%{{.*}}] : memref<2xi64>
// NV:           memref.store %c0_i64, %[[N]][%{{.*}}] : memref<2xi64>
// NV:         gpu.launch
// NV:           %[[LAMBDA:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<2xf32>
// NV:           math.log %[[LAMBDA]] : f32
// NV:           %[[RES:.*]]:{{[0-9]+}} = scf.for {{.*}} iter_args({{.*}}, %[[EARLY:.*]] = %true)
// NV:             nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// NV-NEXT:        gpu.barrier
// NV-NEXT:        scf.if %[[EARLY]] {
// NV:               nvgpu.device_async_copy %{{.*}}, %[[VBUF:.*]][
// NV:             nvvm.mma.sync
// NV:             %[[HELD:.*]] = nvvm.vote.sync  any %c-1_i32, %{{.*}} -> i1
// NV:             %[[SKIP:.*]] = arith.xori %[[HELD]], %true
// NV-NOT:         nvvm.ex2.approx.ftz.f
// NV:             nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// NV:             %[[FOLDS:.*]] = arith.xori %[[SKIP]], %true
// NV:             %[[ANY32:.*]] = arith.extui %[[FOLDS]] : i1 to i32
// NV-NEXT:        %[[ANY:.*]] = nvvm.barrier #nvvm.reduction<or> %[[ANY32]] -> i32
// NV:             %[[NEEDV:.*]] = arith.cmpi ne, %[[ANY]]
// NV:             %[[NOTEARLY:.*]] = arith.xori %[[EARLY]], %true
// NV:             %[[LATE:.*]] = arith.andi %[[NEEDV]], %[[NOTEARLY]]
// NV:             scf.if %[[LATE]] {
// NV:               nvgpu.device_async_copy %{{.*}}, %[[VBUF]][
// NV:               nvgpu.device_async_wait
// NV-NEXT:          gpu.barrier
// The fold and P V in one branch, after V's wait.
// NV:             scf.if %[[SKIP]] ->
// NV:             } else {
// NV:               nvvm.ex2.approx.ftz.f
// NV:               nvgpu.ldmatrix %[[VBUF]]
// NV:             scf.yield {{.*}}, %[[NEEDV]] :
// NV:           memref.atomic_rmw addi %{{.*}}, %[[N]][%{{.*}}] : (i64, memref<2xi64>) -> i64
// NV:           memref.atomic_rmw addi %{{.*}}, %[[N]][%{{.*}}] : (i64, memref<2xi64>) -> i64
// CDNA-LABEL: func.func @per_request
// CDNA:         gpu.launch {{.*}} workgroup({{.*}}, %[[FLAGS:.*]] : memref<2xi32, #gpu.address_space<workgroup>>)
// CDNA:           memref.store %c0_i32{{.*}}, %[[FLAGS]]
// CDNA:           memref.store %c0_i32{{.*}}, %[[FLAGS]]
// CDNA:           scf.for
// CDNA:             amdgpu.mfma
// CDNA:             gpu.shuffle  xor %{{.*}}, %c32_i32{{.*}}, %c64_i32{{.*}} : i32
// CDNA:             memref.store %c1_i32{{.*}}, %[[FLAGS]]
// CDNA:             gpu.barrier
// CDNA:             memref.load %[[FLAGS]]
// CDNA:             memref.store %c0_i32{{.*}}, %[[FLAGS]]
// CDNA:           memref.atomic_rmw addi
// PTX: vote.sync.any.pred
// PTX: bar.red.or.pred
// PTX: atom.global.add.u64
// ISA: s_barrier
// ISA: global_atomic_add_x2
func.func @per_request(%q: memref<2x4x100x64xbf16>, %k: memref<2x2x300x64xbf16>, %v: memref<2x2x300x64xbf16>, %t: memref<2xf32>, %o: memref<2x4x100x64xbf16>, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %v : memref<2x4x100x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x4x100x64xbf16>) masked(zero) causal skip(lambda %t : memref<2xf32>, tile [16, 64]) skip_counts(%n : memref<2xi64>)
  return
}

// -----

// A scalar scale factor (lambda = a / Nk), no counts: no zeroing kernel and
// no atomics; 32 rows per warp on NVIDIA.
// NV-LABEL: func.func @scale_factor
// NV-NOT:     memref.store %c0_i64
// NV:         gpu.launch
// NV:           %[[NK:.*]] = arith.index_cast %{{.*}} : index to i64
// NV:           %[[NKF:.*]] = arith.sitofp %[[NK]] : i64 to f32
// NV:           arith.divf %{{.*}}, %[[NKF]] : f32
// NV:           nvvm.vote.sync any
// NV-NOT:       memref.atomic_rmw
// NV:         return
// CDNA-LABEL: func.func @scale_factor
// CDNA:         scf.for
// CDNA-NOT:     memref.atomic_rmw
// CDNA:         return
func.func @scale_factor(%q: memref<1x2x64x128xf16>, %k: memref<1x2x1000x128xf16>, %v: memref<1x2x1000x128xf16>, %a: f32, %o: memref<1x2x64x128xf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x2x64x128xf16>, memref<1x2x1000x128xf16>, memref<1x2x1000x128xf16>) outs(%o : memref<1x2x64x128xf16>) masked(zero) skip(scale_factor %a : f32, tile [16, 64])
  return
}

// -----

// Without a threshold the kernel keeps the dense schedule: V requested
// before S, no vote, no extra barrier (by cp.async, which the thresholded
// kernels use; these decode-sized rows would take TMA otherwise).
// NV-LABEL: func.func @dense
// NV:         scf.for
// NV:           gpu.barrier
// NV-NOT:       nvvm.vote.sync
// NV:           nvgpu.device_async_copy
// NV-NOT:       nvvm.vote.sync
// NV-NOT:       nvvm.barrier
// NV:         return
func.func @dense(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x300x64xbf16>, %v: memref<1x2x300x64xbf16>, %o: memref<1x2x64x64xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x2x64x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero) causal {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = cp_async>}
  return
}

// -----

// A block tile (tile [128, 64]: 4 warps of 32 rows on NVIDIA, 8 wavefronts
// of 16 rows on CDNA). The block goes through the key tiles in step, so it
// votes once, before the fold and with no warp reduction, and its warps
// fold the tile or skip it together; the same vote decides V. The counts
// take a second vote (some row of the block sees the tile), and thread 0
// adds the block's pairs.
// NV-LABEL: func.func @block_tile
// NV:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// NV:           %[[RES:.*]]:{{[0-9]+}} = scf.for {{.*}} iter_args({{.*}}, %[[EARLY:.*]] = %true)
// NV-NOT:         nvvm.vote.sync
// NV:             nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// NV-NEXT:        gpu.barrier
// NV-NOT:         nvvm.vote.sync
// With one buffer, a V requested with the tile has landed in every thread
// before the vote's barrier, past which every warp may read it.
// NV:             nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// NV-NOT:         nvvm.barrier
// NV:             %[[HOLD32:.*]] = arith.extui %{{.*}} : i1 to i32
// NV-NEXT:        %[[ANY:.*]] = nvvm.barrier #nvvm.reduction<or> %[[HOLD32]] -> i32
// NV:             %[[NEEDV:.*]] = arith.cmpi ne, %[[ANY]]
// NV-NEXT:        %[[SKIP:.*]] = arith.xori %[[NEEDV]], %true
// NV-NEXT:        %[[SEES32:.*]] = arith.extui %{{.*}} : i1 to i32
// NV-NEXT:        %[[SEES:.*]] = nvvm.barrier #nvvm.reduction<or> %[[SEES32]] -> i32
// NV-NOT:         nvvm.barrier #nvvm.reduction<or>
// NV:             %[[NOTEARLY:.*]] = arith.xori %[[EARLY]], %true
// NV:             %[[LATE:.*]] = arith.andi %[[NEEDV]], %[[NOTEARLY]]
// NV:             scf.if %[[LATE]] {
// NV:             scf.if %[[SKIP]] ->
// NV:             } else {
// NV:               llvm.nvvm.ex2.approx.ftz.f
// NV:               nvgpu.ldmatrix
// NV:             scf.yield {{.*}}, %[[NEEDV]] :
// NV:           %[[LEAD:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// NV-NEXT:      scf.if %[[LEAD]] {
// NV:             memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i64, memref<2xi64>) -> i64
// NV:             memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i64, memref<2xi64>) -> i64
// CDNA-LABEL: func.func @block_tile
// CDNA:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c512{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup({{.*}}, %[[FLAGS:.*]] : memref<4xi32, #gpu.address_space<workgroup>>)
// CDNA-COUNT-4: memref.store %c0_i32{{.*}}, %[[FLAGS]]
// CDNA:           scf.for
// CDNA:             memref.store %c1_i32{{.*}}, %[[FLAGS]]
// CDNA:             gpu.barrier
// CDNA:             memref.load %[[FLAGS]]
// CDNA:             memref.store %c1_i32{{.*}}, %[[FLAGS]]
// CDNA:             gpu.barrier
// CDNA:             memref.load %[[FLAGS]]
// CDNA:           memref.atomic_rmw addi
// PTX-LABEL: .entry block_tile
// PTX-NOT: vote.sync
// PTX: bar.red.or.pred
// PTX: bar.red.or.pred
// PTX: atom.global.add.u64
func.func @block_tile(%q: memref<2x4x300x64xbf16>, %k: memref<2x2x300x64xbf16>, %v: memref<2x2x300x64xbf16>, %t: memref<2xf32>, %o: memref<2x4x300x64xbf16>, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %v : memref<2x4x300x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x4x300x64xbf16>) masked(zero) causal skip(lambda %t : memref<2xf32>, tile [128, 64]) skip_counts(%n : memref<2xi64>)
  return
}

// -----

// A block tile over fewer rows than it holds: 3 query rows take one warp
// (a wavefront on CDNA), whose block vote is the tile's (its other rows
// are past Nq and let every key tile go).
// NV-LABEL: func.func @block_tile_few_rows
// NV:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// NV-NOT:       nvvm.vote.sync
// NV:           nvvm.barrier #nvvm.reduction<or>
// NV:         rows_per_warp = 16, rows_per_block = 16,
// CDNA-LABEL: func.func @block_tile_few_rows
// CDNA:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CDNA:       rows_per_warp = 16, rows_per_block = 16,
func.func @block_tile_few_rows(%q: memref<1x4x3x64xbf16>, %k: memref<1x4x500x64xbf16>, %v: memref<1x4x500x64xbf16>, %t: f32, %o: memref<1x4x3x64xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x4x3x64xbf16>, memref<1x4x500x64xbf16>, memref<1x4x500x64xbf16>) outs(%o : memref<1x4x3x64xbf16>) masked(zero) causal skip(lambda %t : f32, tile [64, 64])
  return
}
