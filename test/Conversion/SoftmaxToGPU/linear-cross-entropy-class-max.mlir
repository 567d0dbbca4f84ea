// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file | FileCheck %s
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file 2>&1 | FileCheck %s --check-prefix=SM90

// class_max on the GPU: the forward's warpgroup tile writes it, the
// gradient's kernels skip the tiles it bounds before recomputing them.

// class_max: each tile (256 classes, one warp column) is a group. A lane's
// largest logit of each of its two rows is joined with the row's other
// lanes (xor 1, then 2), and the lane at column 0 stores it at (row, tile)
// for rows inside the tokens. On sm_90 the tile is 128 classes in two warp
// columns: refused.
// SM90: error: 'softmax.linear_cross_entropy' op GPU mapping writes class_max from logit tiles of 256 classes in one warp column (the warpgroup tile of sm_90a, more than 32 tokens); this target's tile is 128 x 128 in 2 warp columns
// CHECK-LABEL: func.func @class_max
// CHECK: gpu.launch async
// CHECK: scf.for %[[TILE:[^ ]+]] = {{.*}} iter_args(
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[A0:.*]], %{{.*}} = gpu.shuffle  xor %[[M0:[^ ]+]], %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: %[[J0:.*]] = arith.maximumf %[[M0]], %[[A0]] : f32
// CHECK: %[[A1:.*]], %{{.*}} = gpu.shuffle  xor %[[M1:[^ ]+]], %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: %[[J1:.*]] = arith.maximumf %[[M1]], %[[A1]] : f32
// CHECK: %[[B0:.*]], %{{.*}} = gpu.shuffle  xor %[[J0]], %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: %[[R0:.*]] = arith.maximumf %[[J0]], %[[B0]] : f32
// CHECK: %[[B1:.*]], %{{.*}} = gpu.shuffle  xor %[[J1]], %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: %[[R1:.*]] = arith.maximumf %[[J1]], %[[B1]] : f32
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[COL]], %c0{{.*}} : index
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[ROW0:[^ ]+]], %{{.*}} : index
// CHECK: arith.andi %[[LEAD]], %[[IN0]] : i1
// CHECK: memref.store %[[R0]], %arg5[%[[ROW0]], %[[TILE]]] : memref<200x4xf32>
// CHECK: memref.store %[[R1]], %arg5[%{{.*}}, %[[TILE]]] : memref<200x4xf32>
func.func @class_max(%h: memref<200x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<200xi64>, %l: memref<f32>, %s: memref<200xf32>, %cm: memref<200x4xf32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<200x64xbf16>, memref<1000x64xbf16>, memref<200xi64>) outs(%l : memref<f32>) lse(%s : memref<200xf32>) class_max(%cm : memref<200x4xf32>) reduction(mean)
  return
}

// -----

// The gradient with class_max. sm_90a (chunked): the tile kernel's pool
// gains [129 x i32] (a mark per tile of the block's range, the list of the
// unbounded ones, their count). The threads clear the marks, then judge
// (token, tile) pairs, tiles fastest: the largest class_max of the tile's
// group, the target's place, lse and the weight
// (crossEntropyBoundsToken); an unbounded pair marks its tile. Thread 0
// lists the marked tiles from slot 64 on, stores their count at 128 and
// counts the others as tiles, filtered, and filtered before recomputing
// (all three counts); the pipeline then runs over the list only.
// CHECK-LABEL: func.func @grad
// CHECK: gpu.launch async
// CHECK: gpu.launch async {{.*}} dynamic_shared_memory_size
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<129xi32, #gpu.address_space<workgroup>>
// CHECK: memref.store %c0_i32, %[[S]][%{{.*}}] : memref<129xi32
// CHECK: gpu.barrier
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %c256
// CHECK:   %[[K:.*]] = arith.remui %[[P]], %[[R:.*]] : index
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// CHECK:     memref.load %arg5[
// CHECK:     arith.maximumf
// CHECK:   arith.cmpf ole
// CHECK:   arith.cmpf ord
// CHECK:   memref.store %c1_i32, %[[S]][%[[K]]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[R]] step %c1{{.*}} iter_args(%{{.*}} = %c0{{.*}}) -> (index)
// CHECK:   memref.load %[[S]]
// CHECK:   arith.addi %c64{{.*}}, %{{.*}} : index
// CHECK:   arith.select
// CHECK: memref.store %{{.*}}, %[[S]][%c128{{.*}}]
// CHECK: memref.atomic_rmw addi %{{.*}}, %arg8[%c0{{.*}}] : (i64, memref<3xi64>)
// CHECK: memref.atomic_rmw addi %{{.*}}, %arg8[%c1{{.*}}] : (i64, memref<3xi64>)
// CHECK: memref.atomic_rmw addi %{{.*}}, %arg8[%c2{{.*}}] : (i64, memref<3xi64>)
// CHECK: gpu.barrier
// CHECK: %[[N:.*]] = memref.load %[[S]][%c128{{.*}}]
// CHECK: nvvm.wgmma.mma_async

// sm_90 (fused, a block per 128 x 128 tile): slot 1 of the vote's flag
// says whether some token of the tile is unbounded; a bounded tile is
// counted (three counts) and skips everything else.
// SM90-LABEL: func.func @grad
// SM90: %[[F:.*]] = memref.view {{.*}} to memref<2xi32, #gpu.address_space<workgroup>>
// SM90: memref.store %c0_i32{{.*}}, %[[F]][%c1{{.*}}]
// SM90: gpu.barrier
// SM90: scf.for
// SM90:   memref.load %arg5[
// SM90:   arith.cmpf ole
// SM90:   memref.store %c1_i32, %[[F]][%c1{{.*}}]
// SM90: gpu.barrier
// SM90: %[[B:.*]] = memref.load %[[F]][%c1{{.*}}]
// SM90: %[[UNB:.*]] = arith.cmpi ne, %[[B]], %c0_i32
// SM90: memref.atomic_rmw addi %{{.*}}, %arg8[%c2{{.*}}] : (i64, memref<3xi64>)
// SM90: scf.if %[[UNB]] {
// SM90: nvvm.mma.sync
func.func @grad(%h: memref<200x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<200xi64>, %lse: memref<200xf32>, %dl: memref<f32>, %cm: memref<200x4xf32>, %gh: memref<200x64xbf16>, %gw: memref<1000x64xbf16>, %n: memref<3xi64>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<200x64xbf16>, memref<1000x64xbf16>, memref<200xi64>, memref<200xf32>, memref<f32>) class_max(%cm : memref<200x4xf32>) outs(%gh, %gw : memref<200x64xbf16>, memref<1000x64xbf16>) filter_counts(%n : memref<3xi64>) reduction(mean)
  return
}
