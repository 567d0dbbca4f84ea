// How split rows merge when nothing asks (chooseGPUStrategy): few rows
// (at most half the multiprocessors) split over at most a cluster's blocks
// merge in the cluster on sm_90 (peeled rows up to 8 blocks); many rows
// and targets without clusters merge through global memory.
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_80" -split-input-file | FileCheck %s --check-prefix=SM80

// 32 sampled rows of Llama 3's vocabulary: 16 chunks a row, in a cluster.
// CHECK-LABEL: func @few_rows
// CHECK: gpu.launch clusters
// CHECK: split_merge = cluster>
// SM80-LABEL: func @few_rows
// SM80: splits = 16, split_merge = global>
func.func @few_rows(%x: memref<32x128256xbf16>, %y: memref<32x128256xbf16>) {
  softmax.softmax ins(%x : memref<32x128256xbf16>) outs(%y : memref<32x128256xbf16>) dimension(1) masked(zero)
  return
}

// -----

// One row of a 32000 vocabulary: 4 chunks.
// CHECK-LABEL: func @one_row
// CHECK: splits = 4, split_merge = cluster>
func.func @one_row(%x: memref<1x32000xf32>, %y: memref<1x32000xf32>) {
  softmax.log_softmax ins(%x : memref<1x32000xf32>) outs(%y : memref<1x32000xf32>) dimension(1) masked(zero)
  return
}

// -----

// GPT-2's odd 50257: the rows are peeled, 7 chunks a row; peeled rows
// merge in a cluster up to 8 chunks.
// CHECK-LABEL: func @peeled_rows
// CHECK: gpu.launch clusters
// CHECK: splits = 7, split_merge = cluster>
func.func @peeled_rows(%x: memref<64x50257xbf16>, %y: memref<64x50257xbf16>) {
  softmax.softmax ins(%x : memref<64x50257xbf16>) outs(%y : memref<64x50257xbf16>) dimension(1) masked(zero)
  return
}

// -----

// Peeled rows in 16 chunks merge through global memory (the cluster took
// 17% longer on an H100).
// CHECK-LABEL: func @peeled_rows_many_chunks
// CHECK-NOT: gpu.launch clusters
// CHECK: splits = 16, split_merge = global>
func.func @peeled_rows_many_chunks(%x: memref<32x128257xbf16>, %y: memref<32x128257xbf16>) {
  softmax.log_softmax ins(%x : memref<32x128257xbf16>) outs(%y : memref<32x128257xbf16>) dimension(1) masked(zero)
  return
}

// -----

// 100 rows fill more than half of the 132 multiprocessors.
// CHECK-LABEL: func @many_rows
// CHECK: splits = 16, split_merge = global>
func.func @many_rows(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>) dimension(1) masked(zero)
  return
}

// -----

// More chunks than a cluster's 16 blocks: 8 rows of a million.
// CHECK-LABEL: func @more_chunks_than_a_cluster
// CHECK: splits = 32, split_merge = global
func.func @more_chunks_than_a_cluster(%x: memref<8x1000000xbf16>, %y: memref<8x1000000xbf16>) {
  softmax.softmax ins(%x : memref<8x1000000xbf16>) outs(%y : memref<8x1000000xbf16>) dimension(1) masked(zero)
  return
}
