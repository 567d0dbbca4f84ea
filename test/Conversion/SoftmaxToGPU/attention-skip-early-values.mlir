// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s --check-prefix=SM90

// skip_values = early on TMA tiles: the loop carries two flags (V of this
// tile was requested; the last tile was folded). As tile j begins, K of
// tile j + 1 is requested, and its V too when the last tile was folded
// (before the block's vote on tile j). After the vote, V of tile j + 1 is
// requested only if tile j is folded and the last was not; the next flags
// are (this or the last tile folded, this tile folded).
// CHECK-LABEL: func.func @early
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[PREV:arg[0-9]+]] = %true{{[_0-9]*}}) -> ({{.*}}, i1, i1) {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.if %[[PREV]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[NEEDV:[0-9]+]] = nvvm.barrier #nvvm.reduction<or>
// CHECK: %[[NOTPREV:[0-9]+]] = arith.xori %[[PREV]], %true
// CHECK: %[[AHEAD:[0-9]+]] = arith.andi {{.*}}, %[[NOTPREV]] : i1
// CHECK: scf.if %[[AHEAD]] {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[NEXT:[0-9]+]] = arith.ori %[[FOLDED:[0-9]+]], %[[PREV]] : i1
// CHECK: scf.yield {{.*}}, %[[NEXT]], %[[FOLDED]] : {{.*}}, i1, i1
// CHECK: softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, {{.*}}, tile_copy = tma, skip_values = early>
// SM90-LABEL: func.func @early
// SM90: scf.for {{.*}} -> ({{.*}}, i1, i1) {
// SM90: softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, {{.*}}, tile_copy = tma, skip_values = early>
func.func @early(%q: memref<1x4x1024x128xbf16>, %k: memref<1x4x1024x128xbf16>, %v: memref<1x4x1024x128xbf16>, %o: memref<1x4x1024x128xbf16>, %lambda: f32) {
  softmax.attention ins(%q, %k, %v : memref<1x4x1024x128xbf16>, memref<1x4x1024x128xbf16>, memref<1x4x1024x128xbf16>) outs(%o : memref<1x4x1024x128xbf16>) masked(zero) skip(lambda %lambda : f32, tile [64, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = early>}
  return
}

// -----

// The default (after_vote, recorded): one flag, and nothing but K is
// requested before the vote.
// CHECK-LABEL: func.func @after_vote
// CHECK: scf.for {{.*}} -> ({{.*}}vector<2x2xf32>, i1) {
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-NOT: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: tile_copy = tma, skip_values = after_vote>
func.func @after_vote(%q: memref<1x4x1024x128xbf16>, %k: memref<1x4x1024x128xbf16>, %v: memref<1x4x1024x128xbf16>, %o: memref<1x4x1024x128xbf16>, %lambda: f32) {
  softmax.attention ins(%q, %k, %v : memref<1x4x1024x128xbf16>, memref<1x4x1024x128xbf16>, memref<1x4x1024x128xbf16>) outs(%o : memref<1x4x1024x128xbf16>) masked(zero) skip(lambda %lambda : f32, tile [64, 64])
  return
}
