// RUN: softmax-opt %s | FileCheck %s
// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s -mlir-print-op-generic | softmax-opt | FileCheck %s

// Every parameter, given in another order than the printed one: struct()
// parses by name and prints in declaration order.
// CHECK-LABEL: func @cpu
// CHECK-SAME: softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 16, unroll = 4, block = 16, three_pass = reload, exp = polynomial>
func.func @cpu() attributes {softmax.strategy = #softmax.cpu_strategy<exp = polynomial, three_pass = reload, block = 16, unroll = 4, vector_width = 16, algorithm = three_pass>} {
  return
}

// A request names only what it asks for; absent parameters stay absent.
// CHECK-LABEL: func @cpu_request
// CHECK: softmax.softmax {{.*}} algorithm(online) {softmax.strategy = #softmax.cpu_strategy<unroll = 2>}
func.func @cpu_request(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.cpu_strategy<unroll = 2>}
  return
}

// CHECK-LABEL: func @gpu
// CHECK-SAME: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 4, cached_vectors = 0, unroll = 1, splits = 32, split_merge = global>
func.func @gpu() attributes {softmax.strategy = #softmax.gpu_strategy<split_merge = global, splits = 32, unroll = 1, cached_vectors = 0, vector_width = 4, rows_per_block = 1, threads_per_row = 128>} {
  return
}

// CHECK-LABEL: func @gpu_reread
// CHECK-SAME: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>
func.func @gpu_reread() attributes {softmax.strategy = #softmax.gpu_strategy<reread = reverse, splits = 1, unroll = 4, cached_vectors = 0, vector_width = 8, rows_per_block = 1, threads_per_row = 1024>} {
  return
}

// CHECK-LABEL: func @gpu_unroll_request
// CHECK: softmax.logsumexp {{.*}} {softmax.strategy = #softmax.gpu_strategy<cached_vectors = 0, unroll = 4>}
func.func @gpu_unroll_request(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  softmax.logsumexp ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<unroll = 4, cached_vectors = 0>}
  return
}

// CHECK-LABEL: func @gpu_request
// CHECK: softmax.logsumexp {{.*}} {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, cached_vectors = 2, split_merge = cluster>}
func.func @gpu_request(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  softmax.logsumexp ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster, cached_vectors = 2, threads_per_row = 512>}
  return
}

// An empty request is valid (it asks for nothing).
// CHECK-LABEL: func @empty
// CHECK-SAME: softmax.strategy = #softmax.gpu_strategy<>
func.func @empty() attributes {softmax.strategy = #softmax.gpu_strategy<>} {
  return
}

// CHECK-LABEL: func @attention_cpu
// CHECK-SAME: softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 8, keys_per_block = 8>
func.func @attention_cpu() attributes {softmax.strategy = #softmax.attention_cpu_strategy<keys_per_block = 8, vector_width = 8>} {
  return
}

// Every matrix instruction, the dotted ones included.
// CHECK-LABEL: func @attention_gpu
// CHECK-SAME: softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 2>
// CHECK-LABEL: func @attention_gpu_tf32x3
// CHECK-SAME: #softmax.attention_gpu_strategy<mma = m16n8k8.tf32x3>
// CHECK-LABEL: func @attention_gpu_tf32
// CHECK-SAME: #softmax.attention_gpu_strategy<mma = m16n8k8.tf32, rows_per_warp = 16>
// CHECK-LABEL: func @attention_gpu_tma
// CHECK-SAME: #softmax.attention_gpu_strategy<buffers = 2, tile_copy = tma>
// CHECK-LABEL: func @attention_gpu_skip_values
// CHECK-SAME: #softmax.attention_gpu_strategy<buffers = 2, tile_copy = tma, skip_values = with_keys>
// CHECK-LABEL: func @attention_gpu_cp_async
// CHECK-SAME: #softmax.attention_gpu_strategy<tile_copy = cp_async>
// CHECK-LABEL: func @attention_gpu_mfma
// CHECK-SAME: #softmax.attention_gpu_strategy<mma = mfma16x16x16, rows_per_warp = 16, rows_per_block = 64, keys_per_tile = 64, buffers = 1>
// CHECK-LABEL: func @attention_gpu_wgmma
// CHECK-SAME: #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, rows_per_warp = 16, buffers = 2, tile_copy = tma>
// CHECK-LABEL: func @cross_entropy_gpu_wgmma
// CHECK-SAME: #softmax.cross_entropy_gpu_strategy<mma = wgmma.m64nNk16, rows_per_block = 128, classes_per_tile = 256, k_tile = 64, stages = 4, vocab_splits = 2>
func.func @attention_gpu() attributes {softmax.strategy = #softmax.attention_gpu_strategy<buffers = 2, keys_per_tile = 64, rows_per_block = 128, rows_per_warp = 32, mma = m16n8k16>} {
  return
}
func.func @attention_gpu_tf32x3() attributes {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32x3>} {
  return
}
func.func @attention_gpu_tf32() attributes {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16, mma = m16n8k8.tf32>} {
  return
}
func.func @attention_gpu_tma() attributes {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma, buffers = 2>} {
  return
}
func.func @attention_gpu_skip_values() attributes {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = with_keys, tile_copy = tma, buffers = 2>} {
  return
}
func.func @attention_gpu_cp_async() attributes {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = cp_async>} {
  return
}
func.func @attention_gpu_mfma() attributes {softmax.strategy = #softmax.attention_gpu_strategy<mma = mfma16x16x16, rows_per_warp = 16, rows_per_block = 64, keys_per_tile = 64, buffers = 1>} {
  return
}
func.func @attention_gpu_wgmma() attributes {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma, buffers = 2, rows_per_warp = 16, mma = wgmma.m64nNk16>} {
  return
}
func.func @cross_entropy_gpu_wgmma() attributes {softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = wgmma.m64nNk16, rows_per_block = 128, classes_per_tile = 256, k_tile = 64, stages = 4, vocab_splits = 2>} {
  return
}

// A request on attention.
// CHECK-LABEL: func @attention_request
// CHECK: softmax.attention {{.*}} masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}
func.func @attention_request(%q: memref<1x1x4x16xbf16>, %k: memref<1x1x8x16xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xbf16>, memref<1x1x8x16xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}
  return
}
